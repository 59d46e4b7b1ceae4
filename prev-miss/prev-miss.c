// SPDX-License-Identifier: GPL-2.0
/*
 * Lab harness for page_cache_next_miss() / page_cache_prev_miss().
 *
 * Built by test.sh inside a temporary copy of tools/testing/radix-tree,
 * so lib/xarray.c is the kernel's own (XA_CHUNK_SHIFT 6, XA_DEBUG,
 * CONFIG_XARRAY_MULTI).  "filemap-miss.c" is not written by hand: test.sh
 * cuts the two functions out of mm/filemap.c, unchanged.  They only use
 * mapping->i_pages, so a struct address_space holding an xarray is all
 * they need.
 *
 * Large entries are stored the way __filemap_add_folio() stores a folio
 * (xas_set_order() + xas_store()), and shadows the way page_cache_delete()
 * replaces a folio by its shadow (same order, xa_mk_value()).
 *
 * The reference is the functions' own loop with each xas_next()/xas_prev()
 * replaced by xa_load() of that index.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/slab.h>
#include <linux/radix-tree.h>
#include "test.h"

typedef unsigned long pgoff_t;
struct address_space {
	struct xarray i_pages;
};
#define EXPORT_SYMBOL(sym)

#include "filemap-miss.c"

#define SPAN		4096UL
#define NLAYOUTS	64

static struct address_space mapping;
static struct xarray *xa = &mapping.i_pages;
static long folio_pool[SPAN + 64];	/* fake folios, never dereferenced */
static int failures;

static void store(unsigned long index, unsigned int order, void *entry)
{
	XA_STATE_ORDER(xas, xa, index, order);

	for (;;) {
		xas_lock_irq(&xas);
		xas_store(&xas, entry);
		xas_unlock_irq(&xas);
		if (!xas_nomem(&xas, GFP_KERNEL))
			break;
		xas_set_order(&xas, index, order);
	}
	assert(!xas_error(&xas));
}

static void add_folio(unsigned long index, unsigned int order)
{
	assert(!(index & ((1UL << order) - 1)));
	store(index, order, &folio_pool[index % SPAN]);
}

static void add_shadow(unsigned long index, unsigned int order)
{
	add_folio(index, order);
	store(index, order, xa_mk_value(index));	/* page_cache_delete() */
}

static void reset(void)
{
	xa_destroy(xa);
	xa_init(xa);
}

static bool miss(unsigned long index)
{
	void *entry = xa_load(xa, index);

	return !entry || xa_is_value(entry);
}

static pgoff_t ref_next_miss(pgoff_t index, unsigned long max_scan)
{
	pgoff_t i = index;

	if (!max_scan)
		return index + 1;
	for (; max_scan; max_scan--, i++) {
		if (miss(i))
			return i;
		if (i == 0)
			return 0;
	}
	return i;
}

static pgoff_t ref_prev_miss(pgoff_t index, unsigned long max_scan)
{
	pgoff_t i = index;

	if (!max_scan)
		return index - 1;
	for (; max_scan; max_scan--, i--) {
		if (miss(i))
			return i;
		if (i == ULONG_MAX)
			return ULONG_MAX;
	}
	return i;
}

/* Present in a large entry, but not at its first index */
static bool inside(unsigned long index)
{
	void *entry = xa_load(xa, index);
	int order = xa_get_order(xa, index);

	return entry && !xa_is_value(entry) && (index & ((1UL << order) - 1));
}

static void check(const char *fn, pgoff_t index, unsigned long max_scan)
{
	bool next = fn[0] == 'n';
	pgoff_t got, want;

	rcu_read_lock();
	got = next ? page_cache_next_miss(&mapping, index, max_scan) :
		     page_cache_prev_miss(&mapping, index, max_scan);
	rcu_read_unlock();
	want = next ? ref_next_miss(index, max_scan) :
		      ref_prev_miss(index, max_scan);
	printf("  %s(%lu, %lu) = %ld, reference %ld  %s\n", fn, index,
	       max_scan, (long)got, (long)want, got == want ? "ok" : "WRONG");
	if (got != want)
		failures++;
}

static void show(unsigned long lo, unsigned long hi)
{
	printf("layout %lu..%lu:", lo, hi);
	for (unsigned long i = lo; i <= hi; i++) {
		void *e = xa_load(xa, i);

		printf(" %c", !e ? '-' : xa_is_value(e) ? 's' : 'F');
	}
	printf("   (F folio, s shadow, - empty)\n");
}

