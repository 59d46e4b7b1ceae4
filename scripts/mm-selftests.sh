#!/bin/bash
# make mm-selftests: the existing upstream mm selftests that touch file
# mappings, readahead and THP, on base and on the series, to show that the
# series makes nothing fail that base passes.
#
# The tests and the reason for each one run and each one left out are in
# scripts/mm-selftests.list. They are built once, statically, from the
# series' tree ($KROOT/patched/src/tools/testing/selftests/mm; the series
# changes none of them), against that tree's uapi headers ('make headers'
# into $KROOT/patched/obj-mmtests, an obj dir of this script's own), with
# the helpers the mm Makefile links into every test (vm_util.c,
# hugepage_settings.c). No liburing: Debian 12 has no static liburing, and
# the lab kernels have no io_uring anyway (cow's io_uring cases are
# compiled out, as the mm Makefile does without liburing).
# They go into an initramfs of their own (make-initramfs.sh with
# LAB_INITRAMFS_EXTRA; build/mm-selftests/initramfs.cpio), which boots each
# kernel under QEMU with the check disk (ext4) on /mnt; the guest job
# guest/jobs/mm-selftests.sh runs them one by one under a timeout.
#
# Writes results/mm-selftests.md and results/mm-selftests.json (per test
# and, where the test prints TAP, per subtest: base, patched) and the
# consoles results/console-mm-selftests-{base,patched}.log. Exits 1 when
# the series fails a test or subtest that base passes.
#
#   MMTESTS_KERNEL_DIR  take DIR/base/bzImage and DIR/patched/bzImage
#                       (e.g. /work/kernels) instead of building the two
#                       kernels as make demo does (build/VARIANT/bzImage)
#   MMTESTS_ONLY        run only the tests whose ID matches this shell
#                       pattern (default: all of the list), for development
# Run it under nice on a shared machine (nice -n 10 make mm-selftests).
#   MMTESTS_MEM         guest memory (2G)
#   MMTESTS_TIMEOUT     seconds for one kernel's whole guest run (2400)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export MMLAB_ENTRY="make mm-selftests (scripts/mm-selftests.sh)"
lab_lock

only=${MMTESTS_ONLY:-*}
mem=${MMTESTS_MEM:-2G}
guest_timeout=${MMTESTS_TIMEOUT:-2400}
list=$LAB/scripts/mm-selftests.list
[ -r "$list" ] || die "no $list"
S=$LAB/scripts
variants=(base patched)
start=$(date +%s)

bash "$S/deps.sh"
if [ -n "${MMTESTS_KERNEL_DIR:-}" ]; then
	kdir=$(realpath "$MMTESTS_KERNEL_DIR") ||
		die "MMTESTS_KERNEL_DIR: no directory '$MMTESTS_KERNEL_DIR'"
	for v in "${variants[@]}"; do
		[ -f "$kdir/$v/bzImage" ] || die "MMTESTS_KERNEL_DIR: no $kdir/$v/bzImage"
	done
	KROOT=$(kroot)
	[ -d "$KROOT/patched/src" ] ||
		die "no series tree $KROOT/patched/src (scripts/apply-series.sh)"
else
	bash "$S/fetch-base.sh"
	KROOT=$(kroot)
	bash "$S/apply-series.sh"
	for v in "${variants[@]}"; do bash "$S/build-kernel.sh" "$v"; done
	kdir=$BUILD
fi

# ---- the plan: "ID TIMEOUT WHERE BINARY ARGS..." per test to run
out=$BUILD/mm-selftests
extra=$out/extra
rm -rf "$extra" && mkdir -p "$extra"
# trim the fields of a "|" line
fields() { awk -F'|' -v OFS='\t' '{ for (i = 1; i <= NF; i++) gsub(/^[ \t]+|[ \t]+$/, "", $i); $1 = $1; print }'; }
grep -E '^run[[:space:]]*\|' "$list" | fields |
	awk -F'\t' -v only="$only" '{ print $2, $3, $4, $5 }' > "$extra/plan.all"
