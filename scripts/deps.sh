#!/bin/bash
# Install the host packages the lab needs (Debian 12, as root). Quick and
# silent when they are all there already; otherwise says what it installs,
# and, when apt cannot install one, which one and apt's error.
#   deps.sh [matrix] [bench]  matrix: also what make matrix and make arm64
#                     need (cross gcc, qemu-system-arm, clang 19); bench:
#                     what make bench needs (mmdebstrap, gnuplot); make
#                     demo and make check need neither
#   MMLAB_DEPS_PKGS="pkg ..." replaces the list (for tests, and for
#                     fresh-check, which needs mmdebstrap only)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=${MMLAB_DEPS_PKGS:-"make gcc libc6-dev git flex bison bc libelf-dev libssl-dev dwarves
      ccache qemu-system-x86 busybox-static e2fsprogs xfsprogs cpio
      xz-utils zstd kmod rsync python3 python3-sphinx python3-yaml
      python3-ply python3-git libcap-dev libnuma-dev apt ca-certificates
      util-linux perl shellcheck"}
for g in "$@"; do
	case $g in
	matrix) PKGS="$PKGS gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm
		clang-19 lld-19 llvm-19" ;;
	bench) PKGS="$PKGS mmdebstrap gnuplot-nox" ;;
	*) die "deps.sh: no package group '$g' (matrix, bench)" ;;
	esac
done

# One query per package: dpkg-query exits non-zero for a package that is
# not installed, which is the case this script exists for, so its status
# must not reach set -e or pipefail.
missing=
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) || st=
	[ "$st" = "install ok installed" ] || missing="$missing $p"
done
missing=${missing# }
[ -n "$missing" ] || exit 0

[ "$(id -u)" = 0 ] ||
	die "missing packages: $missing; run as root, or install them with: apt-get install $missing"
log "installing missing packages with apt-get: $missing"
export DEBIAN_FRONTEND=noninteractive
apt_get_update "deps"

# shellcheck disable=SC2086
if ! out=$(apt-get install -y -q --no-install-recommends $missing 2>&1); then
	# apt installs all or nothing: find which ones it cannot install
	failed=
	for p in $missing; do
		if ! out=$(apt-get install -y -q --no-install-recommends "$p" 2>&1); then
			failed="$failed $p"
			warn "apt-get install $p failed:"
			apt_errors "$out" >&2
		fi
	done
	[ -z "$failed" ] || die "could not install:$failed (apt's errors above)"
fi
log "installed: $missing"
