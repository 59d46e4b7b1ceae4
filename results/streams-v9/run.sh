#!/bin/bash
# Three boots each of base and the series (build/base and build/patched,
# as make check builds them), side by side, one pair at a time, under the
# lab's lock: four threads streaming 1 GiB of the demo disk after 100
# random faults, and their control (make sharp's streams part), in a
# 512 MiB guest. Consoles: OUT/KERNEL-BOOT.log, OUT defaulting to this
# directory; README.md has the figures of the run kept here.
#   run.sh [OUT]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
cd "$here/../.."
. scripts/lib.sh
lab_lock
mkdir -p "$out"
one() { # kernel boot
	local rc=0
	scripts/run-guest.sh -k "$BUILD/$1/bzImage" -j sharp -a "streams 0 0 0 0 1024" \
		-d "$CACHE/disks/demo-ext4.img" -f ext4 -m 512M -t 1200 \
		-o "$out/$1-$2.log" > "$out/$1-$2.out" 2>&1 || rc=$?
	echo "$1 $2 rc=$rc"
	return "$rc"
}
fail=0
for b in 1 2 3; do
	one base "$b" & pid=$!
	one patched "$b" || fail=1
	wait "$pid" || fail=1
done
exit "$fail"
