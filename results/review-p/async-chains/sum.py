# sum.py CONSOLE: the counters of instr.py's kernels between one @@RESULT
# line and the next (printed every 1024 counted misses, so each delta is
# to about 1024 misses)
import json
import sys

names = ("miss over run hitmap hitasync asyncexp asyncctx asyncnone "
         "cross readaround").split()
prev = last = None
for line in open(sys.argv[1], errors="replace"):
    if "@@DBG" in line:
        last = [int(x) for x in line.split("@@DBG")[1].split()]
    elif "@@RESULT" in line and last is not None:
        r = json.loads(line[line.index("{"):])
        if prev is not None:
            d = [a - b for a, b in zip(last, prev)]
            print(r["phase"], "n=%s" % r.get("n"), "major=%d" % r["major_faults"],
                  " ".join("%s=%d" % x for x in zip(names, d)))
        prev = last
