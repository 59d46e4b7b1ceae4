#!/bin/bash
# Fetch lab.conf's kernel source package through a private apt setup and
# make it a git repository in the cache, tagged debian-base (as packaged)
# and lab-base (what the series applies on; docs/lab.md). Writes
# $CACHE/base.env.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
lab_lock

APT=$CACHE/apt
mkdir -p "$CACHE/debs"
private_apt "$APT" deb

# Fast path: the pinned tree is already there.
if [ -r "$CACHE/base.env" ]; then
	. "$CACHE/base.env"
	if [ "$BASE_PKG_USED" = "$BASE_PKG" ] && [ "$BASE_VERSION_USED" = "$BASE_VERSION" ] &&
	   git -C "$CACHE/k/$BASE_KEY/base/src" rev-parse -q --verify lab-base >/dev/null; then
		exit 0
	fi
fi

log "updating private package lists ($APT_SUITES)"
apt_get_update "private package lists ($APT_SUITES)" "${APTOPT[@]}"

# Versions of a package in the private lists, one a line; none (and no
# failure) for a package the archive does not have.
versions_of() {
	local out
	out=$(apt-cache "${APTOPT[@]}" madison "$1" 2>/dev/null) || out=
	awk -F'|' 'NF > 2 {gsub(/ /,"",$2); print $2}' <<<"$out"
}

pkg=$BASE_PKG ver=
pinned=yes
# a variable, not a pipe into grep -q: grep leaving early would fail the
# writer with SIGPIPE, and pipefail would take that for "not there"
have=$(versions_of "$BASE_PKG")
if grep -qxF "$BASE_VERSION" <<<"$have"; then
	ver=$BASE_VERSION
else
	pinned=no
	# newest linux-source-7.3* that the archive has
	cand=$(apt-cache "${APTOPT[@]}" pkgnames "$BASE_PKG" 2>/dev/null) || cand=
	cand=$(sort -V <<<"$cand" | tail -1)
	if [ -n "$cand" ]; then
		pkg=$cand
		ver=$(versions_of "$pkg" | sort -V | tail -1)
	fi
	if [ -z "$ver" ]; then
		pkg=$FALLBACK_PKG
		ver=$(versions_of "$pkg" | sort -V | tail -1)
	fi
	[ -n "$ver" ] || die "neither $BASE_PKG nor $FALLBACK_PKG is in the archive"
	warn "*****************************************************************"
	warn "pinned $BASE_PKG=$BASE_VERSION is not in the archive;"
	warn "USING $pkg=$ver INSTEAD. Every result will say so."
	warn "*****************************************************************"
fi

key=$(echo "$pkg-$ver" | tr '~:' '__')
deb=$CACHE/debs/${pkg}_${ver}_all.deb
src=$CACHE/k/$key/base/src
# Left behind by a run that failed half-way: the partial download, the
# unpacked tarball, a tree without its lab-base tag.
cleanup() {
	rm -rf "$CACHE/k/$key/tmp" "$APT/cache/archives/partial"/*
	rm -f "$APT/cache/archives/${pkg}_"*"_all.deb"
	if [ -d "$src" ] && ! git -C "$src" rev-parse -q --verify lab-base >/dev/null 2>&1; then
		rm -rf "$src"
	fi
}
# shellcheck disable=SC2154 # rc is assigned inside the trap string
trap 'rc=$?; [ $rc = 0 ] || cleanup; exit $rc' EXIT
if [ ! -s "$deb" ]; then
	# the .deb is about 160 MiB
	need_space "$CACHE/debs" 512 "downloading $pkg"
	log "downloading $pkg=$ver"
	(cd "$APT/cache/archives" && apt-get "${APTOPT[@]}" -qq download "$pkg=$ver") ||
		die "download of $pkg=$ver failed"
	mv "$APT/cache/archives/${pkg}_"*"_all.deb" "$deb"
fi

if ! git -C "$src" rev-parse -q --verify lab-base >/dev/null 2>&1; then
	# the unpacked tarball on the way, the tree (1.4 GiB) and its git
	# objects before they are packed
	rm -rf "$src" "$CACHE/k/$key/tmp"
	need_space "$CACHE/k" 4096 "unpacking $pkg into a git tree"
	log "unpacking $deb"
	mkdir -p "$CACHE/k/$key/tmp" "$src"
	dpkg-deb -x "$deb" "$CACHE/k/$key/tmp"
	tarball=$(ls "$CACHE/k/$key/tmp"/usr/src/linux-source-*.tar.* 2>/dev/null) ||
		die "$deb has no usr/src/linux-source-*.tar.*"
	tar -xf "$tarball" -C "$src" --strip-components=1
	rm -rf "$CACHE/k/$key/tmp"

	log "making a git repository of it"
	export_git_ids
	export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
	cd "$src"
	git init -q -b base
	git config gc.auto 0
	git config core.abbrev 12
	git add -f -A .
	git commit -q -m "Debian $pkg $ver" -m "Unpacked from ${pkg}_${ver}_all.deb, unchanged."
	git tag debian-base
	# Debian's .gitignore ends with a block that ignores everything at the
	# top level (for its packaging repo): new files would be dropped.
	python3 - .gitignore <<'PY'
import sys
p = sys.argv[1]
t = open(p).read()
i = t.find("#\n# Debian packaging")
if i < 0:
    sys.exit(0)
open(p, "w").write(t[:i].rstrip("\n") + "\n")
PY
	if ! git diff --quiet; then
		git commit -q -a -m "lab: drop Debian's top-level ignore rule" \
			-m "Lab-only commit: without it git ignores new files such as selftests."
	fi
	git tag lab-base
	git gc -q --auto
fi

blob=$(git -C "$src" rev-parse lab-base:mm/filemap.c)
kver=$(make -s -C "$src" kernelversion 2>/dev/null)
cat > "$CACHE/base.env" <<EOT
BASE_PKG_USED=$pkg
BASE_VERSION_USED=$ver
BASE_PINNED=$pinned
BASE_KEY=$key
BASE_KERNELVERSION=$kver
BASE_FILEMAP_BLOB=$blob
EOT
log "base: $pkg $ver (kernel $kver, mm/filemap.c blob $blob)$([ $pinned = yes ] || echo " NOT THE PINNED VERSION")"
