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

LAB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.environ.get("MMLAB_RESULTS", os.path.join(LAB, "results"))
SERIES = os.environ.get("MMLAB_SERIES", os.path.join(LAB, "series"))
COVER = "0000-cover-letter.patch"
PATCH1 = "0001-mm-filemap-let-sequential-readers-get-mmap-readahead.patch"


@functools.lru_cache(maxsize=None)
def load(name):
    """A results file: one JSON document (bench.json), or one per line
    (sharp.json, as make sharp writes it)."""
    path = os.path.join(RESULTS, name)
    if not os.path.exists(path):
        sys.exit(f"series_numbers.py: no {path}: run the make target that writes it")
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def sharp(workload, phase, variant, **match):
    """The one make sharp result of WORKLOAD's PHASE on VARIANT (and the
    fields of MATCH, e.g. random_faults=300)."""
    rs = [r for r in load("sharp.json") if r["workload"] == workload
          and r["phase"] == phase and r["variant"] == variant
          and all(r.get(k) == v for k, v in match.items())]
    if len(rs) != 1:
        sys.exit(f"series_numbers.py: sharp.json has {len(rs)} results for "
                 f"{workload} {phase} on {variant} {match or ''}, not one")
    return rs[0]


def rows(lines, width, cols):
    """A table: each entry of LINES is a label (its last line carries the
    values) and a list of values; the label is padded to WIDTH, and value
    i right-aligned in COLS[i] characters."""
    out = []
    for label, values in lines:
        parts = label.split("\n")
        out += parts[:-1]
        out.append(parts[-1].ljust(width) +
                   "".join(f"{v:>{w}}" for v, w in zip(values, cols)))
    return "\n".join(out)


def mf(workload, phase, variant, **match):
    return sharp(workload, phase, variant, **match)["major_faults"]


def cover_faults():
    """Cover letter: the traps' major faults, base and the series
    (make sharp)."""
    def both(w, p, n=None):
        m = {} if n is None else {"random_faults": n}
        return [mf(w, p, "base", **m), mf(w, p, "patched", **m)]
    head = " " * 47 + "base    patched"
    return head + "\n" + rows([
        ("  4 GiB file on ext4, 100 random faults,\n"
         "    then 1 GiB in order (262144 pages)", both("recovery-ext4", "sequential", 100)),
        ("  1 GiB file on xfs with 16 KiB blocks, 300\n"
         "    random faults, then 768 MiB in order", both("recovery-xfs16k", "sequential", 300)),
        ("  MADV_HUGEPAGE after 300 small-page random\n"
         "    faults, 512 MiB in order", both("thp-late-ascending", "pass", 300)),
        ("    the same, last page first", both("thp-late-descending", "pass", 300)),
        ("  MADV_HUGEPAGE, 512 MiB last page first", both("thp-late-descending", "pass", 0)),
        ("  MADV_HUGEPAGE, read_ahead_kb 0, 1 GiB\n"
         "    in order", both("thp-ra0-ascending", "read")),
    ], 41, (10, 11))


def per_access(workload, variant):
    r = sharp(workload, "access", variant)
    return f"{r['dev_pages_read'] / r['accesses']:.2f}"


def random_pages(variant):
    return sharp("random-private", "median", variant)["pages_added"]


def cover_costs():
    """Cover letter: what readers that are not sequential read (make
    sharp): base, v2, the series."""
    vs = ("base", "v2", "patched")
    head = " " * 45 + "base     v2   this"
    return head + "\n" + rows([
        ("  pages per access, each just after a cached\n"
         "    page (adversarial for v2's signal)",
         [per_access("adversarial", v) for v in vs]),
        ("  pages per random record, 16 KiB", [per_access("records-ext4", v) for v in vs]),
        ("    32 KiB", [per_access("records32-ext4", v) for v in vs]),
        ("    16 KiB, packed into 64 MiB", [per_access("records-dense-ext4", v) for v in vs]),
        ("  pages added by 512 Ki random one-byte\n"
         "    reads of a sparse 4 GiB file (median\n"
         "    of 5 runs)", [random_pages(v) for v in vs]),
    ], 41, (8, 7, 7))


