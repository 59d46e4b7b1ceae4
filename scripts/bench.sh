#!/bin/bash
# make bench: real clients (SQLite through Debian's libsqlite3, numpy.memmap)
# from a Debian guest root, on base and the series in one invocation,
# several runs each, rounds in the order A B, B A, ...; the boots run side
# by side, two at a time (LAB_GUESTS; 1: one after another). Writes
# results/bench.{md,json} and results/bench-*.png (BENCH_SCALE=small:
# results/bench-small.*), consoles under results/bench[-small]/.
#   BENCH_SCALE=full     (default) or small: a quick look, base and the
#                        series only (times: docs/measurements.md)
#   BENCH_VARIANTS="base patched exp-per-page exp-tried-hits"  kernels
#                        compared, the first the reference (small: "base
#                        patched"); exp-per-page and exp-tried-hits
#                        (variants/) are base with 0b9c0aeba938 and with
#                        its companion 9b0fcac3cfe7 undone
#   BENCH_ROUNDS=R       boots per kernel (default full 10, small 4)
#   BENCH_METHOD_ROUNDS=R rounds of 0b9c0aeba938's method (docs/lab.md),
#                        read_ahead_kb 8192, in a guest 2.5 times smaller
#                        than array.u8 (full: 1640M, small: 128M, the least
#                        the Debian root boots in) and one twice its size
#                        (default full 3, small 1; 0: none; odd, so that
#                        the median is a run)
#   BENCH_AFTER_ROUNDS=R rounds whose bench boot also runs make sharp's
#                        readers after random faults (after-random) in the
#                        first 256 MiB of array.u8 (default 4; 0: none)
#   BENCH_VMSCAL_ROUNDS=R rounds with a boot of the vm-scalability mmap
#                        read cases (vmscal) and the random reader
#                        (random-private) in a guest smaller than the
#                        files, the same at both scales (default full 4,
#                        small 2; 0: none)
# The rest is fixed. A bench boot (1 GiB guest, read_ahead_kb 128 on the
# data disk) runs each case once from a cold cache: SQLite's lookup counts
# 0 (the control), 300 and 1000 (small: also 301 and 3000, which stick as
# 1000 does; a stuck full-scale scan on base takes about 100 s under TCG),
# and numpy's 1000 random rows before the sequential part in the first 5
# rounds (small: all). The kernels after the first two boot in the first
# round only (small: the first two): their page counts are many times
# base's, and their boots cost time.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

report=$LAB/scripts/bench_report.py
usage="bench.sh report OUT SCALE COMMAND ELAPSED_S MEM ROOT DISK ROUND=VARIANT=BZIMAGE=CONSOLE..."
case ${1:-} in
-h|--help)
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
	echo "$usage: the report alone (scripts/bench_report.py)"
	exit 0 ;;
report)
	# on consoles already there (make check tests it so)
	shift
	[ $# -ge 8 ] || die "usage: $usage"
	exec python3 "$report" "$@" ;;
esac
export MMLAB_ENTRY="make bench (scripts/bench.sh)"
lab_lock

scale=${BENCH_SCALE:-full}
case $scale in
full)  rounds=10 timeout=7200 ns=0:300:1000 np_rounds=5 m_rounds=3 m_mems="1640M 8G"
       ar_rounds=4 v_rounds=4 exp_rounds=1 vars="base patched exp-per-page exp-tried-hits" ;;
small) rounds=4 timeout=900 ns=0:300:301:1000:3000 np_rounds=4 m_rounds=1 m_mems="128M 512M"
       ar_rounds=4 v_rounds=2 exp_rounds=2 vars="base patched" ;;
*) die "BENCH_SCALE: unknown scale '$scale' (full or small)" ;;
esac
rounds=${BENCH_ROUNDS:-$rounds}
m_rounds=${BENCH_METHOD_ROUNDS:-$m_rounds}
ar_rounds=${BENCH_AFTER_ROUNDS:-$ar_rounds}
v_rounds=${BENCH_VMSCAL_ROUNDS:-$v_rounds}
mem=1G ra=128 reps=1 np_n=1000
# the vmscal boot, in a v_mem guest (the files 2.2 and 3.3 times larger):
# MiB of array.u8 the one-file cases read, MiB of each of array.u8 and
# bench.db for lru-file-mmap-read, threads or processes of the -mt cases
# and lru; then the random reader: a sparse file of 256 MiB, 32768 one-byte
# reads, 3 runs (the report's 4 GiB file, 512 Ki reads and 2 GiB guest
# scaled down alike)
v_mem=128M vmscal="256 192 4" rp="256 32768 3"
read -r -a variants <<<"${BENCH_VARIANTS:-$vars}"
for x in "$rounds" "$m_rounds" "$ar_rounds" "$v_rounds"; do
	[[ $x =~ ^[0-9]+$ ]] || die "BENCH_ROUNDS, BENCH_METHOD_ROUNDS, BENCH_AFTER_ROUNDS and BENCH_VMSCAL_ROUNDS take numbers, not '$x'"
