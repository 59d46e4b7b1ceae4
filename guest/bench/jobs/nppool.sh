#!/bin/sh
# A thread pool over one numpy.memmap after random reads, on the bench data
# disk (/mnt), read_ahead_kb 128: python3's numpy (Debian 12's
# python3-numpy) maps array.u8 once (one open, one mapping) from a cold
# cache, reads N random single elements, each on a page anywhere in the
# file, then a concurrent.futures.ThreadPoolExecutor of WORKERS threads
# sums the first SCAN_MIB MiB in CHUNK_MIB MiB chunks in order
# (pool.map(lambda i: int(a[i*C:(i+1)*C].sum()), range(n))): numpy
# releases the GIL in the reduction, so the threads' faults take turns on
# the one open file, the case of the series' patch 2.
#   nppool.sh [REPS [NS [CHUNK_MIB [SCAN_MIB [WORKERS [RANDOM_FROM_MIB]]]]]]
# REPS (default 2) runs of each case after one warm-up run (marked
# "warmup", 10 random reads and 16 MiB); NS: random read counts,
# colon-separated (default 0:1000; 0 is the control); RANDOM_FROM_MIB
# (default 0): the random reads only from there to the end of the file
# (with SCAN_MIB up to it: random reads away from the scan, a diagnostic
# case). Each case prints an @@RESULT line for its random phase and one
# for its scan: the process's major and minor faults
# (getrusage(RUSAGE_SELF) deltas), the pages read from /dev/vdb (sectors
# read / 8, once its reads in flight are done) and seconds, with how the
# chunks overlapped in time (max_inflight: most chunks being summed at
# once; overlap: the share of the scan's time with two or more) and each
# chunk's major faults (its thread's RUSAGE_THREAD delta), so that a scan
# whose threads did not take turns shows.
# The program is written to /tmp (tmpfs) from this file: the root holds no
# other part of it.
reps=${1:-2} ns=${2:-0:1000} chunk=${3:-4} scan=${4:-256} workers=${5:-4} rfrom=${6:-0}
cd /mnt || exit 1
echo 128 > /sys/block/vdb/queue/read_ahead_kb || exit 1
prog=/tmp/nppool.py
cat > "$prog" <<'PY' || exit 1
import concurrent.futures
import json
import os
import resource
import sys
import threading
import time

import numpy as np

PAGE = os.sysconf("SC_PAGE_SIZE")
DISK = os.environ.get("BENCH_DISK", "vdb")
MIB = 1 << 20


def die(msg):
    print(f"@@LAB-ERROR nppool: {msg}", flush=True)
    sys.exit(1)


def dev_pages():
    # /sys/block/X/stat field 3: sectors read (512 bytes)
    with open(f"/sys/block/{DISK}/stat") as f:
        return int(f.read().split()[2]) * 512 // PAGE


def wait_for_reads(limit=60.0):
    # readahead a phase started and did not wait for is that phase's
    end = time.monotonic() + limit
    while time.monotonic() < end:
        with open(f"/sys/block/{DISK}/inflight") as f:
            if int(f.read().split()[0]) == 0:
                return
        time.sleep(0.005)
    die(f"reads still in flight on {DISK} after {limit} s")


def snap(end=False):
    # time before waiting for reads in flight at the end, after at the start
    t = time.monotonic() if end else None
    wait_for_reads()
    if t is None:
        t = time.monotonic()
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_majflt, ru.ru_minflt, dev_pages(), t


def result(phase, a, b, pages, **extra):
    r = {"workload": "nppool", "phase": phase, "pages": pages,
         "major_faults": b[0] - a[0], "minor_faults": b[1] - a[1],
         "dev_pages_read": b[2] - a[2], "seconds": round(b[3] - a[3], 3)}
    r.update(extra)
    if os.environ.get("BENCH_WARMUP"):
        r["warmup"] = 1
    print("@@RESULT " + json.dumps(r, separators=(",", ":")), flush=True)


def cold(path):
    # NPPOOL_DROP=fadvise (a test outside the guest): only this file's
    # pages, else all clean caches, as the brief of this job asks
    os.sync()
    if os.environ.get("NPPOOL_DROP") == "fadvise":
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
    else:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")


