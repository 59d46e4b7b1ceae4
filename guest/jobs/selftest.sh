#!/bin/sh
# Run the series' selftest; TAP between markers.
#   selftest.sh [VARIANT|-] [DIR]
# runs mmap_miss_recovery[-VARIANT] with its files in DIR (default: a
# directory on the data disk).
v=${1:--}
[ "$v" = - ] && v=
t=/lab/bin/mmap_miss_recovery${v:+-$v}
dir=${2:-/mnt/scratch}
[ -x "$t" ] || { echo "@@LAB-ERROR no selftest binary $t in the initramfs"; exit 1; }
mkdir -p "$dir" || exit 1
echo "@@TAP-BEGIN ${t##*/}"
"$t" -d "$dir"
rc=$?
echo "@@TAP-END ${t##*/} rc=$rc"
# the TAP result is judged on the host; the job itself succeeded
exit 0
