// SPDX-License-Identifier: GPL-2.0
/*
 * stress: data-checking workloads for the page-fault path (make stress).
 * Every page the lab writes is stamped, and every byte a reader gets
 * through a mapping is checked against the stamp, so that a wrong page, a
 * torn page or a page of zeroes is caught and not only timed.
 *
 * The stamp. The file is cut in 4 KiB pages (the unit, whatever the folio
 * size); page p of a file of generation g holds 512 64-bit little-endian
 * words, word w being
 *
 *	key(g, p) + w * 0x9e3779b97f4a7c15	(1 where that sum is 0)
 *
 * with key(g, p) a 64-bit mix of g and p. A page of another file, another
 * page of this one, a page shifted or torn, a page of zeroes: each differs
 * from the stamp in (almost) every word. Bytes past the end of the file, in
 * its last page, must read as zero.
 *
 *   stress write  -f FILE -s BYTES [-g GEN]
 *	write FILE with the stamps of GEN, fsync it.
 *   stress corrupt -f FILE -p PAGE [-W WORD]
 *	overwrite one word of FILE with a wrong value (to show a check fail).
 *   stress stream -f FILE [-g GEN] [-w NAME] [-n NRAND] [-R PCT] [-p PATTERN]
 *		[-T] [-x] [-o OFF_PAGES] [-l LEN_PAGES] [-a ADVICES] [-P NPROC]
 *		[-O] [-F]
 *	drop the caches, map LEN pages of FILE from page OFF (default: to
 *	the end), make NRAND random faults in it (checked), then start one
 *	thread per letter of PATTERN at once (default "aaaa"), thread i
 *	reading and checking the i-th equal part of the mapping, ascending
 *	for 'a', descending for 'd'. -R: the random faults go to the last
 *	PCT % of the mapping, and the threads read the rest: a reader that
 *	ran into the readahead flag of a random fault's read-around would
 *	restart readahead that way, not by the recovery path (default 0:
 *	both over the whole mapping). -T: MADV_HUGEPAGE mapping on a PMD
 *	boundary (the random faults go through a second, plain mapping);
 *	-x: PROT_EXEC; -a: one pass of the threads per letter (r:
 *	MADV_RANDOM, s: MADV_SEQUENTIAL, n: MADV_NORMAL), caches dropped
 *	before each; -P: NPROC processes do all this at once, on the mapping
 *	made before fork() or, with -O, each on its own open() and mmap();
 *	-F: fault injection is on (the job sets it up): the readers mark
 *	themselves with /proc/thread-self/make-it-fail, a SIGBUS is a proper
 *	error (counted, the page retried), and the failures injected are
 *	counted from the debugfs "times" attributes.
 *   stress trunc -f FILE -s MAX -m MIN [-g GEN] [-w NAME] [-i ITER]
 *		[-t READERS] [-d SECONDS] [-C PAGE]
 *	truncate and re-extend FILE while readers fault on it (see the
 *	comment above cmd_trunc()); -C: write one wrong word into PAGE
 *	first, to show that the readers catch it.
 *
 * Each workload prints one line for the host:
 *   @@STRESS name= faults= majflt= pages_checked= mismatches= sigbus=
 *	injected= result=ok|FAIL [detail=...]
 * and, at its first wrong word, one @@STRESS-MISMATCH line naming the
 * file, page, word, expected and got. It exits 1 on FAIL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define PG		4096UL		/* the stamp's unit */
#define WORDS		(PG / 8)
#define MAX_THREADS	16
#define MAX_PROCS	16
#define SIGBUS_RETRIES	8

static const char *file_path = "?";
static const char *wl_name = "stress";
static uint64_t gen = 1;

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static inline uint64_t page_key(uint64_t g, uint64_t page)
{
	return mix64(mix64(g + 0x51ed270b27c3a5e1ULL) ^ page);
}

static inline uint64_t stamp(uint64_t key, uint64_t w)
{
	uint64_t v = key + w * 0x9e3779b97f4a7c15ULL;

	return v ? v : 1;
}

static void fill_page(uint64_t *buf, uint64_t page)
{
	uint64_t key = page_key(gen, page), w;

	for (w = 0; w < WORDS; w++)
		buf[w] = stamp(key, w);
}

