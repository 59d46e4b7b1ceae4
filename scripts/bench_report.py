#!/usr/bin/env python3
"""make bench's report, from the consoles of its boots.

    bench_report.py OUT SCALE COMMAND ELAPSED_S MEM ROOT DISK ROUND=VARIANT=BZIMAGE=CONSOLE...
    bench_report.py --again OUT

writes OUT.md, OUT.json and the charts OUT-*.png (with gnuplot), and
prints OUT.md. The consoles are given in the order the kernels booted;
the first VARIANT is the reference. scripts/bench.sh runs it at the end
of make bench, and "bench.sh report ARGS" runs only it (make check tests
it so). The lab commit is git's HEAD, or MMLAB_LAB_COMMIT. --again remakes
OUT from the consoles OUT.json names, with its command, date, kernels and
lab commit.
"""
import hashlib, json, os, re, statistics, subprocess, sys, tempfile, time

from labreport import lab_commit, md_table, read_console, write_json

if sys.argv[1:2] == ["--again"] and len(sys.argv) == 3:
    out = sys.argv[2]
    old = json.load(open(out + ".json"))
    cmd, scale, elapsed, mem, date, kernels = (old[k] for k in (
        "command", "scale", "elapsed_s", "guest_mem", "date", "kernels"))
    root, disk = old["root_image"], old["data_disk"]
    runs = [(b["round"], b["variant"], None, os.path.join(os.path.dirname(out), b["console"]))
            for b in old["boots"]]
    lab = os.environ.get("MMLAB_LAB_COMMIT") or old.get("lab_commit") or "not recorded"
    guests = old.get("guests_at_once", 1)
elif len(sys.argv) >= 9:
    out, scale, cmd, elapsed, mem, root, disk = sys.argv[1:8]
    runs = [a.split("=", 3) for a in sys.argv[8:]]
    date, kernels = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), {}
    lab = lab_commit()
    guests = int(os.environ.get("LAB_GUESTS", "1"))
else:
    sys.exit(__doc__)
variants = []
accel = set()
boots = []
results = []
for rnd, v, kpath, log in runs:
    if v not in variants:
        variants.append(v)
    recs, meta = read_console(log)
    accel.add(meta.get("accel", "?"))
    job = meta.get("job")
    if not job:
        sys.exit(f"{log}: no @@LAB-BOOT line")
    if v not in kernels:
        h = hashlib.sha256(open(kpath, "rb").read()).hexdigest()[:16]
        kernels[v] = {"uname_r": meta["kernel"], "bzImage": kpath, "sha256_16": h}
    m = re.search(r"@@BENCH (.*)", meta["text"])
    if not m:
        sys.exit(f"{log}: no @@BENCH line")
    bench = dict(re.findall(r"(\w+)=(\S+)", m.group(1)))
    boots.append({"round": int(rnd), "variant": v, "job": job,
                  "console": os.path.relpath(log, os.path.dirname(out)),
                  "read_ahead_kb": int(bench["read_ahead_kb"]), "mem_kb": int(bench["mem_kb"])})
    # each result with the command of the @@RUN line before it
    for _, command, r in recs:
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
def per_kernel(rows_of, summary, against):
    """summary(v, rs) of each kernel v's runs rs = rows_of(v), and after the
    first kernel's (ref), what against(s, ref) adds"""
    out = []
    for v in variants:
        rs = rows_of(v)
        if rs:
            s = summary(v, rs)
            s.update(against(s, out[0]) if out else {})
            out.append(s)
    return out

method = []
for mkb in sorted(mem_of):
    for pat in ("random", "seq", "stride1021", "stride1024", "stride2053", "stride4099"):
        method += per_kernel(lambda v: group("ra-method", pat, v, mem_kb=mkb), lambda v, rs: {
            "workload": "ra-method", "phase": pat, "variant": v, "runs": len(rs),
            "mem_kb": mkb, "file_pages": rs[0]["pages"], "touched": rs[0]["touched"],
            "file_vs_mem": round(rs[0]["pages"] * 4 / mkb, 2),
            **stats(rs, "dev_pages_per_s", *COUNTS),
            "command": f"ra-method array.u8 {pat} SEED (read_ahead_kb 8192)"},
            lambda s, ref: {"pages_vs_ref_pct": round(vs_ref(s, ref, "dev_pages_read"), 3)}
            if ref["dev_pages_read"]["median"] else {})
