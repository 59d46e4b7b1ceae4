#!/bin/sh
# A descending MADV_HUGEPAGE reader of real data (the check disk's
# big.bin, read from the device, cold): 512 MiB from the top down, with
# no random faults first and with 90; read_ahead_kb 128. Shows whether
# the folios 2/2 reads below count as hits when the reader reaches them
# while their I/O may still be in flight.
cd /mnt || exit 1
fail=0
for n in 0 90; do
	echo "@@RUN thp-late -n $n -D"
	thp-late -f big.bin -n $n -D -k 128 -r 768 -R 256 -s 0 -l 512 || fail=1
done
exit $fail