/*
 * Counters shared by every thread and every process of a workload (in a
 * MAP_SHARED anonymous page, so forked readers add to them too).
 */
struct totals {
	long pages_checked;
	long mismatches;
	long sigbus;		/* every SIGBUS a reader took */
	long sigbus_bad;	/* ...where none was allowed */
	long lost;		/* pages given up after SIGBUS_RETRIES */
	long torn;		/* trunc: stamp/zero byte mixes seen while racing */
	long rand_majflt;	/* stream: major faults of the random phase */
	long stream_majflt;	/* ...and of the streaming threads */
	int reported;		/* the first mismatch was printed */
};
static struct totals *tot;

static void add(long *c, long n)
{
	if (n)
		__atomic_add_fetch(c, n, __ATOMIC_RELAXED);
}

static void report_mismatch(uint64_t page, uint64_t w, uint64_t exp, uint64_t got,
			    const char *rule)
{
	if (__atomic_exchange_n(&tot->reported, 1, __ATOMIC_SEQ_CST))
		return;
	printf("@@STRESS-MISMATCH name=%s file=%s page=%llu word=%llu expected=0x%016llx got=0x%016llx rule=%s\n",
	       wl_name, file_path, (unsigned long long)page,
	       (unsigned long long)w, (unsigned long long)exp,
	       (unsigned long long)got, rule);
	fflush(stdout);
}

/*
 * Check words [0, WORDS) of a copy of page PAGE of a file of SIZE bytes.
 * Below EXACT_END (a file offset) every byte must be the stamp's; above
 * it each word may instead be zero (the truncation rule, see cmd_trunc());
 * past SIZE every byte must be zero. With RACING, a word above EXACT_END
 * that is a mix of stamp bytes and zero bytes is counted as torn, not as
 * wrong. Returns the number of wrong words.
 */
static long check_copy(const uint64_t *buf, uint64_t page, uint64_t size,
		       uint64_t exact_end, int racing)
{
	uint64_t key = page_key(gen, page), off = page * PG, w, s, m, b;
	long bad = 0;
	int i;

	if (off + PG <= exact_end && off + PG <= size) {
		/* the common case: the whole page must be exactly stamped */
		for (w = 0; w < WORDS; w++)
			if (buf[w] != stamp(key, w)) {
				report_mismatch(page, w, stamp(key, w), buf[w], "exact");
				bad++;
			}
		return bad;
	}
	for (w = 0; w < WORDS; w++, off += 8) {
		s = stamp(key, w);
		/* m: the bytes of this word that are below the end of file */
		if (off >= size)
			m = 0;
		else if (off + 8 <= size)
			m = ~0ULL;
		else
			m = (1ULL << ((size - off) * 8)) - 1;
		if (buf[w] == (s & m))
			continue;
		if (off >= exact_end && buf[w] == 0)
			continue;
		if (racing && off >= exact_end) {
			/* each byte the stamp's or zero */
			for (i = 0; i < 8; i++) {
				b = (buf[w] >> (i * 8)) & 0xff;
				if (b && b != ((s >> (i * 8)) & 0xff))
					break;
			}
			if (i == 8) {
				add(&tot->torn, 1);
				continue;
			}
		}
		report_mismatch(page, w, s & m, buf[w],
				off >= size ? "past-eof-zero" :
				off >= exact_end ? "stamp-or-zero" : "exact");
		bad++;
	}
	return bad;
}

/*
 * SIGBUS: each reading thread sets its jump buffer around the copy of one
 * page. The handler runs with SA_NODEFER, so jumping out of it with
 * siglongjmp() leaves SIGBUS unblocked without a sigprocmask() per page.
 */