# shellcheck disable=SC2254
while read -r id rest; do
	case $id in $only) echo "$id $rest" ;; esac
done < "$extra/plan.all" > "$extra/plan"
rm "$extra/plan.all"
[ -s "$extra/plan" ] || die "MMTESTS_ONLY='$only' matches no test of $list"
while read -r id t where cmd args; do
	[[ $t =~ ^[0-9]+$ ]] || die "$list: $id: timeout '$t' is not a number"
	case $where in ext4|tmpfs) ;; *) die "$list: $id: WHERE must be ext4 or tmpfs, not '$where'" ;; esac
	[ -n "$cmd" ] || die "$list: $id: no command"
done < "$extra/plan"
mapfile -t bins < <(awk '{ print $4 }' "$extra/plan" | sort -u)

# ---- build them, static, from the series' tree
src=$KROOT/patched/src st=$KROOT/patched/src/tools/testing/selftests/mm
obj=$KROOT/patched/obj-mmtests
[ -f "$st/vm_util.c" ] || die "no mm selftests in $st"
hdr=$obj/usr/include
if [ ! -f "$hdr/linux/mman.h" ] || [ "$hdr/linux/mman.h" -ot "$src/include/uapi/linux/mman.h" ]; then
	log "mm-selftests: make headers (patched, into ${obj#"$KROOT"/})"
	mkdir -p "$obj"
	kmake patched "$obj" headers >/dev/null ||
		die "make headers failed in patched"
fi
# what check_config.sh would write without liburing, in our own dir (the
# source tree is not ours to write)
gen=$obj/mmtests-gen
mkdir -p "$gen"
echo "// No liburing support found" > "$gen/local_config.h_gen"
helpers=()
for f in vm_util.c hugepage_settings.c thp_settings.c; do
	[ -f "$st/$f" ] && helpers+=("$f")
done
# the mm Makefile's extra libraries, where a test needs one
libs_of() {
	case $1 in
	mlock-random-test|memfd_secret) echo "-lcap" ;;
	ksm_tests|migration|rmap) echo "-lnuma" ;;
	esac
}
# the source of a test: the tree's, or a copy of it with fewer rounds
# where the tree's does not finish in time under TCG (said in the list)
source_of() {
	case $1 in
	folio_split_race_test)
		# 100 iterations of 16 reader threads: not done in 420 s on a
		# TCG guest; 10 are
		sed 's/^#define NUM_ITERATIONS 100$/#define NUM_ITERATIONS 10/' \
			"$st/$1.c" > "$gen/$1.c"
		grep -q '^#define NUM_ITERATIONS 10$' "$gen/$1.c" ||
			die "$1.c has no '#define NUM_ITERATIONS 100' to lower any more"
		echo "$gen/$1.c" ;;
	*)	echo "$1.c" ;;
	esac
}
blog=$out/build.log
: > "$blog"
for b in "${bins[@]}"; do
	[ -f "$st/$b.c" ] || die "no $st/$b.c (named in $list)"
	c=$(source_of "$b")
	# shellcheck disable=SC2046
	# the flags of the mm Makefile and lib.mk, plus -static
	if ! (cd "$st" && gcc -Wall -O2 -U_FORTIFY_SOURCE -D_GNU_SOURCE= -static \
		-I"$src" -isystem "$hdr" -isystem "$src/tools/include/uapi" \
		-I"$gen" -I"$st" -I"$src/tools/testing/selftests" \
		-o "$extra/$b" "$c" "${helpers[@]}" $(libs_of "$b") \
		-lrt -lpthread -lm) >> "$blog" 2>&1; then
		tail -n 30 "$blog" >&2
		die "building $b failed (whole log: $blog)"
	fi
done
log "mm-selftests: built ${#bins[@]} tests statically: ${bins[*]}"

# ---- initramfs of its own: the lab's, plus the tests and the plan
MMLAB_BUILD=$out LAB_INITRAMFS_EXTRA=$extra LAB_SELFTEST_HEADERS=$hdr \
	bash "$S/make-initramfs.sh" patched
