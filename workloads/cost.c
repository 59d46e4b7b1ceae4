// SPDX-License-Identifier: GPL-2.0
/*
 * cost: what the kernel's fault path costs a reader, in this process's
 * CPU time (make cost, docs/cost.md). Booted with QEMU's -icount
 * shift=0,sleep=off, the guest's clock advances one nanosecond per guest
 * instruction while the vCPU runs, so CPU nanoseconds are instructions
 * run for this process: in user space and in the kernel on its behalf
 * (its faults, its direct reclaim, the interrupts that hit it), not
 * kswapd's nor any other task's.
 *
 * Each run opens FILE anew with its page cache dropped, maps it, does the
 * setup of its MODE (not counted), then the counted accesses between two
 * readings of CLOCK_PROCESS_CPUTIME_ID (the sum getrusage's user + system
 * time adds up to, in ns) and of getrusage's fault counts. One record a
 * run:
 *
 *   @@RESULT {"workload":NAME,"phase":"runK" (or "warmupK"),"accesses":A,"faults":F,
 *             "major_faults":M,"cpu_ns":C,"wall_ns":W,...}
 *
 * MODE:
 *   random       N random one-byte reads of the whole file (fixed seed)
 *   next-to-run  the probe's worst case: P random faults in the file's
 *                last quarter (mmap_miss over MMAP_LOTSAMISS), then N
 *                runs of RUN pages cached with POSIX_FADV_WILLNEED in
 *                slots of 32 pages of the first three quarters, in random
 *                order; counted: N misses, each on the page just after a
 *                run, page AT of its slot (-o AT, 16 by default: the
 *                start of a 64 KiB fault-around block, so fault-around
 *                does not map the run; 8 puts the run in the miss's
 *                block)
 *   seq          P random faults in the last quarter, then LEN MiB from
 *                the start in order, one byte a page (with -p 0, LEN may
 *                be the whole file)
 *   desc         the same, last page first
 *   holes        random readers in a cached file with holes: FILE read
 *                once with read(2) (in large folios where the file system
 *                makes them) and every page mapped, then P + N / 16
 *                slots of 32 pages (128 KiB, so whole folios) reclaimed
 *                (MADV_PAGEOUT: holes as reclaim leaves them); P faults on
 *                random pages of the first P (mmap_miss over the limit);
 *                counted: N one-byte reads of random pages of the others
 *   minor        LEN MiB cached first (read once); counted: N passes of
 *                one byte a page, each after MADV_DONTNEED of the whole
 *                range (uncounted): minor faults that fault-around serves
 *                from the page cache (filemap_map_pages())
 *
 *   cost -m MODE -f FILE [-z sparse_mib] [-n N] [-c runs] [-u warmups]
 *        [-k read_ahead_kb] [-p prefaults] [-l len_mib] [-b run_pages] [-o at] [-S]
 *        [-H] [-w name]
 *   -u  runs made first and reported as "warmupK", not "runK": the first
 *       run of a boot starts from another state (free memory, empty
 *       caches of the allocators) than the next ones
 *   -S  MAP_SHARED (default MAP_PRIVATE)
 *   -H  MADV_HUGEPAGE on a PMD-aligned shared mapping
 *   -z  make FILE a sparse file of that size first (ftruncate): no reads
 *       from the device, and so no waits, in any mode
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define SLOT	32	/* pages: a run and its miss, in next-to-run */

struct cstate {
	long long cpu_ns, wall_ns;
	long minflt, majflt;
};

static long long ns_of(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		die("clock_gettime: %s", strerror(errno));
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void cstate(struct cstate *s)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		die("getrusage: %s", strerror(errno));
	s->minflt = ru.ru_minflt;
	s->majflt = ru.ru_majflt;
	s->wall_ns = ns_of(CLOCK_MONOTONIC);
	s->cpu_ns = ns_of(CLOCK_PROCESS_CPUTIME_ID);
}

/* The counted part's totals, added up over its pieces */
struct count {
	struct cstate a;
	long long cpu_ns, wall_ns;
	long faults, majflt;
	size_t accesses;
};

static void count_start(struct count *c)
{
	cstate(&c->a);
}