static void directed(void)
{
	int i;

	puts("== directed cases");
	reset();			/* order-2 folio at 8..11 */
	add_folio(8, 2);
	show(0, 15);
	check("prev_miss", 11, 16);
	check("prev_miss", 10, 8);
	check("prev_miss", 8, 8);
	check("next_miss", 8, 8);
	check("next_miss", 9, 16);

	reset();			/* 0..3 order-0, order-2 at 4..7 */
	for (i = 0; i < 4; i++)
		add_folio(i, 0);
	add_folio(4, 2);
	show(0, 15);
	check("prev_miss", 7, 16);
	check("next_miss", 5, 8);

	reset();			/* order-9 folio at 512..1023 */
	add_folio(512, 9);
	printf("layout: order-9 folio at 512..1023, the rest empty\n");
	check("prev_miss", 1023, 1024);
	check("next_miss", 513, 1024);

	reset();			/* across a 64-slot node boundary */
	add_folio(56, 3);
	add_folio(65, 0);
	add_folio(66, 1);
	for (i = 0; i < 4; i++)
		add_folio(128 + 4 * i, 2);
	show(54, 70);
	check("next_miss", 57, 256);
	check("prev_miss", 67, 256);

	reset();			/* page_cache_sync_ra() after order-2 folios */
	for (i = 0; i < 256; i += 4)
		add_folio(i, 2);
	printf("layout: order-2 folios at 0..255, miss at 256\n");
	check("prev_miss", 255, 128);	/* index - 1 = 255 */
	check("prev_miss", 255, 512);	/* cached from 0: ULONG_MAX */

	reset();			/* an order-2 shadow below a folio */
	add_shadow(4, 2);
	add_folio(8, 2);
	show(0, 15);
	check("prev_miss", 8, 16);
	check("prev_miss", 11, 16);

	reset();			/* range ends and wrap-around */
	add_folio(0, 2);
	add_folio(ULONG_MAX - 3, 2);
	printf("layout: order-2 folios at 0..3 and ULONG_MAX-3..ULONG_MAX\n");
	check("prev_miss", 2, 10);
	check("prev_miss", 3, 2);
	check("next_miss", ULONG_MAX - 2, 10);
	check("next_miss", 1, 2);
	check("next_miss", 1, 0);
	check("next_miss", 1, ULONG_MAX);
}

static unsigned long long rng = 0x2545F4914F6CDD1DULL;

static unsigned long rnd(unsigned long n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

static void make_layout(bool shadows)
{
	unsigned long i = 0;

	reset();
	while (i < SPAN) {
		/* orders 0-10, small ones most often */
		unsigned int order = rnd(3) ? rnd(5) : rnd(11);

		while (order && ((i & ((1UL << order) - 1)) ||
				 i + (1UL << order) > SPAN))
			order--;
		if (rnd(4) == 0)
			;			/* a quarter empty */
		else if (shadows && rnd(5) == 0)
			add_shadow(i, order);
		else
			add_folio(i, order);
		i += 1UL << order;
	}
	if (rnd(2))			/* make the tree deeper */
		add_folio(1UL << 20, 0);
}

static unsigned long pick_max_scan(void)
{
	switch (rnd(16)) {
	case 0:
		return 0;
	case 1:
		return ULONG_MAX;
	default:
		return 1 + rnd(rnd(2) ? 64 : 1200);
	}
}

static void sweep(bool shadows)
{
	unsigned long calls = 0, wrong = 0, calls_in = 0, wrong_in = 0;
	unsigned long wrong_next = 0, wrong_prev = 0, other_prev = 0;
	int l;

	for (l = 0; l < NLAYOUTS; l++) {
		make_layout(shadows);
		for (unsigned long s = 0; s < SPAN + 8; s++) {
			for (int next = 0; next < 2; next++) {
				unsigned long max = pick_max_scan();
				bool in = inside(s);
				pgoff_t got, want;

				rcu_read_lock();
				got = next ?
				   page_cache_next_miss(&mapping, s, max) :
				   page_cache_prev_miss(&mapping, s, max);
				rcu_read_unlock();
				want = next ? ref_next_miss(s, max) :
					      ref_prev_miss(s, max);
				calls++;
				calls_in += in;
				if (got == want)
					continue;
				wrong++;
				wrong_in += in;
				if (next)
					wrong_next++;
				else
					wrong_prev++;
				if (!in && !next)
					other_prev++;
			}
		}
	}
	printf("sweep (%s): %lu calls, %lu wrong (next_miss %lu, prev_miss %lu)\n",
	       shadows ? "folios and multi-index shadows" : "folios only",
	       calls, wrong, wrong_next, wrong_prev);
	printf("  start inside a large folio, not at its head: %lu calls, %lu wrong\n",
	       calls_in, wrong_in);
	printf("  any other start:                             %lu calls, %lu wrong (prev_miss %lu)\n",
	       calls - calls_in, wrong - wrong_in, other_prev);
	failures += wrong;
}

int main(void)
{
	rcu_register_thread();
	radix_tree_init();
	xa_init(xa);

	printf("XA_CHUNK_SHIFT %d, CONFIG_XARRAY_MULTI %d\n", XA_CHUNK_SHIFT,
	       IS_ENABLED(CONFIG_XARRAY_MULTI));
	directed();
	puts("== random sweep: orders 0-10, a quarter empty, every start 0..4103");
	sweep(false);
	sweep(true);

	reset();
	rcu_barrier();
	printf("RESULT: %s (%d wrong)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
