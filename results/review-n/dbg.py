from model import Model, stuck, PTRS_PER_PTE
w=32
m = Model(ra_pages=w, refault_check=False)
half = 1 << 27
off = half + 4 * w
for j in range(off, off + 5 * w): m.add(j)
for j in range(off, off + 5 * w): m.access(j)
h = off + 2 * w
for j in range(h, h + w):
    del m.cache[j]; m.pte.discard(j); m.shadow.add(j)
stuck(m, half + 16 * w, gap=4 * w)
print(m.mmap_miss, m.start, m.size)
m.access(h)
print(sorted(j-h for j in m.cache if h<=j<h+w), m.start-h, m.size)
print([(j-h) for j in range(h+w-3, h+w+3) if j in m.pte])
m.access(h + w - 1)
print(sorted(j-h for j in m.cache if h<=j<h+w))
i = h + w - 1
print("pte around", [(d, (i+d) in m.pte) for d in (-1, 1)])
print("mapped run above", next(k for k in range(1, 200) if (i+k) not in m.pte) - 1)
print(m.mmap_miss_mapped(i, 34))
from model import PUD_PAGES
lo = max(m.vma[0], i // PUD_PAGES * PUD_PAGES)
hi = min(m.vma[1] - 1, (i // PUD_PAGES + 1) * PUD_PAGES - 1)
print(m.vma, lo, hi, i)
