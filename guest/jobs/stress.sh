#!/bin/sh
# The guest side of make stress: data-checking workloads on the page-fault
# path (workloads/stress.c). Every page read through a mapping is checked
# against the stamp it was written with.
#   stress.sh quick|full [corrupt]
# quick: a few minutes under TCG on a plain kernel (part of make check);
# full: files twice the guest's memory, longer races (for the debug
# kernels). corrupt: the checker's own test: one wrong word is written
# into each file read, and the job must report mismatches and fail.
#
# One line per workload (parsed on the host):
#   @@STRESS name= faults= majflt= pages_checked= mismatches= sigbus=
#	injected= result=ok|FAIL [detail=...]
#   @@STRESS name= result=skip detail=<why>
# and at the end
#   @@STRESS-TOTAL workloads= faults= injected= mismatches= failed=
# Exits 1 if any workload failed or had a mismatch.
mode=${1:-quick}
corrupt=
case $mode in
quick|full) ;;
*) echo "@@LAB-ERROR stress.sh: mode '$mode': quick or full"; exit 1 ;;
esac
case ${2:-} in
'') ;;
corrupt) corrupt=1 ;;
*) echo "@@LAB-ERROR stress.sh: '$2': only 'corrupt' may follow the mode"; exit 1 ;;
esac

dir=/mnt/stress
lines=/tmp/stress.lines		# the @@STRESS lines, for the totals
knobs=/tmp/stress.knobs		# fault injection settings to restore
dev=vda
ra=/sys/block/$dev/queue/read_ahead_kb
dbg=/sys/kernel/debug
cg=/sys/fs/cgroup
xmnt=/tmp/xfs16k
ra_old=$(cat "$ra" 2>/dev/null)
cg_mounted='' cg_memory_on='' loopdev='' dbg_mounted=''
: > "$lines"
: > "$knobs"

# Put everything back, however the job ends.
cleanup() {
	[ -n "$ra_old" ] && echo "$ra_old" > "$ra"
	if [ -s "$knobs" ]; then
		# probabilities first, so nothing more is injected meanwhile
		grep '/probability ' "$knobs" | while read -r f v; do echo "$v" > "$f"; done
		while read -r f v; do echo "$v" > "$f"; done < "$knobs"
		: > "$knobs"
	fi
	[ -d "$cg/stress" ] && rmdir "$cg/stress" 2>/dev/null
	[ -n "$cg_memory_on" ] && echo -memory > "$cg/cgroup.subtree_control" 2>/dev/null
	[ -n "$cg_mounted" ] && umount "$cg"
	grep -q " $xmnt " /proc/mounts && umount "$xmnt"
	[ -n "$loopdev" ] && losetup -d "$loopdev"
	[ -n "$dbg_mounted" ] && umount "$dbg"
	rm -rf "$dir" "$xmnt"
	cg_mounted='' cg_memory_on='' loopdev='' dbg_mounted=''
}
trap cleanup EXIT
trap 'exit 1' INT TERM

skip() {	# skip NAME WHY
	echo "@@STRESS name=$1 result=skip detail=$2"
}

# run NAME COMMAND...: run one workload; a run that ends without printing
# its line (a crash, a kill, a usage error) is a failure all the same
run() {
	name=$1; shift
	echo "@@RUN stress $name: $*"
	out=/tmp/stress.out
	"$@" > "$out" 2>&1
	rc=$?
	cat "$out"
	if grep -q "^@@STRESS name=$name " "$out"; then
		grep "^@@STRESS name=$name " "$out" >> "$lines"
	else
		l="@@STRESS name=$name faults=0 majflt=0 pages_checked=0 mismatches=0 sigbus=0 injected=0 result=FAIL detail=no_result,exit=$rc"
		echo "$l"; echo "$l" >> "$lines"
	fi
	return 0
}

mkdir -p "$dir" || { echo "@@LAB-ERROR cannot make $dir"; exit 1; }
mem_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
mem_mib=$((mem_kb / 1024))
if [ "$mode" = full ]; then
	big_mib=$((2 * mem_mib))	# twice the memory: runs under reclaim
	trunc_mib=128 trunc_iter=600 trunc_s=300
	small_mib=128 cg_file_mib=256 cg_max_mib=64 xfs_file_mib=384
	inj_mib=$big_mib
