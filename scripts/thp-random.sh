#!/bin/bash
# Random readers of MADV_HUGEPAGE mappings, with mmap_miss over the limit
# and under it (guest/jobs/thpr.sh, workloads/thp-random.c), on each
# kernel, ROUNDS boots each, kernels interleaved
# -> results/thp-random.{md,json}.
#   thp-random.sh [VARIANT...]   (default: base v4 patched, patched being
#   the series; variants other than base and patched from variants/)
#   THPR_ROUNDS=3 THPR_ACCESSES=64 THPR_NAME=thp-random (the results' name)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rounds=${THPR_ROUNDS:-3} n=${THPR_ACCESSES:-64}
[ $# -gt 0 ] || set -- base v4 patched
export MMLAB_ENTRY="make thp-random (scripts/thp-random.sh)"
lab_lock
# the kernels and the initramfs with the workload
build_kernels "$@"
bash "$LAB/scripts/make-initramfs.sh"
disk=$(bash "$LAB/scripts/make-disk.sh" check)
out=$RESULTS/${THPR_NAME:-thp-random}
mkdir -p "$out"
logs=()
for r in $(seq 1 "$rounds"); do
	for v in "$@"; do
		log "thp-random: round $r of $rounds on $v"
		bash "$LAB/scripts/run-guest.sh" -k "$BUILD/$v/bzImage" -j thpr -a "$n $r" \
			-d "$disk" -f ext4 -m 1G -t 1800 -o "$out/console-$v-$r.log"
		logs+=("$v=$out/console-$v-$r.log")
	done
done
python3 "$LAB/scripts/thp_random_report.py" "$out.md" "${logs[@]}"
