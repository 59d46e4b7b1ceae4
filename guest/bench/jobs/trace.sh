#!/bin/sh
# make trace, one boot: SQLite's N random lookups then its full scan
# (sqlite-scan), with mmap-miss.bt following the faults on bench.db.
#   trace.sh N SEED [READ_AHEAD_KB]
# Needs a kernel with BTF (LAB_FLAVOR=bench). The trace goes to the
# console between @@TRACE-BEGIN and @@TRACE-END.
n=${1:?lookups} seed=${2:?seed} ra=${3:-128}
cd /mnt || exit 1
echo "$ra" > /sys/block/vdb/queue/read_ahead_kb || exit 1
if [ ! -e /sys/kernel/btf/vmlinux ]; then
	echo "@@LAB-ERROR no /sys/kernel/btf/vmlinux: mmap-miss.bt needs a kernel built with LAB_FLAVOR=bench"
	exit 1
fi
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo "@@BENCH round=0 reps=1 read_ahead_kb=$(cat /sys/block/vdb/queue/read_ahead_kb) mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)"
echo "@@RUN bpftrace -c 'sqlite-scan bench.db $n $seed' mmap-miss.bt $(stat -c %i bench.db)"
echo "@@TRACE-BEGIN"
bpftrace -c "/usr/bin/python3 /lab/bin/sqlite-scan bench.db $n $seed" /lab/bin/mmap-miss.bt "$(stat -c %i bench.db)"
rc=$?
echo "@@TRACE-END rc=$rc"
[ $rc = 0 ] || echo "@@LAB-ERROR bpftrace failed (rc=$rc)"
exit $rc
