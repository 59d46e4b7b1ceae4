#!/bin/sh
# make bench, one boot in a guest smaller than the files: the mmap read
# cases of vm-scalability that the kernel test robot reports on for
# readahead changes (vmscal, written by us from their description), then
# the random reader of the linux-mm report behind 0b9c0aeba938
# (random-private, on a sparse file), both scaled down alike.
#   vmscal.sh ROUND LEN_MIB LRU_MIB TASKS SPARSE_MIB RP_READS RP_RUNS [READ_AHEAD_KB]
# LEN_MIB of array.u8 for the one-file cases; LRU_MIB of each of array.u8
# and bench.db for lru-file-mmap-read; TASKS threads (-mt) or processes
# (lru); the random reader: RP_READS one-byte reads through MAP_PRIVATE of
# a sparse file of SPARSE_MIB, RP_RUNS runs. Each case from a cold cache;
# the random cases' seeds follow ROUND.
round=${1:?round} len=${2:?len} lru=${3:?lru len} tasks=${4:?tasks}
sparse=${5:?sparse mib} rp_reads=${6:?reads} rp_runs=${7:?runs} ra=${8:-128}
cd /mnt || exit 1
echo "$ra" > /sys/block/vdb/queue/read_ahead_kb || exit 1
fail=0
run() { echo "@@RUN $*"; "$@" || { echo "@@LAB-ERROR workload failed: $*"; fail=1; }; }
echo "@@BENCH round=$round reps=1 read_ahead_kb=$(cat /sys/block/vdb/queue/read_ahead_kb) mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)"
seed=$((round + 1))
# random cases: a quarter of the pages read, at random
reads=$((len * 256 / 4))
v() { run vmscal -d vdb -k "$ra" "$@"; }
v -f array.u8 -l "$len" -m seq -w mmap-pread-seq
v -f array.u8 -l "$len" -m rand -n "$reads" -s "$seed" -w mmap-pread-rand
v -f array.u8 -l "$len" -m seq-mt -t "$tasks" -w mmap-pread-seq-mt
v -f array.u8 -l "$len" -m rand-mt -t "$tasks" -n "$reads" -s "$seed" -w mmap-pread-rand-mt
v -f array.u8 -l "$len" -m xread-seq-mt -t "$tasks" -w mmap-xread-seq-mt
v -f array.u8:bench.db -l "$lru" -m lru -t "$tasks" -w lru-file-mmap-read
# the sparse file lives on the snapshot of the data disk: gone after the boot
run random-private -d vdb -f sparse.bin -z "$sparse" -n "$rp_reads" -c "$rp_runs" -k "$ra"
rm -f sparse.bin
exit $fail
