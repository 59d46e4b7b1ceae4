#!/bin/bash
# Build the guest initramfs: busybox-static, the init (guest/bench/init,
# shared with make bench's Debian root), guest/jobs, the workloads
# (static), mkfs.ext4 and mkfs.xfs with the libraries they load (the
# selftest makes its own file systems), and, when the tree has it, the
# series' selftest built statically from VARIANT's source (default:
# patched).
#   make-initramfs.sh [VARIANT]  -> build/initramfs.cpio
#   make-initramfs.sh -a arm64 [VARIANT]  -> build/arm64/initramfs.cpio
#       (make arm64): the selftest and its job only, built with the cross
#       gcc, with busybox-static, e2fsprogs and xfsprogs of Debian 12 for
#       arm64 (private apt setup, apt-get download, dpkg-deb -x).
#   LAB_SELFTEST_EXTRA="VARIANT..."  adds each one's own selftest as
#       mmap_miss_recovery-VARIANT (make check: patch 1 alone);
#   LAB_SELFTEST_HEADERS=DIR  takes the uapi headers from DIR (e.g.
#       /usr/include) instead of running 'make headers' in VARIANT's tree.
#   LAB_INITRAMFS_EXTRA=DIR  adds DIR's files (not its subdirectories)
#       as /lab/extra/NAME, mode kept (make mm-selftests puts the upstream
#       mm selftests and its plan there).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=x86_64
while getopts "a:" o; do
	case $o in
	a) arch=$OPTARG ;;
	*) die "bad option" ;;
	esac
done
shift $((OPTIND - 1))
variant=${1:-patched}
KROOT=$(kroot)
src=$KROOT/$variant/src
[ -d "$src" ] || die "no source tree for $variant"
if [ -n "${LAB_INITRAMFS_EXTRA:-}" ]; then
	[ -d "$LAB_INITRAMFS_EXTRA" ] || die "LAB_INITRAMFS_EXTRA: no directory '$LAB_INITRAMFS_EXTRA'"
	LAB_INITRAMFS_EXTRA=$(realpath "$LAB_INITRAMFS_EXTRA")
fi
# dest: where the image goes; R: the root that busybox, the mkfs tools,
# their libraries and mke2fs.conf come from (this host's for x86_64);
# KARGS: kmake's arguments for this architecture
case $arch in
x86_64) dest=$BUILD R='' CROSS='' KARGS=() obj=obj ;;
arm64)
	dest=$BUILD/arm64 R=$BUILD/arm64/debroot CROSS=aarch64-linux-gnu- obj=obj-arm64
	KARGS=(ARCH=arm64 CROSS_COMPILE="$CROSS" CC="ccache ${CROSS}gcc") ;;
*) die "-a $arch: x86_64 or arm64" ;;
esac

# A static busybox: the initramfs carries no libraries for it. ldd, unlike
# file(1), is always there (libc-bin).
is_static() {
	local how
	[ -x "$1" ] || return 1
	how=$(LC_ALL=C ldd "$1" 2>&1) || true	# exits 1 on a static one
	echo "$how" | grep -qE 'not a dynamic executable|statically linked'
}

# Debian 12's arm64 packages of what the guest runs: busybox-static, and
# mke2fs and mkfs.xfs with the libraries they load (checked below, from
# their ELF NEEDED entries, so a missing one is named, not found at boot).
DEBS="busybox-static e2fsprogs xfsprogs libc6 libext2fs2 libcom-err2
      libblkid1 libuuid1 libinih1 liburcu8"
APTDIR=$CACHE/apt-arm64

