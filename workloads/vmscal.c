// SPDX-License-Identifier: GPL-2.0
/*
 * vmscal: the mmap read cases of vm-scalability that the kernel test robot
 * reports on for readahead changes, written by us from their description
 * (not from vm-scalability's code), for make bench. One byte read per page
 * through a shared read-only mapping, from a cold cache:
 *
 *   -m seq           mmap-pread-seq: one thread reads the file in order
 *   -m rand          mmap-pread-rand: one thread reads READS random pages
 *   -m seq-mt        mmap-pread-seq-mt: TASKS threads on one mapping, each
 *                    reading its own part in order
 *   -m rand-mt       mmap-pread-rand-mt: TASKS threads on one mapping, each
 *                    reading READS / TASKS random pages of its own part
 *   -m xread-seq-mt  mmap-xread-seq-mt: TASKS threads on one mapping, all
 *                    reading the whole file in order
 *   -m lru           lru-file-mmap-read: TASKS processes, each with its own
 *                    open and mapping of its own file, or of its own part
 *                    of one when there are fewer files than processes
 *                    (readahead state is per open file), reading it in
 *                    order; the files together larger than memory
 *
 * Threads take one mapping and one open file: they share the file's
 * readahead state (mmap_miss), as the -mt cases do. Only the first LEN MiB
 * of each file is used (-l; default: all of it). FILES is a list separated
 * by ':'; every mode but lru takes the first.
 *
 * Prints one result: seconds (until the last reader is done), major faults
 * (pgmajfault of /proc/vmstat: threads and children alike; the guest is
 * otherwise idle), pages read from the data disk (its /sys/block/X/stat,
 * counted after the reads in flight have finished) and pgpgin, in pages.
 *
 *   vmscal -f FILE[:FILE...] -m MODE [-l len_mib] [-t tasks] [-n reads]
 *          [-s seed] [-k read_ahead_kb] [-d dev] [-w name]
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#define MAX_TASKS 64
#define MAX_FILES 8

struct task {
	const char *map;
	size_t first, pages, reads;	/* pages [first, first + pages) */
	uint64_t seed;
	int random;
	pthread_t th;
};

/* One byte of every page in order, or READS random pages of the part. */
static void read_part(struct task *t)
{
	uint64_t x = t->seed ? t->seed : 1;	/* a random state per thread */
	size_t i;

	if (!t->random)
		read_pages(t->map + t->first * page_size, t->pages, 0);
	else
		for (i = 0; i < t->reads; i++)
			touch(t->map + (t->first + rnd_next(&x) % t->pages) * page_size);
}

static void *thread_main(void *arg)
{
	read_part(arg);
	return NULL;
}

static long long pgpgin_pages(void)
{
	long long kb = vmstat("pgpgin");

	return kb < 0 ? -1 : kb * 1024 / (long long)page_size;
}

/* Counters at the start, or at the end: the time first, then the reads in flight. */
static void counters(struct counters *c, long long *pgpgin, int end)
{
	double t = 0;

	if (end) {
		snap(c);
		t = c->t;
	}
	wait_for_reads();
	snap(c);
	if (end)
		c->t = t;
	c->majflt = (long)vmstat("pgmajfault");
	*pgpgin = pgpgin_pages();
}

static size_t use_pages(size_t size, size_t len)
{
	size_t pages = size / page_size;

	if (len && len / page_size < pages)
		pages = len / page_size;
	return pages;
}