initrd=$out/initramfs.cpio
disk=$(bash "$S/make-disk.sh" check)

# ---- one boot per kernel
mkdir -p "$RESULTS"
logs=() guest_rc=0
for v in "${variants[@]}"; do
	con=$RESULTS/console-mm-selftests-$v.log
	log "mm-selftests: on $v ($kdir/$v/bzImage)"
	t0=$(date +%s)
	if ! bash "$S/run-guest.sh" -k "$kdir/$v/bzImage" -i "$initrd" \
		-j mm-selftests -d "$disk" -f ext4 -m "$mem" \
		-t "$guest_timeout" -o "$con"; then
		warn "mm-selftests: the guest run on $v did not finish cleanly (above); its tests are reported as they ran"
		guest_rc=1
	fi
	echo "@@MMT-HOST seconds=$(( $(date +%s) - t0 )) kernel=$kdir/$v/bzImage" >> "$con"
	logs+=("$v=$con")
done

# ---- the report
rc=0
python3 - "$RESULTS/mm-selftests" "$list" "$only" "${logs[@]}" <<'EOF' || rc=$?
import fnmatch, json, re, sys

prefix, listfile, only = sys.argv[1:4]
consoles = [a.split("=", 1) for a in sys.argv[4:]]
kernels = [k for k, _ in consoles]

run, left, notes = [], [], []
for line in open(listfile):
    f = [x.strip() for x in line.rstrip("\n").split("|")]
    if f[0] == "run" and len(f) == 6:
        if fnmatch.fnmatchcase(f[1], only):
            run.append({"id": f[1], "timeout": int(f[2]), "where": f[3],
                        "command": f[4], "why": f[5]})
    elif f[0] == "skip" and len(f) == 3:
        left.append({"tests": f[1], "why": f[2]})
    elif f[0] == "note" and len(f) == 3:
        notes.append((f[1], f[2]))

TAP = re.compile(r"^(ok|not ok) (\d+)(?: -)? ?(.*)$")

def parse(path):
    """{id: {status, rc, seconds, subtests: {key: status}}}, guest info"""
    tests, cur, info = {}, None, {"warnings": []}
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = re.search(r"@@MMT-BEGIN (\S+)", line)
        if m:
            cur = tests.setdefault(m.group(1), {"subtests": {}, "restored": None})
            cur["status"] = "unfinished"
            continue
        m = re.search(r"@@MMT-END (\S+) rc=(\d+) seconds=(\d+)(.*)", line)
        if m and cur is not None:
            rc, secs = int(m.group(2)), int(m.group(3))
            cur.update(rc=rc, seconds=secs)
            if "timeout" in m.group(4):
                cur["status"] = "timeout"
            elif "no xfs" in m.group(4):
                cur["status"] = "skip"
            else:
                cur["status"] = {0: "pass", 4: "skip"}.get(rc, "fail")
            cur = None
            continue
        m = re.search(r"@@MMT-RESTORED (\S+): (.*)", line)
        if m and m.group(1) in tests:
            tests[m.group(1)]["restored"] = m.group(2).strip()
            continue
        m = re.search(r"@@MMT-HOST seconds=(\d+)", line)
        if m:
            info["seconds"] = int(m.group(1))
        m = re.search(r"@@LAB-ACCEL (\S+)", line)
        if m:
            info["accel"] = m.group(1)
        m = re.search(r"@@LAB-BOOT kernel=(\S+)", line)
        if m:
            info["uname"] = m.group(1)
        if re.search(r"(WARNING:|BUG:|Oops|Kernel panic|Call Trace)", line):
            info["warnings"].append(line.strip())
        if cur is None:
            continue
        m = TAP.match(line)
        if not m:
            continue
        ok, num, desc = m.group(1), int(m.group(2)), m.group(3)
        if desc.startswith("# "):
            d, directive = "", desc[2:]
        else:
            d, _, directive = desc.partition(" # ")
        if directive.upper().startswith("SKIP"):
            st = "skip"
        elif directive.upper().startswith("XFAIL"):
            st = "xfail"
        else:
            st = "pass" if ok == "ok" else "fail"
        # numbered: the same plan on both kernels lines them up, and
        # cow repeats its descriptions under different set-ups
        cur["subtests"]["%04d %s" % (num, d.strip())] = st
    return tests, info

