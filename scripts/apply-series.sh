#!/bin/bash
# Make a variant's work tree: lab-base + the patches of one or more
# directories, applied in order with git am.
#   apply-series.sh [-v VARIANT] [DIR...]     (default: -v patched series)
# A DIR with a file series-rev (a variant of variants/ that is an older
# version of the series) stands for the series/ that commit of this
# repository holds, taken with git show, then DIR's own patches.
# The work tree is a git worktree of the base repository at
# $KROOT/VARIANT/src, on branch VARIANT. Unchanged files keep their mtimes,
# so rebuilds stay incremental. Fails naming the patch that does not apply.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
lab_lock

variant=patched
while getopts "v:" o; do
	case $o in v) variant=$OPTARG ;; *) die "bad option" ;; esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "$LAB/series"
[ "$variant" != base ] || die "'base' is lab-base itself and takes no patches"

KROOT=$(kroot)
base_env
repo=$KROOT/base/src
src=$KROOT/$variant/src
export_git_ids

# series_at DIR REV: series/ as commit REV of this repository holds it,
# into $KROOT/.series/REV; prints that directory
series_at() {
	local d=$1 rev=$2 out f
	if ! git -C "$LAB" rev-parse -q --verify "$rev^{commit}" >/dev/null 2>&1; then
		if [ "$(git -C "$LAB" rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
			die "$d takes series/ from commit $rev of the lab's history, and $LAB is a shallow clone: run 'git fetch --unshallow' there"
		fi
		die "$d takes series/ from commit $rev of the lab's history, which $LAB does not have (it needs a git clone of the lab with its history, not an export)"
	fi
	out=$KROOT/.series/$rev
	rm -rf "$out"
	mkdir -p "$out"
	for f in $(git -C "$LAB" ls-tree --name-only "$rev" series/); do
		case $f in *.patch) git -C "$LAB" show "$rev:$f" > "$out/${f##*/}" ;; esac
	done
	ls "$out"/*.patch >/dev/null 2>&1 || die "$d: commit $rev has no series/*.patch"
	echo "$out"
}

# add_patches DIR: append DIR's patches, but its cover letter, to patches
patches=()
add_patches() {
	local p
	for p in "$1"/*.patch; do
		if [ -e "$p" ] && [ "${p##*/}" != 0000-cover-letter.patch ]; then patches+=("$p"); fi
	done
}
for d in "$@"; do
	[ -d "$d" ] || die "no patch directory $d"
	# git am runs in another directory: name the patches absolutely
	d=$(cd "$d" && pwd)
	if [ -f "$d/series-rev" ]; then
		rev=
		read -r rev _ < "$d/series-rev" || true
		[ -n "$rev" ] || die "${d#"$LAB"/}/series-rev names no commit"
		s=$(series_at "${d#"$LAB"/}" "$rev") || exit 1
		add_patches "$s"
	fi
	add_patches "$d"
done

stamp=$( (echo "$variant"; git -C "$repo" rev-parse lab-base
	  for p in "${patches[@]}"; do sha256sum "$p"; done) | sha256sum | cut -c1-16)
applied=$KROOT/$variant/.lab-applied
# Work done in the tree and not exported yet must not be lost. The stamp
# says which patches the tree was made from and what HEAD was then; when
# HEAD has moved since (or the stamp is from an older lab, without HEAD),
# the commits may be work in progress or may be what was just exported to
# the patches: which one is known once the patches are applied (below).
compare=no
if [ -d "$src" ] && [ -e "$src/.git" ] && [ "${FORCE:-0}" != 1 ]; then
	git -C "$src" diff --quiet HEAD ||
		die "$variant: $src has changes that are not committed, so not in the patches (commit them and 'make export', or discard them with FORCE=1)"
	if [ -f "$applied" ] && [ "$(sed -n 2p "$applied")" = "$(git -C "$src" rev-parse HEAD)" ]; then
		if [ "$(sed -n 1p "$applied")" = "$stamp" ]; then
			log "$variant: already lab-base + ${#patches[@]} patch(es)"
			exit 0
		fi
	else
		compare=yes
	fi
	untracked=$(git -C "$src" ls-files --others --exclude-standard)
	[ -z "$untracked" ] ||
		die "$variant: $src has untracked files, which making the tree anew would delete: $(echo $untracked | cut -c1-300) (commit them, move them away, or delete them with FORCE=1)"
