#!/bin/bash
# make bench: real clients (SQLite through Debian's libsqlite3, numpy.memmap)
# from a Debian guest root, on base and the series in one invocation,
# several runs each, the kernels in the order A B B A A B B A ... (the
# kernel that runs first is otherwise slower on the same work). Writes
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
#   BENCH_EXP_ROUNDS=R   the kernels after the first two boot in the first
#                        R rounds only (default full 1, small 2): their
#                        page counts are many times base's, and their
#                        boots cost time
#   BENCH_REPS=K         runs of every case in each boot, each from a cold
#                        cache (default 1)
#   BENCH_SQLITE_NS=N:N:...  SQLite lookup counts (0: the control; default
#                        full 0:300:1000, small 0:300:301:1000:3000: a
#                        stuck full-scale scan on base takes about 100 s
#                        under TCG, and 301 and 3000 stick as 1000 does)
#   BENCH_NUMPY_N=1000   numpy random rows before the sequential part
#   BENCH_NUMPY_ROUNDS=R the rounds that run numpy too (default full 5,
#                        small all)
#   BENCH_METHOD_ROUNDS=R rounds of 0b9c0aeba938's method (default full 3,
#                        small 1; 0: none; odd, so that the median is a
#                        run): 1 % of array.u8 touched at random, in order
#                        and in strides of 1021, 1024, 2053 and 4099
#                        pages, read_ahead_kb 8192, in a guest 2.5 times
#                        smaller than the file (full: 1640M, small: 128M,
#                        the least the Debian root boots in) and one twice
#                        its size
#   BENCH_AFTER_ROUNDS=R rounds whose bench boot also runs make sharp's
#                        readers that are not sequential (after-random:
#                        adversarial, every-other, every-other-warm,
#                        records + probe) in the first 256 MiB of
#                        array.u8 (default 4; 0: none)
#   BENCH_VMSCAL_ROUNDS=R rounds with a boot of the vm-scalability mmap
#                        read cases (vmscal) and the random reader of the
#                        report behind 0b9c0aeba938 (random-private), in
#                        a guest smaller than the files, of the same size
#                        at both scales (default full 4, small 2; 0: none)
#   BENCH_VMSCAL=LEN:LRU:TASKS  MiB of array.u8 the one-file cases read
#                        (default 256), MiB of each of array.u8 and
#                        bench.db for lru-file-mmap-read (192), threads or
#                        processes of the -mt cases and lru (4)
#   BENCH_VMSCAL_MEM=128M memory of that guest (the files 2.2 and 3.3
#                        times larger)
#   BENCH_RP=MIB:READS:RUNS  the random reader: sparse file of MIB
#                        (default 256), READS one-byte reads (32768),
#                        RUNS runs a boot (3): the report's 4 GiB file,
#                        512 Ki reads and 2 GiB guest scaled down alike
#   BENCH_RA_KB=128      read_ahead_kb of the data disk in the guest
#   BENCH_MEM=1G         guest memory
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# report OUT SCALE COMMAND ELAPSED_S MEM ROOT DISK ROUND=VARIANT=BZIMAGE=CONSOLE...:
# OUT.md, OUT.json and the charts OUT-*.png from the consoles of the boots,
# in their order ("bench.sh report ..." runs only this, on consoles already
# there: make check tests it so)
report() {
	python3 "$LAB/scripts/bench_report.py" "$@"
}
case ${1:-} in -h|--help)
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
	echo "bench.sh report OUT SCALE COMMAND ELAPSED_S MEM ROOT DISK ROUND=VARIANT=BZIMAGE=CONSOLE...: the report alone (scripts/bench_report.py)"
	exit 0 ;;