done
[ "$rounds" -ge 1 ] || die "BENCH_ROUNDS must be at least 1"
[ ${#variants[@]} -ge 1 ] || die "BENCH_VARIANTS is empty"
name=bench
[ "$scale" = full ] || name=bench-$scale
S=$LAB/scripts
start=$(date +%s)

bash "$S/deps.sh" bench
build_kernels "${variants[@]}"
kernels=("${variants[@]/#/$BUILD/}")
kernels=("${kernels[@]/%//bzImage}")
root=$(bash "$S/make-benchroot.sh")
disk=$(bash "$S/make-benchroot.sh" disk "$scale")
warm "$root" "$disk"

logs=$RESULTS/$name
rm -rf "$logs"
mkdir -p "$logs"
# Every boot, as R|I|KIND|MEM|ARGS: in round R kernel I runs guest job
# KIND (bench, vmscal or ramethod) in a guest of MEM
plan=()
for ((r = 0; r < rounds; r++)); do
	# all the kernels in the first exp_rounds, the first two after
	k=${#variants[@]}
	[ "$r" -lt "$exp_rounds" ] || [ "$k" -le 2 ] || k=2
	for i in $(abba "$r" "$k"); do
		n=$np_n
		[ "$r" -lt "$np_rounds" ] || n=-
		after=0
		[ "$r" -ge "$ar_rounds" ] || after=1
		plan+=("$r|$i|bench|$mem|$r $reps $ns $n $ra $after")
		[ "$r" -ge "$v_rounds" ] || plan+=("$r|$i|vmscal|$v_mem|$r $vmscal $rp $ra")
		[ "$r" -ge "$m_rounds" ] || for mm in $m_mems; do
			plan+=("$r|$i|ramethod|$mm|$r array.u8 8192")
		done
	done
done
# console R I KIND MEM: where that boot's console goes
console() {
	case $3 in
	bench) echo "$logs/console-r$1-${variants[$2]}.log" ;;
	vmscal) echo "$logs/console-r$1-${variants[$2]}-vmscal.log" ;;
	ramethod) echo "$logs/console-r$1-${variants[$2]}-method-$4.log" ;;
	esac
}
boot() {
	local r i kind m args
	IFS='|' read -r r i kind m args <<< "$1"
	log "$name: round $((r + 1))/$rounds: $kind on ${variants[i]}, $m guest"
	nice -n 10 bash "$S/run-guest.sh" -k "${kernels[i]}" -r "$root" -d "$disk" -m "$m" \
		-t "$timeout" -o "$(console "$r" "$i" "$kind" "$m")" -j "$kind" -a "$args"
}
side_by_side boot "${plan[@]}" || die "$name: a boot failed (above)"
runs=()
for p in "${plan[@]}"; do
	IFS='|' read -r r i kind m _ <<< "$p"
	runs+=("$r=${variants[i]}=${kernels[i]}=$(console "$r" "$i" "$kind" "$m")")
done
elapsed=$(( $(date +%s) - start ))

# the command as given: make bench and the settings that were set
cmd="BENCH_SCALE=$scale"
for x in VARIANTS ROUNDS METHOD_ROUNDS AFTER_ROUNDS VMSCAL_ROUNDS; do
	x=BENCH_$x
	[ -z "${!x:-}" ] || cmd="$cmd $x=\"${!x}\""
done
cmd="$cmd make bench"
LAB_GUESTS=$LAB_GUESTS python3 "$report" "$RESULTS/$name" "$scale" "$cmd" "$elapsed" "$mem" "$root" "$disk" "${runs[@]}"
log "wrote results/$name.md, results/$name.json and the charts in $((elapsed / 60)) min $((elapsed % 60)) s"
