#!/bin/bash
# Build the guest initramfs: busybox-static, guest/init, guest/jobs, the
# workloads (static) and, when the tree has it, the series' selftest built
# statically from VARIANT's source (default: patched).
#   make-initramfs.sh [VARIANT]  -> build/initramfs.cpio
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=${1:-patched}
KROOT=$(kroot)
src=$KROOT/$variant/src
obj=$KROOT/$variant/obj
[ -d "$src" ] || die "no source tree for $variant"
BB=/bin/busybox
[ -x "$BB" ] && file -L "$BB" 2>/dev/null | grep -q static || BB=$(command -v busybox)
[ -x "$BB" ] || die "busybox-static is not installed"

out=$BUILD/guest
rm -rf "$out" && mkdir -p "$out/bin"
make -s -C "$LAB/workloads" OUT="$out/bin" CC="ccache gcc" ||
	die "building the workloads failed"

# The series' selftest, built static from each tree that has it: from
# VARIANT as mmap_miss_recovery, from each of LAB_SELFTEST_EXTRA (e.g. a
# tree with only the first patch) as mmap_miss_recovery-<variant>.
build_selftest() {
	local v=$1 name=$2 s o st extra f
	s=$KROOT/$v/src o=$KROOT/$v/obj st=$KROOT/$v/src/tools/testing/selftests/mm
	[ -f "$st/mmap_miss_recovery.c" ] || return 1
	mkdir -p "$o"
	# uapi headers of the tree under test, as 'make headers' gives them
	if [ ! -f "$o/usr/include/linux/mman.h" ] ||
	   [ "$o/usr/include/linux/mman.h" -ot "$s/include/uapi/linux/mman.h" ]; then
		kmake "$v" "$o" headers >/dev/null ||
			die "make headers failed in $v"
	fi
	# linked with the helpers every mm selftest gets (see the mm Makefile)
	extra=
	for f in vm_util.c hugepage_settings.c thp_settings.c; do
		[ -f "$st/$f" ] && extra="$extra $f"
	done
	# from the test's directory, so that its messages name it briefly
	# shellcheck disable=SC2086
	(cd "$st" && gcc -O2 -Wall -static -isystem "$o/usr/include" -I. \
		-I"$s/tools/testing/selftests" -I"$s/tools/include/uapi" \
		-o "$out/bin/$name" mmap_miss_recovery.c $extra \
		-lm) 2> "$out/selftest-build-$v.log" ||
		{ cat "$out/selftest-build-$v.log" >&2; die "building the selftest of $v failed"; }
	log "initramfs: selftest $name from $v"
}
build_selftest "$variant" mmap_miss_recovery ||
	log "initramfs: $variant has no mmap_miss_recovery selftest (empty series?)"
for v in ${LAB_SELFTEST_EXTRA:-}; do
	build_selftest "$v" "mmap_miss_recovery-$v" || die "$v has no selftest"
done

gen=$BUILD/gen_init_cpio
[ -x "$gen" ] && [ "$gen" -nt "$src/usr/gen_init_cpio.c" ] ||
	gcc -O2 -o "$gen" "$src/usr/gen_init_cpio.c" || die "cannot build gen_init_cpio"

list=$out/cpio.list
{
	for d in /bin /dev /proc /sys /tmp /mnt /lab /lab/bin /lab/jobs; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /bin/busybox $BB 0755 0 0"
	echo "file /init $LAB/guest/init 0755 0 0"
	for f in "$LAB"/guest/jobs/*.sh; do
		echo "file /lab/jobs/${f##*/} $f 0755 0 0"
	done
	for f in "$out"/bin/*; do
		echo "file /lab/bin/${f##*/} $f 0755 0 0"
	done
} > "$list"
"$gen" "$list" > "$BUILD/initramfs.cpio" || die "gen_init_cpio failed"
log "initramfs: build/initramfs.cpio ($(du -h "$BUILD/initramfs.cpio" | cut -f1))"
