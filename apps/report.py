#!/usr/bin/env python3
"""make bench-apps' report: results/apps.{md,json} and the charts.

    report.py results/apps

reads results/apps/: runs.txt (ROUND VARIANT CONSOLE a boot), run.env,
kernel-VARIANT.env and the consoles, as scripts/bench-apps.sh leaves them
(`bash scripts/bench-apps.sh report` runs only this). Tables in the kernel test robot's style: one column a kernel, the
first the reference, "value ±stddev% %change value"; every run in the
JSON; charts of the major faults with every run drawn (gnuplot).
"""
import os, re, statistics, subprocess, sys, tempfile, textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from labreport import md_table, read_console, read_env as env, write_json  # noqa: E402

logs = sys.argv[1].rstrip("/")
out = logs  # results/apps -> results/apps.md, .json, -*.png
run = env(os.path.join(logs, "run.env"))
cmd, elapsed, mem = run.get("COMMAND", "?"), run.get("ELAPSED_S", ""), run.get("GUEST_MEM", "?")
root, disk = run.get("ROOT_IMAGE", "?"), run.get("DATA_DISK", "?")
runs = [line.split() for line in open(os.path.join(logs, "runs.txt")) if line.strip()]
variants, kernels, boots, results, parts = [], {}, [], [], []
accel = set()
for rnd, v, cname in runs:
    log = os.path.join(logs, cname)
    if v not in variants:
        variants.append(v)
    recs, meta = read_console(log, tags=("RESULT", "PART"))
    text = meta["text"]
    accel.add(meta.get("accel", "?"))
    job = meta.get("job")
    if not job:
        sys.exit(f"{log}: no @@LAB-BOOT line")
    if v not in kernels:
        kernels[v] = dict(env(os.path.join(logs, f"kernel-{v}.env")), uname_r=meta["kernel"])
    bench = dict(re.findall(r"(\w+)=(\S+)", (re.search(r"@@BENCH (.*)", text) or ["", ""])[1]))
    up = re.findall(r"^\[\s*(\d+\.\d+)\]", text, re.M)
    m = re.search(r"@@LAB-ARGS ?(.*)", text)
    boots.append({"round": int(rnd), "boot_round": int(rnd), "variant": v, "job": job, "bench": bench,
                  "args": m.group(1).strip() if m else None,
                  "guest_uptime_s": float(up[-1]) if up else None,
                  "console": os.path.relpath(log, os.path.dirname(out))})
    for tag, command, r in recs:
        r.update({"variant": v, "boot_round": int(rnd), "job": job, "command": command,
                  "console": cname})
        (results if tag == "RESULT" else parts).append(r)


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
        case = "gm." + r.get("case", "swirl")
        fig("gm", case, "iter_per_min", v, key, r.get("iter_per_min"))
        fig("gm", case, "major_faults", v, key, r["major_faults"])
        fig("gm", case, "root_disk_kib", v, key, r["vda_kib"])
        fig("gm", case, "data_disk_kib", v, key, r["vdb_kib"])

# --- summary: per case, metric and kernel --------------------------------
# the names the report gives the kernels (variants/ names the lab's)
NAMES = {"base": "base", "exp-per-page": "0b9c0aeba938 reverted", "patched": "v4"}
WHAT = {"base": "7.3-rc7 as Debian ships it (linux-source-7.3 7.3~rc7-1~exp1), the lab's base",
        "exp-per-page": "base with 0b9c0aeba938 undone (variants/exp-per-page): the robot's "
                        "\"before\"",
        "patched": "base + series/0001-0002, the series as posted"}


def name(v):
    return NAMES.get(v, v)


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
        row["kernels"][v] = {"median": statistics.median(xs), "mean": round(m, 4),
                             "stddev_pct": round(sd, 1), "runs": n,
                             "min": min(xs), "max": max(xs), "values": xs}
    summary.append(row)