esac
if [ "${1:-}" = report ]; then
	shift
	[ $# -ge 8 ] || die "usage: bench.sh report OUT SCALE COMMAND ELAPSED_S MEM ROOT DISK ROUND=VARIANT=BZIMAGE=CONSOLE..."
	report "$@"
	exit
fi
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
exp_rounds=${BENCH_EXP_ROUNDS:-$exp_rounds}
reps=${BENCH_REPS:-1}
ns=${BENCH_SQLITE_NS:-$ns}
np_n=${BENCH_NUMPY_N:-1000}
np_rounds=${BENCH_NUMPY_ROUNDS:-$np_rounds}
m_rounds=${BENCH_METHOD_ROUNDS:-$m_rounds}
ra=${BENCH_RA_KB:-128}
mem=${BENCH_MEM:-1G}
ar_rounds=${BENCH_AFTER_ROUNDS:-$ar_rounds}
v_rounds=${BENCH_VMSCAL_ROUNDS:-$v_rounds}
v_mem=${BENCH_VMSCAL_MEM:-128M}
vmscal=${BENCH_VMSCAL:-256:192:4}
rp=${BENCH_RP:-256:32768:3}
[[ $vmscal =~ ^[1-9][0-9]*:[1-9][0-9]*:[1-9][0-9]*$ ]] || die "BENCH_VMSCAL: LEN:LRU:TASKS in MiB, MiB and tasks (e.g. 256:192:4), not '$vmscal'"
[[ $rp =~ ^[1-9][0-9]*:[1-9][0-9]*:[1-9][0-9]*$ ]] || die "BENCH_RP: MIB:READS:RUNS (e.g. 256:32768:3), not '$rp'"
[ "${vmscal##*:}" -le 64 ] || die "BENCH_VMSCAL: at most 64 tasks"
[ "${rp##*:}" -le 15 ] || die "BENCH_RP: at most 15 runs a boot"
[[ $v_mem =~ ^[1-9][0-9]*[MG]$ ]] || die "BENCH_VMSCAL_MEM: a size such as 128M or 1G, not '$v_mem'"
read -r -a variants <<<"${BENCH_VARIANTS:-$vars}"
for x in "$rounds" "$exp_rounds" "$reps" "$np_n" "$ra" "$np_rounds" "$m_rounds" "$ar_rounds" "$v_rounds"; do
	[[ $x =~ ^[0-9]+$ ]] || die "BENCH_ROUNDS, BENCH_EXP_ROUNDS, BENCH_REPS, BENCH_NUMPY_N, BENCH_NUMPY_ROUNDS, BENCH_METHOD_ROUNDS, BENCH_AFTER_ROUNDS, BENCH_VMSCAL_ROUNDS and BENCH_RA_KB take numbers, not '$x'"
done
if [ "$rounds" -lt 1 ] || [ "$reps" -lt 1 ]; then die "BENCH_ROUNDS and BENCH_REPS must be at least 1"; fi
[[ $ns =~ ^[0-9]+(:[0-9]+)*$ ]] || die "BENCH_SQLITE_NS: lookup counts separated by ':' (e.g. 0:300:301), not '$ns'"
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
# Read the images once on the host, so that the first kernel does not pay
# for a cold host page cache that the next one finds warm.
log "warming the host's cache of the root and data images"
cat "$root" "$disk" > /dev/null

logs=$RESULTS/$name
rm -rf "$logs"
mkdir -p "$logs"
runs=()
# boot I KIND MEM ARGS: one boot of kernel I running guest job KIND
# (bench, vmscal or ramethod) in MEM, its console kept and listed for the
# report
boot() {
	local i=$1 kind=$2 m=$3 args=$4 out
	out=$logs/console-r$r-${variants[i]}
	case $kind in
	vmscal) out=$out-vmscal ;;
	ramethod) out=$out-method-$m ;;
	esac
	nice -n 10 bash "$S/run-guest.sh" -k "${kernels[i]}" -r "$root" -d "$disk" \
		-m "$m" -t "$timeout" -o "$out.log" -j "$kind" -a "$args"
	runs+=("$r=${variants[i]}=${kernels[i]}=$out.log")
}
for ((r = 0; r < rounds; r++)); do
	# the kernels of this round: all in the first BENCH_EXP_ROUNDS, the
	# first two after; A B, then B A, ...: each as often first as last
	k=${#variants[@]}
	[ "$r" -lt "$exp_rounds" ] || [ "$k" -le 2 ] || k=2
	if [ $((r % 2)) = 0 ]; then mapfile -t idx < <(seq 0 $((k - 1)))
	else mapfile -t idx < <(seq $((k - 1)) -1 0); fi
	for i in "${idx[@]}"; do
		v=${variants[i]}
		log "$name: round $((r + 1))/$rounds on $v"
		n=$np_n
		[ "$r" -lt "$np_rounds" ] || n=-
		after=0
		[ "$r" -ge "$ar_rounds" ] || after=1
		boot "$i" bench "$mem" "$r $reps $ns $n $ra $after"
		if [ "$r" -lt "$v_rounds" ]; then
			log "$name: round $((r + 1)): vm-scalability cases and the random reader on $v, $v_mem guest"
			boot "$i" vmscal "$v_mem" "$r ${vmscal//:/ } ${rp//:/ } $ra"
		fi
		[ "$r" -lt "$m_rounds" ] || continue
		for mm in $m_mems; do
			log "$name: round $((r + 1)): 0b9c0aeba938's method on $v, $mm guest"
			boot "$i" ramethod "$mm" "$r array.u8 8192"
		done
	done
done
elapsed=$(( $(date +%s) - start ))

# the command as given: make bench and the settings that were set
cmd="BENCH_SCALE=$scale"
for x in VARIANTS ROUNDS EXP_ROUNDS REPS SQLITE_NS NUMPY_N NUMPY_ROUNDS METHOD_ROUNDS AFTER_ROUNDS \
	VMSCAL_ROUNDS VMSCAL VMSCAL_MEM RP RA_KB MEM; do
	x=BENCH_$x
	[ -z "${!x:-}" ] || cmd="$cmd $x=\"${!x}\""
done
cmd="$cmd make bench"
report "$RESULTS/$name" "$scale" "$cmd" "$elapsed" "$mem" "$root" "$disk" "${runs[@]}"
log "wrote results/$name.md, results/$name.json and the charts in $((elapsed / 60)) min $((elapsed % 60)) s"
