#!/usr/bin/env python3
"""make bench's report, from the consoles of its boots.

    bench_report.py OUT SCALE COMMAND ELAPSED_S MEM ROOT DISK ROUND=VARIANT=BZIMAGE=CONSOLE...

writes OUT.md, OUT.json and the charts OUT-*.png (with gnuplot), and
prints OUT.md. The consoles are given in the order the kernels booted;
the first VARIANT is the reference. scripts/bench.sh runs it at the end
of make bench, and "bench.sh report ARGS" runs only it (make check tests
it so).
"""
import hashlib, json, os, re, statistics, subprocess, sys, time

if len(sys.argv) < 9:
    sys.exit(__doc__)
out, scale, cmd, elapsed, mem, root, disk = sys.argv[1:8]
runs = [a.split("=", 3) for a in sys.argv[8:]]
variants = []
kernels = {}
accel = set()
boots = []
results = []
for rnd, v, kpath, log in runs:
    if v not in variants:
        variants.append(v)
    text = open(log, errors="replace").read()
    m = re.search(r"@@LAB-ACCEL (\S+)", text)
    accel.add(m.group(1) if m else "?")
    m = re.search(r"@@LAB-BOOT kernel=(\S+) job=(\S+)", text)
    if not m:
        sys.exit(f"{log}: no @@LAB-BOOT line")
    job = m.group(2)
    if v not in kernels:
        h = hashlib.sha256(open(kpath, "rb").read()).hexdigest()[:16]
        kernels[v] = {"uname_r": m.group(1), "bzImage": kpath, "sha256_16": h}
    m = re.search(r"@@BENCH (.*)", text)
    if not m:
        sys.exit(f"{log}: no @@BENCH line")
    bench = dict(re.findall(r"(\w+)=(\S+)", m.group(1)))
    boots.append({"round": int(rnd), "variant": v, "job": job,
                  "console": os.path.relpath(log, os.path.dirname(out)),
                  "read_ahead_kb": int(bench["read_ahead_kb"]), "mem_kb": int(bench["mem_kb"])})
    # each result with the command of the @@RUN line before it
    command = None
    for line in text.splitlines():
        m = re.search(r"@@RUN (.*\S)", line)
        if m:
            command = m.group(1)
            continue
        m = re.search(r"@@RESULT (\{.*\})", line)
        if not m:
            continue
        r = json.loads(m.group(1))
        if r.get("warmup"):
            continue
        r["variant"] = v
        r["round"] = int(rnd)
        r["job"] = job
        r["mem_kb"] = int(bench["mem_kb"])
        r["command"] = command
        results.append(r)

def stat(xs):
    xs = sorted(xs)
    return {"min": xs[0], "median": statistics.median(xs), "max": xs[-1]}

def stats(rs, *keys):
    """min / median / max of each of KEYS over the runs RS"""
    return {k: stat([r[k] for r in rs]) for k in keys}

COUNTS = ("seconds", "major_faults", "dev_pages_read")

def vs_ref(s, ref, key):
    """Median of KEY against the reference kernel's median, in %."""
    a, b = s[key]["median"], ref[key]["median"]
    return round(100.0 * (a - b) / b, 2) if b else None

def one_command(rs, seedless=lambda c: c):
    """The command of a figure: the same for every run once its seed is
    taken out; several (joined with ' ; ') if not."""
    cs = []
    for r in rs:
        c = seedless(r["command"] or "?")
        if c not in cs:
            cs.append(c)
    return " ; ".join(cs)

def group(wl, phase, v, **match):
    return [r for r in results if r["workload"] == wl and r["phase"] == phase
            and r["variant"] == v and all(r.get(k) == x for k, x in match.items())]

CMDS = {"sqlite": "sqlite-scan bench.db {n} SEED", "numpy": "numpy-seq array.u8 {n} SEED"}
PHASE = {"sqlite": "scan", "numpy": "seq"}
summary = []
for wl in ("sqlite", "numpy"):
    ns = sorted({r["n"] for r in results if r["workload"] == wl})
    for n in ns:
        for v in variants:
            rs = group(wl, PHASE[wl], v, n=n)
            if not rs:
                continue
            ctl = [r["seconds"] for r in group(wl, PHASE[wl], v, n=0)]
            s = {"workload": wl, "phase": PHASE[wl], "n": n, "variant": v, "runs": len(rs),
                 "pages": rs[0]["pages"], **stats(rs, *COUNTS),
                 "command": CMDS[wl].format(n=n)}
            if wl == "sqlite":
                s["stuck"] = sum(r["stuck"] for r in rs)
            if ctl:
                s["vs_control"] = round(s["seconds"]["median"] / statistics.median(ctl), 2)
            summary.append(s)

