#!/bin/bash
# make bench-apps: llama.cpp, ggufread and GraphicsMagick in a Debian sid
# guest root (apps/make-root.sh), several boots of each kernel in the order
# A B B A ...; docs/apps.md says what it runs and writes. In results/apps/,
# run.env has the lab's commit, QEMU and the command, packages.env the
# root's packages, kernel-VARIANT.env each kernel's info.env:
# `bash scripts/bench-apps.sh report` remakes the report from them.
#   APPS_KDIR=DIR        take DIR/VARIANT/bzImage instead of building
#   APPS_VARIANTS="base patched exp-per-page"  kernels, the first the
#                        reference; exp-per-page (variants/, lab-only) is
#                        7.3-rc7 with 0b9c0aeba938 undone, the robot's
#                        "before"; it runs GraphicsMagick only, all its
#                        runs in one boot
# A boot of base or the series runs apps/jobs/llama.sh's cases (docs/apps.md
# says what each is and how long a run takes here): llama-plain and
# llama-touch300 in the first APPS_LLAMA rounds, read-rand300,
# read-after300, read-bare-plain, read-bare-rand300 and gm.
#   APPS_ROUNDS=3        boots of each kernel for each client
#   APPS_TOKENS=3        llama.cpp's longer generation (-n 1 and -n N;
#                        one token takes about 12 s under TCG here)
#   APPS_PASSES=2        ggufread's passes (tokens) a run
#   APPS_MEMMAX=256M     memory.max of the cgroup the model is read in
#                        (APPS_MODEL_MIB=384, the model, 1.5 times that)
#   APPS_LLAMA=ROUNDS    the rounds that run llama.cpp (every one; a
#                        pair of runs takes 1 to 2.5 min under TCG here;
#                        0: ggufread only)
#   APPS_CASES=...       the llama boot's cases instead, ':'-separated
#                        (llama-plain, llama-touch300, llama-after300,
#                        read-plain, read-rand300, read-after300,
#                        read-bare-plain, read-bare-rand300, gm)
#   APPS_GM=1:8          GraphicsMagick: runs a boot, -duration seconds
#                        (one Swirl of the 2400x1600 JPEG takes 17-20 s
#                        under TCG here: one iteration a run)
#   APPS_MEM=1G          guest memory
set -euo pipefail
. "$(dirname "$0")/lib.sh"
if [ "${1:-}" = report ]; then
	exec python3 "$LAB/apps/report.py" "$RESULTS/apps"
fi
export MMLAB_ENTRY="make bench-apps (scripts/bench-apps.sh)"
lab_lock

S=$LAB/scripts
rounds=${APPS_ROUNDS:-3}
tokens=${APPS_TOKENS:-3}
passes=${APPS_PASSES:-2}
memmax=${APPS_MEMMAX:-256M}
llama=${APPS_LLAMA:-$rounds}
gm=${APPS_GM:-1:8}
mem=${APPS_MEM:-1G}
read -r -a variants <<<"${APPS_VARIANTS:-base patched exp-per-page}"
for x in "$rounds" "$tokens" "$passes" "$llama"; do
	[[ $x =~ ^[0-9]+$ ]] || die "APPS_ROUNDS, APPS_TOKENS, APPS_PASSES and APPS_LLAMA take numbers, not '$x'"
