# Shared helpers of the bench guest's python clients: counters that do not
# depend on timing (major faults of this process, pages read from the data
# disk) and the one-line JSON result the host parses (as workloads/common.c
# prints it).
import json
import os
import resource
import sys
import time

PAGE = os.sysconf("SC_PAGE_SIZE")
DISK = os.environ.get("BENCH_DISK", "vdb")


def dev_pages():
    # /sys/block/X/stat field 3: sectors read (512 bytes)
    with open(f"/sys/block/{DISK}/stat") as f:
        return int(f.read().split()[2]) * 512 // PAGE


def wait_for_reads(limit=10.0):
    """Wait until the data disk has no read in flight (readahead that a
    phase started but did not wait for), so that its pages are counted in
    that phase and not the next, and a total does not depend on timing."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        with open(f"/sys/block/{DISK}/inflight") as f:
            if int(f.read().split()[0]) == 0:
                return
        time.sleep(0.005)


def snap(end=False):
    """Counters at the start (end=False) or the end of a phase: the time
    is taken before waiting for reads in flight at the end, after it at
    the start."""
    t = time.monotonic() if end else None
    wait_for_reads()
    if t is None:
        t = time.monotonic()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_majflt, dev_pages(), t)


def drop_cache(path):
    """Cold start for PATH: its clean pages out of the page cache (no
    shadow entries, so the next faults are not refaults)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def result(workload, phase, a, b, pages, **extra):
    r = {"workload": workload, "phase": phase, "pages": pages,
         "major_faults": b[0] - a[0], "dev_pages_read": b[1] - a[1],
         "seconds": round(b[2] - a[2], 3)}
    r.update(extra)
    if os.environ.get("BENCH_WARMUP"):
        r["warmup"] = 1
    print("@@RESULT " + json.dumps(r, separators=(",", ":")), flush=True)


def die(msg):
    print(f"@@LAB-ERROR {msg}", flush=True)
    sys.exit(1)
