#!/usr/bin/env python3
"""Four readers taking turns over 4 x 16384 pages whose shadows are all
present (a range read before and reclaimed): major faults and PTE reads
done by mmap_miss_mapped(), at read_ahead_kb 128 and 8192."""
from model import streams
for ra in (32, 2048):
    for sh in (False, True):
        f, w = streams(sh, ra_pages=ra, part=16384)
        print(f"read_ahead_kb {ra*4:5} shadows={sh!s:5}: {f:6} major faults, "
              f"{w:9} PTE reads, {w/f:7.1f} a fault")
