#!/bin/sh
# Run the series' selftest on the data disk; TAP between markers.
#   selftest.sh [VARIANT]  -> runs mmap_miss_recovery[-VARIANT]
t=/lab/bin/mmap_miss_recovery${1:+-$1}
[ -x "$t" ] || { echo "@@LAB-ERROR no selftest binary $t in the initramfs"; exit 1; }
mkdir -p /mnt/scratch && cd /mnt/scratch || exit 1
echo "@@TAP-BEGIN ${t##*/}"
"$t"
rc=$?
echo "@@TAP-END ${t##*/} rc=$rc"
# the TAP result is judged on the host; the job itself succeeded
exit 0
