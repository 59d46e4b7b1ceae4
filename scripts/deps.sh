#!/bin/bash
# Install the host packages the lab needs (Debian 12, as root). Quick and
# silent when they are all there already.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS="make gcc libc6-dev git flex bison bc libelf-dev libssl-dev dwarves
      ccache qemu-system-x86 busybox-static e2fsprogs xfsprogs cpio
      xz-utils zstd kmod rsync python3 python3-sphinx python3-yaml
      python3-ply python3-git libcap-dev libnuma-dev apt ca-certificates"

# One query per package: dpkg-query exits non-zero for a package that is
# not installed, which is the case this script exists for, so its status
# must not reach set -e or pipefail.
missing=
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) || st=
	[ "$st" = "install ok installed" ] || missing="$missing $p"
done
missing=${missing# }
[ -z "${missing// }" ] && exit 0

[ "$(id -u)" = 0 ] || die "missing packages ($missing) and not root to install them"
log "installing: $missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || die "apt-get update failed"
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
	die "apt-get install failed for: $missing"
