import sys; sys.path.insert(0, __import__('os').path.dirname(__import__('os').path.abspath(__file__)))
from sim import *
L = 16384; B = 1 << 16
def mk(**kw):
    s = Sim(1 << 18, **kw); s.miss = 1000; return s
for down in (False, True):
    for state, name in ((0, 'never cached'), (1, 'reclaimed (shadows)')):
        for ht in (True, False):
            s = mk(hole_test=ht)
            for i in range(B, B + L): s.cache[i] = state
            streams(s, B, L, 4, down)
            print(f"4 streams {'down' if down else 'up'}, {name}, hole_test={ht}: major={s.major}")
s = mk(series=False)
streams(s, B, L, 4, False); print("4 streams up, base kernel:", s.major)
s = Sim(1 << 18); streams(s, B, L, 4, False); print("4 streams up, control (mmap_miss 0):", s.major)