static void count_stop(struct count *c, size_t accesses)
{
	struct cstate b;

	cstate(&b);
	c->cpu_ns += b.cpu_ns - c->a.cpu_ns;
	c->wall_ns += b.wall_ns - c->a.wall_ns;
	c->faults += (b.minflt - c->a.minflt) + (b.majflt - c->a.majflt);
	c->majflt += b.majflt - c->a.majflt;
	c->accesses += accesses;
}

/* Pages added to the page cache: nr_file_pages growth + file pages reclaimed */
static long long file_pages_seen(void)
{
	long long cached = vmstat("nr_file_pages"), stolen = vmstat("pgsteal_file");

	return cached < 0 || stolen < 0 ? -1 : cached + stolen;
}

/* P random one-byte reads in the last quarter of MAP (PAGES pages) */
static void prefault(const char *map, size_t pages, size_t p)
{
	size_t first = pages - pages / 4, i;

	if (!p)
		return;
	rnd_seed(42);
	for (i = 0; i < p; i++)
		touch(map + (first + rnd() % (pages / 4)) * page_size);
}

/* @n distinct slots of @slots in random order (a partial shuffle) */
static size_t *shuffled(size_t slots, size_t n)
{
	size_t *slot = malloc(slots * sizeof(*slot)), i;

	if (!slot)
		die("out of memory");
	for (i = 0; i < slots; i++)
		slot[i] = i;
	rnd_seed(11);
	for (i = 0; i < n; i++) {
		size_t j = i + rnd() % (slots - i), t = slot[i];

		slot[i] = slot[j];
		slot[j] = t;
	}
	return slot;
}

/*
 * The whole file through read(2), a page at a time: readahead's folios, no
 * larger than its window (a larger read would take the device's larger one)
 */