def patch1_repro():
    """Patch 1: the reproducer's major faults (make sharp)."""
    head = " " * 44 + "base    patched"
    return head + "\n" + rows([
        ("  ext4", [mf("recovery-ext4", "sequential", v, random_faults=100)
                   for v in ("base", "patched")]),
        ("  xfs, 16 KiB blocks (1 GiB file, 300\n"
         "    random faults, then 768 MiB in order)",
         [mf("recovery-xfs16k", "sequential", v, random_faults=300)
          for v in ("base", "patched")]),
    ], 41, (7, 11))


def bench(workload, variant, **match):
    """The make bench summary of WORKLOAD on VARIANT (and MATCH, e.g.
    n=1000 or phase="random")."""
    ss = [s for s in load("bench.json")["summary"] if s["workload"] == workload
          and s["variant"] == variant and all(s.get(k) == v for k, v in match.items())]
    if len(ss) != 1:
        sys.exit(f"series_numbers.py: bench.json has {len(ss)} summaries for "
                 f"{workload} on {variant} {match}, not one")
    return ss[0]


def med(x):
    return f"{x['median']:.0f}"


def scan_faults(variant, n, stuck):
    """Median major faults of the SQLite scans after N lookups on VARIANT
    that were (STUCK 1) or were not (0) stuck, or None if there was none."""
    xs = [r["major_faults"] for r in load("bench.json")["results"]
          if r["workload"] == "sqlite" and r["phase"] == "scan" and r["n"] == n
          and r["variant"] == variant and r["stuck"] == stuck]
    return f"{statistics.median(xs):.0f}" if xs else "-"


def cover_bench():
    """Cover letter and patch 1: the real clients (make bench), base and
    the series: how often the scan was stuck, and major faults."""
    vs = ("base", "patched")
    d = load("bench.json")
    sq = {n: {v: bench("sqlite", v, n=n) for v in vs} for n in (0, 300, 1000)}
    npy = {n: {v: bench("numpy", v, n=n) for v in vs} for n in (0, 1000)}
    gib = sq[0]["base"]["pages"] * 4096 / 2**30
    head = " " * 47 + "base    patched"
    return head + "\n" + rows([
        (f"  SQLite {bench_version(d, 'sqlite')}, {gib:.1f} GiB table, scan after\n"
         "    1000 random lookups: runs stuck",
         [f"{sq[1000][v]['stuck']}/{sq[1000][v]['runs']}" for v in vs]),
        ("    major faults, stuck runs", [scan_faults(v, 1000, 1) for v in vs]),
        ("    major faults, other runs", [scan_faults(v, 1000, 0) for v in vs]),
        ("  scan after 300 lookups: runs stuck",
         [f"{sq[300][v]['stuck']}/{sq[300][v]['runs']}" for v in vs]),
        ("  scan without lookups: major faults",
         [med(sq[0][v]["major_faults"]) for v in vs]),
        (f"  numpy {bench_version(d, 'numpy')}, 4 GiB memmap, last GiB in\n"
         "    order after 1000 random rows:\n"
         "    major faults", [med(npy[1000][v]["major_faults"]) for v in vs]),
        ("  the same without random rows", [med(npy[0][v]["major_faults"]) for v in vs]),
    ], 41, (10, 11))


def bench_version(d, key):
    return next(r[key] for r in d["results"] if r.get(key))


