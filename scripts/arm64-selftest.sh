#!/bin/bash
# The series' selftest on an arm64 guest with 64 KiB pages.
#   arm64-selftest.sh [STAGE...]   (make arm64)
# Stages, all by default, in this order:
#   kernels   build base and patched arm64 Images (tinyconfig +
#             config/arm64-guest.config, cross gcc, ccache) in
#             $KROOT/VARIANT/obj-arm64 -> build/arm64/VARIANT/Image
#   initramfs an arm64 initramfs (scripts/make-initramfs.sh -a arm64):
#             busybox-static, e2fsprogs and xfsprogs of Debian 12 for arm64,
#             the init, guest/jobs/selftest.sh, and the patched tree's
#             mmap_miss_recovery built static with the cross gcc
#             -> build/arm64/initramfs.cpio
#   run       boot each kernel under qemu-system-aarch64 -M virt -cpu max
#             (TCG), run the selftest, compare each case with
#             tests/selftest-expect.txt -> results/arm64-selftest.md
#   report    (not by default: run ends with it) the report again, from
#             the last run of each variant
# Environment: ARM64_MEM (guest memory, default 2G), ARM64_TIMEOUT (per
# guest, seconds, default 3000), ARM64_VARIANTS (default "base patched").
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export MMLAB_ENTRY="make arm64 (scripts/arm64-selftest.sh)"
lab_lock
bash "$(dirname "$0")/deps.sh" matrix

KROOT=$(kroot)
CROSS=aarch64-linux-gnu-
OUT=$BUILD/arm64
VARIANTS=${ARM64_VARIANTS:-base patched}
FRAG=$LAB/config/arm64-guest.config
mkdir -p "$OUT"
command -v "${CROSS}gcc" >/dev/null ||
	die "no ${CROSS}gcc: apt-get install gcc-aarch64-linux-gnu (scripts/deps.sh)"

# akmake VARIANT MAKE_ARGS...: kmake, cross to arm64, in obj-arm64
akmake() {
	local v=$1
	shift
	kmake "$v" "$KROOT/$v/obj-arm64" ARCH=arm64 CROSS_COMPILE="$CROSS" \
		CC="ccache ${CROSS}gcc" "$@"
}

# configure VARIANT: tinyconfig + the fragment in obj-arm64
configure() {
	[ -f "$KROOT/$1/src/Makefile" ] || die "no source tree for $1"
	kconfigure "$KROOT/$1/src" "$KROOT/$1/obj-arm64" "" "$FRAG" -- akmake "$1" ||
		die "arm64 $1: configuring failed"
}

stage_kernels() {
	local v obj start
	for v in $VARIANTS; do
		obj=$KROOT/$v/obj-arm64
		configure "$v"
		mkdir -p "$OUT/$v"
		log "arm64 $v: building Image"
		start=$(date +%s)
		if ! KMAKE_NICE=10 akmake "$v" Image > "$obj/build.log" 2>&1; then
			tail -30 "$obj/build.log" >&2
			die "arm64 $v: kernel build failed (full log: $obj/build.log)"
		fi
		cp "$obj/arch/arm64/boot/Image" "$OUT/$v/Image"
		cp "$obj/.config" "$OUT/$v/config"
		echo "$(( $(date +%s) - start ))" > "$OUT/$v/build-seconds"
		log "arm64 $v: built in $(cat "$OUT/$v/build-seconds")s -> build/arm64/$v/Image"
	done
}

stage_initramfs() {
	bash "$LAB/scripts/make-initramfs.sh" -a arm64 patched
}

