#!/bin/sh
# make fixes, and make demo's 16 KiB-block part (scripts/side-by-side.sh):
# the two traps, on the check disk (big.bin 1 GiB, thp.bin 512 MiB).
cd /mnt || exit 1
fail=0
run() { echo "@@RUN $*"; "$@" || { echo "@@LAB-ERROR workload failed: $*"; fail=1; }; }

# patch 1's trap: N random faults in [768 MiB, 1 GiB), then
# [512 MiB, 768 MiB) in order; N=0 is the control. N from the arguments
# (default 0 300): a file system with 16 KiB blocks reads a block per miss,
# and more of the random faults then hit.
[ $# -gt 0 ] || set -- 0 300
for n in "$@"; do
	run seq-after-random -f big.bin -n $n -k 128 -s 512 -l 256 -r 768
done
# patch 2's trap: a 512 MiB MADV_HUGEPAGE file, last page first
run thp-order -f thp.bin -D -k 8192 -l 512
exit $fail