static __thread sigjmp_buf *volatile bus_jmp;	/* volatile: or the store is dead */

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (bus_jmp)
		siglongjmp(*bus_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_sigbus(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	if (sigaction(SIGBUS, &sa, NULL))
		die("sigaction: %s", strerror(errno));
}

/*
 * Copy one page of the mapping with plain aligned 8-byte loads (so that
 * no word is torn by the copy itself). Returns 0, or -1 on SIGBUS.
 */
static int copy_page(uint64_t *dst, const volatile uint64_t *src)
{
	sigjmp_buf jb;
	size_t w;

	if (sigsetjmp(jb, 0)) {
		bus_jmp = NULL;
		return -1;
	}
	bus_jmp = &jb;
	for (w = 0; w < WORDS; w++)
		dst[w] = src[w];
	bus_jmp = NULL;
	return 0;
}

static void write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		die("write %s to %s: %s", val, path, strerror(errno));
	close(fd);
}

static void drop_caches(void)
{
	sync();
	write_str("/proc/sys/vm/drop_caches", "3\n");
}

/* fault injection: mark or unmark the calling thread */
static int inject;

static void make_it_fail(int on)
{
	if (inject)
		write_str("/proc/thread-self/make-it-fail", on ? "1\n" : "0\n");
}

static long debugfs_times(const char *attr)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/%s/times", attr);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* ---- the mapping and its readers ---- */

struct mapping {
	volatile uint64_t *addr;	/* page first_page of the file */
	volatile uint64_t *raddr;	/* stream: the same, for the random faults */
	uint64_t first_page;		/* file page of addr */
	uint64_t pages;			/* mapped pages */
	uint64_t size;			/* file size */
	uint64_t exact_end;		/* trunc: stamps exact below this */
	int may_sigbus;			/* ...a SIGBUS is not an error there */
};

/*
 * Read and check mapped page I (RACING: see check_copy()). A SIGBUS on a
 * page at or past EXACT_END is the end of a truncated file (trunc):
 * counted, not an error. Below it, with fault injection, it is retried
 * (the page may read the next time) up to SIGBUS_RETRIES times; without,
 * it is an error: rule no-sigbus in stream, below-min in trunc.
 */
static void read_page(const struct mapping *m, uint64_t i, int racing)
{
	uint64_t buf[WORDS], page = m->first_page + i;
	int tries;

	for (tries = 0; tries < SIGBUS_RETRIES; tries++) {
		if (!copy_page(buf, m->addr + i * WORDS)) {
			add(&tot->mismatches,
			    check_copy(buf, page, m->size, m->exact_end, racing));
			add(&tot->pages_checked, 1);
			return;
		}
		add(&tot->sigbus, 1);
		if (page * PG >= m->exact_end)
			return;
		if (!m->may_sigbus) {
			add(&tot->sigbus_bad, 1);
			if (!__atomic_exchange_n(&tot->reported, 1, __ATOMIC_SEQ_CST))
				printf("@@STRESS-MISMATCH name=%s file=%s page=%llu word=0 expected=data got=SIGBUS rule=%s\n",
				       wl_name, file_path, (unsigned long long)page,
				       m->exact_end < m->size ? "below-min" : "no-sigbus");
			return;
		}
	}
	add(&tot->lost, 1);
}

struct reader {
	pthread_t tid;
	const struct mapping *m;
	uint64_t from, n;		/* mapped pages [from, from + n) */
	int down;
};

static pthread_barrier_t go;

static void *reader(void *arg)
{
	struct reader *r = arg;
	uint64_t i;
	int err;

	err = pthread_barrier_wait(&go);
	if (err && err != PTHREAD_BARRIER_SERIAL_THREAD)
		die("pthread_barrier_wait: %s", strerror(err));
	make_it_fail(1);
	for (i = 0; i < r->n; i++)
		read_page(r->m, r->down ? r->from + r->n - 1 - i : r->from + i, 0);
	make_it_fail(0);
	return NULL;
}

/*
 * One thread per letter of PATTERN, all at once, each on its part of the
 * first PAGES pages of the mapping.
 */
static void streams(const struct mapping *m, uint64_t pages, const char *pattern)
{
	size_t n = strlen(pattern), i;
	struct reader r[MAX_THREADS];
	uint64_t part = pages / n;
	int err;

	err = pthread_barrier_init(&go, NULL, n);
	if (err)
		die("pthread_barrier_init: %s", strerror(err));
	for (i = 0; i < n; i++) {
		r[i].m = m;
		r[i].from = i * part;
		r[i].n = i == n - 1 ? pages - i * part : part;
		r[i].down = pattern[i] == 'd';
		err = pthread_create(&r[i].tid, NULL, reader, &r[i]);
		if (err)
			die("pthread_create: %s", strerror(err));
	}
	for (i = 0; i < n; i++) {
		err = pthread_join(r[i].tid, NULL);
		if (err)
			die("pthread_join: %s", strerror(err));
	}
	pthread_barrier_destroy(&go);
}

