#!/bin/bash
# Fetch Debian's kernel source package through a private apt setup, unpack
# it into the cache and make it a git repository:
#   tag "debian-base": the tree exactly as packaged
#   tag "lab-base":    plus one lab-only commit dropping Debian's top-level
#                      ignore rule, so new files (selftests, docs) are seen.
# The series applies on lab-base. Writes $CACHE/base.env.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

APT=$CACHE/apt
mkdir -p "$CACHE/debs"
private_apt "$APT" deb

key_of() { echo "$1-$2" | tr '~:' '__'; }

# Fast path: the pinned tree is already there.
if [ -r "$CACHE/base.env" ]; then
	. "$CACHE/base.env"
	if [ "$BASE_PKG_USED" = "$BASE_PKG" ] && [ "$BASE_VERSION_USED" = "$BASE_VERSION" ] &&
	   git -C "$CACHE/k/$BASE_KEY/base/src" rev-parse -q --verify lab-base >/dev/null; then
		exit 0
	fi
fi

log "updating private package lists ($APT_SUITES)"
apt-get "${APTOPT[@]}" -qq update || die "apt-get update (private lists) failed"

versions_of() {
	apt-cache "${APTOPT[@]}" madison "$1" 2>/dev/null | awk -F'|' '{gsub(/ /,"",$2); print $2}'
}

pkg=$BASE_PKG ver=
pinned=yes
if versions_of "$BASE_PKG" | grep -qxF "$BASE_VERSION"; then
	ver=$BASE_VERSION
else
	pinned=no
	# newest linux-source-7.3* that the archive has
	cand=$(apt-cache "${APTOPT[@]}" pkgnames "$BASE_PKG" 2>/dev/null | sort -V | tail -1)
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

key=$(key_of "$pkg" "$ver")
deb=$CACHE/debs/${pkg}_${ver}_all.deb
if [ ! -s "$deb" ]; then
	log "downloading $pkg=$ver"
	(cd "$APT/cache/archives" && apt-get "${APTOPT[@]}" -qq download "$pkg=$ver") ||
		die "download of $pkg=$ver failed"
	mv "$APT/cache/archives/${pkg}_"*"_all.deb" "$deb"
fi

src=$CACHE/k/$key/base/src
if ! git -C "$src" rev-parse -q --verify lab-base >/dev/null 2>&1; then
	log "unpacking $deb"
	rm -rf "$src" "$CACHE/k/$key/tmp"
	mkdir -p "$CACHE/k/$key/tmp" "$src"
	dpkg-deb -x "$deb" "$CACHE/k/$key/tmp"
	tarball=$(ls "$CACHE/k/$key/tmp"/usr/src/linux-source-*.tar.*)
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
