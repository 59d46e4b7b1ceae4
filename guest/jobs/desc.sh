#!/bin/sh
# A MADV_HUGEPAGE reader of real data (the check disk's big.bin, read from
# the device, cold): 512 MiB from the top down (-D), then in order, with no
# random faults first, with 90 and with 300 (over the limit), at
# read_ahead_kb 128 and 8192 (more than
# a PMD-sized folio, where the async readahead of forced THP must ramp).
# Shows whether the folios 2/2 reads below count as hits when the reader
# reaches them, and what setting ra->start for forced THP changes for
# ascending readers.
cd /mnt || exit 1
fail=0
for dir in -D ""; do
	for k in 128 8192; do
		for n in 0 90 300; do
			echo "@@RUN thp-late -n $n -k $k $dir"
			thp-late -f big.bin -n $n $dir -k $k -r 768 -R 256 -s 0 -l 512 || fail=1
		done
	done
done
exit $fail
