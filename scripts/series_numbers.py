#!/usr/bin/env python3
"""The figures the series quotes, made from results/, so that they are
typed once.

  series_numbers.py             print every block, with the patches that
                                quote it
  series_numbers.py NAME        print one block
  series_numbers.py fill FILE   FILE with each line @@NAME@@ replaced by
                                block NAME: a commit message or the cover
                                letter kept with markers, filled before it
                                goes into the kernel tree (git commit
                                --amend -F, git branch --edit-description)
  series_numbers.py --check     every block must appear, byte for byte, in
                                each patch of series/ that quotes it;
                                exits 1 naming the block otherwise (make
                                check runs it)

Each block is a table or a paragraph of the cover letter or of a commit
message.  A block whose results file is missing is an error: nothing is
quoted that was not measured.
"""
import functools
import json
import os
import statistics
import sys
import textwrap

from labreport import LAB

RESULTS = os.environ.get("MMLAB_RESULTS", os.path.join(LAB, "results"))
SERIES = os.environ.get("MMLAB_SERIES", os.path.join(LAB, "series"))
COVER = "0000-cover-letter.patch"
PATCH1 = "0001-mm-filemap-get-mmap-readahead-back-for-sequential-re.patch"
PATCH2 = "0002-mm-filemap-read-whole-folios-for-descending-MADV_HUG.patch"


@functools.lru_cache(maxsize=None)
def load(name):
    """A results file (one JSON document)."""
    path = os.path.join(RESULTS, name)
    if not os.path.exists(path):
        sys.exit(f"series_numbers.py: no {path}: run the make target that writes it")
    with open(path) as f:
        return json.load(f)


def st(case, kernel):
    """The count the selftest case printed on KERNEL (results/v4-selftest),
    which must have passed there unless KERNEL is base or patch1."""
    r = load("v4-selftest.json")
    if case not in r["count"] or kernel not in r["count"][case]:
        sys.exit(f"series_numbers.py: v4-selftest.json has no {case} on {kernel}")
    return int(r["count"][case][kernel])


def counts(cases, width, cols, kernels=("base", "patched"), head=None):
    """A table of the counts (st) of CASES, each a label and a case, on
    KERNELS: the labels padded to WIDTH, the count on KERNELS[i]
    right-aligned in COLS[i] characters, under a header after HEAD
    (else WIDTH) spaces."""
    lines = [" " * (head or width) + "  7.3-rc7   patched"]
    for label, case in cases:
        lines.append(label.ljust(width)
                     + "".join(f"{st(case, k):>{w}}" for k, w in zip(kernels, cols)))
    return "\n".join(lines)


# thp-random: over the limit, every access a miss, in PMD-sized folios
MISS = lambda r: (r["hits"].startswith("no/") and "under" not in r["cgroup"]
                  and "small" not in r["cgroup"])


def para(text):
    return textwrap.fill(text, 72, break_on_hyphens=False)


def patch1_repro():
    """1/2: the recovery cases of its own selftest, base and 1/2 alone."""
    return counts([
        ("  ext4, 4 KiB pages", "dir.sequential_after_random"),
        ("  xfs, 16 KiB blocks", "xfs_16k.sequential_after_random"),
        ("  ext4, MADV_HUGEPAGE, 60 MiB", "dir.thp_sequential_after_random"),
    ], 34, (9, 10), kernels=("base", "patch1own"))


def patch2_repro():
    """2/2: the forced-THP cases of the selftest, base and the series."""
    return counts([
        ("  descending_thp, ext4", "dir.descending_thp"),
        ("  descending_thp_after_random, ext4", "dir.descending_thp_after_random"),
        ("  descending_thp, xfs 16 KiB", "xfs_16k.descending_thp"),
        ("  descending_thp_after_random, xfs", "xfs_16k.descending_thp_after_random"),
        ("  thp_no_readahead, xfs 16 KiB", "xfs_16k.thp_no_readahead"),
    ], 36, (7, 10), head=34)


def cover_table():
    """The cover letter's table: every fixing case, base and the series."""
    return counts([
        ("  sequential after random faults, ext4", "dir.sequential_after_random"),
        ("    the same, xfs of 16 KiB blocks", "xfs_16k.sequential_after_random"),
        ("    the same, MADV_HUGEPAGE", "dir.thp_sequential_after_random"),
        ("  MADV_HUGEPAGE read downwards, ext4", "dir.descending_thp"),
        ("    the same, xfs of 16 KiB blocks", "xfs_16k.descending_thp"),
        ("    the same after 150 random faults, ext4", "dir.descending_thp_after_random"),
        ("  MADV_HUGEPAGE, read_ahead_kb 0, xfs 16 KiB", "xfs_16k.thp_no_readahead"),
    ], 43, (9, 10))


def thpr(pred):
    """Medians (KiB per access) of the thp-random keys PRED accepts, as
    (base, v4) pairs, by shape."""
    byk = {}
    for r in load("v4-thp-random.json")["runs"]:
        if pred(r):
            byk.setdefault((r["shape"], r["hits"], r["cgroup"]), {})[r["kernel"]] = \
                statistics.median(r["kib_per_access"])
    if not byk:
        sys.exit("series_numbers.py: v4-thp-random.json has no such runs")
    return [(k[0], v["base"], v["v4"]) for k, v in sorted(byk.items())]


def pct(pairs):
    ps = [100 * (v - b) / b for _, b, v in pairs]
    lo, hi = min(ps), max(ps)
    return f"{lo:+.0f} %" if round(lo) == round(hi) else f"{lo:+.0f} % to {hi:+.0f} %"


