#!/bin/bash
# make sharp: the probe's cost for readers that are not sequential,
# recovery with several streams and on 16 KiB blocks, VM_HUGEPAGE readers
# after random faults and with read_ahead_kb 0, on base, v1 (variants/v1),
# v2 (variants/v2), the signal that preceded v3's (variants/draft-run8)
# and patched, in one go.
# Each part of guest/jobs/sharp.sh is one boot per kernel (side_by_side);
# the parts' consoles are joined per kernel into
# results/console-sharp-KERNEL.log and reported together as
# results/sharp.{md,json}, with the scale of each case.
#
# patched is series/, applied as make demo applies it (apply-series.sh
# refuses to replace work in the tree that is not exported); the report
# names the commits of every kernel.
#
#   SHARP_THP_MIB     the VM_HUGEPAGE passes after random faults (512)
#   SHARP_READS       the plain random reader's reads per run (524288)
#   SHARP_SPARSE_MIB  its sparse file (4096), in a SHARP_RANDOM_MEM guest (1G)
#   SHARP_RUNS        its runs (5)
#   SHARP_STREAM_MIB  the four streams together (1024), in a
#                     SHARP_STREAM_MEM guest (512M)
#   SHARP_VARIANTS    the kernels (base v1 v2 draft-run8 patched), base first
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export MMLAB_ENTRY="make sharp (scripts/sharp.sh)"
lab_lock

thp_mib=${SHARP_THP_MIB:-512}
reads=${SHARP_READS:-524288}
runs=${SHARP_RUNS:-5}
sparse_mib=${SHARP_SPARSE_MIB:-4096}
random_mem=${SHARP_RANDOM_MEM:-1G}
stream_mib=${SHARP_STREAM_MIB:-1024}
stream_mem=${SHARP_STREAM_MEM:-512M}
read -r -a variants <<< "${SHARP_VARIANTS:-base v1 v2 draft-run8 patched}"
[ "${variants[0]}" = base ] || die "SHARP_VARIANTS must start with base, the reference"

S=$LAB/scripts
start=$(date +%s)
bash "$S/deps.sh"
bash "$S/fetch-base.sh"
KROOT=$(kroot)
bash "$S/apply-series.sh"
for v in "${variants[@]}"; do
	case $v in
	base|patched) ;;
	*) bash "$S/apply-series.sh" -v "$v" "$LAB/variants/$v" ;;
	esac
	bash "$S/build-kernel.sh" "$v"
done
# always anew: it must carry guest/jobs/sharp.sh and the workloads as they are
bash "$S/make-initramfs.sh" patched
disk=$(bash "$S/make-disk.sh" demo)
# Debian 12's mkfs.xfs -p cannot copy a file over 2 GiB: the 16 KiB-block
# cases run on the check disk's 1 GiB big.bin
lbs=$(bash "$S/make-disk.sh" check xfs16k)
for d in "$disk" "$lbs"; do
	log "warming the host's cache of $(basename "$d")"
	cat "$d" > /dev/null
done

# The parts report into a scratch directory; results/ gets the whole.
out=$RESULTS parts=$BUILD/sharp-parts
rm -rf "$parts"
RESULTS=$parts
boots=$(date +%s)
side_by_side sharp-main sharp "main $thp_mib" "$disk" ext4 2G 3600 "${variants[@]}"
side_by_side sharp-lbs sharp lbs "$lbs" xfs 2G 1800 "${variants[@]}"
side_by_side sharp-random sharp "random 0 $reads $sparse_mib $runs" "$disk" ext4 "$random_mem" 3600 "${variants[@]}"
side_by_side sharp-streams sharp "streams 0 0 0 0 $stream_mib" "$disk" ext4 "$stream_mem" 1800 "${variants[@]}"
RESULTS=$out

logs=()
for v in "${variants[@]}"; do
	cat "$parts"/console-sharp-{main,lbs,random,streams}-"$v".log > "$RESULTS/console-sharp-$v.log"
	logs+=("$v=$RESULTS/console-sharp-$v.log")