else
	big_mib=$((mem_mib * 5 / 4))
	trunc_mib=32 trunc_iter=120 trunc_s=30
	small_mib=64 cg_file_mib=128 cg_max_mib=32 xfs_file_mib=256
	inj_mib=128
fi
levels=4; grep -qw la57 /proc/cpuinfo && levels=5
echo "stress: mode=$mode mem_total=${mem_mib}MiB big=${big_mib}MiB kernel=$(uname -r) read_ahead_kb=$ra_old page_table_levels=$levels"
# 128 KiB of read-around per random fault, as in the demo's recovery case:
# a few hundred random faults then saturate mmap_miss (the disk's default
# reads so much around each that they would not)
echo 128 > "$ra" || { echo "@@LAB-ERROR cannot set $ra"; exit 1; }
start=$(date +%s)

S=stress
big=$dir/big.bin
small=$dir/small.bin

# the file, stamped with generation GEN; in corrupt mode, one wrong word
# in a page the readers read
mkfile() {	# mkfile PATH BYTES GEN
	$S write -f "$1" -s "$2" -g "$3" || return 1
	if [ -n "$corrupt" ]; then
		pages=$((($2 + 4095) / 4096))
		$S corrupt -f "$1" -p $((pages / 2)) -W 7 || return 1
	fi
}

# 1 and 2: random faults (mmap_miss saturates), then four threads at once,
# all on the recovery path: the random faults in the top fifth, the
# threads in the rest (where no read-around of a random fault left a
# readahead flag that would restart readahead without the recovery path)
echo "@@RUN stress write $big ${big_mib}MiB"
t=$(date +%s)
mkfile "$big" $((big_mib << 20)) 1 || { echo "@@LAB-ERROR cannot write $big"; exit 1; }
echo "stress: wrote ${big_mib}MiB in $(( $(date +%s) - t ))s"
run stream-4t $S stream -w stream-4t -f "$big" -g 1 -n 300 -R 20 -p aaaa
run thp-2a2d $S stream -w thp-2a2d -f "$big" -g 1 -n 300 -R 20 -p aadd -T

# 5: fault injection, when the kernel has it
inj_why=
if ! grep -q " $dbg debugfs " /proc/mounts; then
	if mount -t debugfs debugfs "$dbg" 2>/dev/null; then dbg_mounted=1
	else inj_why=no_debugfs; fi
fi
if [ -z "$inj_why" ]; then
	[ -d "$dbg/fail_page_alloc" ] || inj_why=no_fail_page_alloc_in_debugfs
	[ -d "$dbg/fail_make_request" ] || inj_why=${inj_why:+$inj_why,}no_fail_make_request_in_debugfs
	[ -w "/sys/block/$dev/make-it-fail" ] || inj_why=${inj_why:+$inj_why,}no_/sys/block/$dev/make-it-fail
fi
inject_on() {	# bounds: times of fail_page_alloc and fail_make_request
	fa=$dbg/fail_page_alloc fm=$dbg/fail_make_request
	if [ ! -s "$knobs" ]; then
		for f in $fa/probability $fa/interval $fa/times $fa/space $fa/verbose \
			 $fa/task-filter $fa/ignore-gfp-wait $fa/ignore-gfp-highmem \
			 $fa/min-order $fm/probability $fm/interval $fm/times \
			 $fm/space $fm/verbose $fm/task-filter \
			 /sys/block/$dev/make-it-fail; do
			[ -f "$f" ] && echo "$f $(cat "$f")" >> "$knobs"
		done
	fi
	# only tasks marked with make-it-fail (the readers) fail; sleeping
	# allocations too (the page cache's); one line per failure at most
	echo Y > $fa/task-filter; echo N > $fa/ignore-gfp-wait
	echo N > $fa/ignore-gfp-highmem; echo 0 > $fa/min-order
	echo 1 > $fa/interval; echo 0 > $fa/space; echo 0 > $fa/verbose
	echo "$1" > $fa/times; echo 1 > $fa/probability
	echo Y > $fm/task-filter; echo 1 > $fm/interval; echo 0 > $fm/space
	echo 0 > $fm/verbose; echo "$2" > $fm/times; echo 3 > $fm/probability
	echo 1 > /sys/block/$dev/make-it-fail
}
inject_off() {
	echo 0 > $dbg/fail_page_alloc/probability
	echo 0 > $dbg/fail_make_request/probability
	echo 0 > /sys/block/$dev/make-it-fail
}
if [ -n "$inj_why" ]; then
	echo "stress: fault injection skipped: $inj_why (a kernel built without fault injection, fail_page_alloc and fail_make_request)"
	skip inject-stream "$inj_why"
	skip inject-thp-desc "$inj_why"
