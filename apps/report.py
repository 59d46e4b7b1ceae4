#!/usr/bin/env python3
"""make bench-apps' report: results/apps.{md,json} and the charts.

    report.py results/apps

reads results/apps/: runs.txt (ROUND VARIANT CONSOLE a boot), run.env,
kernel-VARIANT.env and the consoles, as scripts/bench-apps.sh leaves them
(`bash scripts/bench-apps.sh report` runs only this). Tables in the kernel test robot's style: one column a kernel, the
first the reference, "value ±stddev% %change value"; every run in the
JSON; charts of the major faults with every run drawn (gnuplot).
"""
import json, os, re, statistics, subprocess, sys, tempfile


def env(path):
    d = {}
    if os.path.exists(path):
        for line in open(path):
            k, _, v = line.rstrip("\n").partition("=")
            if k:
                d[k] = v
    return d


logs = sys.argv[1].rstrip("/")
out = logs  # results/apps -> results/apps.md, .json, -*.png
run = env(os.path.join(logs, "run.env"))
cmd, elapsed, mem = run.get("COMMAND", "?"), run.get("ELAPSED_S", ""), run.get("GUEST_MEM", "?")
root, disk = run.get("ROOT_IMAGE", "?"), run.get("DATA_DISK", "?")
runs = [line.split() for line in open(os.path.join(logs, "runs.txt")) if line.strip()]
variants, kernels, boots, results, parts = [], {}, [], [], []
accel = set()
for rnd, v, name in runs:
    log = os.path.join(logs, name)
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
        kernels[v] = dict(env(os.path.join(logs, f"kernel-{v}.env")), uname_r=m.group(1))
    bench = dict(re.findall(r"(\w+)=(\S+)", (re.search(r"@@BENCH (.*)", text) or ["", ""])[1]))
    up = re.findall(r"^\[\s*(\d+\.\d+)\]", text, re.M)
    m = re.search(r"@@LAB-ARGS ?(.*)", text)
    boots.append({"round": int(rnd), "boot_round": int(rnd), "variant": v, "job": job, "bench": bench,
                  "args": m.group(1).strip() if m else None,
                  "guest_uptime_s": float(up[-1]) if up else None,
                  "console": os.path.relpath(log, os.path.dirname(out))})
    command = None
    for line in text.splitlines():
        m = re.search(r"@@RUN (.*\S)", line)
        if m:
            command = m.group(1)
            continue
        m = re.search(r"@@(RESULT|PART) (\{.*\})", line)
        if not m:
            continue
        r = json.loads(m.group(2))
        r.update({"variant": v, "boot_round": int(rnd), "job": job, "command": command})
        (results if m.group(1) == "RESULT" else parts).append(r)


