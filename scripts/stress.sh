#!/bin/bash
# make stress: the data-checking stress workloads (guest/jobs/stress.sh,
# workloads/stress*.c) on the debug flavour of base and of the series
# (config/debug.config: KASAN, lockdep with PROVE_RCU, DEBUG_VM with
# DEBUG_VM_PGFLAGS, DEBUG_ATOMIC_SLEEP, fault injection). A run fails on
# any data mismatch, any failed workload, a guest that does not finish, or
# any report of the kernel in its console (scripts/stress_report.py),
# which is shown. The kernels run side by side (LAB_GUESTS at a time).
# Prints the counts per kernel and writes results/stress.{md,json}.
#   STRESS_VARIANTS  the kernels (base patched)
#   STRESS_FLAVOR    their flavour (debug; empty: the plain lab kernels)
#   STRESS_MODE      the job's size (full; quick is make check's pass)
#   STRESS_MEM       guest memory (768M); the files are twice its size
#   STRESS_TIMEOUT   seconds per kernel (5400)
#   STRESS_OUT       where the report goes (results/stress)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export MMLAB_ENTRY="make stress (scripts/stress.sh)"
lab_lock

read -r -a variants <<< "${STRESS_VARIANTS:-base patched}"
flavor=${STRESS_FLAVOR-debug}
mode=${STRESS_MODE:-full}
mem=${STRESS_MEM:-768M}
timeout=${STRESS_TIMEOUT:-5400}
out=${STRESS_OUT:-$RESULTS/stress}
case $mode in quick|full) ;; *) die "STRESS_MODE must be quick or full, not '$mode'" ;; esac

S=$LAB/scripts
start=$(date +%s)
if [ -z "${STRESS_NO_BUILD:-}" ]; then
	bash "$S/deps.sh"
	LAB_FLAVOR=$flavor build_kernels "${variants[@]}"
	bash "$S/make-initramfs.sh" patched
fi
disk=$(bash "$S/make-disk.sh" check)
# The kernel's WARNING reports (WARN_ON, lockdep, RCU) are KERN_WARNING,
# under the lab's loglevel=4. A debug kernel under TCG runs ACPI's _PRT
# method so slowly that its loop times out (AE_AML_LOOP_TIMEOUT) and the
# boot stalls for minutes: route PCI interrupts without ACPI there.
# QEMU's -cpu max offers 5-level paging, and on 7.3-rc7 an interrupt that
# lands while identify_cpu() has cleared the boot CPU's capabilities sees
# pgtable_l5_enabled() false: generic KASAN then calls an access to the
# 5-level direct map wild (a false report, known upstream since 7.1;
# docs/stress.md). The debug kernels run on a CPU without LA57.
export LAB_CMDLINE="${LAB_CMDLINE:-loglevel=7${flavor:+ pci=noacpi}}"
[ -z "$flavor" ] || export LAB_TCG_CPU="${LAB_TCG_CPU:-max,la57=off}"
mkdir -p "$(dirname "$out")"

# stress_on V: one guest on V's kernel; its entry for the report goes to
# its console's name with .run (a failed guest is the report's to judge)
stress_on() {
	local k=$1${flavor:+-$flavor} t0 rc=0
	log "stress ($mode) on $k"
	t0=$(date +%s)
	bash "$S/run-guest.sh" -k "$BUILD/$k/bzImage" -j stress -a "$mode" \
		-d "$disk" -f ext4 -m "$mem" -t "$timeout" -o "$out-$k.console" || rc=$?
	echo "$k=$out-$k.console:$rc:$(( $(date +%s) - t0 ))" > "$out-$k.run"
}
side_by_side stress_on "${variants[@]}"
runs=()
for v in "${variants[@]}"; do
	runs+=("$(cat "$out-$v${flavor:+-$flavor}.run")")
	rm "$out-$v${flavor:+-$flavor}.run"
done
rc=0
python3 "$S/stress_report.py" "$out" "$mode" "$flavor" "$mem" "${runs[@]}" || rc=$?
log "wrote ${out#"$LAB"/}.md and .json in $(( $(date +%s) - start ))s"
[ "$rc" = 0 ] || die "stress: a run had problems (listed above)"
