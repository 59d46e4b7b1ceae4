// SPDX-License-Identifier: GPL-2.0
/*
 * random-private: the plain random reader of the linux-mm report behind
 * 0b9c0aeba938. N random one-byte reads (fixed seed) through a private
 * mapping of a cold file, RUNS times in one process, each run on a new
 * open of the file with its page cache dropped. With -z, first make FILE
 * a sparse file of SIZE MiB (ftruncate), as the report did.
 *
 * A sparse file reads nothing from the device, so pages read are counted
 * as pages added to the page cache: the growth of nr_file_pages plus the
 * file pages reclaimed meanwhile (pgsteal_file), from /proc/vmstat.
 *
 * One record per run, then one for the median run (by seconds) with the
 * minimum and maximum seconds of all runs.
 *
 *   random-private -f FILE [-z size_mib] [-n reads] [-c runs]
 *                  [-k read_ahead_kb] [-w name]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

#define MAX_RUNS 15

struct run {
	struct counters a, b;
	long long added, refaults;
	size_t resident;
};

static long long file_pages_seen(long long *refaults)
{
	long long cached = vmstat("nr_file_pages");
	long long stolen = vmstat("pgsteal_file");

	*refaults = vmstat("workingset_refault_file");
	if (cached < 0 || stolen < 0)
		return -1;
	return cached + stolen;
}

static void print_run(const struct args *a, const char *phase, const struct run *r,
		      double tmin, double tmax)
{
	result(a->name, phase, &r->a, &r->b, a->n, r->resident,
	       "\"read_ahead_kb\":%zu,\"mem_total_kb\":%ld,\"pages_added\":%lld,"
	       "\"refaults\":%lld,\"seconds_min\":%.3f,\"seconds_max\":%.3f,"
	       "\"metrics\":\"pages_added%s\"",
	       a->ra_kb, mem_total_kb(), r->added, r->refaults, tmin, tmax,
	       strcmp(phase, "median") ? "" : ",seconds_min,seconds_max");
}

static int by_seconds(const void *x, const void *y)
{
	const struct run *a = x, *b = y;
	double da = a->b.t - a->a.t, db = b->b.t - b->a.t;

	return (da > db) - (da < db);
}

int main(int argc, char **argv)
{
	struct args a = { .name = "random-private", .n = 524288, .ra_kb = 128 };
	size_t runs = 3, sparse = 0, size, i, r, pages;
	struct run run[MAX_RUNS], sorted[MAX_RUNS];
	long long a_pages, b_pages, a_ref, b_ref;
	char phase[16];
	int fd, opt;
	char *map;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "f:z:n:c:k:w:d:")) != -1) {
		switch (opt) {
		case 'z': sparse = strtoul(optarg, NULL, 0); break;
		case 'c': runs = strtoul(optarg, NULL, 0); break;
		default: common_opt(&a, opt);
		}
	}
	if (!a.path)
		die("usage: %s -f FILE [-z size_mib] [-n reads] [-c runs]", argv[0]);
	if (!runs || runs > MAX_RUNS)
		die("runs: 1 to %d", MAX_RUNS);
	if (sparse) {
		fd = open(a.path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			die("%s: %s", a.path, strerror(errno));
		if (ftruncate(fd, MIB(sparse)))
			die("ftruncate %s: %s", a.path, strerror(errno));
		if (close(fd))
			die("close %s: %s", a.path, strerror(errno));
	}

	set_read_ahead_kb(a.ra_kb);
	for (r = 0; r < runs; r++) {
		fd = open_cold(a.path, &size);
		pages = size / page_size;
		if (!pages)
			die("%s is empty", a.path);
		map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED)
			die("mmap: %s", strerror(errno));
		rnd_seed(7);
		a_pages = file_pages_seen(&a_ref);
		snap(&run[r].a);
		for (i = 0; i < a.n; i++)
			touch(map + rnd() % pages * page_size);
		snap(&run[r].b);
		b_pages = file_pages_seen(&b_ref);
		run[r].added = a_pages < 0 ? -1 : b_pages - a_pages;
		run[r].refaults = a_ref < 0 ? -1 : b_ref - a_ref;
		run[r].resident = resident_pages(map, size);
		if (munmap(map, size))
			die("munmap: %s", strerror(errno));
		if (close(fd))
			die("close: %s", strerror(errno));
		snprintf(phase, sizeof(phase), "run%zu", r + 1);
		print_run(&a, phase, &run[r], run[r].b.t - run[r].a.t,
			  run[r].b.t - run[r].a.t);
	}
	memcpy(sorted, run, runs * sizeof(run[0]));
	qsort(sorted, runs, sizeof(sorted[0]), by_seconds);
	print_run(&a, "median", &sorted[runs / 2], sorted[0].b.t - sorted[0].a.t,
		  sorted[runs - 1].b.t - sorted[runs - 1].a.t);
	return 0;
}
