#!/bin/bash
# The Debian sid guest root of make bench-apps, and its data disk.
#   apps/make-root.sh           -> prints the root image's path
#   apps/make-root.sh disk      -> prints the data disk's path
#   apps/make-root.sh versions  -> prints the path of PACKAGE=VERSION lines
#                                  of the root's packages
# 1. A minbase sid root with the packages of apps/packages.txt (Debian's
#    llama.cpp-tools, python3-gguf, graphicsmagick, ...), made with
#    mmdebstrap from the lab's mirror ($APT_MIRROR of lab.conf) with this
#    machine's Acquire::Check-Valid-Until and Acquire::Check-Date settings,
#    as scripts/make-benchroot.sh makes the bookworm one. Kept as a
#    tarball in $CACHE/apps/, keyed by the package list, the mirror and
#    mmdebstrap's version.
# 2. That root plus apps/init, apps/jobs/ and the reader of apps/ (built
#    static on the host) as an ext4 image (mkfs.ext4 -d, no loop mount),
#    keyed by the tarball and those files.
# 3. (disk) The data disk: model.gguf, a llama-architecture GGUF of random
#    weights written by apps/gen-gguf.py with the root's own python3-gguf
#    (run in a chroot of the unpacked root: host speed, sid's gguf), and
#    input.jpg, a generated photo-like JPEG (gm, same chroot). Keyed by
#    the generator, its sizes and the tarball.
#   APPS_MODEL_MIB=384  the model's size (about 1.5 x the cgroup limit)
#   APPS_JPEG=2400x1600 the JPEG's geometry
#   APPSROOT_REBUILD=1  make the tarball anew
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
lab_lock apps

A=$LAB/apps
dir=$CACHE/apps
mkdir -p "$dir"
need_root_maker apps/make-root.sh

SUITE=sid
# shellcheck disable=SC2034 # for mmdebstrap_tar (lib.sh)
INCLUDE=$(grep -v -e '^#' -e '^$' "$A/packages.txt" | paste -sd, -)
# shellcheck disable=SC2034
MIRRORS=("deb $APT_MIRROR $SUITE main")
# shellcheck disable=SC2034
aptopts=(--aptopt='APT::Install-Recommends "false"')
mmdebstrap_aptopts
tarball=$dir/$SUITE-apps.tar

# --- 1. the root tarball -------------------------------------------------
mmdebstrap_tar "$tarball" "${APPSROOT_REBUILD:-0}" 3072 "$dir/mmdebstrap.log"
key=$(cat "$tarball.key")

