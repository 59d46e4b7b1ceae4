// SPDX-License-Identifier: GPL-2.0
/*
 * touch-first.so: make llama.cpp itself touch its model at random first
 * (make bench-apps). LD_PRELOAD it with
 *   TOUCH_FIRST=N       one-byte reads at N random pages (default 300)
 *   TOUCH_FIRST_SEED=S  their seed (default 1)
 *   TOUCH_FIRST_MIN=B   only for a mapping of at least B bytes of a
 *                       regular file (default 16 MiB: the model, not the
 *                       libraries)
 *   TOUCH_FIRST_WHEN=before (default) or after
 * At the first such mmap() (llama.cpp's llama_mmap: after its
 * posix_fadvise(POSIX_FADV_SEQUENTIAL), MAP_SHARED|MAP_POPULATE):
 *   before: it maps the same open file once more without MAP_POPULATE,
 *     reads the N pages, unmaps them, and then makes llama.cpp's mapping,
 *     as a loader that checks a few blocks before mapping the file would;
 *   after: it makes llama.cpp's mapping (populated) and reads the N pages
 *     through it before returning it (before llama.cpp's MADV_WILLNEED),
 *     as a loader that checks a few tensors once the model is mapped.
 * Either way through the same struct file, whose f_ra.mmap_miss the
 * mappings share. Says on stderr how many major faults the touches took.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

static int done;

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	const char *e;
	size_t min = 16 << 20;
	struct stat st;

	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	e = getenv("TOUCH_FIRST_MIN");
	if (e)
		min = strtoull(e, NULL, 0);
	if (!done && fd >= 0 && len >= min && !fstat(fd, &st) && S_ISREG(st.st_mode)) {
		int n = 300, i;
		uint64_t x = 1, pages = len / 4096;
		struct rusage a, b;
		volatile unsigned char s = 0;
		unsigned char *m;

		done = 1;
		e = getenv("TOUCH_FIRST");
		if (e)
			n = atoi(e);
		e = getenv("TOUCH_FIRST_SEED");
		if (e)
			x = strtoull(e, NULL, 0) * 2 + 1;
		e = getenv("TOUCH_FIRST_WHEN");
		if (e && !strcmp(e, "after")) {
			m = real(addr, len, prot, flags, fd, off);
			if (m == MAP_FAILED)
				return m;
		} else {
			e = NULL;
			m = real(NULL, len, PROT_READ, MAP_SHARED, fd, off);
		}
		if (m != MAP_FAILED && pages) {
			getrusage(RUSAGE_SELF, &a);
			for (i = 0; i < n; i++) {
				x ^= x >> 12;
				x ^= x << 25;
				x ^= x >> 27;
				s += m[(x * 2685821657736338717ULL) % pages * 4096];
			}
			getrusage(RUSAGE_SELF, &b);
			fprintf(stderr, "@@TOUCH-FIRST touches=%d major_faults=%ld len=%zu when=%s\n",
				n, b.ru_majflt - a.ru_majflt, len, e ? "after" : "before");
			if (e)
				return m;
			munmap(m, len);
		}
	}
	return real(addr, len, prot, flags, fd, off);
}