# --- run ----------------------------------------------------------------
# boot VARIANT: run the selftest job on build/arm64/VARIANT/Image with the
# check disk (snapshot: never written) as /mnt; the console, each line
# prefixed with the host's time (for per-case times), goes to
# results/console-arm64-VARIANT.log. Returns qemu's status.
boot() {
	local v=$1 con=$RESULTS/console-arm64-$1.log rc
	local disk
	[ -f "$OUT/$v/Image" ] || die "no build/arm64/$v/Image: run the kernels stage"
	[ -f "$OUT/initramfs.cpio" ] || die "no build/arm64/initramfs.cpio: run the initramfs stage"
	disk=$(bash "$LAB/scripts/make-disk.sh" check)
	date +%s > "$OUT/report/$v.start"
	log "arm64 $v: booting (TCG, -m ${ARM64_MEM:-2G}, timeout ${ARM64_TIMEOUT:-3000}s)"
	# one TCG thread for both vCPUs, as run-guest.sh does: coherent code
	# patching, and one host core, not two, on a shared machine
	set +e
	timeout --foreground -k 5 "${ARM64_TIMEOUT:-3000}" \
		nice -n 5 qemu-system-aarch64 -M virt -cpu max -accel tcg,thread=single \
		-smp 2 -m "${ARM64_MEM:-2G}" -nographic -no-reboot \
		-kernel "$OUT/$v/Image" -initrd "$OUT/initramfs.cpio" \
		-drive "file=$disk,format=raw,if=none,id=d0,cache=unsafe,snapshot=on" \
		-device virtio-blk-device,drive=d0 \
		-append "console=ttyAMA0 loglevel=4 panic=-1 oops=panic lab.job=selftest lab.fs=ext4" \
		< /dev/null 2>&1 | stdbuf -oL tr -d '\r' |
		perl -MTime::HiRes=time -ne '$|=1; printf "[%.1f] %s", time, $_' > "$con"
	rc=${PIPESTATUS[0]}
	set -e
	return "$rc"
}

