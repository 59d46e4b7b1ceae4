# Common settings and helpers for the lab scripts; source it, do not run it.
# shellcheck shell=bash

# An exported CDPATH makes cd print the directory it found, and so LAB two
# lines; the lab never wants cd to search.
unset CDPATH
LAB=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../lab.conf
. "$LAB/lab.conf"

# A service may run us without HOME: take it from the password database
# (as python's expanduser does, so report.py finds the same cache).
if [ -z "${HOME:-}" ]; then
	HOME=$(getent passwd "$(id -u)" | cut -d: -f6) || HOME=
	[ -n "$HOME" ] || [ -n "${MMLAB_CACHE:-}${XDG_CACHE_HOME:-}" ] ||
		{ printf '[lab] ERROR: %s\n' "HOME is not set and uid $(id -u) has no home directory: set MMLAB_CACHE" >&2; exit 1; }
	export HOME
fi
CACHE=${MMLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mmlab}
BUILD=${MMLAB_BUILD:-$LAB/build}
RESULTS=${MMLAB_RESULTS:-$LAB/results}

log()  { printf '[lab] %s\n' "$*" >&2; }
warn() { printf '[lab] WARNING: %s\n' "$*" >&2; }
die()  { printf '[lab] ERROR: %s\n' "$*" >&2; exit 1; }

# The base actually fetched (may differ from the pin; see fetch-base.sh).
base_env() {
	local f=$CACHE/base.env
	[ -r "$f" ] || die "no base tree yet: run scripts/fetch-base.sh (or make base)"
	# shellcheck disable=SC1090
	. "$f"
}

# Kernel trees: $KROOT/<variant>/src and $KROOT/<variant>/obj. Every variant
# has the same shape so that ccache (with CCACHE_BASEDIR=$KROOT) shares
# objects between variants.
kroot() { base_env; echo "$CACHE/k/$BASE_KEY"; }

# provenance VARIANT...: the lab's commit and each VARIANT's tree (its
# commit, its patches on lab-base), for a report's head; KROOT set
provenance() {
	local v line
	line="lab $(git -C "$LAB" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
	for v in "$@"; do
		line+="; $v: tree $(git -C "$KROOT/$v/src" rev-parse --short=12 HEAD)"
		line+=", $(git -C "$KROOT/$v/src" rev-list --count lab-base..HEAD) patches on lab-base"
	done
	echo "$line"
}

# kmake VARIANT OBJDIR MAKE_ARGS...: make in $KROOT/VARIANT/src, out of
# tree in OBJDIR, as every lab kernel build does: ccache shared by all
# variants (CCACHE_BASEDIR), a fixed build identity so that an unchanged
# tree rebuilds nothing, and uname -r naming the variant (no "+" for a
# tree that is not a tag). The caller sets KROOT; later MAKE_ARGS such as
# CC=gcc override these. KMAKE_NICE=N: niced (kernel builds share the
# machine).
kmake() {
	local v=$1 o=$2
	shift 2
	CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache} CCACHE_BASEDIR=$KROOT \
	CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G} \
	KBUILD_BUILD_TIMESTAMP=2026-01-01 KBUILD_BUILD_USER=mmlab \
	KBUILD_BUILD_HOST=mmlab nice -n "${KMAKE_NICE:-0}" \
	make -s -C "$KROOT/$v/src" O="$o" ARCH=x86_64 CC="ccache gcc" \
		HOSTCC="ccache gcc" LOCALVERSION="-$v" -j"$(nproc)" "$@"
}

# variant_dirs NAME: the patch directories of variants/NAME, one a line, in
# order: a variant marked with a file on-series is a lab patch on top of
# series/
variant_dirs() {
	[ ! -e "$LAB/variants/$1/on-series" ] || echo "$LAB/series"
	echo "$LAB/variants/$1"
}

