/* Model of mmap_miss_mapped(): tiny page tables, exhaustive checks. */
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <assert.h>

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define PTRS_PER_PTE 8
#define PMD_SHIFT (PAGE_SHIFT + 3)
#define PTRS_PER_PMD 4
#define PUD_SHIFT (PMD_SHIFT + 2)
#define PUD_SIZE (1UL << PUD_SHIFT)
#define PUD_MASK (~(PUD_SIZE - 1))
#define NPUD 3
#define NPAGES (NPUD * PTRS_PER_PMD * PTRS_PER_PTE)
#define BASE (1UL << 30)	/* address of page 0, PUD aligned */

typedef struct { int present; } pte_t;
typedef struct { int none; int huge; } pmd_t;

static pte_t ptes[NPUD * PTRS_PER_PMD][PTRS_PER_PTE];
static pmd_t pmds[NPUD][PTRS_PER_PMD];
static int mapped;		/* tables mapped now */
static unsigned long vm_start, vm_end;
static long touched_lo, touched_hi;	/* pages read */
static int phase, outside;

#define pte_index(a) (((a) >> PAGE_SHIFT) & (PTRS_PER_PTE - 1))
#define pmd_index(a) (((a) >> PMD_SHIFT) & (PTRS_PER_PMD - 1))
static long pgno(unsigned long a) { return (long)((a - BASE) >> PAGE_SHIFT); }

/* which table does this pmd pointer name? check it stays in its PUD's array */
static pmd_t *cur_pud_base;
static pte_t *cur_tbl;
static pte_t *pte_offset_map(pmd_t *pmd, unsigned long addr)
{
	long pud = (pmd - &pmds[0][0]) / PTRS_PER_PMD;
	assert(pmd >= cur_pud_base && pmd < cur_pud_base + PTRS_PER_PMD);
	assert(pmd - &pmds[0][0] == (long)((addr - BASE) >> PMD_SHIFT));
	(void)pud;
	if (pmd->none || pmd->huge)
		return NULL;
	assert(mapped == 0);
	mapped++;
	cur_tbl = ptes[pmd - &pmds[0][0]];
	return &cur_tbl[pte_index(addr)];
}
static void pte_unmap(pte_t *pte)
{
	assert(mapped == 1);
	assert(pte >= cur_tbl && pte < cur_tbl + PTRS_PER_PTE);
	mapped--;
}
static pte_t ptep_get_lockless(pte_t *p)
{
	long tbl = cur_tbl - ptes[0];
	assert(p >= cur_tbl && p < cur_tbl + PTRS_PER_PTE);
	long page = (cur_tbl - ptes[0]) / PTRS_PER_PTE * 0 + (tbl / PTRS_PER_PTE) * PTRS_PER_PTE + (p - cur_tbl);
	(void)page;
	long pg = (long)(((pte_t (*)[PTRS_PER_PTE])cur_tbl - ptes)) * PTRS_PER_PTE + (p - cur_tbl);
	unsigned long a = BASE + ((unsigned long)pg << PAGE_SHIFT);
	if (!(a >= vm_start && a < vm_end)) { assert(phase == 0); outside++; }
	if (pg < touched_lo) touched_lo = pg;
	if (pg > touched_hi) touched_hi = pg;
	return *p;
}
static bool pte_present(pte_t p) { return p.present; }
static pmd_t pmdp_get_lockless(pmd_t *p) { return *p; }
static bool pmd_none(pmd_t p) { return p.none; }
#define max(a,b) ((a) > (b) ? (a) : (b))
#define min(a,b) ((a) < (b) ? (a) : (b))

struct vma { unsigned long vm_start, vm_end; };
struct vm_fault { struct vma *vma; unsigned long address; pmd_t *pmd; };