static long faults_now(long *maj)
{
	struct rusage s, c;

	getrusage(RUSAGE_SELF, &s);
	getrusage(RUSAGE_CHILDREN, &c);
	*maj = s.ru_majflt + c.ru_majflt;
	return s.ru_minflt + s.ru_majflt + c.ru_minflt + c.ru_majflt;
}

static struct totals *alloc_totals(void)
{
	struct totals *t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (t == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	return t;
}

static void print_result(long faults, long majflt, long injected, int fail,
			 const char *detail)
{
	printf("@@STRESS name=%s faults=%ld majflt=%ld pages_checked=%ld mismatches=%ld sigbus=%ld injected=%ld result=%s%s%s\n",
	       wl_name, faults, majflt, tot->pages_checked, tot->mismatches,
	       tot->sigbus, injected, fail ? "FAIL" : "ok",
	       *detail ? " detail=" : "", detail);
	fflush(stdout);
}

static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end || end == s)
		die("bad size '%s'", s);
	return v;
}

/* ---- write, corrupt ---- */

/* -f, -g and -w, which most commands take, or die. */
static void file_opt(int opt, const char *cmd)
{
	switch (opt) {
	case 'f': file_path = optarg; break;
	case 'g': gen = strtoull(optarg, NULL, 0); break;
	case 'w': wl_name = optarg; break;
	default: die("%s: bad option", cmd);
	}
}

/* Write the stamps of bytes [FROM, TO) of FD, FROM a multiple of PG. */
static void write_stamps(int fd, uint64_t from, uint64_t to)
{
	static uint64_t buf[256 * WORDS];	/* 1 MiB */
	uint64_t off, n, p;

	for (off = from; off < to; off += n) {
		n = to - off < sizeof(buf) ? to - off : sizeof(buf);
		for (p = 0; p * PG < n; p++)
			fill_page(buf + p * WORDS, off / PG + p);
		if (pwrite(fd, buf, n, off) != (ssize_t)n)
			die("write %s: %s", file_path, strerror(errno));
	}
}