fetch_debs() {
	local stamp=$APTDIR/debs.done d
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$DEBS" ] && [ -x "$R/bin/busybox" ]; then
		return 0
	fi
	# the private setup: bookworm, as the host, arm64 only; the machine's
	# apt configuration and dpkg architectures are left alone
	APT_SUITES=bookworm private_apt "$APTDIR" deb
	APTOPT+=(-o APT::Architecture=arm64 -o "APT::Architectures::=arm64")
	log "arm64 initramfs: apt-get update (private, $APTDIR)"
	apt_get_update "arm64 packages" "${APTOPT[@]}"
	d=$APTDIR/debs
	rm -rf "$d" "$R" && mkdir -p "$d" "$R"
	# shellcheck disable=SC2086
	(cd "$d" && apt-get "${APTOPT[@]}" -q download $DEBS) > "$APTDIR/download.log" 2>&1 ||
		{ tail -5 "$APTDIR/download.log" >&2; die "apt-get download of the arm64 packages failed"; }
	for f in "$d"/*.deb; do dpkg-deb -x "$f" "$R" || die "cannot extract $f"; done
	echo "$DEBS" > "$stamp"
	log "arm64 initramfs: $(ls "$d" | wc -l) packages in $R"
}

# elf_libs FILE...: the libraries FILE... load, transitively, as paths in
# R ("/lib/aarch64-linux-gnu/libc.so.6"), with the interpreter
elf_libs() {
	local todo=("$@") seen=" " f n p
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]} todo=("${todo[@]:1}")
		for n in $("${CROSS}readelf" -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case $seen in *" $n "*) continue ;; esac
			seen="$seen$n "
			p=
			for d in /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu; do
				[ -e "$R$d/$n" ] && { p=$d/$n; break; }
			done
			[ -n "$p" ] || die "arm64 initramfs: ${f##*/} needs $n, which no package of DEBS has"
			echo "$p"
			todo+=("$R$p")
		done
		"${CROSS}readelf" -l "$f" | sed -n 's/.*interpreter: \(\/.*\)\]/\1/p'
	done | sort -u
}

# mkfs.ext4 and mkfs.xfs for the selftest, which makes its own file
# systems, with what the dynamic loader needs for them, at the paths ldd
# (or the arm64 packages) gives: the loader finds them there without
# ld.so.cache. mke2fs reads /etc/mke2fs.conf. In /usr/sbin, which the
# init puts before busybox's /bin (busybox has an mke2fs of its own).
tools=() libs=()
if [ "$arch" = x86_64 ]; then
	BB=
	for b in /bin/busybox /usr/bin/busybox $(command -v busybox || true); do
		if is_static "$b"; then BB=$b; break; fi
	done
	[ -n "$BB" ] || die "no static busybox (/bin/busybox is missing or dynamic): apt-get install busybox-static"
	mkfs_missing=
	for t in mke2fs mkfs.xfs; do
		f=$(PATH=$PATH:/usr/sbin:/sbin command -v "$t" || true)
		if [ -z "$f" ]; then mkfs_missing="$mkfs_missing $t"; continue; fi
		tools+=("$(realpath "$f")")
	done
	[ -z "$mkfs_missing" ] ||
		warn "initramfs: no$mkfs_missing on this host (apt-get install e2fsprogs xfsprogs): the selftest will skip those file systems"
	for f in ${tools[@]+"${tools[@]}"}; do
		# "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" and
		# "/lib64/ld-linux-x86-64.so.2 (0x...)"; not linux-vdso.so.1
		while read -r l; do libs+=("$l"); done < <(LC_ALL=C ldd "$f" |
			sed -n -e 's|.*=> \(/[^ ]*\) (.*|\1|p' -e 's|^[[:space:]]*\(/[^ ]*\) (.*|\1|p')
	done
	mapfile -t libs < <(printf '%s\n' ${libs[@]+"${libs[@]}"} | sort -u)
else
	fetch_debs
	BB=$R/bin/busybox tools=("$R/sbin/mke2fs" "$R/sbin/mkfs.xfs")
	for f in "$BB" "${tools[@]}"; do
		[ -f "$f" ] || die "arm64 initramfs: no ${f#"$R"/} in the packages"
	done
	"${CROSS}readelf" -l "$BB" | grep -q interpreter &&
		die "arm64 initramfs: busybox of busybox-static is not static"
	mapfile -t libs < <(elf_libs "${tools[@]}")
fi

