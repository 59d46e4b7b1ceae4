// SPDX-License-Identifier: GPL-2.0
/*
 * streams: several threads streaming different parts of one mapping of
 * one file at once, after N random faults on the same open file (N = 0 is
 * the control). Map the whole cold file, touch N random pages in
 * [rand_start, rand_start + rand_len), then start THREADS threads
 * together; thread i reads the i-th of THREADS equal parts of
 * [start, start + len) in order, one byte a page. Major faults are the
 * process's (all threads).
 *
 *   streams -f FILE [-n N] [-k read_ahead_kb] [-r rand_start_mib]
 *           [-R rand_len_mib] [-s start_mib] [-l len_mib] [-t threads]
 *           [-w name]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common.h"

#define MAX_THREADS 64

struct stream {
	pthread_t tid;
	char *from;
	size_t pages;
	long majflt;		/* this thread's major faults */
};

static pthread_barrier_t go;

static void *stream(void *arg)
{
	struct stream *s = arg;
	volatile char sink;
	struct rusage a, b;
	size_t i;
	int err;

	err = pthread_barrier_wait(&go);
	if (err && err != PTHREAD_BARRIER_SERIAL_THREAD)
		die("pthread_barrier_wait: %s", strerror(err));
	if (getrusage(RUSAGE_THREAD, &a))
		die("getrusage: %s", strerror(errno));
	for (i = 0; i < s->pages; i++)
		sink = s->from[i * page_size];
	if (getrusage(RUSAGE_THREAD, &b))
		die("getrusage: %s", strerror(errno));
	(void)sink;
	s->majflt = b.ru_majflt - a.ru_majflt;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *path = NULL, *name = "streams";
	size_t nrand = 100, ra_kb = 128, rand_start = 3072, rand_len = 1024;
	size_t start = 0, len = 1024, nthreads = 4, size, i, part;
	struct stream s[MAX_THREADS];
	struct counters a, b;
	long tmin = -1, tmax = 0;
	volatile char sink;
	char *map;
	int fd, opt, err;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "f:n:k:r:R:s:l:t:w:d:")) != -1) {
		switch (opt) {
		case 'f': path = optarg; break;
		case 'n': nrand = strtoul(optarg, NULL, 0); break;
		case 'k': ra_kb = strtoul(optarg, NULL, 0); break;
		case 'r': rand_start = strtoul(optarg, NULL, 0); break;
		case 'R': rand_len = strtoul(optarg, NULL, 0); break;
		case 's': start = strtoul(optarg, NULL, 0); break;
		case 'l': len = strtoul(optarg, NULL, 0); break;
		case 't': nthreads = strtoul(optarg, NULL, 0); break;
		case 'w': name = optarg; break;
		case 'd': blockdev = optarg; break;
		default: die("bad option");
		}
	}
	if (!path)
		die("usage: %s -f FILE [-n N] [-t threads] [options]", argv[0]);
	if (!nthreads || nthreads > MAX_THREADS)
		die("threads: 1 to %d", MAX_THREADS);
	rand_start <<= 20;
	rand_len <<= 20;
	start <<= 20;
	len <<= 20;
	part = len / page_size / nthreads;
	if (!part || !rand_len)
		die("bad geometry");

	set_read_ahead_kb(ra_kb);
	fd = open_cold(path, &size);
	if (rand_start + rand_len > size || start + len > size)
		die("%s: %zu bytes is too small for this geometry", path, size);
	map = map_file(fd, size, 0);

	rnd_seed(42);
	snap(&a);
	for (i = 0; i < nrand; i++)
		sink = map[rand_start + rnd() % (rand_len / page_size) * page_size];
	snap(&b);
	(void)sink;
	result(name, "random", &a, &b, nrand,
	       resident_pages(map + rand_start, rand_len),
	       "\"random_faults\":%zu,\"read_ahead_kb\":%zu,\"threads\":%zu",
	       nrand, ra_kb, nthreads);

	err = pthread_barrier_init(&go, NULL, nthreads + 1);
	if (err)
		die("pthread_barrier_init: %s", strerror(err));
	for (i = 0; i < nthreads; i++) {
		s[i].from = map + start + i * part * page_size;
		s[i].pages = part;
		err = pthread_create(&s[i].tid, NULL, stream, &s[i]);
		if (err)
			die("pthread_create: %s", strerror(err));
	}
	snap(&a);
	err = pthread_barrier_wait(&go);
	if (err && err != PTHREAD_BARRIER_SERIAL_THREAD)
		die("pthread_barrier_wait: %s", strerror(err));
	for (i = 0; i < nthreads; i++) {
		err = pthread_join(s[i].tid, NULL);
		if (err)
			die("pthread_join: %s", strerror(err));
		if (tmin < 0 || s[i].majflt < tmin)
			tmin = s[i].majflt;
		if (s[i].majflt > tmax)
			tmax = s[i].majflt;
	}
	snap(&b);
	result(name, "stream", &a, &b, part * nthreads,
	       resident_pages(map + start, len),
	       "\"random_faults\":%zu,\"read_ahead_kb\":%zu,\"threads\":%zu,"
	       "\"mem_total_kb\":%ld,\"thread_majflt_min\":%ld,\"thread_majflt_max\":%ld,"
	       "\"metrics\":\"thread_majflt_min,thread_majflt_max\"",
	       nrand, ra_kb, nthreads, mem_total_kb(), tmin, tmax);
	pthread_barrier_destroy(&go);
	if (munmap(map, size))
		die("munmap: %s", strerror(errno));
	close(fd);
	return 0;
}
