// SPDX-License-Identifier: GPL-2.0
/*
 * seq-after-random: the mmap_miss trap.
 *
 * Map a cold file, touch N random pages in [rand_start, end) so that
 * mmap_miss passes MMAP_LOTSAMISS, then read [seq_start, seq_start+seq_len)
 * in order, one byte a page, on the same open file. Reports both phases.
 *
 *   seq-after-random -f FILE -n N [-k read_ahead_kb] [-s seq_start_mib]
 *                    [-l seq_len_mib] [-r rand_start_mib] [-w name] [-D]
 *
 * -w names the workload in the result (default seq-after-random); -D reads
 * the range from its last page down (phase "descending").
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

int main(int argc, char **argv)
{
	struct args a = { .name = "seq-after-random", .n = 100, .ra_kb = 128,
			  .start = MIB(2048), .len = MIB(1024), .rand_start = MIB(3072) };
	struct counters c0, c1;
	size_t size;
	char *map;
	int fd, opt, down = 0;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "f:n:k:s:l:r:d:w:D")) != -1) {
		if (opt == 'D')
			down = 1;
		else
			common_opt(&a, opt);
	}
	if (!a.path)
		die("usage: %s -f FILE [-n N] [-k KB] [-s MiB] [-l MiB] [-r MiB]", argv[0]);

	fd = open_args(&a, &size);
	map = map_file(fd, 0, size, PROT_READ, PLAIN);
	a.rand_len = size - a.rand_start;
	random_faults(&a, map, "");

	snap(&c0);
	read_pages(map + a.start, a.len / page_size, down);
	snap(&c1);
	result(a.name, down ? "descending" : "sequential", &c0, &c1, a.len / page_size,
	       resident_pages(map + a.start, a.len),
	       "\"random_faults\":%zu,\"read_ahead_kb\":%zu", a.n, a.ra_kb);
	munmap(map, size);
	close(fd);
	return 0;
}
