#!/bin/bash
# What a linux-mm reviewer checks first, on the patched work tree:
#   checkpatch --strict per patch, W=1 and sparse (C=1) warnings of the
#   objects the series touches (base vs patched), the mm/ objects with THP
#   off and with LRU_GEN off, and make htmldocs for Documentation/mm (base
#   vs patched warnings). Prints a summary; exits 1 on any finding.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

KROOT=$(kroot)
base=$KROOT/base
pat=$KROOT/patched
[ -d "$pat/src" ] || die "no patched tree: run scripts/apply-series.sh"
out=$BUILD/review
mkdir -p "$out"
bad=0
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache} CCACHE_BASEDIR=$KROOT CCACHE_NOHASHDIR=1

echo "== checkpatch --strict"
for p in "$LAB"/series/0*.patch; do
	case $p in *0000-cover-letter.patch) continue ;; esac
	res=$("$pat/src/scripts/checkpatch.pl" --strict --no-tree "$p" 2>&1 | grep '^total:')
	echo "  ${p##*/}: $res"
	grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$res" || bad=1
done

# warnings V OBJ... : warnings of a forced rebuild of OBJ with make ARGS
warnings() {
	local v=$1 tag=$2
	shift 2
	local objs=("$@")
	make -s -C "$KROOT/$v/src" O="$KROOT/$v/obj" ARCH=x86_64 CC=gcc \
		LOCALVERSION="-$v" $tag "${objs[@]}" > "$out/$v.$tag.log" 2>&1
	grep -c 'warning:' "$out/$v.$tag.log"
}
objs=$(git -C "$pat/src" diff --name-only lab-base HEAD -- '*.c' |
	grep -v '^tools/' | sed 's/\.c$/.o/')
for tag in W=1 C=1; do
	echo "== $tag: $(echo $objs)"
	for v in base patched; do
		for o in $objs; do rm -f "$KROOT/$v/obj/$o"; done
	done
	# shellcheck disable=SC2086
	wb=$(warnings base "$tag" $objs) wp=$(warnings patched "$tag" $objs)
	echo "  warnings: base $wb, patched $wp"
	[ "$wp" -le "$wb" ] || { bad=1; diff <(grep warning: "$out/base.$tag.log") \
		<(grep warning: "$out/patched.$tag.log") | head -20; }
done

for frag in thp-off lru-gen-off; do
	o=$pat/obj-$frag
	mkdir -p "$o"
	cp "$pat/obj/.config" "$o/.config"
	"$pat/src/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" \
		"$LAB/config/$frag.config" >/dev/null 2>&1
	make -s -C "$pat/src" O="$o" ARCH=x86_64 olddefconfig >/dev/null 2>&1
	if make -s -C "$pat/src" O="$o" ARCH=x86_64 CC="ccache gcc" \
		LOCALVERSION=-patched -j"$(nproc)" mm/ > "$o/build.log" 2>&1; then
		echo "== $frag: mm/ builds, $(grep -c 'warning:' "$o/build.log") warnings"
		grep -q warning: "$o/build.log" && bad=1
	else
		echo "== $frag: mm/ does NOT build"; tail -20 "$o/build.log"; bad=1
	fi
done

echo "== htmldocs SPHINXDIRS=mm"
for v in base patched; do
	make -s -C "$KROOT/$v/src" O="$out/docs-$v" SPHINXDIRS=mm htmldocs \
		> "$out/docs-$v.log" 2>&1
	grep -E 'WARNING|ERROR' "$out/docs-$v.log" | sed "s|$KROOT/$v/src/||" |
		sort > "$out/docs-$v.warn"
done
echo "  warnings: base $(wc -l < "$out/docs-base.warn"), patched $(wc -l < "$out/docs-patched.warn")"
new=$(comm -13 "$out/docs-base.warn" "$out/docs-patched.warn")
[ -z "$new" ] || { echo "  new:"; echo "$new" | sed 's/^/    /'; bad=1; }
[ -f "$out/docs-patched/mm/readahead.html" ] && echo "  mm/readahead.html built"

[ $bad = 0 ] && echo "review: clean" || echo "review: FINDINGS above"
exit $bad
