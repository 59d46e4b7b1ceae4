/*
 * User-space model of mmap_miss_mapped() from 2/6, copied statement by
 * statement, on a toy page table: PTRS_PER_PTE entries a table, PTRS_PER_PMD
 * tables a PMD table (PUD region).  PTRS_PER_PMD=1 models a folded PMD.
 * Checks: every pte pointer dereferenced lies in a mapped table and matches
 * the address being walked; map/unmap pair; result equals a reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <assert.h>

#ifndef PTRS_PER_PTE
#define PTRS_PER_PTE 16
#endif
#ifndef PTRS_PER_PMD
#define PTRS_PER_PMD 8
#endif
#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define PMD_SHIFT (PAGE_SHIFT + __builtin_ctz(PTRS_PER_PTE))
#define PUD_SHIFT (PMD_SHIFT + __builtin_ctz(PTRS_PER_PMD))
#define PUD_MASK (~((1UL << PUD_SHIFT) - 1))
#define NPUD 4			/* PUD regions modelled */
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))

typedef struct { int present; unsigned long addr; } pte_t;
typedef struct { pte_t *table; int huge; } pmd_t;

static pmd_t pmds[NPUD][PTRS_PER_PMD];
static pte_t tables[NPUD][PTRS_PER_PMD][PTRS_PER_PTE];
static int mapped;		/* tables mapped now */
static pte_t *cur_table;	/* the one mapped */

static unsigned long pte_index(unsigned long a) { return (a >> PAGE_SHIFT) & (PTRS_PER_PTE - 1); }
static unsigned long pmd_index(unsigned long a) { return (a >> PMD_SHIFT) & (PTRS_PER_PMD - 1); }

static pte_t *pte_offset_map(pmd_t *pmd, unsigned long a)
{
	/* pmd must be the entry for a */
	unsigned long pud = a >> PUD_SHIFT;
	assert(pud < NPUD);
	assert(pmd == &pmds[pud][pmd_index(a)]);
	if (!pmd->table || pmd->huge)
		return NULL;
	assert(mapped == 0);
	mapped++;
	cur_table = pmd->table;
	return pmd->table + pte_index(a);
}
static void pte_unmap(pte_t *pte)
{
	assert(mapped == 1);
	assert(pte >= cur_table && pte < cur_table + PTRS_PER_PTE);
	mapped--;
}
static int pte_present(pte_t *p)
{
	assert(mapped == 1);
	assert(p >= cur_table && p < cur_table + PTRS_PER_PTE);
	return p->present;
}
#define ptep_get_lockless(p) (p)
static int pmd_none(pmd_t *p) { return !p->table && !p->huge; }
#define pmdp_get_lockless(p) (p)

struct vma { unsigned long vm_start, vm_end; };
struct vm_fault { unsigned long address; pmd_t *pmd; struct vma *vma; };
static unsigned long last_walked, xing[2];

static bool mmap_miss_mapped(struct vm_fault *vmf, unsigned long need)
{
	unsigned long addr = vmf->address & PAGE_MASK, n;
	pte_t *pte = pte_offset_map(vmf->pmd, addr);
	unsigned long lo = max(vmf->vma->vm_start, addr & PUD_MASK);
	unsigned long hi = min(vmf->vma->vm_end - 1, addr | ~PUD_MASK);
	pmd_t *pmd = vmf->pmd;
	long step;

	if (!pte)
		return false;
	n = pte_index(addr);	/* the neighbours, in this table */
	step = n + 1 < PTRS_PER_PTE && pte_present(ptep_get_lockless(pte + 1));
	step -= n && pte_present(ptep_get_lockless(pte - 1));
	if (!step || min(hi - addr, addr - lo) >> PAGE_SHIFT < need) {
		pte_unmap(pte);
		return false;
	}
	for (n = 0; n < need; n++) {
		addr += step * PAGE_SIZE;
		if (pte_index(addr) != (step > 0 ? 0 : PTRS_PER_PTE - 1)) {
			pte += step;
		} else {
			pte_unmap(pte);
			pmd += step; xing[step > 0]++;
			pte = pte_offset_map(pmd, addr);
			if (!pte)
				return false;
		}
		assert(pte->addr == addr);	/* the entry for this address */
		assert(addr >= vmf->vma->vm_start && addr < vmf->vma->vm_end);
		if (!pte_present(ptep_get_lockless(pte)))
			break;
	}
	pte_unmap(pte);
	if (n < need)
		return false;
	addr -= 2 * step * need * PAGE_SIZE;
	assert(addr >= vmf->vma->vm_start && addr < vmf->vma->vm_end);
	last_walked = addr;
	pmd = vmf->pmd - pmd_index(vmf->address) + pmd_index(addr);
	pte = pte_offset_map(pmd, addr);
	if (!pte)
		return pmd_none(pmdp_get_lockless(pmd));
	assert(pte->addr == addr);
	n = pte_present(ptep_get_lockless(pte));
	pte_unmap(pte);
	return !n;
}