# cases CONSOLE: "case result seconds messages" per case, from the TAP
# and the host times of its "#  RUN" and result lines; messages are the
# test's own lines (its counts, TH_LOG and failed expectations, without
# the harness's), "; "-separated, or a skip's reason
cases() {
	perl -ne '
		if (/^\[([\d.]+)\] #  RUN +\S+?\.(\S+) \.\.\./) { $t0 = $1; @why = (); next }
		next if /^\[[\d.]+\] # +(OK|FAIL|SKIP) |Test terminated by assertion/;
		if (/^\[[\d.]+\] # (?:\S+?:\d+:\S+?:)?(.*)$/) { push @why, $1; next }
		if (/^\[([\d.]+)\] (not ok|ok) \d+ \S+?\.(\S+)(.*)$/) {
			my ($t, $r, $c, $rest) = ($1, $2, $3, $4);
			my $res = $rest =~ /# SKIP\s*(.*)/ ? "skip" : ($r eq "ok" ? "pass" : "fail");
			my $w = $res eq "skip" ? $1 : join("; ", @why);
			$w =~ s/\|/\\|/g;
			printf "%s\t%s\t%.0f\t%s\n", $c, $res, $t - $t0, $w;
		}' "$1"
}

# since T: seconds from $first to T, or "never" when T is empty
since() { if [ -n "$1" ]; then echo "$(( $1 - first )) s"; else echo never; fi; }

stage_run() {
	local v con rc secs booted done_at first
	local tmp=$OUT/report
	mkdir -p "$tmp" "$RESULTS"
	for v in $VARIANTS; do
		con=$RESULTS/console-arm64-$v.log
		rc=0; boot "$v" || rc=$?
		first=$(cat "$tmp/$v.start")
		booted=$(grep -m1 '@@LAB-BOOT' "$con" | sed 's/^\[\([0-9]*\).*/\1/') || booted=
		done_at=$(grep -m1 '@@LAB-DONE' "$con" | sed 's/^\[\([0-9]*\).*/\1/') || done_at=
		secs=$(grep -o '@@TAP-END.*seconds=[0-9]*' "$con" | sed 's/.*=//') || secs=
		echo "qemu exit $rc; after qemu started: init at $(since "$booted"), job done at $(since "$done_at"); selftest ${secs:-did not finish}${secs:+ s}" \
			> "$tmp/$v.times"
		cases "$con" > "$tmp/$v.cases"
		# tap.py reads the console without the host times
		sed 's/^\[[0-9.]*\] //' "$con" > "$tmp/$v.console"
		python3 "$LAB/scripts/tap.py" "$tmp/$v.console" --expect \
			"$LAB/tests/selftest-expect.txt" "$v" > "$tmp/$v.expect" 2>&1 || true
		log "arm64 $v: $(cat "$tmp/$v.times"); $(cut -f2 "$tmp/$v.cases" | sort | uniq -c | tr -s ' \n' ' ')"
	done
	stage_report
}

# the report of the last run of each of VARIANTS, and the verdict
stage_report() {
	local v bad md=$RESULTS/arm64-selftest.md tmp=$OUT/report
	for v in $VARIANTS; do
		[ -f "$tmp/$v.cases" ] || die "no run of $v yet (stage run)"
	done
	report > "$md"
	log "wrote results/arm64-selftest.md"
	# judged: every guest ran the whole selftest, every case that ran
	# ended as on x86 (a skip is reported, not judged: 64 KiB pages make
	# a PMD 512 MiB), and some case ran that fails without the series
	bad=
	for v in $VARIANTS; do
		grep -q '@@TAP-END' "$tmp/$v.console" || bad="$bad $v:no-TAP-END"
		grep -q -E '^not ok .*, got (pass|fail)$' "$tmp/$v.expect" && bad="$bad $v:not-as-on-x86"
	done
	case " $VARIANTS " in *" base "*)
		grep -q -E '^ok .*: expected fail, got fail$' "$tmp/base.expect" ||
			bad="$bad base:no-case-of-the-fix-ran" ;;
	esac
	[ -z "$bad" ] || die "arm64 selftest:$bad (results/arm64-selftest.md)"
}

# report: results/arm64-selftest.md from $OUT/report
report() {
	local v c r t w x tmp=$OUT/report
	echo "# mmap_miss_recovery on arm64, 64 KiB pages (qemu -M virt -cpu max, TCG)"
	echo
	echo "Command: \`scripts/arm64-selftest.sh\` (make arm64), $(date -u '+%F %H:%M') UTC;"
	# shellcheck disable=SC2086 # VARIANTS is a list
	echo "$(provenance $VARIANTS); $(qemu-system-aarch64 --version | head -1), TCG."
	echo "Built from tinyconfig + config/arm64-guest.config, $(cat "$OUT"/*/config 2>/dev/null | sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"/\1/p' | sort -u);"
	echo "selftest of the patched tree, built static with ${CROSS}gcc; Debian 12 arm64"
	echo "busybox-static, e2fsprogs, xfsprogs in the initramfs; files on check-ext4.img."
	echo "Expected: tests/selftest-expect.txt for the same kernel (written for x86, 4 KiB pages)."
	echo "Options: $(grep -h -E '^CONFIG_(ARM64_64K_PAGES|PAGE_SHIFT|PGTABLE_LEVELS|TRANSPARENT_HUGEPAGE|TRANSPARENT_HUGEPAGE_MADVISE|LRU_GEN|LRU_GEN_ENABLED|MEMCG|PANIC_ON_OOPS)=' "$OUT/patched/config" | tr '\n' ' ')"
	echo
	for v in $VARIANTS; do
		echo "- $v: make Image took $(cat "$OUT/$v/build-seconds" 2>/dev/null || echo ?) s in the last kernels stage (0 to a few s when nothing changed); $(cat "$tmp/$v.times")"
	done
	echo
	for v in $VARIANTS; do
		# tap.py's TAP: "ok N - CASE: expected pass, got pass"
		echo "- $v, as x86 expects: $(grep -c -E '^ok [0-9]+ - [^:]*: expected ' "$tmp/$v.expect") of $(wc -l < "$tmp/$v.cases") cases; differing (bold below): $(sed -n 's/^not ok [0-9]* - [^:]*: //p' "$tmp/$v.expect" | sort | uniq -c | sed 's/^ *//' | paste -sd';' - | sed 's/;/; /g')"
	done
	echo
	printf '| case |'; for v in $VARIANTS; do printf ' %s | x86 expects | s |' "$v"; done; echo
	printf '|---|'; for v in $VARIANTS; do printf -- '---|---|---|'; done; echo
	for c in $(cut -f1 "$tmp"/*.cases | awk '!seen[$0]++'); do
		printf '| %s |' "$c"
		for v in $VARIANTS; do
			IFS=$'\t' read -r _ r t w < <(grep -P "^\Q$c\E\t" "$tmp/$v.cases") || r=missing t=-
			x=$(sed -n "s/^\(not \)\{0,1\}ok [0-9]* - $c: expected \([a-z]*\),.*/\2/p" "$tmp/$v.expect")
			# bold where it differs from what x86 expects
			[ "${r:-missing}" = "${x:-?}" ] || r="**${r:-missing}**"
			printf ' %s | %s | %s |' "${r:-missing}" "${x:-?}" "${t:--}"
		done
		echo
	done
	echo
	echo "What each case said (its own messages; for a skip, the reason):"
	echo
	for v in $VARIANTS; do
		while IFS=$'\t' read -r c r t w; do
			echo "- $v $c ($r): $w"
		done < "$tmp/$v.cases"
	done
}

stages=${*:-kernels initramfs run}
for s in $stages; do
	case $s in
	kernels|initramfs|run|report) "stage_$s" ;;
	*) die "unknown stage '$s' (kernels, initramfs, run, report)" ;;
	esac
done
