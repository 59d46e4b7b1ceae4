#!/bin/bash
# make demo, demo-small, sharp, down and fixes: workload lists, run side by side
# (docs/lab.md says what each list and case is).
#   side-by-side.sh demo|demo-small|sharp|down|fixes
# A list is one or more reports; a report is its kernels and its parts; a
# part is a guest job (guest/jobs/JOB.sh) with its arguments, data disk
# and guest size. Each kernel's consoles, joined, are
# results/console-REPORT-KERNEL.log; results/REPORT.{md,json}
# (scripts/report.py) compares them, the first kernel the reference.
# The scale of make sharp:
#   SHARP_THP_MIB     the VM_HUGEPAGE passes after random faults (512)
#   SHARP_READS       the plain random reader's reads per run (524288)
#   SHARP_SPARSE_MIB  its sparse file (4096), in a SHARP_RANDOM_MEM guest (1G)
#   SHARP_RUNS        its runs (5)
#   SHARP_STREAM_MIB  the four streams together (1024), in a
#                     SHARP_STREAM_MEM guest (512M)
#   SHARP_VARIANTS    the kernels (base v3 patched), base first
# down: DOWN_RUNS, the runs of each case in its one boot per kernel (2)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

list=${1:?usage: side-by-side.sh demo|demo-small|sharp|down|fixes}
export MMLAB_ENTRY="make $list (scripts/side-by-side.sh $list)"

# report NAME KERNEL...: the parts that follow are NAME's
reports=() parts=()
report() { reports+=("$1|${*:2}"); }
# part JOB ARGS DISK FS MEM TIMEOUT: DISK demo, check or lbs (the check
# disk as xfs with 16 KiB blocks: Debian 12's mkfs.xfs -p cannot copy a
# file over 2 GiB, so there is no demo disk on it)
part() { local IFS='|'; parts+=("$(( ${#reports[@]} - 1 ))|$*"); }

case $list in
demo|demo-small)
	scale=full mem=4G timeout=3600
	[ "$list" = demo ] || scale=small mem=2G timeout=1200
	report "$list" base patched
	part demo "$scale" demo ext4 "$mem" "$timeout"
	# the fixes job, where a miss reads a whole 16 KiB block
	report "$list-lbs" base patched
	part fixes "0 300" lbs xfs 2G "$timeout"
	;;
sharp)
	thp_mib=${SHARP_THP_MIB:-512}
	reads=${SHARP_READS:-524288}
	runs=${SHARP_RUNS:-5}
	sparse_mib=${SHARP_SPARSE_MIB:-4096}
	random_mem=${SHARP_RANDOM_MEM:-1G}
	stream_mib=${SHARP_STREAM_MIB:-1024}
	stream_mem=${SHARP_STREAM_MEM:-512M}
	read -r -a k <<< "${SHARP_VARIANTS:-base v3 patched}"
	[ "${k[0]}" = base ] || die "SHARP_VARIANTS must start with base, the reference"
	report sharp "${k[@]}"
	part sharp "main $thp_mib" demo ext4 2G 3600
	part sharp lbs lbs xfs 2G 1800
	part sharp "random 0 $reads $sparse_mib $runs" demo ext4 "$random_mem" 3600
	part sharp "streams 0 0 0 0 $stream_mib" demo ext4 "$stream_mem" 1800
	;;
down)
	# readers moving down after random faults: base, v4 and the series
	report down base v4 patched
	part down "${DOWN_RUNS:-2}" demo ext4 2G 3600
	;;
fixes)
	report fixes base exp-per-page exp-tried-hits exp-thp-free
	part fixes "" check ext4 2G 1800
	;;
*) die "no workload list '$list' (demo, demo-small, sharp, down, fixes)" ;;
esac

lab_lock
S=$LAB/scripts
start=$(date +%s)
bash "$S/deps.sh"
# every kernel of every report, once
mapfile -t all < <(for r in "${reports[@]}"; do printf '%s\n' ${r#*|}; done | awk '!seen[$0]++')
build_kernels "${all[@]}"
KROOT=$(kroot)
# always anew: it must carry guest/jobs and the workloads as they are
bash "$S/make-initramfs.sh" patched
declare -A disks=()
for p in "${parts[@]}"; do
	IFS='|' read -r _ _ _ d _ <<< "$p"
	[ -z "${disks[$d]:-}" ] || continue
	case $d in
	lbs) disks[$d]=$(bash "$S/make-disk.sh" check xfs16k) ;;
	*) disks[$d]=$(bash "$S/make-disk.sh" "$d") ;;
	esac
	warm "${disks[$d]}"
done

mkdir -p "$RESULTS"
tmp=$BUILD/side-by-side
for i in "${!reports[@]}"; do
	name=${reports[i]%%|*}
	read -r -a kernels <<< "${reports[i]#*|}"
	rm -rf "$tmp" && mkdir -p "$tmp"
	boots=$(date +%s) nb=0
	for p in "${parts[@]}"; do
		IFS='|' read -r ri job args d fs mem timeout <<< "$p"
		[ "$ri" = "$i" ] || continue
		for v in "${kernels[@]}"; do
			log "$name: $job${args:+ $args} on $v"
			bash "$S/run-guest.sh" -k "$BUILD/$v/bzImage" -j "$job" \
				${args:+-a "$args"} -d "${disks[$d]}" -f "$fs" -m "$mem" \
				-t "$timeout" -o "$tmp/$nb-$v.log"
		done
		nb=$((nb + 1))
	done
	logs=()
	for v in "${kernels[@]}"; do
		for ((j = 0; j < nb; j++)); do cat "$tmp/$j-$v.log"; done > "$RESULTS/console-$name-$v.log"
		logs+=("$v=$RESULTS/console-$name-$v.log")
	done
	python3 "$S/report.py" "$RESULTS/$name" "${logs[@]}" > /dev/null
	{
		echo
		echo "## Kernels"
		echo
		for v in "${kernels[@]}"; do
			echo "- $v: \`$(git -C "$KROOT/$v/src" log --format='%h %s' -1)\` ($(git -C "$KROOT/$v/src" rev-list --count lab-base..HEAD) patches on lab-base)"
		done
		echo
		echo "Time: $(( $(date +%s) - boots )) s for the $((nb * ${#kernels[@]})) boots, $(( $(date +%s) - start )) s in all (with the builds, the initramfs and the disks)."
	} >> "$RESULTS/$name.md"
	cat "$RESULTS/$name.md"
	log "wrote results/$name.md and results/$name.json"
done
