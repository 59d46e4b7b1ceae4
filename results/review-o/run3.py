import sys, random; sys.path.insert(0, __import__('os').path.dirname(__import__('os').path.abspath(__file__)))
from sim import *
N = 1 << 17
print("random reader, file cached and mapped except holes; pages read per miss (1.0 = own page only)")
for hole_w in (8, 32, 64):
    for kind, name in ((1, 'reclaimed holes (shadow)'), (0, 'never-cached holes (NULL)')):
        for ht in (True, False):
            random.seed(1)
            s = Sim(N, hole_test=ht); s.miss = 1000
            for i in range(N): s.cache[i] = 2; s.pte[i] = 1
            holes = []
            for a in range(0, N - hole_w, hole_w * 8):
                for j in range(a + 1000 % hole_w, a + 1000 % hole_w + hole_w): s.cache[j] = kind; s.pte[j] = 0
            s.read = 0; s.major = 0
            for k in range(3000):
                s.fault(random.randrange(N))
            print(f" hole {hole_w:2d} pages, {name}, hole_test={ht}: {s.read / max(1, s.major):.2f} pages/miss over {s.major} misses")
print("room check: last of 4 readers up, VMA ends at the end of its part")
for ht in (True,):
    L = 16384; B = 1 << 16
    s = Sim(1 << 18, vma=(B, B + L)); s.miss = 1000
    streams(s, B, L, 4, False)
    print(" vma = the 4 parts exactly:", s.major)
    s = Sim(1 << 18, vma=(B - 64, B + L + 64)); s.miss = 1000
    streams(s, B, L, 4, False)
    print(" vma with 64 pages of room either side:", s.major)