# build_kernels VARIANT...: the base tree, the series' work tree and each
# VARIANT's (base, patched or a directory of variants/), each built
# (LAB_FLAVOR as build-kernel.sh takes it); incremental where built
build_kernels() {
	local v dirs
	bash "$LAB/scripts/fetch-base.sh"
	bash "$LAB/scripts/apply-series.sh"
	for v in "$@"; do
		case $v in
		base|patched) ;;
		*) [ -d "$LAB/variants/$v" ] || die "no kernel '$v': neither base, patched nor a directory of variants/"
		   mapfile -t dirs < <(variant_dirs "$v")
		   bash "$LAB/scripts/apply-series.sh" -v "$v" "${dirs[@]}" ;;
		esac
		bash "$LAB/scripts/build-kernel.sh" "$v"
	done
}

# abba ROUND K: the kernel indices 0..K-1 in the order of round ROUND,
# ascending in even rounds and descending in odd ones (A B, B A, ...), so
# that each kernel runs as often first as last: the kernel that runs first
# is otherwise slower on the same work.
abba() {
	if [ $(($1 % 2)) = 0 ]; then seq 0 $(($2 - 1)); else seq $(($2 - 1)) -1 0; fi
}

# side_by_side FUNC ARG...: FUNC ARG for each ARG in the background, at
# most LAB_GUESTS at once, the next as soon as one ends. A guest under TCG
# keeps one host core busy, so two guests on two cores take about the
# time of one. Fails, once the running ones have ended, when one FUNC
# failed; starts no more after that.
LAB_GUESTS=${LAB_GUESTS:-$(($(nproc) > 1 ? 2 : 1))}
side_by_side() {
	local f=$1 a rc=0 running=0
	shift
	[[ $LAB_GUESTS =~ ^[1-9][0-9]*$ ]] || die "LAB_GUESTS takes a number of guests, not '$LAB_GUESTS'"
	for a in "$@"; do
		if [ "$running" -ge "$LAB_GUESTS" ]; then
			wait -n || rc=1
			running=$((running - 1))
		fi
		[ "$rc" = 0 ] || break
		"$f" "$a" &
		running=$((running + 1))
	done
	for ((; running > 0; running--)); do wait -n || rc=1; done
	return $rc
}

# warm FILE...: read the images FILE... once on the host, so that the first
# kernel to boot does not pay for a cold host page cache that the next one
# finds warm.
warm() {
	log "warming the host's cache of ${*##*/}"
	cat "$@" > /dev/null
}

# selftest_cc CC TREE HDR OUT [FILE]: build the mm selftest FILE of TREE
# (default mmap_miss_recovery.c) statically into OUT against the uapi
# headers HDR ('make headers' of the tree), linked with the helpers the mm
# Makefile links into every test, with its flags and include order (the
# tree's uapi, then tools/include/uapi: that one's linux/types.h has no
# __u128, which arm64's asm/sigcontext.h needs). From the test's
# directory, so that its messages name it briefly.
selftest_cc() {
	local cc=$1 s=$2 hdr=$3 out=$4 file=${5:-mmap_miss_recovery.c} f
	local st=$2/tools/testing/selftests/mm helpers=()
	for f in vm_util.c hugepage_settings.c thp_settings.c; do
		[ -f "$st/$f" ] && helpers+=("$f")
	done
	(cd "$st" && $cc -O2 -Wall -static -D_GNU_SOURCE= -isystem "$hdr" -I. \
		-I"$s/tools/testing/selftests" -isystem "$s/tools/include/uapi" \
		-o "$out" "$file" "${helpers[@]}" -lm)
}

# stale_headers HDR TREE: HDR, the uapi headers of 'make headers', is
# missing or older than TREE's
stale_headers() {
	[ ! -f "$1/linux/mman.h" ] || [ "$1/linux/mman.h" -ot "$2/include/uapi/linux/mman.h" ]
}

# private_apt DIR KIND: set APTOPT to the options of a private apt setup in
# DIR: its own sources.list (KIND "deb" or "deb-src" lines for $APT_SUITES),
# lists, empty status and cache, so that the machine's apt configuration is
# never read or changed.
private_apt() {
	local dir=$1 kind=$2 s
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	: > "$dir/status"
	for s in $APT_SUITES; do
		echo "$kind [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $APT_MIRROR $s main"
	done > "$dir/sources.list"
	APTOPT=(-o "Dir::Etc::sourcelist=$dir/sources.list"
		-o "Dir::Etc::sourceparts=/nonexistent"
		-o "Dir::State::Lists=$dir/lists"
		-o "Dir::State::status=$dir/status"
		-o "Dir::Cache=$dir/cache"
		-o "Debug::NoLocking=1"
		-o "APT::Sandbox::User=root")
}

