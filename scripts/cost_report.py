#!/usr/bin/env python3
"""make cost's report: guest instructions per fault and per access, from the
consoles of guest/jobs/cost.sh booted with -icount shift=0,sleep=off, where
a task's CPU nanoseconds are the guest instructions run for it
(docs/cost.md).

  cost_report.py all [--prov TEXT] [--command CMD] [--seconds S] PREFIX \\
      KERNEL=CONSOLE[,CONSOLE...] ...
      -> PREFIX.md (tables of at most 100 columns) and PREFIX.json (every run)
  cost_report.py check --bound B [...] PREFIX REF=CONSOLES KERNEL=CONSOLES
      the plain random reader (random-private): prints both kernels' CPU ns
      per read, every run and boot, and exits 1 when KERNEL/REF > B

A CONSOLE per boot; the first KERNEL is the reference. A kernel's value for
a case is the median over all its runs (of all its boots); the spread is
(max - min) / median, over the runs, and over the boots' own medians.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labreport import ParseError, lab_commit, md_table, read_console, write_json  # noqa: E402

WIDTH = 100
CHECK_CASE = "random-private"


def load(spec):
    """KERNEL=C1,C2 -> (kernel, [boot, ...]); a boot: {case: [run, ...]},
    with the console's meta and the @@RUN commands"""
    kernel, paths = spec.split("=", 1)
    boots = []
    for path in paths.split(","):
        records, meta = read_console(path)
        if "icount=" not in meta["text"].split("\n", 1)[0]:
            raise ParseError("%s: not booted with -icount (its @@LAB-ACCEL line)" % path)
        cases, commands = {}, {}
        warmups = {}
        for _, command, rec in records:
            if "cpu_ns" not in rec:
                continue
            if rec["phase"].startswith("warmup"):
                warmups.setdefault(rec["workload"], []).append(rec)
                continue
            cases.setdefault(rec["workload"], []).append(rec)
            commands[rec["workload"]] = command
        if not cases:
            raise ParseError("%s: no cost result" % path)
        accel = meta["text"].split("\n", 1)[0].replace("@@LAB-ACCEL ", "").strip()
        boots.append({"console": path, "kernel": meta.get("kernel"), "accel": accel,
                      "cases": cases, "warmups": warmups, "commands": commands})
    return kernel, boots


def per(run, what):
    d = run["faults"] if what == "fault" else run["accesses"]
    return run["cpu_ns"] / d if d else None


def spread(values):
    values = [v for v in values if v is not None]
    if len(values) < 2:
        return 0.0
    m = statistics.median(values)
    return (max(values) - min(values)) / m if m else None


def summary(boots, case):
    """The case's numbers on one kernel, over all its boots' runs"""
    runs = [r for b in boots for r in b["cases"].get(case, [])]
    if not runs:
        return None
    out = {"runs": len(runs), "boots": len(boots)}
    for what in ("fault", "access"):
        vals = [per(r, what) for r in runs]
        vals = [v for v in vals if v is not None]
        out["ins_per_" + what] = statistics.median(vals) if vals else None
        out["spread_runs_" + what] = spread(vals)
        out["spread_boots_" + what] = spread([
            statistics.median([per(r, what) for r in b["cases"][case] if per(r, what)])
            for b in boots if b["cases"].get(case)])
    for k in ("faults", "major_faults", "accesses", "cpu_ns", "wall_ns", "pages_added"):
        out[k] = statistics.median(r[k] for r in runs)
    # the two clocks are read one after the other: a few ns either way
    out["sleep_share"] = max(0.0, statistics.median(
        (r["wall_ns"] - r["cpu_ns"]) / r["wall_ns"] for r in runs if r["wall_ns"]))
    return out


def n(v):
    return "-" if v is None else "{:,.0f}".format(v)


def ratio(a, b):
    return "-" if a is None or not b else "%.3f" % (a / b)


def pct(v):
    return "-" if v is None else "%.2f%%" % (100 * v)


