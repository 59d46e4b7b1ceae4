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
# the series fails, in any round, a test or subtest that base fails in
# none.
#
#   MMTESTS_ONLY        run only the tests whose ID matches this shell
#                       pattern (default: all of the list), for development
# Run it under nice on a shared machine (nice -n 10 make mm-selftests).
#   MMTESTS_ROUNDS      times the guest runs the whole list (2): a case
#                       that fails in some rounds only shows as such
#                       (pass/fail), and a failure of base in any round
#                       is not blamed on the series
#   MMTESTS_MEM         guest memory (2G)
#   MMTESTS_TIMEOUT     seconds for one kernel's whole guest run (2400)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export MMLAB_ENTRY="make mm-selftests (scripts/mm-selftests.sh)"
lab_lock

only=${MMTESTS_ONLY:-*}
mem=${MMTESTS_MEM:-2G}
rounds=${MMTESTS_ROUNDS:-2}
guest_timeout=${MMTESTS_TIMEOUT:-2400}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "MMTESTS_ROUNDS must be a positive number, not '$rounds'"
list=$LAB/scripts/mm-selftests.list
[ -r "$list" ] || die "no $list"
S=$LAB/scripts
variants=(base patched)
start=$(date +%s)

bash "$S/deps.sh"
build_kernels "${variants[@]}"
KROOT=$(kroot)

# ---- the plan: "ID TIMEOUT WHERE BINARY ARGS..." per test to run
out=$BUILD/mm-selftests
extra=$out/extra
rm -rf "$extra" && mkdir -p "$extra"
# trim the fields of a "|" line
fields() { awk -F'|' -v OFS='\t' '{ for (i = 1; i <= NF; i++) gsub(/^[ \t]+|[ \t]+$/, "", $i); $1 = $1; print }'; }
grep -E '^run[[:space:]]*\|' "$list" | fields | awk -F'\t' '{ print $2, $3, $4, $5 }' |
while read -r id t where cmd; do
	# shellcheck disable=SC2254
	case $id in $only) ;; *) continue ;; esac
	[[ $t =~ ^[0-9]+$ ]] || die "$list: $id: timeout '$t' is not a number"
	case $where in ext4|tmpfs) ;; *) die "$list: $id: WHERE must be ext4 or tmpfs, not '$where'" ;; esac
	[ -n "$cmd" ] || die "$list: $id: no command"
	echo "$id $t $where $cmd"
done > "$extra/plan"
[ -s "$extra/plan" ] || die "MMTESTS_ONLY='$only' matches no test of $list"
mapfile -t bins < <(awk '{ print $4 }' "$extra/plan" | sort -u)

# ---- build them, static, from the series' tree
src=$KROOT/patched/src st=$KROOT/patched/src/tools/testing/selftests/mm
obj=$KROOT/patched/obj-mmtests
[ -f "$st/vm_util.c" ] || die "no mm selftests in $st"
hdr=$obj/usr/include
if stale_headers "$hdr" "$src"; then
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
	log "mm-selftests: on $v (build/$v/bzImage)"
	t0=$(date +%s)
	if ! bash "$S/run-guest.sh" -k "$BUILD/$v/bzImage" -i "$initrd" \
		-j mm-selftests -a "$rounds" -d "$disk" -f ext4 -m "$mem" \
		-t "$guest_timeout" -o "$con"; then
		warn "mm-selftests: the guest run on $v did not finish cleanly (above); its tests are reported as they ran"
		guest_rc=1
	fi
	echo "@@MMT-HOST seconds=$(( $(date +%s) - t0 )) kernel=$BUILD/$v/bzImage" >> "$con"
	logs+=("$v=$con")
done

# ---- the report
rc=0
PYTHONPATH=$S python3 - "$RESULTS/mm-selftests" "$list" "$only" "$rounds" "${logs[@]}" <<'EOF' || rc=$?
import fnmatch, re, sys
from collections import Counter
from labreport import lab_commit, md_table, write_json