/* Make the file SIZE bytes of stamps; returns it open for reading and writing. */
static int create_stamped(uint64_t size)
{
	int fd = open(file_path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		die("%s: %s", file_path, strerror(errno));
	write_stamps(fd, 0, size);
	return fd;
}

/* Overwrite word W of page PAGE with a wrong value (to show a check fail). */
static void corrupt_word(int fd, uint64_t page, uint64_t w)
{
	uint64_t v = 0x0badc0de0badc0deULL;

	if (pwrite(fd, &v, 8, page * PG + w * 8) != 8)
		die("corrupt %s: %s", file_path, strerror(errno));
	printf("stress: corrupted %s page %llu word %llu on purpose\n", file_path,
	       (unsigned long long)page, (unsigned long long)w);
}

static int cmd_write(int argc, char **argv)
{
	uint64_t size = 0;
	int fd, opt;

	while ((opt = getopt(argc, argv, "f:s:g:")) != -1) {
		if (opt == 's')
			size = parse_size(optarg);
		else
			file_opt(opt, "write");
	}
	if (!strcmp(file_path, "?") || !size)
		die("usage: stress write -f FILE -s BYTES [-g GEN]");
	fd = create_stamped(size);
	if (fsync(fd) || close(fd))
		die("fsync %s: %s", file_path, strerror(errno));
	return 0;
}

static int cmd_corrupt(int argc, char **argv)
{
	uint64_t page = 0, w = 7;
	int fd, opt;

	while ((opt = getopt(argc, argv, "f:p:W:")) != -1) {
		switch (opt) {
		case 'p': page = strtoull(optarg, NULL, 0); break;
		case 'W': w = strtoull(optarg, NULL, 0) % WORDS; break;
		default: file_opt(opt, "corrupt");
		}
	}
	fd = open(file_path, O_WRONLY);
	if (fd < 0)
		die("%s: %s", file_path, strerror(errno));
	corrupt_word(fd, page, w);
	if (fsync(fd) || close(fd))
		die("corrupt %s: %s", file_path, strerror(errno));
	return 0;
}

/* ---- stream ---- */

struct stream_args {
	uint64_t nrand, off, len;	/* pages */
	unsigned int rand_pct;
	const char *pattern, *advice;
	int thp, prot, separate;
};

static void open_map(const struct stream_args *a, struct mapping *m, int *fdp)
{
	struct stat st;
	int fd = open(file_path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		die("%s: %s", file_path, strerror(errno));
	m->size = st.st_size;
	m->first_page = a->off;
	if (a->off * PG >= m->size)
		die("%s: offset past the end", file_path);
	m->pages = (m->size + PG - 1) / PG - a->off;
	if (a->len && a->len < m->pages)
		m->pages = a->len;
	m->exact_end = m->size;
	m->may_sigbus = inject;
	m->addr = map_file(fd, a->off * PG, m->pages * PG, a->prot, a->thp ? HUGEPAGE : PLAIN);
	/*
	 * Through a MADV_HUGEPAGE mapping each random fault would read 4 MiB
	 * and a few hundred would read most of the file; through a plain
	 * mapping of the same open file each reads around 128 KiB, and they
	 * saturate the file's mmap_miss all the same (it is the file's).
	 */
	m->raddr = a->thp ? map_file(fd, a->off * PG, m->pages * PG, a->prot, PLAIN) : m->addr;
	*fdp = fd;
}

static void run_stream(const struct stream_args *a, struct mapping *m, int drop)
{
	static const struct { char c; int advice; } adv[] = {
		{ 'r', MADV_RANDOM }, { 's', MADV_SEQUENTIAL }, { 'n', MADV_NORMAL },
	};
	uint64_t i, rpages = m->pages * a->rand_pct / 100;
	uint64_t spages = m->pages - rpages;
	struct mapping rm = *m;
	struct rusage r0, r1;
	const char *p;
	size_t k;

	rm.addr = m->raddr;
	if (!rpages)
		rpages = spages = m->pages;
	rnd_seed(0x5eed ^ getpid());
	getrusage(RUSAGE_SELF, &r0);
	make_it_fail(1);
	for (i = 0; i < a->nrand; i++)
		read_page(&rm, m->pages - rpages + rnd() % rpages, 0);
	make_it_fail(0);
	getrusage(RUSAGE_SELF, &r1);
	add(&tot->rand_majflt, r1.ru_majflt - r0.ru_majflt);
	for (p = a->advice; *p; p++) {
		if (*p != '-') {
			for (k = 0; k < sizeof(adv) / sizeof(adv[0]); k++)
				if (adv[k].c == *p)
					break;
			if (k == sizeof(adv) / sizeof(adv[0]))
				die("advice: r, s, n or -, not '%c'", *p);
			if (madvise((void *)m->addr, m->pages * PG, adv[k].advice))
				die("madvise: %s", strerror(errno));
		}
		if (drop && p != a->advice)
			drop_caches();
		getrusage(RUSAGE_SELF, &r0);
		streams(m, spages, a->pattern);
		getrusage(RUSAGE_SELF, &r1);
		add(&tot->stream_majflt, r1.ru_majflt - r0.ru_majflt);
	}
}

static int cmd_stream(int argc, char **argv)
{
	struct stream_args a = { .nrand = 0, .pattern = "aaaa", .advice = "-",
				 .prot = PROT_READ };
	long f0, f1, maj0, maj1, pa0 = -1, mr0 = -1, injected = 0;
	int fd = -1, opt, nproc = 1, i, status, fail, child_fail = 0;
	double t0 = now();
	pid_t pids[MAX_PROCS];
	struct mapping m;
	char detail[256];

	while ((opt = getopt(argc, argv, "f:g:w:n:R:p:Txo:l:a:P:OF")) != -1) {
		switch (opt) {
		case 'n': a.nrand = strtoull(optarg, NULL, 0); break;
		case 'R': a.rand_pct = atoi(optarg); break;
		case 'p': a.pattern = optarg; break;
		case 'T': a.thp = 1; break;
		case 'x': a.prot |= PROT_EXEC; break;
		case 'o': a.off = strtoull(optarg, NULL, 0); break;
		case 'l': a.len = strtoull(optarg, NULL, 0); break;
		case 'a': a.advice = optarg; break;
		case 'P': nproc = atoi(optarg); break;
		case 'O': a.separate = 1; break;
		case 'F': inject = 1; break;
		default: file_opt(opt, "stream");
		}
	}
	if (!strcmp(file_path, "?"))
		die("usage: stress stream -f FILE [options]");
	if (!*a.pattern || strlen(a.pattern) > MAX_THREADS ||
	    strspn(a.pattern, "ad") != strlen(a.pattern))
		die("pattern: 1 to %d letters a or d", MAX_THREADS);
	if (nproc < 1 || nproc > MAX_PROCS)
		die("processes: 1 to %d", MAX_PROCS);
	if (a.rand_pct > 90)
		die("random part: 0 to 90 %%");
	if (!*a.advice)
		die("advice: at least one letter");
	tot = alloc_totals();
	catch_sigbus();
	drop_caches();
	if (inject) {
		pa0 = debugfs_times("fail_page_alloc");
		mr0 = debugfs_times("fail_make_request");
	}
	f0 = faults_now(&maj0);
	if (!a.separate)
		open_map(&a, &m, &fd);
	for (i = 0; i < nproc - 1; i++) {
		fflush(stdout);
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork: %s", strerror(errno));
		if (!pids[i]) {
			if (a.separate)
				open_map(&a, &m, &fd);
			run_stream(&a, &m, 0);
			_exit(0);
		}
	}
	if (a.separate)
		open_map(&a, &m, &fd);
	run_stream(&a, &m, nproc == 1);
	for (i = 0; i < nproc - 1; i++) {
		if (waitpid(pids[i], &status, 0) < 0)
			die("waitpid: %s", strerror(errno));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			child_fail++;
	}
	f1 = faults_now(&maj1);
	if (inject) {
		long pa1 = debugfs_times("fail_page_alloc");
		long mr1 = debugfs_times("fail_make_request");

		pa0 = pa0 > 0 && pa1 >= 0 ? pa0 - pa1 : 0;
		mr0 = mr0 > 0 && mr1 >= 0 ? mr0 - mr1 : 0;
		injected = pa0 + mr0;
	}
	fail = tot->mismatches || tot->sigbus_bad || child_fail;
	snprintf(detail, sizeof(detail),
		 "file_bytes=%llu,pages=%llu,threads=%s%s%s,nrand=%llu,rand_pct=%u,procs=%d%s%s,advice=%s,rand_majflt=%ld,stream_majflt=%ld,seconds=%.0f",
		 (unsigned long long)m.size, (unsigned long long)m.pages,
		 a.pattern, a.thp ? ",thp" : "", a.prot & PROT_EXEC ? ",exec" : "",
		 (unsigned long long)a.nrand, a.rand_pct, nproc, a.separate ? ",separate-opens" : "",
		 a.off ? ",offset" : "", a.advice, tot->rand_majflt,
		 tot->stream_majflt, now() - t0);
	if (inject)
		snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
			 ",fail_page_alloc=%ld,fail_make_request=%ld,pages_lost=%ld",
			 pa0, mr0, tot->lost);
	if (tot->sigbus_bad)
		snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
			 ",unexpected_sigbus=%ld", tot->sigbus_bad);
	if (child_fail)
		snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
			 ",children_failed=%d", child_fail);
	print_result(f1 - f0, maj1 - maj0, injected, fail, detail);
	return fail;
}

