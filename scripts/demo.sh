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

mem=4G timeout=3600
[ "$scale" = small ] && mem=2G timeout=1200
# Read the disk image once on the host, so that the first kernel to run
# does not pay for a cold host page cache that the second one finds warm.
log "warming the host's cache of $(basename "$disk")"
cat "$disk" > /dev/null
side_by_side "$name" demo "$scale" "$disk" ext4 "$mem" "$timeout" base patched

# 300 random faults in a 1 GiB file, then 256 MiB in order (the fixes
# job); v1 read one 16 KiB folio per probe and flagged the faulting one.
side_by_side "$name-lbs" fixes "0 300" "$lbs" xfs 2G "$timeout" base v1 patched
