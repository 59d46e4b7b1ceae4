#!/usr/bin/env python3
"""Judge and report make stress runs from their guest consoles.

    stress_report.py OUT MODE FLAVOR MEM KERNEL=CONSOLE:RC:SECONDS...

For each kernel: the @@STRESS lines of guest/jobs/stress.sh, its
@@STRESS-TOTAL line, and the reports of the kernel in the console. Writes
OUT.md and OUT.json, prints the table; exits 1 if any run has a problem:
run-guest.sh failed (RC not 0), no total line (the job did not finish), a
workload failed or saw a mismatch, or the kernel printed a report.
"""
import re
import sys
import textwrap

from labreport import first_line, kernel_info, lab_commit, md_table, write_json

# The first lines of the kernel's reports: KASAN ("BUG: KASAN:"), sleeping
# in atomic context, bad page state and the like ("BUG: "), WARN_ON, lockdep
# and suspicious RCU usage ("WARNING: "), BUG_ON, oopses, UBSAN, a page
# dumped by VM_BUG_ON_PAGE/FOLIO, hung tasks, RCU stalls, a panic. Not
# reports: the stack dump after "FAULT_INJECTION: forcing a failure.", a
# "page allocation failure" after an injected one, I/O errors after
# fail_make_request.
REPORT = re.compile(
    r"BUG: |WARNING: |kernel BUG at|Oops|general protection fault|UBSAN: "
    r"|page dumped because|blocked for more than \d+ seconds"
    r"|rcu: INFO: |detected stalls on CPU|Kernel panic")


def reports(text):
    """Each report with where it came: during the boot (before the guest's
    init ran), in the job's setup, or during the workload started last."""
    out, phase = [], "boot"
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("@@LAB-BOOT"):
            phase = "job setup"
        m = re.match(r"@@RUN stress ([\w-]+)", line)
        if m:
            phase = "workload " + m.group(1)
        if "@@STRESS" not in line and REPORT.search(line):
            out.append(f"{n} ({phase}): {line.strip()[:160]}")
    return out


def fields(s):
    return dict(f.split("=", 1) for f in s.split() if "=" in f)


def judge(kernel, console, rc, seconds, flavor):
    text = open(console, errors="replace").read()
    work = [fields(m.group(1)) for m in re.finditer(r"@@STRESS (name=.*)", text)]
    m = re.search(r"@@STRESS-TOTAL (.*)", text)
    total = {k: int(v) for k, v in fields(m.group(1)).items()} if m else None
    boot = re.search(r"@@LAB-BOOT kernel=(\S+)", text)
    reps = reports(text)
    m = re.search(r"@@STRESS-LOCKDEP debug_locks=(\S+)", text)
    lockdep = m.group(1) if m else None
    problems = []
    # After a report the kernel turns lock debugging off for the rest of
    # the run: a debug run must end with it on.
    if flavor and lockdep != "1":
        problems.append(f"lock debugging not on at the end (debug_locks={lockdep})")
    if rc != 0:
        problems.append(f"the guest run failed (run-guest.sh exit {rc})")
    if total is None:
        problems.append("no @@STRESS-TOTAL line: the job did not finish")
    elif total.get("mismatches", 1) or total.get("failed", 1):
        problems.append("the job counts %s mismatches and %s failed workloads"
                        % (total.get("mismatches"), total.get("failed")))
    if not any(w.get("result") == "ok" for w in work):
        problems.append("no workload ran")
    if reps:
        problems.append(f"{len(reps)} kernel report(s):\n    " + "\n    ".join(reps))
    for w in work:
        if w.get("result") not in ("ok", "skip") or w.get("mismatches", "0") != "0":
            problems.append("workload %s: result=%s mismatches=%s %s" % (
                w.get("name"), w.get("result"), w.get("mismatches"),
                w.get("detail", "")))
    info = kernel_info(kernel)
    accel = re.search(r"@@LAB-ACCEL (\S+)(?: cpu=(\S+))?", text)
    levels = re.search(r"page_table_levels=(\d)", text)
    cmdline = re.search(r"Command line: (.*)", text)
    return {"kernel": kernel, "release": boot.group(1) if boot else None,
            "console": console, "seconds": seconds, "workloads": work,
            "total": total, "debug_locks": lockdep, "reports": reps,
            "problems": problems, "commit": info.get("COMMIT", "unknown")[:12],
            "series_patches": info.get("SERIES_PATCHES"),
            "accel": (accel.group(1) + (f" -cpu {accel.group(2)}" if accel.group(2) else "")
                      if accel else "unknown"),
            "page_table_levels": int(levels.group(1)) if levels else None,
            "cmdline": cmdline.group(1).strip() if cmdline else None}