# 0b9c0aeba938's method: per guest size, pattern and kernel; pages read
# against the first kernel's median
mem_of = {}
for r in results:
    if r["workload"] == "ra-method":
        mem_of.setdefault(r["mem_kb"], r["pages"])
method = []
for mkb in sorted(mem_of):
    for pat in ("random", "seq", "stride1021", "stride1024", "stride2053", "stride4099"):
        ref = None
        for v in variants:
            rs = group("ra-method", pat, v, mem_kb=mkb)
            if not rs:
                continue
            s = {"workload": "ra-method", "phase": pat, "variant": v, "runs": len(rs),
                 "mem_kb": mkb, "file_pages": rs[0]["pages"], "touched": rs[0]["touched"],
                 "file_vs_mem": round(rs[0]["pages"] * 4 / mkb, 2),
                 **stats(rs, "dev_pages_per_s", *COUNTS),
                 "command": f"ra-method array.u8 {pat} SEED (read_ahead_kb 8192)"}
            if ref is None:
                ref = s
            elif ref["dev_pages_read"]["median"]:
                s["pages_vs_ref_pct"] = round(vs_ref(s, ref, "dev_pages_read"), 3)
            method.append(s)
summary += method

# The vm-scalability cases (vmscal): per case and kernel, against the
# first kernel's medians. The seed (-s) follows the round.
VMSCAL = ("mmap-pread-seq", "mmap-pread-rand", "mmap-pread-seq-mt", "mmap-pread-rand-mt",
          "mmap-xread-seq-mt", "lru-file-mmap-read")
vms = []
for wl in VMSCAL:
    ref = None
    for v in variants:
        rs = group(wl, "read", v)
        if not rs:
            continue
        s = {"workload": wl, "phase": "read", "variant": v, "runs": len(rs),
             "pages": rs[0]["pages"], "touched": rs[0]["touched"], "tasks": rs[0]["tasks"],
             "mem_kb": rs[0]["mem_kb"], "read_ahead_kb": rs[0]["read_ahead_kb"],
             **stats(rs, "pgpgin_pages", *COUNTS),
             "command": one_command(rs, lambda c: re.sub(r" -s \d+", " -s SEED", c))}
        if ref is None:
            ref = s
        else:
            for k, key in (("pages", "dev_pages_read"), ("faults", "major_faults"),
                           ("seconds", "seconds")):
                s[f"{k}_vs_ref_pct"] = vs_ref(s, ref, key)
            s["faults_vs_ref"] = s["major_faults"]["median"] - ref["major_faults"]["median"]
        vms.append(s)
summary += vms

# The random reader of the report behind 0b9c0aeba938: every run of every
# boot (its "median" record is the boot's own summary, left out here)
rp = []
ref = None
for v in variants:
    rs = [r for r in results if r["workload"] == "random-private" and r["variant"] == v
          and r["phase"].startswith("run")]
    if not rs:
        continue
    s = {"workload": "random-private", "phase": "runs", "variant": v, "runs": len(rs),
         "reads": rs[0]["pages"], "mem_kb": rs[0]["mem_kb"],
         **stats(rs, "seconds", "major_faults", "pages_added", "refaults"),
         "command": one_command(rs)}
    if ref is None:
        ref = s
    else:
        s["pages_vs_ref_pct"] = vs_ref(s, ref, "pages_added")
        s["seconds_vs_ref_pct"] = vs_ref(s, ref, "seconds")
    rp.append(s)
summary += rp

# make sharp's readers that are not sequential (after-random): the
# accesses, and the records' probe
ar = []
for wl in ("adversarial", "every-other", "every-other-warm", "records"):
    for phase in ("access", "probe"):
        ref = None
        for v in variants:
            rs = group(wl, phase, v)
            if not rs:
                continue
            per = "pages_per_access" if phase == "access" else "pages_per_fault"
            s = {"workload": wl, "phase": phase, "variant": v, "runs": len(rs),
                 "touched": rs[0]["pages"],
                 **stats(rs, "resident_pages", per, *COUNTS), "per": per,
                 "command": one_command(rs)}
            if ref is None:
                ref = s
            else:
                s["pages_vs_ref_pct"] = vs_ref(s, ref, "dev_pages_read")
            ar.append(s)
