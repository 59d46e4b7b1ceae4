#!/bin/bash
# Boot a guest kernel in QEMU, run one job, and judge the run.
#   run-guest.sh -k BZIMAGE -j JOB [-a ARGS] [-d DISK] [-f ext4|xfs]
#                [-m MEM] [-t TIMEOUT_S] [-o CONSOLE_LOG] [-i INITRD] [-r ROOTIMG]
# -r ROOTIMG: boot a root file system image instead of the initramfs (the
# Debian root of make bench, scripts/make-benchroot.sh): attached first, as
# /dev/vda, with snapshot=on, and booted with root=/dev/vda init=/lab/init;
# the data disk (-d) is then /dev/vdb.
# Uses KVM only where it really boots a guest, TCG otherwise, and says
# which. LAB_SMP (default 2) and LAB_ICOUNT (QEMU's -icount, TCG only) are
# make cost's settings (docs/cost.md). Exit 0 only when the guest reaches
# "@@LAB-DONE rc=0"; otherwise prints why (panic, hang, job failure) and
# the console tail, exits 1.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel="" job="" args="" disk="" fs=ext4 mem=2G timeout=600 out="" rootimg=""
initrd=$BUILD/initramfs.cpio
while getopts "k:j:a:d:f:m:t:o:i:r:" o; do
	case $o in
	k) kernel=$OPTARG ;; j) job=$OPTARG ;; a) args=$OPTARG ;;
	d) disk=$OPTARG ;; f) fs=$OPTARG ;; m) mem=$OPTARG ;;
	t) timeout=$OPTARG ;; o) out=$OPTARG ;; i) initrd=$OPTARG ;;
	r) rootimg=$OPTARG ;;
	*) die "bad option" ;;
	esac
done
[ -f "$kernel" ] || die "no kernel image '$kernel'"
if [ -n "$rootimg" ]; then
	[ -f "$rootimg" ] || die "no root image '$rootimg' (scripts/make-benchroot.sh)"
else
	[ -f "$initrd" ] || die "no initramfs '$initrd' (scripts/make-initramfs.sh)"
fi
[ -n "$job" ] || die "no job given (-j)"
out=${out:-$(mktemp /tmp/lab-console.XXXXXX)}

# KVM here is often PVM nested virtualisation, on which a stock kernel
# hangs right after the firmware. Use it only where it is plain KVM and a
# probe boot has shown a kernel message; remember the answer.
pick_accel() {
	case ${LAB_ACCEL:-auto} in
	tcg) echo "tcg forced by LAB_ACCEL"; return ;;
	kvm) echo "kvm forced by LAB_ACCEL"; return ;;
	esac
	# (LAB_KVM_DEV and LAB_PVM_DIR only for the lab's own tests)
	local kvm=${LAB_KVM_DEV:-/dev/kvm} pvm=${LAB_PVM_DIR:-/sys/module/kvm_pvm}
	if [ ! -w "$kvm" ]; then echo "tcg: no usable /dev/kvm"; return; fi
	if [ -d "$pvm" ]; then
		echo "tcg: /dev/kvm is PVM (kvm_pvm loaded), which hangs stock kernels"
		return
	fi
	local memo=$CACHE/accel.kvm
	if [ ! -f "$memo" ]; then
		local probe boot=(-initrd "$initrd")
		[ -z "$rootimg" ] || boot=(-drive "file=$rootimg,format=raw,if=virtio,snapshot=on")
		# stdin from /dev/null, as for the real run: QEMU -nographic
		# puts a terminal on stdin in raw mode, and timeout runs it in
		# a background process group, where that stops it (SIGTTOU):
		# the probe would print nothing and KVM be given up for good
		probe=$(timeout 20 qemu-system-x86_64 -accel kvm -m 256M -nographic \
			-no-reboot -kernel "$kernel" -append "console=ttyS0 panic=-1 lab.job=none" \
			"${boot[@]}" < /dev/null 2>/dev/null | grep -m1 -c "Linux version" || true)
		mkdir -p "$CACHE"
		echo "${probe:-0}" > "$memo"
	fi
	if [ "$(cat "$memo")" = 1 ]; then echo "kvm: probe boot printed a kernel banner"
	else echo "tcg: a probe boot under KVM printed nothing in 20 s"; fi
}
accel_why=$(pick_accel)
accel=${accel_why%%[: ]*}
log "accel: $accel_why"

# Under multi-threaded TCG a vCPU can run code translated before another
# vCPU patched it: the kernel's int3-based text patching (static keys,
# "sched_clock: Marking stable" at boot) then oopses on a stale int3, a few
# boots in a hundred on a busy host. One TCG thread for both vCPUs keeps
# the guest's view of its own code coherent; the workloads are
# single-threaded, so it costs them little.
# LAB_SMP: the guest's vCPUs (make cost boots one: docs/cost.md)
smp=${LAB_SMP:-2}
[[ $smp =~ ^[1-9][0-9]*$ ]] || die "LAB_SMP takes a number of vCPUs, not '$smp'"
qemu=(qemu-system-x86_64 -m "$mem" -smp "$smp" -nographic
      -no-reboot -kernel "$kernel")
