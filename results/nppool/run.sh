#!/bin/bash
# A thread pool over one numpy.memmap after random reads, a real user of
# the series' patch 2 (readers taking turns): guest/bench/jobs/nppool.sh in
# make bench's Debian guest, on make bench-small's data disk (array.u8,
# 256 MiB), read_ahead_kb 128, 1 GiB guests, one boot per kernel and case
# with REPS runs of each N after a warm-up. Kernels: base (7.3-rc7),
# patch1 (the series' patch 1 alone), patched (the series). Cases:
#   whole  random reads anywhere in the file, then the pool sums all of it
#          (256 MiB): the measurement
#   away   random reads in the upper 128 MiB only, the pool sums the lower
#          128 MiB: a diagnostic, no read-around window of the random
#          reads in the scan's way
# Needs the three kernels (build/{base,patch1,patched}/bzImage: make check
# builds them) and scripts/make-benchroot.sh's root and small disk; holds
# the lab's lock (lib.sh's lab_lock) throughout, so that no kernel is
# rebuilt between the boots. REPS (default 2); NPPOOL_CASES (default
# "whole away"); NPPOOL_CHUNK_MIB (default 4): the pool's chunk;
# NPPOOL_KERNELS (default "base patch1 patched"): build/K of each;
# NPPOOL_OUT (default results/nppool): where consoles and report go;
# REPORT_ONLY=1: the report again from the consoles.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib.sh
out=${NPPOOL_OUT:-results/nppool}
read -r -a kernels <<< "${NPPOOL_KERNELS:-base patch1 patched}"
reps=${REPS:-2} chunk=${NPPOOL_CHUNK_MIB:-4}
read -r -a cases <<< "${NPPOOL_CASES:-whole away}"
# console-K.log for whole, console-away-K.log for away
console() { if [ "$1" = whole ]; then echo "$out/console-$2.log"; else echo "$out/console-$1-$2.log"; fi; }
if [ "${REPORT_ONLY:-0}" != 1 ]; then
	lab_lock
	for k in "${kernels[@]}"; do
		[ -f "build/$k/bzImage" ] || die "no build/$k/bzImage (make check builds base, patch1 and patched)"
	done
	start=$(date -u '+%F %H:%M')
	root=$(bash scripts/make-benchroot.sh)
	disk=$(bash scripts/make-benchroot.sh disk small)
	warm "$root" "$disk"
	times=()
	for c in "${cases[@]}"; do
		case $c in
		whole) args="$reps 0:1000 $chunk 256 4 0" ;;
		away)  args="$reps 0:1000 $chunk 128 4 128" ;;
		*) die "no case '$c' (whole or away)" ;;
		esac
		for k in "${kernels[@]}"; do
			t0=$(date +%s)
			bash scripts/run-guest.sh -k "build/$k/bzImage" -r "$root" -d "$disk" -m 1G \
				-t 2400 -j nppool -a "$args" -o "$(console "$c" "$k")"
			times+=("$c $k $(( $(date +%s) - t0 )) s")
		done
	done
	# shellcheck disable=SC2034 # provenance (lib.sh) reads it
	KROOT=$(kroot)
	joined=$(printf '%s, ' "${times[@]}")
	{ echo "$start UTC to $(date -u '+%H:%M') UTC; boots one after another: ${joined%, };"
	  echo "$(provenance "${kernels[@]}");"
	  for k in "${kernels[@]}"; do
		# the image booted, as build-kernel.sh recorded it
		# shellcheck disable=SC1090
		. "build/$k/info.env"
		echo "build/$k/bzImage: $KERNELRELEASE, commit ${COMMIT:0:12}," \
			"$SERIES_PATCHES patches, sha256 $(sha256sum "build/$k/bzImage" | cut -c1-16);"
	  done
	  echo "root ${root##*/}, disk ${disk##*/};"
	  echo "$(qemu-system-x86_64 --version | head -1)."; } > "$out/provenance.txt"
fi
PYTHONPATH=scripts python3 - "$out" "${kernels[@]}" <<'PY'
import json, os, re, statistics, sys
from labreport import read_console

out, kernels = sys.argv[1], sys.argv[2:]
med = lambda rs, f: statistics.median(r[f] for r in rs)


def spread(rs, f):
    lo, hi = min(r[f] for r in rs), max(r[f] for r in rs)
    return "" if lo == hi else " (%d-%d)" % (lo, hi)


def load(case):
    """{(n, kernel): scans}, {(n, kernel): random phases}, {kernel: (uname,
    settings)} of one case's consoles; None when the case was not run"""
    rows, rand, setup = {}, {}, {}
    for k in kernels:
        path = "%s/console-%s%s.log" % (out, "" if case == "whole" else case + "-", k)
        if not os.path.exists(path):
            return None
        recs, meta = read_console(path)
        if "@@LAB-DONE rc=0" not in meta["text"]:
            sys.exit(f"{path}: the job did not finish (no @@LAB-DONE rc=0)")
        m = re.search(r"@@BENCH nppool (.*)", meta["text"])
        setup[k] = (meta.get("kernel"), m.group(1).strip() if m else "?")
        for _, _, r in recs:
            if r.get("workload") != "nppool" or r.get("warmup"):
                continue
            (rows if r["phase"] == "scan" else rand).setdefault((r["n"], k), []).append(r)
    scans = [r for rs in rows.values() for r in rs]
    if not scans:
        sys.exit(f"{case}: no scan results in the consoles")
    # every scan of the case read the same bytes of the same file
    sums = {(r["chunks"], r["chunk_mib"], r["checksum"]) for r in scans}
    if len(sums) != 1:
        sys.exit(f"{case}: the scans' checksums differ: {sorted(sums)}")
    return rows, rand, setup, scans