int main(int argc, char **argv)
{
	struct args a = { .ra_kb = 128 };	/* n: the reads of the rand modes */
	const char *mode = NULL;
	char *files_arg = NULL, *file[MAX_FILES], *p;
	size_t ntasks = 4, nfiles = 0, i;
	size_t size[MAX_FILES], pages[MAX_FILES], total = 0, touched = 0;
	struct task task[MAX_TASKS];
	struct counters c0, c1;
	long long in_a, in_b;
	uint64_t seed = 1;
	int fd[MAX_FILES], opt, status, failed = 0;
	pid_t pid[MAX_TASKS];
	char *map = NULL;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "f:m:l:t:n:s:k:d:w:")) != -1) {
		switch (opt) {
		case 'f': files_arg = optarg; break;
		case 'm': mode = optarg; break;
		case 't': ntasks = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		default: common_opt(&a, opt);
		}
	}
	if (!files_arg || !mode || optind != argc)
		die("usage: %s -f FILE[:FILE...] -m seq|rand|seq-mt|rand-mt|xread-seq-mt|lru "
		    "[-l len_mib] [-t tasks] [-n reads] [-s seed] [-k read_ahead_kb] "
		    "[-d dev] [-w name]", argv[0]);
	if (strcmp(mode, "seq") && strcmp(mode, "rand") && strcmp(mode, "seq-mt") &&
	    strcmp(mode, "rand-mt") && strcmp(mode, "xread-seq-mt") && strcmp(mode, "lru"))
		die("unknown mode %s", mode);
	if (!strcmp(mode, "seq") || !strcmp(mode, "rand"))
		ntasks = 1;
	if (!ntasks || ntasks > MAX_TASKS)
		die("tasks: 1 to %d", MAX_TASKS);
	for (p = strtok(files_arg, ":"); p; p = strtok(NULL, ":")) {
		if (nfiles == MAX_FILES)
			die("at most %d files", MAX_FILES);
		file[nfiles++] = p;
	}
	if (!nfiles)
		die("no file");
	if (strcmp(mode, "lru"))
		nfiles = 1;
	else if (ntasks < nfiles)
		die("lru: fewer processes (%zu) than files (%zu)", ntasks, nfiles);
	if (!a.name)
		a.name = mode;

	set_read_ahead_kb(a.ra_kb);
	/* cold: every file's pages out of the page cache */
	for (i = 0; i < nfiles; i++) {
		fd[i] = open_cold(file[i], &size[i]);
		pages[i] = use_pages(size[i], a.len);
		if (pages[i] < ntasks)
			die("%s: %zu pages, fewer than the %zu tasks", file[i], pages[i], ntasks);
		total += pages[i];
	}
	if (strstr(mode, "rand") && !a.n)
		a.n = pages[0];

	if (!strcmp(mode, "lru")) {
		/* process k: file k % nfiles, part k / nfiles of its file's parts */
		counters(&c0, &in_a, 0);
		for (i = 0; i < ntasks; i++) {
			size_t f = i % nfiles, parts = (ntasks - f + nfiles - 1) / nfiles;
			size_t part = i / nfiles;

			pid[i] = fork();
			if (pid[i] < 0)
				die("fork: %s", strerror(errno));
			if (!pid[i]) {
				struct task t = { 0 };
				int cfd = open(file[f], O_RDONLY);

				if (cfd < 0)
					die("%s: %s", file[f], strerror(errno));
				t.map = map_file(cfd, 0, pages[f] * page_size, PROT_READ, PLAIN);
				t.first = pages[f] * part / parts;
				t.pages = pages[f] * (part + 1) / parts - t.first;
				read_part(&t);
				_exit(0);
			}
		}
		for (i = 0; i < ntasks; i++) {
			if (waitpid(pid[i], &status, 0) < 0)
				die("waitpid: %s", strerror(errno));
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				failed = 1;
		}
		counters(&c1, &in_b, 1);
		if (failed)
			die("lru: a reader failed");
		touched = total;
	} else {
		int xread = !strcmp(mode, "xread-seq-mt");

		map = map_file(fd[0], 0, pages[0] * page_size, PROT_READ, PLAIN);
		for (i = 0; i < ntasks; i++) {
			task[i] = (struct task){ .map = map, .seed = seed * 1000 + i + 1,
						 .random = !!strstr(mode, "rand") };
			task[i].first = xread ? 0 : pages[0] * i / ntasks;
			task[i].pages = xread ? pages[0] :
				pages[0] * (i + 1) / ntasks - task[i].first;
			task[i].reads = a.n / ntasks;
			touched += task[i].random ? task[i].reads : task[i].pages;
		}
		counters(&c0, &in_a, 0);
		if (ntasks == 1) {
			read_part(&task[0]);
		} else {
			for (i = 0; i < ntasks; i++) {
				errno = pthread_create(&task[i].th, NULL, thread_main, &task[i]);
				if (errno)
					die("pthread_create: %s", strerror(errno));
			}
			for (i = 0; i < ntasks; i++)
				pthread_join(task[i].th, NULL);
		}
		counters(&c1, &in_b, 1);
	}
	result(a.name, "read", &c0, &c1, total, map ? resident_pages(map, pages[0] * page_size) : 0,
	       "\"tasks\":%zu,\"files\":%zu,\"touched\":%zu,\"reads\":%zu,\"seed\":%llu,"
	       "\"read_ahead_kb\":%zu,\"mem_total_kb\":%ld,\"pgpgin_pages\":%lld",
	       ntasks, nfiles, touched, a.n, (unsigned long long)seed, a.ra_kb,
	       mem_total_kb(), in_a < 0 ? -1 : in_b - in_a);
	if (map && munmap(map, pages[0] * page_size))
		die("munmap: %s", strerror(errno));
	for (i = 0; i < nfiles; i++)
		close(fd[i]);
	return 0;
}
