// SPDX-License-Identifier: GPL-2.0
/*
 * seq-after-random: the mmap_miss trap.
 *
 * Map a cold file, touch N random pages in [rand_start, end) so that
 * mmap_miss passes MMAP_LOTSAMISS, then read [seq_start, seq_start+seq_len)
 * in order, one byte a page, on the same open file. Reports both phases.
 *
 *   seq-after-random -f FILE -n N [-k read_ahead_kb] [-s seq_start_mib]
 *                    [-l seq_len_mib] [-r rand_start_mib] [-w name]
 *
 * -w names the workload in the result (default seq-after-random).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

int main(int argc, char **argv)
{
	const char *path = NULL, *name = "seq-after-random";
	size_t nrand = 100, ra_kb = 128, size, i, pages;
	size_t seq_start = 2048, seq_len = 1024, rand_start = 3072;
	struct counters a, b;
	volatile char sink;
	char *map;
	int fd, opt;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "f:n:k:s:l:r:d:w:")) != -1) {
		switch (opt) {
		case 'f': path = optarg; break;
		case 'n': nrand = strtoul(optarg, NULL, 0); break;
		case 'k': ra_kb = strtoul(optarg, NULL, 0); break;
		case 's': seq_start = strtoul(optarg, NULL, 0); break;
		case 'l': seq_len = strtoul(optarg, NULL, 0); break;
		case 'r': rand_start = strtoul(optarg, NULL, 0); break;
		case 'd': blockdev = optarg; break;
		case 'w': name = optarg; break;
		default: die("bad option");
		}
	}
	if (!path)
		die("usage: %s -f FILE [-n N] [-k KB] [-s MiB] [-l MiB] [-r MiB]", argv[0]);
	seq_start <<= 20;
	seq_len <<= 20;
	rand_start <<= 20;

	set_read_ahead_kb(ra_kb);
	fd = open_cold(path, &size);
	if (size <= rand_start || seq_start + seq_len > size)
		die("%s: %zu bytes is too small for this geometry", path, size);
	map = map_file(fd, size, 0);

	rnd_seed(42);
	snap(&a);
	for (i = 0; i < nrand; i++) {
		size_t pg = rnd() % ((size - rand_start) / page_size);

		sink = map[rand_start + pg * page_size];
	}
	snap(&b);
	result(name, "random", &a, &b, nrand,
	       resident_pages(map + rand_start, size - rand_start),
	       "\"random_faults\":%zu,\"read_ahead_kb\":%zu", nrand, ra_kb);

	pages = seq_len / page_size;
	snap(&a);
	for (i = 0; i < pages; i++)
		sink = map[seq_start + i * page_size];
	snap(&b);
	(void)sink;
	result(name, "sequential", &a, &b, pages,
	       resident_pages(map + seq_start, seq_len),
	       "\"random_faults\":%zu,\"read_ahead_kb\":%zu", nrand, ra_kb);
	munmap(map, size);
	close(fd);
	return 0;
}
