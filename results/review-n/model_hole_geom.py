#!/usr/bin/env python3
"""hole_in_cached_stays_cheap's geometry in the model of model.py:
off = size/2 + 4w (VA base PMD-aligned, as thp_get_unmapped_area() gives
ext4/xfs mappings), hole = off + 2w, misses at hole and hole + w - 1 page.
Pages cached in the hole with and without the refault check."""
from model import Model, stuck, PTRS_PER_PTE

def run(ra_kb, refault_check):
    w = ra_kb // 4                       # window in pages, read-around size
    m = Model(ra_pages=w, refault_check=refault_check, vma_pages=1 << 28)
    half = 1 << 27                       # size/2 in pages: 512 GiB
    off = half + 4 * w
    for j in range(off, off + 5 * w):
        m.add(j)
    for j in range(off, off + 5 * w):
        m.access(j)
    h = off + 2 * w
    for j in range(h, h + w):
        del m.cache[j]
        m.pte.discard(j)
        m.shadow.add(j)
    stuck(m, half + 16 * w, gap=4 * w)
    m.access(h)
    m.access(h + w - 1)
    return h % PTRS_PER_PTE, sum(1 for j in range(h, h + w) if j in m.cache)

print("read_ahead_kb  pte_index(hole)  cached in hole: with check / without")
for kb in (128, 256, 512, 640, 1024, 2048, 2560, 4096, 8192):
    idx, a = run(kb, True)
    _, b = run(kb, False)
    verdict = "catches the bug" if b > 2 else "CANNOT FAIL"
    print(f"{kb:13}  {idx:15}  {a:6} / {b:6}   {verdict}")