def get(case, metric, v):
    for r in summary:
        if r["case"] == case and r["metric"] == metric:
            return r["kernels"].get(v)
    return None


doc = {"command": cmd, "elapsed_s": int(elapsed) if elapsed.isdigit() else None,
       "lab_commit": run.get("LAB_COMMIT"), "qemu": run.get("QEMU"), "accel": sorted(accel),
       "guest_mem": mem, "root_image": root, "data_disk": disk, "kernels": kernels,
       "variants": variants, "names": {v: name(v) for v in variants}, "boots": boots,
       "summary": summary, "figures": figures, "runs": results, "parts": parts}
write_json(out + ".json", doc)


# --- the markdown ---------------------------------------------------------
def num(x):
    if x is None:
        return "-"
    if abs(x) >= 100 or float(x).is_integer():
        return f"{x:.0f}"
    return f"{x:.2f}" if abs(x) < 10 else f"{x:.1f}"


def spread(k):
    if not k:
        return "-"
    if k["runs"] == 1 or k["min"] == k["max"]:
        return num(k["median"])
    return f"{num(k['median'])} ({num(k['min'])}-{num(k['max'])})"


def ratio(case, metric, v):
    """v's median time over base's, in the same case (times only as ratios)."""
    k, b = get(case, metric, v), get(case, metric, variants[0])
    if not k or not b or not b["median"]:
        return "-"
    return f"{k['median'] / b['median']:.2f}"


def table(head, rows):
    return md_table(head, rows) + [""]


def wrap(cmdline, indent="        ", width=96):
    """One shell command as lines of at most width columns, continued with \\."""
    words, line, lines = [], indent, []
    for w in cmdline.split():
        # an option stays on the line of its argument
        if words and words[-1].startswith("-") and " " not in words[-1] and \
                not w.startswith("-"):
            words[-1] += " " + w
        else:
            words.append(w)
    for w in words:
        if line.strip() and len(line) + 1 + len(w) > width - 2:
            lines.append(line + " \\")
            line = indent + "    " + w
        else:
            line = f"{line} {w}" if line.strip() else indent + w
    return lines + [line]


def cases_of(client):
    cs = []
    for f in figures:
        if f["client"] == client and f["case"] not in cs:
            cs.append(f["case"])
    return cs


def first_run(pred):
    for v in variants:
        for r in results:
            if r["variant"] == v and pred(r):
                return r
    return None


pkgs = env(os.path.join(logs, "packages.env"))
llver = ", ".join(f"{p} {pkgs[p]}" for p in ("llama.cpp-tools", "python3-gguf", "graphicsmagick")
                  if p in pkgs)
md = ["# make bench-apps: llama.cpp, ggufread and GraphicsMagick over mmap", ""]
dirty = run.get("LAB_DIRTY", "0")
md += [f"- Command: `{cmd}`, as root on the host"
       + (f", {int(elapsed) // 60} min {int(elapsed) % 60} s" if elapsed.isdigit() else "")
       + (f" ({run['TIMED']})" if run.get("TIMED") else "") + ".",
       f"- Lab: commit {run.get('LAB_COMMIT', '?')}"
       + ("" if dirty == "0" else f" with {dirty} files of apps/ changed") + ".",
       f"- QEMU: {run.get('QEMU', '?')}, accelerator {', '.join(sorted(accel))}, "
       f"2 vCPUs, guest memory {mem}; host: {run.get('HOST', '?')}.",
       *([f"- Note: {run['NOTE']}"] if run.get("NOTE") else []),
       f"- Guest root: Debian sid (apps/make-root.sh, {root}"
       + (f"; {llver}" if llver else "") + f"), data disk {disk} (ext4: the model, the JPEG).",
       "- Kernels (build/VARIANT/info.env of each: the tree's commit, the patches over "
       "lab-base, mm/filemap.c's blob):", ""]
