#!/bin/sh
# make mm-selftests (scripts/mm-selftests.sh): run the upstream mm
# selftests of /lab/extra/plan, one after the other, each under a timeout,
# its output between markers the host parses:
#   @@MMT-BEGIN ID
#   ...the test's output (TAP)...
#   @@MMT-END ID rc=N seconds=S
# A plan line is "ID TIMEOUT_S WHERE BINARY ARGS...", with WHERE, @EXT4@
# and @XFS@ as scripts/mm-selftests.list says. Between tests the THP
# settings in sysfs are put back as they were at boot (a test killed by
# its timeout cannot restore them itself); what had to be put back is
# said with @@MMT-RESTORED.
#   $1: how many times to run the whole plan (default 1), each round
#       starting with @@MMT-ROUND N
rounds=${1:-1}
plan=/lab/extra/plan bin=/lab/extra
ext4=/mnt/mmtests xfs=/xfs state=/lab/state
[ -r $plan ] || { echo "@@LAB-ERROR no $plan in the initramfs"; exit 1; }
grep -q " /mnt " /proc/mounts || { echo "@@LAB-ERROR no data disk on /mnt"; exit 1; }
mkdir -p $ext4/tmp $xfs $state || exit 1

# the xfs, as run_vmtests.sh makes one for khugepaged all:file (300 MiB),
# here on the data disk rather than in the guest's memory
xfs_ok=0
if grep -q -w xfs /proc/filesystems && truncate -s 300M /mnt/mmtests-xfs.img &&
   mkfs.xfs -q -f /mnt/mmtests-xfs.img && mount -o loop /mnt/mmtests-xfs.img $xfs; then
	xfs_ok=1
else
	echo "@@MMT-NOTE no xfs: the tests on @XFS@ will not run"
fi

# swap (256 MiB, written out: a swap file may have no holes), so that the
# cases that page anon memory out with MADV_PAGEOUT and expect it in swap
# (khugepaged's swapin cases, cow's) can run
swap=/mnt/mmtests-swap swap_ok=0
if dd if=/dev/zero of=$swap bs=1M count=256 2>/dev/null && chmod 600 $swap &&
   mkswap $swap > /dev/null && swapon $swap; then
	swap_ok=1
else
	echo "@@MMT-NOTE no swap: the cases that swap out will fail or skip"
fi

thp=/sys/kernel/mm/transparent_hugepage
# "file value" for every THP setting; [selected] for the choice files
thp_settings() {
	find $thp -type f -perm -200 | sort | while read -r f; do
		v=$(cat "$f" 2>/dev/null) || continue
		case $v in *"["*) v=${v#*[}; v=${v%%]*} ;; esac
		echo "$f $v"
	done
}
thp_settings > $state/thp.boot

# run_one ID TIMEOUT WHERE BINARY [ARGS...]
run_one() {
	id=$1 timeout=$2 where=$3 cmd=$4
	shift 4
	args=$*
	case $args in *@XFS@*)
		if [ $xfs_ok = 0 ]; then
			echo "@@MMT-BEGIN $id"
			echo "@@MMT-END $id rc=4 seconds=0 (no xfs)"
			return 0
		fi ;;
	esac
	args=$(echo "$args" | sed -e "s|@EXT4@|$ext4|g" -e "s|@XFS@|$xfs|g")
	case $where in
	ext4) dir=$ext4/work; mkdir -p $dir && mount --bind $ext4/tmp /tmp || return 1 ;;
	tmpfs) dir=/tmp/mmtests; mkdir -p $dir || return 1 ;;
	*) echo "@@LAB-ERROR $id: unknown place '$where'"; return 1 ;;
	esac
	echo "@@MMT-BEGIN $id"
	echo "# $cmd${args:+ $args} (in $dir, timeout ${timeout}s)"
	start=$(date +%s)
	# in a session of its own, so that the timeout kills the processes
	# it forked (the kselftest harness runs each case in a child) too
	rm -f $state/timedout
	# shellcheck disable=SC2086
	(cd $dir && exec setsid $bin/$cmd $args) < /dev/null 2>&1 &
	pid=$!
	(sleep "$timeout"; touch $state/timedout; kill -KILL -- -$pid) 2>/dev/null &
	dog=$!
	wait $pid
	rc=$?
	kill $dog 2>/dev/null
	# what is left of its session (children that outlived it)
	kill -KILL -- -$pid 2>/dev/null
	how=
	[ -e $state/timedout ] && how=" timeout"
	echo "@@MMT-END $id rc=$rc seconds=$(( $(date +%s) - start ))$how"
	[ "$where" = ext4 ] && umount /tmp
	rm -rf "$dir"
	thp_settings > $state/thp.now
	if ! cmp -s $state/thp.boot $state/thp.now; then
		echo "@@MMT-RESTORED $id: $(diff $state/thp.boot $state/thp.now | grep '^+/' | tr '\n' ' ')"
		while read -r f v; do
			grep -qxF "$f $v" $state/thp.now || echo "$v" > "$f" 2>/dev/null
		done < $state/thp.boot
	fi
	return 0
}

echo "@@MMT-PLAN $(grep -c . $plan) tests, $rounds rounds, xfs=$xfs_ok, swap=$swap_ok, kernel $(uname -r)"
fail=0
round=0
while [ $round -lt "$rounds" ] && [ $fail = 0 ]; do
	round=$((round + 1))
	echo "@@MMT-ROUND $round"
	while read -r line; do
		case $line in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2086
		run_one $line || { fail=1; break; }
	done < $plan
done

if [ $xfs_ok = 1 ]; then
	umount $xfs
fi
[ $swap_ok = 1 ] && swapoff $swap
rm -rf /mnt/mmtests-xfs.img $swap $ext4
# the results are judged on the host; the job fails only when it could
# not set a test up
exit $fail