/* verbatim from the patched mm/filemap.c */
static bool mmap_miss_mapped(struct vm_fault *vmf, unsigned long need)
{
	unsigned long addr = vmf->address & PAGE_MASK, n;
	unsigned long lo = max(vmf->vma->vm_start, addr & PUD_MASK);
	unsigned long hi = min(vmf->vma->vm_end - 1, addr | ~PUD_MASK);
	pte_t *pte = pte_offset_map(vmf->pmd, addr);
	pmd_t *pmd = vmf->pmd;
	bool up, down, far;
	long step;

	if (!pte)
		return false;
	up = pte_index(addr) + 1 < PTRS_PER_PTE &&
	     pte_present(ptep_get_lockless(pte + 1));
	down = pte_index(addr) && pte_present(ptep_get_lockless(pte - 1));
	if (up == down || min(hi - addr, addr - lo) >> PAGE_SHIFT < need) {
		pte_unmap(pte);
		return false;
	}
	step = up ? 1 : -1;
	phase = 1;
	for (n = 0; n < need; n++) {
		addr += step * PAGE_SIZE;
		if (pte_index(addr) != (step > 0 ? 0 : PTRS_PER_PTE - 1)) {
			pte += step;
		} else {
			pte_unmap(pte);
			pmd += step;
			pte = pte_offset_map(pmd, addr);
			if (!pte)
				return false;
		}
		if (!pte_present(ptep_get_lockless(pte)))
			break;
	}
	pte_unmap(pte);
	if (n < need)
		return false;
	addr -= 2 * step * need * PAGE_SIZE;
	pmd = vmf->pmd - pmd_index(vmf->address) + pmd_index(addr);
	pte = pte_offset_map(pmd, addr);
	if (!pte)
		return pmd_none(pmdp_get_lockless(pmd));
	far = pte_present(ptep_get_lockless(pte));
	pte_unmap(pte);
	return !far;
}

/* reference: page-level spec */
static int P(long pg) /* 1 present, 0 not, -1 table none, -2 huge */
{
	pmd_t *pm = &pmds[0][0] + pg / PTRS_PER_PTE;
	if (pm->huge) return -2;
	if (pm->none) return -1;
	return ptes[pg / PTRS_PER_PTE][pg % PTRS_PER_PTE].present;
}
static bool ref(long f, long need)
{
	long s = f / (PTRS_PER_PTE * PTRS_PER_PMD) * (PTRS_PER_PTE * PTRS_PER_PMD);
	long e = s + PTRS_PER_PTE * PTRS_PER_PMD - 1;
	long lo = max(pgno(vm_start), s), hi = min(pgno(vm_end) - 1, e);
	if (P(f) < 0) return false;
	bool up = (f % PTRS_PER_PTE) != PTRS_PER_PTE - 1 && P(f + 1) == 1;
	bool down = (f % PTRS_PER_PTE) != 0 && P(f - 1) == 1;
	if (up == down || min(hi - f, f - lo) < need) return false;
	long st = up ? 1 : -1;
	for (long i = 1; i <= need; i++)
		if (P(f + st * i) != 1) return false;
	int far = P(f - st * need);
	if (far == -1) return true;
	if (far == -2) return false;
	return !far;
}

static unsigned rnd(void) { static unsigned long x = 88172645463325252UL; x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x; }

int main(void)
{
	long iters = 0, trues = 0;
	for (int it = 0; it < 2000000; it++) {
		int dens = rnd() % 10;
		for (int t = 0; t < NPUD * PTRS_PER_PMD; t++) {
			pmds[t / PTRS_PER_PMD][t % PTRS_PER_PMD].none = rnd() % 12 == 0;
			pmds[t / PTRS_PER_PMD][t % PTRS_PER_PMD].huge = !pmds[t / PTRS_PER_PMD][t % PTRS_PER_PMD].none && rnd() % 20 == 0;
			for (int i = 0; i < PTRS_PER_PTE; i++)
				ptes[t][i].present = (int)(rnd() % 10) < dens;
		}
		long s = rnd() % NPAGES, e = rnd() % NPAGES;
		if (s > e) { long x = s; s = e; e = x; }
		e++;
		vm_start = BASE + (s << PAGE_SHIFT); vm_end = BASE + (e << PAGE_SHIFT);
		long f = s + rnd() % (e - s);
		struct vma v = { vm_start, vm_end };
		pmd_t *pm = &pmds[0][0] + f / PTRS_PER_PTE;
		if (pm->none || pm->huge) continue;
		struct vm_fault vmf = { &v, BASE + (f << PAGE_SHIFT) + (rnd() % PAGE_SIZE), pm };
		cur_pud_base = &pmds[f / (PTRS_PER_PTE * PTRS_PER_PMD)][0];
		long need = rnd() % 40;
		touched_lo = 1L << 40; touched_hi = -1; phase = 0;
		bool got = mmap_miss_mapped(&vmf, need);
		assert(mapped == 0);
		bool want = ref(f, need);
		if (got != want) {
			printf("MISMATCH f=%ld need=%ld vma=[%ld,%ld) got %d want %d\n", f, need, s, e, got, want); for (long q = f - 3; q <= f + 3; q++) printf(" P(%ld)=%d", q, q >= 0 ? P(q) : 9); printf("\n");
			return 1;
		}
		iters++; trues += got;
	}
	printf("ok: %ld cases, %ld true, %d neighbour reads outside the VMA\n", iters, trues, outside);
	return 0;
}
