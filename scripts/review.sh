#!/bin/bash
# What a linux-mm reviewer checks first, on the patched work tree:
#   checkpatch --strict per patch, W=1 and sparse (C=1) warnings of the
#   objects the series touches (base vs patched), the same with THP off
#   and with LRU_GEN off (as make matrix), and, when the series changes
#   Documentation, make htmldocs for Documentation/mm (base vs patched
#   warnings). Prints a summary, kept in results/review.txt; exits 1 on
#   any finding.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
export MMLAB_ENTRY="make review (scripts/review.sh)"
lab_lock
mkdir -p "$RESULTS"
exec > >(tee "$RESULTS/review.txt") 2>&1
echo "bash scripts/review.sh"

KROOT=$(kroot)
pat=$KROOT/patched
[ -d "$pat/src" ] || die "no patched tree: run scripts/apply-series.sh"
provenance base patched
out=$BUILD/review
mkdir -p "$out"
bad=0

echo "== checkpatch --strict"
# Run in the kernel tree, with Debian's python3 (python3-ply, for
# spdxcheck) rather than another one in PATH. The tree is a tarball with
# no upstream history, so checkpatch cannot look up the Fixes: id; that
# one check is left to a real kernel tree and said so here.
# The committed series is tool-made and carries no Signed-off-by (the
# person who posts adds theirs, README): MISSING_SIGN_OFF is expected
# there, and only there. The new files are under MM MISC's F: entries
# already, so checkpatch's MAINTAINERS hint is not a finding.
ignore=UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES
grep -q '^Signed-off-by:' "$LAB"/series/0*.patch || ignore+=,MISSING_SIGN_OFF
for p in "$LAB"/series/0*.patch; do
	case $p in *0000-cover-letter.patch) continue ;; esac
	res=$(cd "$pat/src" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict \
		--ignore "$ignore" "$p" 2>&1)
	echo "  ${p##*/}: $(grep '^total:' <<<"$res")"
	grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$res" ||
		{ bad=1; grep -E '^(ERROR|WARNING|CHECK)' <<<"$res" | sed 's/^/    /'; }
done
echo "  (not checked: $ignore; UNKNOWN_COMMIT_ID because the base has no upstream history)"

echo "== sign-off"
# export-series.sh replaces the placeholder with the exporter's git
# identity; a series still signed off by it cannot be posted.
if grep -lxF "Signed-off-by: $SERIES_PLACEHOLDER" \
	"$LAB"/series/0*.patch | sed 's|.*/|  placeholder sign-off: |' | grep .; then
	echo "  set your identity (git config --global user.name 'Your Name';"
	echo "  git config --global user.email you@example.org) and run make export"
	bad=1
elif grep -q '^Signed-off-by:' "$LAB"/series/0*.patch; then
	echo "  $(grep -h '^Signed-off-by:' "$LAB"/series/0*.patch | sort -u | tr '\n' ' ')"
else
	echo "  none: tool-made, the person who posts adds theirs (README: Posting the series)"
fi

# Debian 12's sparse is too old for this kernel, and kbuild then checks
# nothing without failing: use one that it accepts, and treat its
# complaint as a finding.
sparse=$(bash "$LAB/scripts/fetch-sparse.sh") || die "no usable sparse for C=1"

# warnings VARIANT W=1|C=1 OBJ...: count of warnings from building OBJ
# in VARIANT's tree with that flag (the caller removes OBJ first)
warnings() {
	local v=$1 tag=$2
	shift 2
	kmake "$v" "$KROOT/$v/obj" CC=gcc CHECK="$sparse" $tag "$@" \
		> "$out/$v.$tag.log" 2>&1
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
	if grep -h 'not available or not up to date' "$out"/*."$tag".log; then
		echo "  the checker did not run"; bad=1
	fi
	[ "$wp" -le "$wb" ] || { bad=1; diff <(grep warning: "$out/base.$tag.log") \
		<(grep warning: "$out/patched.$tag.log") | head -20; }
done

# THP and LRU_GEN off: make matrix's two configurations, in its object
# directories (one build for both targets), its table in build/review
echo "== THP off, LRU_GEN off: W=1, base vs patched (scripts/config-matrix.sh)"
MMLAB_RESULTS=$out bash "$LAB/scripts/config-matrix.sh" x86_64-thp-off \
	x86_64-lru-gen-off > "$out/matrix.log" 2>&1 || bad=1
grep -E '^== x86|warnings base' "$out/matrix.log" | sed 's/^== /  /'
grep -q '^matrix: clean' "$out/matrix.log" || { bad=1; tail -n 20 "$out/matrix.log"; }

echo "== make -C tools/testing/selftests TARGETS=mm"
# as a kselftest user builds them (uapi headers from 'make headers' of the
# patched build); the binaries land in the tree, ignored, and are removed
make -s -C "$pat/src/tools/testing/selftests" TARGETS=mm \
	KHDR_INCLUDES="-isystem $pat/obj/usr/include" -j"$(nproc)" \
	> "$out/kselftest-mm.log" 2>&1
rc=$?
if [ $rc = 0 ] && [ -x "$pat/src/tools/testing/selftests/mm/mmap_miss_recovery" ]; then
	echo "  builds; warnings from mmap_miss_recovery.c: $(grep -c 'mmap_miss_recovery.c.*warning' "$out/kselftest-mm.log")"
	grep -q 'mmap_miss_recovery.c.*warning' "$out/kselftest-mm.log" && bad=1
else
	echo "  FAILED (exit $rc), see $out/kselftest-mm.log"; bad=1
fi
git -C "$pat/src" clean -q -fdx tools/

echo "== htmldocs SPHINXDIRS=mm"
if git -C "$pat/src" diff --quiet lab-base HEAD -- Documentation; then
	echo "  the series changes no Documentation: not built"
else
	for v in base patched; do
		# from scratch: an incremental build re-reads, and warns about, only
		# what changed, which would make the counts incomparable
		rm -rf "$out/docs-$v"
		make -s -C "$KROOT/$v/src" O="$out/docs-$v" SPHINXDIRS=mm htmldocs \
			> "$out/docs-$v.log" 2>&1
		grep -E 'WARNING|ERROR' "$out/docs-$v.log" | sed "s|$KROOT/$v/src/||g" |
			sort > "$out/docs-$v.warn"
	done
	echo "  warnings: base $(wc -l < "$out/docs-base.warn"), patched $(wc -l < "$out/docs-patched.warn")"
	# A subset build cannot resolve a :doc: link out of mm/ (base has such
	# warnings too); such a link is fine when the document it names exists.
	new=$(comm -13 "$out/docs-base.warn" "$out/docs-patched.warn")
	while IFS= read -r w; do
		[ -n "$w" ] || continue
		if [[ $w =~ ^(Documentation/[^:]*):[0-9]+:\ WARNING:\ unknown\ document:\ \'([^\']*)\'$ ]]; then
			ref=${BASH_REMATCH[2]}
			case $ref in
			/*) doc=Documentation$ref.rst ;;
			*) doc=$(realpath -m --relative-to="$pat/src" "$pat/src/$(dirname "${BASH_REMATCH[1]}")/$ref.rst") ;;
			esac
			if [ -f "$pat/src/$doc" ] && [[ $doc != Documentation/mm/* ]]; then
				echo "  outside SPHINXDIRS=mm, and $doc exists: $w"
				continue
			fi
		fi
		echo "  new: $w"; bad=1
	done <<< "$new"
fi

[ $bad = 0 ] && echo "review: clean" || echo "review: FINDINGS above"
exit $bad
