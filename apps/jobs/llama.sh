#!/bin/sh
# make bench-apps, one boot: llama.cpp and ggufread over /mnt/model.gguf.
#   llama.sh ROUND TOKENS PASSES MEMORY_MAX [READ_AHEAD_KB [CASES [GM_ARGS]]]
# Every case from a cold cache, in the memory cgroup of appsrun.py with
# memory.max MEMORY_MAX (smaller than the model), READ_AHEAD_KB on the
# data disk (default 128). CASES (colon-separated, default all):
#   llama-plain, llama-touch300: llama-completion, a fixed prompt (3
#     tokens: a longer one costs a pass of arithmetic a token), seed
#     ROUND, greedy, 2 threads, -n 1 and -n TOKENS (the difference is what
#     generating TOKENS-1 more tokens costs); touch300: 300 random one-byte
#     reads of the model through llama.cpp's own open file before its
#     mmap (touch-first.so); after300: the same through llama.cpp's own
#     mapping, once its mmap(MAP_POPULATE) has returned
#   read-plain, read-rand300: ggufread, the same reads without the
#     arithmetic: llama.cpp's mapping (MAP_POPULATE, MADV_WILLNEED), then
#     PASSES passes of the tensors in order, 2 threads by row ranges;
#     rand300: 300 random faults through the same open file first;
#     after300: through the mapping, once populated (ggufread -A);
#     rand300-nohdr: rand300 with the header's pages dropped from the
#     cache before the mapping (ggufread -H)
#   read-bare-plain, read-bare-rand300: the same without llama.cpp's
#     prefetch (no MAP_POPULATE, no MADV_WILLNEED): the reads of a
#     program that maps a file and walks it, the faults alone
#   gm: GraphicsMagick in the same boot (gm.sh ROUND GM_ARGS, GM_ARGS
#     REPS:DURATION, default 1:8), saving a boot
round=${1:?round} tokens=${2:?tokens} passes=${3:?passes} mem=${4:?memory.max}
ra=${5:-128} cases=${6:-llama-plain:llama-touch300:read-plain:read-rand300:read-after300:read-bare-plain:read-bare-rand300}
gmargs=${7:-1:8}
echo "$ra" > /sys/block/vdb/queue/read_ahead_kb || exit 1
echo "@@BENCH round=$round read_ahead_kb=$(cat /sys/block/vdb/queue/read_ahead_kb) mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo) memory_max=$mem model_bytes=$(stat -c %s /mnt/model.gguf)"
fail=0
run() { appsrun.py -m "$mem" "$@" || fail=1; }
prompt=Hi
llama() {
	for n in 1 "$tokens"; do
		run -k workload=llama -k start="$1" -k round="$round" -k n_predict="$n" -- \
			env ${2:+LD_PRELOAD=/lab/lib/touch-first.so TOUCH_FIRST=300 TOUCH_FIRST_WHEN=$2 TOUCH_FIRST_SEED=$round} \
			llama-completion -m /mnt/model.gguf -p "$prompt" -n "$n" -s "$round" \
			--temp 0 -t 2 -c 256 -no-cnv
	done
}
for c in $(echo "$cases" | tr : ' '); do
	case $c in
	llama-plain) llama plain ;;
	llama-touch300) llama touch300 before ;;
	llama-after300) llama after300 after ;;
	read-plain) run -k workload=ggufread -k start=plain -k round="$round" -- \
		ggufread -P -t 2 -p "$passes" -S "$round" -d vdb -w ggufread /mnt/model.gguf ;;
	read-rand300) run -k workload=ggufread -k start=rand300 -k round="$round" -- \
		ggufread -P -t 2 -p "$passes" -r 300 -S "$round" -d vdb -w ggufread /mnt/model.gguf ;;
	read-rand300-nohdr) run -k workload=ggufread -k start=rand300-nohdr -k round="$round" -- \
		ggufread -P -H -t 2 -p "$passes" -r 300 -S "$round" -d vdb -w ggufread /mnt/model.gguf ;;
	read-after300) run -k workload=ggufread -k start=after300 -k round="$round" -- \
		ggufread -P -t 2 -p "$passes" -r 300 -A -S "$round" -d vdb -w ggufread /mnt/model.gguf ;;
	read-bare-plain|read-bare-rand300)
		r=; [ "$c" = read-bare-plain ] || r="-r 300"
		run -k workload=ggufread -k start="${c#read-}" -k round="$round" -- \
		ggufread -t 2 -p "$passes" $r -S "$round" -d vdb -w ggufread /mnt/model.gguf ;;
	gm) /lab/jobs/gm.sh "$round" ${gmargs%%:*} ${gmargs#*:} || fail=1 ;;
	*) echo "@@LAB-ERROR llama.sh: no case '$c'"; fail=1 ;;
	esac
done
exit $fail