prefix, listfile, only, rounds = sys.argv[1:5]
lab = lab_commit()
rounds = int(rounds)
consoles = [a.split("=", 1) for a in sys.argv[5:]]
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
BAD = ("fail", "timeout", "unfinished", "missing")
ORDER = ("pass", "fail", "timeout", "unfinished", "skip", "xfail", "not run", "missing")


def parse(path):
    """[{id: {status, rc, seconds, restored, subtests: {key: status}}}
    per round], guest info"""
    rnds, cur, info = [{}], None, {"warnings": []}
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = re.search(r"@@MMT-ROUND (\d+)", line)
        if m:
            if int(m.group(1)) > 1:
                rnds.append({})
            cur = None
            continue
        m = re.search(r"@@MMT-BEGIN (\S+)", line)
        if m:
            cur = rnds[-1].setdefault(m.group(1), {"subtests": {}})
            cur["status"] = "unfinished"
            continue
        m = re.search(r"@@MMT-END (\S+) rc=(\d+) seconds=(\d+)(.*)", line)
        if m and cur is not None:
            rc = int(m.group(2))
            cur.update(rc=rc, seconds=int(m.group(3)))
            if "timeout" in m.group(4):
                cur["status"] = "timeout"
            elif "no xfs" in m.group(4):
                cur["status"] = "skip"
            else:
                cur["status"] = {0: "pass", 4: "skip"}.get(rc, "fail")
            cur = None
            continue
        m = re.search(r"@@MMT-RESTORED (\S+): (.*)", line)
        if m and m.group(1) in rnds[-1]:
            rnds[-1][m.group(1)]["restored"] = m.group(2).strip()
            continue
        for key, pat in (("seconds", r"@@MMT-HOST seconds=(\d+)"),
                         ("accel", r"@@LAB-ACCEL (\S+)"),
                         ("uname", r"@@LAB-BOOT kernel=(\S+)"),
                         ("plan", r"@@MMT-PLAN (.*)")):
            m = re.search(pat, line)
            if m:
                info[key] = m.group(1)
        if re.search(r"(WARNING:|BUG:|Oops|Kernel panic|Call Trace)", line):
            info["warnings"].append(line.strip())
        if cur is None:
            continue
        if line.startswith("Bail out!") and "bail" not in cur:
            cur["bail"] = line
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
    return rnds, info


def note(tid, s):
    """the list's reason for a failure of test tid (subtest s), or "" """
    name = tid if s is None else "%s/%s" % (tid, s.split(" ", 1)[-1])
    for pat, why in notes:
        if fnmatch.fnmatchcase(name, pat):
            return why
    return ""


def agg(sts):
    """one status for all rounds, or each round's: pass/fail"""
    return sts[0] if len(set(sts)) == 1 else "/".join(sts)


parsed, infos = {}, {}
for k, path in consoles:
    parsed[k], infos[k] = parse(path)
    infos[k]["rounds_run"] = len(parsed[k])

records, diffs = [], {"new": [], "both": [], "base only": []}


def classify(tid, s, bl, pl, brs=None, prs=None):
    bbad = sum(x in BAD for x in bl)
    pbad = sum(x in BAD for x in pl)
    if not (bbad or pbad):
        return
    kind = "both" if pbad and bbad else "new" if pbad else "base only"
    # what the failed rounds said, where the test bailed out
    said = {k: sorted({r["bail"] for r in rs or [] if r.get("bail") and r["status"] in BAD})
            for k, rs in (("base", brs), ("patched", prs))}
    diffs[kind].append({"test": tid, "subtest": s, "base": agg(bl),
                        "patched": agg(pl), "patched_failed_rounds": pbad,
                        "base_failed_rounds": bbad, "why": note(tid, s),
                        "base_said": said["base"], "patched_said": said["patched"]})


