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
	struct rusage a, b;
	int err;

	err = pthread_barrier_wait(&go);
	if (err && err != PTHREAD_BARRIER_SERIAL_THREAD)
		die("pthread_barrier_wait: %s", strerror(err));
	if (getrusage(RUSAGE_THREAD, &a))
		die("getrusage: %s", strerror(errno));
	read_pages(s->from, s->pages, 0);
	if (getrusage(RUSAGE_THREAD, &b))
		die("getrusage: %s", strerror(errno));
	s->majflt = b.ru_majflt - a.ru_majflt;
	return NULL;
}

int main(int argc, char **argv)
{
	struct args a = { .name = "streams", .n = 100, .ra_kb = 128, .rand_start = MIB(3072),
			  .rand_len = MIB(1024), .start = 0, .len = MIB(1024) };
	size_t nthreads = 4, size, i, part;
	struct stream s[MAX_THREADS];
	struct counters c0, c1;
	long tmin = -1, tmax = 0;
	char more[32], *map;
	int fd, opt, err;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "f:n:k:r:R:s:l:t:w:d:")) != -1) {
		if (opt == 't')
			nthreads = strtoul(optarg, NULL, 0);
		else
			common_opt(&a, opt);
	}
	if (!a.path)
		die("usage: %s -f FILE [-n N] [-t threads] [options]", argv[0]);
	if (!nthreads || nthreads > MAX_THREADS)
		die("threads: 1 to %d", MAX_THREADS);
	part = a.len / page_size / nthreads;
	if (!part || !a.rand_len)
		die("bad geometry");

	fd = open_args(&a, &size);
	map = map_file(fd, 0, size, PROT_READ, PLAIN);
	snprintf(more, sizeof(more), ",\"threads\":%zu", nthreads);
	random_faults(&a, map, more);

	err = pthread_barrier_init(&go, NULL, nthreads + 1);
	if (err)
		die("pthread_barrier_init: %s", strerror(err));
	for (i = 0; i < nthreads; i++) {
		s[i].from = map + a.start + i * part * page_size;
		s[i].pages = part;
		err = pthread_create(&s[i].tid, NULL, stream, &s[i]);
		if (err)
			die("pthread_create: %s", strerror(err));
	}
	snap(&c0);
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
	snap(&c1);
	result(a.name, "stream", &c0, &c1, part * nthreads,
	       resident_pages(map + a.start, a.len),
	       "\"random_faults\":%zu,\"read_ahead_kb\":%zu,\"threads\":%zu,"
	       "\"mem_total_kb\":%ld,\"thread_majflt_min\":%ld,\"thread_majflt_max\":%ld,"
	       "\"metrics\":\"thread_majflt_min,thread_majflt_max\"",
	       a.n, a.ra_kb, nthreads, mem_total_kb(), tmin, tmax);
	pthread_barrier_destroy(&go);
	if (munmap(map, size))
		die("munmap: %s", strerror(errno));
	close(fd);
	return 0;
}
