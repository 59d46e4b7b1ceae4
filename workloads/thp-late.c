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
	struct args a = { .n = 300, .ra_kb = 128, .rand_start = MIB(3072),
			  .rand_len = MIB(1024), .start = MIB(2048), .len = MIB(1024) };
	struct counters c0, c1;
	size_t size, pages;
	int fd, opt, down = 0;
	long pmd_kb;
	char *map;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "f:n:Dk:r:R:s:l:w:d:")) != -1) {
		if (opt == 'D')
			down = 1;
		else
			common_opt(&a, opt);
	}
	if (!a.path)
		die("usage: %s -f FILE [-n N] [-D] [options]", argv[0]);
	if (!a.name)
		a.name = down ? "thp-late-descending" : "thp-late-ascending";
	if (!a.len || !a.rand_len)
		die("bad geometry");

	fd = open_args(&a, &size);
	map = map_file(fd, 0, size, PROT_READ, PMD_ALIGNED);
	random_faults(&a, map, "");

	if (madvise(map, size, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE): %s", strerror(errno));
	pages = a.len / page_size;
	snap(&c0);
	read_pages(map + a.start, pages, down);
	snap(&c1);
	pmd_kb = file_pmd_mapped_kb();
	result(a.name, "pass", &c0, &c1, pages, resident_pages(map + a.start, a.len),
	       "\"random_faults\":%zu,\"read_ahead_kb\":%zu,"
	       "\"file_pmd_mapped_kb\":%ld,\"pmd_mapped_2m\":%ld,"
	       "\"metrics\":\"pmd_mapped_2m\"",
	       a.n, a.ra_kb, pmd_kb, pmd_kb < 0 ? -1 : pmd_kb / 2048);
	if (munmap(map, size))
		die("munmap: %s", strerror(errno));
	close(fd);
	return 0;
}
