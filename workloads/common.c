// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

size_t page_size;
const char *blockdev = "vda";
static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "workload error: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static uint64_t dev_sectors_read(void)
{
	char path[128];
	unsigned long long ios, merges, sectors;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/stat", blockdev);
	f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	if (fscanf(f, "%llu %llu %llu", &ios, &merges, &sectors) != 3)
		die("%s: unexpected format", path);
	fclose(f);
	return sectors;
}

/* Take one of the options of struct args, or die. */
void common_opt(struct args *a, int opt)
{
	switch (opt) {
	case 'f': a->path = optarg; break;
	case 'w': a->name = optarg; break;
	case 'd': blockdev = optarg; break;
	case 'n': a->n = strtoul(optarg, NULL, 0); break;
	case 'k': a->ra_kb = strtoul(optarg, NULL, 0); break;
	case 'r': a->rand_start = MIB(strtoul(optarg, NULL, 0)); break;
	case 'R': a->rand_len = MIB(strtoul(optarg, NULL, 0)); break;
	case 's': a->start = MIB(strtoul(optarg, NULL, 0)); break;
	case 'l': a->len = MIB(strtoul(optarg, NULL, 0)); break;
	default: die("bad option");
	}
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void snap(struct counters *c)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	c->t = now();
	c->majflt = ru.ru_majflt;
	c->dev_pages = dev_sectors_read() * 512 / page_size;
}

void set_read_ahead_kb(unsigned int kb)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/read_ahead_kb", blockdev);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%u\n", kb) < 0 || fclose(f))
		die("cannot set %s to %u", path, kb);
}

/* Open a file and drop its page cache, so the run starts cold. */
int open_cold(const char *path, size_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	if (fstat(fd, &st))
		die("fstat %s: %s", path, strerror(errno));
	*size = st.st_size;
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		die("fadvise %s failed", path);
	return fd;
}

/*
 * Set A's read_ahead_kb, open its file cold and check that its regions fit
 * in the file: [rand_start, rand_start + rand_len) (with rand_len 0, up to
 * the end of the file) and [start, start + len).
 */
int open_args(const struct args *a, size_t *size)
{
	int fd;

	set_read_ahead_kb(a->ra_kb);
	fd = open_cold(a->path, size);
	if (a->rand_start >= *size || a->rand_start + a->rand_len > *size ||
	    a->start + a->len > *size)
		die("%s: %zu bytes is too small for this geometry", a->path, *size);
	return fd;
}

/*
 * Map LEN bytes of a file from OFF, shared. PMD_ALIGNED places the mapping
 * on a PMD boundary (of the address minus the file offset, so that
 * PMD-sized folios can be mapped whole) and asks for nothing: the caller
 * decides whether and when to madvise(). HUGEPAGE also asks for huge
 * pages, so that forced THP readahead can map PMD-sized folios.
 */
