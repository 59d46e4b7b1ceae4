#!/bin/bash
# make bench: real clients (SQLite through Debian's libsqlite3, numpy.memmap)
# from a Debian guest root, on base and the series in one invocation,
# several runs each, the kernels in the order A B B A A B B A ... (the
# kernel that runs first is otherwise slower on the same work). Writes
# results/bench.{md,json} and results/bench-*.png (BENCH_SCALE=small:
# results/bench-small.*), consoles under results/bench[-small]/.
#   BENCH_SCALE=full (default) or small (a quick look, well under 20 min)
#   BENCH_KDIR=DIR       take DIR/VARIANT/bzImage instead of building the
#                        kernels (e.g. /work/kernels: ready-built ones)
#   BENCH_VARIANTS="base patched"  kernels compared, the first the reference
#   BENCH_ROUNDS=R       boots per kernel (default full 10, small 4)
#   BENCH_REPS=K         runs of every case in each boot, each from a cold
#                        cache (default 1)
#   BENCH_SQLITE_NS=N:N:...  SQLite lookup counts (0: the control; default
#                        full 0:300:301:1000, small 0:300:301:1000:3000:
#                        a stuck full-scale scan on base takes about 165 s
#                        under TCG, and 3000 sticks as 1000 does)
#   BENCH_NUMPY_N=1000   numpy random rows before the sequential part
#   BENCH_NUMPY_ROUNDS=R the rounds that run numpy too (default full 5,
#                        small all)
#   BENCH_METHOD_ROUNDS=R rounds of 0b9c0aeba938's method (default full 4,
#                        small 1; 0: none): 1 % of array.u8 touched at
#                        random, in order and in strides of 1021, 1024,
#                        2053 and 4099 pages, read_ahead_kb 8192, in a
#                        guest 2.5 times smaller than the file (full:
#                        1640M, small: 128M, the least the Debian root
#                        boots in here) and one twice its size
#   BENCH_RA_KB=128      read_ahead_kb of the data disk in the guest
#   BENCH_MEM=1G         guest memory
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export MMLAB_ENTRY="make bench (scripts/bench.sh)"
lab_lock

scale=${BENCH_SCALE:-full}
case $scale in
full)  rounds=10 timeout=7200 ns=0:300:301:1000 np_rounds=5 m_rounds=4 m_mems="1640M 8G" ;;
small) rounds=4 timeout=900 ns=0:300:301:1000:3000 np_rounds=4 m_rounds=1 m_mems="128M 512M" ;;
*) die "BENCH_SCALE: unknown scale '$scale' (full or small)" ;;
esac
rounds=${BENCH_ROUNDS:-$rounds}
reps=${BENCH_REPS:-1}
ns=${BENCH_SQLITE_NS:-$ns}
np_n=${BENCH_NUMPY_N:-1000}
np_rounds=${BENCH_NUMPY_ROUNDS:-$np_rounds}
m_rounds=${BENCH_METHOD_ROUNDS:-$m_rounds}
ra=${BENCH_RA_KB:-128}
mem=${BENCH_MEM:-1G}
read -r -a variants <<<"${BENCH_VARIANTS:-base patched}"
for x in "$rounds" "$reps" "$np_n" "$ra" "$np_rounds" "$m_rounds"; do
	[[ $x =~ ^[0-9]+$ ]] || die "BENCH_ROUNDS, BENCH_REPS, BENCH_NUMPY_N, BENCH_NUMPY_ROUNDS, BENCH_METHOD_ROUNDS and BENCH_RA_KB take numbers, not '$x'"
