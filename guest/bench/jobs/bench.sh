#!/bin/sh
# make bench, one boot: the real clients on the data disk (/mnt).
#   bench.sh ROUND REPS SQLITE_NS NUMPY_N
# ROUND: this boot's place in the host's A B B A order (seeds follow it, so
# that both kernels see the same lookups); REPS runs of each case in this
# boot, each from a cold cache; SQLITE_NS: lookup counts, colon-separated
# (0 = the no-lookup control); NUMPY_N: random rows before the sequential
# part (also run with 0, the control).
round=${1:?round} reps=${2:?reps} ns=${3:?sqlite lookup counts} np_n=${4:?numpy rows}
cd /mnt || exit 1
fail=0
run() { echo "@@RUN $*"; "$@" || { echo "@@LAB-ERROR workload failed: $*"; fail=1; }; }
echo "@@BENCH round=$round reps=$reps read_ahead_kb=$(cat /sys/block/vdb/queue/read_ahead_kb) mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)"
r=0
while [ $r -lt "$reps" ]; do
	seed=$((round * 100 + r))
	for n in $(echo "$ns" | tr : ' '); do
		run sqlite-scan bench.db "$n" "$seed"
	done
	for n in 0 "$np_n"; do
		run numpy-seq array.u8 "$n" "$seed"
	done
	r=$((r + 1))
done
exit $fail
