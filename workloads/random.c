// SPDX-License-Identifier: GPL-2.0
/*
 * random: uniform random one-byte reads through an mmap of a cold file,
 * or with -s, one byte every STRIDE pages from the start (the access
 * patterns 0b9c0aeba938 was measured with). Pages read from the device per
 * access is the cost a readahead heuristic puts on such a reader.
 *
 *   random -f FILE [-n accesses | -s stride_pages] [-k read_ahead_kb]
 *          [-l len_mib]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

int main(int argc, char **argv)
{
	struct args a = { .n = 20000, .ra_kb = 128 };
	size_t stride = 0, size, i, pages;
	struct counters c0, c1;
	int fd, opt;
	char *map;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "f:n:k:l:d:s:")) != -1) {
		if (opt == 's')
			stride = strtoul(optarg, NULL, 0);
		else
			common_opt(&a, opt);
	}
	if (!a.path)
		die("usage: %s -f FILE [-n N] [-k KB] [-l MiB]", argv[0]);

	set_read_ahead_kb(a.ra_kb);
	fd = open_cold(a.path, &size);
	if (!a.len || a.len > size)
		a.len = size;
	map = map_file(fd, 0, a.len, PROT_READ, PLAIN);
	pages = a.len / page_size;

	if (stride)
		a.n = (pages + stride - 1) / stride;
	rnd_seed(7);
	snap(&c0);
	for (i = 0; i < a.n; i++)
		touch(map + (stride ? i * stride : rnd() % pages) * page_size);
	snap(&c1);
	result(stride ? "stride" : "random", "read", &c0, &c1, a.n,
	       resident_pages(map, a.len),
	       "\"read_ahead_kb\":%zu,\"stride_pages\":%zu,"
	       "\"pages_per_access\":%.3f", a.ra_kb, stride,
	       (double)(c1.dev_pages - c0.dev_pages) / a.n);
	munmap(map, a.len);
	close(fd);
	return 0;
}