def overlap(spans):
    """(most chunks in flight at once, share of the time with two or more)"""
    ev = sorted([(t0, 1) for t0, _ in spans] + [(t1, -1) for _, t1 in spans])
    cur = most = 0
    two = 0.0
    last = ev[0][0]
    for t, d in ev:
        if cur >= 2:
            two += t - last
        last = t
        cur += d
        most = max(most, cur)
    whole = ev[-1][0] - ev[0][0]
    return most, round(two / whole, 3) if whole > 0 else 0.0


if len(sys.argv) != 8:
    die("usage: nppool.py FILE N SEED CHUNK_MIB SCAN_MIB WORKERS RANDOM_FROM_MIB")
path = sys.argv[1]
n, seed, chunk_mib, scan_mib, workers, rfrom_mib = map(int, sys.argv[2:])
if not os.path.isfile(path):
    die(f"no array file {path}")
size = os.path.getsize(path)
if not 0 < scan_mib <= 512 or chunk_mib <= 0 or workers <= 0:
    die(f"bad sizes: scan {scan_mib} MiB (at most 512), chunk {chunk_mib} MiB, "
        f"{workers} workers")
C = chunk_mib * MIB
nch = min(scan_mib * MIB, size) // C
if os.environ.get("BENCH_WARMUP"):
    nch = min(nch, max(1, 16 * MIB // C))
if nch == 0:
    die(f"{path} holds {size} bytes, less than one chunk of {C}")
npages = size // PAGE
rfrom = rfrom_mib * MIB // PAGE
if not 0 <= rfrom < npages:
    die(f"random reads from {rfrom_mib} MiB: past the file's {size} bytes")

# the pool and its threads first, and the reduction's code paged in, on an
# anonymous array: the scan's faults are then those of the file
pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers)
z = np.ones(2 * workers * 16 * PAGE, dtype=np.uint8)
zc = 16 * PAGE
if sum(pool.map(lambda i: int(z[i * zc:(i + 1) * zc].sum()), range(2 * workers))) != z.size:
    die("the warm-up sum is wrong")
del z

cold(path)
a = np.memmap(path, dtype=np.uint8, mode="r")
rng = np.random.default_rng(seed)
s0 = snap()
acc = 0
for p in rng.integers(rfrom, npages, size=n):
    acc += int(a[int(p) * PAGE])
s1 = snap(end=True)
result("random", s0, s1, npages - rfrom, n=n, seed=seed, random_from_page=rfrom)

spans = [None] * nch
chunk_majflt = [None] * nch
tids = set()


def work(i):
    # the brief's int(a[i*C:(i+1)*C].sum()), timed, with its thread's faults
    m0 = resource.getrusage(resource.RUSAGE_THREAD).ru_majflt
    t0 = time.monotonic()
    s = int(a[i * C:(i + 1) * C].sum())
    t1 = time.monotonic()
    chunk_majflt[i] = resource.getrusage(resource.RUSAGE_THREAD).ru_majflt - m0
    spans[i] = (t0, t1)
    tids.add(threading.get_ident())
    return s


s0 = snap()
sums = list(pool.map(work, range(nch)))
s1 = snap(end=True)
pool.shutdown()
if len(sums) != nch or None in spans:
    die(f"the pool summed {len(sums)} of {nch} chunks")
most, two = overlap(spans)
result("scan", s0, s1, nch * C // PAGE, n=n, seed=seed, chunk_mib=chunk_mib,
       chunks=nch, workers=workers, threads=len(tids), max_inflight=most,
       overlap=two, checksum=sum(sums), chunk_major_faults=chunk_majflt,
       file_pages=npages, random_from_page=rfrom, numpy=np.__version__,
       python=".".join(map(str, sys.version_info[:3])))
PY
fail=0
run() { echo "@@RUN $*"; "$@" || { echo "@@LAB-ERROR workload failed: $*"; fail=1; }; }
echo "@@BENCH nppool reps=$reps ns=$ns chunk_mib=$chunk scan_mib=$scan workers=$workers random_from_mib=$rfrom read_ahead_kb=$(cat /sys/block/vdb/queue/read_ahead_kb) mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo) cpus=$(nproc)"
export BENCH_WARMUP=1
run python3 "$prog" array.u8 10 999 "$chunk" "$scan" "$workers" "$rfrom"
unset BENCH_WARMUP
r=0
while [ $r -lt "$reps" ]; do
	for n in $(echo "$ns" | tr : ' '); do
		run python3 "$prog" array.u8 "$n" $((100 + r)) "$chunk" "$scan" "$workers" "$rfrom"
	done
	r=$((r + 1))
done
exit $fail
