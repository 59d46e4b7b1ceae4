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
#include <unistd.h>

#include "common.h"

int main(int argc, char **argv)
{
	struct args a = { .ra_kb = 8192 };
	struct counters c0, c1;
	size_t size, pages;
	int fd, opt, down = 0;
	long pmd_kb;
	char *map;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "f:Dk:l:d:w:")) != -1) {
		if (opt == 'D')
			down = 1;
		else
			common_opt(&a, opt);
	}
	if (!a.path)
		die("usage: %s -f FILE [-D] [-k KB] [-l MiB]", argv[0]);

	set_read_ahead_kb(a.ra_kb);
	fd = open_cold(a.path, &size);
	if (!a.len || a.len > size)
		a.len = size;
	map = map_file(fd, 0, a.len, PROT_READ, HUGEPAGE);
	pages = a.len / page_size;

	snap(&c0);
	read_pages(map, pages, down);
	snap(&c1);
	pmd_kb = file_pmd_mapped_kb();
	if (!a.name)
		a.name = down ? "descending-thp" : "ascending-thp";
	result(a.name, "read", &c0, &c1, pages, resident_pages(map, a.len),
	       "\"read_ahead_kb\":%zu,\"file_pmd_mapped_kb\":%ld", a.ra_kb, pmd_kb);
	munmap(map, a.len);
	close(fd);
	return 0;
}
