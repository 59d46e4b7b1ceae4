#!/bin/bash
# CI-sized config matrix for the series: build mm/filemap.o and
# mm/readahead.o with W=1 in base and in patched, each configured the same
# way, for the configurations the lab's guest kernel does not cover
# (CONFIGS below: THP off, LRU_GEN off, i386 for 32-bit pgoff_t
# arithmetic, the newest clang the kernel accepts, arm64 with 64 KiB
# pages). A warning in patched that base does not have (same file and
# message; line numbers are not compared, the series moves them) fails
# the config, as does a build failure or a config without the options it
# is meant to have. Writes results/config-matrix.md; exits 1 on any failure.
#   config-matrix.sh [NAME...]   only those configs
# Obj dirs: $KROOT/{base,patched}/obj-matrix-NAME, kept between runs, so a
# second run reconfigures nothing and rebuilds two objects per tree
# (from ccache when the sources did not change).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
export MMLAB_ENTRY="make matrix (scripts/config-matrix.sh)"
lab_lock

KROOT=$(kroot)
for v in base patched; do
	[ -f "$KROOT/$v/src/Makefile" ] || die "no $v tree ($KROOT/$v/src): run scripts/apply-series.sh"
done
out=$BUILD/matrix
mkdir -p "$out" "$RESULTS"
C=$LAB/config
OBJS=(mm/filemap.o mm/readahead.o)

# The configurations: NAME|ARCH|COMPILER|FRAGMENTS|OPTIONS THAT MUST HOLD
# (COMPILER gcc, cross (Debian's aarch64-linux-gnu-gcc), or llvm (skipped,
# and said so, without a clang the kernel accepts); an option "=n" must be
# off or absent).
# CONFIG_TRANSPARENT_HUGEPAGE and CONFIG_LRU_GEN matter to the series'
# code (the forced-THP readahead path and folio_test_workingset's source).
CONFIGS=(
"x86_64-thp-off|x86_64|gcc|$C/guest.config $C/thp-off.config|CONFIG_64BIT=y CONFIG_TRANSPARENT_HUGEPAGE=n CONFIG_LRU_GEN=y CONFIG_MEMCG=y"
"x86_64-lru-gen-off|x86_64|gcc|$C/guest.config $C/lru-gen-off.config|CONFIG_64BIT=y CONFIG_TRANSPARENT_HUGEPAGE=y CONFIG_LRU_GEN=n CONFIG_MEMCG=y"
"i386|i386|gcc|$C/guest.config $C/matrix-i386.config|CONFIG_X86_32=y CONFIG_64BIT=n CONFIG_TRANSPARENT_HUGEPAGE=y CONFIG_LRU_GEN=y CONFIG_MEMCG=y"
"x86_64-clang|x86_64|llvm|$C/guest.config|CONFIG_CC_IS_CLANG=y CONFIG_64BIT=y CONFIG_TRANSPARENT_HUGEPAGE=y CONFIG_LRU_GEN=y CONFIG_MEMCG=y"
"arm64-64k|arm64|cross|$C/arm64-guest.config|CONFIG_ARM64_64K_PAGES=y CONFIG_PAGE_SHIFT=16 CONFIG_TRANSPARENT_HUGEPAGE=y CONFIG_LRU_GEN=y CONFIG_MEMCG=y"
)

# llvm_suffix: "-NN" of the newest clang-NN (with ld.lld-NN, which kconfig
# checks) that the kernel accepts, or nothing; CLANG_WHY says what was
# found. The minimum is the tree's own (scripts/min-tool-version.sh).
llvm_suffix() {
	local min n best="" found=""
	min=$(SRCARCH=x86 ARCH=x86_64 sh "$KROOT/base/src/scripts/min-tool-version.sh" llvm)
	for n in $(compgen -c clang- | sed -n 's/^clang-\([0-9][0-9]*\)$/\1/p' | sort -un); do
		found="$found clang-$n"
		[ "$n" -ge "${min%%.*}" ] && command -v "ld.lld-$n" >/dev/null &&
			command -v "llvm-ar-$n" >/dev/null && best=$n
	done
	CLANG_WHY="kernel needs LLVM >= $min; found:${found:- no clang-NN}"
	[ -n "$best" ] && echo "-$best"
}

# make_args ARCH COMPILER: the make arguments of that arch and compiler,
# after kmake's own (which later ones override)
make_args() {
	case $2 in
	gcc) echo "ARCH=$1" ;;
	cross) echo "ARCH=$1 CROSS_COMPILE=aarch64-linux-gnu- CC=ccache_aarch64-linux-gnu-gcc" ;;
	llvm) echo "ARCH=$1 LLVM=$LLVM CC=ccache_clang$LLVM" ;;
	esac
}

# mk VARIANT OBJDIR ARGS...: kmake, niced, with this config's make_args
# ("ccache_X" in MARGS is "ccache X")
mk() {
	local v=$1 o=$2 a args=()
	shift 2
	for a in $MARGS; do args+=("${a/ccache_/ccache }"); done
	KMAKE_NICE=10 kmake "$v" "$o" "${args[@]}" "$@"
}

# configure VARIANT OBJDIR FRAGMENTS: tinyconfig + FRAGMENTS, with this
# config's make arguments (part of the key: ARCH and compiler)
configure() {
	# shellcheck disable=SC2086
	kconfigure "$KROOT/$1/src" "$2" "$MARGS" $3 -- mk "$1" "$2"
}