for t in run:
    rec = dict(t)
    per = {}
    for k in kernels:
        rs = [parsed[k][r].get(t["id"], {"status": "missing", "subtests": {}})
              if r < len(parsed[k]) else {"status": "missing", "subtests": {}}
              for r in range(rounds)]
        keys = []
        for r in rs:
            keys += [x for x in r["subtests"] if x not in keys]
        per[k] = (rs, keys)
    keys = per["base"][1] + [x for x in per["patched"][1] if x not in per["base"][1]]
    for k in kernels:
        rs = per[k][0]
        rec[k] = {
            "status": agg([r["status"] for r in rs]),
            "rounds": [{x: r.get(x) for x in ("status", "rc", "seconds", "restored", "bail")} for r in rs],
            # a subtest that a failed round never reached is "not run":
            # that round's failure is the test's, counted once
            "subtests": {s: [r["subtests"].get(s, "not run" if r["status"] in BAD else "missing")
                             for r in rs] for s in keys},
        }
    classify(t["id"], None, [r["status"] for r in per["base"][0]],
             [r["status"] for r in per["patched"][0]], per["base"][0], per["patched"][0])
    for s in keys:
        classify(t["id"], s, rec["base"]["subtests"][s], rec["patched"]["subtests"][s])
    records.append(rec)


def ccount(c):
    return " ".join("%d %s" % (c[x], x) for x in sorted(c, key=lambda x: (
        ORDER.index(x) if x in ORDER else len(ORDER), x))) or "-"


def name(d):
    return d["test"] + (" / " + d["subtest"] if d["subtest"] else "")


def rounds_of(d, k):
    n = d[k + "_failed_rounds"]
    return "every round" if n == rounds else "%d of %d rounds" % (n, rounds)


md = ["# Upstream mm selftests on base and patched\n",
      "Written by `make mm-selftests` (scripts/mm-selftests.sh): the upstream mm "
      "selftests that touch file mappings, readahead and THP, built statically "
      "from the series' tree, run one by one in a guest of each kernel (QEMU, "
      "the check disk as ext4 on /mnt, a swap file and a loop xfs on it), the "
      "whole list run %d time(s) per boot (rounds). The tests, and why each is run or left "
      "out: scripts/mm-selftests.list; the consoles: "
      "results/console-mm-selftests-{base,patched}.log. Lab commit %s.\n" % (rounds, lab)]
for k in kernels:
    i = infos[k]
    md.append("- %s: `%s` (%s), %s; guest run %s s (boot to power-off), %d of %d "
              "rounds ran; kernel messages matching WARNING/BUG/Oops/panic/Call "
              "Trace: %d" % (k, i.get("uname", "?"), dict(consoles)[k].rsplit("/", 1)[-1],
                             i.get("accel", "?"), i.get("seconds", "?"),
                             i["rounds_run"], rounds, len(i["warnings"])))
md.append("")
md.append("**new failures: %d** (a test or subtest that patched fails in any "
          "round and base fails in none)\n" % len(diffs["new"]))
for d in diffs["new"]:
    md.append("- %s: base %s, patched %s (%s)%s%s" % (
        name(d), d["base"], d["patched"], rounds_of(d, "patched"),
        "".join(": `%s`" % x for x in d["patched_said"]),
        " (the list's note, which does not excuse it: %s)" % d["why"] if d["why"] else ""))
if diffs["new"]:
    md.append("")
md.append("Failing on both kernels: %d; on base only: %d.\n" % (
    len(diffs["both"]), len(diffs["base only"])))
for kind in ("both", "base only"):
    for d in diffs[kind]:
        md.append("- %s: %s (base %s, patched %s)%s" % (
            kind, name(d), d["base"], d["patched"], ": " + d["why"] if d["why"] else ""))
md.append("")
md.append("## Tests\n")
md.append("Status per test from its exit code (0 pass, 4 skip, else fail; "
          "timeout when killed); one status for all rounds, or each round's "
          "(pass/fail). Subtests: the test's TAP lines, counted by their "
          "status over the rounds (each round's seconds: the JSON). Each test's "
          "command: Why these tests, below.\n")
