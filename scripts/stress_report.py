#!/usr/bin/env python3
"""Judge and report make stress runs from their guest consoles.

    stress_report.py OUT MODE FLAVOR MEM KERNEL=CONSOLE:RC:SECONDS...

For each kernel: the @@STRESS lines of guest/jobs/stress.sh, its
@@STRESS-TOTAL line, and the reports of the kernel in the console. Writes
OUT.md and OUT.json, prints the table; exits 1 if any run has a problem:
run-guest.sh failed (RC not 0), no total line (the job did not finish), a
workload failed or saw a mismatch, or the kernel printed a report.
"""
import json
import re
import sys

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
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if "@@STRESS" not in line and REPORT.search(line):
            out.append(f"{n}: {line.strip()[:200]}")
    return out


def fields(s):
    return dict(f.split("=", 1) for f in s.split() if "=" in f)


def judge(kernel, console, rc, seconds):
    text = open(console, errors="replace").read()
    work = [fields(m.group(1)) for m in re.finditer(r"@@STRESS (name=.*)", text)]
    m = re.search(r"@@STRESS-TOTAL (.*)", text)
    total = {k: int(v) for k, v in fields(m.group(1)).items()} if m else None
    boot = re.search(r"@@LAB-BOOT kernel=(\S+)", text)
    reps = reports(text)
    problems = []
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
    return {"kernel": kernel, "release": boot.group(1) if boot else None,
            "console": console, "seconds": seconds, "workloads": work,
            "total": total, "reports": reps, "problems": problems}


def main():
    out, mode, flavor, mem = sys.argv[1:5]
    recs = []
    for arg in sys.argv[5:]:
        kernel, rest = arg.split("=", 1)
        console, rc, seconds = rest.rsplit(":", 2)
        recs.append(judge(kernel, console, int(rc), int(seconds)))
    json.dump({"mode": mode, "flavor": flavor or "plain", "guest_memory": mem,
               "runs": recs}, open(out + ".json", "w"), indent=1)
    names = []
    for r in recs:
        for w in r["workloads"]:
            if w.get("name") not in names:
                names.append(w.get("name"))
    L = [f"# make stress ({mode}, {flavor or 'plain'} kernels, {mem} guest)", "",
         "Command: `STRESS_MODE=%s STRESS_FLAVOR=%s make stress`; the consoles"
         " are next to this file." % (mode, flavor), "",
         "| kernel | release | workloads | faults | injected | mismatches | failed | reports | seconds |",
         "|---|---|---|---|---|---|---|---|---|"]
    for r in recs:
        t = r["total"] or {}
        L.append("| %s | %s | %s | %s | %s | %s | %s | %d | %d |" % (
            r["kernel"], r["release"], t.get("workloads", "-"),
            t.get("faults", "-"), t.get("injected", "-"),
            t.get("mismatches", "-"), t.get("failed", "-"),
            len(r["reports"]), r["seconds"]))
    L += ["", "Per workload: faults / major faults / pages checked / SIGBUS /"
          " injected failures; result.", "",
          "| workload | " + " | ".join(r["kernel"] for r in recs) + " |",
          "|---|" + "---|" * len(recs)]
    for n in names:
        cells = []
        for r in recs:
            w = next((w for w in r["workloads"] if w.get("name") == n), None)
            if w is None:
                cells.append("-")
            elif w.get("result") == "skip":
                cells.append("skip: " + w.get("detail", "").replace("_", " "))
            else:
                cells.append("%s / %s / %s / %s / %s; %s" % (
                    w.get("faults"), w.get("majflt"), w.get("pages_checked"),
                    w.get("sigbus"), w.get("injected"), w.get("result")))
        L.append(f"| {n} | " + " | ".join(cells) + " |")
    probs = [(r["kernel"], p) for r in recs for p in r["problems"]]
    L += ["", "Problems: " + ("none" if not probs else "")]
    L += [f"- {k}: {p}" for k, p in probs]
    open(out + ".md", "w").write("\n".join(L) + "\n")
    print("\n".join(L))
    sys.exit(1 if probs else 0)


if __name__ == "__main__":
    main()
