#!/bin/bash
# Write the patched work tree's commits back to series/ with
# git format-patch --cover-letter. The cover letter's subject and text come
# from the branch description (set from the previous cover letter by
# apply-series.sh; edit with 'git branch --edit-description').
set -euo pipefail
. "$(dirname "$0")/lib.sh"
lab_lock

variant=${1:-patched}
KROOT=$(kroot)
src=$KROOT/$variant/src
[ -d "$src" ] || die "no work tree for $variant: run scripts/apply-series.sh first"
n=$(git -C "$src" rev-list --count lab-base..HEAD)
[ "$n" -gt 0 ] || die "$variant has no commits on top of lab-base: nothing to export"
git -C "$src" diff --quiet HEAD || die "$variant has uncommitted changes: commit them first"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${SERIES_OUT:-$LAB/series}
# The patches must not depend on who exports them (docs/lab.md): with the
# user's or the system's git configuration the series may no longer apply
# or no longer export byte for byte the same. The user's name and address
# stay available, for a sign-off.
uname=$(git -C "$src" config user.name) || uname=
uemail=$(git -C "$src" config user.email) || uemail=
# Who sends the series: the patches carry the placeholder author and no
# Signed-off-by (the series is tool-made: Documentation/process/
# coding-assistants.rst). The person who posts it exports it with
# SERIES_SIGN=1 and their git identity (user.name, user.email): author and
# Signed-off-by become theirs, in the commits themselves, with the fixed
# committer and dates of apply-series.sh.
if [ "${SERIES_SIGN:-0}" = 1 ]; then
	[ -n "$uname" ] && [ -n "$uemail" ] ||
		die "SERIES_SIGN=1 needs a git identity: git config user.name and user.email"
	me="$uname <$uemail>"
	log "author and Signed-off-by: $me (from git config)"
	cat > "$tmp/reauthor.sh" <<'EOS'
msg=$(git log -1 --format=%B | git interpret-trailers --if-exists addIfDifferent --trailer "Signed-off-by: $ME")
GIT_COMMITTER_DATE=$(git log -1 --format=%aI) git commit -q --amend --author="$ME" -m "$msg"
EOS
	export_git_ids
	ME=$me git -C "$src" -c core.editor=true rebase -q \
		--committer-date-is-author-date --exec "bash '$tmp/reauthor.sh'" lab-base ||
		die "could not set the author of $variant's commits to $me"
fi
gitx() {
	env -u GIT_CONFIG_PARAMETERS -u GIT_CONFIG_COUNT -u GIT_DIFF_OPTS \
	    -u GIT_EXTERNAL_DIFF GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
	git -C "$src" ${uname:+-c "user.name=$uname"} ${uemail:+-c "user.email=$uemail"} \
		-c core.abbrev=12 -c diff.noprefix=false -c diff.mnemonicPrefix=false \
		-c color.ui=never -c diff.algorithm=myers -c diff.relative=false \
		-c diff.renames=true -c diff.context=3 -c diff.interHunkContext=0 \
		-c diff.suppressBlankEmpty=false -c core.quotePath=true \
		"$@"
}
# The cover letter takes its sender and date from the committer: make them
# the last commit's author and date, so that it is from the series' author
# and an unchanged series exports byte for byte the same.
# To: and Cc: of every mail, from lab.conf
rcpt=(--to="$SERIES_TO")
while IFS= read -r c; do
	[ -z "$c" ] || rcpt+=(--cc="$c")
done <<<"$SERIES_CC"
GIT_COMMITTER_NAME=$(git -C "$src" log -1 --format=%an HEAD) \
GIT_COMMITTER_EMAIL=$(git -C "$src" log -1 --format=%ae HEAD) \
GIT_COMMITTER_DATE=$(git -C "$src" log -1 --format=%cI HEAD) \
gitx format-patch -q --cover-letter --cover-from-description=subject \
	--no-signature --no-thread --no-numbered-files --no-notes \
	--no-base --no-from --no-to --no-cc "${rcpt[@]}" \
	--subject-prefix="PATCH${SERIES_VERSION:+ v$SERIES_VERSION}" --suffix=.patch -o "$tmp" lab-base..HEAD
rm -f "$out"/*.patch
mkdir -p "$out"
mv "$tmp"/*.patch "$out/"
log "exported $n patch(es) + cover letter to ${out#"$LAB"/}"
ls "$out" >&2