summary += ar

doc = {"command": cmd, "scale": scale, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
       "elapsed_s": int(elapsed), "accel": sorted(accel), "guest_mem": mem,
       "read_ahead_kb": sorted({b["read_ahead_kb"] for b in boots}),
       "root_image": os.path.basename(root), "data_disk": os.path.basename(disk),
       "kernels": kernels, "order": [f'{b["round"]}:{b["variant"]}:{b["job"]}' for b in boots],
       "boots": boots, "summary": summary, "results": results}
with open(out + ".json", "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")

def mmm(d, fmt="{:.2f}"):
    return " / ".join(fmt.format(d[k]) for k in ("min", "median", "max"))

def pct(x):
    return "" if x is None else f"{x:+.2f}"

md = []

def table(title, intro, cols, rows):
    """One section: a title, what it measures, and a table of ROWS with
    COLS (header, function of a row) columns."""
    md.append(f"## {title}\n")
    md.append(intro + "\n")
    md.append("| " + " | ".join(h for h, _ in cols) + " |")
    md.append("|" + "---|" * len(cols))
    for s in rows:
        md.append("| " + " | ".join(str(fn(s)) for _, fn in cols) + " |")
    md.append("")

def cnt(key):
    return lambda s: mmm(s[key], "{:.0f}")

def secs(s):
    return mmm(s["seconds"])

def command(s):
    return f"`{s['command']}`"

sq = [s for s in summary if s["workload"] == "sqlite"]
npy = [s for s in summary if s["workload"] == "numpy"]
md.append(f"# make bench ({scale})\n")
md.append(f"Command: `{cmd}` ({doc['date']}, {int(elapsed) // 60} min {int(elapsed) % 60} s in all).  ")
md.append(f"Accelerator: {', '.join(doc['accel'])}; guest memory {mem}; data disk read_ahead_kb "
          f"{', '.join(map(str, doc['read_ahead_kb']))}; root {doc['root_image']} (Debian 12, "
          f"make-benchroot.sh), data {doc['data_disk']}.  ")
md.append("Kernels: " + "; ".join(f"{v} = {k['uname_r']} ({k['bzImage']}, sha256 {k['sha256_16']})"
                                   for v, k in kernels.items()) + ".  ")
md.append(f"Boot order: {' '.join(b['variant'] for b in boots if b['job'] == 'bench')} (one boot = one run of every case, "
          "each from a cold cache; seeds follow the round, the same for every kernel; the "
          "method's and the vm-scalability boots follow each kernel's bench boot).\n")
if sq:
    pages = sq[0]["pages"]
    sqv = next((r.get("sqlite") for r in results if r.get("sqlite")), "?")
    table(f"SQLite {sqv}: N random lookups, then a full scan",
          f"Database of {pages} pages, `PRAGMA mmap_size` over all of it (python3's sqlite3 "
          "module on Debian's libsqlite3). Scan: `SELECT sum(length(v)), count(*) FROM t`. "
          f"Stuck: more than a quarter of the {pages} pages taken as major faults in the scan. "
          "Figures are min / median / max; vs control is the median scan time over the "
          "same kernel's N=0 median.",
          [("N", lambda s: s["n"]), ("kernel", lambda s: s["variant"]), ("runs", lambda s: s["runs"]),
           ("stuck", lambda s: s["stuck"]), ("scan s", secs),
           ("scan major faults", cnt("major_faults")), ("pages read", cnt("dev_pages_read")),
           ("vs control", lambda s: s.get("vs_control", "")), ("command", command)], sq)
if npy:
    npv = next((r.get("numpy") for r in results if r.get("numpy")), "?")
    table(f"numpy {npv} memmap: N random rows from the first 75 %, then the last 25 % in order",
          f"Array of {npy[0]['pages'] * 4} pages (4 KiB rows), sequential part {npy[0]['pages']} pages, "
          "1 MiB of rows summed at a time. N=0 is the control.",
          [("N", lambda s: s["n"]), ("kernel", lambda s: s["variant"]), ("runs", lambda s: s["runs"]),
           ("seq s", secs), ("seq major faults", cnt("major_faults")),
           ("pages read", cnt("dev_pages_read")), ("vs control", lambda s: s.get("vs_control", "")),
           ("command", command)], npy)
