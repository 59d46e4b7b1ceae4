#!/bin/bash
# The main job: build base and patched, run the workloads on both in one
# go, print the side-by-side table, write results/demo.{md,json}
# (results/demo-small.* for DEMO_SCALE=small). Then the recovery case on
# xfs with 16 KiB blocks (block size larger than the page size) on base,
# v1 of the series (variants/v1) and patched: results/demo-lbs.{md,json}.
#   DEMO_SCALE=full (seed geometry, default) or small (quick look)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export MMLAB_ENTRY="make demo (scripts/demo.sh)"
lab_lock

scale=${DEMO_SCALE:-full}
name=demo
[ "$scale" = full ] || name=demo-$scale
S=$LAB/scripts
bash "$S/deps.sh"
bash "$S/fetch-base.sh"
bash "$S/apply-series.sh"
bash "$S/build-kernel.sh" base
bash "$S/build-kernel.sh" patched
bash "$S/apply-series.sh" -v v1 "$LAB/variants/v1"
bash "$S/build-kernel.sh" v1
bash "$S/make-initramfs.sh" patched
disk=$(bash "$S/make-disk.sh" demo)
lbs=$(bash "$S/make-disk.sh" check xfs16k)

mkdir -p "$RESULTS"
mem=4G timeout=3600
[ "$scale" = small ] && mem=2G timeout=1200
# Read the disk image once on the host, so that the first kernel to run
# does not pay for a cold host page cache that the second one finds warm.
log "warming the host's cache of $(basename "$disk")"
cat "$disk" > /dev/null
logs=()
for v in base patched; do
	log="$RESULTS/console-$name-$v.log"
	log "running the $scale demo on $v"
	bash "$S/run-guest.sh" -k "$BUILD/$v/bzImage" -j demo -a "$scale" \
		-d "$disk" -m "$mem" -t "$timeout" -o "$log"
	logs+=("$v=$log")
done
python3 "$S/report.py" "$RESULTS/$name" "${logs[@]}"
log "wrote results/$name.md and results/$name.json"

# 300 random faults in a 1 GiB file, then 256 MiB in order (the fixes
# job); v1 read one 16 KiB folio per probe and flagged the faulting one.
logs=()
for v in base v1 patched; do
	log="$RESULTS/console-$name-lbs-$v.log"
	log "running the 16 KiB-block xfs case on $v"
	bash "$S/run-guest.sh" -k "$BUILD/$v/bzImage" -j fixes -a "0 300" \
		-d "$lbs" -f xfs -m 2G -t "$timeout" -o "$log"
	logs+=("$v=$log")
done
python3 "$S/report.py" "$RESULTS/$name-lbs" "${logs[@]}"
log "wrote results/$name-lbs.md and results/$name-lbs.json"