else
	inj_r=20
	if [ "$inj_mib" != "$big_mib" ]; then
		inj_r=40
		ibig=$dir/inject.bin
		mkfile "$ibig" $((inj_mib << 20)) 5 || { echo "@@LAB-ERROR cannot write $ibig"; exit 1; }
		igen=5
	else
		ibig=$big igen=1
	fi
	sync
	# An I/O error on a fault's read quarters the file's ra_pages
	# (shrink_readahead_size_eio()): after three SIGBUS the rest of
	# inject-stream faults page by page, readahead off, as on any kernel.
	inject_on 300 100
	run inject-stream $S stream -w inject-stream -f "$ibig" -g $igen -n 300 -R $inj_r -p aaaa -F
	inject_off
	inject_on 300 100
	run inject-thp-desc $S stream -w inject-thp-desc -f "$ibig" -g $igen -n 300 -R $inj_r -p dd -T -F
	inject_off
	[ "$ibig" != "$big" ] && rm -f "$ibig"
fi
rm -f "$big"

# 3: truncate and re-extend under faulting readers; MIN not page aligned
# (corrupt: one wrong word below MIN, and a short race)
tmax=$((trunc_mib << 20))
tmin=$((tmax / 4 + 1000 * 8))
[ -n "$corrupt" ] && trunc_s=10
run trunc $S trunc -w trunc -f "$dir/trunc.bin" -g 3 -s $tmax -m $tmin \
	-i $trunc_iter -t 3 -d $trunc_s ${corrupt:+-C 3}
