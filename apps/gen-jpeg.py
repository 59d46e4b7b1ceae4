#!/usr/bin/env python3
"""A photo-like picture for gm benchmark (make bench-apps), as binary PPM.

    gen-jpeg.py OUT.ppm WIDTHxHEIGHT

Smooth colour fields with texture and some noise, from a fixed seed, so
that its JPEG has a photo's size and the same bytes on every machine
(make-root.sh turns it into a JPEG with gm convert -quality 90).
"""
import sys

import numpy as np

out, geo = sys.argv[1], sys.argv[2]
w, h = (int(x) for x in geo.split("x"))
rng = np.random.default_rng(7)
y, x = np.mgrid[0:h, 0:w].astype(np.float32)
img = np.empty((h, w, 3), dtype=np.float32)
for c in range(3):
    f = np.zeros((h, w), dtype=np.float32)
    for k in range(6):
        fx, fy = rng.uniform(0.5, 12, 2).astype(np.float32) / max(w, h)
        ph = rng.uniform(0, 6.3)
        f += np.sin(2 * np.pi * (fx * x + fy * y) + ph) / (k + 1)
    img[..., c] = f
img -= img.min()
img *= 220.0 / img.max()
img += rng.normal(0, 6, img.shape).astype(np.float32)
img = np.clip(img, 0, 255).astype(np.uint8)
with open(out, "wb") as f:
    f.write(b"P6\n%d %d\n255\n" % (w, h))
    f.write(img.tobytes())