def tables(caption, head0, rows0, groups):
    """one table per group of kernels, each at most WIDTH columns: the
    first columns (head0, rows0), then the group's"""
    out = []
    for head, rows in groups:
        lines = md_table(head0 + head, [a + b for a, b in zip(rows0, rows)])
        out += ["", caption, ""] + lines
        if max(len(line) for line in lines) > WIDTH:
            raise SystemExit("cost_report: a table is wider than %d columns" % WIDTH)
    return out


def chunks(others, size):
    return [others[i:i + size] for i in range(0, len(others), size)] or [[]]


def report_all(a):
    kernels = [load(s) for s in a.kernels]
    ref = kernels[0][0]
    cases = []
    for _, boots in kernels:
        for b in boots:
            cases += [c for c in b["cases"] if c not in cases]
    data = {c: {k: summary(boots, c) for k, boots in kernels} for c in cases}
    commands = {}
    for _, boots in kernels:
        for b in boots:
            commands.update(b["commands"])

    md = ["# make cost: guest instructions per fault, %s against the others" % ref, "",
          "Made by `%s` on %s. Each kernel -O2 (config/cost.config), booted under "
          "QEMU TCG with `-icount shift=0,sleep=off -smp 1 -cpu max`: a task's CPU "
          "nanoseconds are the guest instructions run for it, in user space and in the "
          "kernel for it, not kswapd's or other tasks' (docs/cost.md). Every case on "
          "sparse files (no device reads), %s, after a warm-up run that is not "
          "counted; the value is the median of a kernel's runs, its spread (max - min) / median."
          % (a.command, a.prov or "lab " + lab_commit(),
             ", ".join("%s: %d boot(s) of %d run(s)" % (k, len(b), len(b[0]["cases"][cases[0]]))
                       for k, b in kernels))]
    others = [k for k, _ in kernels[1:]]
    for what, title in (("fault", "Instructions per fault (major and minor)"),
                        ("access", "Instructions per access (a one-byte read of a page)")):
        rows0 = [[c] for c in cases]
        groups = []
        for grp in chunks(others, 3):
            head = [ref]
            rows = [[n(data[c][ref] and data[c][ref]["ins_per_" + what])] for c in cases]
            for k in grp:
                head += [k, "%s/%s" % (k, ref)]
                for i, c in enumerate(cases):
                    b, o = data[c][ref], data[c][k]
                    rows[i] += [n(o and o["ins_per_" + what]),
                                ratio(o and o["ins_per_" + what], b and b["ins_per_" + what])]
            groups.append((head, rows))
        md += tables("%s, median of the runs:" % title, ["case"], rows0, groups)
    # faults, and how far the runs spread
    rows0 = [[c, n(data[c][ref] and data[c][ref]["accesses"])] for c in cases]
    groups = []
    for grp in chunks([ref] + others, 4):
        head, rows = [], [[] for _ in cases]
        for k in grp:
            head += ["faults " + k, "spread"]
            for i, c in enumerate(cases):
                o = data[c][k]
                rows[i] += [n(o and o["faults"]), pct(o and o["spread_runs_fault"])]
        groups.append((head, rows))
    md += tables("Faults a run (median) and the spread of instructions per fault over "
                 "the runs:", ["case", "accesses"], rows0, groups)
    boots_n = max(len(b) for _, b in kernels)
    if boots_n > 1:
        rows0 = [[c] for c in cases]
        head = [k for k, _ in kernels]
        rows = [[pct(data[c][k] and data[c][k]["spread_boots_fault"]) for k in head]
                for c in cases]
        md += tables("Spread between the boots' medians (instructions per fault):",
                     ["case"], rows0, [(head, rows)])
    md += ["", "Guest wall time not spent on the task's CPU (sleeping, or other tasks, "
           "kswapd among them), median share of a run's wall time:", ""]
    md += md_table(["case"] + [k for k, _ in kernels],
                   [[c] + [pct(data[c][k] and data[c][k]["sleep_share"]) for k, _ in kernels]
                    for c in cases])
    md += ["", "## Cases", ""]
    md += ["- %s: `%s`" % (c, commands.get(c, "?")) for c in cases]
    md += ["", "## Kernels", ""]
    for k, boots in kernels:
        md.append("- %s: %s, %s" % (k, boots[0]["kernel"], boots[0]["accel"]))
    if a.seconds:
        md += ["", "Time: %s s for the %d boots (LAB_GUESTS at a time), %s s in all (with the "
               "builds, the initramfs, the disk and any wait for the lab's lock)."
               % (a.boot_seconds or "?", sum(len(b) for _, b in kernels), a.seconds)]
    for line in md:
        if line.startswith("|") and len(line) > WIDTH:
            raise SystemExit("cost_report: a table line is wider than %d columns" % WIDTH)
    with open(a.prefix + ".md", "w") as f:
        f.write("\n".join(md) + "\n")
    write_json(a.prefix + ".json", {
        "command": a.command, "provenance": a.prov, "lab_commit": lab_commit(),
        "reference": ref, "metric": "cpu_ns of the task = guest instructions (-icount shift=0)",
        "cases": {c: {k: data[c][k] for k, _ in kernels} for c in cases},
        "commands": commands,
        "boots": {k: [{"console": os.path.relpath(b["console"], os.path.dirname(a.prefix)),
                       "kernel": b["kernel"], "accel": b["accel"], "runs": b["cases"],
                       "warmups": b["warmups"]}
                      for b in boots] for k, boots in kernels}})
    print("\n".join(md))


