// SPDX-License-Identifier: GPL-2.0
/*
 * ggufread: read a GGUF model through mmap as llama.cpp's token generation
 * does, and say what each pass cost (make bench-apps).
 *
 *   ggufread [-t THREADS] [-p PASSES] [-r RANDOM [-A]] [-H] [-S SEED] [-P] [-s STRIDE]
 *            [-d DEV] [-w WHAT] FILE
 *
 * The header and tensor table are read with pread(), as llama.cpp reads
 * them; then, on the same open file (mmap_miss lives in its struct file):
 *   -r N  N one-byte reads at random pages of the file first, through a
 *         mapping of their own (a loader checking a few blocks)
 *   -A    ... or (-r N -A) through the mapping below once it is made (and
 *         populated with -P), before MADV_WILLNEED
 *   -H    drop the pages the header reads brought in (POSIX_FADV_DONTNEED
 *         of the first MiB) before mapping: without them a populate
 *         sweep finds no readahead mark at the start of the file
 *   then posix_fadvise(POSIX_FADV_SEQUENTIAL) and one MAP_SHARED mapping
 *   of the whole file, as llama.cpp's llama_mmap makes it; with -P also
 *   MAP_POPULATE and MADV_WILLNEED of the whole file, as llama.cpp does
 *   by default (its "prefetch").
 * Each pass is one generated token's reads: the tensors in the GGUF's
 * order (which is the order of the layers), each 2-D tensor split into
 * THREADS row ranges, one thread each, a barrier after each tensor as
 * between ggml's graph nodes; token_embd gives one row, picked at random
 * (get_rows of the token); a load every STRIDE bytes (default 64: every
 * cache line, as the dot products do).
 * Prints one @@RESULT line (JSON) for the random reads and one a pass:
 * seconds, major faults (getrusage), and with -d DEV the sectors and read
 * requests of /sys/block/DEV/stat.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAXT 4096

struct tensor {
	char name[96];
	uint64_t off, size, rows, row_bytes;
};

static struct tensor ts[MAXT];
static int nts;
static int fd;
static uint64_t fpos;
static unsigned char *map;
static size_t fsize;
static int nthreads = 2, stride = 64;
static pthread_barrier_t bar;
static volatile uint64_t sink;
static uint64_t rng_state = 1;

static void die(const char *what)
{
	fprintf(stderr, "ggufread: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t rnd(void)
{
	/* xorshift64*: the same picks for the same seed on every kernel */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static void rd(void *buf, size_t n)
{
	ssize_t r = pread(fd, buf, n, fpos);

	if (r != (ssize_t)n) {
		errno = r < 0 ? errno : EIO;
		die("reading the GGUF header");
	}
	fpos += n;
}

static uint64_t u64(void) { uint64_t v; rd(&v, 8); return v; }
static uint32_t u32(void) { uint32_t v; rd(&v, 4); return v; }

static void str(char *out, size_t cap)
{
	uint64_t n = u64();
	char tmp[256];

	if (n < sizeof(tmp)) {
		rd(tmp, n);
		tmp[n] = 0;
	} else {
		fpos += n;
		tmp[0] = 0;
	}
	if (out)
		snprintf(out, cap, "%s", tmp);
}

static const int scalar_size[] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };

static uint64_t value(uint32_t type)
{
	uint64_t v = 0;

	if (type == 8) {
		str(NULL, 0);
	} else if (type == 9) {
		uint32_t et = u32();
		uint64_t n = u64(), i;

		if (et == 8 || et == 9)
			for (i = 0; i < n; i++)
				value(et);
		else if (et < 13)
			fpos += n * scalar_size[et];
	} else if (type < 13) {
		rd(&v, scalar_size[type]);
	} else {
		errno = EINVAL;
		die("unknown GGUF value type");
	}
	return v;
}