krows = []
for v in variants:
    k = kernels[v]
    krows.append([name(v), k.get("KERNELRELEASE", k["uname_r"]), k.get("COMMIT", "?")[:12],
                  k.get("SERIES_PATCHES", "?"), k.get("FILEMAP_BLOB", "?")[:12]])
md += table(["kernel", "uname -r", "commit", "patches", "filemap.c"], krows)
md += [f"- {name(v)}: {WHAT.get(v, 'variants/' + v)}." for v in variants] + [""]
md += ["fio is not run: Debian's fio (3.41) allocates its job table with shmget() even with "
       "`--thread`, and the lab's guest kernels have no CONFIG_SYSVIPC: "
       "`shmget: Function not implemented`, `error: failed to setup shm segment` (measured "
       "with shmget failing with ENOSYS, as those kernels fail it).", ""]

mb = next((int(b["bench"]["model_bytes"]) for b in boots if "model_bytes" in b["bench"]), 0)
mmax = next((b["bench"]["memory_max"] for b in boots if "memory_max" in b["bench"]), "?")
gmr = [x for x in results if x.get("workload") == "gm" and x.get("iterations")]
it = sorted(x["total_s"] / x["iterations"] for x in gmr) or [0]
md += ["## The cases", "",
       f"The model is a {mb / 2**20:.0f} MiB llama GGUF of random F32 weights "
       f"(apps/gen-gguf.py), read from a cold cache inside a memory cgroup whose memory.max "
       f"({mmax}) is below its size, "
       "read_ahead_kb 128. \"stuck\": runs whose reads of the data disk averaged under 8 KiB "
       "a request after the start (the model read a page at a time). Cells: the median of "
       "the runs (their range); times only as the ratio to base's median in the same case "
       "(the host was shared with kernel builds and other guests: seconds are noisy, counts "
       "are not).", "",
       "- llama: Debian's llama-completion, prompt `Hi`, greedy, 2 threads, -n 1 and -n 3 "
       "in one boot; per token: the difference over the 2 more tokens. plain: as it is (it "
       "maps the model with MAP_POPULATE and MADV_WILLNEED); touch300: 300 random one-byte "
       "reads of the model through llama.cpp's own open file just before its mmap() "
       "(apps/touch-first.c); after300: the same through its mapping just after.",
       "- ggufread (apps/ggufread.c): llama.cpp's reads without the arithmetic, a pass a "
       "token over the tensors in file order, 2 threads by row ranges. plain, rand300 (300 "
       "random faults first, through the same open file), after300: mapped as llama.cpp "
       "maps it; bare-plain, bare-rand300: mapped without the prefetch, as a program that "
       "maps a file and walks it.",
       "- gm: `gm benchmark -duration 8 convert input.jpg -swirl 90 output.jpg` of a "
       "2400x1600 JPEG, the pts/graphics-magick Swirl case (60 s there; one Swirl took "
       f"{it[0]:.0f} to {it[-1]:.0f} s under TCG here), no memory limit, the output on "
       "tmpfs."
       + (" swirl-mapcache: with `-limit memory 1MB`, so that the pixel cache is a mapped "
          "file on the root's ext4 (a case apps/jobs/gm.sh no longer runs)."
          if any(r.get("case") == "swirl-mapcache" for r in results) else ""), ""]


def stuck_summary():
    out_ = []
    for client in ("llama", "ggufread"):
        for c in cases_of(client):
            for v in variants:
                k = get(c, "page_at_a_time", v)
                if k and sum(k["values"]):
                    out_.append(f"{c} on {name(v)} in {sum(k['values'])} of {k['runs']} runs")
    return out_


st = stuck_summary()
md += ["Stuck: " + ("; ".join(st) if st else "no run") + ".", ""]

