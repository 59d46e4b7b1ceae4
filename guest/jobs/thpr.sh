#!/bin/sh
# make thp-random (scripts/thp-random.sh): random readers of a
# MADV_HUGEPAGE mapping once mmap_miss is over the limit (workloads/
# thp-random.c), on the check disk's thp.bin (512 MiB): each shape, with
# and without hits, plain and in a memory cgroup whose memory.max (256 MiB)
# is half the file; then, plain, the same readers under the limit (-N), and
# readers with hits, four times as many accesses; with read_ahead_kb 128
# under the limit; and plain readers of the file half cached in small
# folios (-S). $1 = accesses per run,
# $2 = the round (seeds differ by round).
n=${1:-64} round=${2:-1}
cd /mnt || exit 1
fail=0
# shellcheck disable=SC3040 # busybox sh has pipefail
set -o pipefail 2>/dev/null
cg=/sys/fs/cgroup
mountpoint -q $cg || mount -t cgroup2 none $cg || { echo "@@LAB-ERROR no cgroup2"; exit 1; }
echo +memory > $cg/cgroup.subtree_control || { echo "@@LAB-ERROR no memory controller"; exit 1; }
mkdir -p $cg/lab && echo 256M > $cg/lab/memory.max || exit 1
seed=$((round * 100))
for m in uniform aligned next; do
	for h in "" -H; do
		for where in plain memcg; do
			seed=$((seed + 1))
			echo "@@RUN thp-random -f thp.bin -m $m -a $n $h -s $seed ($where)"
			if [ $where = memcg ]; then
				sh -c "echo \$\$ > $cg/lab/cgroup.procs && exec thp-random -f thp.bin -m $m -a $n $h -s $seed" |
					sed 's/"workload":"thp-random"/"workload":"thp-random","cgroup":"256M"/'
			else
				thp-random -f thp.bin -m $m -a $n $h -s $seed
			fi || { echo "@@LAB-ERROR workload failed"; fail=1; }
		done
	done
done
for m in uniform aligned next; do
	seed=$((seed + 1))
	run_plain() { echo "@@RUN thp-random $*"; thp-random "$@" || { echo "@@LAB-ERROR workload failed"; fail=1; }; }
	run_plain -f thp.bin -m $m -a $n -N -s $seed
	run_plain -f thp.bin -m $m -a $n -N -k 128 -s $seed
	run_plain -f thp.bin -m $m -a $((4 * n)) -H -s $seed
	# no MADV_HUGEPAGE: half the file cached in small folios
	run_plain -f thp.bin -m $m -a $n -S -k 128 -s $seed
done
rmdir $cg/lab
exit $fail