static int by_off(const void *a, const void *b)
{
	const struct tensor *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static void parse(void)
{
	char key[96];
	uint64_t nt, nkv, i, align = 32, data;
	uint32_t magic = u32();

	if (magic != 0x46554747) { /* "GGUF" */
		errno = EINVAL;
		die("not a GGUF file");
	}
	u32(); /* version */
	nt = u64();
	nkv = u64();
	if (nt > MAXT) {
		errno = E2BIG;
		die("too many tensors");
	}
	for (i = 0; i < nkv; i++) {
		uint32_t type;
		uint64_t v;

		str(key, sizeof(key));
		type = u32();
		v = value(type);
		if (!strcmp(key, "general.alignment"))
			align = v;
	}
	for (i = 0; i < nt; i++) {
		uint32_t nd, d;
		uint64_t rows = 1;

		str(ts[i].name, sizeof(ts[i].name));
		nd = u32();
		for (d = 0; d < nd; d++) {
			uint64_t ne = u64();

			if (d > 0)
				rows *= ne;
		}
		u32(); /* type: the size comes from the offsets */
		ts[i].off = u64();
		ts[i].rows = rows;
	}
	nts = nt;
	data = (fpos + align - 1) / align * align;
	qsort(ts, nts, sizeof(ts[0]), by_off);
	for (i = 0; i < nt; i++) {
		uint64_t end = i + 1 < nt ? ts[i + 1].off : fsize - data;

		ts[i].off += data;
		ts[i].size = end + data - ts[i].off;
		ts[i].row_bytes = ts[i].size / ts[i].rows;
	}
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static long majflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_majflt;
}

static const char *dev;

static void devstat(uint64_t *reads, uint64_t *sectors)
{
	char p[128];
	FILE *f;
	unsigned long long r = 0, m, s = 0;

	*reads = *sectors = 0;
	if (!dev)
		return;
	snprintf(p, sizeof(p), "/sys/block/%s/stat", dev);
	f = fopen(p, "r");
	if (!f)
		die(p);
	if (fscanf(f, "%llu %llu %llu", &r, &m, &s) != 3) {
		errno = EINVAL;
		die(p);
	}
	fclose(f);
	*reads = r;
	*sectors = s;
}

static void touch(const unsigned char *p, uint64_t n)
{
	uint64_t i, s = 0;

	for (i = 0; i < n; i += stride)
		s += p[i];
	sink += s;
}

static int embd_row;

static void *worker(void *arg)
{
	long t = (long)arg;
	int i;

	for (i = 0; i < nts; i++) {
		const struct tensor *x = &ts[i];

		if (strstr(x->name, "token_embd")) {
			if (t == 0)
				touch(map + x->off + embd_row * x->row_bytes, x->row_bytes);
		} else if (x->rows == 1) {
			if (t == 0)
				touch(map + x->off, x->size);
		} else {
			uint64_t r0 = x->rows * t / nthreads, r1 = x->rows * (t + 1) / nthreads;

			touch(map + x->off + r0 * x->row_bytes, (r1 - r0) * x->row_bytes);
		}
		pthread_barrier_wait(&bar);
	}
	return NULL;
}

static const char *what = "ggufread";

static void phase(const char *name, int populate, double t0, long f0, uint64_t r0,
		  uint64_t s0, uint64_t r1, uint64_t s1)
{
	printf("@@RESULT {\"workload\": \"%s\", \"phase\": \"%s\", \"populate\": %d, "
	       "\"seconds\": %.3f, \"major_faults\": %ld, \"dev_reads\": %llu, \"dev_kib\": %llu, "
	       "\"file_pages\": %llu}\n", what, name, populate, now() - t0, majflt() - f0,
	       (unsigned long long)(r1 - r0), (unsigned long long)(s1 - s0) / 2,
	       (unsigned long long)fsize / 4096);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int o, passes = 4, nrand = 0, populate = 0, after = 0, drophdr = 0, p;
	struct stat st;
	uint64_t r0, s0, r1, s1;
	pthread_t th[64];
	long f0;
	double t0;

	while ((o = getopt(argc, argv, "t:p:r:AHS:Ps:d:w:")) != -1) {
		switch (o) {
		case 't': nthreads = atoi(optarg); break;
		case 'p': passes = atoi(optarg); break;
		case 'r': nrand = atoi(optarg); break;
		case 'S': rng_state = strtoull(optarg, NULL, 0) * 2 + 1; break;
		case 'P': populate = 1; break;
		case 'A': after = 1; break;
		case 'H': drophdr = 1; break;
		case 's': stride = atoi(optarg); break;
		case 'd': dev = optarg; break;
		case 'w': what = optarg; break;
		default:
			fprintf(stderr, "usage: ggufread [-t THREADS] [-p PASSES] [-r RANDOM [-A]] [-H] [-S SEED] [-P] [-s STRIDE] [-d DEV] [-w WHAT] FILE\n");
			return 2;
		}
	}
	if (optind + 1 != argc || nthreads < 1 || nthreads > 64 || stride < 1) {
		fprintf(stderr, "ggufread: one FILE, 1-64 threads, a stride of at least 1\n");
		return 2;
	}
	fd = open(argv[optind], O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		die(argv[optind]);
	fsize = st.st_size;
	parse();

	if (nrand > 0 && !after) {
		unsigned char *m = mmap(NULL, fsize, PROT_READ, MAP_SHARED, fd, 0);
		uint64_t pages = fsize / 4096;
		int i;

		if (m == MAP_FAILED)
			die("mmap");
		devstat(&r0, &s0);
		f0 = majflt();
		t0 = now();
		for (i = 0; i < nrand; i++)
			sink += m[rnd() % pages * 4096];
		devstat(&r1, &s1);
		printf("@@RESULT {\"workload\": \"%s\", \"phase\": \"random\", \"touches\": %d, "
		       "\"seconds\": %.3f, \"major_faults\": %ld, \"dev_reads\": %llu, "
		       "\"dev_kib\": %llu}\n", what, nrand, now() - t0, majflt() - f0,
		       (unsigned long long)(r1 - r0), (unsigned long long)(s1 - s0) / 2);
		munmap(m, fsize);
	}

	if (drophdr)
		posix_fadvise(fd, 0, 1 << 20, POSIX_FADV_DONTNEED);
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	devstat(&r0, &s0);
	f0 = majflt();
	t0 = now();
	map = mmap(NULL, fsize, PROT_READ, MAP_SHARED | (populate ? MAP_POPULATE : 0), fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	devstat(&r1, &s1);
	phase("map", populate, t0, f0, r0, s0, r1, s1);
	if (nrand > 0 && after) {
		uint64_t pages = fsize / 4096;
		int i;

		devstat(&r0, &s0);
		f0 = majflt();
		t0 = now();
		for (i = 0; i < nrand; i++)
			sink += map[rnd() % pages * 4096];
		devstat(&r1, &s1);
		phase("random-after", populate, t0, f0, r0, s0, r1, s1);
	}
	if (populate) {
		devstat(&r0, &s0);
		f0 = majflt();
		t0 = now();
		madvise(map, fsize, MADV_WILLNEED);
		devstat(&r1, &s1);
		phase("willneed", populate, t0, f0, r0, s0, r1, s1);
	}

	for (p = 0; p < passes; p++) {
		long t;

		embd_row = rnd() % 512;
		pthread_barrier_init(&bar, NULL, nthreads);
		devstat(&r0, &s0);
		f0 = majflt();
		t0 = now();
		for (t = 0; t < nthreads; t++)
			if (pthread_create(&th[t], NULL, worker, (void *)t))
				die("pthread_create");
		for (t = 0; t < nthreads; t++)
			pthread_join(th[t], NULL);
		devstat(&r1, &s1);
		printf("@@RESULT {\"workload\": \"%s\", \"phase\": \"pass\", \"pass\": %d, "
		       "\"threads\": %d, \"tensors\": %d, \"seconds\": %.3f, \"major_faults\": %ld, "
		       "\"dev_reads\": %llu, \"dev_kib\": %llu, \"file_pages\": %llu}\n",
		       what, p, nthreads, nts, now() - t0, majflt() - f0,
		       (unsigned long long)(r1 - r0), (unsigned long long)(s1 - s0) / 2,
		       (unsigned long long)fsize / 4096);
		fflush(stdout);
		pthread_barrier_destroy(&bar);
	}
	return 0;
}