static void read_file(int fd, size_t size)
{
	char buf[4096];
	size_t off;

	for (off = 0; off < size; off += sizeof(buf))
		if (pread(fd, buf, sizeof(buf), off) <= 0)
			die("pread: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	const char *mode = NULL;
	struct args a = { .n = 262144, .ra_kb = 128 };
	size_t runs = 3, warmups = 0, sparse = 0, size, pages, len_pages, i, r, p = 300;
	size_t run = 8, at = 16;
	size_t slots, *slot;
	int shared = 0, huge = 0, fd, opt;
	long long added0, added;
	struct count c;
	char *map;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "m:f:z:n:c:u:k:p:l:b:o:SHw:d:")) != -1) {
		switch (opt) {
		case 'm': mode = optarg; break;
		case 'z': sparse = strtoul(optarg, NULL, 0); break;
		case 'c': runs = strtoul(optarg, NULL, 0); break;
		case 'u': warmups = strtoul(optarg, NULL, 0); break;
		case 'p': p = strtoul(optarg, NULL, 0); break;
		case 'b': run = strtoul(optarg, NULL, 0); break;
		case 'o': at = strtoul(optarg, NULL, 0); break;
		case 'S': shared = 1; break;
		case 'H': huge = 1; break;
		default: common_opt(&a, opt);
		}
	}
	if (!mode || !a.path)
		die("usage: %s -m random|next-to-run|holes|seq|desc|minor -f FILE [-z sparse_mib] "
		    "[-n N] [-c runs] [-k read_ahead_kb] [-p prefaults] [-l len_mib] "
		    "[-b run_pages] [-o at] [-S] [-H] [-w name]", argv[0]);
	if (strcmp(mode, "random") && strcmp(mode, "next-to-run") && strcmp(mode, "seq") &&
	    strcmp(mode, "desc") && strcmp(mode, "minor") && strcmp(mode, "holes"))
		die("no mode '%s'", mode);
	if (!a.name)
		a.name = mode;
	if (!runs || run < 1 || run >= SLOT - 1)
		die("runs: at least 1; run pages: 1 to %d", SLOT - 2);
	if (at < run || at >= SLOT)
		die("-o: the miss's page in its slot, from the run's length to %d", SLOT - 1);
	if (sparse) {
		fd = open(a.path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			die("%s: %s", a.path, strerror(errno));
		if (ftruncate(fd, MIB(sparse)) || close(fd))
			die("ftruncate %s: %s", a.path, strerror(errno));
	}
	set_read_ahead_kb(a.ra_kb);

	for (r = 0; r < warmups + runs; r++) {
		memset(&c, 0, sizeof(c));
		fd = open_cold(a.path, &size);
		pages = size / page_size;
		/* the prefaults take the last quarter, when there are any */
		len_pages = a.len ? a.len / page_size : pages * 3 / 4;
		if (pages < 64 || len_pages > (p ? pages * 3 / 4 : pages))
			die("%s: %zu pages is too small for this case", a.path, pages);
		if (huge)
			map = map_file(fd, 0, size, PROT_READ, HUGEPAGE);
		else
			map = mmap(NULL, size, PROT_READ, shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED)
			die("mmap: %s", strerror(errno));
		added0 = file_pages_seen();

		if (!strcmp(mode, "random")) {
			rnd_seed(7);
			count_start(&c);
			for (i = 0; i < a.n; i++)
				touch(map + rnd() % pages * page_size);
			count_stop(&c, a.n);
		} else if (!strcmp(mode, "next-to-run")) {
			slots = pages * 3 / 4 / SLOT;
			if (a.n > slots)
				die("next-to-run: %zu runs, room for %zu", a.n, slots);
			prefault(map, pages, p);
			slot = shuffled(slots, a.n);
			/* the runs end at page AT of their slot; the miss is on it */
			for (i = 0; i < a.n; i++)
				if (posix_fadvise(fd, (slot[i] * SLOT + at - run) * page_size,
						  run * page_size, POSIX_FADV_WILLNEED))
					die("fadvise WILLNEED failed");
			count_start(&c);
			for (i = 0; i < a.n; i++)
				touch(map + (slot[i] * SLOT + at) * page_size);
			count_stop(&c, a.n);
			free(slot);
		} else if (!strcmp(mode, "holes")) {
			size_t nd = p + a.n / 16, pg;

			slots = pages / SLOT;
			if (a.n < 16 || nd > slots / 4)
				die("holes: %zu slots to drop, room for %zu", nd, slots / 4);
			read_file(fd, size);
			read_pages(map, pages, 0);
			slot = shuffled(slots, nd);
			for (i = 0; i < nd; i++)
				if (madvise(map + slot[i] * SLOT * page_size, SLOT * page_size,
					    MADV_PAGEOUT))
					die("madvise(MADV_PAGEOUT): %s", strerror(errno));
			for (i = 0; i < p; i++)
				touch(map + (slot[i] * SLOT + rnd() % SLOT) * page_size);
			added0 = file_pages_seen();	/* the counted part's pages only */
			count_start(&c);
			for (i = 0; i < a.n; i++) {
				pg = slot[p + rnd() % (a.n / 16)] * SLOT + rnd() % SLOT;
				touch(map + pg * page_size);
			}
			count_stop(&c, a.n);
			free(slot);
		} else if (!strcmp(mode, "seq") || !strcmp(mode, "desc")) {
			prefault(map, pages, p);
			count_start(&c);
			read_pages(map, len_pages, !strcmp(mode, "desc"));
			count_stop(&c, len_pages);
		} else {	/* minor */
			read_pages(map, len_pages, 0);
			for (i = 0; i < a.n; i++) {
				if (madvise(map, len_pages * page_size, MADV_DONTNEED))
					die("madvise(MADV_DONTNEED): %s", strerror(errno));
				count_start(&c);
				read_pages(map, len_pages, 0);
				count_stop(&c, len_pages);
			}
		}
		added = file_pages_seen();
		added = added0 < 0 || added < 0 ? -1 : added - added0;
		if (munmap(map, size) || close(fd))
			die("munmap/close: %s", strerror(errno));
		printf("@@RESULT {\"workload\":\"%s\",\"phase\":\"%s%zu\",\"mode\":\"%s\","
		       "\"accesses\":%zu,\"faults\":%ld,\"major_faults\":%ld,"
		       "\"cpu_ns\":%lld,\"wall_ns\":%lld,\"pages_added\":%lld,"
		       "\"read_ahead_kb\":%zu,\"mem_total_kb\":%ld,\"shared\":%d,"
		       "\"hugepage\":%d,\"file_mib\":%zu}\n",
		       a.name, r < warmups ? "warmup" : "run",
		       r < warmups ? r + 1 : r - warmups + 1, mode, c.accesses,
		       c.faults, c.majflt, c.cpu_ns, c.wall_ns, added, a.ra_kb, mem_total_kb(), shared, huge,
		       size >> 20);
		fflush(stdout);
	}
	return 0;
}
