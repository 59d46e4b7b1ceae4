#!/bin/bash
# Write the patched work tree's commits back to series/ with
# git format-patch --cover-letter. The cover letter's subject and text come
# from the branch description (set from the previous cover letter by
# apply-series.sh; edit with 'git branch --edit-description').
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=${1:-patched}
KROOT=$(kroot)
src=$KROOT/$variant/src
[ -d "$src" ] || die "no work tree for $variant: run scripts/apply-series.sh first"
n=$(git -C "$src" rev-list --count lab-base..HEAD)
[ "$n" -gt 0 ] || die "$variant has no commits on top of lab-base: nothing to export"
git -C "$src" diff --quiet HEAD || die "$variant has uncommitted changes: commit them first"

tmp=$(mktemp -d)
out=${SERIES_OUT:-$LAB/series}
# The cover letter takes its sender and date from the committer: make them
# the last commit's author and date, so that it is from the series' author
# and an unchanged series exports byte for byte the same.
GIT_COMMITTER_NAME=$(git -C "$src" log -1 --format=%an HEAD) \
GIT_COMMITTER_EMAIL=$(git -C "$src" log -1 --format=%ae HEAD) \
GIT_COMMITTER_DATE=$(git -C "$src" log -1 --format=%cI HEAD) \
git -C "$src" -c core.abbrev=12 format-patch -q --cover-letter \
	--cover-from-description=subject --no-signature --no-thread \
	-o "$tmp" lab-base..HEAD
rm -f "$out"/*.patch
mkdir -p "$out"
mv "$tmp"/*.patch "$out/"
rmdir "$tmp"
log "exported $n patch(es) + cover letter to ${out#"$LAB"/}"
ls "$out" >&2