/* ---- trunc ---- */

/*
 * Truncate and re-extend a file while readers fault on it.
 *
 * The file is written with stamps to MAX bytes and mapped MAX bytes long.
 * A truncator thread repeats ITER times: truncate to a size S drawn in
 * [MIN, MAX), a multiple of 8 bytes (so that the kernel zeroes the tail of
 * a partial page but never part of a word); then re-extend to MAX, either
 * (a) by ftruncate() alone (a hole), or (b) by writing the stamps from the
 * first page boundary at or above S up to some E in (S, MAX] and then
 * ftruncate() to MAX. It only ever writes whole pages past the end of the
 * file, which no reader can map until the write has made them part of the
 * file; now and then it also drops the file's pages (POSIX_FADV_DONTNEED)
 * so that the readers fault and read again.
 *
 * The readers sweep up and down, and fault at random, over the whole
 * mapping. A SIGBUS is expected at or past the page of MIN (the end of
 * file may be anywhere above MIN) and handled; below it, it is an error.
 *
 * The rule, for every aligned 8-byte word a reader gets (one load), at
 * file offset O (MIN, the lowest size ever set, is a multiple of 8, so
 * no word straddles it):
 *   O < MIN: exactly the stamp;
 *   O >= MIN: the stamp or zero (zero where a truncation below O was
 *     re-extended by a hole, or where the tail of the page holding a
 *     new end of file was zeroed); and, only while the truncator runs,
 *     a word whose every byte is either the stamp's byte or zero is
 *     tolerated and counted as torn (the kernel may zero a page tail
 *     past a new end of file while a reader reads it);
 *   past the end of file: SIGBUS for a page wholly past it (counted; an
 *     error for a page that starts below MIN), zero for the bytes of its
 *     last page.
 * After the truncator stops (the file is MAX long again) a last pass,
 * caches dropped, reads every page with no tolerance for torn words.
 */
