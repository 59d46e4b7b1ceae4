#!/bin/bash
# The series' selftest as the mm CI runs it: ./run_vmtests.sh -t mmap_miss
# and ./ksft_mmap_miss.sh from tools/testing/selftests/mm, in the Debian
# bench root (bash, mkfs.xfs), on base and on the series
# -> results/v4-vmtests.md and the consoles in results/v4-vmtests/.
#   vmtests.sh [VARIANT...]   (default: base patched)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ $# -gt 0 ] || set -- base patched
bash "$LAB/scripts/deps.sh" bench
export MMLAB_ENTRY="make vmtests (scripts/vmtests.sh)"
lab_lock
build_kernels "$@"
KROOT=$(kroot)
root=$(bash "$LAB/scripts/make-benchroot.sh")

# the data disk: the patched tree's mm selftest scripts and the test,
# static, built with the mm Makefile's flags against its uapi headers
src=$KROOT/patched/src st=$src/tools/testing/selftests/mm obj=$KROOT/patched/obj
out=$BUILD/vmtests
rm -rf "$out" && mkdir -p "$out/stage/mm"
! stale_headers "$obj/usr/include" "$src" || kmake patched "$obj" headers >/dev/null
selftest_cc gcc "$src" "$obj/usr/include" "$out/stage/mm/mmap_miss_recovery" ||
	die "building the selftest failed"
cp "$st/run_vmtests.sh" "$st/ksft_mmap_miss.sh" "$out/stage/mm/"
truncate -s 512M "$out/disk.img"
mkfs.ext4 -q -F -d "$out/stage" "$out/disk.img" || die "mkfs.ext4 -d failed"

res=$RESULTS/v4-vmtests
mkdir -p "$res"
for v in "$@"; do
	bash "$LAB/scripts/run-guest.sh" -k "$BUILD/$v/bzImage" -r "$root" -j vmtests \
		-d "$out/disk.img" -f ext4 -m 2G -t 900 -o "$res/console-$v.log"
done
{
	echo "# run_vmtests.sh -t mmap_miss in the Debian bench root"
	echo
	echo "Lab $(git -C "$LAB" rev-parse --short=12 HEAD); $(qemu-system-x86_64 --version | head -1);"
	echo "2 GiB guest; command: scripts/vmtests.sh $*. Per kernel: the selftest's"
	echo "TAP lines as run_vmtests.sh prints them, and each wrapper's exit code."
	for v in "$@"; do
		echo
		echo "## $v ($(sed -n 's/.*@@LAB-BOOT kernel=\([^ ]*\).*/\1/p' "$res/console-$v.log" | head -1))"
		echo
		grep -E '^# (ok|not ok) [0-9]+ mmap_miss|@@VMT-END|^# SUMMARY' "$res/console-$v.log" |
			sed 's/\r$//; s/^/    /'
	done
} > "$RESULTS/v4-vmtests.md"
cat "$RESULTS/v4-vmtests.md"