TOTALS = ("workloads", "faults", "injected", "mismatches", "failed")
LOCKDEP = {"1": "on", "0": "off"}


def main():
    out, mode, flavor, mem = sys.argv[1:5]
    recs = []
    for arg in sys.argv[5:]:
        kernel, rest = arg.split("=", 1)
        console, rc, seconds = rest.rsplit(":", 2)
        recs.append(judge(kernel, console, int(rc), int(seconds), flavor))
    meta = {"lab_commit": lab_commit(), "qemu": first_line("qemu-system-x86_64", "--version"),
            "command": f"STRESS_MODE={mode} STRESS_FLAVOR={flavor} make stress",
            "mode": mode, "flavor": flavor or "plain", "guest_memory": mem}
    write_json(out + ".json", dict(meta, runs=recs), end="")
    head = (f"Command: `{meta['command']}`; lab {meta['lab_commit']}; "
            f"{meta['qemu']}, {', '.join(sorted({r['accel'] for r in recs}))}. "
            "Kernels: " + "; ".join(
                f"{r['kernel']} ({r['release']}, tree {r['commit']}, "
                f"{r['series_patches'] or '?'} patches on lab-base, "
                f"{r['page_table_levels'] or '?'}-level paging)" for r in recs)
            + ". Guest command line: `%s`" % (recs[0]["cmdline"] if recs else "")
            + ". The consoles are next to this file.")
    L = [f"# make stress ({mode}, {flavor or 'plain'} kernels, {mem} guest)", "",
         textwrap.fill(head, 100, break_on_hyphens=False), "",
         ] + md_table(["kernel", "workloads", "faults", "injected", "mismatch", "failed",
                       "reports", "lockdep", "s"],
                      [[r["kernel"]] + [(r["total"] or {}).get(k, "-") for k in TOTALS]
                       + [len(r["reports"]), LOCKDEP.get(r["debug_locks"], r["debug_locks"] or "-"),
                          r["seconds"]] for r in recs])
    L += ["", "lockdep: debug_locks at the end of the job (/proc/lockdep_stats).", ""]
    rows = []
    for n in dict.fromkeys(w.get("name") for r in recs for w in r["workloads"]):
        for r in recs:
            w = next((w for w in r["workloads"] if w.get("name") == n), None)
            if w is None or w.get("result") == "skip":
                rows.append([n, r["kernel"]] + ["-"] * 5 + [
                    "missing" if w is None else "skip: " + w.get("detail", "").replace("_", " ")])
            else:
                rows.append([n, r["kernel"]] + [w.get(k) for k in (
                    "faults", "majflt", "pages_checked", "sigbus", "injected", "result")])
    L += md_table(["workload", "kernel", "faults", "major", "checked", "SIGBUS", "injected",
                   "result"], rows)
    probs = [(r["kernel"], p) for r in recs for p in r["problems"]]
    L += ["", "Problems: " + ("none" if not probs else "")]
    L += [f"- {k}: {p}" for k, p in probs]
    open(out + ".md", "w").write("\n".join(L) + "\n")
    print("\n".join(L))
    sys.exit(1 if probs else 0)


if __name__ == "__main__":
    main()