def cover_gained():
    """Cover letter: what 0b9c0aeba938 and 9b0fcac3cfe7 gained random
    readers, which the series keeps (make bench, pages read)."""
    vs = ("base", "patched", "exp-per-page", "exp-tried-hits")
    small = min(s["mem_kb"] for s in load("bench.json")["summary"]
                if s["workload"] == "ra-method")

    def method(pat):
        return [med(bench("ra-method", v, phase=pat, mem_kb=small)["dev_pages_read"])
                for v in vs]
    head = " " * 34 + "base  patched   no 0b9c   no 9b0f"
    return head + "\n" + rows([
        ("  mmap-pread-rand, vm-scalability's\n"
         "    pattern: pages read",
         [med(bench("mmap-pread-rand", v)["dev_pages_read"]) for v in vs]),
        ("  random one-byte reads of a sparse\n"
         "    file through MAP_PRIVATE:\n"
         "    pages added",
         [med(bench("random-private", v)["pages_added"]) for v in vs]),
        ("  0b9c0aeba938's method, 1 % of a\n"
         "    file larger than memory, at\n"
         "    random: pages read", method("random")),
        ("    in strides of 2053 pages", method("stride2053")),
    ], 30, (8, 9, 10, 10))


VMSCAL = ("mmap-pread-seq", "mmap-pread-rand", "mmap-pread-seq-mt",
          "mmap-pread-rand-mt", "mmap-xread-seq-mt", "lru-file-mmap-read")


def cover_vmscal():
    """Cover letter: pages read by the vm-scalability-style cases with the
    series against base, from the medians as the tables print them."""
    def pct(w):
        a = round(bench(w, "patched")["dev_pages_read"]["median"])
        b = round(bench(w, "base")["dev_pages_read"]["median"])
        return f"{w} {100 * (a - b) / b:+.2f} %"
    text = ("Pages read with the series against base by the six "
            "vm-scalability-style cases (117 MiB guest; 256 MiB of one file, "
            "lru-file-mmap-read 192 MiB of each of two; 4 threads for the -mt "
            "cases, 4 processes for lru-file-mmap-read; medians of 4 runs): " + ", ".join(pct(w) for w in VMSCAL) + ".")
    return textwrap.fill(text, 72, break_on_hyphens=False)


def cover_stride1021():
    """Cover letter: the method's stride of 1021 pages in the smaller
    guest, over all its runs (make bench and results/bench-method-more)."""
    more = load("bench-method-more.json")
    runs = {v: sorted(r["dev_pages_read"] for r in more["results"]
                      if r["workload"] == "ra-method" and r["phase"] == "stride1021"
                      and r["variant"] == v)
            for v in ("base", "patched")}

    def spread(v):
        xs = runs[v]
        return f"{xs[0]} to {xs[-1]} (median {statistics.median(xs):.0f} of {len(xs)} runs)"
    text = ("0b9c0aeba938's method at a stride of 1021 pages, inside the "
            "read-around window, in the 1.6 GiB guest varies from run to run "
            f"on both kernels: {spread('base')} pages on base, "
            f"{spread('patched')} with the series.")
    return textwrap.fill(text, 72, break_on_hyphens=False)


BLOCKS = {
    "cover-faults": (cover_faults, (COVER,)),
    "cover-costs": (cover_costs, (COVER,)),
    "patch1-repro": (patch1_repro, (PATCH1,)),
    "cover-bench": (cover_bench, (COVER, PATCH1)),
    "cover-gained": (cover_gained, (COVER,)),
    "cover-vmscal": (cover_vmscal, (COVER,)),
    "cover-stride1021": (cover_stride1021, (COVER,)),
}


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
        out = []
        with open(argv[2]) as f:
            for line in f.read().split("\n"):
                name = line[2:-2] if line.startswith("@@") and line.endswith("@@") else None
                if name is None:
                    out.append(line)
                elif name in BLOCKS:
                    out.append(BLOCKS[name][0]())
                else:
                    sys.exit(f"series_numbers.py: no block '{name}' (blocks: {', '.join(BLOCKS)})")
        sys.stdout.write("\n".join(out))
        return 0
    names = argv[1:] or list(BLOCKS)
    for name in names:
        if name not in BLOCKS:
            sys.exit(f"series_numbers.py: no block '{name}' (blocks: {', '.join(BLOCKS)})")
        fn, targets = BLOCKS[name]
        if len(names) > 1:
            print(f"--- {name} ({', '.join('series/' + t for t in targets)})")
        print(fn())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