summary += method

# The vm-scalability cases (vmscal): per case and kernel, against the
# first kernel's medians. The seed (-s) follows the round.
VMSCAL = ("mmap-pread-seq", "mmap-pread-rand", "mmap-pread-seq-mt", "mmap-pread-rand-mt",
          "mmap-xread-seq-mt", "lru-file-mmap-read")
vms = []
for wl in VMSCAL:
    vms += per_kernel(lambda v: group(wl, "read", v), lambda v, rs: {
        "workload": wl, "phase": "read", "variant": v, "runs": len(rs),
        "pages": rs[0]["pages"], "touched": rs[0]["touched"], "tasks": rs[0]["tasks"],
        "mem_kb": rs[0]["mem_kb"], "read_ahead_kb": rs[0]["read_ahead_kb"],
        **stats(rs, "pgpgin_pages", *COUNTS),
        "command": one_command(rs, lambda c: re.sub(r" -s \d+", " -s SEED", c))},
        lambda s, ref: dict({f"{k}_vs_ref_pct": vs_ref(s, ref, key) for k, key in (
            ("pages", "dev_pages_read"), ("faults", "major_faults"), ("seconds", "seconds"))},
            faults_vs_ref=s["major_faults"]["median"] - ref["major_faults"]["median"]))
summary += vms

# The random reader of the report behind 0b9c0aeba938: every run of every
# boot (its "median" record is the boot's own summary, left out here)
rp = per_kernel(lambda v: [r for r in results if r["workload"] == "random-private"
                           and r["variant"] == v and r["phase"].startswith("run")],
                lambda v, rs: {"workload": "random-private", "phase": "runs", "variant": v,
                               "runs": len(rs), "reads": rs[0]["pages"], "mem_kb": rs[0]["mem_kb"],
                               **stats(rs, "seconds", "major_faults", "pages_added", "refaults"),
                               "command": one_command(rs)},
                lambda s, ref: {"pages_vs_ref_pct": vs_ref(s, ref, "pages_added"),
                                "seconds_vs_ref_pct": vs_ref(s, ref, "seconds")})
summary += rp

# make sharp's readers that are not sequential (after-random): the
# accesses, and the records' probe
ar = []
for wl in ("adversarial", "every-other", "every-other-warm", "records"):
    for phase in ("access", "probe"):
        per = "pages_per_access" if phase == "access" else "pages_per_fault"
        ar += per_kernel(lambda v: group(wl, phase, v), lambda v, rs: {
            "workload": wl, "phase": phase, "variant": v, "runs": len(rs),
            "touched": rs[0]["pages"], **stats(rs, "resident_pages", per, *COUNTS), "per": per,
            "command": one_command(rs)},
            lambda s, ref: {"pages_vs_ref_pct": vs_ref(s, ref, "dev_pages_read")})
summary += ar

doc = {"command": cmd, "scale": scale, "date": date, "lab_commit": lab,
       "elapsed_s": int(elapsed), "guests_at_once": guests, "accel": sorted(accel), "guest_mem": mem,
       "read_ahead_kb": sorted({b["read_ahead_kb"] for b in boots}),
       "root_image": os.path.basename(root), "data_disk": os.path.basename(disk),
       "kernels": kernels, "order": [f'{b["round"]}:{b["variant"]}:{b["job"]}' for b in boots],
       "boots": boots, "summary": summary, "results": results}
write_json(out + ".json", doc)

def mmm(d, fmt="{:.2f}"):
    """min / median / max, or one figure where the three are the same"""
    xs = [fmt.format(d[k]) for k in ("min", "median", "max")]
    return xs[0] if len(set(xs)) == 1 else " / ".join(xs)

def pct(x):
    return "" if x is None else f"{x:+.2f}"

md = []