done
if [ "$rounds" -lt 1 ] || [ "$reps" -lt 1 ]; then die "BENCH_ROUNDS and BENCH_REPS must be at least 1"; fi
[[ $ns =~ ^[0-9]+(:[0-9]+)*$ ]] || die "BENCH_SQLITE_NS: lookup counts separated by ':' (e.g. 0:300:301), not '$ns'"
[ ${#variants[@]} -ge 1 ] || die "BENCH_VARIANTS is empty"
name=bench
[ "$scale" = full ] || name=bench-$scale
S=$LAB/scripts
start=$(date +%s)

bash "$S/deps.sh" bench
kernels=()
if [ -n "${BENCH_KDIR:-}" ]; then
	for v in "${variants[@]}"; do
		[ -f "$BENCH_KDIR/$v/bzImage" ] || die "BENCH_KDIR: no $BENCH_KDIR/$v/bzImage"
		kernels+=("$BENCH_KDIR/$v/bzImage")
	done
else
	bash "$S/fetch-base.sh"
	bash "$S/apply-series.sh"
	for v in "${variants[@]}"; do
		case $v in base|patched) ;; *) die "BENCH_VARIANTS: make bench builds base and patched only; give BENCH_KDIR for '$v'" ;; esac
		bash "$S/build-kernel.sh" "$v"
		kernels+=("$BUILD/$v/bzImage")
	done
fi
root=$(bash "$S/make-benchroot.sh")
disk=$(bash "$S/make-benchroot.sh" disk "$scale")
# Read the images once on the host, so that the first kernel does not pay
# for a cold host page cache that the next one finds warm.
log "warming the host's cache of the root and data images"
cat "$root" "$disk" > /dev/null

