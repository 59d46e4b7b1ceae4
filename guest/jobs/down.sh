#!/bin/sh
# scripts/side-by-side.sh down: readers moving down through an ordinary
# mapping of the demo disk's 4 GiB file, read_ahead_kb 128: [2 GiB, 3 GiB)
# from its last page down, a byte a page, on a new open with a cold cache,
# without random faults first (the control) and after 100 in [3 GiB,
# 4 GiB); then the same upwards after 100. $1 = runs of each (2).
runs=${1:-2}
cd /mnt || exit 1
fail=0
run() { echo "@@RUN $*"; "$@" || { echo "@@LAB-ERROR workload failed: $*"; fail=1; }; }

i=1
while [ "$i" -le "$runs" ]; do
	for n in 0 100; do
		run seq-after-random -f big.bin -n $n -k 128 -s 2048 -l 1024 -r 3072 \
			-D -w "down-run$i"
	done
	run seq-after-random -f big.bin -n 100 -k 128 -s 2048 -l 1024 -r 3072 \
		-w "up-run$i"
	i=$((i + 1))
done
exit $fail