md += md_table(["test", "base", "patched", "base subtests", "patched subtests"],
               [[r["id"], r["base"]["status"], r["patched"]["status"]]
                + [ccount(Counter(agg(v) for v in r[k]["subtests"].values())) for k in ("base", "patched")]
                for r in records])
tot = {k: Counter(r[k]["status"] for r in records) for k in kernels}
sub = {k: Counter(agg(v) for r in records for v in r[k]["subtests"].values()) for k in kernels}
md.append("")
for k in kernels:
    md.append("- %s: tests %s; subtests %s" % (k, ccount(tot[k]), ccount(sub[k])))
md.append("")
restored = [(r["id"], k, i + 1, x["restored"]) for r in records for k in kernels
            for i, x in enumerate(r[k]["rounds"]) if x.get("restored")]
if restored:
    md.append("THP settings a test left changed, put back by the job before the next test:\n")
    for tid, k, i, what in restored:
        md.append("- %s on %s, round %d: %s" % (tid, k, i, what))
    md.append("")
md.append("## Why these tests\n")
for r in records:
    md.append("- **%s** (`%s`, %s): %s" % (r["id"], r["command"], r["where"], r["why"]))
md.append("")
md.append("## Left out\n")
for l in left:
    md.append("- %s: %s" % (l["tests"], l["why"]))
md.append("")
md.append("## Subtests\n")
md.append("Named by the test's TAP number and description, so that the same "
          "case lines up on both kernels; each with its status on base, then on "
          "patched.\n")
for r in records:
    b, p = r["base"], r["patched"]
    if not b["subtests"]:
        continue
    md.append("### %s\n" % r["id"])
    for s in b["subtests"]:
        bl, pl = b["subtests"][s], p["subtests"][s]
        mark = ""
        if any(x in BAD for x in pl) and not any(x in BAD for x in bl):
            mark = " **new failure**"
        md.append("- %s: %s, %s%s" % (s.rstrip(), agg(bl), agg(pl), mark))
    md.append("")
for k in kernels:
    if infos[k]["warnings"]:
        md.append("## Kernel messages on %s\n" % k)
        md.append("```")
        md.extend(infos[k]["warnings"][:40])
        md.append("```\n")
open(prefix + ".md", "w").write("\n".join(md) + "\n")

write_json(prefix + ".json", {"lab_commit": lab, "rounds": rounds,
           "kernels": {k: dict(infos[k], console=dict(consoles)[k]) for k in kernels},
           "tests": records, "left_out": left,
           "new_failures": diffs["new"], "failing_on_both": diffs["both"],
           "failing_on_base_only": diffs["base only"]}, end="")

for k in kernels:
    print("%-8s guest %ss; tests: %s; subtests: %s" % (
        k, infos[k].get("seconds", "?"), ccount(tot[k]), ccount(sub[k])))
print("new failures: %d" % len(diffs["new"]))
for d in diffs["new"]:
    print("  %s: base %s, patched %s%s" % (name(d), d["base"], d["patched"],
                                            "".join(": %s" % x for x in d["patched_said"])))
print("failing on both: %d, on base only: %d" % (len(diffs["both"]), len(diffs["base only"])))
for kind in ("both", "base only"):
    for d in diffs[kind]:
        print("  %s: %s (base %s, patched %s)" % (kind, name(d), d["base"], d["patched"]))
sys.exit(1 if diffs["new"] else 0)
EOF
log "mm-selftests: wrote results/mm-selftests.md and results/mm-selftests.json ($(( $(date +%s) - start ))s in all)"
[ "$rc" = 0 ] || die "the series fails what base passes (results/mm-selftests.md)"
[ "$guest_rc" = 0 ] || die "a guest run did not finish cleanly (results/console-mm-selftests-*.log)"
