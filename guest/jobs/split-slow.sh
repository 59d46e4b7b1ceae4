#!/bin/sh
# results/split.md: the MADV_HUGEPAGE reader moving down (thp.bin, 512
# MiB from its last page, read_ahead_kb 128), meant for a data disk whose
# reads are capped (run-guest.sh with LAB_DISK_BPS), so that the folio
# below may still be under I/O when the reader reaches it.
cd /mnt || exit 1
echo "@@RUN uptime before: $(cat /proc/uptime)"
thp-order -f thp.bin -D -k 128 -l 512 -w descending-thp-128 || { echo "@@LAB-ERROR workload failed"; exit 1; }
echo "@@RUN uptime after: $(cat /proc/uptime)"
