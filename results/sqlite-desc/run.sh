#!/bin/bash
# SQLite scans after 1000 random lookups, backwards (ORDER BY id DESC) and
# forwards, against the same scans without lookups, on base, v4 and the
# series: guest/bench/jobs/sqldesc.sh in make bench's Debian guest, on
# make bench-small's data disk, read_ahead_kb 128, 1 GiB guests, one boot
# per kernel with REPS runs of each case. Needs the three kernels (make
# check or scripts/side-by-side.sh down builds them) and
# scripts/make-benchroot.sh's root and small disk. REPORT_ONLY=1: the
# report again from the consoles.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib.sh
out=results/sqlite-desc
kernels=(base v4 patched)
if [ "${REPORT_ONLY:-0}" != 1 ]; then
	start=$(date -u '+%F %H:%M')
	root=$(bash scripts/make-benchroot.sh)
	disk=$(bash scripts/make-benchroot.sh disk small)
	for k in "${kernels[@]}"; do
		bash scripts/run-guest.sh -k "build/$k/bzImage" -r "$root" -d "$disk" -m 1G \
			-t 3600 -j sqldesc -a "${REPS:-2} 0:1000" -o "$out/console-$k.log"
	done
	# shellcheck disable=SC2034 # provenance (lib.sh) reads it
	KROOT=$(kroot)
	{ echo "$start UTC to $(date -u '+%H:%M') UTC; $(provenance "${kernels[@]}");"
	  echo "$(qemu-system-x86_64 --version | head -1)."; } > "$out/provenance.txt"
fi
PYTHONPATH=scripts python3 - "$out" "${kernels[@]}" <<'PY'
import json, statistics, sys
from labreport import read_console

out, kernels = sys.argv[1], sys.argv[2:]
rows = {}
for k in kernels:
    for _, _, r in read_console(f"{out}/console-{k}.log")[0]:
        if r.get("workload") == "sqlite" and r.get("phase", "").startswith("scan") \
                and not r.get("warmup"):
            rows.setdefault((r["phase"], r["n"], k), []).append(r)
med = lambda rs, f: statistics.median(r[f] for r in rs)
md = ["# SQLite scans after random lookups, backwards and forwards\n",
      "Command: `bash results/sqlite-desc/run.sh` (`guest/bench/jobs/sqldesc.sh`:",
      "python3's sqlite3 on Debian 12's libsqlite3, `PRAGMA mmap_size` over the",
      "whole database of make bench-small, N random lookups by rowid, then",
      "`SELECT ... ORDER BY id DESC` (scan-desc) or a plain full scan (scan), each",
      "on a new connection from a cold cache; read_ahead_kb 128, 1 GiB guests);",
      open(out + "/provenance.txt").read().strip(),
      "Consoles: results/sqlite-desc/console-*.log. Figures are medians of the",
      "runs (min-max in brackets where they differ); \"vs control\" is the scan's",
      "major faults over the same kernel's N=0 median, same direction.\n",
      "| scan | N | kernel | runs | major faults | vs control | pages read | seconds |",
      "|---|---|---|---|---|---|---|---|"]
js = []
for phase in ("scan-desc", "scan"):
    for n in (0, 1000):
        for k in kernels:
            rs = rows.get((phase, n, k), [])
            if not rs:
                continue
            mf = med(rs, "major_faults")
            ctl = med(rows[(phase, 0, k)], "major_faults")
            spread = lambda f: "" if min(r[f] for r in rs) == max(r[f] for r in rs) else \
                " (%d-%d)" % (min(r[f] for r in rs), max(r[f] for r in rs))
            md.append("| %s | %d | %s | %d | %d%s | %.2f | %d | %.1f |" % (
                phase, n, k, len(rs), mf, spread("major_faults"), mf / ctl,
                med(rs, "dev_pages_read"), med(rs, "seconds")))
            js.append({"phase": phase, "n": n, "kernel": k, "runs": rs})
open(out + ".md", "w").write("\n".join(md) + "\n")
json.dump(js, open(out + ".json", "w"), indent=1)
print("\n".join(md))
PY