out=$dest/guest
rm -rf "$out" && mkdir -p "$out/bin"
if [ "$arch" = x86_64 ]; then
	make -s -C "$LAB/workloads" OUT="$out/bin" CC="ccache gcc" ||
		die "building the workloads failed"
	jobs=("$LAB"/guest/jobs/*.sh)
else
	jobs=("$LAB/guest/jobs/selftest.sh")
fi

# The series' selftest, built static from each tree that has it: from
# VARIANT as mmap_miss_recovery, from each of LAB_SELFTEST_EXTRA as
# mmap_miss_recovery-VARIANT.
build_selftest() {
	local v=$1 name=$2 s=$KROOT/$1/src o=$KROOT/$1/$obj hdr
	[ -f "$s/tools/testing/selftests/mm/mmap_miss_recovery.c" ] || return 1
	[ -f "$s/tools/testing/selftests/mm/vm_util.c" ] || die "$v has no mm selftest helpers (vm_util.c)"
	hdr=${LAB_SELFTEST_HEADERS:-$o/usr/include}
	if [ -n "${LAB_SELFTEST_HEADERS:-}" ]; then
		[ -f "$hdr/linux/mman.h" ] || die "LAB_SELFTEST_HEADERS: no $hdr/linux/mman.h"
	elif stale_headers "$hdr" "$s"; then
		mkdir -p "$o"
		kmake "$v" "$o" ${KARGS[@]+"${KARGS[@]}"} headers >/dev/null || die "make headers failed in $v"
	fi
	selftest_cc "${CROSS}gcc" "$s" "$hdr" "$out/bin/$name" 2> "$out/selftest-build-$v.log" ||
		{ cat "$out/selftest-build-$v.log" >&2; die "building the selftest of $v failed"; }
	log "initramfs: selftest $name from $v ($(grep -c warning: "$out/selftest-build-$v.log") warnings)"
}
if ! build_selftest "$variant" mmap_miss_recovery; then
	[ "$arch" = x86_64 ] || die "$variant has no mmap_miss_recovery.c selftest"
	log "initramfs: $variant has no mmap_miss_recovery selftest (empty series?)"
fi
for v in ${LAB_SELFTEST_EXTRA:-}; do
	build_selftest "$v" "mmap_miss_recovery-$v" || die "$v has no selftest"
done

gen=$BUILD/gen_init_cpio
[ -x "$gen" ] && [ "$gen" -nt "$src/usr/gen_init_cpio.c" ] ||
	gcc -O2 -o "$gen" "$src/usr/gen_init_cpio.c" || die "cannot build gen_init_cpio"

list=$out/cpio.list
{
	for d in /bin /dev /proc /sys /tmp /mnt /lab /lab/bin /lab/jobs; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /bin/busybox $BB 0755 0 0"
	echo "file /init $LAB/guest/bench/init 0755 0 0"
	for f in "${jobs[@]}"; do
		echo "file /lab/jobs/${f##*/} $f 0755 0 0"
	done
	for f in "$out"/bin/*; do
		echo "file /lab/bin/${f##*/} $f 0755 0 0"
	done
	if [ -n "${LAB_INITRAMFS_EXTRA:-}" ]; then
		echo "dir /lab/extra 0755 0 0"
		for f in "$LAB_INITRAMFS_EXTRA"/*; do
			[ -f "$f" ] || continue
			echo "file /lab/extra/${f##*/} $f $(stat -c %a "$f") 0 0"
		done
	fi
	# mkfs: the tools, their libraries (and every directory above them,
	# once), mke2fs.conf
	for f in /etc/x /usr/sbin/x ${libs[@]+"${libs[@]}"}; do
		p=
		for c in $(dirname "$f" | tr / ' '); do p=$p/$c; echo "$p"; done
	done | awk '!seen[$0]++ { print "dir " $0 " 0755 0 0" }'
	# each library as a file at the name the loader looks for
	for f in ${libs[@]+"${libs[@]}"}; do
		echo "file $f $(realpath "$R$f") 0755 0 0"
	done
	for f in ${tools[@]+"${tools[@]}"}; do
		echo "file /usr/sbin/${f##*/} $f 0755 0 0"
		if [ "${f##*/}" = mke2fs ]; then
			echo "slink /usr/sbin/mkfs.ext4 mke2fs 0777 0 0"
		fi
	done
	if [ -f "$R/etc/mke2fs.conf" ]; then
		echo "file /etc/mke2fs.conf $R/etc/mke2fs.conf 0644 0 0"
	fi
} > "$list"
"$gen" "$list" > "$dest/initramfs.cpio" || die "gen_init_cpio failed"
log "initramfs: $dest/initramfs.cpio ($(du -h "$dest/initramfs.cpio" | cut -f1))"
