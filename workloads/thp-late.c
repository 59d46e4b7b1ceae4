// SPDX-License-Identifier: GPL-2.0
/*
 * thp-late: a mapping that becomes VM_HUGEPAGE after small-page random
 * faults. Map the whole cold file on a PMD boundary without
 * MADV_HUGEPAGE, touch N random pages in [rand_start, rand_start +
 * rand_len) (N = 0 is the control), then madvise(MADV_HUGEPAGE) the whole
 * mapping and read [start, start + len) one byte a page, in order or, with
 * -D, last page first. Reports the pass's major faults and how many 2 MiB
 * ranges are PMD-mapped at its end (FilePmdMapped of /proc/self/smaps).
 *
 *   thp-late -f FILE [-n N] [-D] [-k read_ahead_kb] [-r rand_start_mib]
 *            [-R rand_len_mib] [-s start_mib] [-l len_mib] [-w name]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

int main(int argc, char **argv)
{
	const char *path = NULL, *name = NULL;
	size_t nrand = 300, ra_kb = 128, rand_start = 3072, rand_len = 1024;
	size_t start = 2048, len = 1024, size, i, pages;
	struct counters a, b;
	volatile char sink;
	int fd, opt, down = 0;
	long pmd_kb;
	char *map;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "f:n:Dk:r:R:s:l:w:d:")) != -1) {
		switch (opt) {
		case 'f': path = optarg; break;
		case 'n': nrand = strtoul(optarg, NULL, 0); break;
		case 'D': down = 1; break;
		case 'k': ra_kb = strtoul(optarg, NULL, 0); break;
		case 'r': rand_start = strtoul(optarg, NULL, 0); break;
		case 'R': rand_len = strtoul(optarg, NULL, 0); break;
		case 's': start = strtoul(optarg, NULL, 0); break;
		case 'l': len = strtoul(optarg, NULL, 0); break;
		case 'w': name = optarg; break;
		case 'd': blockdev = optarg; break;
		default: die("bad option");
		}
	}
	if (!path)
		die("usage: %s -f FILE [-n N] [-D] [options]", argv[0]);
	if (!name)
		name = down ? "thp-late-descending" : "thp-late-ascending";
	rand_start <<= 20;
	rand_len <<= 20;
	start <<= 20;
	len <<= 20;
	if (!len || !rand_len)
		die("bad geometry");

	set_read_ahead_kb(ra_kb);
	fd = open_cold(path, &size);
	if (rand_start + rand_len > size || start + len > size)
		die("%s: %zu bytes is too small for this geometry", path, size);
	map = map_file_aligned(fd, size, MAP_SHARED);

	rnd_seed(42);
	snap(&a);
	for (i = 0; i < nrand; i++)
		sink = map[rand_start + rnd() % (rand_len / page_size) * page_size];
	snap(&b);
	result(name, "random", &a, &b, nrand,
	       resident_pages(map + rand_start, rand_len),
	       "\"random_faults\":%zu,\"read_ahead_kb\":%zu", nrand, ra_kb);

	if (madvise(map, size, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE): %s", strerror(errno));
	pages = len / page_size;
	snap(&a);
	for (i = 0; i < pages; i++)
		sink = map[start + (down ? pages - 1 - i : i) * page_size];
	snap(&b);
	(void)sink;
	pmd_kb = file_pmd_mapped_kb();
	result(name, "pass", &a, &b, pages, resident_pages(map + start, len),
	       "\"random_faults\":%zu,\"read_ahead_kb\":%zu,"
	       "\"file_pmd_mapped_kb\":%ld,\"pmd_mapped_2m\":%ld,"
	       "\"metrics\":\"pmd_mapped_2m\"",
	       nrand, ra_kb, pmd_kb, pmd_kb < 0 ? -1 : pmd_kb / 2048);
	if (munmap(map, size))
		die("munmap: %s", strerror(errno));
	close(fd);
	return 0;
}
