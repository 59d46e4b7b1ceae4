#!/bin/sh
# The split of the MADV_HUGEPAGE patches (results/split.md): what the
# PMD hit (patch 3) and the down rule (patch 4) each change, on the check
# disk's thp.bin (512 MiB, read from the device): up at read_ahead_kb 0,
# down at 0, 8192 and 128, up at 8192.
cd /mnt || exit 1
fail=0
run() { echo "@@RUN $*"; "$@" || { echo "@@LAB-ERROR workload failed: $*"; fail=1; }; }
run thp-order -f thp.bin -k 0 -l 512 -w thp-ra0-ascending
run thp-order -f thp.bin -D -k 0 -l 512 -w thp-ra0-descending
run thp-order -f thp.bin -D -k 8192 -l 512
run thp-order -f thp.bin -D -k 128 -l 512 -w descending-thp-128
run thp-order -f thp.bin -k 8192 -l 512
exit $fail