# lab_lock [NAME]: take the lab's lock on this cache ($CACHE/NAME.lock,
# default "lab"; docs/lab.md), so that two runs do not build in the same
# work trees, obj directories and disk staging at once. Scripts that an
# entry point runs find it held (MMLAB_LOCK_HELD) and go on. The default
# wait is longer than a cold make demo.
lab_lock() {
	local lock=$CACHE/${1:-lab}.lock wait=${MMLAB_LOCK_WAIT:-7200} who
	[ "${MMLAB_LOCK_HELD:-}" = "$lock" ] && return 0
	mkdir -p "$CACHE"
	# fd 9 stays open, and locked, until this script and its children end;
	# append, so that opening it does not wipe the holder's description
	exec 9>>"$lock"
	if ! flock -n 9; then
		who=$(cat "$lock" 2>/dev/null) || who=
		log "another lab run holds $lock: ${who:-(no description)}"
		log "waiting for it to finish (at most ${wait}s: MMLAB_LOCK_WAIT)"
		flock -w "$wait" 9 ||
			die "gave up after ${wait}s waiting for $lock, held by: ${who:-(no description)}"
	fi
	printf 'pid %s, %s, user %s, since %s\n' "$$" "${MMLAB_ENTRY:-${0##*/}}" \
		"$(id -un 2>/dev/null || id -u)" "$(date '+%F %T')" > "$lock"
	export MMLAB_LOCK_HELD=$lock
}

# free_mib DIR: MiB free on DIR's file system (MMLAB_FREE_MIB overrides it,
# for tests); empty when df cannot tell.
free_mib() {
	if [ -n "${MMLAB_FREE_MIB:-}" ]; then echo "$MMLAB_FREE_MIB"; return; fi
	df -Pm -- "$1" 2>/dev/null | awk 'NR == 2 {print $4}' || true
}

# need_space DIR MIB WHAT: die, saying how much is needed and how much is
# free, unless DIR's file system has MIB MiB free for WHAT.
need_space() {
	local dir=$1 need=$2 what=$3 free
	mkdir -p "$dir"
	free=$(free_mib "$dir")
	if [ -z "$free" ]; then
		warn "cannot tell the free space in $dir; $what needs about $need MiB"
		return 0
	fi
	[ "$free" -ge "$need" ] ||
		die "not enough disk space: $what needs about $need MiB in $dir, only $free MiB free there"
}

# apt_errors OUTPUT: apt's error lines in OUTPUT (or its last lines when
# it printed none), indented
apt_errors() {
	local errs
	errs=$(grep -E '^(E|W|Err):' <<<"$1" | sort -u | head -20) || errs=
	[ -n "$errs" ] || errs=$(tail -n 10 <<<"$1")
	printf '%s\n' "$errs" | sed 's/^/    /'
}

# apt_get_update WHAT APT-GET-OPTIONS...: apt-get update, quietly; on
# failure die with apt's errors, saying so when the reason is a Release
# file past its Valid-Until date (docs/lab.md: the mirror can serve them).
apt_get_update() {
	local what=$1 out cvu
	shift
	if out=$(apt-get "$@" -q update 2>&1); then return 0; fi
	apt_errors "$out" >&2
	if grep -q -E 'is expired|is no longer valid|Valid-Until' <<<"$out"; then
		cvu=$(apt-config dump Acquire::Check-Valid-Until 2>/dev/null | grep -m1 . || true)
		die "$what: apt-get update failed because a Release file has expired (above). apt refuses Release files past their Valid-Until date unless Acquire::Check-Valid-Until is \"false\" (this machine's apt configuration: ${cvu:-not set, so true}); if this mirror is known to serve old Release files, set it in /etc/apt/apt.conf.d/"
	fi
	die "$what: apt-get update failed (apt's errors above)"
}

