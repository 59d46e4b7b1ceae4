#!/usr/bin/env python3
"""thp_random_report.py OUT.md KERNEL=CONSOLE...: the thp-random runs of
each kernel (one console a boot), as KiB read per access: the median and
every run, by shape, with or without hits, plain or in a memory cgroup.
Writes OUT.md and OUT.json (the same numbers, every run)."""
import json
import re
import statistics
import sys

out, runs = sys.argv[1], {}
kernels = []
for arg in sys.argv[2:]:
    k, path = arg.split("=", 1)
    if k not in kernels:
        kernels.append(k)
    for line in open(path, errors="replace"):
        m = re.search(r"@@RESULT (\{.*\})", line)
        if not m:
            continue
        r = json.loads(m.group(1))
        if r.get("workload") != "thp-random":
            continue
        key = (r["phase"], r["with_hits"] + ("/%d" % r["pages"]),
               r.get("cgroup", "none") + ("" if r.get("mmap_miss", "over") == "over" else " under"))
        runs.setdefault(key, {}).setdefault(k, []).append(r["kib_per_access"])

ref = kernels[0]
lines = ["# Random MADV_HUGEPAGE readers, mmap_miss over the limit", "",
         "KiB read from the device per access, median of the runs; %% "
         "against %s.  hits: whether every other access goes to a cached "
         "range / accesses a run; memcg: the cgroup's memory.max; under: "
         "mmap_miss left under the limit." % ref, "",
         "%-8s %-7s %-10s " % ("shape", "hits", "memcg") +
         "".join("%18s" % k for k in kernels)]
for key in sorted(runs):
    cells = []
    base = statistics.median(runs[key].get(ref, [0])) or None
    for k in kernels:
        v = runs[key].get(k)
        if not v:
            cells.append("%18s" % "-")
            continue
        med = statistics.median(v)
        pct = "" if k == ref or not base else " (%+.0f%%)" % (100 * (med / base - 1))
        cells.append("%18s" % ("%.1f%s" % (med, pct)))
    lines.append("%-8s %-7s %-10s " % key + "".join(cells))
lines += ["", "Every run (KiB per access):", ""]
for key in sorted(runs):
    lines.append("%-8s %-7s %-10s " % key + "  ".join(
        "%s: %s" % (k, " ".join("%.1f" % x for x in runs[key].get(k, [])))
        for k in kernels))
text = "\n".join(lines) + "\n"
open(out, "w").write(text)
json.dump([{"shape": s, "with_hits": h, "cgroup": c, "kernel": k,
            "kib_per_access": v}
           for (s, h, c), byk in sorted(runs.items()) for k, v in byk.items()],
          open(out[:-3] + ".json", "w"), indent=1)
print(text)