void *map_file(int fd, size_t off, size_t len, int prot, int how)
{
	const size_t pmd = 2UL << 20;
	int flags = MAP_SHARED;
	void *addr = NULL;
	char *area, *p;

	if (how != PLAIN) {
		area = mmap(NULL, len + 2 * pmd, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area == MAP_FAILED)
			die("mmap reserve: %s", strerror(errno));
		addr = (void *)((((uintptr_t)area + pmd - 1) & ~(pmd - 1)) + (off & (pmd - 1)));
		flags |= MAP_FIXED;
	}
	p = mmap(addr, len, prot, flags, fd, off);
	if (p == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	if (how == HUGEPAGE && madvise(p, len, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE): %s", strerror(errno));
	return p;
}

/* One byte of each of PAGES pages from P, in order or, with DOWN, last first. */
void read_pages(const char *p, size_t pages, int down)
{
	size_t i;

	for (i = 0; i < pages; i++)
		touch(p + (down ? pages - 1 - i : i) * page_size);
}

/*
 * The random phase: A's N one-byte reads of random pages (seed 42) in its
 * random region of MAP, which take the file's mmap_miss past
 * MMAP_LOTSAMISS; then its result, with the fields of MORE added.
 */
void random_faults(const struct args *a, const char *map, const char *more)
{
	struct counters c0, c1;
	size_t i;

	rnd_seed(42);
	snap(&c0);
	for (i = 0; i < a->n; i++)
		touch(map + a->rand_start + rnd() % (a->rand_len / page_size) * page_size);
	snap(&c1);
	result(a->name, "random", &c0, &c1, a->n,
	       resident_pages(map + a->rand_start, a->rand_len),
	       "\"random_faults\":%zu,\"read_ahead_kb\":%zu%s", a->n, a->ra_kb, more);
}

/* A counter of /proc/vmstat, -1 if the kernel does not have it. */
long long vmstat(const char *name)
{
	char key[64];
	long long v, r = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		die("/proc/vmstat: %s", strerror(errno));
	while (fscanf(f, "%63s %lld", key, &v) == 2)
		if (!strcmp(key, name)) {
			r = v;
			break;
		}
	fclose(f);
	return r;
}

/*
 * Wait until the block device has no read in flight (after an
 * asynchronous POSIX_FADV_WILLNEED), so that its reads are counted before
 * the next snapshot. Gives up after about ten seconds.
 */
void wait_for_reads(void)
{
	char path[128];
	unsigned long rd, wr;
	int i, idle = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/inflight", blockdev);
	for (i = 0; i < 1000 && idle < 3; i++) {
		f = fopen(path, "r");
		if (!f)
			die("%s: %s", path, strerror(errno));
		if (fscanf(f, "%lu %lu", &rd, &wr) != 2)
			die("%s: unexpected format", path);
		fclose(f);
		idle = rd ? 0 : idle + 1;
		if (usleep(10000))
			die("usleep: %s", strerror(errno));
	}
	if (idle < 3)
		die("%s: reads still in flight after 10 s", path);
}

/* kB of FilePmdMapped in this process, -1 if the kernel does not say. */
long file_pmd_mapped_kb(void)
{
	char line[256];
	long kb, sum = -1;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "FilePmdMapped: %ld kB", &kb) == 1)
			sum = (sum < 0 ? 0 : sum) + kb;
	fclose(f);
	return sum;
}

/* MemTotal of /proc/meminfo: the guest's memory, as the kernel sees it. */
long mem_total_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

size_t resident_pages(const void *addr, size_t len)
{
	size_t n = (len + page_size - 1) / page_size, i, r = 0;
	unsigned char *vec = malloc(n);

	if (!vec)
		die("out of memory");
	if (mincore((void *)addr, len, vec))
		die("mincore: %s", strerror(errno));
	for (i = 0; i < n; i++)
		r += vec[i] & 1;
	free(vec);
	return r;
}

/* xorshift64*: fixed seed, same sequence on every kernel. */
uint64_t rnd_next(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dULL;
}

uint64_t rnd(void)
{
	return rnd_next(&rnd_state);
}

void rnd_seed(uint64_t seed)
{
	rnd_state = seed ? seed : 1;
}

void result(const char *workload, const char *phase,
	    const struct counters *a, const struct counters *b,
	    size_t pages, size_t resident, const char *extra_fmt, ...)
{
	char extra[512] = "";
	va_list ap;

	if (extra_fmt) {
		va_start(ap, extra_fmt);
		vsnprintf(extra, sizeof(extra), extra_fmt, ap);
		va_end(ap);
	}
	printf("@@RESULT {\"workload\":\"%s\",\"phase\":\"%s\","
	       "\"pages\":%zu,\"major_faults\":%ld,\"dev_pages_read\":%llu,"
	       "\"resident_pages\":%zu,\"seconds\":%.3f%s%s}\n",
	       workload, phase, pages, b->majflt - a->majflt,
	       (unsigned long long)(b->dev_pages - a->dev_pages), resident,
	       b->t - a->t, *extra ? "," : "", extra);
	fflush(stdout);
}
