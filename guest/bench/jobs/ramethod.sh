#!/bin/sh
# make bench, the method of 0b9c0aeba938's changelog on one file: random,
# sequential and strides of 1021, 1024, 2053 and 4099 pages, 1 % of the
# file touched each time, from a cold cache, read_ahead_kb as given (the
# changelog's 8192 by default).
#   ramethod.sh ROUND FILE [READ_AHEAD_KB]
round=${1:?round} file=${2:?file} ra=${3:-8192}
cd /mnt || exit 1
echo "$ra" > /sys/block/vdb/queue/read_ahead_kb || exit 1
fail=0
echo "@@BENCH round=$round reps=1 read_ahead_kb=$(cat /sys/block/vdb/queue/read_ahead_kb) mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)"
BENCH_WARMUP=1 ra-method "$file" seq 999 > /dev/null || fail=1
for p in random seq stride1021 stride1024 stride2053 stride4099; do
	echo "@@RUN ra-method $file $p $round"
	ra-method "$file" "$p" "$round" || { echo "@@LAB-ERROR workload failed: ra-method $file $p"; fail=1; }
done
exit $fail