def table(title, intro, rows, keys, *groups):
    """One section: a title, what it measures, a table for each of GROUPS
    (a caption and its columns, each a header and a function of a row),
    each with the KEYS columns first, then the commands of ROWS."""
    md.append(f"## {title}\n")
    md.append(intro + "\n")
    for caption, cols in groups:
        cols = keys + cols
        md.append(caption + "\n")
        md.extend(md_table([h for h, _ in cols], [[fn(s) for _, fn in cols] for s in rows]))
        md.append("")
    # as the kernel test robot gives it: the commands, in a block
    md.extend(["To reproduce:", "", "```",
               "        # on Debian 12, as root, in a clone of the lab: builds the kernels,",
               "        # makes the guest root and the data disk, boots each kernel",
               f"        {cmd}",
               "        # what each boot runs in the guest (data disk on /mnt; SEED: the round)"])
    md.extend(f"        {c}" for c in dict.fromkeys(s["command"] for s in rows))
    md.extend(["```", ""])

def cnt(key):
    return lambda s: mmm(s[key], "{:.0f}")

def secs(s):
    return mmm(s["seconds"])

N, KERNEL, RUNS = (("N", lambda s: s["n"]), ("kernel", lambda s: s["variant"]),
                   ("runs", lambda s: s["runs"]))
CASE = ("case", lambda s: s["workload"])
sq = [s for s in summary if s["workload"] == "sqlite"]
npy = [s for s in summary if s["workload"] == "numpy"]
md.append(f"# make bench ({scale})\n")
md.append(f"Command: `{cmd}` ({doc['date']}, {int(elapsed) // 60} min {int(elapsed) % 60} s in all); "
          f"lab commit {lab}.  ")
md.append(f"Accelerator: {', '.join(doc['accel'])}; guest memory {mem}; data disk read_ahead_kb "
          f"{', '.join(map(str, doc['read_ahead_kb']))}; root {doc['root_image']} (Debian 12, "
          f"make-benchroot.sh), data {doc['data_disk']}.  ")
md.append("Kernels: " + "; ".join(f"{v} = {k['uname_r']} ({k['bzImage']}, sha256 {k['sha256_16']})"
                                   for v, k in kernels.items()) + ".  ")
together = f"boots {guests} at a time side by side; " if guests > 1 else ""
md.append(f"Boot order: {' '.join(b['variant'] for b in boots if b['job'] == 'bench')} ({together}"
          "one boot = one run of every case, each from a cold cache; seeds follow the round, "
          "the same for every kernel; each kernel's method and vm-scalability boots start "
          "after its bench boot). "
          "Figures a / b / c are the min / median / max of the runs, one figure where "
          "the three are the same.\n")
if sq:
    pages = sq[0]["pages"]
    sqv = next((r.get("sqlite") for r in results if r.get("sqlite")), "?")
    table(f"SQLite {sqv}: N random lookups, then a full scan",
          f"Database of {pages} pages, `PRAGMA mmap_size` over all of it (python3's sqlite3 "
          "module on Debian's libsqlite3). Scan: `SELECT sum(length(v)), count(*) FROM t`. "
          f"Stuck: more than a quarter of the {pages} pages taken as major faults in the scan. "
          "Vs control is the median scan time over the same kernel's N=0 median.", sq,
          [N, KERNEL, RUNS],
          ("The scan's counts:", [("stuck", lambda s: s["stuck"]),
                                  ("scan major faults", cnt("major_faults")),
                                  ("pages read", cnt("dev_pages_read"))]),
          ("The scan's time:", [("scan s", secs), ("vs control", lambda s: s.get("vs_control", ""))]))
