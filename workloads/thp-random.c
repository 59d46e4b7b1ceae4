// SPDX-License-Identifier: GPL-2.0
/*
 * thp-random: what a random reader of a MADV_HUGEPAGE mapping reads once
 * its file's mmap_miss is over the limit, in a file about half cached in
 * PMD-sized folios.
 *
 * 1. Another open of FILE, MADV_HUGEPAGE, faults on the first page of every
 *    fourth 2 MiB range (forced THP readahead reads it and the one above):
 *    ranges 4k and 4k+1 are cached, 4k+2 and 4k+3 are not.
 * 2. Unless -N, the measured open misses 150 times at random in the last
 *    quarter of the file through a plain mapping (read_ahead_kb 128), so
 *    its mmap_miss is over MMAP_LOTSAMISS; then read_ahead_kb is set to -k
 *    and taken up with POSIX_FADV_NORMAL.
 * 3. ACCESSES accesses through its MADV_HUGEPAGE mapping, each a miss on a
 *    page not cached, in the uncached ranges of the first three quarters:
 *      -m uniform  a random page of a random uncached range;
 *      -m aligned  the first page of a random uncached range;
 *      -m next     the first page of a range 4k+2 (its lower neighbour is
 *                  cached) or the last page of a range 4k+3 (its upper one).
 *    With -H, every other access instead touches a random page of a
 *    cached range (a hit, or a miss where memory pressure evicted it).
 * With -S, step 1 caches the same ranges in folios of the smallest size
 * (POSIX_FADV_WILLNEED) and step 3 goes through a plain mapping: what 1/2's
 * probe costs a random reader whose misses land just after cached folios.
 * Device reads per access are what decide.
 *
 *   thp-random -f FILE -m MODE [-a accesses] [-k read_ahead_kb] [-H] [-N]
 *              [-s seed]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

#define PMD	(2UL << 20)

static int cached(char *map, size_t off)
{
	return resident_pages(map + (off & ~(page_size - 1)), page_size);
}

int main(int argc, char **argv)
{
	const char *path = NULL, *mode = NULL;
	size_t size, ranges, accesses = 64, ra_kb = 8192, i, off, r, hits = 0;
	int fd, pfd, opt, with_hits = 0, under = 0, small = 0, tries;
	struct counters a, b;
	char *plain, *thp, *pre;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "f:m:a:k:HNSs:")) != -1) {
		switch (opt) {
		case 'f': path = optarg; break;
		case 'm': mode = optarg; break;
		case 'a': accesses = strtoul(optarg, NULL, 0); break;
		case 'k': ra_kb = strtoul(optarg, NULL, 0); break;
		case 'H': with_hits = 1; break;
		case 'N': under = 1; break;
		case 'S': small = 1; break;
		case 's': rnd_seed(strtoull(optarg, NULL, 0)); break;
		default: die("usage: thp-random -f FILE -m uniform|aligned|next [-a N] [-k KB] [-H] [-N] [-s SEED]");
		}
	}
	if (!path || !mode || (strcmp(mode, "uniform") && strcmp(mode, "aligned") &&
			       strcmp(mode, "next")))
		die("need -f FILE and -m uniform|aligned|next");

	set_read_ahead_kb(128);
	fd = open_cold(path, &size);
	ranges = size / PMD * 3 / 4 / 4 * 4;
	if (ranges < 8)
		die("%s: too small", path);

	/* 1. half of the first three quarters cached, by another open */
	pfd = open(path, O_RDONLY);
	if (pfd < 0)
		die("open %s", path);
	pre = map_file(pfd, 0, size, PROT_READ, HUGEPAGE);
	for (r = 0; r < ranges; r += 4) {
		if (small && posix_fadvise(pfd, r * PMD, 2 * PMD, POSIX_FADV_WILLNEED))
			die("fadvise WILLNEED failed");
		if (!small)
			touch(pre + r * PMD);
	}
	wait_for_reads();

	/* 2. the measured open's mmap_miss over the limit */
	plain = map_file(fd, 0, size, PROT_READ, PLAIN);
	for (i = 0; i < (under ? 0 : 150); i++)
		touch(plain + size * 3 / 4 + (rnd() % (size / 4 / PMD)) * PMD +
		      (rnd() % (PMD / page_size)) * page_size);
	set_read_ahead_kb(ra_kb);
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_NORMAL))
		die("fadvise failed");
	thp = map_file(fd, 0, size, PROT_READ, small ? PLAIN : HUGEPAGE);

	/* 3. the measured accesses */
	wait_for_reads();
	snap(&a);
	for (i = 0; i < accesses; i++) {
		for (tries = 0; tries < 1000; tries++) {
			r = rnd() % ranges;
			if (with_hits && (i & 1)) {
				off = (r & ~3UL) * PMD + (rnd() % (2 * PMD / page_size)) * page_size;
				break;
			}
			r = (r & ~3UL) + 2 + (rnd() & 1);
			if (!strcmp(mode, "uniform"))
				off = r * PMD + (rnd() % (PMD / page_size)) * page_size;
			else if (!strcmp(mode, "aligned"))
				off = r * PMD;
			else
				off = (r & 1) ? (r + 1) * PMD - page_size : r * PMD;
			if (!cached(thp, off))
				break;
		}
		hits += cached(thp, off);
		touch(thp + off);
	}
	wait_for_reads();
	snap(&b);
	result("thp-random", mode, &a, &b, accesses, 0,
	       "\"with_hits\":\"%s\",\"mmap_miss\":\"%s\",\"cache\":\"%s\",\"cached_before\":%zu,\"read_ahead_kb\":%zu,"
	       "\"kib_per_access\":%.1f",
	       with_hits ? "yes" : "no", under ? "under" : "over",
	       small ? "small" : "pmd", hits, ra_kb,
	       (double)(b.dev_pages - a.dev_pages) * page_size / 1024 / accesses);
	return 0;
}