def note(tid, s):
    """the list's reason for a failure of test tid (subtest s), or """""
    name = tid if s is None else "%s/%s" % (tid, s.split(" ", 1)[-1])
    for pat, why in notes:
        if fnmatch.fnmatchcase(name, pat):
            return why
    return ""

results, infos = {}, {}
for k, path in consoles:
    results[k], infos[k] = parse(path)

BAD = ("fail", "timeout", "unfinished", "missing")
def get(k, tid):
    return results[k].get(tid, {"status": "missing", "subtests": {}})

records, new_fail, both_fail, fixed = [], [], [], []
for t in run:
    rec = dict(t)
    for k in kernels:
        rec[k] = get(k, t["id"])
    b, p = rec["base"], rec["patched"]
    if p["status"] in BAD and b["status"] == "pass":
        new_fail.append((t["id"], None, b["status"], p["status"]))
    elif p["status"] in BAD and b["status"] in BAD:
        both_fail.append((t["id"], None, b["status"], p["status"]))
    elif b["status"] in BAD and p["status"] == "pass":
        fixed.append((t["id"], None, b["status"], p["status"]))
    keys = list(b["subtests"]) + [x for x in p["subtests"] if x not in b["subtests"]]
    for s in keys:
        bs, ps = b["subtests"].get(s, "missing"), p["subtests"].get(s, "missing")
        if ps in BAD and bs in ("pass", "xfail"):
            new_fail.append((t["id"], s, bs, ps))
        elif ps in BAD and bs in BAD:
            both_fail.append((t["id"], s, bs, ps))
        elif bs in BAD and ps in ("pass", "xfail"):
            fixed.append((t["id"], s, bs, ps))
    records.append(rec)

def counts(st):
    c = {}
    for v in st.values():
        c[v] = c.get(v, 0) + 1
    return c

def cstr(st):
    return ccount(counts(st))

def ccount(c):
    return " ".join("%d %s" % (c[x], x) for x in ("pass", "fail", "timeout", "unfinished", "skip", "xfail", "missing") if c.get(x)) or "-"

md = []
md.append("# Upstream mm selftests on base and patched\n")
md.append("Written by `make mm-selftests` (scripts/mm-selftests.sh): the mm selftests "
          "that touch file mappings, readahead and THP, built statically from the "
          "series' tree, run one by one in a guest of each kernel (QEMU, "
          "check disk as ext4 on /mnt). The list and the reasons: "
          "scripts/mm-selftests.list.\n")
for k in kernels:
    i = infos[k]
    md.append("- %s: `%s`, %s, guest run %s s, kernel messages matching "
              "WARNING/BUG/Oops/panic/Call Trace: %d" % (
                  k, i.get("uname", "?"), i.get("accel", "?"),
                  i.get("seconds", "?"), len(i["warnings"])))
md.append("")
md.append("**new failures: %d** (a test or subtest that base passes and "
          "patched fails)\n" % len(new_fail))
for tid, s, bs, ps in new_fail:
    md.append("- %s%s: base %s, patched %s" % (tid, " / " + s if s else "", bs, ps))
if new_fail:
    md.append("")
md.append("Failing on both kernels: %d; failing on base only: %d.\n" % (len(both_fail), len(fixed)))
for what, l in (("both", both_fail), ("base only", fixed)):
    for tid, s, bs, ps in l:
        why = note(tid, s)
        md.append("- %s: %s%s (base %s, patched %s)%s" % (what, tid, " / " + s if s else "",
                                                          bs, ps, ": " + why if why else ""))