def table(case, rows, rand):
    md = ["| N | kernel | runs | major faults | vs control | minor faults | pages read "
          "| seconds | in flight | chunk majors | random phase: major, pages read |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    js = []
    for n in sorted({n for n, _ in rows}):
        for k in kernels:
            rs = rows.get((n, k), [])
            if not rs:
                continue
            mf = med(rs, "major_faults")
            ctl = med(rows[(0, k)], "major_faults") if (0, k) in rows else None
            cm = [statistics.median(r["chunk_major_faults"]) for r in rs]
            cx = max(max(r["chunk_major_faults"]) for r in rs)
            rr = rand.get((n, k), [])
            md.append("| %d | %s | %d | %d%s | %s | %d%s | %d%s | %.1f | %d, %.0f %% "
                      "| %g, %d | %s |" % (
                n, k, len(rs), mf, spread(rs, "major_faults"),
                "%.2f" % (mf / ctl) if ctl else "-",
                med(rs, "minor_faults"), spread(rs, "minor_faults"),
                med(rs, "dev_pages_read"), spread(rs, "dev_pages_read"),
                med(rs, "seconds"),
                min(r["max_inflight"] for r in rs), 100 * min(r["overlap"] for r in rs),
                statistics.median(cm), cx,
                "%d, %d" % (med(rr, "major_faults"), med(rr, "dev_pages_read"))
                if rr else "-"))
            js.append({"case": case, "n": n, "kernel": k, "runs": rs, "random": rr})
    return md, js


whole = load("whole")
if whole is None:
    sys.exit(f"no consoles of the case 'whole' in {out}")
rows, rand, setup, scans = whole
s0 = scans[0]
md = ["# A numpy.memmap thread pool after random reads: base, patch 1, the series\n",
      "Command: `REPS=%d bash results/nppool/run.sh` (`guest/bench/jobs/nppool.sh`:" % (
          len(rows.get((0, kernels[0]), []))),
      "python3 %s and numpy %s (Debian 12) map array.u8 of make bench-small" % (
          s0["python"], s0["numpy"]),
      "(256 MiB) once, one open, from a cold cache (drop_caches 3), read N random",
      "bytes, each on its own random page, then a ThreadPoolExecutor of %d workers" % (
          s0["workers"]),
      "sums the first %d MiB in %d chunks of %d MiB in order," % (
          s0["chunks"] * s0["chunk_mib"], s0["chunks"], s0["chunk_mib"]),
      "`pool.map(lambda i: int(a[i*C:(i+1)*C].sum()), range(n))`; read_ahead_kb",
      "128, 1 GiB guests of 2 vCPUs under QEMU TCG, one boot per kernel and case);",
      open(out + "/provenance.txt").read().strip(),
      "Guests: %s; the job's settings (its @@BENCH line): %s." % (
          ", ".join(str(setup[k][0]) for k in kernels),
          " / ".join(sorted({setup[k][1] for k in kernels}))),
      "Consoles: results/nppool/console-*.log. What the figures show, and what",
      "is odd: results/nppool/README.md.\n",
      "base is 7.3-rc7, patch1 the series' patch 1 alone, patched the six patches.",
      "Figures of the scan alone (the process's getrusage() deltas; pages read from",
      "/dev/vdb) are medians of the runs, min-max in brackets where they differ;",
      "\"vs control\" is the scan's major faults over the same kernel's N=0 median;",
      "\"in flight\" the most chunks being summed at once and the share of the",
      "scan's time with two or more, the lowest of the runs (the threads",
      "overlapped); \"chunk majors\" the median of one chunk's major faults (its",
      "thread's RUSAGE_THREAD delta) and the most.\n",
      "## Random reads anywhere in the file, the pool sums all of it\n",
      "The scan reads %d pages; the random reads fall anywhere in the file." % (
          s0["chunks"] * s0["chunk_mib"] * 256) + "\n"]
t, js = table("whole", rows, rand)
md += t
away = load("away")
if away is not None:
    arows, arand, asetup, ascans = away
    a0 = ascans[0]
    md += ["\n## Diagnostic: random reads away from the scan\n",
           "The same job, `nppool.sh REPS 0:1000 %d %d 4 %d`: the random reads only in" % (
               a0["chunk_mib"], a0["chunks"] * a0["chunk_mib"],
               a0["random_from_page"] // 256),
           "[%d MiB, 256 MiB), the pool sums the first %d MiB (%d pages); consoles" % (
               a0["random_from_page"] // 256, a0["chunks"] * a0["chunk_mib"],
               a0["chunks"] * a0["chunk_mib"] * 256),
           "results/nppool/console-away-*.log.\n"]
    t, j = table("away", arows, arand)
    md += t
    js += j
open(out + ".md", "w").write("\n".join(md) + "\n")
json.dump(js, open(out + ".json", "w"), indent=1)
print("\n".join(md))
PY