# check_options CONFIG OPTIONS: print each option's value; 1 when one is
# not as required
check_options() {
	local cfg=$1 o n want got rc=0
	for o in $2; do
		n=${o%%=*} want=${o#*=}
		got=$(sed -n "s/^$n=//p" "$cfg")
		[ -n "$got" ] || got=n
		if [ "$got" = "$want" ]; then printf ' %s=%s' "$n" "$got"
		else printf ' %s=%s(WANT %s)' "$n" "$got" "$want"; rc=1; fi
	done
	return $rc
}

# warnings LOG: the warnings of LOG, one a line, as "file: message" with
# the tree's path and the line and column numbers taken out
warnings() {
	grep 'warning:' "$1" | sed -E -e "s#$KROOT/(base|patched)/src/##g" \
		-e 's#^(\.\./)+src/##' -e 's#^([^: ]+):[0-9]+(:[0-9]+)?:#\1:#' | sort
}

names=" $(for c in "${CONFIGS[@]}"; do printf '%s ' "${c%%|*}"; done)"
for n in "$@"; do
	[[ $names == *" $n "* ]] || die "no config named '$n' (configs:$names)"
done
want=" $* "
# the cross compiler and clang only for the configurations that use them
# (make review runs the two gcc ones)
group=
for c in "${CONFIGS[@]}"; do
	IFS='|' read -r name _ comp _ <<<"$c"
	[ "$want" = "  " ] || [[ $want == *" $name "* ]] || continue
	[ "$comp" = gcc ] || group=matrix
done
bash "$LAB/scripts/deps.sh" $group || exit 1
LLVM=$(llvm_suffix) || LLVM=
rows=() failed=0 total_start=$(date +%s)
for c in "${CONFIGS[@]}"; do
	IFS='|' read -r name arch comp frags opts <<<"$c"
	[ "$want" = "  " ] || [[ $want == *" $name "* ]] || continue
	start=$(date +%s)
	echo "== $name"
	if [ "$comp" = llvm ] && [ -z "$LLVM" ]; then
		echo "  skipped: no usable clang ($CLANG_WHY)"
		rows+=("| $name | none ($CLANG_WHY) | - | - | - | skipped | 0 |")
		continue
	fi
	if [ "$comp" = cross ] && ! command -v aarch64-linux-gnu-gcc >/dev/null; then
		echo "  FAIL: no aarch64-linux-gnu-gcc (apt-get install gcc-aarch64-linux-gnu)"
		rows+=("| $name | none | - | - | - | FAIL (no cross compiler) | 0 |")
		failed=1; continue
	fi
	MARGS=$(make_args "$arch" "$comp")
	res="" cc="" nb=- np=- nn=-
	for v in base patched; do
		o=$KROOT/$v/obj-matrix-$name
		log=$out/$name-$v.log
		if ! configure "$v" "$o" "$frags"; then
			res="FAIL (configure $v)"; tail -5 "$o/config.log" | sed 's/^/    /'; break
		fi
		# prepare (and anything else W=1 changes) first, so that the log
		# of the objects holds their own warnings only, cold or warm
		if ! mk "$v" "$o" W=1 prepare > "$out/$name-$v.prepare.log" 2>&1; then
			res="FAIL (prepare $v)"; tail -5 "$out/$name-$v.prepare.log" | sed 's/^/    /'; break
		fi
		for f in "${OBJS[@]}"; do rm -f "$o/$f"; done
		if ! mk "$v" "$o" W=1 "${OBJS[@]}" > "$log" 2>&1; then
			res="FAIL (build $v)"; grep -E 'error' "$log" | head -5 | sed 's/^/    /'; break
		fi
		warnings "$log" > "$out/$name-$v.warn"
	done
	if [ -z "$res" ]; then
		ob=$KROOT/base/obj-matrix-$name op=$KROOT/patched/obj-matrix-$name
		cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$op/.config")
		if ! diff -q "$ob/.config" "$op/.config" >/dev/null; then
			res="FAIL (base and patched .config differ)"
			diff "$ob/.config" "$op/.config" | head -10 | sed 's/^/    /'
		fi
		optline=$(check_options "$op/.config" "$opts") || res=${res:-FAIL (config)}
		echo "  options:$optline"
		nb=$(wc -l < "$out/$name-base.warn") np=$(wc -l < "$out/$name-patched.warn")
		# in patched and not in base, counting repeats
		comm -13 "$out/$name-base.warn" "$out/$name-patched.warn" > "$out/$name.new"
		nn=$(wc -l < "$out/$name.new")
		[ "$nn" = 0 ] || { res=${res:-FAIL (new warnings)}; head -20 "$out/$name.new" | sed 's/^/    new: /'
			[ "$nn" -le 20 ] || echo "    ... $((nn - 20)) more: $out/$name.new"; }
		res=${res:-ok}
	fi
	secs=$(( $(date +%s) - start ))
	echo "  $cc; warnings base $nb, patched $np, new $nn: $res (${secs}s)"
	[ "$res" = ok ] || failed=1
	rows+=("| $name | ${cc:-?} | $nb | $np | $nn | $res | $secs |")
done
total=$(( $(date +%s) - total_start ))

{
	echo "# Config matrix: W=1 build of ${OBJS[*]}, base vs patched"
	echo
	echo "Command: \`scripts/config-matrix.sh${*:+ $*}\` (make matrix), $(date -u '+%F %H:%M') UTC, ${total}s in all;"
	echo "$(provenance base patched)."
	echo "A warning of patched that base lacks (same file and message) fails the config."
	echo
	echo "| config | compiler | base warnings | patched warnings | new | result | seconds |"
	echo "|---|---|---|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
} > "$RESULTS/config-matrix.md"
echo "== ${total}s in all; wrote results/config-matrix.md"
[ $failed = 0 ] && echo "matrix: clean" || echo "matrix: FAILURES above"
exit $failed
