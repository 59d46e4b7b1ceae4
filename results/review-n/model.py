#!/usr/bin/env python3
"""
User-space model of the mmap fault path of mm/filemap.c with patches 1 and 2
(4 KiB folios, nr = 1, one VMA from virtual page 0 = file page 0).

Models: do_fault_around() (16-page aligned block, within the PTE table),
filemap_map_pages() hits (not for FAULT_FLAG_TRIED, folios with PG_readahead
skipped), filemap_fault() minor path with do_async_mmap_readahead(), major
path with do_sync_mmap_readahead() incl. mmap_miss_run()/mmap_miss_mapped(),
the VM_FAULT_RETRY retry (FAULT_FLAG_TRIED) that maps the page, and
page_cache_async_ra() (expected-index ramp-up, else page_cache_next_miss).
Shadow entries: a set of indices; xa_is_value(xa_load()) == index in shadows.
Not modelled: large folios from async ra (order += 2), I/O timing, reclaim.
"""
import sys

PTRS_PER_PTE = 512
PUD_PAGES = 512 * 512
FA = 16                  # fault_around_bytes 64 KiB
LOTSAMISS = 100


class Model:
    def __init__(self, ra_pages=32, vma_pages=1 << 22, refault_check=True,
                 patch2=True):
        self.ra_pages = ra_pages
        self.vma = (0, vma_pages)          # [start, end) in pages
        self.cache = {}                    # index -> PG_readahead
        self.shadow = set()
        self.pte = set()
        self.start = 0
        self.size = 0
        self.async_size = 0
        self.mmap_miss = 0
        self.major = 0
        self.refault_check = refault_check
        self.patch2 = patch2
        self.walked = 0                    # PTEs read by mmap_miss_mapped

    # ---- page cache -------------------------------------------------
    def add(self, i, mark=False):
        if i in self.cache:
            return False
        self.cache[i] = mark
        self.shadow.discard(i)
        return True

    def ra_read(self, start, size, async_size):
        mark = start + size - async_size
        # page_cache_ra_order(): stops at the first cached folio, then the
        # fallback page_cache_ra_unbounded() skips cached ones; both mark
        # 'mark' if they add it.
        for j in range(max(0, start), start + size):
            self.add(j, j == mark and async_size > 0)

    # ---- fault-around -----------------------------------------------
    def fault_around(self, i, tried):
        lo = max(i // FA * FA, i // PTRS_PER_PTE * PTRS_PER_PTE, self.vma[0])
        hi = min(lo + FA, (i // PTRS_PER_PTE + 1) * PTRS_PER_PTE, self.vma[1])
        hit = False
        for j in range(lo, hi):
            if j in self.pte:
                continue
            if j in self.cache and not self.cache[j]:
                self.pte.add(j)
                if j == i:
                    hit = True
        if hit and not tried and self.mmap_miss:
            self.mmap_miss -= 1
        return i in self.pte

    # ---- patch 2 --------------------------------------------------------
    def present(self, i, d):
        t = i % PTRS_PER_PTE + d
        if not (0 <= t < PTRS_PER_PTE):
            return False
        self.walked += 1
        return (i + d) in self.pte

    def mmap_miss_mapped(self, i, need):
        lo = max(self.vma[0], i // PUD_PAGES * PUD_PAGES)
        hi = min(self.vma[1] - 1, (i // PUD_PAGES + 1) * PUD_PAGES - 1)
        step = int(self.present(i, 1)) - int(self.present(i, -1))
        if not step or (hi - i if step > 0 else i - lo) < need:
            return False
        a = i
        n = 0
        while n < need:
            a += step
            self.walked += 1
            if a not in self.pte:
                break
            n += 1
        if n != need:
            return False
        return not (self.refault_check and i in self.shadow)

    # ---- patch 1 --------------------------------------------------------
    def mmap_miss_run(self, i):
        nr = 1
        start, end = self.start, self.start + self.size
        self.async_size = 0
        if i >= end and i - end <= nr:
            self.size = i + nr - start
        elif i < start and start - i <= 2 * nr:
            self.start = i
            self.size = end - i
        else:
            self.start, self.size = i, nr
            if not self.patch2:
                return False
            return self.mmap_miss_mapped(i, self.ra_pages + 2 * nr)
        return self.size > self.ra_pages // 4

    # ---- readahead --------------------------------------------------
    def async_ra(self, i):
        self.cache[i] = False
        maxp = self.ra_pages
        if i == self.start + self.size - self.async_size:
            self.start += self.size
            s = self.size
            self.size = max(s, 4 * s if s < maxp // 16 else
                            (2 * s if s <= maxp // 2 else maxp))
        else:
            j = i + 1
            while j in self.cache and j - i <= maxp:
                j += 1
            if j - i > maxp:
                return
            self.start = j
            s = j - i + 1
            self.size = 4 * s if s < maxp // 16 else \
                (2 * s if s <= maxp // 2 else maxp)
        self.async_size = self.size
        self.ra_read(self.start, self.size, self.async_size)

    def sync_ra(self, i):
        if self.mmap_miss < LOTSAMISS * 10:
            self.mmap_miss += 1
        if self.mmap_miss > LOTSAMISS:
            if not self.mmap_miss_run(i):
                return
        self.start = max(0, i - self.ra_pages // 2)
        self.size = self.ra_pages
        self.async_size = self.ra_pages // 4
        self.ra_read(self.start, self.size, self.async_size)

    # ---- a touch of one page -------------------------------------------
    def access(self, i):
        if i in self.pte:
            return
        if self.fault_around(i, False):
            return
        if i in self.cache:                    # minor, filemap_fault
            if self.mmap_miss:
                self.mmap_miss -= 1
            if self.cache[i]:
                self.async_ra(i)
            self.pte.add(i)
            return
        self.major += 1
        self.sync_ra(i)
        self.add(i)
        # VM_FAULT_RETRY after the I/O; the retry is FAULT_FLAG_TRIED
        if not self.fault_around(i, True):
            self.pte.add(i)


def stuck(m, base, n=151, gap=4096):
    """Random misses far apart (each dropped) until mmap_miss is over."""
    for k in range(n):
        i = base + k * gap
        m.access(i)
    for i in list(m.cache):
        if base <= i < base + n * gap:
            del m.cache[i]
            m.pte.discard(i)
    assert m.mmap_miss > LOTSAMISS


def streams(shadows, refault_check=True, patch2=True, ra_pages=32,
            part=4096, nstreams=4):
    m = Model(ra_pages=ra_pages, refault_check=refault_check, patch2=patch2)
    stuck(m, 1 << 21)
    base = 1 << 20
    if shadows:
        m.shadow.update(range(base, base + nstreams * part))
    before = m.major
    for k in range(part):
        for s in range(nstreams):
            m.access(base + s * part + k)
    return m.major - before, m.walked


def lone_stream(shadows, down=False, ra_pages=32, n=4096):
    m = Model(ra_pages=ra_pages)
    stuck(m, 1 << 21)
    base = 1 << 20
    if shadows:
        m.shadow.update(range(base, base + n))
    before = m.major
    for k in range(n):
        m.access(base + (n - 1 - k if down else k))
    return m.major - before


def hole(refault_check, hole_pages=32, shadow_kept=True):
    """5 windows cached by read(2) and mapped, the middle one reclaimed."""
    m = Model(refault_check=refault_check)
    w = 32
    off = 1 << 20
    for j in range(off, off + 5 * w):
        m.add(j)
    for j in range(off, off + 5 * w):
        m.access(j)
    h = off + 2 * w
    for j in range(h, h + hole_pages):
        del m.cache[j]
        m.pte.discard(j)
        if shadow_kept:
            m.shadow.add(j)
    stuck(m, 1 << 21)
    m.access(h)
    m.access(h + hole_pages - 1)
    return sum(1 for j in range(h, h + hole_pages) if j in m.cache)


if __name__ == "__main__":
    print("four streams, 4 x 4096 pages, turn by turn, after getting stuck")
    for sh in (False, True):
        for rc in (True, False):
            f, w = streams(sh, rc)
            print(f"  shadows={sh!s:5} refault_check={rc!s:5}: "
                  f"{f:6} major faults, {w} PTE reads in mmap_miss_mapped")
    f, _ = streams(False, patch2=False)
    print(f"  patch 1 only, no shadows: {f} major faults")
    for ra in (32, 2048):
        f, w = streams(False, ra_pages=ra, part=16384)
        print(f"  ra_pages={ra}, 4 x 16384 pages, no shadows: {f} major "
              f"faults, {w} PTE reads")
    print("lone stream, 4096 pages (patch 1's run, shadows do not matter)")
    for sh in (False, True):
        print(f"  shadows={sh}: up {lone_stream(sh)}, down "
              f"{lone_stream(sh, True)}")
    print("hole of 32 pages in 5 cached+mapped windows, misses at both edges")
    for rc in (True, False):
        for kept in (True, False):
            print(f"  refault_check={rc!s:5} shadow kept={kept!s:5}: "
                  f"{hole(rc, shadow_kept=kept)} pages cached in the hole")
