#!/bin/sh
# make demo (scripts/side-by-side.sh demo): the before/after
# demonstration. $1 = full or small.
scale=${1:-full}
cd /mnt || exit 1
fail=0
run() { echo "@@RUN $*"; "$@" || { echo "@@LAB-ERROR workload failed: $*"; fail=1; }; }

if [ "$scale" = full ]; then
	# a 4 GiB file, random faults in [3G, 4G), then [2G, 3G) in order
	for n in 0 100; do
		run seq-after-random -f big.bin -n $n -k 128 -s 2048 -l 1024 -r 3072
	done
	run thp-order -f thp.bin -D -k 8192
	run thp-order -f thp.bin -k 8192
	run random -f big.bin -n 20000 -k 128
	for s in 1021 1024 2053 4099; do
		run random -f big.bin -s $s -k 128
	done
else
	for n in 0 100; do
		run seq-after-random -f big.bin -n $n -k 128 -s 512 -l 256 -r 768
	done
	run thp-order -f thp.bin -D -k 8192 -l 512
	run thp-order -f thp.bin -k 8192 -l 512
	run random -f big.bin -n 5000 -k 128
	for s in 1021 4099; do
		run random -f big.bin -s $s -k 128
	done
fi
exit $fail