rm -f "$dir/trunc.bin"
[ -n "$corrupt" ] || {	# corrupt: the above showed what it had to

# 4: edge cases
mkfile "$small" $((small_mib << 20)) 2 || { echo "@@LAB-ERROR cannot write $small"; exit 1; }
run edge-page0 $S stream -w edge-page0 -f "$small" -g 2 -l 1 -p a
# one reader down to page 0, through a MADV_HUGEPAGE mapping, mmap_miss
# saturated: no folio below the first
run edge-page0-desc-thp $S stream -w edge-page0-desc-thp -f "$small" -g 2 -n 300 -R 50 -p d -T
mkfile "$dir/one.bin" 4096 4 && run edge-one-page $S stream -w edge-one-page -f "$dir/one.bin" -g 4 -p a
# ends 12347 bytes into a 2 MiB folio (not even on a word)
mkfile "$dir/eof.bin" $(((8 << 20) + 12347)) 6 &&
	run edge-eof-in-folio $S stream -w edge-eof-in-folio -f "$dir/eof.bin" -g 6 -p ad &&
	run edge-eof-in-folio-thp $S stream -w edge-eof-in-folio-thp -f "$dir/eof.bin" -g 6 -p ad -T
rm -f "$dir/one.bin" "$dir/eof.bin"
run edge-offset $S stream -w edge-offset -f "$small" -g 2 -o 1001 -p ad -n 300 -R 50
run edge-offset-thp $S stream -w edge-offset-thp -f "$small" -g 2 -o 512 -p ad -T
if [ -w "$ra" ]; then
	echo 0 > "$ra"
	run edge-ra0 $S stream -w edge-ra0 -f "$small" -g 2 -n 300 -R 50 -p aaaa
	echo 128 > "$ra"
else
	skip edge-ra0 "no_writable_$ra"
fi
run edge-madvise $S stream -w edge-madvise -f "$small" -g 2 -n 300 -R 50 -p aadd -a rsn
run edge-exec $S stream -w edge-exec -f "$small" -g 2 -n 300 -R 50 -p aadd -x
run edge-2proc $S stream -w edge-2proc -f "$small" -g 2 -n 300 -R 50 -p ad -P 2 -O
run edge-fork $S stream -w edge-fork -f "$small" -g 2 -n 300 -R 50 -p a -P 4
rm -f "$small"

# memory cgroup smaller than the file
cg_why=
if ! grep -q " $cg cgroup2 " /proc/mounts; then
	if mount -t cgroup2 cgroup2 "$cg" 2>/dev/null; then cg_mounted=1
	else cg_why=cannot_mount_cgroup2; fi
fi
if [ -z "$cg_why" ] && ! grep -qw memory "$cg/cgroup.subtree_control"; then
	if echo +memory > "$cg/cgroup.subtree_control"; then cg_memory_on=1
	else cg_why=no_memory_controller; fi
fi
if [ -z "$cg_why" ]; then
	mkdir "$cg/stress" && echo $((cg_max_mib << 20)) > "$cg/stress/memory.max" ||
		cg_why=cannot_make_cgroup
fi
if [ -z "$cg_why" ]; then
	mkfile "$dir/cg.bin" $((cg_file_mib << 20)) 7 &&
	run edge-memcg sh -c "echo 0 > $cg/stress/cgroup.procs && exec $S stream -w edge-memcg -f $dir/cg.bin -g 7 -n 300 -R 40 -p aaaa"
	echo "stress: memcg max=${cg_max_mib}MiB file=${cg_file_mib}MiB peak=$(cat "$cg/stress/memory.peak" 2>/dev/null) events: $(tr '\n' ' ' < "$cg/stress/memory.events")"
	rm -f "$dir/cg.bin"
	rmdir "$cg/stress" || echo "@@LAB-ERROR cannot remove $cg/stress"
else
	skip edge-memcg "$cg_why"
fi

# 16 KiB-block xfs on a loop device: case 1, small
x_why=
command -v mkfs.xfs > /dev/null || x_why=no_mkfs.xfs
if [ -z "$x_why" ]; then
	if ! truncate -s $((xfs_file_mib * 2))M "$dir/xfs16k.img" || ! loopdev=$(losetup -f) ||
	   ! losetup "$loopdev" "$dir/xfs16k.img"; then
		loopdev='' x_why=no_loop_device
	fi
fi
if [ -z "$x_why" ]; then
	mkfs.xfs -q -f -b size=16384 "$loopdev" > /tmp/mkfs.out 2>&1 ||
		{ cat /tmp/mkfs.out; x_why=mkfs.xfs_failed; }
fi
if [ -z "$x_why" ]; then
	mkdir -p "$xmnt" && mount -t xfs "$loopdev" "$xmnt" || x_why=cannot_mount_16k_xfs
	echo 128 > "/sys/block/${loopdev#/dev/}/queue/read_ahead_kb"
fi
if [ -z "$x_why" ]; then
	mkfile "$xmnt/f.bin" $((xfs_file_mib << 20)) 8 &&
	run xfs16k-stream-4t $S stream -w xfs16k-stream-4t -f "$xmnt/f.bin" -g 8 -n 300 -R 40 -p aaaa
	[ "$mode" = full ] &&
		run xfs16k-thp-2a2d $S stream -w xfs16k-thp-2a2d -f "$xmnt/f.bin" -g 8 -n 300 -R 40 -p aadd -T
	umount "$xmnt" && losetup -d "$loopdev" && loopdev=
else
	skip xfs16k-stream-4t "$x_why"
fi
rm -f "$dir/xfs16k.img"
}

echo "stress: $mode done in $(( $(date +%s) - start ))s"
awk '
	{ delete v; for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
	v["result"] != "skip" {
		n++; f += v["faults"]; inj += v["injected"]; mm += v["mismatches"]
		if (v["result"] != "ok" || v["mismatches"] != 0) failed++
	}
	END { printf "@@STRESS-TOTAL workloads=%d faults=%d injected=%d mismatches=%d failed=%d\n",
		n, f, inj, mm, failed }' "$lines" > /tmp/stress.total
cat /tmp/stress.total
# Lockdep stays on only while no report has tainted the kernel; the judge
# wants it on to the end (absent on a kernel without lockdep).
dl=$(awk '/debug_locks:/ {print $2}' /proc/lockdep_stats 2>/dev/null)
echo "@@STRESS-LOCKDEP debug_locks=${dl:-none}"
grep -q ' failed=0$' /tmp/stress.total
