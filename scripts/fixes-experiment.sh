#!/bin/bash
# Which upstream commit made each trap reachable? Lab-only kernel variants
# (variants/exp-*/, never part of series/) undo one upstream change each in
# 7.3-rc7; the two traps run on base and on each of them, in one go.
#   fixes-experiment.sh   -> results/fixes.{md,json}
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export MMLAB_ENTRY="scripts/fixes-experiment.sh"
lab_lock

S=$LAB/scripts
VARIANTS="exp-per-page exp-tried-hits exp-thp-free"
bash "$S/fetch-base.sh"
bash "$S/build-kernel.sh" base
for v in $VARIANTS; do
	bash "$S/apply-series.sh" -v "$v" "$LAB/variants/$v"
	bash "$S/build-kernel.sh" "$v"
done
# always anew: it must carry guest/jobs/fixes.sh as it is now
bash "$S/make-initramfs.sh" patched
disk=$(bash "$S/make-disk.sh" check)

# shellcheck disable=SC2086
side_by_side fixes fixes "" "$disk" ext4 2G 1800 base $VARIANTS
