#!/usr/bin/env python3
"""thp_random_report.py OUT.md KERNEL=CONSOLE...: the thp-random runs of
each kernel (one console a boot), as KiB read per access: the median and
every run, by shape, with or without hits, plain or in a memory cgroup.
Writes OUT.md and OUT.json (the same numbers, every run)."""
import statistics
import sys
import textwrap

from labreport import first_line, lab_commit, read_console, write_json

out, runs = sys.argv[1], {}
kernels, uname, accel = [], {}, set()
for arg in sys.argv[2:]:
    k, path = arg.split("=", 1)
    if k not in kernels:
        kernels.append(k)
    recs, meta = read_console(path)
    if "kernel" in meta:
        uname[k] = meta["kernel"]
    if "accel" in meta:
        accel.add(meta["accel"])
    for _, _, r in recs:
        if r.get("workload") != "thp-random":
            continue
        key = (r["phase"], r["with_hits"] + ("/%d" % r["pages"]),
               r.get("cgroup", "none")
               + ("" if r.get("mmap_miss", "over") == "over" else " under")
               + (" small" if r.get("cache") == "small" else "")
               + ("" if r.get("read_ahead_kb", 8192) == 8192 else " ra128"))
        runs.setdefault(key, {}).setdefault(k, []).append(r["kib_per_access"])

ref = kernels[0]
meta = {"lab_commit": lab_commit("?"),
        "kernels": {k: uname.get(k, "?") for k in kernels},
        "qemu": first_line("qemu-system-x86_64", "--version", default="?"),
        "accel": ",".join(sorted(accel)) or "?",
        "guest": "1 GiB, 2 vCPUs, check disk (ext4), thp.bin 512 MiB",
        "command": "scripts/thp-random.sh " + " ".join(kernels)}
wrap = lambda t: textwrap.fill(t, 76)
lines = ["# Random MADV_HUGEPAGE readers, mmap_miss over the limit", "",
         wrap("Lab %(lab_commit)s; %(qemu)s, %(accel)s; guest %(guest)s." % meta),
         wrap("Kernels: " + ", ".join("%s %s" % kv for kv in meta["kernels"].items())
              + ".  Command: %s." % meta["command"]), "",
         wrap("KiB read from the device per access, median of the runs; %% "
              "against %s.  hits: whether every other access goes to a "
              "cached range / accesses a run; memcg: the cgroup's "
              "memory.max; under: mmap_miss left under the limit; small: "
              "the file cached in small folios, read without MADV_HUGEPAGE; "
              "ra128: read_ahead_kb 128 (else 8192)." % ref), "",
         "%-8s %-7s %-17s " % ("shape", "hits", "memcg") +
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
    lines.append("%-8s %-7s %-17s " % key + "".join(cells))
lines += ["", "Every run (KiB per access):", ""]
for key in sorted(runs):
    lines.append("%-8s %-7s %-17s" % key)
    for k in kernels:
        lines.append("    %-6s %s" % (k, " ".join("%.1f" % x for x in runs[key].get(k, []))))
text = "\n".join(lines) + "\n"
open(out, "w").write(text)
write_json(out[:-3] + ".json", {"meta": meta, "runs": [
    {"shape": s, "hits": h, "cgroup": c, "kernel": k, "kib_per_access": v}
    for (s, h, c), byk in sorted(runs.items()) for k, v in byk.items()]}, end="")
print(text)
