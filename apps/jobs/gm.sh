#!/bin/sh
# make bench-apps, one boot: GraphicsMagick's Swirl as phoronix's
# pts/graphics-magick runs it (gm benchmark -duration 60 convert
# sample-photo.jpg -swirl 90 output.jpg), shorter for TCG.
#   gm.sh ROUND REPS DURATION_S
# REPS runs in this boot, each from a cold cache, in the cgroup of
# appsrun.py without a limit (the robot's machines have memory to spare),
# the output on the guest's tmpfs (and a pixel cache that outgrows memory,
# if it ever does, on the root's ext4: MAGICK_TMPDIR).
round=${1:?round} reps=${2:?reps} dur=${3:?duration}
echo "@@BENCH round=$round read_ahead_kb=$(cat /sys/block/vdb/queue/read_ahead_kb) mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo) jpeg_bytes=$(stat -c %s /mnt/input.jpg)"
fail=0 r=0
while [ $r -lt "$reps" ]; do
	appsrun.py -k workload=gm -k case=swirl -k round="$round" -k rep="$r" -k duration="$dur" -- \
		env MAGICK_TMPDIR=/var/tmp gm benchmark -duration "$dur" convert /mnt/input.jpg -swirl 90 /tmp/output.jpg || fail=1
	r=$((r + 1))
done
exit $fail
