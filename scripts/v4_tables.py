#!/usr/bin/env python3
"""results/v4-selftest.{md,json} and results/v4-thp-direction.{md,json}
from the consoles in their directories (written by the runs that
results/*.md name). The lab commit they name is git's HEAD, or
MMLAB_LAB_COMMIT (to remake the tables of an earlier run).

  v4_tables.py selftest KERNEL...   consoles v4-selftest/console-K.log
  v4_tables.py thp-direction        consoles v4-thp-direction/console-{base,patched}.log
  v4_tables.py records-thp          consoles v4-records-thp/console-{base,patched}-{0,300}.log
"""
import os
import sys

import tap
from labreport import LAB, lab_commit, md_table, read_console, write_json as dump

RESULTS = os.environ.get("MMLAB_RESULTS", os.path.join(LAB, "results"))


def write(name, consoles, table, **doc):
    """results/NAME.json: the lab commit, each kernel's release (from the
    @@LAB-BOOT line of its console in results/NAME/, CONSOLES) and DOC;
    results/NAME.md: its head (HEADS), then the lines of TABLE."""
    kernels = {k: read_console(os.path.join(RESULTS, name, c))[1].get("kernel")
               for k, c in consoles.items()}
    dump(os.path.join(RESULTS, name + ".json"), {"lab_commit": lab_commit(""), "kernels": kernels,
                                                 **doc})
    with open(os.path.join(RESULTS, name + ".md"), "w") as f:
        f.write(HEADS[name].replace("@@LAB@@", lab_commit("")) + "\n".join(table) + "\n")


def selftest(kernels):
    outcome, count = {}, {}
    for k in kernels:
        results, _, counts = tap.parse(os.path.join(RESULTS, "v4-selftest", f"console-{k}.log"))
        for case, res in results.items():
            outcome.setdefault(case, {})[k] = "FAIL" if res == "fail" else res
            if case in counts:
                count.setdefault(case, {})[k] = counts[case]
    table = [f"{'case':36}" + "".join(f"{k:12}" for k in kernels).rstrip()]
    for case, per in outcome.items():
        cells = [f"{per.get(k, '-')} {count.get(case, {}).get(k, '')}".strip() for k in kernels]
        table.append(f"{case:36}" + "".join(f"{c:12}" for c in cells).rstrip())
    write("v4-selftest", {k: f"console-{k}.log" for k in kernels}, table,
          outcome=outcome, count=count)


def results(path, phase):
    """The @@RESULT records of phase PHASE in the console at PATH."""
    return [r for _, _, r in read_console(os.path.join(RESULTS, path))[0]
            if r.get("phase") == phase]


def thp_direction():
    rows = {}
    for k in ("base", "patched"):
        for r in results(f"v4-thp-direction/console-{k}.log", "pass"):
            key = (r["workload"].split("-")[-1], r["read_ahead_kb"], r["random_faults"])
            rows.setdefault(key, {})[k] = {x: r.get(x) for x in
                                           ("major_faults", "dev_pages_read", "pmd_mapped_2m")}
    out = [{"reader": a, "read_ahead_kb": b, "random_faults": c, **{
        f"{k}_{x}": v[k][x] for k in v for x in v[k]}} for (a, b, c), v in rows.items()]
    write("v4-thp-direction", dict(base="console-base.log", patched="console-patched.log"),
          md_table(["reader", "ra KiB", "random", "base major", "v4 major", "base PMD", "v4 PMD",
                    "base pages", "v4 pages"],
                   [[r["reader"], r["read_ahead_kb"], r["random_faults"]] + [
                       r[f"{k}_{x}"] for x in ("major_faults", "pmd_mapped_2m", "dev_pages_read")
                       for k in ("base", "patched")] for r in out]), rows=out)