md.append("")
md.append("## Tests\n")
md.append("| test | command (where) | base | patched | base subtests | patched subtests | base s | patched s |")
md.append("|---|---|---|---|---|---|---|---|")
for r in records:
    b, p = r["base"], r["patched"]
    md.append("| %s | `%s` (%s) | %s | %s | %s | %s | %s | %s |" % (
        r["id"], r["command"], r["where"], b["status"], p["status"],
        cstr(b["subtests"]), cstr(p["subtests"]),
        b.get("seconds", "-"), p.get("seconds", "-")))
md.append("")
restored = [(r["id"], k, r[k]["restored"]) for r in records for k in kernels if r[k].get("restored")]
if restored:
    md.append("THP settings a test left changed, put back by the job before the next test:\n")
    for tid, k, what in restored:
        md.append("- %s on %s: %s" % (tid, k, what))
    md.append("")
md.append("## Why these tests\n")
for r in records:
    md.append("- **%s** (`%s`): %s" % (r["id"], r["command"], r["why"]))
md.append("")
md.append("## Left out\n")
for l in left:
    md.append("- %s: %s" % (l["tests"], l["why"]))
md.append("")
md.append("## Subtests\n")
md.append("Numbered as the test numbers them (TAP), so that the same case lines up on both kernels.\n")
for r in records:
    b, p = r["base"], r["patched"]
    keys = list(b["subtests"]) + [x for x in p["subtests"] if x not in b["subtests"]]
    if not keys:
        continue
    md.append("### %s\n" % r["id"])
    md.append("| subtest | base | patched |")
    md.append("|---|---|---|")
    for s in keys:
        bs, ps = b["subtests"].get(s, "missing"), p["subtests"].get(s, "missing")
        mark = " **new failure**" if (ps in BAD and bs in ("pass", "xfail")) else ""
        md.append("| %s | %s | %s%s |" % (s.replace("|", "\\|"), bs, ps, mark))
    md.append("")
for k in kernels:
    if infos[k]["warnings"]:
        md.append("## Kernel messages on %s\n" % k)
        md.append("```")
        md.extend(infos[k]["warnings"][:40])
        md.append("```\n")
open(prefix + ".md", "w").write("\n".join(md) + "\n")

json.dump({"kernels": {k: {"console": dict(consoles)[k], **{x: y for x, y in infos[k].items()}} for k in kernels},
           "tests": records, "left_out": left,
           "new_failures": [{"test": a, "subtest": b, "base": c, "patched": d} for a, b, c, d in new_fail],
           "failing_on_both": [{"test": a, "subtest": b, "base": c, "patched": d, "why": note(a, b)} for a, b, c, d in both_fail],
           "failing_on_base_only": [{"test": a, "subtest": b, "base": c, "patched": d, "why": note(a, b)} for a, b, c, d in fixed]},
          open(prefix + ".json", "w"), indent=1)

tot = {k: counts({r["id"]: r[k]["status"] for r in records}) for k in kernels}
sub = {k: counts({"%s/%s" % (r["id"], s): v for r in records for s, v in r[k]["subtests"].items()}) for k in kernels}
for k in kernels:
    print("%-8s tests: %s; subtests: %s" % (k, ccount(tot[k]), ccount(sub[k])))
print("new failures: %d" % len(new_fail))
for tid, s, bs, ps in new_fail:
    print("  %s%s: base %s, patched %s" % (tid, " / " + s if s else "", bs, ps))
print("failing on both: %d, on base only: %d" % (len(both_fail), len(fixed)))
sys.exit(1 if new_fail else 0)
EOF
log "mm-selftests: wrote results/mm-selftests.md and results/mm-selftests.json ($(( $(date +%s) - start ))s in all)"
[ "$rc" = 0 ] || die "the series fails what base passes (results/mm-selftests.md)"
[ "$guest_rc" = 0 ] || die "a guest run did not finish cleanly (results/console-mm-selftests-*.log)"
