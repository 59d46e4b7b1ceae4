/* Model of 1/6's mmap_miss_run() window rule (nr = min folio pages). */
#include <stdio.h>
#include <stdlib.h>
typedef unsigned long pgoff_t;
struct ra { pgoff_t start; unsigned size, async_size, ra_pages; };
#define round_down(x, y) ((x) & ~((y) - 1))
#define round_up(x, y) ((((x) - 1) | ((y) - 1)) + 1)

static int run(struct ra *ra, pgoff_t pgoff, unsigned long nr)
{
	pgoff_t index = round_down(pgoff, nr);
	pgoff_t first = ra->start, start = round_down(first, nr);
	pgoff_t end = round_up(first + ra->size, nr);

	ra->async_size = 0;
	if (index >= end && index - end <= nr) {
		ra->start = start;
		ra->size = index + nr - start;
	} else if (index < start && start - index <= 2 * nr) {
		ra->start = index;
		ra->size = end - index;
	} else {
		ra->start = index;
		ra->size = nr;
		return 0;
	}
	return ra->size > ra->ra_pages / 4;
}

/* misses in a row, step pages apart, until read-around */
static int misses_until(unsigned ra_pages, unsigned long nr, long step, int skip_every)
{
	struct ra ra = { 123456789, 1, 0, ra_pages };
	pgoff_t p = 1000000;
	int i;
	for (i = 1; i < 100000; i++) {
		if (run(&ra, p, nr))
			return i;
		p += step * nr;
		if (skip_every && (i % skip_every) == 0)
			p += step * nr;	/* a folio someone else cached: no miss there */
	}
	return -1;
}

int main(void)
{
	printf("ra 32 nr 1: up %d down %d; down past a cached folio every 3: %d\n",
	       misses_until(32, 1, 1, 0), misses_until(32, 1, -1, 0), misses_until(32, 1, -1, 3));
	printf("ra 32 nr 16 (64K blocks): up %d down %d\n", misses_until(32, 16, 1, 0), misses_until(32, 16, -1, 0));
	printf("ra 640 nr 4 (xfs 16k, 2.5M): up %d down %d\n", misses_until(640, 4, 1, 0), misses_until(640, 4, -1, 0));
	printf("ra 2048 nr 1 (8M): up %d down %d\n", misses_until(2048, 1, 1, 0), misses_until(2048, 1, -1, 0));
	/* skipping two folios: never */
	printf("ra 32 nr 1 step 3 (skips two): %d\n", misses_until(32, 1, 3, 0));
	/* records of k pages at 128K: does the record read around? */
	for (int k = 7; k <= 10; k++) {
		struct ra ra = { 5, 1, 0, 32 };
		int hit = 0;
		for (int j = 0; j < k; j++)
			hit |= run(&ra, 777777 + j, 1);
		printf("record of %d pages: %s\n", k, hit ? "reads around" : "own folios only");
	}
	return 0;
}
