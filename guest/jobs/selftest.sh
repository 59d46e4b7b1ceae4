#!/bin/sh
# Run the series' selftest; TAP between markers.
#   selftest.sh [VARIANT|-] [DIR]
# runs mmap_miss_recovery[-VARIANT] with its files in DIR (default: a
# directory on the data disk). The selftest makes its own file systems
# (loop devices, mkfs.ext4, mkfs.xfs) in a mount namespace of its own and
# must leave nothing behind: no mount, no attached loop device, no file in
# DIR. This job checks that afterwards, and fails if anything is left.
v=${1:--}
[ "$v" = - ] && v=
t=/lab/bin/mmap_miss_recovery${v:+-$v}
dir=${2:-/mnt/scratch}
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

echo "@@TAP-BEGIN ${t##*/}"
start=$(date +%s)
"$t" -d "$dir"
rc=$?
echo "@@TAP-END ${t##*/} rc=$rc seconds=$(( $(date +%s) - start ))"

# the kernel may finish letting go just after the last test process ends
for i in 1 2 3 4 5 6 7 8 9 10; do
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
