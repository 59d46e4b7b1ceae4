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

extern size_t page_size;
extern const char *blockdev;	/* e.g. "vda" */

void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void snap(struct counters *c);
void set_read_ahead_kb(unsigned int kb);
int open_cold(const char *path, size_t *size);
void *map_file(int fd, size_t size, int thp);
size_t resident_pages(void *addr, size_t len);
uint64_t rnd(void);
void rnd_seed(uint64_t seed);
void *map_file_aligned(int fd, size_t size, int flags);
long long vmstat(const char *name);
void wait_for_reads(void);
long file_pmd_mapped_kb(void);
long mem_total_kb(void);

/*
 * Print a result as one JSON object on a line of its own, behind the marker
 * the host looks for. Keys and numeric values alternate; a string value is
 * given with a key that starts with '$'.
 */
void result(const char *workload, const char *phase,
	    const struct counters *a, const struct counters *b,
	    size_t pages, size_t resident, const char *extra_fmt, ...)
	__attribute__((format(printf, 7, 8)));

#endif
