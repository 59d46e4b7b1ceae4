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

void snap(struct counters *c)
{
	struct rusage ru;
	struct timespec ts;

	getrusage(RUSAGE_SELF, &ru);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	c->majflt = ru.ru_majflt;
	c->dev_pages = dev_sectors_read() * 512 / page_size;
	c->t = ts.tv_sec + ts.tv_nsec / 1e9;
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
 * Map a file read-only. With thp, place it on a PMD boundary and ask for
 * huge pages, so that forced THP readahead can map PMD-sized folios.
 */
void *map_file(int fd, size_t size, int thp)
{
	const size_t pmd = 2UL << 20;
	char *area, *p;

	if (!thp) {
		p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			die("mmap: %s", strerror(errno));
		return p;
	}
	area = mmap(NULL, size + pmd, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		die("mmap reserve: %s", strerror(errno));
	p = (char *)(((uintptr_t)area + pmd - 1) & ~(pmd - 1));
	p = mmap(p, size, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	if (madvise(p, size, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE): %s", strerror(errno));
	return p;
}

size_t resident_pages(void *addr, size_t len)
{
	size_t n = (len + page_size - 1) / page_size, i, r = 0;
	unsigned char *vec = malloc(n);

	if (!vec)
		die("out of memory");
	if (mincore(addr, len, vec))
		die("mincore: %s", strerror(errno));
	for (i = 0; i < n; i++)
		r += vec[i] & 1;
	free(vec);
	return r;
}

/* xorshift64*: fixed seed, same sequence on every kernel. */
uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dULL;
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
