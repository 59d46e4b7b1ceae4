# User-space model of do_sync_mmap_readahead() + patches 1/2 (small folios, nr=1),
# fault-around (16 pages), async readahead.  Page cache: 0 none, 1 shadow, 2 cached.
import random
LOTSA = 100
class Sim:
    def __init__(s, npages, ra_pages=32, fa=16, hole_test=True, series=True, vma=None):
        s.N = npages; s.RA = ra_pages; s.FA = fa
        s.cache = bytearray(npages); s.mark = bytearray(npages); s.pte = bytearray(npages)
        s.start = 0; s.size = 0; s.async_ = 0; s.miss = 0
        s.major = 0; s.read = 0; s.hole_test = hole_test; s.series = series
        s.vma = vma or (0, npages)          # [lo, hi) in pages, one VMA, pgoff == addr
        s.PUD = 512 * 512
    def readpages(s, a, b, markat=None):
        for i in range(max(a, 0), min(b, s.N)):
            if s.cache[i] != 2:
                s.cache[i] = 2; s.read += 1
                if i == markat: s.mark[i] = 1
    def faultaround(s, i):
        a = i - i % s.FA
        for j in range(a, min(a + s.FA, s.N)):
            if s.cache[j] == 2 and not s.mark[j]:
                s.pte[j] = 1
    def next_size(s, cur):
        mx = s.RA
        if cur < mx // 16: return 4 * cur
        if cur <= mx // 2: return 2 * cur
        return mx
    def mapped(s, i, need):
        lo = max(s.vma[0], i - i % s.PUD); hi = min(s.vma[1] - 1, i - i % s.PUD + s.PUD - 1)
        left = i % 512 != 0 and s.pte[i - 1]
        right = i % 512 != 511 and i + 1 < s.N and s.pte[i + 1]
        step = int(bool(right)) - int(bool(left))
        if not step or min(hi - i, i - lo) < need: return False
        n = 0
        while n < need:
            if not s.pte[i + step * (n + 1)]: break
            n += 1
        if n < need or s.cache[i] != 1 or not s.hole_test: return n == need
        return s.cache[i - step * need] != 2
    def run(s, i):
        nr = 1; start = s.start; end = s.start + s.size
        s.async_ = 0
        if i >= end and i - end <= nr:
            s.start = start; s.size = i + nr - start
        elif i < start and start - i <= 2 * nr:
            s.start = i; s.size = end - i
        else:
            s.start = i; s.size = nr
            return s.mapped(i, s.RA + 2 * nr)
        return s.size > s.RA // 4
    def fault(s, i):
        if s.pte[i]: return
        if s.cache[i] == 2 and not s.mark[i]:
            s.faultaround(i)
            if s.miss: s.miss -= 1           # filemap_map_hit
            return
        if s.cache[i] == 2:                 # PG_readahead: async
            s.faultaround(i)
            if s.miss: s.miss -= 1
            s.mark[i] = 0
            if i == s.start + s.size - s.async_:
                s.start += s.size; s.size = max(s.size, s.next_size(s.size))
            else:
                j = i + 1
                while j < s.N and s.cache[j] == 2 and j - i <= s.RA: j += 1
                if j - i > s.RA: s.pte[i] = 1; return
                s.start = j; s.size = s.next_size(j - i + s.RA)
            s.async_ = s.size
            s.readpages(s.start, s.start + s.size, s.start)
            s.pte[i] = 1
            return
        s.major += 1
        if s.miss < 10 * LOTSA: s.miss += 1
        around = True
        if s.miss > LOTSA:
            around = s.series and s.run(i)
        if around:
            s.start = max(0, i - s.RA // 2); s.size = s.RA; s.async_ = s.RA // 4
            s.readpages(s.start, s.start + s.size, s.start + s.size - s.async_)
        s.readpages(i, i + 1)
        s.faultaround(i)                    # the retry, FAULT_FLAG_TRIED: no hit
        s.pte[i] = 1

def streams(sim, base, length, nstreams, down):
    part = length // nstreams
    for k in range(part):
        for t in range(nstreams):
            off = base + t * part + (part - 1 - k if down else k)
            sim.fault(off)
