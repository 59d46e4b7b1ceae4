#!/bin/sh
# make cost (scripts/cost.sh): instructions per fault, in a guest booted
# with QEMU's -icount shift=0,sleep=off, where a task's CPU time counts
# the guest instructions run for it (docs/cost.md). Every case is
# workloads/cost.c on sparse files of the cost disk's ext4 (nothing is
# read from the device), RUNS runs each, every run on a new open with the
# file's cache dropped, after one warm-up run (reported, not counted: the
# first run of a case starts from another state); each case starts after
# drop_caches.
#   cost.sh all|check [RUNS] [READS]
#   cost.sh ra KB [RUNS] [READS]
# all: every case; check: only the plain random reader (scripts/cost.sh
# check); ra: the plain random reader, next-to-run and holes at
# read_ahead_kb KB (the walk of the series' patch 2 is as long as the
# readahead window), by hand (docs/cost.md). READS: the random readers' reads per run (262144; the THP,
# memory cgroup and vm-scalability readers take a quarter or half of it).
part=${1:-all}
if [ "$part" = ra ]; then
	ra_kb=${2:?cost.sh ra KB}
	shift
fi
runs=${2:-3} reads=${3:-262144}
cd /mnt || exit 1
cg=/sys/fs/cgroup
cg_mib=128
fail=0
run() {
	echo "@@RUN $*"
	"$@" || { echo "@@LAB-ERROR workload failed: $*"; fail=1; }
}
# each case from the same start: no file cached but what booting cached
fresh() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
}
c() { fresh; run cost -u 1 -c "$runs" "$@"; }

if [ "$part" = ra ]; then
	c -w random-private-ra$ra_kb -m random -f sparse.bin -z 4096 -n "$reads" -k "$ra_kb"
	c -w next-to-run-ra$ra_kb -m next-to-run -f sparse.bin -n 8192 -b 8 -p 300 -k "$ra_kb"
	rm -f sparse.bin
	c -w holes-ra$ra_kb -m holes -f holes.bin -z 512 -n 4096 -p 150 -k "$ra_kb"
	rm -f holes.bin
	exit $fail
fi

# The plain random reader (the report behind 0b9c0aeba938): 4 GiB sparse
# file, MAP_PRIVATE, read_ahead_kb 128; mmap_miss passes the limit after
# about a hundred faults.
c -w random-private -m random -f sparse.bin -z 4096 -n "$reads" -k 128
[ "$part" = check ] && { rm -f sparse.bin; exit $fail; }
[ "$part" = all ] || { echo "@@LAB-ERROR cost.sh: no part '$part' (all, check)"; exit 1; }

c -w random-shared -m random -f sparse.bin -n "$reads" -k 128 -S
c -w random-thp -m random -f sparse.bin -n $((reads / 4)) -k 128 -H
# in a memory cgroup of 128 MiB: every fault past the first ones reclaims
# in the faulting task
if ! grep -q " $cg cgroup2 " /proc/mounts; then
	mount -t cgroup2 cgroup2 "$cg" || { echo "@@LAB-ERROR cannot mount cgroup2"; fail=1; }
fi
if grep -qw memory "$cg/cgroup.subtree_control" 2>/dev/null ||
   echo +memory > "$cg/cgroup.subtree_control"; then
	mkdir -p "$cg/cost" && echo $((cg_mib << 20)) > "$cg/cost/memory.max" &&
	fresh &&
	run sh -c "echo 0 > $cg/cost/cgroup.procs && exec cost -u 1 -c $runs -w random-memcg -m random -f sparse.bin -n $((reads / 4)) -k 128"
	# a file a little larger than the cgroup (132 MiB): once it is mostly
	# cached, a miss has cached pages mapped on both sides
	fresh &&
	run sh -c "echo 0 > $cg/cost/cgroup.procs && exec cost -u 1 -c $runs -w random-memcg-fit -m random -f fit.bin -z 132 -n $((reads * 2)) -k 128"
	rm -f fit.bin
	rmdir "$cg/cost" 2>/dev/null
else
	echo "@@LAB-ERROR no memory controller"
	fail=1
fi
# the probe's worst case: each miss (mmap_miss over the limit) lands just
# after a run of eight cached pages
c -w next-to-run -m next-to-run -f sparse.bin -n 8192 -b 8 -p 300 -k 128
# a random reader in a cached file with holes: 512 MiB read with read(2)
# (large folios) and mapped, a tenth reclaimed in 128 KiB slots
# (MADV_PAGEOUT); a miss at a hole's edge has a mapped run on one side
c -w holes -m holes -f holes.bin -z 512 -n 4096 -p 150 -k 128
rm -f holes.bin
# after 300 random faults (mmap_miss over the limit): a sequential reader,
# and a MADV_HUGEPAGE reader going down (read_ahead_kb 8192, as make demo's
# descending-thp, which gets over the limit by itself on a larger file)
c -w seq-after-random -m seq -f sparse.bin -p 300 -l 64 -k 128
c -w descending-thp -m desc -f sparse.bin -p 300 -l 64 -k 8192 -H
rm -f sparse.bin
# vm-scalability's mmap-pread-rand and mmap-pread-seq (as workloads/vmscal.c
# does them: shared, from a cold cache) on a file of half the guest
c -w mmap-pread-rand -m random -f pread.bin -z 512 -n $((reads / 2)) -k 128 -S
c -w mmap-pread-seq -m seq -f pread.bin -p 0 -l 512 -k 128 -S
rm -f pread.bin
# minor faults: a cached 32 MiB mapped, MADV_DONTNEED, touched again, 64 times
c -w minor-refault -m minor -f minor.bin -z 64 -l 32 -n 64 -k 128
rm -f minor.bin
exit $fail
