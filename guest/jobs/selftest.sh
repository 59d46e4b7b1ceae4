#!/bin/sh
# Run the series' selftest; TAP between markers.
#   selftest.sh [VARIANT|-] [DIR] [RA]
# runs mmap_miss_recovery[-VARIANT] DIR (default: a directory on the data
# disk, whose read_ahead_kb this job sets to RA, default the usual 128,
# for the run and puts back after). Its xfs_16k variant makes an xfs on a loop device in a
# mount namespace of its own; the test must leave nothing behind: no
# mount, no attached loop device, no file in DIR. This job checks that
# afterwards, and fails if anything is left.
v=${1:--}
[ "$v" = - ] && v=
t=/lab/bin/mmap_miss_recovery${v:+-$v}
dir=${2:-/mnt/scratch}
ra_kb=${3:-128}
[ -x "$t" ] || { echo "@@LAB-ERROR no selftest binary $t in the initramfs"; exit 1; }
mkdir -p "$dir" || exit 1

# what the selftest must leave as it found it
loops() {
	for f in /sys/block/loop*/loop/backing_file; do
		[ -r "$f" ] && echo "${f#/sys/block/}: $(cat "$f")"
	done
}
state() {
	echo "mounts: $(grep -c . /proc/mounts)"
	loops
	ls -A "$dir"
}
before=$(state)

ra=/sys/block/vda/queue/read_ahead_kb
ra_old=$(cat "$ra" 2>/dev/null)
[ -n "$ra_old" ] && echo "$ra_kb" > "$ra"
echo "@@TAP-BEGIN ${t##*/}"
start=$(date +%s)
"$t" "$dir"
rc=$?
echo "@@TAP-END ${t##*/} rc=$rc seconds=$(( $(date +%s) - start ))"
[ -n "$ra_old" ] && echo "$ra_old" > "$ra"

# the kernel may finish letting go just after the last test process ends
for _ in 1 2 3 4 5 6 7 8 9 10; do
	after=$(state)
	[ "$after" = "$before" ] && break
	sleep 1
done
if [ "$after" != "$before" ]; then
	echo "@@LAB-ERROR the selftest left something behind:"
	echo "--- before"; echo "$before"; echo "--- after"; echo "$after"
	exit 1
fi
# the TAP result is judged on the host; the job itself succeeded
exit 0
