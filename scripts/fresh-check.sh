#!/bin/bash
# make fresh-check: the README's two commands as a new user meets them, on
# a new Debian 12 root (docs/lab.md says what it has): the root is made
# once with Debian's mmdebstrap (installed with apt when missing) and kept
# as a tarball; each run unpacks a fresh copy, clones this checkout's HEAD
# into /root/lab, and runs the steps as root in a chroot with an empty lab
# cache (/proc, /sys, /dev, /dev/pts and /dev/shm mounted, and unmounted
# by a trap however the run ends); it prints each step's time, and make
# check's last "N passed, N failed".
# Options (environment):
#   FRESH_CHECK_ONLY=STEP,...  the steps, in that order (default
#                    demo,check): deps and base (deps.sh and fetch-base.sh
#                    alone), lab (make check-lab), demo, check, and
#                    bench-small, bench and bench-apps (each making its
#                    kernels, guest root and data disk from nothing), and
#                    stress (its two debug kernels)
#   FRESH_WARM=1     keep the previous run's root, lab cache included, and
#                    only replace the clone (a warm run, not a fresh one)
#   FRESH_REBUILD=1  make the root tarball anew
#   FRESH_DIR=DIR    where the tarball, the root and the logs live
#                    (default $CACHE/fresh)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SUITE=bookworm
# shellcheck disable=SC2034 # for mmdebstrap_tar (lib.sh)
INCLUDE=build-essential,git,make,python3,ca-certificates,xz-utils
# shellcheck disable=SC2034
MIRRORS=("deb http://deb.debian.org/debian $SUITE main"
	 "deb http://deb.debian.org/debian $SUITE-updates main"
	 "deb http://deb.debian.org/debian-security $SUITE-security main")

[ "$(id -u)" = 0 ] ||
	die "fresh-check must run as root: it builds a Debian root with mmdebstrap, mounts /proc, /sys and /dev into it and runs the lab there in a chroot"
command -v apt-get >/dev/null || die "fresh-check needs a Debian machine (no apt-get here)"

FRESH_DIR=${FRESH_DIR:-$CACHE/fresh}
mkdir -p "$FRESH_DIR"
FRESH_DIR=$(cd -P -- "$FRESH_DIR" && pwd)
export MMLAB_ENTRY="make fresh-check"
lab_lock fresh
tarball=$FRESH_DIR/$SUITE-minbase.tar
root=$FRESH_DIR/root
logs=$FRESH_DIR/logs

# each step's command in the root, and roughly the space it needs:
# packages, base tree, kernels and disk images, the check disk and the
# extra trees of make check
declare -A step_cmd=([deps]="bash scripts/deps.sh" [base]="bash scripts/fetch-base.sh"
	[lab]="make check-lab" [demo]="make demo" [check]="make check"
	[bench-small]="make bench-small" [bench]="make bench" [bench-apps]="make bench-apps"
	[stress]="make stress")
declare -A step_mib=([deps]=2048 [base]=4608 [lab]=0 [demo]=26624 [check]=8192
	[bench-small]=16384 [bench]=28672 [bench-apps]=20480 [stress]=20480)
