#!/bin/sh
# make bench, one boot: the real clients on the data disk (/mnt).
#   bench.sh ROUND REPS SQLITE_NS NUMPY_N [READ_AHEAD_KB [AFTER]]
# ROUND: this boot's place in the host's A B B A order (seeds follow it, so
# that both kernels see the same lookups); REPS runs of each case in this
# boot, each from a cold cache; SQLITE_NS: lookup counts, colon-separated
# (0 = the no-lookup control); NUMPY_N: random rows before the sequential
# part (also run with 0, the control; "-": no numpy in this boot);
# READ_AHEAD_KB of the data disk
# (default 128, the kernel's default; virtio-blk disks may come up with
# more); AFTER 1 (default 0): also the readers of "Beyond the seeds"
# (after-random: adversarial, every-other, every-other-warm, records with
# the probe), each after 300 random faults, in the first 256 MiB of
# array.u8.
round=${1:?round} reps=${2:?reps} ns=${3:?sqlite lookup counts} np_n=${4:?numpy rows}
ra=${5:-128} after=${6:-0}
cd /mnt || exit 1
echo "$ra" > /sys/block/vdb/queue/read_ahead_kb || exit 1
fail=0
run() { echo "@@RUN $*"; "$@" || { echo "@@LAB-ERROR workload failed: $*"; fail=1; }; }
echo "@@BENCH round=$round reps=$reps read_ahead_kb=$(cat /sys/block/vdb/queue/read_ahead_kb) mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)"
# The first run of a client in a boot is slower on the same work (TCG
# translates its code, the libraries come in from the root disk): one
# warm-up run of each, marked and left out by the host.
BENCH_WARMUP=1 sqlite-scan bench.db 10 999 > /dev/null || fail=1
[ "$np_n" = - ] || BENCH_WARMUP=1 numpy-seq array.u8 10 999 > /dev/null || fail=1
r=0
while [ $r -lt "$reps" ]; do
	seed=$((round * 100 + r))
	for n in $(echo "$ns" | tr : ' '); do
		run sqlite-scan bench.db "$n" "$seed"
	done
	if [ "$np_n" != - ]; then
		for n in 0 "$np_n"; do
			run numpy-seq array.u8 "$n" "$seed"
		done
	fi
	if [ "$after" = 1 ]; then
		# make sharp's geometry scaled to 256 MiB: 300 random faults in
		# [192, 256) MiB; the accesses in a cold 64 MiB region; the
		# records' probe in [96, 160) MiB, away from both
		ar() { run after-random -d vdb -f array.u8 -n 300 -k "$ra" -r 192 -R 64 "$@"; }
		ar -m adversarial -s 0 -l 64 -a 2000
		ar -m every-other -s 128 -l 64
		ar -m every-other -s 128 -l 64 -W -w every-other-warm
		ar -m records -s 0 -l 64 -a 2000 -b 16 -p 96 -P 50
	fi
	r=$((r + 1))
done
exit $fail
