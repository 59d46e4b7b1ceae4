#!/bin/bash
# Build the guest kernel of one variant, out of tree, with ccache.
#   build-kernel.sh VARIANT [FRAGMENT...]
# VARIANT's source is $KROOT/VARIANT/src (base: the lab-base tree; others
# are made by apply-series.sh). Config = tinyconfig + config/guest.config +
# the extra fragments. The image lands in build/VARIANT/bzImage.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
lab_lock

variant=${1:?usage: build-kernel.sh VARIANT [FRAGMENT...]}
shift
KROOT=$(kroot)
src=$KROOT/$variant/src
obj=$KROOT/$variant/obj
[ -f "$src/Makefile" ] || die "no source tree for variant '$variant' ($src); run scripts/apply-series.sh"
# a first build's objects, a rebuild's changes, and ccache's share
if [ -f "$obj/vmlinux" ]; then need=512; else need=2048; fi
need_space "$KROOT/$variant" "$need" "building $variant"
mkdir -p "$obj" "$BUILD/$variant"

frags=("$LAB/config/guest.config" "$@")
for f in "${frags[@]}"; do [ -r "$f" ] || die "no config fragment $f"; done

MK=(kmake "$variant" "$obj")

# Reconfigure only when the fragments change, so that a rebuild after an
# edit to mm/filemap.c stays incremental.
hash=$(cat "${frags[@]}" | sha256sum | cut -c1-16)
if [ "$(cat "$obj/.lab-config" 2>/dev/null)" != "$hash" ] || [ ! -f "$obj/.config" ]; then
	log "$variant: configuring (tinyconfig + ${frags[*]##*/})"
	"${MK[@]}" tinyconfig >/dev/null
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "${frags[@]}" >/dev/null)
	"${MK[@]}" olddefconfig >/dev/null
	# merge_config only warns; a requested option that did not stick
	# is a broken fragment.
	bad=$(config_unstuck "$obj/.config" "${frags[@]}")
	[ -z "$bad" ] || die "$variant: config options did not stick:$bad"
	echo "$hash" > "$obj/.lab-config"
fi

log "$variant: building bzImage"
start=$(date +%s)
if ! "${MK[@]}" bzImage > "$obj/build.log" 2>&1; then
	tail -30 "$obj/build.log" >&2
	die "$variant: kernel build failed (full log: $obj/build.log)"
fi
cp "$obj/arch/x86/boot/bzImage" "$BUILD/$variant/bzImage"
cp "$obj/.config" "$BUILD/$variant/config"
{
	echo "VARIANT=$variant"
	echo "KERNELRELEASE=$(cat "$obj/include/config/kernel.release")"
	echo "COMMIT=$(git -C "$src" rev-parse HEAD)"
	echo "FILEMAP_BLOB=$(git -C "$src" rev-parse HEAD:mm/filemap.c)"
	echo "SERIES_PATCHES=$(git -C "$src" rev-list --count lab-base..HEAD)"
} > "$BUILD/$variant/info.env"
log "$variant: built in $(( $(date +%s) - start ))s -> build/$variant/bzImage"