steps=${FRESH_CHECK_ONLY:-demo,check}
for s in ${steps//,/ }; do
	[ -n "${step_cmd[$s]:-}" ] ||
		die "FRESH_CHECK_ONLY: unknown step '$s' (deps, base, lab, demo, check, bench-small, bench, bench-apps, stress)"
done

# --- mounts: everything mounted is in $mounted, unmounted by the trap ----
mounted=()
umount_all() {
	local i m
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		m=${mounted[i]}
		umount "$m" 2>/dev/null || umount -l "$m" ||
			warn "could not unmount $m: unmount it by hand"
	done
	mounted=()
}
# stop_inside: end what still runs in the root (a step interrupted by a
# signal, a QEMU it left), or the mounts would stay busy
stop_inside() {
	local p pids=
	for p in /proc/[0-9]*; do
		if [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ]; then pids="$pids ${p#/proc/}"; fi
	done
	[ -n "$pids" ] || return 0
	warn "stopping what still runs in the root:$pids"
	# shellcheck disable=SC2086
	kill $pids 2>/dev/null || true
	sleep 2
	# shellcheck disable=SC2086
	kill -9 $pids 2>/dev/null || true
	sleep 1
}
trap '[ ${#mounted[@]} = 0 ] || { stop_inside; umount_all; }' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
mnt() {
	mount "$@"
	mounted+=("${*: -1}")
}
# mount points under DIR, deepest first
mounts_under() {
	awk -v d="$1" '$2 == d || index($2, d "/") == 1 {print $2}' /proc/self/mounts | sort -r
}
# A run killed with SIGKILL cannot unmount: do it now, before anything
# under the root is removed (rm -r through a bind mount of /dev would
# remove the host's device nodes).
stale=$(mounts_under "$root")
if [ -n "$stale" ]; then
	warn "unmounting what an earlier run left mounted under $root:"
	while read -r m; do
		warn "  $m"
		umount "$m" 2>/dev/null || umount -l "$m" || die "cannot unmount $m"
	done <<<"$stale"
fi
# remove_root: rm -r, refusing while anything is mounted under it
remove_root() {
	[ -d "$root" ] || return 0
	[ -z "$(mounts_under "$root")" ] || die "something is still mounted under $root: not removing it"
	log "removing the previous root and its lab cache ($root)"
	rm -rf --one-file-system "$root"
}

# --- 1. the root tarball -------------------------------------------------
command -v mmdebstrap >/dev/null || MMLAB_DEPS_PKGS=mmdebstrap bash "$LAB/scripts/deps.sh" ||
	die "fresh-check cannot run here: mmdebstrap is not installed and could not be installed (above)"
# shellcheck disable=SC2034
aptopts=()
mmdebstrap_aptopts
mmdebstrap_tar "$tarball" "${FRESH_REBUILD:-0}" 2048 "$logs/mmdebstrap.log"

# --- 2. the root, the clone ----------------------------------------------
warm=${FRESH_WARM:-0}
if [ "$warm" = 1 ] && [ -d "$root/root" ]; then
	log "FRESH_WARM=1: reusing $root and its lab cache (not a cold run)"
	remove_clone=1
else
	[ "$warm" = 1 ] && warn "FRESH_WARM=1 but no earlier root: starting cold"
	remove_root
	unpack "$tarball" "$root"
	remove_clone=0
fi
need=0
for s in ${steps//,/ }; do need=$((need + step_mib[$s])); done
need_space "$root" "$need" "fresh-check ($steps)"

if [ -n "$(git -C "$LAB" status --porcelain --untracked-files=no)" ]; then
	warn "$LAB has uncommitted changes: the clone has HEAD only, without them"
fi
# variants/ take older versions of the series from this repository's
# history (git show REV:series/...): the clone must have it
[ "$(git -C "$LAB" rev-parse --is-shallow-repository)" = false ] ||
	die "$LAB is a shallow clone, and so would be the clone made in the root: variants/ take older versions of the series from the history (git show REV:series/...); run 'git fetch --unshallow' in $LAB first"
[ "$remove_clone" = 0 ] || rm -rf --one-file-system "$root/root/lab"
git clone -q --no-hardlinks "$LAB" "$root/root/lab"
commit=$(git -C "$root/root/lab" log -1 --format='%h %s')
log "clone of $LAB in the root: $commit"
# name resolution for apt inside, as on this machine
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
cp -L /etc/hosts "$root/etc/hosts" 2>/dev/null || true
log "root's apt settings: $(cat "$root"/etc/apt/apt.conf.d/99mmdebstrap 2>/dev/null | tr '\n' ' ')"

# --- 3. the commands, as root in a chroot --------------------------------
mnt -t proc proc "$root/proc"
mnt -t sysfs sysfs "$root/sys"
mnt --bind /dev "$root/dev"
mnt --bind /dev/pts "$root/dev/pts"
[ -d /dev/shm ] && mnt -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/dev/shm"

mkdir -p "$logs"
summary=()
failed=0
for s in ${steps//,/ }; do
	cmd=${step_cmd[$s]}
	log "in the root, as root: cd /root/lab && $cmd (log: $logs/$s.log)"
	start=$(date +%s)
	# in the background and waited for, so that a signal reaches the
	# traps at once (they stop what runs inside and unmount)
	chroot "$root" /usr/bin/env -i HOME=/root USER=root LOGNAME=root \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		LANG=C.UTF-8 TERM="${TERM:-dumb}" \
		bash -c "cd /root/lab && $cmd" < /dev/null 2>&1 | tee "$logs/$s.log" &
	rc=0
	wait $! || rc=$?
	t=$(( $(date +%s) - start ))
	line="$cmd: $t s ($((t / 60))m$(printf %02d $((t % 60)))s), exit $rc"
	if [ "$s" = check ] || [ "$s" = lab ]; then
		last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$logs/$s.log" | tail -1) || last=
		line="$line: ${last:-no 'N passed, N failed' line}"
	fi
	summary+=("$line")
	[ "$rc" = 0 ] || failed=1
done
stop_inside
umount_all

echo
echo "== fresh-check on a new Debian 12 root ($commit)"
printf '   %s\n' "${summary[@]}"
echo "   (logs: $logs; lab cache in the root: $root/root/.cache/mmlab)"
exit $failed