fi
# git am runs in a scratch work tree shared by all variants, so that a patch
# that does not apply never leaves a variant half-done; the variant then
# moves to the result, and git rewrites only the files that differ, which
# keeps the rebuild incremental.
worktree() {
	if [ ! -e "$1/.git" ]; then
		git -C "$repo" worktree prune
		# a checkout of the kernel is 1.4 GiB
		need_space "$(dirname "$1")" 2048 "a work tree at $1"
		log "creating work tree $1"
		git -C "$repo" worktree add -q -f --detach "$1" lab-base
	fi
}
am=$KROOT/.am/src
worktree "$am"
cd "$am"
git am --abort >/dev/null 2>&1 || true
git checkout -q -f --detach lab-base
git clean -q -fdx
for p in "${patches[@]}"; do
	if ! git am -q --committer-date-is-author-date "$p" > "$KROOT/.am/am.log" 2>&1; then
		cat "$KROOT/.am/am.log" >&2
		git am --abort >/dev/null 2>&1 || true
		die "$variant: patch ${p#"$LAB"/} does not apply to $BASE_PKG_USED $BASE_VERSION_USED (lab-base)"
	fi
done
head=$(git rev-parse HEAD)

# commits_of REV: what makes lab-base..REV the same series: each commit's
# tree, author, date and message (not the committer, which git am sets)
commits_of() {
	git -C "$repo" log --reverse --format='%T %an <%ae> %at%n%B%n--' "lab-base..$1"
}
if [ "$compare" = yes ]; then
	if [ "$(commits_of "$head")" != "$(commits_of "$(git -C "$src" rev-parse HEAD)")" ]; then
		die "$variant: $src has commits that are not in the patches (export them with 'make export', or discard them with FORCE=1)"
	fi
	log "$variant: the tree's commits are the patches' (exported)"
fi

worktree "$src"
rm -f "$applied"
cd "$src"
git checkout -q -f -B "$variant" "$head"
# -x: build products and other ignored files go too; untracked files were
# refused above unless FORCE=1
ignored=$(git clean -n -d -X | sed 's/^Would remove //')
[ -z "$ignored" ] || log "$variant: removing ignored files: $(echo $ignored | cut -c1-200)"
git clean -q -fdx

# Keep the cover letter's subject and text as the branch description, so
# export-series.sh writes it back unchanged.
cover=$(dirname "${patches[0]:-$LAB/series/x}")/0000-cover-letter.patch
if [ -f "$cover" ]; then
	python3 - "$cover" > "$KROOT/$variant/description" <<'PY'
import email, re, sys
from email import policy
m = email.message_from_file(open(sys.argv[1]), policy=policy.default)
subj = str(m["Subject"])
if "]" in subj:
    subj = subj.split("]", 1)[1].strip()
body = m.get_payload()
# the shortlog ("Author (N):" and its lines) and the diffstat are
# regenerated by format-patch: cut at the last shortlog heading, not at a
# "):" that the text itself may hold
heads = list(re.finditer(r"\n\n[^\n]+ \(\d+\):\n", body))
cut = heads[-1].start() if heads else len(body)
print(subj + "\n\n" + body[:cut].strip())
PY
	git config "branch.$variant.description" "$(cat "$KROOT/$variant/description")"
fi
printf '%s\n%s\n' "$stamp" "$(git rev-parse HEAD)" > "$applied"
n=${#patches[@]}
if [ "$n" = 0 ]; then
	warn "$variant: the series is empty: '$variant' is the same tree as base"
else
	log "$variant: lab-base + $n patch(es) applied"
fi