if cases_of("llama"):
    rows = []
    for c in cases_of("llama"):
        for v in variants:
            f = get(c, "major_faults_per_token", v)
            if not f:
                continue
            s = get(c, "page_at_a_time", v)
            rows.append([c.split(".", 1)[1], name(v), f["runs"], sum(s["values"]) if s else "-",
                         spread(f), spread(get(c, "major_faults_whole_run", v)),
                         num(get(c, "kib_per_read_request", v)["median"])
                         if get(c, "kib_per_read_request", v) else "-",
                         ratio(c, "seconds_whole_run", v)])
    md += ["## llama.cpp (llama-completion), the model 1.5 times memory.max", ""]
    md += table(["start", "kernel", "runs", "stuck", "major faults/token",
                 "major faults/run", "KiB/read", "time/base"], rows)
if cases_of("ggufread"):
    rows = []
    for c in cases_of("ggufread"):
        for v in variants:
            f = get(c, "major_faults_per_pass", v)
            if not f:
                continue
            s = get(c, "page_at_a_time", v)
            kr = get(c, "kib_per_read_request", v)
            rows.append([c.split(".", 1)[1], name(v), f["runs"], sum(s["values"]) if s else "-",
                         spread(f), num(kr["median"]) if kr else "-",
                         ratio(c, "seconds_per_pass", v)])
    md += ["## ggufread: llama.cpp's reads of the model, without the arithmetic", ""]
    md += table(["start", "kernel", "runs", "stuck", "major faults/pass", "KiB/read",
                 "time/base"], rows)
if cases_of("gm"):
    rows = []
    for c in cases_of("gm"):
        for v in variants:
            f = get(c, "major_faults", v)
            if not f:
                continue
            nb = len({(r["boot_round"], r["console"]) for r in results
                      if r["variant"] == v and r.get("workload") == "gm"
                      and "gm." + r.get("case", "swirl") == c})
            rows.append([c.split(".", 1)[1], name(v), f["runs"], nb, spread(f),
                         spread(get(c, "root_disk_kib", v)), spread(get(c, "data_disk_kib", v)),
                         ratio(c, "iter_per_min", v)])
    md += ["## GraphicsMagick: gm benchmark convert input.jpg -swirl 90", ""]
    md += table(["case", "kernel", "runs", "boots", "major faults", "root disk KiB",
                 "data KiB", "iter/min/base"], rows)
ll = [x for x in results if x.get("workload") == "llama" and x.get("tok_s")]
if ll:
    sec = sorted(1.0 / x["tok_s"] for x in ll)
    md.append(f"Under TCG one generated token took {sec[0]:.1f} to {sec[-1]:.1f} s (median "
              f"{statistics.median(sec):.1f} s, {len(sec)} runs): llama.cpp runs a few tokens "
              "a boot, not a benchmark's hundreds.")
ups = [b["guest_uptime_s"] for b in boots if b["guest_uptime_s"]]
if ups:
    md.append(f"{len(boots)} boots, {sum(ups) / 60:.0f} min of guest time in all "
              f"({min(ups):.0f} to {max(ups):.0f} s a boot).")
md.append("")

# --- To reproduce, in the robot's way: the commands ----------------------
boot0 = {}
for b in boots:
    boot0.setdefault((b["variant"], b["job"]), b)


def lab_boot(job):
    b = boot0.get((variants[0], job)) or next((x for x in boots if x["job"] == job), None)
    if not b:
        return []
    lines = ["        # in the lab, on the host, as root (the guest these numbers come from):",
             "        root=$(bash apps/make-root.sh); disk=$(bash apps/make-root.sh disk)"]
    t = 1800 if job == "gm" else 3600
    lines += wrap(f"bash scripts/run-guest.sh -k build/{b['variant']}/bzImage -r \"$root\" "
                  f"-d \"$disk\" -m {mem} -t {t} -j {job} -a \"{b['args']}\"")
    others = ", ".join(f"build/{v}/bzImage" for v in variants if v != b["variant"])
    if others:
        lines.append(f"        # (the other kernels: {others})")
    return lines


def host_cmd(c):
    """A guest command as it runs on a Debian machine (files in /var/tmp)."""
    c = c.replace("/mnt/", "/var/tmp/").replace("/lab/lib/", "/tmp/")
    c = re.sub(r"^ggufread ", "/tmp/ggufread ", c)
    c = c.replace("-d vdb", "-d $dev")
    return c