def records_thp():
    out = []
    for k in ("base", "patched"):
        for n in (0, 300):
            for r in results(f"v4-records-thp/console-{k}-{n}.log", "access"):
                out.append({"kernel": k, "random_faults": n, "record_kb": r["record_kb"],
                            "pages_per_access": r["pages_per_access"],
                            "major_faults": r["major_faults"]})
    c = {(r["kernel"], r["record_kb"], r["random_faults"]): r for r in out}
    write("v4-records-thp", dict(base="console-base-0.log", patched="console-patched-0.log"),
          md_table(["record KiB", "random faults", "base pages/record", "v4 pages/record",
                    "base major", "v4 major"],
                   [[b, n] + [c[(k, b, n)][x] for x in ("pages_per_access", "major_faults")
                              for k in ("base", "patched")]
                    for b in (64, 32) for n in (0, 300)]), rows=out)


RECORDS_HEAD = """# Random records through MADV_HUGEPAGE, with and without random faults first

Lab @@LAB@@ (guest/jobs/records-thp.sh); QEMU 7.2 TCG; 2 GiB guest; the
check disk (ext4, big.bin 1 GiB of random data, read cold). Kernels: base
7.3.0-rc7-base (lab-base) and 7.3.0-rc7-patched (series/). Command, for K
in base patched and N in 0 300, then scripts/v4_tables.py records-thp:

    scripts/run-guest.sh -k build/K/bzImage -d CHECK_DISK -j records-thp -a N -m 2G

workloads/after-random -m records -H: N random faults in [768 MiB, 1 GiB)
through a plain mapping (read_ahead_kb 128), then 100 random records of 64
or 32 KiB in [0, 768 MiB), each read page by page in order through a
MADV_HUGEPAGE mapping. pages/record: pages read from the disk per record.
Consoles in v4-records-thp/.

"""

SELFTEST_HEAD = """# mmap_miss_recovery on each kernel

Lab @@LAB@@ (series as in series/); kernels 7.3.0-rc7-{base,patch1,patched,
v3,noveto}: base is Debian's linux-source-7.3 7.3~rc7-1~exp1; patch1, 1/2
alone (patch1own: with 1/2's own selftest); patched, the series; tmpfs,
the series given a directory on tmpfs; v3, variants/v3; noveto, the
series without its readahead-flag test. QEMU 7.2 TCG, 2 GiB guest, the
check disk (ext4, read_ahead_kb 128). Each cell: the outcome and the count
the case prints (major faults, or pages cached). Command:
scripts/run-guest.sh -k build/K/bzImage -d CHECK_DISK -j selftest [-a ARGS]
(as make check runs it), then scripts/v4_tables.py selftest K...;
expected outcomes: tests/selftest-expect.txt. Consoles in v4-selftest/.

"""

THP_HEAD = """# MADV_HUGEPAGE readers of real data, descending and ascending

Lab @@LAB@@ (guest/jobs/desc.sh); QEMU 7.2 TCG; 1 GiB guest; the check
disk (ext4, big.bin of random data, read cold from the virtio disk).
Kernels: base 7.3.0-rc7-base (lab-base) and 7.3.0-rc7-patched (series/).
Command, for K in base patched, then scripts/v4_tables.py thp-direction:

    scripts/run-guest.sh -k build/K/bzImage -d CHECK_DISK -j desc -m 1G

Each pass is workloads/thp-late over 512 MiB (131072 pages, 256 ranges of
2 MiB), from the last page down (descending) or in order (ascending),
after 0, 90 or 300 random faults through a plain mapping, at
read_ahead_kb 128 or 8192. major: the pass's major faults; PMD: 2 MiB
ranges PMD-mapped at its end; pages: pages read from the data disk during
the pass. Consoles in v4-thp-direction/.

"""

HEADS = {"v4-selftest": SELFTEST_HEAD, "v4-thp-direction": THP_HEAD,
         "v4-records-thp": RECORDS_HEAD}

if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "selftest" and len(sys.argv) > 2:
        selftest(sys.argv[2:])
    elif what == "thp-direction":
        thp_direction()
    elif what == "records-thp":
        records_thp()
    else:
        sys.exit(__doc__)