if npy:
    npv = next((r.get("numpy") for r in results if r.get("numpy")), "?")
    table(f"numpy {npv} memmap: N random rows from the first 75 %, then the last 25 % in order",
          f"Array of {npy[0]['pages'] * 4} pages (4 KiB rows), sequential part {npy[0]['pages']} pages, "
          "1 MiB of rows summed at a time. N=0 is the control.", npy, [N, KERNEL, RUNS],
          ("The sequential part's counts:", [("seq major faults", cnt("major_faults")),
                                             ("pages read", cnt("dev_pages_read"))]),
          ("Its time:", [("seq s", secs), ("vs control", lambda s: s.get("vs_control", ""))]))
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
          "here, the counts are not)." + worst, vms, [CASE, KERNEL, RUNS],
          ("Counts:", [("pages (touched)", lambda s: f"{s['pages']} ({s['touched']})"),
                       ("major faults", cnt("major_faults")), ("pages read", cnt("dev_pages_read"))]),
          ("Against the reference, and time:", [
              ("pages vs ref %", lambda s: pct(s.get("pages_vs_ref_pct"))),
              ("faults vs ref", lambda s: "" if "faults_vs_ref" not in s else
               f"{s['faults_vs_ref']:+g} ({pct(s['faults_vs_ref_pct'])} %)"),
              ("s", secs), ("s vs ref %", lambda s: pct(s.get("seconds_vs_ref_pct")))]))
if rp:
    table("The random reader of the report behind 0b9c0aeba938, scaled down",
          f"{rp[0]['reads']} random one-byte reads through MAP_PRIVATE of a sparse file after "
          f"dropping its cache (workloads/random-private.c), in a {rp[0]['mem_kb'] // 1024} MiB "
          "guest (the report: 512 Ki reads, 4 GiB file, 2 GiB guest). A sparse file reads "
          "nothing from the disk: pages added to the page cache (nr_file_pages growth plus "
          "pgsteal_file) are the pages read. Every run of every boot; vs ref: median against "
          f"the {variants[0]} median, %.", rp, [KERNEL, RUNS],
          ("Counts:", [("major faults", cnt("major_faults")), ("pages added", cnt("pages_added")),
                       ("pages vs ref %", lambda s: pct(s.get("pages_vs_ref_pct")))]),
          ("Refaults and time:", [("refaults", cnt("refaults")), ("s", secs),
                                  ("s vs ref %", lambda s: pct(s.get("seconds_vs_ref_pct")))]))
if ar:
    table("Readers that are not sequential, after 300 random faults",
          "workloads/after-random.c in the first 256 MiB of array.u8 (make sharp's geometry "
          "scaled down), in the bench boot: adversarial (every third page cached by "
          "WILLNEED, accesses just after one), every other page in order (warm: the page "
          "before the region cached), records of 16 KiB at random and the records' probe (50 "
          "isolated faults in a cold region afterwards: 1 page each while readahead stays "
          "off). Per: pages read per access (per probe fault); vs ref: pages read, median "
          f"against the {variants[0]} median, %.", ar,
          [("case", lambda s: f"{s['workload']} ({s['phase']})"), KERNEL, RUNS],
          ("Pages:", [("touched", lambda s: s["touched"]), ("pages read", cnt("dev_pages_read")),
                      ("resident", cnt("resident_pages")),
                      ("pages vs ref %", lambda s: pct(s.get("pages_vs_ref_pct")))]),
          ("Per access, faults and time:", [("per", lambda s: mmm(s[s["per"]])),
                                            ("major faults", cnt("major_faults")), ("s", secs)]))
if method:
    table("The method of 0b9c0aeba938's changelog",
          f"1 % of a {method[0]['file_pages'] * 4 // 1024} MiB file (array.u8) touched through a "
          "shared mapping from a cold cache, read_ahead_kb 8192, in a guest smaller than the "
          "file and one larger (upstream: 20 GiB and 4 GiB files in an 8 GiB guest). "
          "File / memory: the file's size over the guest's memory (MiB). "
          "Pages read from the device; vs ref: median against the "
          f"{variants[0]} median (goal: within 0.1 %).", method,
          [("file / memory", lambda s: f"{s['file_vs_mem']} ({s['mem_kb'] // 1024} MiB)"),
           ("pattern", lambda s: s["phase"]), KERNEL, RUNS],
          ("Pages read:", [("pages read", cnt("dev_pages_read")),
                           ("vs ref %", lambda s: s.get("pages_vs_ref_pct", ""))]),
          ("Faults and time:", [("major faults", cnt("major_faults")),
                                ("pages/s (median)", lambda s: f"{s['dev_pages_per_s']['median']:.0f}"),
                                ("s", secs)]))

