/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the lab's guest workloads: counters that do not depend
 * on timing (major faults, device reads, residency) and one-line JSON
 * output that the host parses from the serial console.
 */
#ifndef MMLAB_COMMON_H
#define MMLAB_COMMON_H

#include <stddef.h>
#include <stdint.h>

struct counters {
	long majflt;		/* getrusage(RUSAGE_SELF).ru_majflt */
	uint64_t dev_pages;	/* pages read from the device (/sys/block/X/stat) */
	double t;		/* CLOCK_MONOTONIC seconds */
};

/*
 * The options the workloads share, each taken only by the workloads whose
 * getopt string has its letter; sizes in MiB on the command line, in bytes
 * here:
 *   -f FILE   -w NAME of the workload in the results   -d DEV (blockdev)
 *   -n N random faults (or accesses, or reads)   -k read_ahead_kb
 *   -r, -R    start and length of the random faults' region
 *   -s, -l    start and length of the region read after them
 */
struct args {
	const char *path, *name;
	size_t n, ra_kb, rand_start, rand_len, start, len;
};

#define MIB(n)	((size_t)(n) << 20)

/* How map_file() maps. */
enum { PLAIN, PMD_ALIGNED, HUGEPAGE };

extern size_t page_size;
extern const char *blockdev;	/* e.g. "vda" */

/* Read one byte at P: fault its page in, read it if it is not cached. */
static inline void touch(const char *p)
{
	(void)*(volatile const char *)p;
}

void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void common_opt(struct args *a, int opt);
double now(void);
void snap(struct counters *c);
void set_read_ahead_kb(unsigned int kb);
int open_cold(const char *path, size_t *size);
int open_args(const struct args *a, size_t *size);
void *map_file(int fd, size_t off, size_t len, int prot, int how);
void read_pages(const char *p, size_t pages, int down);
void random_faults(const struct args *a, const char *map, const char *more);
size_t resident_pages(const void *addr, size_t len);
uint64_t rnd(void);
uint64_t rnd_next(uint64_t *state);
void rnd_seed(uint64_t seed);
long long vmstat(const char *name);
void wait_for_reads(void);
long file_pmd_mapped_kb(void);
long mem_total_kb(void);

/*
 * Print a result as one JSON object on a line of its own, behind the marker
 * the host looks for; EXTRA_FMT (or NULL) formats the fields after the
 * common ones.
 */
void result(const char *workload, const char *phase,
	    const struct counters *a, const struct counters *b,
	    size_t pages, size_t resident, const char *extra_fmt, ...)
	__attribute__((format(printf, 7, 8)));

#endif