def report_check(a):
    if len(a.kernels) != 2:
        raise SystemExit("cost_report check: a reference and one kernel")
    kernels = [load(s) for s in a.kernels]
    lines = ["cost check (%s): %s, CPU ns (= guest instructions) per read, %s"
             % (a.command, CHECK_CASE, a.prov or "lab " + lab_commit())]
    vals = {}
    for k, boots in kernels:
        s = summary(boots, CHECK_CASE)
        if s is None:
            raise SystemExit("cost check: no %s result for %s" % (CHECK_CASE, k))
        vals[k] = s
        per_boot = ["boot %d: %s" % (i + 1, " ".join(n(per(r, "access"))
                                                       for r in b["cases"][CHECK_CASE]))
                    for i, b in enumerate(boots)]
        lines.append("  %s: median %s per read, %s per fault (%s faults); %s; spread %s "
                     "over the runs, %s between the boots"
                     % (k, n(s["ins_per_access"]), n(s["ins_per_fault"]), n(s["faults"]),
                        "; ".join(per_boot), pct(s["spread_runs_access"]),
                        pct(s["spread_boots_access"])))
    (ref, _), (k, _) = kernels
    r = vals[k]["ins_per_access"] / vals[ref]["ins_per_access"]
    ok = r <= a.bound
    lines.append("  %s/%s = %.4f: %s (bound %.3f)" % (k, ref, r, "ok" if ok else "FAIL", a.bound))
    print("\n".join(lines))
    with open(a.prefix + ".txt", "w") as f:
        f.write("\n".join(lines) + "\n")
    write_json(a.prefix + ".json", {"command": a.command, "provenance": a.prov,
                                    "case": CHECK_CASE, "bound": a.bound, "ratio": r,
                                    "pass": ok, "kernels": vals})
    return 0 if ok else 1


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("what", choices=("all", "check"))
    p.add_argument("--bound", type=float, default=1.02)
    p.add_argument("--prov", default="")
    p.add_argument("--command", default="scripts/cost_report.py")
    p.add_argument("--seconds", default="")
    p.add_argument("--boot-seconds", default="")
    p.add_argument("prefix")
    p.add_argument("kernels", nargs="+")
    a = p.parse_args(argv[1:])
    try:
        if a.what == "check":
            return report_check(a)
        report_all(a)
    except ParseError as e:
        raise SystemExit("cost_report: %s" % e)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