def chart(rows, png, title, xlabel, ylabel):
    """ROWS (case, kernel, value): each case a group, each kernel a slot
    in it, every run a point over a bar at the median; a log scale when
    the values span more than 20 times."""
    cases = list(dict.fromkeys(c for c, _, _ in rows))
    vs = [v for v in variants if any(k == v for _, k, _ in rows)]
    vals = [max(y, 0.5) for _, _, y in rows]
    log = max(vals) / min(vals) > 20
    y = (lambda y: max(y, 0.5)) if log else (lambda y: y)
    tmp, w, plots = tempfile.mkdtemp(), 0.8 / len(vs), []
    for j, v in enumerate(vs):
        pts, med = os.path.join(tmp, f"p{j}"), os.path.join(tmp, f"m{j}")
        with open(pts, "w") as fp, open(med, "w") as fm:
            for i, c in enumerate(cases):
                ys = [x for cc, k, x in rows if cc == c and k == v]
                if not ys:
                    continue
                x0 = i + (j - (len(vs) - 1) / 2) * w
                fm.write(f"{x0 - 0.4 * w} {y(statistics.median(ys))} {0.8 * w} 0\n")
                for n, x in enumerate(ys):
                    fp.write(f"{x0 + (n - (len(ys) - 1) / 2) * 0.6 * w / len(ys)} {y(x)}\n")
        plots += [f"'{med}' using 1:2:3:4 with vectors nohead lw 3 lc {j + 1} notitle",
                  f"'{pts}' using 1:2 with points pt {(7, 5, 9, 11)[j % 4]} ps 1.2 lc {j + 1} "
                  f"title '{v}'"]
    gp = ["set terminal pngcairo size 900,480 font 'sans,10'", f"set output '{png}'",
          f"set title \"{title} ({scale})\"", f"set ylabel '{ylabel}" + (" (log scale)'" if log else "'"),
          f"set xlabel '{xlabel} (points: every run; bar: the median)'",
          "set xtics (" + ", ".join(f"'{c}' {i}" for i, c in enumerate(cases)) + ")",
          f"set xrange [-0.6:{len(cases) - 0.4}]", "set key top left box opaque", "set grid ytics",
          f"set logscale y; set yrange [{min(vals) / 2}:{max(vals) * 4}]" if log
          else f"set yrange [0:{max(vals) * 1.15}]", "plot " + ", ".join(plots)]
    with open(os.path.join(tmp, "gp"), "w") as f:
        f.write("\n".join(gp) + "\n")
    subprocess.run(["gnuplot", os.path.join(tmp, "gp")], check=True)
    charts.append(os.path.basename(png))
charts = []
def runs_of(wls, phase, key, case):
    return [(case(r), r["variant"], r[key]) for r in results
            if r["workload"] in wls and r["phase"] == phase]
if sq:
    chart(runs_of(["sqlite"], "scan", "major_faults", lambda r: f"N={r['n']}"),
          out + "-sqlite-faults.png", "SQLite: major faults of the full scan after N random lookups",
          "lookups before the scan", "major faults in the scan")
if npy:
    chart(runs_of(["numpy"], "seq", "major_faults", lambda r: f"N={r['n']}"),
          out + "-numpy-faults.png",
          "numpy.memmap: major faults of the sequential part after N random rows",
          "random rows before it", "major faults in the sequential part")
if vms:
    short = lambda r: r["workload"][5:] if r["workload"].startswith("mmap-") else r["workload"]
    chart(runs_of(VMSCAL, "read", "dev_pages_read", short), out + "-vmscal-pages.png",
          "vm-scalability mmap read cases: pages read from the disk", "case",
          "pages read from the data disk")
    chart(runs_of(VMSCAL, "read", "major_faults", short), out + "-vmscal-faults.png",
          "vm-scalability mmap read cases: major faults", "case", "major faults (pgmajfault)")
if charts:
    md.append("Charts: " + ", ".join(f"[{c}]({c})" for c in charts) + ".\n")
md.append(f"Raw results and every run: {os.path.basename(out)}.json; consoles: {os.path.basename(out)}/.")
with open(out + ".md", "w") as f:
    f.write("\n".join(md) + "\n")
print("\n".join(md))
