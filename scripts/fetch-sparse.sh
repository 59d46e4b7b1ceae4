#!/bin/bash
# Print the path of a sparse that the base kernel accepts for C=1, building
# it once from Debian's source package (sid, private apt setup) into the
# cache. Debian 12's own sparse 0.6.4 does not know __typeof_unqual__:
# kbuild then warns "sparse is not available or not up to date" and checks
# nothing, which a review must never take for "no warnings".
set -euo pipefail
. "$(dirname "$0")/lib.sh"
lab_lock

KROOT=$(kroot)
valid() { [ "$(sh "$KROOT/base/src/scripts/checker-valid.sh" "$1" -m64 2>/dev/null)" = 1 ]; }

for s in "$CACHE"/tools/sparse-*/sparse; do
	if [ -x "$s" ] && valid "$s"; then echo "$s"; exit 0; fi
done

APT=$CACHE/apt-src
private_apt "$APT" deb-src
log "sparse: updating private source lists ($APT_SUITES)"
apt_get_update "private source lists ($APT_SUITES)" "${APTOPT[@]}"
# showsrc fails when the archive has no sparse: that is the "none" case
versions=$(apt-cache "${APTOPT[@]}" showsrc sparse 2>/dev/null) || versions=
versions=$(awk '/^Version:/ {print $2}' <<<"$versions")
ver=$SPARSE_SRC_VERSION
if ! grep -qxF "$ver" <<<"$versions"; then
	ver=$(sort -V <<<"$versions" | tail -1)
	[ -n "$ver" ] || die "no sparse source package in $APT_SUITES"
	warn "sparse $SPARSE_SRC_VERSION is no longer in the archive; building $ver"
fi

dir=$CACHE/tools/sparse-$(echo "$ver" | tr '~:' '__')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get "${APTOPT[@]}" -qq source --download-only "sparse=$ver") \
	>/dev/null 2>&1 || die "could not download the sparse $ver source package"
orig=$(ls "$work"/sparse_*.orig.tar.* 2>/dev/null) || die "the sparse $ver source package has no orig tarball"
tar -C "$work" -xf "$orig"
src=$(ls -d "$work"/sparse-*/ 2>/dev/null) || die "the sparse $ver tarball has no sparse-*/ directory"
log "sparse: building $ver"
make -C "$src" -j"$(nproc)" sparse > "$work/build.log" 2>&1 ||
	{ tail -20 "$work/build.log" >&2; die "building sparse $ver failed"; }
mkdir -p "$dir"
cp "$src/sparse" "$dir/sparse"
valid "$dir/sparse" || die "sparse $ver does not pass the kernel's checker-valid.sh"
echo "$dir/sparse"
