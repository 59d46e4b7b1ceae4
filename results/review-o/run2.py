import sys, random; sys.path.insert(0, __import__('os').path.dirname(__import__('os').path.abspath(__file__)))
from sim import *
L = 16384; B = 1 << 16
def mk(**kw):
    s = Sim(1 << 18, **kw); s.miss = 1000; return s
print("readers taking turns over reclaimed data (shadows) with cached islands left by earlier lookups")
for isl, every in ((1, 64), (1, 16), (32, 256), (32, 128), (8, 40)):
    for down in (False, True):
        res = []
        for ht in (True, False):
            s = mk(hole_test=ht)
            for i in range(B, B + L): s.cache[i] = 1
            for a in range(B + every // 2, B + L, every):
                for j in range(a, a + isl): s.cache[j] = 2
            streams(s, B, L, 4, down)
            res.append(s.major)
        s = mk(series=False)
        for i in range(B, B + L): s.cache[i] = 1
        for a in range(B + every // 2, B + L, every):
            for j in range(a, a + isl): s.cache[j] = 2
        streams(s, B, L, 4, down)
        print(f" island {isl:2d} pages every {every:3d}, {'down' if down else 'up  '}: series {res[0]:5d}, no hole test {res[1]:5d}, 7.3-rc7 {s.major:5d}")