# --- 3. the data disk ----------------------------------------------------
make_disk() {
	local mib=${APPS_MODEL_MIB:-384} geo=${APPS_JPEG:-2400x1600} img stage dkey
	[[ $mib =~ ^[1-9][0-9]*$ ]] || die "APPS_MODEL_MIB: MiB, not '$mib'"
	[[ $geo =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || die "APPS_JPEG: WIDTHxHEIGHT, not '$geo'"
	dkey=$( { echo "$key model=$mib jpeg=$geo files=model.gguf,input.jpg"; sha256sum "$A/gen-gguf.py" "$A/gen-jpeg.py"; } |
		sha256sum | cut -c1-12)
	img=$dir/data-$dkey.img
	if [ -s "$img" ]; then echo "$img"; return 0; fi
	need_space "$dir" $(( 3 * mib + 768 )) "the apps data disk"
	stage=$dir/stage-data
	# shellcheck disable=SC2154 # rc is assigned inside the trap string
	trap 'rc=$?; rm -rf --one-file-system "$stage"; [ $rc = 0 ] || rm -f "$img.tmp"; exit $rc' EXIT
	# a chroot of the root runs the generators: sid's python3-gguf and gm
	# at the host's speed
	unpack "$tarball" "$stage/root"
	mkdir -p "$stage/root/gen" "$stage/data"
	cp "$A/gen-gguf.py" "$A/gen-jpeg.py" "$stage/root/gen/"
	log "apps disk: a $mib MiB llama GGUF of random weights (python3-gguf) and a $geo JPEG"
	nice -n 10 chroot "$stage/root" python3 /gen/gen-gguf.py /gen/model.gguf "$mib" 1 >&2 ||
		die "gen-gguf.py failed"
	nice -n 10 chroot "$stage/root" python3 /gen/gen-jpeg.py /gen/input.ppm "$geo" >&2 ||
		die "gen-jpeg.py failed"
	nice -n 10 chroot "$stage/root" gm convert /gen/input.ppm -quality 90 /gen/input.jpg ||
		die "gm convert of the generated picture failed"
	mv "$stage/root/gen/model.gguf" "$stage/root/gen/input.jpg" "$stage/data/"
	local m
	m=$(du -sm "$stage/data" | cut -f1)
	truncate -s $(( m + m / 16 + 64 ))M "$img.tmp"
	mkfs.ext4 -q -F -N 256 -E lazy_itable_init=0,lazy_journal_init=0 \
		-d "$stage/data" "$img.tmp" || die "mkfs.ext4 -d failed"
	rm -rf --one-file-system "$stage"
	trap - EXIT
	mv "$img.tmp" "$img"
	ls -t "$dir"/data-*.img | tail -n +3 | xargs -r rm -f
	log "apps disk: $img ($(du -h "$img" | cut -f1))"
	echo "$img"
}
if [ "${1:-}" = disk ]; then
	make_disk
	exit 0
fi
if [ "${1:-}" = versions ]; then
	if [ ! "$tarball.versions" -nt "$tarball" ]; then
		tar -xOf "$tarball" ./var/lib/dpkg/status |
			awk '/^Package:/ {p = $2} /^Version:/ {print p "=" $2}' | LC_ALL=C sort > "$tarball.versions.tmp"
		mv "$tarball.versions.tmp" "$tarball.versions"
	fi
	echo "$tarball.versions"
	exit 0
fi
[ $# = 0 ] || die "usage: apps/make-root.sh [disk|versions]"

# --- 2. the image: root + /lab -------------------------------------------
mapfile -t files < <(cd "$LAB" && { echo apps/init; echo apps/ggufread.c; echo apps/touch-first.c;
	find apps/jobs apps/bin -type f; } | LC_ALL=C sort)
ikey=$( { echo "$key"; (cd "$LAB" && sha256sum "${files[@]}"); } | sha256sum | cut -c1-16)
img=$dir/root-$ikey.img
if [ -s "$img" ]; then echo "$img"; exit 0; fi
stage=$dir/stage
trap 'rc=$?; rm -rf --one-file-system "$stage"; [ $rc = 0 ] || rm -f "$img.tmp"; exit $rc' EXIT
need_space "$dir" 2048 "the apps root image"
unpack "$tarball" "$stage"
mkdir -p "$stage/lab/jobs" "$stage/lab/bin" "$stage/lab/lib"
cp "$A/init" "$stage/lab/init"
cp "$A"/jobs/*.sh "$stage/lab/jobs/"
cp "$A"/bin/* "$stage/lab/bin/"
# built here, static (the reader) or against the oldest glibc (the shim),
# so that sid's newer glibc runs them
gcc -O2 -Wall -static -pthread -o "$stage/lab/bin/ggufread" "$A/ggufread.c" ||
	die "building ggufread failed (gcc, libc6-dev)"
gcc -O2 -Wall -shared -fPIC -o "$stage/lab/lib/touch-first.so" "$A/touch-first.c" -ldl ||
	die "building touch-first.so failed"
chmod 755 "$stage/lab/init" "$stage"/lab/jobs/* "$stage"/lab/bin/*
root_image "$stage" "$img" appsroot
rm -rf --one-file-system "$stage"
trap - EXIT
ls -t "$dir"/root-*.img | tail -n +3 | xargs -r rm -f
echo "$img"
