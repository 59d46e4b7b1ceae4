"""Model of the mmap fault / readahead / mmap_miss paths (order-0 folios,
nr = 1, one VMA mapping the whole file from a PMD-aligned address, I/O
completing before the retry).  patch=0: 7.3-rc7, 1: with 1/6, 2: with 1/6+2/6."""
import random
from collections import OrderedDict

LOTSAMISS = 100
PTRS = 512          # PTEs a table
PUD = 512 * 512     # pages a PUD

class Sim:
    def __init__(self, npages, ra_pages=32, fa=16, patch=2, capacity=None):
        self.n = npages; self.patch = patch; self.fa = fa
        self.cache = OrderedDict()   # idx -> PG_readahead (LRU order)
        self.mapped = set(); self.tables = set()
        self.start = 0; self.size = 0; self.async_size = 0
        self.ra_pages = ra_pages; self.mmap_miss = 0
        self.cap = capacity
        self.major = 0; self.read = 0; self.walks = 0; self.walk_entries = 0
        self.miss_ra = 0

    # ---- page cache
    def add(self, j, flag):
        self.cache[j] = flag; self.read += 1
        if self.cap and len(self.cache) > self.cap:
            old, _ = self.cache.popitem(last=False)
            self.mapped.discard(old)
    def touch(self, j):
        if j in self.cache: self.cache.move_to_end(j)
    def ra_range(self, start, size, async_size):
        limit = min(self.n - 1, start + size - 1)
        mark = start + size - async_size if self.n - 1 > start + size - 1 else None
        if async_size == 0: mark = None
        for j in range(max(0, start), limit + 1):
            if j not in self.cache:
                self.add(j, j == mark)

    # ---- readahead
    def next_ra_size(self, cur, mx):
        if cur < mx // 16: return 4 * cur
        if cur <= mx // 2: return 2 * cur
        return mx
    def async_ra(self, i):
        self.cache[i] = False
        mx = self.ra_pages
        if i == self.start + self.size - self.async_size:
            self.start += self.size
            self.size = max(self.size, self.next_ra_size(self.size, mx))
        else:
            s = i + 1
            while s < i + 1 + mx and s in self.cache: s += 1
            if s - i > mx: return
            self.start = s; self.size = s - i + self.ra_pages
            self.size = self.next_ra_size(self.size, mx)
        self.async_size = self.size
        self.ra_range(self.start, self.size, self.async_size)

    def present(self, j):
        return j in self.mapped
    def mapped_walk(self, i, need):       # mmap_miss_mapped(), as the spec
        t = i // PTRS
        if t not in self.tables: return False
        lo = max(0, i // PUD * PUD); hi = min(self.n - 1, i // PUD * PUD + PUD - 1)
        up = (i % PTRS) != PTRS - 1 and self.present(i + 1)
        down = (i % PTRS) != 0 and self.present(i - 1)
        if up == down or min(hi - i, i - lo) < need: return False
        st = 1 if up else -1
        self.walks += 1
        for k in range(1, need + 1):
            j = i + st * k
            if j // PTRS not in self.tables: return False
            self.walk_entries += 1
            if not self.present(j): return False
        f = i - st * need
        if f // PTRS not in self.tables: return True
        return not self.present(f)
    def miss_run(self, i):
        nr = 1
        first = self.start; start = first; end = first + self.size
        self.async_size = 0
        if i >= end and i - end <= nr:
            self.start = start; self.size = i + nr - start
        elif i < start and start - i <= 2 * nr:
            self.start = i; self.size = end - i
        else:
            self.start = i; self.size = nr
            return self.patch >= 2 and self.mapped_walk(i, self.ra_pages + 2 * nr)
        return self.size > self.ra_pages // 4
    def sync_ra(self, i):
        if not self.ra_pages: return
        mm = self.mmap_miss
        if mm < LOTSAMISS * 10:
            mm += 1; self.mmap_miss = mm
        if mm > LOTSAMISS:
            if self.patch == 0 or not self.miss_run(i): return
            self.miss_ra += 1
        self.start = max(0, i - self.ra_pages // 2); self.size = self.ra_pages
        self.async_size = self.ra_pages // 4
        self.ra_range(self.start, self.size, self.async_size)

    # ---- faults
    def fault_around(self, i, tried):
        off = i % PTRS
        frm = max((off // self.fa) * self.fa, off - min(off, i))
        to = min(frm + self.fa, PTRS, off + (self.n - i)) - 1
        base = i - off
        got = False; anything = False
        for o in range(frm, to + 1):
            j = base + o
            if j in self.cache and not self.cache[j]:
                anything = True
                if j not in self.mapped:
                    self.mapped.add(j); self.touch(j)
                    if j == i: got = True
        if anything: self.tables.add(i // PTRS)
        if got and not tried and self.mmap_miss:
            self.mmap_miss -= 1
        return got
    def access(self, i):
        if i in self.mapped:
            self.touch(i); return
        if self.fault_around(i, False): return
        self.tables.add(i // PTRS)
        if i in self.cache:
            if self.mmap_miss: self.mmap_miss -= 1
            if self.cache[i]: self.async_ra(i)
            self.mapped.add(i); self.touch(i); return
        self.major += 1
        self.sync_ra(i)
        if i not in self.cache: self.add(i, False)
        # I/O: the fault drops the lock and is retried with FAULT_FLAG_TRIED
        self.fault_around(i, True)
        self.mapped.add(i)
    def drop(self, lo, hi):
        for j in range(lo, hi):
            self.mapped.discard(j); self.cache.pop(j, None)

def get_stuck(s, at, step):
    left = -1; i = 0
    while left and i < 1000:
        before = s.read
        s.access(at)
        if left > 0: left -= 1
        elif s.read - before == 1: left = 50
        s.drop(at - step // 4, at + step // 4)
        at += step; i += 1
    return at
