#!/bin/sh
# SQLite scans after random lookups, forward and backward (ORDER BY id
# DESC), on the bench data disk (/mnt), read_ahead_kb 128.
#   sqldesc.sh REPS NS
# REPS runs of each case, each from a cold cache on a new connection;
# NS: lookup counts, colon-separated (0 = the no-lookup control).
reps=${1:-2} ns=${2:-0:1000}
cd /mnt || exit 1
echo 128 > /sys/block/vdb/queue/read_ahead_kb || exit 1
fail=0
run() { echo "@@RUN $*"; "$@" || { echo "@@LAB-ERROR workload failed: $*"; fail=1; }; }
BENCH_WARMUP=1 sqlite-scan bench.db 10 999 desc > /dev/null || fail=1
r=0
while [ $r -lt "$reps" ]; do
	for n in $(echo "$ns" | tr : ' '); do
		run sqlite-scan bench.db "$n" $((100 + r)) desc
		run sqlite-scan bench.db "$n" $((100 + r))
	done
	r=$((r + 1))
done
exit $fail
