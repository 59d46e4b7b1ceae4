#!/bin/bash
# Usage: bash prev-miss/test.sh KERNEL_SRC [PATCH]
#
# Runs prev-miss.c against page_cache_{next,prev}_miss() as they are in
# KERNEL_SRC/mm/filemap.c ("before"), then against a temporary copy of
# mm/filemap.c with PATCH applied ("after").  KERNEL_SRC is only read.
# Exit status 0 when "before" shows the bug and "after" passes.
# XA_CHUNK_SHIFT=4 in the environment tests the CONFIG_BASE_SMALL node size.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "${1:?usage: test.sh KERNEL_SRC [PATCH]}" && pwd)
patch=${2:-$(ls "$here"/0001-*.patch | head -n 1)}
patch=$(cd "$(dirname "$patch")" && pwd)/$(basename "$patch")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# tools/testing/shared needs liburcu's headers (Debian: liburcu-dev)
if ! echo '#include <urcu.h>' | ${CC:-gcc} -E -x c - >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq liburcu-dev >/dev/null
	else
		echo "test.sh: install liburcu-dev first" >&2
		exit 2
	fi
fi

# A private copy of tools/testing/{shared,radix-tree}; the rest of the
# tree is reached through read-only symlinks, so nothing is built in $src.
t=$tmp/tree
mkdir -p "$t/tools/testing" "$t/after/mm"
cp -a "$src/tools/testing/shared" "$src/tools/testing/radix-tree" "$t/tools/testing/"
for d in include lib arch scripts; do ln -s "$src/tools/$d" "$t/tools/$d"; done
ln -s "$src/include" "$t/include"
ln -s "$src/lib" "$t/lib"
b=$t/tools/testing/radix-tree
cp "$here/prev-miss.c" "$b/"
cat > "$b/prev-miss.mk" <<'MK'
prev-miss.o: prev-miss.c filemap-miss.c $(SHARED_DEPS)
prev-miss: prev-miss.o $(SHARED_OFILES)
MK

# Cut the two functions out of a filemap.c, unchanged.
extract() {
	awk '/^pgoff_t page_cache_(next|prev)_miss\(/ { p = 1 }
	     p { print }
	     p && /^}/ { p = 0; n++ }
	     END { if (n != 2) exit 1 }' "$1" > "$b/filemap-miss.c"
}

run() {	# $1 = label, $2 = filemap.c
	extract "$2"
	echo "=== $1: $(sha1sum < "$b/filemap-miss.c" | cut -c1-12)" \
	     "($(wc -l < "$b/filemap-miss.c") lines cut from $2)"
	make -s -C "$b" -f Makefile -f prev-miss.mk SHIFT="${XA_CHUNK_SHIFT:-6}" prev-miss \
		>"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 2; }
	"$b/prev-miss"
}

set +e
run before "$src/mm/filemap.c"
before=$?
cp "$src/mm/filemap.c" "$t/after/mm/filemap.c"
patch -s -p1 -d "$t/after" < "$patch" || { echo "patch does not apply"; exit 2; }
run after "$t/after/mm/filemap.c"
after=$?
set -e

echo "=== before: exit $before (expected 1), after: exit $after (expected 0)"
[ "$before" = 1 ] && [ "$after" = 0 ]