# config_unstuck CONFIG FRAGMENT...: print (" CONFIG_X=y ...") the options
# that the fragments ask for and CONFIG does not have. A later fragment
# overrides an earlier one (thp-off.config turns off what guest.config
# turns on): each option is checked for the value of the last fragment
# that sets it. An option of an earlier fragment that CONFIG does not show
# at all (not even "is not set"), once a later fragment is given, lost its
# dependencies to that fragment (THP_MADVISE without THP): said, not fatal.
config_unstuck() {
	local cfg=$1 o w i n
	shift
	n=$#
	awk '
		FNR == 1 { f++ }
		/^CONFIG_[A-Za-z0-9_]+=/ { o = $0; sub(/=.*/, "", o); want[o] = $0; from[o] = f; next }
		/^# CONFIG_[A-Za-z0-9_]+ is not set/ { want[$2] = "n"; from[$2] = f; next }
		END { for (o in want) print o "\t" want[o] "\t" from[o] }
	' "$@" | sort | while IFS=$'\t' read -r o w i; do
		if [ "$w" = n ]; then
			! grep -q "^$o=[ym]" "$cfg" || printf ' %s=n' "$o"
		elif ! grep -qxF -- "$w" "$cfg"; then
			if [ "$i" -lt "$n" ] && ! grep -q -E "^($o=|# $o is not set)" "$cfg"; then
				log "$w (from ${!i##*/}) is gone: its dependencies are off after ${!n##*/}" >&2
			else
				printf ' %s' "$w"
			fi
		fi
	done
}

# kconfigure SRC OBJ KEY FRAGMENT... -- MAKE...: configure OBJ as
# tinyconfig + the fragments (a later one overrides an earlier one) with
# the make command MAKE... (its target appended), unless OBJ has that
# configuration already (KEY, if any, and the fragments), so that a rebuild
# after an edit stays incremental. Fails, saying which, when an option of
# the fragments did not stick (merge_config only warns: a broken fragment).
kconfigure() {
	local src=$1 obj=$2 key=$3 frags=() hash bad
	shift 3
	while [ "$1" != -- ]; do frags+=("$1"); shift; done
	shift
	hash=$({ [ -z "$key" ] || echo "$key"; cat "${frags[@]}"; } | sha256sum | cut -c1-16)
	[ "$(cat "$obj/.lab-config" 2>/dev/null)" = "$hash" ] && [ -f "$obj/.config" ] && return 0
	rm -f "$obj/.lab-config"
	mkdir -p "$obj"
	log "${obj#"$CACHE"/}: configuring (tinyconfig + ${frags[*]##*/})"
	if ! { "$@" tinyconfig && (cd "$obj" && "$src/scripts/kconfig/merge_config.sh" \
		-m -O "$obj" "$obj/.config" "${frags[@]}") && "$@" olddefconfig; } \
		> "$obj/config.log" 2>&1; then
		tail -n 5 "$obj/config.log" >&2
		return 1
	fi
	bad=$(config_unstuck "$obj/.config" "${frags[@]}")
	[ -z "$bad" ] || { echo "config options did not stick:$bad" | tee -a "$obj/config.log" >&2; return 1; }
	echo "$hash" > "$obj/.lab-config"
}

# Fixed identities and dates so that commits, and therefore exported
# patches, are the same on every machine and every run.
export_git_ids() {
	export GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-mmlab}
	export GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-mmlab@localhost}
	export GIT_COMMITTER_NAME=mmlab GIT_COMMITTER_EMAIL=mmlab@localhost
}

# Author and sign-off of the series until someone with a git identity
# exports it (export-series.sh replaces it; review.sh refuses it).
SERIES_PLACEHOLDER="mmlab developer <dev@mmlab.invalid>"

# mmdebstrap_aptopts: append to the array aptopts the --aptopt options that
# give a new root's apt this machine's answers to "may a Release file be
# past its Valid-Until date" (and "from the future"): the mirror's can be.
mmdebstrap_aptopts() {
	local o v
	for o in Acquire::Check-Valid-Until Acquire::Check-Date; do
		v=$(apt-config dump "$o" 2>/dev/null) || v=
		v=$(sed -n "s/^$o \"\\(.*\\)\";\$/\\1/p" <<<"$v")
		[ -z "$v" ] || aptopts+=("--aptopt=$o \"$v\"")
	done
}