def mean_sd(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None, None, 0
    m = statistics.mean(xs)
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return m, (100.0 * sd / m if m else 0.0), len(xs)


def per_run(wl, start=None, v=None):
    return [r for r in results if r.get("workload") == wl and r["variant"] == v
            and (start is None or r.get("start") == start)]


# --- the figures of each run ---------------------------------------------
figures = []  # {"client", "case", "metric", "variant", "round", "value"}


def fig(client, case, metric, v, rnd, value):
    figures.append({"client": client, "case": case, "metric": metric,
                    "variant": v, "round": rnd, "value": value})


def stuck(kib, reads):
    return int(reads > 0 and kib / reads < 8)


for v in variants:
    # llama.cpp: -n 1 and -n N in the same boot; the difference is the cost
    # of N-1 generated tokens
    for start in ("plain", "touch300", "after300"):
        rs = per_run("llama", start, v)
        for rnd in sorted({r["boot_round"] for r in rs}):
            one = [r for r in rs if r["boot_round"] == rnd and r["n_predict"] == 1]
            lng = [r for r in rs if r["boot_round"] == rnd and r["n_predict"] > 1]
            if not one or not lng:
                continue
            a, b = one[0], lng[0]
            n = b["n_predict"] - 1
            case = f"llama.{start}"
            fig("llama", case, "tokens_per_s", v, rnd, b.get("tok_s"))
            fig("llama", case, "major_faults_per_token",
                v, rnd, round((b["major_faults"] - a["major_faults"]) / n, 1))
            dr, dk = b["vdb_reads"] - a["vdb_reads"], b["vdb_kib"] - a["vdb_kib"]
            fig("llama", case, "kib_per_read_request", v, rnd, round(dk / dr, 1) if dr > 0 else None)
            fig("llama", case, "major_faults_whole_run", v, rnd, b["major_faults"])
            fig("llama", case, "seconds_whole_run", v, rnd, b["seconds"])
            fig("llama", case, "page_at_a_time", v, rnd, stuck(dk, dr))
            if "touch_faults" in b:
                fig("llama", case, "touch_major_faults", v, rnd, b["touch_faults"])
    # ggufread: its own passes
    for start in ("plain", "rand300", "rand300-nohdr", "after300", "bare-plain",
                  "bare-rand300"):
        ps = [p for p in parts if p.get("workload") == "ggufread" and p["variant"] == v
              and p.get("start") == start]
        case = f"ggufread.{start}"
        for rnd in sorted({p["boot_round"] for p in ps}):
            mine = [p for p in ps if p["boot_round"] == rnd]
            mp = [p for p in mine if p["phase"] == "map"]
            pas = [p for p in mine if p["phase"] == "pass"]
            rn = [p for p in mine if p["phase"] in ("random", "random-after")]
            if rn:
                fig("ggufread", case, "random_major_faults", v, rnd, rn[0]["major_faults"])
            if mp and mp[0]["populate"]:
                fig("ggufread", case, "map_major_faults", v, rnd, mp[0]["major_faults"])
                fig("ggufread", case, "map_kib_per_read_request", v, rnd,
                    round(mp[0]["dev_kib"] / mp[0]["dev_reads"], 1) if mp[0]["dev_reads"] else None)
            if pas:
                fig("ggufread", case, "major_faults_per_pass", v, rnd,
                    round(statistics.mean(p["major_faults"] for p in pas), 1))
                fig("ggufread", case, "seconds_per_pass", v, rnd,
                    round(statistics.mean(p["seconds"] for p in pas), 3))
                dr = sum(p["dev_reads"] for p in pas)
                dk = sum(p["dev_kib"] for p in pas)
                fig("ggufread", case, "kib_per_read_request", v, rnd, round(dk / dr, 1) if dr else None)
                fig("ggufread", case, "page_at_a_time", v, rnd, stuck(dk, dr))
                fig("ggufread", case, "file_pages", v, rnd, pas[0]["file_pages"])
    # GraphicsMagick
    for r in per_run("gm", None, v):
        key = r["boot_round"] * 100 + r["rep"]
        case = "gm." + {"swirl-mapcache": "mapcache"}.get(r.get("case"), "swirl")
        fig("gm", case, "iter_per_min", v, key, r.get("iter_per_min"))
        fig("gm", case, "major_faults", v, key, r["major_faults"])
        fig("gm", case, "root_disk_kib", v, key, r["vda_kib"])
        fig("gm", case, "data_disk_kib", v, key, r["vdb_kib"])

# --- summary: per case, metric and kernel --------------------------------
summary = []
keys = []
for f in figures:
    k = (f["client"], f["case"], f["metric"])
    if k not in keys:
        keys.append(k)
for k in keys:
    row = {"client": k[0], "case": k[1], "metric": k[2], "kernels": {}}
    for v in variants:
        xs = [f["value"] for f in figures if (f["client"], f["case"], f["metric"]) == k
              and f["variant"] == v and f["value"] is not None]
        if not xs:
            continue
        m, sd, n = mean_sd(xs)
        row["kernels"][v] = {"mean": round(m, 4), "stddev_pct": round(sd, 1), "runs": n,
                             "min": min(xs), "max": max(xs), "values": xs}
    summary.append(row)

doc = {"command": cmd, "elapsed_s": int(elapsed) if elapsed.isdigit() else None, "accel": sorted(accel), "guest_mem": mem,
       "root_image": os.path.basename(root), "data_disk": os.path.basename(disk),
       "kernels": kernels, "variants": variants, "boots": boots, "summary": summary,
       "figures": figures, "runs": results, "parts": parts}
with open(out + ".json", "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")


# --- the markdown ---------------------------------------------------------
def num(x):
    if x is None:
        return "-"
    if abs(x) >= 100 or float(x).is_integer():
        return f"{x:.0f}"
    return f"{x:.2f}" if abs(x) < 10 else f"{x:.1f}"


def cell(k):
    if not k:
        return f"{'-':>10}      "
    sd = f"±{k['stddev_pct']:3.0f}%" if k["runs"] > 1 and k["stddev_pct"] >= 1 else ""
    return f"{num(k['mean']):>10} {sd:5}"


def table(rows, vs, title):
    """The robot's layout: kernels as columns, the metric on the right."""
    lines = [f"### {title}", "", "```"]
    head = "".join(f"{v:>16}" + ("" if i == 0 else "") for i, v in enumerate(vs[:1]))
    for v in vs[1:]:
        head += f"{'':10}{v:>16}"
    lines.append(head)
    sub = f"{'%stddev':>16}"
    for v in vs[1:]:
        sub += f"{'%change':>10}{'%stddev':>16}"
    lines.append(sub)
    for r in rows:
        ref = r["kernels"].get(vs[0])
        line = cell(ref)
        for v in vs[1:]:
            k = r["kernels"].get(v)
            ch = ""
            if k and ref and ref["mean"]:
                ch = f"{100.0 * (k['mean'] - ref['mean']) / ref['mean']:+.1f}%"
            line += f"{ch:>10}" + cell(k)
        name = f"{r['case']}.{r['metric']}"
        lines.append(f"{line}  {name}")
    lines.append("```")
    lines.append("")
    return lines


md = ["# make bench-apps: llama.cpp and GraphicsMagick over mmap", ""]
md.append(f"Command: `{cmd}`" + (f", {int(elapsed) // 60} min {int(elapsed) % 60} s. "
                                  if elapsed.isdigit() else ". ") +
          f"Accelerator: {', '.join(sorted(accel))}; guest memory {mem}; "
          f"root {os.path.basename(root)} (Debian sid, apps/make-root.sh), "
          f"data {os.path.basename(disk)}.  ")
md.append("Kernels: " + "; ".join(f"{v} = {kernels[v]['uname_r']} ({kernels[v].get('SHA256_16', '?')})"
                                   for v in variants) + ".  ")
md.append("Each cell: the mean of the runs, ±their standard deviation where it is 1 % or "
          "more; %change against the first kernel. page_at_a_time: the share of runs whose "
          "reads of the data disk averaged under 8 KiB a request (the model read a page at "
          "a time). Every run is in apps.json (figures, runs, parts).")
md.append("")
md += ["The cases. The model is a 382 MiB llama GGUF of random F32 weights (apps/gen-gguf.py), "
       "read inside a cgroup whose memory.max is 256M, from a cold cache, read_ahead_kb 128. "
       "llama: Debian's llama-completion (llama.cpp 0.7.0), prompt `Hi`, greedy, 2 threads, "
       "-n 1 and -n 3 in the same boot: per-token figures are the difference of the two runs "
       "over the 2 tokens more; plain: as it is (it maps the model with MAP_POPULATE and "
       "MADV_WILLNEED, its default prefetch); touch300: 300 random one-byte reads of the "
       "model through llama.cpp's own open file just before its mmap() (apps/touch-first.so); "
       "after300: the same through its mapping just after. ggufread (apps/ggufread.c): the "
       "same reads without the arithmetic, a pass a token over the tensors in file order, "
       "two threads by row ranges; plain, rand300 (300 random faults first, same open file), "
       "rand300-nohdr (and the header's pages dropped first), after300: mapped as llama.cpp "
       "maps it; bare-plain, bare-rand300: mapped without the prefetch, the reads of a "
       "program that maps a file and walks it. gm: `gm benchmark -duration 8 convert "
       "input.jpg -swirl 90 output.jpg` on a 2400x1600 JPEG, as pts/graphics-magick runs it "
       "(60 s there); mapcache: with `-limit memory 1MB`, so that the pixel cache is a mapped "
       "file on the root's ext4.", ""]

# which starts read the model a page at a time, per kernel
stuck_rows = [r for r in summary if r["metric"] == "page_at_a_time"]
if stuck_rows:
    md.append("### Which starts read the model a page at a time")
    md.append("")
    md.append("Runs whose data-disk reads averaged under 8 KiB a request, of all runs "
              "(llama: the tokens after the first; ggufread: its passes), and the "
              "major faults a token or pass (mean):")
    md.append("")
    vs_ = [v for v in variants if any(v in r["kernels"] for r in stuck_rows)]
    md.append("| case | " + " | ".join(f"{v} stuck" for v in vs_) + " | "
              + " | ".join(f"{v} faults" for v in vs_) + " |")
    md.append("|---" * (1 + 2 * len(vs_)) + "|")
    for r in stuck_rows:
        metric = ("major_faults_per_token" if r["client"] == "llama" else "major_faults_per_pass")
        fr = [x for x in summary if x["case"] == r["case"] and x["metric"] == metric]
        cells = []
        for v in vs_:
            k = r["kernels"].get(v)
            cells.append(f"{sum(k['values'])} of {k['runs']}" if k else "-")
        for v in vs_:
            k = fr[0]["kernels"].get(v) if fr else None
            cells.append(num(k["mean"]) if k else "-")
        md.append(f"| {r['case']} | " + " | ".join(cells) + " |")
    md.append("")

# what TCG costs: one token, the load, a Swirl
ll = [x for x in results if x.get("workload") == "llama" and x.get("tok_s")]
if ll:
    sec = sorted(1.0 / x["tok_s"] for x in ll)
    load = sorted(x["load_ms"] / 1000 for x in ll if "load_ms" in x)
    pr = sorted(x["prompt_ms"] / 1000 for x in ll if "prompt_ms" in x)
    md.append(f"Under TCG one generated token took {sec[0]:.1f} to {sec[-1]:.1f} s "
              f"(median {statistics.median(sec):.1f} s, {len(sec)} runs), the load "
              f"{load[0]:.0f} to {load[-1]:.0f} s and the 3-token prompt {pr[0]:.0f} to "
              f"{pr[-1]:.0f} s; natively on this host the same model runs at about 9 "
              f"tokens/s. The host was shared with kernel builds and other guests while "
              f"these ran: seconds are noisy, counts are not.")
gmr = [x for x in results if x.get("workload") == "gm" and x.get("iterations")]
if gmr:
    it = sorted(x["total_s"] / x["iterations"] for x in gmr)
    md.append(f"One Swirl of the {gmr[0].get('jpeg', '2400x1600')} JPEG took {it[0]:.0f} to "
              f"{it[-1]:.0f} s under TCG (2 threads), so each gm benchmark run is one or two "
              f"iterations.")
md.append("")
ups = [b["guest_uptime_s"] for b in boots if b["guest_uptime_s"]]
if ups:
    md.append(f"Time: {len(boots)} boots, {sum(ups) / 60:.0f} min of guest time in all "
              f"(uptime at power-off: {min(ups):.0f} to {max(ups):.0f} s a boot). From nothing, "
              "make bench-apps adds to that the two cold kernel builds (1042 s and 1266 s "
              "measured in a new root, shared/design.md), exp-per-page (93 s after base here), "
              "the sid root (mmdebstrap 159 s, image 26 s, data disk 18 s here) and "
              "scripts/deps.sh bench (15 s).")
    md.append("")

for client, title in (("llama", "llama.cpp (llama-completion), model larger than its cgroup"),
                      ("ggufread", "ggufread: llama.cpp's reads of the model, without the arithmetic"),
                      ("gm", "GraphicsMagick: gm benchmark convert input.jpg -swirl 90")):
    rows = [r for r in summary if r["client"] == client and r["metric"] != "file_pages"
            and r["kernels"]]
    if not rows:
        continue
    vs = [v for v in variants if any(v in r["kernels"] for r in rows)]
    md += table(rows, vs, title)
# To reproduce, in the robot's way: the commands
first_cmd = {}
for r in results:
    key = (r["workload"], r.get("start"), r.get("case"))
    if key not in first_cmd and r["variant"] == variants[0]:
        first_cmd[key] = r["command"]
md += ["To reproduce:", "", "```",
       "        # as root on a Debian 12 host, in a clone of the lab",
       "        make bench-apps          # bash scripts/bench-apps.sh",
       "        # or one boot at a time, once make bench-apps has made the kernels and images:",
       "        root=$(bash apps/make-root.sh); disk=$(bash apps/make-root.sh disk)"]
seen = set()
for b in boots:
    if (b["job"], b["args"]) in seen or b["variant"] != variants[0] or b["boot_round"] != 0:
        continue
    seen.add((b["job"], b["args"]))
    md.append(f"        nice -n 10 bash scripts/run-guest.sh -k build/{b['variant']}/bzImage -r $root "
              f"-d $disk \\\n                -m {mem} -t 3600 -j {b['job']} -a \"{b['args']}\"")
md.append("        # which runs, in the guest (apps/jobs/*.sh; appsrun.py: cold cache, the cgroup):")
for key, c in first_cmd.items():
    mm = [r for r in results if (r["workload"], r.get("start"), r.get("case")) == key][0]
    words, line, out_lines = f"appsrun.py -m {mm['memory_max']} -- {c}".split(), "", []
    for w in words:
        if line and len(line) + len(w) > 80:
            out_lines.append(line + " \\")
            line = "    " + w
        else:
            line = f"{line} {w}" if line else w
    out_lines.append(line)
    md += ["        " + x for x in out_lines]
md += ["```", ""]
doc_md = md


# --- charts ---------------------------------------------------------------
def chart(client, metric, png, ylabel, title, log=True):
    rows = [f for f in figures if f["client"] == client and f["metric"] == metric
            and f["value"] is not None]
    if not rows:
        return None
    cases = []
    for f in rows:
        if f["case"] not in cases:
            cases.append(f["case"])
    vs = [v for v in variants if any(f["variant"] == v for f in rows)]
    tmp = tempfile.mkdtemp()
    plots = []
    for j, v in enumerate(vs):
        path = os.path.join(tmp, f"{j}.dat")
        with open(path, "w") as fh:
            for f in rows:
                if f["variant"] != v:
                    continue
                i = cases.index(f["case"])
                # each kernel side by side within its case, runs spread a little
                k = sorted({g["round"] for g in rows if g["variant"] == v and g["case"] == f["case"]})
                x = (i + (j - (len(vs) - 1) / 2) * 0.28
                     + (k.index(f["round"]) - (len(k) - 1) / 2) * min(0.04, 0.22 / max(len(k), 1)))
                y = f["value"] if not log else max(f["value"], 0.5)
                fh.write(f"{x} {y}\n")
        plots.append(f"'{path}' using 1:2 with points pt {7 + j % 3} ps 1.4 title '{v}'")
    xt = ", ".join(f"'{c.split('.', 1)[1]}' {i}" for i, c in enumerate(cases))
    gp = [f"set terminal pngcairo size 900,480 font 'sans,10'", f"set output '{png}'",
          f"set title '{title}'", f"set ylabel '{ylabel}'",
          f"set xlabel '{client} case (every run a point; kernels side by side)'",
          f"set xtics ({xt})", f"set xrange [-0.6:{len(cases) - 0.4}]",
          "set key outside right", "set grid ytics", "set offsets 0, 0, graph 0.12, 0"]
    if log:
        gp.append("set logscale y")
        gp.append("set format y '10^{%L}'")
    else:
        gp.append("set yrange [0:*]")
    gp.append("plot " + ", ".join(plots))
    subprocess.run(["gnuplot"], input="\n".join(gp), text=True, check=True)
    return os.path.basename(png)


charts = [c for c in (
    chart("llama", "major_faults_per_token", out + "-llama.png", "major faults per generated token",
          "llama.cpp: major faults per generated token (model 1.5 x memory.max)"),
    chart("ggufread", "major_faults_per_pass", out + "-ggufread.png", "major faults per pass (token)",
          "ggufread: major faults per pass over the model (1.5 x memory.max)"),
    chart("gm", "major_faults", out + "-gm.png", "major faults per run",
          "GraphicsMagick swirl: major faults of a gm benchmark run", log=False),
) if c]
md = doc_md
if charts:
    md.append("Charts: " + ", ".join(f"[{c}]({c})" for c in charts) + ".")
    md.append("")
with open(out + ".md", "w") as f:
    f.write("\n".join(md) + "\n")
print("\n".join(md))