if vms:
    # each kernel's own: the Fixes-experiment kernels' would hide the series'
    worst = []
    for v in variants[1:]:
        mine = [s for s in vms if s["variant"] == v]
        if not mine:
            continue
        wp = max(mine, key=lambda s: s["pages_vs_ref_pct"] or 0)
        ws = max(mine, key=lambda s: s["seconds_vs_ref_pct"] or 0)
        worst.append(f"{v}: pages read {pct(wp['pages_vs_ref_pct'])} % ({wp['workload']}), "
                     f"time {pct(ws['seconds_vs_ref_pct'])} % ({ws['workload']})")
    worst = f" Largest median above {variants[0]}, per kernel: {'; '.join(worst)}." if worst else ""
    table("vm-scalability's mmap read cases, scaled down",
          "The cases the kernel test robot reports on for readahead changes, written by us from "
          "their description (workloads/vmscal.c): one byte read per page through a shared "
          f"mapping from a cold cache, read_ahead_kb {vms[0]['read_ahead_kb']}, "
          f"in a {vms[0]['mem_kb'] // 1024} MiB guest (MemTotal), smaller than the files: "
          "mmap-pread-seq reads array.u8 in order, -rand a quarter of its pages at random, the "
          "-mt forms with threads on one mapping each on its own part, mmap-xread-seq-mt with "
          "threads all reading the whole of it, lru-file-mmap-read with processes each on its "
          "own open of its own part of array.u8 or bench.db. Major faults: pgmajfault of the "
          "guest; pages read: the data disk's sectors read. vs ref: median against the "
          f"{variants[0]} median, % (faults: the difference, then %; goal: within 5 %, none worse beyond noise; time is noisy "
          "here, the counts are not)." + worst,
          [("case", lambda s: s["workload"]), ("kernel", lambda s: s["variant"]),
           ("runs", lambda s: s["runs"]), ("pages (touched)", lambda s: f"{s['pages']} ({s['touched']})"),
           ("s", secs), ("major faults", cnt("major_faults")), ("pages read", cnt("dev_pages_read")),
           ("pages vs ref %", lambda s: pct(s.get("pages_vs_ref_pct"))),
           ("faults vs ref", lambda s: "" if "faults_vs_ref" not in s else
            f"{s['faults_vs_ref']:+g} ({pct(s['faults_vs_ref_pct'])} %)"),
           ("s vs ref %", lambda s: pct(s.get("seconds_vs_ref_pct"))), ("command", command)], vms)
if rp:
    table("The random reader of the report behind 0b9c0aeba938, scaled down",
          f"{rp[0]['reads']} random one-byte reads through MAP_PRIVATE of a sparse file after "
          f"dropping its cache (workloads/random-private.c), in a {rp[0]['mem_kb'] // 1024} MiB "
          "guest (the report: 512 Ki reads, 4 GiB file, 2 GiB guest). A sparse file reads "
          "nothing from the disk: pages added to the page cache (nr_file_pages growth plus "
          "pgsteal_file) are the pages read. Every run of every boot; vs ref: median against "
          f"the {variants[0]} median, %.",
          [("kernel", lambda s: s["variant"]), ("runs", lambda s: s["runs"]), ("s", secs),
           ("major faults", cnt("major_faults")), ("pages added", cnt("pages_added")),
           ("refaults", cnt("refaults")),
           ("pages vs ref %", lambda s: pct(s.get("pages_vs_ref_pct"))),
           ("s vs ref %", lambda s: pct(s.get("seconds_vs_ref_pct"))), ("command", command)], rp)
if ar:
    table("Readers that are not sequential, after 300 random faults",
          "workloads/after-random.c in the first 256 MiB of array.u8 (make sharp's geometry "
          "scaled down), in the bench boot: adversarial (every third page cached by "
          "WILLNEED, accesses just after one), every other page in order (warm: the page "
          "before the region cached), records of 16 KiB at random and the records' probe (50 "
          "isolated faults in a cold region afterwards: 1 page each while readahead stays "
          "off). Per: pages read per access (per probe fault); vs ref: pages read, median "
          f"against the {variants[0]} median, %.",
          [("case", lambda s: f"{s['workload']} ({s['phase']})"), ("kernel", lambda s: s["variant"]),
           ("runs", lambda s: s["runs"]), ("touched", lambda s: s["touched"]),
           ("pages read", cnt("dev_pages_read")), ("per", lambda s: mmm(s[s["per"]])),
           ("resident", cnt("resident_pages")), ("major faults", cnt("major_faults")), ("s", secs),
           ("pages vs ref %", lambda s: pct(s.get("pages_vs_ref_pct"))), ("command", command)], ar)