# mmdebstrap_key: a key for a root made with mmdebstrap from $SUITE,
# $INCLUDE, ${MIRRORS[@]} and ${aptopts[@]}, and mmdebstrap's version: the
# cached root is made anew when it changes.
mmdebstrap_key() {
	{ echo "$SUITE $INCLUDE"; printf '%s\n' "${MIRRORS[@]}" "${aptopts[@]}"
	  dpkg-query -W -f='${Version}\n' mmdebstrap 2>/dev/null || true; } |
		sha256sum | cut -c1-16
}

# need_root_maker WHO: die unless WHO can make a Debian guest root here:
# as root (mmdebstrap makes the root's device nodes and owners, mkfs.ext4
# -d copies them), on Debian, with mkfs.ext4 and mmdebstrap.
need_root_maker() {
	[ "$(id -u)" = 0 ] ||
		die "$1 must run as root: mmdebstrap makes the root's device nodes and owners, mkfs.ext4 -d copies them"
	command -v apt-get >/dev/null || die "$1 needs a Debian machine (no apt-get here)"
	command -v mkfs.ext4 >/dev/null || die "no mkfs.ext4 (scripts/deps.sh installs e2fsprogs)"
	command -v mmdebstrap >/dev/null || die "no mmdebstrap (scripts/deps.sh bench installs it)"
}

# unpack TARBALL DIR: DIR anew, the root of TARBALL (owners and modes kept)
unpack() {
	rm -rf --one-file-system "$2"
	mkdir -p "$2"
	tar -C "$2" --numeric-owner -xpf "$1"
}

# root_image STAGE IMG LABEL: IMG, an ext4 image labelled LABEL (mkfs.ext4
# -d, no loop mount) of the guest root unpacked in STAGE, without apt's
# caches and the docs; the guest boots it as /dev/vda. Made as IMG.tmp,
# which the caller's trap removes on failure.
root_image() {
	local stage=$1 img=$2 mib size
	rm -rf "$stage"/var/cache/apt/*.bin "$stage"/var/lib/apt/lists/* "$stage"/usr/share/doc \
		"$stage"/usr/share/man "$stage"/usr/share/locale
	echo "/dev/vda / ext4 rw 0 1" > "$stage/etc/fstab"
	mib=$(du -sm "$stage" | cut -f1)
	size=$(( mib + mib / 4 + 256 ))
	truncate -s ${size}M "$img.tmp"
	mkfs.ext4 -q -F -L "$3" -E lazy_itable_init=0,lazy_journal_init=0 \
		-d "$stage" "$img.tmp" || die "mkfs.ext4 -d failed"
	mv "$img.tmp" "$img"
	log "$3 image: $img (${size} MiB, root $mib MiB)"
}

# mmdebstrap_tar TARBALL REBUILD NEED_MIB LOG: make TARBALL with
# mmdebstrap (a minbase root, as mmdebstrap_key describes it; LOG keeps
# its output), unless it is there with that key and REBUILD is not 1.
mmdebstrap_tar() {
	local tarball=$1 key tmp start
	key=$(mmdebstrap_key)
	[ "$2" != 1 ] && [ -s "$tarball" ] && [ "$(cat "$tarball.key" 2>/dev/null)" = "$key" ] && return 0
	need_space "${tarball%/*}" "$3" "making the $SUITE root ${tarball##*/}"
	log "${tarball##*/}: mmdebstrap $SUITE minbase + $INCLUDE${aptopts[*]:+; ${aptopts[*]}}"
	start=$(date +%s)
	tmp=${tarball%/*}/.$(basename "$tarball" .tar).tmp.tar
	rm -f "$tarball" "$tarball.key" "$tmp"
	mkdir -p "${4%/*}"
	if ! nice -n 10 mmdebstrap --variant=minbase --format=tar --include="$INCLUDE" \
		"${aptopts[@]}" "$SUITE" "$tmp" "${MIRRORS[@]}" > "$4" 2>&1; then
		tail -n 30 "$4" >&2
		rm -f "$tmp"
		die "mmdebstrap failed (full log: $4)"
	fi
	mv "$tmp" "$tarball"
	echo "$key" > "$tarball.key"
	log "${tarball##*/} made in $(( $(date +%s) - start ))s ($(du -h "$tarball" | cut -f1))"
}
