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

st=$src/tools/testing/selftests/mm
if [ -f "$st/mmap_miss_recovery.c" ]; then
	# uapi headers of the tree under test, as 'make headers' gives them
	if [ ! -f "$obj/usr/include/linux/mman.h" ] ||
	   [ "$obj/usr/include/linux/mman.h" -ot "$src/include/uapi/linux/mman.h" ]; then
		make -s -C "$src" O="$obj" ARCH=x86_64 headers >/dev/null ||
			die "make headers failed in $variant"
	fi
	# linked with the helpers every mm selftest gets (see the mm Makefile)
	extra=
	for f in vm_util.c hugepage_settings.c thp_settings.c; do
		[ -f "$st/$f" ] && extra="$extra $st/$f"
	done
	# shellcheck disable=SC2086
	gcc -O2 -Wall -static -isystem "$obj/usr/include" -I"$st" \
		-I"$src/tools/testing/selftests" -I"$src/tools/include/uapi" \
		-o "$out/bin/mmap_miss_recovery" "$st/mmap_miss_recovery.c" $extra \
		-lm 2> "$out/selftest-build.log" ||
		{ cat "$out/selftest-build.log" >&2; die "building the selftest failed"; }
	log "initramfs: selftest mmap_miss_recovery from $variant"
else
	log "initramfs: $variant has no mmap_miss_recovery selftest (empty series?)"
fi

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