/* reference: by address, no pointers */
static int present_at(unsigned long a, int *tbl_missing, int *huge)
{
	pmd_t *p = &pmds[a >> PUD_SHIFT][pmd_index(a)];
	*tbl_missing = !p->table && !p->huge;
	*huge = p->huge;
	if (!p->table || p->huge)
		return -1;
	return p->table[pte_index(a)].present;
}
static bool reference(unsigned long addr, struct vma *v, unsigned long need)
{
	int tm, hg, l, r, s, i;
	unsigned long lo = max(v->vm_start, addr & PUD_MASK), hi = min(v->vm_end - 1, addr | ~PUD_MASK);
	if (present_at(addr, &tm, &hg) < 0)
		return false;
	r = pte_index(addr) + 1 < PTRS_PER_PTE && present_at(addr + PAGE_SIZE, &tm, &hg) == 1;
	l = pte_index(addr) && present_at(addr - PAGE_SIZE, &tm, &hg) == 1;
	s = r - l;
	if (!s || min(hi - addr, addr - lo) / PAGE_SIZE < need)
		return false;
	for (i = 1; i <= (int)need; i++)
		if (present_at(addr + s * (long)i * PAGE_SIZE, &tm, &hg) != 1)
			return false;
	i = present_at(addr - s * (long)need * PAGE_SIZE, &tm, &hg);
	if (i < 0)
		return tm;
	return !i;
}

int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], 0, 0) : 200000, it, trues = 0, crossings = 0;
	unsigned long base = 1UL << PUD_SHIFT;	/* start at PUD region 1 */
	srand(1);
	for (it = 0; it < iters; it++) {
		int p, m, e;
		double dens = (rand() % 100) / 100.0;
		for (p = 0; p < NPUD; p++)
			for (m = 0; m < PTRS_PER_PMD; m++) {
				int kind = rand() % 20;
				pmds[p][m].table = kind == 0 ? NULL : tables[p][m];
				pmds[p][m].huge = kind == 1;
				for (e = 0; e < PTRS_PER_PTE; e++) {
					tables[p][m][e].addr = ((unsigned long)p << PUD_SHIFT) + ((unsigned long)m << PMD_SHIFT) + ((unsigned long)e << PAGE_SHIFT);
					tables[p][m][e].present = (rand() % 1000) < dens * 1000;
				}
			}
		/* runs: make long present runs sometimes */
		if (rand() & 1) {
			unsigned long s = base + (rand() % (2 * PTRS_PER_PMD * PTRS_PER_PTE)) * PAGE_SIZE;
			unsigned long len = rand() % (3 * PTRS_PER_PTE), a;
			for (a = s; a < s + len * PAGE_SIZE && a < (NPUD << PUD_SHIFT); a += PAGE_SIZE) {
				pmd_t *pp = &pmds[a >> PUD_SHIFT][pmd_index(a)];
				if (pp->table) pp->table[pte_index(a)].present = 1;
			}
		}
		struct vma v;
		unsigned long span = (unsigned long)NPUD << PUD_SHIFT;
		v.vm_start = (rand() % (span / PAGE_SIZE)) * PAGE_SIZE;
		v.vm_end = v.vm_start + (1 + rand() % (span / PAGE_SIZE - v.vm_start / PAGE_SIZE)) * PAGE_SIZE;
		unsigned long addr = v.vm_start + (rand() % ((v.vm_end - v.vm_start) / PAGE_SIZE)) * PAGE_SIZE;
		struct vm_fault vmf = { addr, &pmds[addr >> PUD_SHIFT][pmd_index(addr)], &v };
		unsigned long need = 1 + rand() % (2 * PTRS_PER_PTE + 3);
		bool got = mmap_miss_mapped(&vmf, need), want = reference(addr, &v, need);
		assert(mapped == 0);
		if (got != want) {
			printf("MISMATCH it %lu addr %lx need %lu got %d want %d\n", it, addr, need, got, want);
			return 1;
		}
		trues += got;
		if (got && (last_walked >> PMD_SHIFT) != (addr >> PMD_SHIFT))
			crossings++;
	}
	printf("PTRS_PER_PTE %d PTRS_PER_PMD %d: %lu cases, %lu true (%lu across tables), crossings down %lu up %lu, all match, map/unmap paired, no out-of-table access\n",
	       PTRS_PER_PTE, PTRS_PER_PMD, iters, trues, crossings, xing[0], xing[1]);
	return 0;
}
