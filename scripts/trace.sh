#!/bin/bash
# make trace: what mmap_miss does, fault by fault. guest/bench/bin/mmap-miss.bt
# (bpftrace) follows SQLite's N random lookups and then its full scan
# (sqlite-scan, the case make bench counts as stuck) on base and on the
# series, in make bench's Debian guest on its small data disk: each
# fault's mmap_miss before and after, and the readahead decision taken.
# The kernels are the plain ones plus config/bench.config (BTF, BPF,
# ftrace), built with LAB_FLAVOR=bench in their own object directories
# (build/VARIANT-bench/), so the plain kernels stay incremental; the
# first such build is a cold one with debug information (about 25 min
# here). Writes results/trace.md and the consoles under results/trace/.
#   TRACE_N=1000     lookups before the scan
#   TRACE_SEED=0     their seed (make bench's round 0)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export MMLAB_ENTRY="make trace (scripts/trace.sh)"
lab_lock

n=${TRACE_N:-1000}
seed=${TRACE_SEED:-0}
for x in "$n" "$seed"; do
	[[ $x =~ ^[0-9]+$ ]] || die "TRACE_N and TRACE_SEED take numbers, not '$x'"
done
S=$LAB/scripts
start=$(date +%s)
bash "$S/deps.sh" bench
variants=(base patched)
LAB_FLAVOR=bench build_kernels "${variants[@]}"
root=$(bash "$S/make-benchroot.sh")
disk=$(bash "$S/make-benchroot.sh" disk small)

logs=$RESULTS/trace
rm -rf "$logs"
mkdir -p "$logs"
for v in "${variants[@]}"; do
	log "trace: $v, sqlite-scan bench.db $n $seed under mmap-miss.bt"
	nice -n 10 bash "$S/run-guest.sh" -k "$BUILD/$v-bench/bzImage" -r "$root" -d "$disk" \
		-m 1G -t 1200 -o "$logs/console-$v.log" -j trace -a "$n $seed 128"
done
elapsed=$(( $(date +%s) - start ))

# shellcheck disable=SC2034 # provenance (lib.sh) reads it
KROOT=$(kroot)
python3 - "$RESULTS/trace.md" "$n" "$seed" "$elapsed" "$(provenance "${variants[@]}"); $(qemu-system-x86_64 --version | head -1)" \
	"${variants[@]}" <<'PY'
import json, re, sys, time

out, n, seed, elapsed, prov = sys.argv[1:6]
variants = sys.argv[6:]
md = ["# make trace: mmap_miss fault by fault\n",
      f"Command: `TRACE_N={n} TRACE_SEED={seed} make trace` "
      f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {int(elapsed) // 60} min "
      f"{int(elapsed) % 60} s in all, kernel builds included); {prov}.  ",
      f"In make bench's Debian guest (1 GiB, small data disk, read_ahead_kb 128): "
      f"`bpftrace -c 'sqlite-scan bench.db {n} {seed}' mmap-miss.bt INODE`, the script "
      "guest/bench/bin/mmap-miss.bt (its header says what each field is). "
      "The lines are the first 12 faults on bench.db, then each fault whose "
      "decision differs from the fault before, and every probe; the maps at the end "
      "count all of them.\n"]
for v in variants:
    text = open(f"{out[:-3]}/console-{v}.log", errors="replace").read()
    m = re.search(r"@@LAB-BOOT kernel=(\S+)", text)
    if not m:
        sys.exit(f"trace: no @@LAB-BOOT line in the {v} console")
    uname = m.group(1)
    m = re.search(r"@@TRACE-BEGIN\r?\n(.*?)@@TRACE-END rc=0", text, re.S)
    if not m:
        sys.exit(f"trace: no complete trace in the {v} console")
    res = {}
    trace = []
    for l in m.group(1).splitlines():
        l = l.rstrip("\r")
        r = re.search(r"@@RESULT (\{.*\})", l)
        if r:
            d = json.loads(r.group(1))
            res[d["phase"]] = d
            trace.append(f"--- sqlite-scan: {d['phase']} done, {d['major_faults']} major faults ---")
        elif l.strip() and not l.startswith("@@"):
            trace.append(l)
    if "scan" not in res or not any(l.startswith("fault ") for l in trace):
        sys.exit(f"trace: the {v} trace has no scan result or no fault line")
    s, lk = res["scan"], res["lookups"]
    md.append(f"## {v} ({uname})\n")
    md.append(f"Lookups: {lk['major_faults']} major faults, {lk['dev_pages_read']} pages read. "
              f"Scan of {s['pages']} pages: {s['major_faults']} major faults, "
              f"{s['dev_pages_read']} pages read, {s['seconds']} s"
              f"{' (stuck)' if s['stuck'] else ''}.\n")
    md.append("```")
    md += trace
    md.append("```\n")
md.append("Consoles: trace/.")
with open(out, "w") as f:
    f.write("\n".join(md) + "\n")
print("\n".join(md))
PY
log "wrote results/trace.md in $((elapsed / 60)) min $((elapsed % 60)) s"
