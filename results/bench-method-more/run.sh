#!/bin/bash
# More runs of 0b9c0aeba938's method in make bench's smaller guest (4 GiB
# file, 1640M), to tell whether the stride of 1021 pages reads more with
# the series or varies on base itself (make bench runs the method twice
# a kernel). Rounds 2 to 5 (make bench's were 0 and 1; the random
# pattern's seed follows the round, the strides have none), kernels in
# the order base patched patched base base patched patched base, one
# boot each. Then one report over these and make bench's two rounds:
# results/bench-method-more.{md,json}. Needs make bench's kernels, root
# image and full data disk.
set -e
cd "$(dirname "$0")/../.."
start=$(date +%s)
out=results/bench-method-more
root=$(bash scripts/make-benchroot.sh)
disk=$(bash scripts/make-benchroot.sh disk full)
runs=()
for r in 0 1; do
	for k in base patched; do
		runs+=("$r=$k=build/$k/bzImage=results/bench/console-r$r-$k-method-1640M.log")
	done
done
order=(base patched patched base base patched patched base)
for i in 0 1 2 3 4 5 6 7; do
	r=$((2 + i / 2)) k=${order[i]}
	bash scripts/run-guest.sh -k build/$k/bzImage -r "$root" -d "$disk" -m 1640M \
		-t 3600 -o $out/console-r$r-$k-method-1640M.log -j ramethod -a "$r array.u8 8192"
	runs+=("$r=$k=build/$k/bzImage=$out/console-r$r-$k-method-1640M.log")
done
bash scripts/bench.sh report results/bench-method-more full \
	"bash results/bench-method-more/run.sh" $(($(date +%s) - start)) 1640M "$root" "$disk" "${runs[@]}"
