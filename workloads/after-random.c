// SPDX-License-Identifier: GPL-2.0
/*
 * after-random: what a reader that is not sequential pays once readahead
 * is off. Map a cold file, make N random faults in [rand_start,
 * rand_start + rand_len) so that mmap_miss passes MMAP_LOTSAMISS, then,
 * on the same open file, in the region [start, start + len):
 *
 *   -m adversarial  make every third page cached with POSIX_FADV_WILLNEED,
 *                   then make ACCESSES accesses, each on the page just
 *                   after a cached page (chosen at random);
 *   -m every-other  touch every other page, in order (with -W, after
 *                   making the page just before the region cached with
 *                   POSIX_FADV_WILLNEED, so that the first access lands
 *                   just after a cached page);
 *   -m records      touch ACCESSES random records of RECORD KiB, aligned
 *                   to their size, each page by page in order.
 *
 * With -H, the region is made MADV_HUGEPAGE after the random faults (forced
 * THP readahead: what a way back costs a reader of records there).
 *
 * With -p, then make PROBES isolated random faults in the cold region
 * [probe_start, probe_start + len): the pages each reads tell whether
 * readahead is still off (one page, or one block) or read-around is back.
 *
 *   after-random -f FILE -m MODE [-n N] [-k read_ahead_kb]
 *                [-r rand_start_mib] [-R rand_len_mib] [-s start_mib]
 *                [-l len_mib] [-a accesses] [-b record_kib]
 *                [-p probe_start_mib] [-P probes] [-W] [-H] [-w name]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

/* Whether page pg is within 64 pages of one of the n pages in picked. */
static int near(const size_t *picked, size_t n, size_t pg)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (pg + 64 > picked[i] && pg < picked[i] + 64)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct args a = { .n = 300, .ra_kb = 128, .rand_start = MIB(768),
			  .rand_len = MIB(256), .start = 0, .len = MIB(64) };
	const char *mode = NULL;
	size_t accesses = 2000, record_kb = 16, probes = 50;
	size_t size, i, j, pages, touched, res_a, res_b;
	size_t *picked;
	long probe_start = -1;
	struct counters c0, c1;
	char *map, *region;
	int fd, opt, err, warm = 0, thp = 0;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "f:m:n:k:r:R:s:l:a:b:p:P:WHw:d:")) != -1) {
		switch (opt) {
		case 'm': mode = optarg; break;
		case 'a': accesses = strtoul(optarg, NULL, 0); break;
		case 'b': record_kb = strtoul(optarg, NULL, 0); break;
		case 'p': probe_start = strtol(optarg, NULL, 0); break;
		case 'P': probes = strtoul(optarg, NULL, 0); break;
		case 'W': warm = 1; break;
		case 'H': thp = 1; break;
		default: common_opt(&a, opt);
		}
	}
	if (!a.path || !mode)
		die("usage: %s -f FILE -m adversarial|every-other|records [options]", argv[0]);
	if (strcmp(mode, "adversarial") && strcmp(mode, "every-other") &&
	    strcmp(mode, "records"))
		die("unknown mode %s", mode);
	if (!a.name)
		a.name = mode;
	if (a.len < (2UL << 20) || !a.rand_len || record_kb * 1024 < page_size ||
	    (record_kb * 1024) % page_size || (a.len >> 10) < record_kb)
		die("bad geometry");

	fd = open_args(&a, &size);
	if (probe_start >= 0 && MIB(probe_start) + a.len > size)
		die("%s: %zu bytes is too small for this geometry", a.path, size);
	map = map_file(fd, 0, size, PROT_READ, PLAIN);
	region = map + a.start;
	pages = a.len / page_size;
	random_faults(&a, map, "");

	if (thp && madvise(region, a.len, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE): %s", strerror(errno));
	rnd_seed(7);
	if (!strcmp(mode, "adversarial")) {
		/* pages 0, 3, 6, ... cached; accesses on 1, 4, 7, ... */
		size_t cached = (pages + 2) / 3, targets = (pages - 2) / 3 + 1;

		snap(&c0);
		for (i = 0; i < pages; i += 3) {
			err = posix_fadvise(fd, a.start + i * page_size, page_size,
					    POSIX_FADV_WILLNEED);
			if (err)
				die("fadvise(WILLNEED): %s", strerror(err));
		}
		wait_for_reads();
		snap(&c1);
		res_a = resident_pages(region, a.len);
		result(a.name, "willneed", &c0, &c1, cached, res_a,
		       "\"random_faults\":%zu,\"read_ahead_kb\":%zu", a.n, a.ra_kb);
		if (res_a != cached)
			die("WILLNEED made %zu pages resident, not %zu", res_a, cached);

		snap(&c0);
		for (i = 0; i < accesses; i++)
			touch(region + (3 * (rnd() % targets) + 1) * page_size);
		snap(&c1);
		touched = accesses;
	} else if (!strcmp(mode, "every-other")) {
		if (warm) {
			if (!a.start)
				die("-W needs a region that does not start the file");
			err = posix_fadvise(fd, a.start - page_size, page_size,
					    POSIX_FADV_WILLNEED);
			if (err)
				die("fadvise(WILLNEED): %s", strerror(err));
			wait_for_reads();
			if (resident_pages(region - page_size, page_size) != 1)
				die("WILLNEED did not make the page before the region resident");
		}
		res_a = resident_pages(region, a.len);
		accesses = (pages + 1) / 2;
		snap(&c0);
		for (i = 0; i < pages; i += 2)
			touch(region + i * page_size);
		snap(&c1);
		touched = accesses;
	} else {
		size_t rec_pages = record_kb * 1024 / page_size;
		size_t records = a.len / (record_kb * 1024);

		res_a = resident_pages(region, a.len);
		snap(&c0);
		for (i = 0; i < accesses; i++) {
			char *rec = region + rnd() % records * rec_pages * page_size;

			for (j = 0; j < rec_pages; j++)
				touch(rec + j * page_size);
		}
		snap(&c1);
		touched = accesses * rec_pages;
	}
	res_b = resident_pages(region, a.len);
	result(a.name, "access", &c0, &c1, touched, res_b,
	       "\"random_faults\":%zu,\"read_ahead_kb\":%zu,\"accesses\":%zu,"
	       "\"record_kb\":%zu,\"warm_start\":%d,\"pages_per_access\":%.3f,"
	       "\"resident_per_access\":%.3f,"
	       "\"metrics\":\"pages_per_access,resident_per_access\"",
	       a.n, a.ra_kb, accesses, strcmp(mode, "records") ? 0 : record_kb, warm,
	       (double)(c1.dev_pages - c0.dev_pages) / accesses,
	       (double)(res_b - res_a) / accesses);

	if (probe_start >= 0) {
		char *pr = map + MIB(probe_start);

		if (pages < probes * 256)
			die("the probe region is too small for %zu isolated faults", probes);
		picked = calloc(probes, sizeof(*picked));
		if (!picked)
			die("out of memory");
		for (i = 0; i < probes; i++) {
			do {
				picked[i] = rnd() % pages;
			} while (near(picked, i, picked[i]));
		}
		res_a = resident_pages(pr, a.len);
		snap(&c0);
		for (i = 0; i < probes; i++)
			touch(pr + picked[i] * page_size);
		snap(&c1);
		res_b = resident_pages(pr, a.len);
		result(a.name, "probe", &c0, &c1, probes, res_b,
		       "\"random_faults\":%zu,\"read_ahead_kb\":%zu,"
		       "\"pages_per_fault\":%.2f,\"resident_per_fault\":%.2f,"
		       "\"metrics\":\"pages_per_fault,resident_per_fault\"",
		       a.n, a.ra_kb,
		       (double)(c1.dev_pages - c0.dev_pages) / probes,
		       (double)(res_b - res_a) / probes);
		free(picked);
	}
	if (munmap(map, size))
		die("munmap: %s", strerror(errno));
	close(fd);
	return 0;
}