struct trunc_ctl {
	int fd;
	uint64_t min, max, iter;
	double deadline;
	volatile int stop;
	long truncs, holes, rewrites;
	const struct mapping *m;
};

static void *truncator(void *arg)
{
	struct trunc_ctl *c = arg;
	uint64_t i, s, e, span = c->max - c->min, from;

	for (i = 0; i < c->iter && now() < c->deadline; i++) {
		s = (c->min + rnd() % span) & ~7ULL;
		if (ftruncate(c->fd, s))
			die("ftruncate %s: %s", file_path, strerror(errno));
		c->truncs++;
		from = (s + PG - 1) & ~(PG - 1);
		if (rnd() % 3 && from < c->max) {
			e = from + PG * (1 + rnd() % ((c->max - from) / PG));
			write_stamps(c->fd, from, e);
			c->rewrites++;
		} else {
			c->holes++;
		}
		if (ftruncate(c->fd, c->max))
			die("ftruncate %s: %s", file_path, strerror(errno));
		if (!(i % 8) && posix_fadvise(c->fd, 0, 0, POSIX_FADV_DONTNEED))
			die("fadvise %s failed", file_path);
	}
	c->stop = 1;
	return NULL;
}

struct trunc_reader {
	pthread_t tid;
	struct trunc_ctl *c;
	unsigned seed;
};

static void *trunc_reader(void *arg)
{
	struct trunc_reader *r = arg;
	const struct mapping *m = r->c->m;
	uint64_t i, k, state = r->seed;
	int err, round = 0;

	err = pthread_barrier_wait(&go);
	if (err && err != PTHREAD_BARRIER_SERIAL_THREAD)
		die("pthread_barrier_wait: %s", strerror(err));
	while (!r->c->stop) {
		switch ((round++ + r->seed) % 3) {
		case 0:
			for (i = 0; i < m->pages && !r->c->stop; i++)
				read_page(m, i, 1);
			break;
		case 1:
			for (i = m->pages; i-- > 0 && !r->c->stop;)
				read_page(m, i, 1);
			break;
		default:
			for (k = 0; k < 256 && !r->c->stop; k++) {
				state = state * 6364136223846793005ULL + 1442695040888963407ULL;
				read_page(m, (state >> 33) % m->pages, 1);
			}
		}
	}
	return NULL;
}

