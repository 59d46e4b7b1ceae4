#!/bin/bash
# Recreate mm-new/README.md's result: the series on the stored mm-new
# mm/filemap.c, built with W=1.
#
#   mm-new/check.sh BASE_REPO [SERIES_DIR]
#
# BASE_REPO: the lab's base kernel repository (tag lab-base, Debian 7.3-rc7).
# SERIES_DIR: the series to try first (default /work/main/series; a cover
# letter 0000-* is skipped).  If it does not apply, mm-new/series/*.patch
# (the series rebased on mm-new's filemap.c) is applied instead.
#
# It makes a detached worktree of lab-base (no branch is created) at
# $MMNEW_WT and an object dir at $MMNEW_OBJ, replacing any earlier ones it
# made there, applies $MMNEW_BASE/*.patch, builds mm/filemap.o with W=1,
# applies the series and builds again.  It exits non-zero if a step fails
# or the series adds a W=1 warning.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
base_repo=${1:?usage: $0 BASE_REPO [SERIES_DIR]}
series_dir=${2:-/work/main/series}
# git am runs in the worktree: make the path absolute
series_dir=$(cd "$series_dir" && pwd) || exit 1
wt=${MMNEW_WT:-/root/.cache/mmlab/k/mmnew-check-src}
obj=${MMNEW_OBJ:-/root/.cache/mmlab/k/mmnew-check-obj}
guest_config=${GUEST_CONFIG:-$here/../config/guest.config}
export CCACHE_DIR=${CCACHE_DIR:-/root/.cache/mmlab/ccache}
export GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-mm-new check}
export GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-check@mmlab.invalid}
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
kmake() { nice -n 19 make -C "$wt" O="$obj" ARCH=x86_64 CC="$cc" "$@"; }
say() { printf '== %s\n' "$*"; }
die() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

git -C "$base_repo" rev-parse -q --verify 'lab-base^{commit}' >/dev/null ||
	die "$base_repo has no tag lab-base"
[ -f "$guest_config" ] || die "no guest config at $guest_config"
shopt -s nullglob
# The lab-only commit that puts the stored mm-new mm/filemap.c on lab-base
# holds public kernel code, which this repository does not carry: it is
# looked for in $MMNEW_BASE (default ~/.cache/mmlab/mm-new; see README.md).
base_dir=${MMNEW_BASE:-$HOME/.cache/mmlab/mm-new}
base_patches=("$base_dir"/*.patch)
fallback=("$here"/series/*.patch)
given=()
for p in "$series_dir"/*.patch; do
	case $(basename "$p") in 0000-*|*cover-letter*) continue ;; esac
	given+=("$p")
done
[ ${#base_patches[@]} -gt 0 ] || die "no lab-only base patch in $base_dir: write the stored mm/filemap.c of linux-mm/linux-mm at 0b2777a511b7 onto lab-base as one commit and put its git format-patch there (README.md)"

say "worktree $wt (detached at lab-base)"
if [ -e "$wt" ]; then
	git -C "$base_repo" worktree remove --force "$wt" 2>/dev/null ||
		die "$wt exists and is not a worktree of $base_repo; remove it or set MMNEW_WT"
fi
git -C "$base_repo" worktree add -f -q --detach "$wt" lab-base

say "lab-only base: ${base_patches[*]##*/}"
git -C "$wt" am -q "${base_patches[@]}" || die "mm-new/base does not apply on lab-base"

say "config: tinyconfig + $guest_config"
rm -rf "$obj"
mkdir -p "$obj"
kmake -s tinyconfig >/dev/null
(cd "$wt" && scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" "$guest_config") >/dev/null
kmake -s olddefconfig >/dev/null

build() {	# $1: log name
	kmake -j2 W=1 mm/filemap.o >"$obj/$1.log" 2>&1 || {
		grep -E 'error|warning' "$obj/$1.log" | head -20 >&2
		die "mm/filemap.o does not build ($1), see $obj/$1.log"
	}
	grep -c 'warning:' "$obj/$1.log" || true
}
say "build mm-new mm/filemap.o, W=1"
w_base=$(build build-mm-new)
say "  ok, $w_base warnings"

applied=
if [ ${#given[@]} -gt 0 ]; then
	say "git am ${#given[@]} patches from $series_dir"
	if git -C "$wt" am -q "${given[@]}" >"$obj/am-given.log" 2>&1; then
		applied=$series_dir
	else
		sed -n 's/^\(error: patch failed: .*\|Patch failed at .*\)$/   \1/p' "$obj/am-given.log"
		git -C "$wt" am --abort
		say "  does not apply on mm-new's filemap.c"
	fi
else
	say "no patches in $series_dir"
fi
if [ -z "$applied" ]; then
	[ ${#fallback[@]} -gt 0 ] || die "and no rebased series in $here/series"
	say "git am the rebased series: ${fallback[*]##*/}"
	git -C "$wt" am -q "${fallback[@]}" || die "mm-new/series does not apply"
	applied=$here/series
fi
git -C "$wt" log --oneline lab-base..HEAD

say "build mm/filemap.o with the series, W=1"
w_series=$(build build-series)
say "  ok, $w_series warnings"
[ "$w_series" -le "$w_base" ] || die "the series adds W=1 warnings, see $obj/build-series.log"
say "PASS: series from $applied applies and builds on mm-new's mm/filemap.c"
