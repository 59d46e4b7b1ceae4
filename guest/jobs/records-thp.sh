#!/bin/sh
# Readers of random records through MADV_HUGEPAGE (the check disk's
# big.bin), after $1 random faults (default 300) through a plain mapping:
# records of 64 KiB (past 2/2's way back: a run of eight and the fault
# after it) and of 32 KiB (not). With 0, what MADV_HUGEPAGE reads for
# them when readahead was never off.
cd /mnt || exit 1
fail=0
n=${1:-300}
for b in 64 32; do
	echo "@@RUN after-random records $b KiB, $n random"
	after-random -f big.bin -m records -n "$n" -k 128 -r 768 -R 256 \
		-s 0 -l 768 -a 100 -b $b -H -w records$b-thp-ext4 || fail=1
done
exit $fail
