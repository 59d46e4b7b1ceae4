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
	const char *path = NULL;
	size_t n = 20000, ra_kb = 128, len = 0, stride = 0, size, i, pages;
	struct counters a, b;
	volatile char sink;
	int fd, opt;
	char *map;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "f:n:k:l:d:s:")) != -1) {
		switch (opt) {
		case 'f': path = optarg; break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'k': ra_kb = strtoul(optarg, NULL, 0); break;
		case 'l': len = strtoul(optarg, NULL, 0) << 20; break;
		case 'd': blockdev = optarg; break;
		case 's': stride = strtoul(optarg, NULL, 0); break;
		default: die("bad option");
		}
	}
	if (!path)
		die("usage: %s -f FILE [-n N] [-k KB] [-l MiB]", argv[0]);

	set_read_ahead_kb(ra_kb);
	fd = open_cold(path, &size);
	if (!len || len > size)
		len = size;
	map = map_file(fd, len, 0);
	pages = len / page_size;

	if (stride)
		n = (pages + stride - 1) / stride;
	rnd_seed(7);
	snap(&a);
	for (i = 0; i < n; i++)
		sink = map[(stride ? i * stride : rnd() % pages) * page_size];
	snap(&b);
	(void)sink;
	result(stride ? "stride" : "random", "read", &a, &b, n,
	       resident_pages(map, len),
	       "\"read_ahead_kb\":%zu,\"stride_pages\":%zu,"
	       "\"pages_per_access\":%.3f", ra_kb, stride,
	       (double)(b.dev_pages - a.dev_pages) / n);
	munmap(map, len);
	close(fd);
	return 0;
}