def patch2_cost():
    """2/2: random MADV_HUGEPAGE readers (make thp-random), base -> v4."""
    hits = thpr(lambda r: r["hits"].startswith("yes/"))
    under = thpr(lambda r: "under" in r["cgroup"])
    return para("Random MADV_HUGEPAGE readers of a 512 MiB file half cached in "
                "PMD-sized folios, in a 1 GiB guest (KiB read per access, "
                "medians of the runs, patched against 7.3-rc7): over the limit, "
                f"every access a miss (plain or in a 256M memory cgroup): {pct(thpr(MISS))}; "
                "every other access a hit, which now counts for PMD-mapped "
                f"folios too: {pct(hits)}; under the limit, read_ahead_kb 8192 "
                f"or 128: {pct(under)}.")


def patch2_thp_late():
    """2/2: 512 MiB read through MADV_HUGEPAGE after 300 random faults
    (results/v4-thp-direction: guest/jobs/desc.sh)."""
    r = {(x["reader"], x["read_ahead_kb"], x["random_faults"]): x
         for x in load("v4-thp-direction.json")["rows"]}
    up, down = r[("ascending", 128, 300)], r[("descending", 128, 300)]
    return para("512 MiB read through MADV_HUGEPAGE after 300 random faults "
                "through another mapping, read_ahead_kb 128: upwards "
                f"{up['base_major_faults']} major faults and "
                f"{up['base_pmd_mapped_2m']} of 256 2 MiB ranges PMD-mapped on "
                f"7.3-rc7, {up['patched_major_faults']} and "
                f"{up['patched_pmd_mapped_2m']} patched; downwards "
                f"{down['base_major_faults']} and {down['base_pmd_mapped_2m']}, "
                f"{down['patched_major_faults']} and "
                f"{down['patched_pmd_mapped_2m']}.")


def patch2_records():
    """2/2: random records through MADV_HUGEPAGE (results/v4-records-thp:
    guest/jobs/records-thp.sh), with 300 random faults first and none."""
    r = {(x["kernel"], x["record_kb"], x["random_faults"]): x["pages_per_access"]
         for x in load("v4-records-thp.json")["rows"]}
    return para("A reader of random 64 KiB records through MADV_HUGEPAGE after 300 "
                f"random faults reads {r[('patched', 64, 300)]:.1f} pages a record, "
                f"against {r[('base', 64, 300)]:.1f} on 7.3-rc7 (stuck) and "
                f"{r[('base', 64, 0)]:.1f} there without the random faults (forced "
                "THP readahead); of 32 KiB records, "
                f"{r[('patched', 32, 300)]:.1f} (7.3-rc7: {r[('base', 32, 300)]:.1f}).")


def patch1_cost():
    """1/2: what the probe costs plain random readers of a file half
    cached in small folios, mmap_miss over the limit (make thp-random -S)."""
    small = {shape: (b, v) for shape, b, v in
             thpr(lambda r: "small" in r["cgroup"])}
    return para("A random reader of a file half cached in small folios, "
                "mmap_miss over the limit, whose misses land just after a cached "
                "run one time in two (2 MiB-aligned, or next to a cached range), "
                f"reads {small['aligned'][1]:.1f} and {small['next'][1]:.1f} KiB "
                f"per access instead of {small['aligned'][0]:.1f} and "
                f"{small['next'][0]:.1f}; at random, {small['uniform'][1]:.1f} "
                f"as on 7.3-rc7 ({small['uniform'][0]:.1f}).  Half cached in "
                "PMD-sized folios instead, through MADV_HUGEPAGE (the probe never "
                "follows a large folio), every access a miss at random, "
                "2 MiB-aligned or next to a cached folio, plain or in a 256M "
                f"memory cgroup, it reads as much as on 7.3-rc7 ({pct(thpr(MISS))}).")


BLOCKS = {
    "patch1-repro": (patch1_repro, (PATCH1,)),
    "patch1-cost": (patch1_cost, (PATCH1,)),
    "patch2-repro": (patch2_repro, (PATCH2,)),
    "patch2-thp-late": (patch2_thp_late, (PATCH2,)),
    "patch2-cost": (patch2_cost, (PATCH2,)),
    "patch2-records": (patch2_records, (PATCH2,)),
    "cover-table": (cover_table, (COVER,)),
}


def block(name):
    """Block NAME: its function and the patches that quote it"""
    if name not in BLOCKS:
        sys.exit(f"series_numbers.py: no block '{name}' (blocks: {', '.join(BLOCKS)})")
    return BLOCKS[name]


def main(argv):
    if argv[1:] == ["--check"]:
        bad = 0
        n = 0
        for name, (fn, targets) in BLOCKS.items():
            text = fn()
            for target in targets:
                n += 1
                with open(os.path.join(SERIES, target)) as f:
                    if text not in f.read():
                        print(f"series_numbers.py: series/{target} does not quote block "
                              f"{name} as results/ give it now:\n{text}\n")
                        bad += 1
        print(f"{n - bad} of {n} quoted blocks as results/ give them")
        return 1 if bad else 0
    if argv[1:2] == ["fill"] and len(argv) == 3:
        with open(argv[2]) as f:
            lines = f.read().split("\n")
        marked = lambda line: line.startswith("@@") and line.endswith("@@")
        sys.stdout.write("\n".join(block(line[2:-2])[0]() if marked(line) else line
                                   for line in lines))
        return 0
    names = argv[1:] or list(BLOCKS)
    for name in names:
        fn, targets = block(name)
        if len(names) > 1:
            print(f"--- {name} ({', '.join('series/' + t for t in targets)})")
        print(fn())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