done
[ "$rounds" -ge 1 ] && [ "$tokens" -ge 2 ] || die "APPS_ROUNDS at least 1, APPS_TOKENS at least 2"
[[ $gm =~ ^[0-9]+:[1-9][0-9]*$ ]] || die "APPS_GM: RUNS:SECONDS (e.g. 1:8), not '$gm'"
[[ $memmax =~ ^[1-9][0-9]*[MG]$ ]] || die "APPS_MEMMAX: a size such as 256M, not '$memmax'"
[ ${#variants[@]} -ge 1 ] || die "APPS_VARIANTS is empty"
start=$(date +%s)

bash "$S/deps.sh" bench
kernels=()
if [ -n "${APPS_KDIR:-}" ]; then
	for v in "${variants[@]}"; do
		[ -f "$APPS_KDIR/$v/bzImage" ] || die "APPS_KDIR: no $APPS_KDIR/$v/bzImage"
		kernels+=("$APPS_KDIR/$v/bzImage")
	done
else
	build_kernels "${variants[@]}"
	kernels=("${variants[@]/#/$BUILD/}")
	kernels=("${kernels[@]/%//bzImage}")
fi
root=$(bash "$LAB/apps/make-root.sh")
disk=$(bash "$LAB/apps/make-root.sh" disk)
warm "$root" "$disk"

logs=$RESULTS/apps
rm -rf "$logs"
mkdir -p "$logs"
cp "$(bash "$LAB/apps/make-root.sh" versions)" "$logs/packages.env"
for i in "${!variants[@]}"; do
	v=${variants[i]} kd=$(dirname "${kernels[i]}")
	{ [ ! -f "$kd/info.env" ] || cat "$kd/info.env"
	  echo "SHA256_16=$(sha256sum "${kernels[i]}" | cut -c1-16)"; } > "$logs/kernel-$v.env"
done
# boot I JOB TIMEOUT ARGS: one boot of kernel I running apps/jobs/JOB.sh
boot() {
	local i=$1 job=$2 t=$3 args=$4 out
	out=$logs/console-r$r-${variants[i]}-$job.log
	log "bench-apps: round $((r + 1))/$rounds, $job on ${variants[i]}"
	nice -n 10 bash "$S/run-guest.sh" -k "${kernels[i]}" -r "$root" -d "$disk" \
		-m "$mem" -t "$t" -o "$out" -j "$job" -a "$args"
	echo "$r ${variants[i]} ${out##*/}" >> "$logs/runs.txt"
}
k=${#variants[@]}
for ((r = 0; r < rounds; r++)); do
	for i in $(abba "$r" "$k"); do
		v=${variants[i]}
		# the robot's "before" kernel runs its case only, in one boot
		case $v in base|patched) ;;
		*)	[ "${gm%%:*}" = 0 ] || [ "$r" != 0 ] ||
				boot "$i" gm 1800 "$r $(( ${gm%%:*} * rounds )) ${gm#*:}"
			continue ;;
		esac
		cases=read-rand300:read-after300:read-bare-plain:read-bare-rand300
		[ "$r" -ge "$llama" ] || cases=llama-plain:llama-touch300:$cases
		[ "${gm%%:*}" = 0 ] || cases=$cases:gm
		cases=${APPS_CASES:-$cases}
		boot "$i" llama 3600 "$r $tokens $passes $memmax 128 $cases $gm"
	done
done
elapsed=$(( $(date +%s) - start ))
cmd="make bench-apps"
for x in KDIR VARIANTS ROUNDS TOKENS PASSES MEMMAX LLAMA CASES GM MEM MODEL_MIB JPEG; do
	x=APPS_$x
	[ -z "${!x:-}" ] || cmd="$x=\"${!x}\" $cmd"
done
{
	echo "LAB_COMMIT=$(git -C "$LAB" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
	echo "LAB_DIRTY=$(git -C "$LAB" status --porcelain -- apps scripts/bench-apps.sh 2>/dev/null | wc -l)"
	echo "QEMU=$(qemu-system-x86_64 --version | head -n 1)"
	echo "COMMAND=$cmd"
	echo "ELAPSED_S=$elapsed"
	echo "GUEST_MEM=$mem"
	echo "ROOT_IMAGE=${root##*/}"
	echo "DATA_DISK=${disk##*/}"
	echo "HOST=$(nproc) CPUs, $(uname -r)"
} > "$logs/run.env"
python3 "$LAB/apps/report.py" "$logs"
log "wrote results/apps.md, results/apps.json and the charts in $((elapsed / 60)) min $((elapsed % 60)) s"
