#!/bin/bash
# Make the Debian guest root of make bench and cache it as an ext4 image.
#   make-benchroot.sh             -> prints the root image's path
#   make-benchroot.sh disk SCALE  -> prints the data disk's path
#                                    (SCALE small or full)
# 1. A minbase Debian 12 root with the real clients the bench runs, made
#    with lib.sh's mmdebstrap_tar as make fresh-check's root is, and kept
#    as a tarball: remade only when its packages, its mirrors or
#    mmdebstrap's version change.
# 2. That root plus the lab's init and jobs (guest/bench/) and the static
#    workloads it runs (in /lab/bin) as an ext4 image, keyed by the
#    tarball and their sources: remade in seconds when only the jobs change.
# 3. (disk SCALE) The data disk, ext4, made once per scale and keyed by its
#    sizes: bench.db, an SQLite database of one table t(id INTEGER PRIMARY
#    KEY, v BLOB) with 1000-byte random blobs (4 rows per 4 KiB page, pages
#    in rowid order), and array.u8, random bytes for numpy.memmap. Real
#    data, no holes: every page is read from the device. The full-scale
#    database (1.7 GiB) stays under SQLite's default 2 GiB mmap limit.
# The guest boots the root as /dev/vda (run-guest.sh -r, snapshot=on: the image
# never changes) with init=/lab/init.
#   BENCHROOT_REBUILD=1  make the tarball anew
set -euo pipefail
. "$(dirname "$0")/lib.sh"
lab_lock

# --- 3. the data disk ---------------------------------------------------
make_disk() {
	local scale=$1 rows arr_mib blob=1000 img stage key
	case $scale in
	full)  rows=1800000 arr_mib=4096 ;;
	small) rows=196608 arr_mib=256 ;;
	*) die "unknown bench scale '$scale' (small or full)" ;;
	esac
	# named by what is in it: a change of sizes makes a new disk
	key=$(echo "rows=$rows blob=$blob array=$arr_mib" | sha256sum | cut -c1-8)
	img=$CACHE/disks/bench-$scale-$key.img
	if [ -s "$img" ]; then echo "$img"; return 0; fi
	rm -f "$CACHE"/disks/bench-"$scale"-*.img
	command -v mkfs.ext4 >/dev/null || die "no mkfs.ext4 (scripts/deps.sh installs e2fsprogs)"
	mkdir -p "$CACHE/disks"
	stage=$CACHE/disks/stage-bench-$scale
	rm -rf "$stage" "$img.tmp"
	need_space "$CACHE/disks" $(( 2 * (rows / 1000 + arr_mib) + 512 )) "the bench data disk ($scale, staged first)"
# shellcheck disable=SC2154 # rc is assigned inside the trap string
	trap 'rc=$?; rm -rf "$stage"; [ $rc = 0 ] || rm -f "$img.tmp"; exit $rc' EXIT
	mkdir -p "$stage"
	log "bench disk $scale: SQLite database of $rows rows of $blob-byte blobs, $arr_mib MiB array"
	nice -n 10 python3 - "$stage/bench.db" "$rows" "$blob" <<-'PY' || die "making the SQLite database failed"
		import sqlite3, sys
		db = sqlite3.connect(sys.argv[1])
		for p in ("page_size=4096", "journal_mode=OFF", "synchronous=OFF"):
		    db.execute("PRAGMA " + p)
		db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)")
		db.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
		           "WHERE x < ?) INSERT INTO t SELECT x, randomblob(?) FROM c",
		           (int(sys.argv[2]), int(sys.argv[3])))
		db.commit()
		db.close()
	PY
	head -c $((arr_mib << 20)) /dev/urandom > "$stage/array.u8" || die "writing the array failed"
	local mib
	mib=$(du -sm "$stage" | cut -f1)
	truncate -s $(( mib + mib / 16 + 128 ))M "$img.tmp"
	mkfs.ext4 -q -F -N 1024 -E lazy_itable_init=0,lazy_journal_init=0 \
		-d "$stage" "$img.tmp" || die "mkfs.ext4 -d failed"
	rm -rf "$stage"
	trap - EXIT
	mv "$img.tmp" "$img"
	log "bench disk $scale: $img ($(du -h "$img" | cut -f1))"
	echo "$img"
}
if [ "${1:-}" = disk ]; then
	make_disk "${2:?usage: make-benchroot.sh disk small|full}"
	exit 0
