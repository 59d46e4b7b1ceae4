#!/bin/bash
# make cost: what each kernel costs a fault, in guest instructions
# (docs/cost.md). Each kernel is built -O2 (LAB_FLAVOR=cost,
# config/cost.config) and booted under QEMU TCG with -icount
# shift=0,sleep=off, one vCPU, where a task's CPU time (getrusage's user +
# system) counts the guest instructions run for it; guest/jobs/cost.sh
# runs workloads/cost.c's cases on sparse files, RUNS runs each.
#   cost.sh [all]   every case on COST_KERNELS -> results/cost.{md,json}
#                   and results/console-cost-KERNEL[-BOOT].log
#   cost.sh check   only the plain random reader, on COST_CHECK_KERNELS
#                   (base patched): fails when the second's CPU time per
#                   read is past COST_BOUND (1.02) times the first's;
#                   consoles and report in build/cost-check/
# Kernels by name: base, patched (the series' work tree, as make apply
# makes it), a directory of variants/ (its work tree made by
# apply-series.sh -v NAME variants/NAME), or a work tree that is there
# already ($KROOT/NAME/src, taken as it is). Settings:
#   COST_KERNELS       the kernels of 'all' (base v4 patched), base first
#   COST_VARIANTS      more kernels, after those
#   COST_CHECK_KERNELS the reference and the kernel checked (base patched)
#   COST_BOUND         check's bound on the ratio (1.02)
#   COST_BOOTS         boots of each kernel (1; 3 shows the spread between
#                      boots); COST_RUNS runs a case a boot (3);
#                      COST_READS the plain random reader's reads (262144)
# The kernels, the initramfs and the cost disk are made under the lab's
# lock; the boots run after it is released (they read only build/*-cost,
# build/cost-guest and the cost disk, which only this script writes),
# LAB_GUESTS at a time: instruction counts do not depend on the host's load.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

what=${1:-all}
case $what in
all)   read -r -a kernels <<< "${COST_KERNELS:-base v4 patched} ${COST_VARIANTS:-}" ;;
check) read -r -a kernels <<< "${COST_CHECK_KERNELS:-base patched}"
       [ "${#kernels[@]}" = 2 ] || die "COST_CHECK_KERNELS takes two kernels: the reference and the one checked" ;;
*) die "usage: cost.sh [all|check]" ;;
esac
[ "${kernels[0]}" = base ] || [ "$what" = check ] || die "COST_KERNELS must start with base, the reference"
boots=${COST_BOOTS:-1} runs=${COST_RUNS:-3} reads=${COST_READS:-262144}
bound=${COST_BOUND:-1.02}
for n in "$boots" "$runs" "$reads"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "COST_BOOTS, COST_RUNS and COST_READS take numbers, not '$n'"
done
export MMLAB_ENTRY="make cost (scripts/cost.sh $what)"
S=$LAB/scripts
guest=$BUILD/cost-guest
disk=$CACHE/disks/cost-ext4.img
start=$(date +%s)

# prepare KERNEL: its work tree, built -O2 as build/KERNEL-cost
prepare() {
	local v=$1 dirs
	case $v in
	base) ;;
	patched) bash "$S/apply-series.sh" ;;
	*)
		if [ -d "$LAB/variants/$v" ]; then
			mapfile -t dirs < <(variant_dirs "$v")
			bash "$S/apply-series.sh" -v "$v" "${dirs[@]}"
		elif [ -d "$KROOT/$v/src" ]; then
			log "cost: $v: the work tree $KROOT/$v/src as it is"
		else
			die "no kernel '$v': neither base, patched, a directory of variants/ nor a work tree in $KROOT"
		fi ;;
	esac
	LAB_FLAVOR=cost bash "$S/build-kernel.sh" "$v"
}

# Under the lock: packages, base, kernels, the initramfs (in its own
# directory: build/initramfs.cpio is other targets'), an empty ext4 disk
# for the sparse files; and the report's head, while the trees are as built.
(
	lab_lock
	bash "$S/deps.sh"
	bash "$S/fetch-base.sh"
	KROOT=$(kroot)
	mapfile -t uniq < <(printf '%s\n' "${kernels[@]}" | awk '!seen[$0]++')
	for v in "${uniq[@]}"; do prepare "$v"; done
	MMLAB_BUILD=$guest bash "$S/make-initramfs.sh" base
	if [ ! -s "$disk" ]; then
		mkdir -p "${disk%/*}"
		truncate -s 256M "$disk.tmp"
		mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$disk.tmp" ||
			{ rm -f "$disk.tmp"; die "mkfs.ext4 of the cost disk failed"; }
		mv "$disk.tmp" "$disk"
	fi
	echo "$(provenance "${uniq[@]}"); $(qemu-system-x86_64 --version | head -1)" > "$guest/provenance"
)
prov=$(cat "$guest/provenance")

if [ "$what" = check ]; then
	out=$BUILD/cost-check
	job_args="check $runs $reads"
else
	out=$RESULTS
	job_args="all $runs $reads"
fi
mkdir -p "$out"
# boot KERNEL:BOOT: one boot, its console in $out
export LAB_ACCEL=tcg LAB_TCG_THREAD=single LAB_TCG_CPU=max LAB_SMP=1 \
	LAB_ICOUNT=shift=0,sleep=off
console() { local c=$out/console-cost-$1; [ "$boots" = 1 ] || c+=-$2; echo "$c.log"; }
boot() {
	local v=${1%:*} b=${1#*:}
	log "cost: $what on $v, boot $b of $boots"
	bash "$S/run-guest.sh" -k "$BUILD/$v-cost/bzImage" -i "$guest/initramfs.cpio" \
		-j cost -a "$job_args" -d "$disk" -f ext4 -m 1G -t 3600 \
		-o "$(console "$v" "$b")"
}
mapfile -t todo < <(for b in $(seq 1 "$boots"); do
	for i in $(abba $((b - 1)) ${#kernels[@]}); do echo "${kernels[i]}:$b"; done
done | awk '!seen[$0]++')
booted=$(date +%s)
side_by_side boot "${todo[@]}"
booted=$(( $(date +%s) - booted ))

args=()
for v in $(printf '%s\n' "${kernels[@]}" | awk '!seen[$0]++'); do
	logs=
	for b in $(seq 1 "$boots"); do logs+=${logs:+,}$(console "$v" "$b"); done
	args+=("$v=$logs")
done
elapsed=$(( $(date +%s) - start ))
if [ "$what" = check ]; then
	python3 "$S/cost_report.py" check --bound "$bound" --prov "$prov" \
		--command "scripts/cost.sh check" --seconds "$elapsed" "$out/cost-check" "${args[@]}"
else
	python3 "$S/cost_report.py" all --prov "$prov" --command "make cost (scripts/cost.sh)" \
		--seconds "$elapsed" --boot-seconds "$booted" "$RESULTS/cost" "${args[@]}"
	log "wrote results/cost.md and results/cost.json"
fi