logs=$RESULTS/$name
rm -rf "$logs"
mkdir -p "$logs"
runs=()
for ((r = 0; r < rounds; r++)); do
	# A B, then B A, ...: each kernel as often first as last
	if [ $((r % 2)) = 0 ]; then mapfile -t idx < <(seq 0 $((${#variants[@]} - 1)))
	else mapfile -t idx < <(seq $((${#variants[@]} - 1)) -1 0); fi
	for i in "${idx[@]}"; do
		v=${variants[i]}
		log "$name: round $((r + 1))/$rounds on $v"
		out=$logs/console-r$r-$v.log
		n=$np_n
		[ "$r" -lt "$np_rounds" ] || n=-
		nice -n 10 bash "$S/run-guest.sh" -k "${kernels[i]}" -r "$root" -d "$disk" \
			-m "$mem" -t "$timeout" -o "$out" -j bench -a "$r $reps $ns $n $ra"
		runs+=("$r=$v=${kernels[i]}=$out")
		[ "$r" -lt "$m_rounds" ] || continue
		for mm in $m_mems; do
			log "$name: round $((r + 1)): 0b9c0aeba938's method on $v, $mm guest"
			out=$logs/console-r$r-$v-method-$mm.log
			nice -n 10 bash "$S/run-guest.sh" -k "${kernels[i]}" -r "$root" -d "$disk" \
				-m "$mm" -t "$timeout" -o "$out" -j ramethod -a "$r array.u8 8192"
			runs+=("$r=$v=${kernels[i]}=$out")
		done
	done
done
elapsed=$(( $(date +%s) - start ))

# the command as given: make bench and the settings that were set
cmd="BENCH_SCALE=$scale"
for x in KDIR VARIANTS ROUNDS REPS SQLITE_NS NUMPY_N NUMPY_ROUNDS METHOD_ROUNDS RA_KB MEM; do
	x=BENCH_$x
	[ -z "${!x:-}" ] || cmd="$cmd $x=\"${!x}\""
done
cmd="$cmd make bench"
python3 - "$RESULTS/$name" "$scale" "$cmd" "$elapsed" "$mem" "$root" "$disk" "${runs[@]}" <<'PY'
import hashlib, json, os, re, statistics, subprocess, sys, time

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
    bench = dict(re.findall(r"(\w+)=(\S+)", re.search(r"@@BENCH (.*)", text).group(1)))
    boots.append({"round": int(rnd), "variant": v, "job": job,
                  "console": os.path.relpath(log, os.path.dirname(out)),
                  "read_ahead_kb": int(bench["read_ahead_kb"]), "mem_kb": int(bench["mem_kb"])})
    for line in re.findall(r"@@RESULT (\{.*\})", text):
        r = json.loads(line)
        if r.get("warmup"):
            continue
        r["variant"] = v
        r["round"] = int(rnd)
        r["mem_kb"] = int(bench["mem_kb"])
        results.append(r)

def stat(xs):
    xs = sorted(xs)
    return {"min": xs[0], "median": statistics.median(xs), "max": xs[-1]}

CMDS = {"sqlite": "sqlite-scan bench.db {n} SEED", "numpy": "numpy-seq array.u8 {n} SEED"}
PHASE = {"sqlite": "scan", "numpy": "seq"}
summary = []
for wl in ("sqlite", "numpy"):
    ns = sorted({r["n"] for r in results if r["workload"] == wl})
    for n in ns:
        for v in variants:
            rs = [r for r in results if r["workload"] == wl and r["phase"] == PHASE[wl]
                  and r["n"] == n and r["variant"] == v]
            if not rs:
                continue
            ctl = [r["seconds"] for r in results if r["workload"] == wl and r["phase"] == PHASE[wl]
                   and r["n"] == 0 and r["variant"] == v]
            s = {"workload": wl, "phase": PHASE[wl], "n": n, "variant": v, "runs": len(rs),
                 "pages": rs[0]["pages"],
                 "seconds": stat([r["seconds"] for r in rs]),
                 "major_faults": stat([r["major_faults"] for r in rs]),
                 "dev_pages_read": stat([r["dev_pages_read"] for r in rs]),
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
            rs = [r for r in results if r["workload"] == "ra-method" and r["mem_kb"] == mkb
                  and r["phase"] == pat and r["variant"] == v]
            if not rs:
                continue
            s = {"workload": "ra-method", "phase": pat, "variant": v, "runs": len(rs),
                 "mem_kb": mkb, "file_pages": rs[0]["pages"], "touched": rs[0]["touched"],
                 "file_vs_mem": round(rs[0]["pages"] * 4 / mkb, 2),
                 "dev_pages_read": stat([r["dev_pages_read"] for r in rs]),
                 "dev_pages_per_s": stat([r["dev_pages_per_s"] for r in rs]),
                 "seconds": stat([r["seconds"] for r in rs]),
                 "major_faults": stat([r["major_faults"] for r in rs]),
                 "command": f"ra-method array.u8 {pat} SEED (read_ahead_kb 8192)"}
            if ref is None:
                ref = s["dev_pages_read"]["median"]
            elif ref:
                s["pages_vs_ref_pct"] = round(100.0 * (s["dev_pages_read"]["median"] - ref) / ref, 3)
            method.append(s)
summary += method

doc = {"command": cmd, "scale": scale, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
       "elapsed_s": int(elapsed), "accel": sorted(accel), "guest_mem": mem,
       "read_ahead_kb": sorted({b["read_ahead_kb"] for b in boots}),
       "root_image": os.path.basename(root), "data_disk": os.path.basename(disk),
       "kernels": kernels, "order": [f'{b["round"]}:{b["variant"]}' for b in boots],
       "boots": boots, "summary": summary, "results": results}
with open(out + ".json", "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")

def mmm(d, fmt="{:.2f}"):
    return " / ".join(fmt.format(d[k]) for k in ("min", "median", "max"))

sq = [s for s in summary if s["workload"] == "sqlite"]
npy = [s for s in summary if s["workload"] == "numpy"]
md = []
md.append(f"# make bench ({scale})\n")
md.append(f"Command: `{cmd}` ({doc['date']}, {int(elapsed) // 60} min {int(elapsed) % 60} s in all).  ")
md.append(f"Accelerator: {', '.join(doc['accel'])}; guest memory {mem}; data disk read_ahead_kb "
          f"{', '.join(map(str, doc['read_ahead_kb']))}; root {doc['root_image']} (Debian 12, "
          f"make-benchroot.sh), data {doc['data_disk']}.  ")
md.append("Kernels: " + "; ".join(f"{v} = {k['uname_r']} ({k['bzImage']}, sha256 {k['sha256_16']})"
                                   for v, k in kernels.items()) + ".  ")
md.append(f"Boot order: {' '.join(b['variant'] for b in boots if b['job'] == 'bench')} (one boot = one run of every case, "
          "each from a cold cache; seeds follow the round, the same for every kernel).\n")
if sq:
    pages = sq[0]["pages"]
    sqv = next((r.get("sqlite") for r in results if r.get("sqlite")), "?")
    md.append(f"## SQLite {sqv}: N random lookups, then a full scan\n")
    md.append(f"Database of {pages} pages, `PRAGMA mmap_size` over all of it (python3's sqlite3 "
              "module on Debian's libsqlite3). Scan: `SELECT sum(length(v)), count(*) FROM t`. "
              f"Stuck: more than a quarter of the {pages} pages taken as major faults in the scan. "
              "Figures are min / median / max; vs control is the median scan time over the "
              "same kernel's N=0 median.\n")
    md.append("| N | kernel | runs | stuck | scan s | scan major faults | pages read | vs control | command |")
    md.append("|---|---|---|---|---|---|---|---|---|")
    for s in sq:
        md.append(f"| {s['n']} | {s['variant']} | {s['runs']} | {s['stuck']} | {mmm(s['seconds'])} | "
                  f"{mmm(s['major_faults'], '{:.0f}')} | {mmm(s['dev_pages_read'], '{:.0f}')} | "
                  f"{s.get('vs_control', '')} | `{s['command']}` |")
    md.append("")
if npy:
    npv = next((r.get("numpy") for r in results if r.get("numpy")), "?")
    md.append(f"## numpy {npv} memmap: N random rows from the first 75 %, then the last 25 % in order\n")
    md.append(f"Array of {npy[0]['pages'] * 4} pages (4 KiB rows), sequential part {npy[0]['pages']} pages, "
              "1 MiB of rows summed at a time. N=0 is the control.\n")
    md.append("| N | kernel | runs | seq s | seq major faults | pages read | vs control | command |")
    md.append("|---|---|---|---|---|---|---|---|")
    for s in npy:
        md.append(f"| {s['n']} | {s['variant']} | {s['runs']} | {mmm(s['seconds'])} | "
                  f"{mmm(s['major_faults'], '{:.0f}')} | {mmm(s['dev_pages_read'], '{:.0f}')} | "
                  f"{s.get('vs_control', '')} | `{s['command']}` |")
    md.append("")
if method:
    md.append("## The method of 0b9c0aeba938's changelog\n")
    md.append(f"1 % of a {method[0]['file_pages'] * 4 // 1024} MiB file (array.u8) touched through a "
              "shared mapping from a cold cache, read_ahead_kb 8192, in a guest smaller than the "
              "file and one larger (upstream: 20 GiB and 4 GiB files in an 8 GiB guest). "
              "Pages read from the device: min / median / max; vs ref: median against the "
              f"{variants[0]} median (goal: within 0.1 %).\n")
    md.append("| file / guest memory | pattern | kernel | runs | pages read | vs ref % | pages/s (median) | s | major faults | command |")
    md.append("|---|---|---|---|---|---|---|---|---|---|")
    for s in method:
        md.append(f"| {s['file_vs_mem']} ({s['mem_kb'] // 1024} MiB guest) | {s['phase']} | {s['variant']} | "
                  f"{s['runs']} | {mmm(s['dev_pages_read'], '{:.0f}')} | {s.get('pages_vs_ref_pct', '')} | "
                  f"{s['dev_pages_per_s']['median']:.0f} | {mmm(s['seconds'])} | "
                  f"{mmm(s['major_faults'], '{:.0f}')} | `{s['command']}` |")
    md.append("")
charts = []
# charts: median with min..max bars, one cluster per case, one bar per kernel
def chart(rows, title, png, ylabel, key, logy=False):
    dat = png[:-4] + ".dat"
    with open(dat, "w") as f:
        f.write("# case " + " ".join(f"{v}_med {v}_min {v}_max" for v in variants) + "\n")
        for n in sorted({s["n"] for s in rows}):
            vals = []
            for v in variants:
                s = next((s for s in rows if s["n"] == n and s["variant"] == v), None)
                d = s[key] if s else {"median": "NaN", "min": "NaN", "max": "NaN"}
                vals += [str(d["median"]), str(d["min"]), str(d["max"])]
            f.write(f"N={n} " + " ".join(vals) + "\n")
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
md.append("Charts: " + ", ".join(f"[{c}]({c})" for c in charts) + ".\n")
md.append(f"Raw results and every run: {os.path.basename(out)}.json; consoles: {os.path.basename(out)}/.")
with open(out + ".md", "w") as f:
    f.write("\n".join(md) + "\n")
print("\n".join(md))
PY
log "wrote results/$name.md, results/$name.json and the charts in $((elapsed / 60)) min $((elapsed % 60)) s"