done
python3 "$S/report.py" "$RESULTS/sharp" "${logs[@]}" > /dev/null
took=$(( $(date +%s) - start )) guest=$(( $(date +%s) - boots ))
{
	echo
	echo "## Kernels"
	echo
	for v in "${variants[@]}"; do
		echo "- $v: \`$(git -C "$KROOT/$v/src" log --format='%h %s' -1)\` ($(git -C "$KROOT/$v/src" rev-list --count lab-base..HEAD) patches on lab-base)"
	done
	cat <<EOF

## Cases and scale

Disks: the demo disk (big.bin 4 GiB, thp.bin 2 GiB of random data) on
ext4; the check disk (big.bin 1 GiB) on xfs with 16 KiB blocks (Debian
12's mkfs.xfs -p cannot copy a file over 2 GiB). read_ahead_kb 128
unless said. "N=" is the number of random faults made first on the same
open file; every case opens its file anew with its cache dropped.

- adversarial: 300 random faults in [768 MiB, 1 GiB) of big.bin, then
  every third page of [0, 64 MiB) cached with POSIX_FADV_WILLNEED, then
  2000 accesses, each on the page just after a cached page (random).
  Pages per access: device reads and mincore growth over the accesses.
- every-other: the same 300 random faults, then every other page of
  [128 MiB, 192 MiB) in order (8192 accesses); every-other-warm: the
  same, with the page just before the region made cached first
  (POSIX_FADV_WILLNEED), so that the first access lands just after a
  cached page.
- records-ext4, records-xfs16k: the same 300 random faults, then 2000
  random 16 KiB-aligned records of [0, 256 MiB), each page by page in
  order; then (probe) 50 isolated random faults in [512 MiB, 768 MiB):
  pages per fault about 1 (4, one block, on xfs16k) while readahead is
  still off, about 32 once read-around is back. records32-ext4: the
  same with 32 KiB records; records-dense-ext4: 1024 random 16 KiB
  records of [0, 64 MiB), so that many lie next to another.
- random-private (runs, median): the plain random reader: a sparse file
  of $sparse_mib MiB (ftruncate) on ext4, a $random_mem guest, MAP_PRIVATE,
  $reads random one-byte reads (fixed seed), $runs runs in one boot, each on a
  new open with the cache dropped; the median run (by seconds) with min
  and max. A sparse file reads nothing from the device: pages added to the
  page cache (nr_file_pages growth + pgsteal_file) stand for pages read.
- recovery-ext4: 100 random faults in [3 GiB, 4 GiB), then [2 GiB, 3 GiB)
  (262144 pages) in order. recovery-xfs16k: 100 (and 300) random
  faults in [768 MiB, 1 GiB), then [0, 768 MiB) (196608 pages) in order;
  with 16 KiB blocks some random faults hit, and 100 may leave mmap_miss
  at the limit.
- streams: big.bin mapped whole in a $stream_mem guest; N random faults in
  [3 GiB, 4 GiB), then 4 threads at once, each reading a quarter of
  [0, $stream_mib MiB) in order; major faults of all four (per thread: min,
  max).
- thp-late-ascending/descending: big.bin mapped on a PMD boundary without
  MADV_HUGEPAGE, N small-page random faults in [3 GiB, 4 GiB), then
  madvise(MADV_HUGEPAGE) on the whole mapping and [2 GiB, 2 GiB +
  $thp_mib MiB) in order or last page first. pmd mapped 2m: 2 MiB ranges
  PMD-mapped at the end of the pass (FilePmdMapped).
- thp-ra0-ascending: read_ahead_kb 0, thp.bin's first 1 GiB in order
  through a MADV_HUGEPAGE mapping, no random faults.

Time: ${guest} s for the $((4 * ${#variants[@]})) boots, $took s in all (with
the builds, the initramfs and the disks).
EOF
} >> "$RESULTS/sharp.md"
cat "$RESULTS/sharp.md"
log "wrote results/sharp.md and results/sharp.json (boots ${guest} s, all $took s)"
