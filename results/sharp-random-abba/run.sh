#!/bin/bash
# The plain random reader (make sharp's random part), kernels in the order
# base patched patched base, one boot each, 5 runs a boot. Needs
# build/base and build/patched (make sharp or make kernels) and the
# initramfs make sharp builds (scripts/make-initramfs.sh patched).
cd "$(dirname "$0")/../.." || exit 1
out=results/sharp-random-abba
i=0
for k in base patched patched base; do
	i=$((i+1))
	bash scripts/run-guest.sh -k build/$k/bzImage -j sharp -a "random 0 524288 4096 5" \
		-d "$(bash scripts/make-disk.sh demo)" -f ext4 -m 1G -t 3600 \
		-o $out/console-$i-$k.log || exit 1
done