if method:
    table("The method of 0b9c0aeba938's changelog",
          f"1 % of a {method[0]['file_pages'] * 4 // 1024} MiB file (array.u8) touched through a "
          "shared mapping from a cold cache, read_ahead_kb 8192, in a guest smaller than the "
          "file and one larger (upstream: 20 GiB and 4 GiB files in an 8 GiB guest). "
          "Pages read from the device: min / median / max; vs ref: median against the "
          f"{variants[0]} median (goal: within 0.1 %).",
          [("file / guest memory", lambda s: f"{s['file_vs_mem']} ({s['mem_kb'] // 1024} MiB guest)"),
           ("pattern", lambda s: s["phase"]), ("kernel", lambda s: s["variant"]),
           ("runs", lambda s: s["runs"]), ("pages read", cnt("dev_pages_read")),
           ("vs ref %", lambda s: s.get("pages_vs_ref_pct", "")),
           ("pages/s (median)", lambda s: f"{s['dev_pages_per_s']['median']:.0f}"), ("s", secs),
           ("major faults", cnt("major_faults")), ("command", command)], method)
charts = []
# charts: median with min..max bars, one cluster per case, one bar per kernel
def chart(rows, title, png, ylabel, key, logy=False, case=lambda s: f"N={s['n']}"):
    dat = png[:-4] + ".dat"
    with open(dat, "w") as f:
        f.write("# case " + " ".join(f"{v}_med {v}_min {v}_max" for v in variants) + "\n")
        cases = []
        for s in rows:
            if case(s) not in cases:
                cases.append(case(s))
        for c in cases:
            vals = []
            for v in variants:
                s = next((s for s in rows if case(s) == c and s["variant"] == v), None)
                d = s[key] if s else {"median": "NaN", "min": "NaN", "max": "NaN"}
                vals += [str(d["median"]), str(d["min"]), str(d["max"])]
            f.write(f"{c} " + " ".join(vals) + "\n")
    plots = ", ".join(
        f"'{dat}' using {3 * i + 2}:{3 * i + 3}:{3 * i + 4}:xtic(1) title '{v}'"
        for i, v in enumerate(variants))
    gp = (f"set terminal pngcairo size 900,480 font 'sans,10'; set output '{png}';"
          f"set title \"{title}\"; set ylabel '{ylabel}'; set key top left;"
          "set style data histograms; set style histogram errorbars gap 2 lw 1;"
          "set style fill solid 0.6 border -1; set yrange [0:*];"
          + ("set logscale y; set yrange [1:*];" if logy else "")
          + f"plot {plots}")
    subprocess.run(["gnuplot", "-e", gp], check=True)
    os.unlink(dat)
    charts.append(os.path.basename(png))
if sq:
    chart(sq, f"SQLite full scan after N random lookups ({scale}; median, min..max)",
          out + "-sqlite.png", "scan seconds", "seconds")
    chart(sq, f"SQLite full scan: major faults ({scale}; log scale)",
          out + "-sqlite-faults.png", "scan major faults", "major_faults", logy=True)
if npy:
    chart(npy, f"numpy.memmap sequential part after N random rows ({scale})",
          out + "-numpy.png", "seconds", "seconds")
if vms:
    short = lambda s: s["workload"][5:] if s["workload"].startswith("mmap-") else s["workload"]
    chart(vms, f"vm-scalability mmap read cases ({scale}; median, min..max)",
          out + "-vmscal.png", "seconds", "seconds", case=short)
    chart(vms, f"vm-scalability mmap read cases: pages read ({scale})",
          out + "-vmscal-pages.png", "pages read from the disk", "dev_pages_read", case=short)
md.append("Charts: " + ", ".join(f"[{c}]({c})" for c in charts) + ".\n")
md.append(f"Raw results and every run: {os.path.basename(out)}.json; consoles: {os.path.basename(out)}/.")
with open(out + ".md", "w") as f:
    f.write("\n".join(md) + "\n")
print("\n".join(md))
