#!/bin/bash
# make check: tests of the lab itself, then the series' selftest in guests
# (patched: must pass; base: the cases the series fixes must fail).
# Ends with one line "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib.sh"

S=$LAB/scripts D=$LAB/tests/data
export MMLAB_ENTRY="make check (scripts/check.sh)"
# make check-lab touches no cache (its tests make their own), so it runs
# beside a lab run and as a user with no home; make check builds in it
[ "${CHECK_LAB_ONLY:-0}" = 1 ] || lab_lock
T=$BUILD/check
rm -rf "$T" && mkdir -p "$T"
pass=0 fail=0 skip=0 n=0

# check NAME CMD...: run one test, output to build/check/NAME.log, with
# its own empty directory $d (build/check/NAME); a test that exits 77 is
# skipped, its last line saying why
check() {
	local name=$1 start rc
	shift
	n=$((n + 1))
	start=$(date +%s)
	(d=$T/$name && mkdir -p "$d" && "$@") > "$T/$name.log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		pass=$((pass + 1))
		echo "ok $n - $name ($(( $(date +%s) - start ))s)"
	elif [ $rc = 77 ]; then
		skip=$((skip + 1))
		echo "ok $n - $name # SKIP $(tail -n 1 "$T/$name.log")"
		rc=0
	else
		fail=$((fail + 1))
		echo "not ok $n - $name ($(( $(date +%s) - start ))s)"
		sed 's/^/    # /' "$T/$name.log" | tail -n 25
	fi
	return $rc
}

# the plan, then the line make check ends with
summary() {
	echo "1..$n"
	if [ $skip = 0 ]; then echo "$pass passed, $fail failed"
	else echo "$pass passed, $fail failed, $skip skipped"; fi
}

# expect_fail PATTERN CMD...: CMD must fail and say PATTERN
expect_fail() {
	local pat=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "$out"; echo "expected a failure, got success"; return 1
	fi
	echo "$out"
	grep -q -- "$pat" <<<"$out" || { echo "failure does not say '$pat'"; return 1; }
}

