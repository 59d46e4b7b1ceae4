#!/bin/sh
# Run the series' selftest on the data disk; TAP between markers.
t=/lab/bin/mmap_miss_recovery
[ -x $t ] || { echo "@@LAB-ERROR no selftest binary in the initramfs"; exit 1; }
mkdir -p /mnt/scratch && cd /mnt/scratch || exit 1
echo "@@TAP-BEGIN mmap_miss_recovery"
$t "$@"
rc=$?
echo "@@TAP-END mmap_miss_recovery rc=$rc"
# the TAP result is judged on the host; the job itself succeeded
exit 0
