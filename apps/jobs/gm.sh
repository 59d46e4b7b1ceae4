#!/bin/sh
# make bench-apps, one boot: GraphicsMagick's Swirl as phoronix's
# pts/graphics-magick runs it (gm benchmark -duration 60 convert
# sample-photo.jpg -swirl 90 output.jpg), shorter for TCG.
#   gm.sh ROUND REPS DURATION_S [CASES]
# REPS runs of each case in this boot, each from a cold cache, in the
# cgroup of appsrun.py without a limit (the robot's machines have memory
# to spare), the output on the guest's tmpfs. CASES (colon-separated,
# default swirl): swirl, the robot's case; swirl-mapcache: the same with
# -limit memory 1MB, so that GraphicsMagick keeps its pixel cache in a
# memory-mapped file (MAGICK_TMPDIR=/var/tmp, the root's ext4), the one
# way this client reads a file through mmap.
round=${1:?round} reps=${2:?reps} dur=${3:?duration} cases=${4:-swirl}
echo "@@BENCH round=$round read_ahead_kb=$(cat /sys/block/vdb/queue/read_ahead_kb) mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo) jpeg_bytes=$(stat -c %s /mnt/input.jpg)"
fail=0 r=0
while [ $r -lt "$reps" ]; do
	for c in $(echo "$cases" | tr : ' '); do
		case $c in
		swirl) lim= ;;
		swirl-mapcache) lim="-limit memory 1MB" ;;
		*) echo "@@LAB-ERROR gm.sh: no case '$c'"; fail=1; continue ;;
		esac
		# shellcheck disable=SC2086
		appsrun.py -k workload=gm -k case="$c" -k round="$round" -k rep="$r" -k duration="$dur" -- \
			env MAGICK_TMPDIR=/var/tmp gm benchmark -duration "$dur" convert $lim \
			/mnt/input.jpg -swirl 90 /tmp/output.jpg || fail=1
	done
	r=$((r + 1))
done
exit $fail