# --- the lab without a kernel -------------------------------------------
t_report() {
	python3 "$S/report.py" "$d/r" base="$D/console-base.log" patched="$D/console-patched.log" \
		> "$d/out.txt" || return 1
	cat "$d/out.txt"
	python3 - "$d/r.json" <<'PY' || return 1
import json, sys
recs = json.load(open(sys.argv[1]))
by = {(r["workload"], r.get("random_faults"), r["phase"], r["variant"]): r for r in recs}
r = by[("seq-after-random", 100, "sequential", "base")]
assert r["major_faults"] == 262144 and r["dev_pages_read"] == 262144, r
assert r["accel"] == "tcg" and r["kernel"] == "7.3.0-rc7", r
assert r["lab_commit"] not in (None, "unknown"), r
r = by[("seq-after-random", 100, "sequential", "patched")]
assert r["major_faults"] == 2, r
assert len(recs) == 4, len(recs)
PY
	grep -q '| seq-after-random N=100 (sequential) | 262144 | 262144 | 2 |' "$d/r.md"
}
t_tap() {
	local f=$D/console-tap.log
	python3 "$S/tap.py" "$f" | tee "$T/tap.out"
	grep -qx "sequential_after_scattered fail" "$T/tap.out" &&
	grep -qx "sequential_control pass" "$T/tap.out" &&
	grep -qx "random_stays_cheap skip" "$T/tap.out" || return 1
	printf 'x sequential_after_scattered fail\nx sequential_control pass\n' > "$T/exp"
	python3 "$S/tap.py" "$f" --expect "$T/exp" x || return 1
	printf 'x sequential_after_scattered pass\n' > "$T/exp"
	! python3 "$S/tap.py" "$f" --expect "$T/exp" x
}
# base_ok: the base tree is there and usable, pinned or not
base_ok() {
	base_env
	cat "$CACHE/base.env"
	[ -n "${BASE_FILEMAP_BLOB:-}" ] || { echo "base.env has no mm/filemap.c blob"; return 1; }
}
# base_note: a TAP comment when the base is not the pinned package, which
# every test then runs on (fetch-base.sh's documented fallback)
base_note() {
	(
		base_env
		[ "$BASE_PINNED" = yes ] ||
			echo "# base is a fallback: $BASE_PKG_USED $BASE_VERSION_USED, not the pinned $BASE_PKG $BASE_VERSION (no longer in the archive); every test below runs on it"
	) 2>/dev/null
}
t_fetch() {
	bash "$S/fetch-base.sh" || return 1
	base_ok
}
t_roundtrip() {
	local out=$T/series-export
	if ! ls "$LAB"/series/*.patch >/dev/null 2>&1; then
		echo "series/ is empty: nothing to round-trip"; return 0
	fi
	SERIES_OUT=$out bash "$S/export-series.sh" || return 1
	diff -ru "$LAB/series" "$out"
}
t_broken() {
	cp "$LAB"/series/*.patch "$d"/ 2>/dev/null
	cp "$D/broken.patch" "$d/0099-lab-broken.patch"
	expect_fail "patch .*0099-lab-broken.patch does not apply" \
		bash "$S/apply-series.sh" -v lab-broken "$d"
}

# --- the lab's steps on stubs and a toy kernel tree (no network) -------------
# stubs DIR NAME...: DIR holds the named stubs of tests/data/stubs; put it
# first in PATH
stubs() {
	local d=$1 s
	shift
	mkdir -p "$d"
	for s in "$@"; do ln -sf "$D/stubs/$s" "$d/$s"; done
}
# fake_base DIR: a cache in DIR/cache whose base tree is the toy kernel of
# tests/data/toy-kernel (a Makefile that plays kbuild, mm/filemap.c,
# merge_config.sh), tagged lab-base, and a two-patch series for it in
# DIR/series; prints nothing.
fake_base() {
	local d=$1 src=$1/cache/k/toy/base/src
	mkdir -p "${src%/*}"
	cp "$D/toy-base.env" "$d/cache/base.env" && cp -r "$D/toy-kernel" "$src" || return 1
	(
		cd "$src" || exit 1
		export_git_ids
		export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
		git init -q -b base && git add -A && git commit -q -m toy &&
		git tag lab-base && git checkout -q -b dev &&
		printf 'int filemap = 1;\n' > mm/filemap.c && git commit -q -a -m "mm: one" &&
		printf 'int readahead;\n' > mm/readahead.c && git add mm/readahead.c &&
		git commit -q -m "mm: two" -m "Body of two." &&
		git config branch.dev.description "$(printf 'toy series\n\nCover text.')" &&
		git -c core.abbrev=12 format-patch -q --cover-letter \
			--cover-from-description=subject -o "$d/series" lab-base..dev &&
		git checkout -q base && git branch -q -D dev
	) > "$d/fake-base.log" 2>&1 || { cat "$d/fake-base.log"; return 1; }
}
# in_fake DIR CMD...: CMD with the fake cache and build directory of DIR
in_fake() {
	local d=$1
	shift
	MMLAB_CACHE=$d/cache MMLAB_BUILD=$d/build "$@"
}
# apply_fake: apply-series.sh on the series of fake_base $d
apply_fake() { in_fake "$d" bash "$S/apply-series.sh" "$d/series"; }

# deps.sh on stubs of dpkg-query and apt-get: zstd and rsync "missing",
# rsync not installable. Nothing is really installed.
t_deps_installs() {
	local rc
	stubs "$d/bin" dpkg-query apt-get id
	: > "$d/apt.log"
	PATH=$d/bin:$PATH STUB_LOG=$d/apt.log STUB_MISSING="zstd" \
		MMLAB_DEPS_PKGS="make zstd xz-utils" bash "$S/deps.sh" > "$d/out" 2>&1
	rc=$?
	cat "$d/out"; echo "--- apt-get calls:"; cat "$d/apt.log"
	grep -q "install.* zstd" "$d/apt.log" || { echo "deps.sh never asked apt-get to install zstd"; return 1; }
	grep -q "install.* \(make\|xz-utils\)" "$d/apt.log" && { echo "deps.sh installs what is there"; return 1; }
	grep -q "installing.*zstd" "$d/out" || { echo "deps.sh does not say what it installs"; return 1; }
	[ $rc = 0 ] || { echo "deps.sh failed (exit $rc)"; return 1; }
}
t_deps_uninstallable() {
	local rc
	stubs "$d/bin" dpkg-query apt-get id
	PATH=$d/bin:$PATH STUB_MISSING="zstd rsync" STUB_BROKEN="rsync" \
		MMLAB_DEPS_PKGS="make zstd rsync" \
		expect_fail "could not install: rsync" bash "$S/deps.sh" > "$d/out" 2>&1
	rc=$?
	cat "$d/out"
	[ $rc = 0 ] || return 1
	grep -q "Unable to locate package rsync" "$d/out" || { echo "apt's error is not shown"; return 1; }
}
t_fetch_expired() {
	stubs "$d/bin" apt-get
	PATH=$d/bin:$PATH STUB_EXPIRED=1 MMLAB_CACHE=$d/cache \
		expect_fail "Acquire::Check-Valid-Until" bash "$S/fetch-base.sh"
}
# a base that is not the pin still tests; check says so on a "#" line
t_fallback_base() {
	printf 'BASE_PKG_USED=linux-source-7.2\nBASE_VERSION_USED=7.2.1-1\nBASE_PINNED=no\nBASE_KEY=x\nBASE_FILEMAP_BLOB=abc\n' > "$d/base.env"
	CACHE=$d base_ok || return 1
	CACHE=$d base_note | tee "$d/note"
	grep -q "^# base is a fallback: linux-source-7.2 7.2.1-1" "$d/note"
}
t_kvm_probe_stdin() {
	stubs "$d/bin" qemu-system-x86_64
	: > "$d/kvm"; : > "$d/k"; : > "$d/i"; : > "$d/qemu.log"
	# a pipe on stdin stands for the terminal: the probe must not get it
	# (an empty one, so that nothing is left running)
	PATH=$d/bin:$PATH STUB_LOG=$d/qemu.log MMLAB_CACHE=$d/cache \
		LAB_KVM_DEV=$d/kvm LAB_PVM_DIR=/nonexistent LAB_ACCEL=auto \
		bash "$S/run-guest.sh" -k "$d/k" -i "$d/i" -j hello -t 20 -o "$d/console" \
		< <(:)
	local rc=$?
	cat "$d/qemu.log"
	[ $rc = 0 ] || return 1
	grep "accel kvm -m 256M" "$d/qemu.log" | grep -q "^qemu /dev/null " ||
		{ echo "the KVM probe's stdin is not /dev/null"; return 1; }
	[ "$(cat "$d/cache/accel.kvm")" = 1 ]
}
# The README's workflow: amend in the work tree, make export, make demo.
t_apply_after_export() {
	local src=$d/cache/k/toy/patched/src
	fake_base "$d" && apply_fake || return 1
	(cd "$src" && printf 'int filemap = 2;\n' > mm/filemap.c &&
	 GIT_COMMITTER_NAME=u GIT_COMMITTER_EMAIL=u@x git commit -q -a --amend --no-edit) || return 1
	expect_fail "not in the patches" apply_fake || return 1
	in_fake "$d" env SERIES_OUT="$d/series" bash "$S/export-series.sh" || return 1
	apply_fake || return 1
	grep -q "filemap = 2" "$src/mm/filemap.c" || return 1
	apply_fake 2>&1 | grep "already"
}
# A cache from an older lab: .lab-applied has the stamp only.
t_apply_old_stamp() {
	fake_base "$d" && apply_fake || return 1
	echo 0123456789abcdef > "$d/cache/k/toy/patched/.lab-applied"
	apply_fake
}
t_apply_untracked() {
	local src=$d/cache/k/toy/patched/src
	fake_base "$d" && apply_fake || return 1
	echo notes > "$src/my-notes.txt"
	sed -i 's/Body of two./Body of two, changed./' "$d"/series/0002-*.patch
	expect_fail "untracked files.*my-notes.txt" apply_fake || return 1
	[ -f "$src/my-notes.txt" ] || { echo "my-notes.txt was deleted"; return 1; }
	FORCE=1 apply_fake || return 1
	[ ! -e "$src/my-notes.txt" ]
}
t_export_user_config() {
	fake_base "$d" && apply_fake || return 1
	in_fake "$d" env SERIES_OUT="$d/clean" bash "$S/export-series.sh" || return 1
	mkdir -p "$d/home"
	cat > "$d/home/.gitconfig" <<-'EOT'
	[user]
		name = Some User
		email = user@example.org
	[diff]
		noprefix = true
		mnemonicPrefix = true
		algorithm = histogram
		context = 5
	[color]
		ui = always
	[format]
		signature = sent from my lab
		numbered = true
		subjectPrefix = RFC
		coverLetter = false
		useAutoBase = true
		signOff = true
		headers = X-Test: 1
	EOT
	HOME=$d/home XDG_CONFIG_HOME=$d/home/.config in_fake "$d" \
		env SERIES_OUT="$d/user" bash "$S/export-series.sh" || return 1
	diff -ru "$d/clean" "$d/user" | head -40
	diff -rq "$d/clean" "$d/user" >/dev/null || { echo "the user's git config changed the export"; return 1; }
	# and it applies: a fresh work tree from it
	in_fake "$d" bash "$S/apply-series.sh" -v again "$d/user"
}
t_config_override() {
	fake_base "$d" || return 1
	in_fake "$d" bash "$S/build-kernel.sh" base "$LAB/config/thp-off.config" || return 1
	grep -qx "# CONFIG_TRANSPARENT_HUGEPAGE is not set" "$d/cache/k/toy/base/obj/.config" || return 1
	# an option of the last fragment that does not stick is still an error
	echo "CONFIG_LAB_NO_SUCH_OPTION=y" > "$d/bad.config"
	expect_fail "did not stick: CONFIG_LAB_NO_SUCH_OPTION=y" \
		in_fake "$d" bash "$S/build-kernel.sh" base "$d/bad.config"
}
t_disk_space() {
	MMLAB_CACHE=$d/cache MMLAB_FREE_MIB=100 \
		expect_fail "needs about 12544 MiB.*only 100 MiB free" bash "$S/make-disk.sh" demo
}
t_disk_cleanup() {
	local rc
	stubs "$d/bin" head
	PATH=$d/bin:$PATH MMLAB_CACHE=$d/cache \
		expect_fail "writing the staged big.bin failed" bash "$S/make-disk.sh" check
	rc=$?
	ls -la "$d/cache/disks"
	[ -z "$(ls -A "$d/cache/disks")" ] || { echo "left behind in $d/cache/disks"; return 1; }
	return $rc
}
t_lock() {
	local holder rc
	mkdir -p "$d/cache"
	env -u MMLAB_LOCK_HELD MMLAB_CACHE=$d/cache MMLAB_ENTRY="lock holder" \
		bash -c '. "$1/lib.sh"; lab_lock; echo locked; exec sleep 30' _ "$S" > "$d/holder.out" &
	holder=$!
	for _ in $(seq 50); do grep -q locked "$d/holder.out" && break; sleep 0.1; done
	(
		unset MMLAB_LOCK_HELD
		MMLAB_CACHE=$d/cache MMLAB_LOCK_WAIT=1 \
			expect_fail "held by: pid .*lock holder" bash "$S/make-disk.sh" check
	)
	rc=$?
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	return $rc
}
t_lib_env() {
	local out
	# as make runs the scripts: relative to the checkout, where an
	# exported CDPATH with "." in it makes cd print what it found
	out=$(cd "$LAB" && env -u HOME CDPATH=/nonexistent:. bash -c 'set -euo pipefail; . scripts/lib.sh; echo "LAB=$LAB"; echo "CACHE=$CACHE"') || return 1
	echo "$out"
	[ "$(grep -c . <<<"$out")" = 2 ] && grep -qx "LAB=$LAB" <<<"$out" && grep -q "^CACHE=/" <<<"$out"
}
t_fresh_not_root() {
	stubs "$d/bin" id
	PATH=$d/bin:$PATH STUB_UID=1000 MMLAB_CACHE=$d/cache \
		expect_fail "fresh-check must run as root" bash "$S/fresh-check.sh"
}
t_report_trailing() {
	printf '@@LAB-ACCEL tcg\n@@RESULT {"workload":"random","phase":"read","pages":8,"major_faults":8,"dev_pages_read":8,"seconds":1.5}[   3.1] random: crng init done\n' > "$d/c.log"
	python3 "$S/report.py" "$d/r" base="$d/c.log" || return 1
	grep -q '"major_faults": 8' "$d/r.json" || { echo "the result was dropped"; return 1; }
	printf '@@RESULT {"workload":"random","pha[   3.1] random: crng init done\nse":"read"}\n' > "$d/bad.log"
	expect_fail "result line without a readable JSON object" python3 "$S/report.py" "$d/r2" base="$d/bad.log"
}
t_tap_unexpected_fail() {
	local f=$D/console-tap.log
	# sequential_after_scattered fails and has no expectation here
	printf 'x sequential_control pass\n' > "$T/exp-unexpected"
	expect_fail "sequential_after_scattered.*fail" python3 "$S/tap.py" "$f" --expect "$T/exp-unexpected" x
}
# make stress's judge: a clean run passes; a run with the kernel's reports
# (one of each kind the debug checkers print), with a data mismatch, or cut
# short, fails and says why. The failing consoles are the clean one changed.
t_stress_report() {
	local ok=$D/console-stress-ok.log
	sr() { python3 "$S/stress_report.py" "$d/$1" full debug 768M "k=$2"; }
	sr ok "$ok:0:1" || return 1
	grep -qF '| inject-recover | k | 70000 | 900 | 65000 | 3 | 40 | ok |' "$d/ok.md" || return 1
	sed -e "/@@STRESS-LOCKDEP/r $D/stress-kernel-reports.log" -e '/@@STRESS-LOCKDEP/d' "$ok" > "$d/reports.log"
	expect_fail "7 kernel report(s)" sr r "$d/reports.log:0:1" || return 1
	sed -e '/@@STRESS-LOCKDEP/d' -e 's/mismatches=0 \(.*\)injected=40 result=ok/mismatches=1 \1injected=40 result=FAIL detail=page_17_word_3/' \
		-e '/@@STRESS-TOTAL/s/mismatches=0 failed=0/mismatches=1 failed=1/' "$ok" > "$d/mismatch.log"
	expect_fail "workload inject-recover: result=FAIL mismatches=1" sr m "$d/mismatch.log:0:1" || return 1
	sed '/@@STRESS-TOTAL/,$d' "$ok" > "$d/cut.log"
	expect_fail "the job did not finish" sr c "$d/cut.log:1:1"
}
# make bench's report (bench.sh report): results with the command of the
# @@RUN line before them (the seed as SEED), warm-up runs left out, medians
# against the first kernel's, every table there, the lab commit; a console
# without the bench's @@BENCH line fails and says so
t_bench_report() {
	local k
	stubs "$d/bin" gnuplot
	k=$d/bzImage
	echo kernel > "$k"
	PATH=$d/bin:$PATH bash "$S/bench.sh" report "$d/b" small "make bench-small" 75 1G root.img disk.img \
		"0=base=$k=$D/console-bench-base.log" "0=base=$k=$D/console-bench-vmscal-base.log" \
		"0=patched=$k=$D/console-bench-patched.log" "0=patched=$k=$D/console-bench-vmscal-patched.log" \
		"1=base=$k=$D/console-bench-base.log" "1=base=$k=$D/console-bench-vmscal-base.log" \
		> "$d/out.txt" || return 1
	cat "$d/out.txt"
	local want
	for want in \
		'| 1000 | base | 2 | 2 | 600 | 900 |' '| 1000 | base | 2 | 5.00 | 5.0 |' \
		'| 1000 | patched | 1 | 0 | 40 | 900 |' '        sqlite-scan bench.db 1000 SEED' \
		'| mmap-pread-rand | patched | 1 | 65536 (16384) | 13700 | 17170 |' \
		'| mmap-pread-rand | patched | 1 | +1.00 | -58 (-0.42 %) | 2.50 | +0.00 |' \
		'        vmscal -d vdb -k 128 -f array.u8 -l 256 -m rand -n 16384 -s SEED -w mmap-pread-rand' \
		'| patched | 1 | 24390 | 28280 | +1.00 |' '| patched | 1 | 200 | 0.90 | +0.00 |' \
		'| records (access) | patched | 1 | 8000 | 6643 | 6380 | +4.12 |' \
		'| records (probe) | base | 2 | 1.00 | 50 | 0.02 |' '; lab commit ' \
		'Largest median above base, per kernel: patched: pages read +1.00 % (mmap-pread-rand), time'; do
		grep -qF -- "$want" "$d/b.md" || { echo "not in the report: $want"; return 1; }
	done
	# the warm-up scan (n=10) is not a result
	! grep -q '"n": 10,' "$d/b.json" || { echo "a warm-up run was kept"; return 1; }
	grep -v '@@BENCH' "$D/console-bench-base.log" > "$d/nobench.log"
	PATH=$d/bin:$PATH expect_fail "no @@BENCH line" bash "$S/bench.sh" report "$d/c" small x 1 1G r d \
		"0=base=$k=$d/nobench.log"
}
# results/ as their generators make them of the committed consoles, with
# the provenance the committed JSON holds (report.py, bench_report.py --again)
t_results_again() {
	local n f rc=0
	unset MMLAB_LAB_COMMIT
	stubs "$d/bin" gnuplot
	for n in demo demo-small demo-lbs sharp fixes; do
		cp "$RESULTS/$n.md" "$RESULTS/$n.json" "$RESULTS/console-$n-"*.log "$d/" &&
			python3 "$S/report.py" --again "$d/$n" > /dev/null || return 1
	done
	for n in bench bench-small; do
		cp -r "$RESULTS/$n.md" "$RESULTS/$n.json" "$RESULTS/$n" "$d/" &&
			PATH=$d/bin:$PATH python3 "$S/bench_report.py" --again "$d/$n" > /dev/null || return 1
	done
	for f in "$d"/*.md "$d"/*.json; do
		diff -u "$RESULTS/${f##*/}" "$f" || rc=1
	done
	return $rc
}
# what make check-lab itself runs (it installs nothing: deps.sh is tested
# on stubs above, and make check runs it for real)
t_lab_tools() {
	local c missing=
	for c in python3 git flock awk sed sha256sum; do
		command -v "$c" >/dev/null || missing="$missing $c"
	done
	[ -z "$missing" ] || { echo "make check-lab needs:$missing (scripts/deps.sh installs them, as root)"; return 1; }
}
# variants/ that are older versions of the series name the commit of this
# repository that holds them (series-rev); every one must be in the
# history, with its series/ (a shallow clone has not: say so)
t_variants_rev() {
	local f rev bad=0
	for f in "$LAB"/variants/*/series-rev; do
		[ -e "$f" ] || continue
		read -r rev _ < "$f"
		if git -C "$LAB" ls-tree --name-only "$rev" series/ 2>/dev/null | grep -q '\.patch$'; then
			echo "${f#"$LAB"/}: $rev: $(git -C "$LAB" log -1 --format=%s "$rev")"
		else
			echo "${f#"$LAB"/}: $rev is not in this clone's history, or has no series/"
			bad=1
		fi
	done
	[ "$bad" = 0 ] || [ "$(git -C "$LAB" rev-parse --is-shallow-repository)" = false ] ||
		echo "this clone is shallow: git fetch --unshallow"
	return $bad
}
# a variant whose commit is not in the history fails and says so
t_apply_rev_missing() {
	fake_base "$d" || return 1
	mkdir -p "$d/old"
	echo 0123456789abcdef0123456789abcdef01234567 > "$d/old/series-rev"
	expect_fail "commit 0123456789abcdef0123456789abcdef01234567 of the lab's history, which" \
		in_fake "$d" bash "$S/apply-series.sh" -v old "$d/old"
}
# every shell script of the lab passes shellcheck at -S warning
t_shellcheck() {
	local f files=()
	command -v shellcheck >/dev/null || { echo "no shellcheck here (scripts/deps.sh installs it)"; return 77; }
	while IFS= read -r f; do
		head -n1 "$LAB/$f" | grep -qE '^#!.*[/ ](ba|da)?sh( |$)' && files+=("$LAB/$f")
	done < <(git -C "$LAB" ls-files)
	echo "${#files[@]} scripts"
	(cd "$LAB" && shellcheck -S warning -f gcc "${files[@]#"$LAB"/}")
}

# --- kernels, guest --------------------------------------------------------
# one initramfs for all kernels, with the series' selftest
t_initramfs() {
	bash "$S/make-initramfs.sh" patched
}
t_disk() { bash "$S/make-disk.sh" check > "$T/disk.path"; }
run() { bash "$S/run-guest.sh" -k "$BUILD/$1/bzImage" -d "$(cat "$T/disk.path")" "${@:2}"; }
t_hello() {
	run base -j hello -t 300 -o "$T/hello.console" || return 1
	grep -q '@@RESULT {"workload":"hello"' "$T/hello.console"
}
t_panic() {
	local start out
	start=$(date +%s)
	# one boot: the failure must name the panic and show the console tail
	out=$(expect_fail "guest kernel panicked" run base -j panic -t 300 -o "$T/panic.console")
	local rc=$?
	echo "$out"
	[ $rc = 0 ] && grep -q "console tail" <<<"$out" || return 1
	# fail fast: well before the timeout
	[ $(( $(date +%s) - start )) -lt 240 ]
}
t_badkernel() {
	head -c 1M /dev/urandom > "$T/junk.bzImage"
	expect_fail "guest" bash "$S/run-guest.sh" -k "$T/junk.bzImage" -j hello -t 60 -o "$T/junk.console"
}

# --- the series' selftest --------------------------------------------------
# selftest_on KERNEL EXPECT [JOB_ARGS]: boot build/KERNEL, run the selftest
# job (JOB_ARGS: which binary, which directory; see guest/jobs/selftest.sh)
# and compare with the expectations named EXPECT in tests/selftest-expect.txt.
selftest_on() {
	local c=$T/selftest-$2.console
	run "$1" -j selftest ${3:+-a "$3"} -t 1500 -o "$c" || return 1
	sed -n '/@@TAP-BEGIN/,/@@TAP-END/p' "$c"
	python3 "$S/tap.py" "$c" --expect "$LAB/tests/selftest-expect.txt" "$2"
}
t_selftest_present() {
	grep -q '^patched ' "$LAB/tests/selftest-expect.txt" ||
		{ echo "tests/selftest-expect.txt has no expectations for patched"; return 1; }
	[ -x "$BUILD/guest/bin/mmap_miss_recovery" ] ||
		{ echo "the series has no selftest: no tools/testing/selftests/mm/mmap_miss_recovery.c in the patched tree (build/guest/bin/mmap_miss_recovery missing)"; return 1; }
}
# A quick pass of the stress workloads (guest/jobs/stress.sh quick) on the
# patched kernel: every byte read checked, no kernel report in the console.
# make stress runs them in full on the debug kernels.
t_stress_quick() {
	STRESS_NO_BUILD=1 STRESS_FLAVOR='' STRESS_MODE=quick STRESS_VARIANTS=patched \
	STRESS_MEM=512M STRESS_TIMEOUT=900 STRESS_OUT=$T/stress \
		bash "$S/stress.sh"
}
# build_variant NAME [DIR...]: NAME's work tree, lab-base and the patches of
# each DIR (by default variants/NAME's, as variant_dirs gives them), and its
# kernel
build_variant() {
	local dirs=("${@:2}")
	[ $# -gt 1 ] || mapfile -t dirs < <(variant_dirs "$1")
	bash "$S/apply-series.sh" -v "$1" "${dirs[@]}" && bash "$S/build-kernel.sh" "$1"
}
# The first patch alone: its own tree, kernel and selftest build.
t_patch1() {
	cp "$(ls "$LAB"/series/0001-*.patch)" "$d/" || return 1
	build_variant patch1 "$d"
}

echo "TAP version 13"
if [ "${CHECK_LAB_ONLY:-0}" = 1 ]; then
	check lab-tools t_lab_tools
else
	check deps bash "$S/deps.sh"
fi
check report-parser t_report
check report-result-with-trailing-text t_report_trailing
check tap-parser t_tap
check tap-unexpected-failure-fails t_tap_unexpected_fail
check stress-judge t_stress_report
check bench-report t_bench_report
check results-remade-from-consoles t_results_again
check deps-installs-missing t_deps_installs
check deps-names-uninstallable t_deps_uninstallable
check lib-without-home-with-cdpath t_lib_env
check lock-names-holder t_lock
check fetch-names-expired-release t_fetch_expired
check fallback-base-still-tests t_fallback_base
check runner-kvm-probe-stdin t_kvm_probe_stdin
check apply-after-export t_apply_after_export
check apply-old-stamp t_apply_old_stamp
check apply-refuses-untracked t_apply_untracked
check export-ignores-user-git-config t_export_user_config
check config-later-fragment-wins t_config_override
check disk-space-checked t_disk_space
check disk-cleans-up-on-failure t_disk_cleanup
check fresh-check-needs-root t_fresh_not_root
check variants-in-history t_variants_rev
check apply-names-missing-commit t_apply_rev_missing
check shellcheck t_shellcheck
if [ "${CHECK_LAB_ONLY:-0}" = 1 ]; then
	echo "# CHECK_LAB_ONLY=1: stopping before the base tree and the kernels"
	summary
	[ $fail = 0 ]
	exit
fi
if check fetch-base t_fetch; then
	base_note
	check apply-series bash "$S/apply-series.sh"; a=$?
	check series-roundtrip t_roundtrip
	check broken-patch-named t_broken
	check build-base bash "$S/build-kernel.sh" base; b=$?
	# a series that does not apply leaves nothing patched to test
	p=1
	[ $a = 0 ] && { check build-patched bash "$S/build-kernel.sh" patched; p=$?; }
	# bisection: the first patch alone (its selftest runs further down)
	p1=1
	np=$(find "$LAB/series" -maxdepth 1 -name '0*.patch' ! -name '*cover-letter.patch' | wc -l)
	if [ $a = 0 ] && [ "$np" -gt 1 ]; then
		check build-patch1 t_patch1; p1=$?
	fi
	# kernels the final selftest must fail: v4, the series as first
	# posted, whose way back serves only readers moving up
	v4=1 rg=1 adj=1 tg=1 nh=1 mq=1 nr=1 ro=1
	[ $a = 0 ] && { check build-v4 build_variant v4; v4=$?; }
	# and the series reading around at a run of exactly a quarter window:
	# its records case must see that
	[ $a = 0 ] && { check build-run-ge build_variant run-ge; rg=$?; }
	# and the series extending its run only over a miss right next to it:
	# the reader moving down past cached pages must see that
	[ $a = 0 ] && { check build-adjacent build_variant adjacent; adj=$?; }
	# and the series taking every MADV_HUGEPAGE miss below a cached folio
	# for a reader moving down: its cost case must see random misses read
	# two folios
	[ $a = 0 ] && { check build-thp-guess build_variant thp-guess; tg=$?; }
	# and the series without patch 4's PMD hit: patch 5's reader moving
	# down must see its misses go unpaid
	[ $a = 0 ] && { check build-no-pmd-hit build_variant no-pmd-hit; nh=$?; }
	# and the series with patch 2 reading around at a quarter window of
	# mapped entries: its cost case must see a miss next to a mapped
	# window read a window
	[ $a = 0 ] && { check build-mapped-quarter build_variant mapped-quarter; mq=$?; }
	# and the series with patch 2 not telling holes apart (two drafts
	# before): its hole case must see a miss at the edge of a hole that
	# reclaim left in a cached, mapped range read around
	[ $a = 0 ] && { check build-no-refault build_variant no-refault; nr=$?; }
	# and the series with patch 2 reading around for no refault (the
	# draft before): its case of readers taking turns over a range that
	# reclaim took must see them read a folio a miss
	[ $a = 0 ] && { check build-refault-only build_variant refault-only; ro=$?; }
	check initramfs t_initramfs; i=$?
	check disk t_disk; d=$?
	if [ $b = 0 ] && [ $i = 0 ] && [ $d = 0 ]; then
		check boot-base t_hello
		check runner-panic t_panic
		check runner-hang expect_fail "guest hung: no result after 30s" run base -j hang -t 30 -o "$T/hang.console"
		check runner-job-fails expect_fail "job fail failed in the guest" run base -j fail -t 300 -o "$T/fail.console"
		check runner-no-kernel expect_fail "no kernel image" bash "$S/run-guest.sh" -k /nonexistent -j hello
		check runner-junk-kernel t_badkernel
		if [ $a = 0 ] && t_selftest_present > /dev/null; then
			# given a directory on tmpfs, the selftest skips its dir
			# variant and makes its xfs_16k image there
			[ $p = 0 ] && check selftest-patched selftest_on patched patched &&
				check selftest-on-tmpfs selftest_on patched tmpfs "- /tmp"
			[ $p = 0 ] && check stress-quick-patched t_stress_quick
			check selftest-base selftest_on base base
			# the first patch alone, with the final selftest
			[ $p1 = 0 ] && check selftest-patch1 selftest_on patch1 patch1
			[ $v4 = 0 ] && check selftest-v4 selftest_on v4 v4
			[ $rg = 0 ] && check selftest-run-ge selftest_on run-ge run-ge
			[ $adj = 0 ] && check selftest-adjacent selftest_on adjacent adjacent
			[ $tg = 0 ] && check selftest-thp-guess selftest_on thp-guess thp-guess
			[ $nh = 0 ] && check selftest-no-pmd-hit selftest_on no-pmd-hit no-pmd-hit
			[ $mq = 0 ] && check selftest-mapped-quarter selftest_on mapped-quarter mapped-quarter
			[ $nr = 0 ] && check selftest-no-refault selftest_on no-refault no-refault
			[ $ro = 0 ] && check selftest-refault-only selftest_on refault-only refault-only
			# the cost bound: the plain random reader's instructions
			# per read on the series within 2 % of base's (-O2
			# kernels under instruction counting, docs/cost.md)
			[ $p = 0 ] && check cost-random-reader bash "$S/cost.sh" check
		elif [ $a = 0 ]; then
			# the series applies but brings no selftest (or no
			# expectations for it): that is a broken series, not a pass
			check selftest-in-series t_selftest_present
		fi
	fi
fi
summary
[ $fail = 0 ]