fi
[ $# = 0 ] || die "usage: make-benchroot.sh [disk small|full]"

SUITE=bookworm
# shellcheck disable=SC2034 # for mmdebstrap_tar (lib.sh)
INCLUDE=sqlite3,python3-minimal,python3,python3-numpy,bpftrace,busybox,util-linux,procps,xfsprogs
# shellcheck disable=SC2034
MIRRORS=("deb http://deb.debian.org/debian $SUITE main"
	 "deb http://deb.debian.org/debian $SUITE-updates main"
	 "deb http://deb.debian.org/debian-security $SUITE-security main")
dir=$CACHE/benchroot
mkdir -p "$dir"
need_root_maker make-benchroot

# shellcheck disable=SC2034
aptopts=(--aptopt='APT::Install-Recommends "false"')
mmdebstrap_aptopts
tarball=$dir/$SUITE-bench.tar
# --- 1. the root tarball -------------------------------------------------
mmdebstrap_tar "$tarball" "${BENCHROOT_REBUILD:-0}" 3072 "$dir/mmdebstrap.log"

# --- 2. the image: root + /lab -------------------------------------------
# the lab's static workloads the bench runs too (built from workloads/ as
# make-initramfs.sh builds them; the image is keyed by their sources)
WORKLOADS="vmscal random-private after-random"
mapfile -t files < <(cd "$LAB" && { find guest/bench -type f;
	for w in $WORKLOADS; do echo "workloads/$w.c"; done
	echo workloads/common.c; echo workloads/common.h; echo workloads/Makefile; } | LC_ALL=C sort)
[ ${#files[@]} -gt 0 ] || die "no guest/bench files in $LAB"
for f in "${files[@]}"; do [ -f "$LAB/$f" ] || die "no $f in $LAB"; done
ikey=$( { cat "$tarball.key"; (cd "$LAB" && sha256sum "${files[@]}"); } | sha256sum | cut -c1-16)
img=$dir/root-$ikey.img
if [ -s "$img" ]; then echo "$img"; exit 0; fi

stage=$dir/stage
rm -rf --one-file-system "$stage" "$img.tmp"
trap 'rc=$?; rm -rf --one-file-system "$stage"; [ $rc = 0 ] || rm -f "$img.tmp"; exit $rc' EXIT
need_space "$dir" 4096 "the bench root image"
unpack "$tarball" "$stage"
# the lab's part: /lab/init, /lab/jobs/*.sh, /lab/bin/* (python and shell)
mkdir -p "$stage/lab"
cp -r "$LAB/guest/bench/." "$stage/lab/"
chmod 755 "$stage/lab/init"
bins=()
for w in $WORKLOADS; do bins+=("$stage/lab/bin/$w"); done
# -pthread for all: vmscal's threads (the Makefile gives it only to its own)
make -s -C "$LAB/workloads" OUT="$stage/lab/bin" CC="ccache gcc" LDLIBS=-pthread "${bins[@]}" ||
	die "building the workloads ($WORKLOADS) failed"
find "$stage/lab" -name '*.sh' -exec chmod 755 {} +
[ ! -d "$stage/lab/bin" ] || chmod 755 "$stage/lab/bin/"*
root_image "$stage" "$img" benchroot
# keep the two images made before this one: another tree of the lab (or a
# bench still running from one) may boot them
ls -t "$dir"/root-*.img | tail -n +4 | xargs -r rm -f
echo "$img"
