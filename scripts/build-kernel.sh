#!/bin/bash
# Build the guest kernel of one variant (docs/lab.md's "kernel" step).
#   build-kernel.sh VARIANT [FRAGMENT...]
#   LAB_FLAVOR=NAME  adds config/NAME.config, in its own object directory:
#       a debug kernel (LAB_FLAVOR=debug) never costs the plain one its
#       incremental build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
lab_lock

variant=${1:?usage: build-kernel.sh VARIANT [FRAGMENT...]}
shift
KROOT=$(kroot)
src=$KROOT/$variant/src
obj=$KROOT/$variant/obj
out=$variant
frags=("$LAB/config/guest.config")
if [ -n "${LAB_FLAVOR:-}" ]; then
	case $LAB_FLAVOR in *[!a-z0-9-]*) die "LAB_FLAVOR '$LAB_FLAVOR': letters, digits and '-' only" ;; esac
	obj=$KROOT/$variant/obj-$LAB_FLAVOR
	out=$variant-$LAB_FLAVOR
	frags+=("$LAB/config/$LAB_FLAVOR.config")
fi
[ -f "$src/Makefile" ] || die "no source tree for variant '$variant' ($src); run scripts/apply-series.sh"
# a first build's objects, a rebuild's changes, and ccache's share
if [ -f "$obj/vmlinux" ]; then need=512; else need=2048; fi
need_space "$KROOT/$variant" "$need" "building $variant"
mkdir -p "$obj" "$BUILD/$out"

frags+=("$@")
for f in "${frags[@]}"; do [ -r "$f" ] || die "no config fragment $f"; done

MK=(kmake "$variant" "$obj")
# uname -r says the flavour (the last LOCALVERSION on make's command line wins)
[ -z "${LAB_FLAVOR:-}" ] || MK+=(LOCALVERSION="-$out")

kconfigure "$src" "$obj" "" "${frags[@]}" -- "${MK[@]}" || die "$out: configuring failed"

log "$out: building bzImage"
start=$(date +%s)
if ! "${MK[@]}" bzImage > "$obj/build.log" 2>&1; then
	tail -30 "$obj/build.log" >&2
	die "$out: kernel build failed (full log: $obj/build.log)"
fi
cp "$obj/arch/x86/boot/bzImage" "$BUILD/$out/bzImage"
cp "$obj/.config" "$BUILD/$out/config"
{
	echo "VARIANT=$variant"
	echo "FLAVOR=${LAB_FLAVOR:-}"
	echo "KERNELRELEASE=$(cat "$obj/include/config/kernel.release")"
	echo "COMMIT=$(git -C "$src" rev-parse HEAD)"
	echo "FILEMAP_BLOB=$(git -C "$src" rev-parse HEAD:mm/filemap.c)"
	echo "SERIES_PATCHES=$(git -C "$src" rev-list --count lab-base..HEAD)"
} > "$BUILD/$out/info.env"
log "$out: built in $(( $(date +%s) - start ))s -> build/$out/bzImage"