def repro(title, setup, pred_list, job):
    lines = [f"To reproduce ({title}):", "", "```",
             "        # as root, on Debian sid booted with the kernel under test, in a checkout",
             "        # of the lab (apps/); appsrun.py: a cold cache, the cgroup, @@RESULT"]
    lines += setup
    for tags, pred in pred_list:
        r = first_run(pred)
        if r:
            lines += wrap(f"apps/bin/appsrun.py -m {r['memory_max']} {tags} -- "
                          + host_cmd(r["command"]))
    lines += [""] + lab_boot(job) + ["```", ""]
    return lines


gm_r = first_run(lambda r: r.get("workload") == "gm")
if gm_r:
    md += repro("GraphicsMagick Swirl, the robot's pts/graphics-magick case", [
        "        apt-get install --no-install-recommends graphicsmagick python3-numpy",
        "        python3 apps/gen-jpeg.py /var/tmp/input.ppm 2400x1600",
        "        gm convert /var/tmp/input.ppm -quality 90 /var/tmp/input.jpg",
        "        rm /var/tmp/input.ppm"],
        [("-k workload=gm", lambda r: r.get("workload") == "gm")], "gm")
rd = [(f"-k workload=ggufread -k start={s}",
       (lambda s: lambda r: r.get("workload") == "ggufread" and r.get("start") == s)(s))
      for s in ("plain", "rand300", "after300", "rand300-nohdr", "bare-plain", "bare-rand300")]
setup_model = [
    "        apt-get install --no-install-recommends python3-gguf python3-numpy gcc libc6-dev",
    "        python3 apps/gen-gguf.py /var/tmp/model.gguf 384 1",
    "        dev=sda     # the disk that holds /var/tmp",
    "        echo 128 > /sys/block/$dev/queue/read_ahead_kb"]
if first_run(lambda r: r.get("workload") == "ggufread"):
    md += repro("ggufread, llama.cpp's reads of a model larger than its cgroup", setup_model + [
        "        gcc -O2 -Wall -pthread -o /tmp/ggufread apps/ggufread.c"], rd, "llama")
ll_r = [(f"-k workload=llama -k start={s} -k n_predict={n}",
         (lambda s, n: lambda r: r.get("workload") == "llama" and r.get("start") == s
          and (r.get("n_predict") == 1) == (n == 1))(s, n))
        for s in ("plain", "touch300", "after300") for n in (1, 3)]
if first_run(lambda r: r.get("workload") == "llama"):
    su = list(setup_model)
    su[0] = "        apt-get install --no-install-recommends llama.cpp-tools python3-gguf \\"
    su.insert(1, "            python3-numpy gcc libc6-dev")
    md += repro("llama.cpp over that model", su + [
        "        gcc -O2 -Wall -shared -fPIC -o /tmp/touch-first.so apps/touch-first.c -ldl"],
        ll_r, "llama")
md += ["(The lab boots its own Debian sid root with init=/lab/init, the model and the JPEG "
       "on /dev/vdb at /mnt; apps/jobs/*.sh run the commands above there.)", ""]