if [ -n "$rootimg" ]; then
	qemu+=(-drive "file=$rootimg,format=raw,if=virtio,cache=unsafe,snapshot=on")
else
	qemu+=(-initrd "$initrd")
fi
# LAB_ICOUNT: QEMU's -icount (make cost: shift=0,sleep=off, one guest
# nanosecond a guest instruction); only under single-threaded TCG
if [ -n "${LAB_ICOUNT:-}" ]; then
	[ "$accel" = tcg ] || die "LAB_ICOUNT needs TCG (set LAB_ACCEL=tcg), not $accel"
	[ "${LAB_TCG_THREAD:-single}" = single ] || die "LAB_ICOUNT needs LAB_TCG_THREAD=single"
	qemu+=(-icount "$LAB_ICOUNT")
fi
# LAB_TCG_CPU: the CPU model under TCG (make stress's debug kernels take
# one without 5-level paging: docs/stress.md)
if [ "$accel" = tcg ]; then
	qemu+=(-accel "tcg,thread=${LAB_TCG_THREAD:-single}" -cpu "${LAB_TCG_CPU:-max}")
else
	qemu+=(-accel kvm -cpu host)
fi
# LAB_DISK_BPS: cap the data disk's reads at that many bytes a second
# (QEMU's throttling), for readers that must not outrun their I/O
if [ -n "${LAB_DISK_BPS:-}" ]; then
	[[ $LAB_DISK_BPS =~ ^[1-9][0-9]*$ ]] || die "LAB_DISK_BPS takes bytes a second, not '$LAB_DISK_BPS'"
fi
if [ -n "$disk" ]; then
	[ -f "$disk" ] || die "no disk image '$disk'"
	qemu+=(-drive "file=$disk,format=raw,if=virtio,cache=unsafe,snapshot=on${LAB_DISK_BPS:+,throttling.bps-read=$LAB_DISK_BPS}")
fi
append="console=ttyS0 loglevel=4 panic=-1 oops=panic lab.job=$job lab.fs=$fs"
[ -z "$rootimg" ] || append="$append root=/dev/vda rootfstype=ext4 rw init=/lab/init"
[ -n "$args" ] && append="$append lab.args=${args// /,}"
# LAB_CMDLINE: more kernel parameters; a later one wins (loglevel=7 after
# the default 4 puts WARNING reports, which are KERN_WARNING, on the console)
[ -n "${LAB_CMDLINE:-}" ] && append="$append $LAB_CMDLINE"
qemu+=(-append "$append")

cpu=host; [ "$accel" = tcg ] && cpu="${LAB_TCG_CPU:-max}"
echo "@@LAB-ACCEL $accel cpu=${cpu}${LAB_ICOUNT:+ icount=$LAB_ICOUNT smp=$smp}" > "$out"
start=$(date +%s)
set +e
# line by line into the log, and what the job reports onto stderr as it
# comes, named by the kernel's directory (guests may run side by side), so
# that a long run shows progress
name=$(basename "$(dirname "$kernel")")
timeout --foreground -k 5 "$timeout" "${qemu[@]}" < /dev/null 2>&1 |
	stdbuf -oL tr -d '\r' | tee -a "$out" |
	grep --line-buffered -o -E '@@(RUN|LAB-ERROR) .*' | sed -u "s|^|[guest $name] |" >&2
qrc=${PIPESTATUS[0]}
set -e
elapsed=$(( $(date +%s) - start ))

# The last lines, and where the first kernel report starts when that is
# further up: a panic often follows an earlier oops that explains it.
tail_console() {
	local first total
	first=$(grep -n -m1 -E '(Oops|BUG|WARNING|Kernel panic)[: -]' "$out" | cut -d: -f1 || true)
	total=$(wc -l < "$out")
	if [ -n "$first" ] && [ "$first" -lt $((total - 40)) ]; then
		echo "----- first kernel report ($out, line $first) -----" >&2
		sed -n "$((first > 2 ? first - 2 : 1)),$((first + 24))p" "$out" >&2
	fi
	echo "----- console tail ($out) -----" >&2
	tail -n 40 "$out" >&2
	echo "-------------------------------" >&2
}
if grep -q '@@LAB-DONE rc=0$' "$out"; then
	log "job $job done in ${elapsed}s ($accel)"
	exit 0
fi
if grep -q -E 'Kernel panic|end Kernel panic' "$out"; then
	tail_console; die "guest kernel panicked (job $job, after ${elapsed}s)"
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	tail_console; die "guest hung: no result after ${timeout}s (job $job), killed"
fi
if grep -q '@@LAB-DONE rc=' "$out"; then
	tail_console; die "job $job failed in the guest ($(grep -m1 -o '@@LAB-DONE.*' "$out"))"
fi
tail_console
die "guest ended without finishing job $job (qemu exit $qrc)"
