#!/bin/bash
# Make a guest data disk on the host, without loop mounts, and cache it.
#   make-disk.sh demo|check [ext4|xfs|xfs16k]  -> prints the image path
# xfs16k: xfs with 16 KiB blocks (block size larger than the page size);
# the guest mounts it as xfs.
# demo:  big.bin (4 GiB) and thp.bin (2 GiB) of random data + 3 GiB free
# check: big.bin (1 GiB) and thp.bin (512 MiB) + 3 GiB free for the selftest
# The guest opens it with snapshot=on, so the cached image never changes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
lab_lock

kind=${1:?usage: make-disk.sh demo|check [ext4|xfs|xfs16k]}
fs=${2:-ext4}
case $kind in
demo)  big=4096 thp=2048 free=3072 ;;
check) big=1024 thp=512 free=3072 ;;
*) die "unknown disk kind $kind" ;;
esac
case $fs in ext4|xfs|xfs16k) ;; *) die "unknown file system $fs" ;; esac
img=$CACHE/disks/$kind-$fs.img
if [ -s "$img" ]; then echo "$img"; exit 0; fi

mkdir -p "$CACHE/disks"
stage=$CACHE/disks/stage-$kind
rm -rf "$stage" "$stage.proto" "$img.tmp"
# The staged files, then the image holding a copy of them: twice the data.
size=$((big + thp + free))
need_space "$CACHE/disks" $(( 2 * (big + thp) + 256 )) "the $kind disk ($kind-$fs.img, ${size} MiB, $((big + thp)) MiB of it data, staged first)"
# whatever happens, leave neither the staged files nor a partial image
# shellcheck disable=SC2154 # rc is assigned inside the trap string
trap 'rc=$?; rm -rf "$stage" "$stage.proto"; [ $rc = 0 ] || rm -f "$img.tmp"; exit $rc' EXIT
mkdir -p "$stage"
log "disk $kind-$fs: writing $big + $thp MiB of data"
# Random data: zero blocks would be stored as holes and never read.
head -c $((big << 20)) /dev/urandom > "$stage/big.bin" || die "writing the staged big.bin failed"
head -c $((thp << 20)) /dev/urandom > "$stage/thp.bin" || die "writing the staged thp.bin failed"
truncate -s ${size}M "$img.tmp"
case $fs in
ext4)
	mkfs.ext4 -q -F -N 4096 -E lazy_itable_init=0,lazy_journal_init=0 \
		-d "$stage" "$img.tmp" || die "mkfs.ext4 -d failed"
	;;
xfs|xfs16k)
	# mkfs.xfs fills a file system from a prototype file (no loop mount)
	proto=$stage.proto
	{
		echo "/dev/null"; echo "0 0"; echo "d--755 0 0"
		echo "big.bin ---644 0 0 $stage/big.bin"
		echo "thp.bin ---644 0 0 $stage/thp.bin"
		echo '$'
	} > "$proto"
	bs=4096
	[ "$fs" = xfs16k ] && bs=16384
	mkfs.xfs -q -f -b size=$bs -p "$proto" "$img.tmp" ||
		die "mkfs.xfs -b size=$bs -p failed"
	;;
esac
mv "$img.tmp" "$img"
echo "$img"
