#!/bin/bash
# The plain random reader (make sharp's random part), kernels in the order
# A B B A then B A A B (A base, B patched), 5 runs a boot, then the
# report, results/sharp-random-abba.md. Needs build/base and
# build/patched (make sharp or make demo) and the initramfs make sharp
# builds (scripts/make-initramfs.sh patched). REPORT_ONLY=1: the report
# again from the consoles.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib.sh
out=results/sharp-random-abba
if [ "${REPORT_ONLY:-0}" != 1 ]; then
	start=$(date -u '+%F %H:%M')
	i=0
	for k in base patched patched base patched base base patched; do
		i=$((i+1))
		bash scripts/run-guest.sh -k "build/$k/bzImage" -j sharp -a "random 0 524288 4096 5" \
			-d "$(bash scripts/make-disk.sh demo)" -f ext4 -m 1G -t 3600 \
			-o "$out/console-$i-$k.log"
	done
	# shellcheck disable=SC2034 # provenance (lib.sh) reads it
	KROOT=$(kroot)
	{ echo "$start UTC to $(date -u '+%H:%M') UTC; $(provenance base patched);"
	  echo "$(qemu-system-x86_64 --version | head -1)."; } > "$out/provenance.txt"
fi
PYTHONPATH=scripts python3 - "$out" <<'PY'
import glob, statistics, sys
from labreport import read_console

out = sys.argv[1]
runs = {}
for path in sorted(glob.glob(out + "/console-*.log")):
    k = path.rsplit("-", 1)[1][:-4]
    for tag, _, r in read_console(path)[0]:
        if r.get("phase", "").startswith("run"):
            runs.setdefault(k, []).append(r)
md = ["# The plain random reader, base and patched, A B B A then B A A B\n",
      "Command: `bash results/sharp-random-abba/run.sh` (make sharp's random part,",
      "`guest/jobs/sharp.sh random 0 524288 4096 5`: a sparse 4 GiB file on ext4,",
      "a 1 GiB guest, MAP_PRIVATE, 524288 random one-byte reads with a fixed seed,",
      "5 runs a boot, each on a new open with the cache dropped), booting base,",
      "patched, patched, base, then patched, base, base, patched, one after the",
      "other; " + open(out + "/provenance.txt").read().strip(),
      "Consoles: results/sharp-random-abba/console-*.log.\n",
      "| kernel | runs | seconds median | seconds min | seconds max | pages added median |",
      "|---|---|---|---|---|---|"]
med = {}
for k in ("base", "patched"):
    s = [r["seconds"] for r in runs[k]]
    p = [r["pages_added"] for r in runs[k]]
    med[k] = (statistics.median(s), statistics.median(p))
    md.append("| %s | %d | %.2f | %.2f | %.2f | %d |" % (k, len(s), med[k][0], min(s), max(s), med[k][1]))
md.append("\npatched/base: seconds %.3f, pages added %.5f." % (
    med["patched"][0] / med["base"][0], med["patched"][1] / med["base"][1]))
open(out + ".md", "w").write("\n".join(md) + "\n")
print("\n".join(md))
PY