static int cmd_trunc(int argc, char **argv)
{
	struct trunc_ctl c = { .iter = 200 };
	long corrupt = -1;
	struct trunc_reader r[MAX_THREADS];
	int opt, nreaders = 3, i, err, fail;
	long f0, f1, maj0, maj1;
	double seconds = 120, t0;
	struct mapping m;
	char detail[256];
	uint64_t p;

	while ((opt = getopt(argc, argv, "f:g:w:s:m:i:t:d:C:")) != -1) {
		switch (opt) {
		case 's': c.max = parse_size(optarg); break;
		case 'm': c.min = parse_size(optarg); break;
		case 'i': c.iter = strtoull(optarg, NULL, 0); break;
		case 't': nreaders = atoi(optarg); break;
		case 'd': seconds = atof(optarg); break;
		case 'C': corrupt = atol(optarg); break;
		default: file_opt(opt, "trunc");
		}
	}
	if (!strcmp(file_path, "?") || !c.max || c.min >= c.max || c.min % 8 ||
	    c.max % PG)
		die("usage: stress trunc -f FILE -s MAX -m MIN (MIN < MAX, MIN a multiple of 8, MAX of %lu)", PG);
	if (nreaders < 1 || nreaders > MAX_THREADS)
		die("readers: 1 to %d", MAX_THREADS);
	tot = alloc_totals();
	catch_sigbus();

	c.fd = create_stamped(c.max);
	if (corrupt >= 0)
		corrupt_word(c.fd, corrupt, 7);
	if (fsync(c.fd))
		die("fsync %s: %s", file_path, strerror(errno));
	drop_caches();
	m = (struct mapping){ .size = c.max, .pages = c.max / PG, .exact_end = c.min,
			      .addr = map_file(c.fd, 0, c.max, PROT_READ, PLAIN) };
	c.m = &m;

	rnd_seed(0x7a11);
	f0 = faults_now(&maj0);
	t0 = now();
	c.deadline = t0 + seconds;
	err = pthread_barrier_init(&go, NULL, nreaders + 1);
	if (err)
		die("pthread_barrier_init: %s", strerror(err));
	for (i = 0; i < nreaders; i++) {
		r[i].c = &c;
		r[i].seed = i + 1;
		err = pthread_create(&r[i].tid, NULL, trunc_reader, &r[i]);
		if (err)
			die("pthread_create: %s", strerror(err));
	}
	err = pthread_barrier_wait(&go);
	if (err && err != PTHREAD_BARRIER_SERIAL_THREAD)
		die("pthread_barrier_wait: %s", strerror(err));
	truncator(&c);
	for (i = 0; i < nreaders; i++) {
		err = pthread_join(r[i].tid, NULL);
		if (err)
			die("pthread_join: %s", strerror(err));
	}
	pthread_barrier_destroy(&go);

	/* quiescent: the file is MAX long; every word by the rule, no tearing */
	if (fsync(c.fd))
		die("fsync %s: %s", file_path, strerror(errno));
	drop_caches();
	for (p = 0; p < m.pages; p++)
		read_page(&m, p, 0);
	f1 = faults_now(&maj1);

	fail = tot->mismatches || tot->sigbus_bad;
	snprintf(detail, sizeof(detail),
		 "max_mib=%llu,min_bytes=%llu,readers=%d,truncations=%ld,hole_extends=%ld,write_extends=%ld,torn_while_racing=%ld,seconds=%.0f%s",
		 (unsigned long long)(c.max >> 20), (unsigned long long)c.min,
		 nreaders, c.truncs, c.holes, c.rewrites, tot->torn, now() - t0,
		 tot->sigbus_bad ? ",unexpected_sigbus" : "");
	print_result(f1 - f0, maj1 - maj0, 0, fail, detail);
	close(c.fd);
	return fail;
}

int main(int argc, char **argv)
{
	page_size = sysconf(_SC_PAGESIZE);
	if (page_size != PG)
		die("page size %zu: the stamps assume %lu", page_size, PG);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		die("usage: stress write|corrupt|stream|trunc [options]");
	argv++;
	argc--;
	if (!strcmp(argv[0], "write"))
		return cmd_write(argc, argv);
	if (!strcmp(argv[0], "corrupt"))
		return cmd_corrupt(argc, argv);
	if (!strcmp(argv[0], "stream"))
		return cmd_stream(argc, argv);
	if (!strcmp(argv[0], "trunc"))
		return cmd_trunc(argc, argv);
	die("unknown command '%s'", argv[0]);
}
