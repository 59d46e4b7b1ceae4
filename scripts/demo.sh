#!/bin/bash
# The main job: build base and patched, run the workloads on both in one
# go, print the side-by-side table, write results/demo.{md,json}
# (results/demo-small.* for DEMO_SCALE=small).
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
bash "$S/make-initramfs.sh" patched
disk=$(bash "$S/make-disk.sh" demo)

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
