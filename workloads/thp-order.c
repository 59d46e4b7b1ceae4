// SPDX-License-Identifier: GPL-2.0
/*
 * thp-order: read a cold file through a MADV_HUGEPAGE mapping, one byte a
 * page, last page first (-D, the descending-thp workload) or first page
 * first (the ascending control).
 *
 *   thp-order -f FILE [-D] [-k read_ahead_kb] [-l len_mib] [-w name]
 *
 * -w names the workload in the result (default descending-thp or
 * ascending-thp).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

int main(int argc, char **argv)
{
	const char *path = NULL, *name = NULL;
	size_t ra_kb = 8192, len = 0, size, i, pages;
	struct counters a, b;
	volatile char sink;
	int fd, opt, down = 0;
	long pmd_kb;
	char *map;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "f:Dk:l:d:w:")) != -1) {
		switch (opt) {
		case 'f': path = optarg; break;
		case 'D': down = 1; break;
		case 'k': ra_kb = strtoul(optarg, NULL, 0); break;
		case 'l': len = strtoul(optarg, NULL, 0) << 20; break;
		case 'd': blockdev = optarg; break;
		case 'w': name = optarg; break;
		default: die("bad option");
		}
	}
	if (!path)
		die("usage: %s -f FILE [-D] [-k KB] [-l MiB]", argv[0]);

	set_read_ahead_kb(ra_kb);
	fd = open_cold(path, &size);
	if (!len || len > size)
		len = size;
	map = map_file(fd, len, 1);
	pages = len / page_size;

	snap(&a);
	for (i = 0; i < pages; i++)
		sink = map[(down ? pages - 1 - i : i) * page_size];
	snap(&b);
	(void)sink;
	pmd_kb = file_pmd_mapped_kb();
	if (!name)
		name = down ? "descending-thp" : "ascending-thp";
	result(name, "read", &a, &b, pages,
	       resident_pages(map, len),
	       "\"read_ahead_kb\":%zu,\"file_pmd_mapped_kb\":%ld", ra_kb, pmd_kb);
	munmap(map, len);
	close(fd);
	return 0;
}