# --- charts ---------------------------------------------------------------
def chart(client, metric, png, ylabel, title, xlabel):
    """Each case a group, each kernel a slot in it: every run a point, the
    median a bar beside them, with its value; a log scale when the values
    span more than 20 times."""
    rows = [f for f in figures if f["client"] == client and f["metric"] == metric
            and f["value"] is not None]
    if not rows:
        return None
    cases = []
    for f in rows:
        if f["case"] not in cases:
            cases.append(f["case"])
    vs = [v for v in variants if any(f["variant"] == v for f in rows)]
    vals = [max(f["value"], 0.5) for f in rows]
    log = max(vals) / min(vals) > 20
    tmp = tempfile.mkdtemp()
    plots, labels = [], []
    width = 0.8 / len(vs)
    for j, v in enumerate(vs):
        pts, med = os.path.join(tmp, f"p{j}.dat"), os.path.join(tmp, f"m{j}.dat")
        single = False
        with open(pts, "w") as fp, open(med, "w") as fm:
            for i, c in enumerate(cases):
                ys = [f["value"] for f in rows if f["variant"] == v and f["case"] == c]
                if not ys:
                    continue
                single |= len(ys) == 1
                x0 = i + (j - (len(vs) - 1) / 2) * width
                for n, y in enumerate(ys):
                    dx = (n - (len(ys) - 1) / 2) * min(0.03, 0.3 * width / len(ys))
                    fp.write(f"{x0 - 0.18 * width + dx} {max(y, 0.5) if log else y}\n")
                m = statistics.median(ys)
                m = max(m, 0.5) if log else m
                fm.write(f"{x0 - 0.02 * width} {m} {0.3 * width} 0\n")
                lab = num(statistics.median(ys)) + (" (1 run)" if len(ys) == 1 else "")
                labels.append(f"set label '{lab}' at {x0 + 0.3 * width},{m} left "
                              "font 'sans,8' offset 0.3,0")
        t = name(v) + (" (1-run cases marked)" if single else "")
        plots.append(f"'{pts}' using 1:2 with points pt {(7, 5, 9)[j % 3]} ps 1.2 "
                     f"lc {j + 1} title '{t}'")
        plots.append(f"'{med}' using 1:2:3:4 with vectors nohead lw 3 lc {j + 1} notitle")
    xt = ", ".join(f"'{c.split('.', 1)[1]}' {i}" for i, c in enumerate(cases))
    gp = ["set terminal pngcairo size 1000,520 font 'sans,10'", f"set output '{png}'",
          f"set title '{title}'", f"set ylabel '{ylabel}" + (" (log scale)'" if log else "'"),
          f"set xlabel '{xlabel} (points: every run; bar and number: the median)'",
          f"set xtics ({xt})", f"set xrange [-0.6:{len(cases) - 0.4}]",
          "set key top left box opaque", "set grid ytics"]
    if log:
        gp += ["set logscale y", f"set yrange [{min(vals) / 2}:{max(vals) * 4}]"]
    else:
        gp += [f"set yrange [0:{max(vals) * 1.25}]"]
    gp += labels
    gp.append("plot " + ", ".join(plots))
    subprocess.run(["gnuplot"], input="\n".join(gp), text=True, check=True)
    return os.path.basename(png)


charts = [c for c in (
    chart("llama", "major_faults_per_token", out + "-llama.png",
          "major faults per generated token",
          "llama.cpp: major faults per generated token, the model 1.5 x memory.max",
          "llama.cpp: how it starts"),
    chart("ggufread", "major_faults_per_pass", out + "-ggufread.png",
          "major faults per pass (token)",
          "ggufread: major faults per pass over the model, 1.5 x memory.max",
          "ggufread: how it starts"),
    chart("gm", "major_faults", out + "-gm.png", "major faults per gm benchmark run",
          "GraphicsMagick Swirl: major faults of a run", "gm benchmark case"),
) if c]
if charts:
    md += ["Charts: " + ", ".join(f"[{c}]({c})" for c in charts) + ".", ""]


def fill(lines):
    """Prose wrapped at 90 columns; tables and code blocks as they are."""
    res, code = [], False
    for line in lines:
        if line.startswith("```"):
            code = not code
        if code or line.startswith(("|", "```", "#")) or len(line) <= 90:
            res.append(line)
        else:
            ind = "  " if line.startswith("- ") else ""
            res += textwrap.wrap(line, 90, subsequent_indent=ind, break_on_hyphens=False,
                                 break_long_words=False)
    return res


md = fill(md)
with open(out + ".md", "w") as f:
    f.write("\n".join(md) + "\n")
print("\n".join(md))
