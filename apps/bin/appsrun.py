#!/usr/bin/env python3
"""Run one client of make bench-apps in the guest and print its @@RESULT.

    appsrun.py [-m MEMORY_MAX] [-k KEY=VALUE]... -- COMMAND...

From a cold cache (sync, drop_caches), COMMAND runs in the memory cgroup
/sys/fs/cgroup/apps (cgroup v2; memory.max MEMORY_MAX, default "max"), so
that the cgroup's memory.stat counts its faults and only its own. Prints
"@@RUN COMMAND" and one "@@RESULT {json}": the KEY=VALUE tags, wall
seconds, the cgroup's pgmajfault, pgfault, the read requests and KiB of
the data disk (vdb: the model and the JPEG) and of the root disk (vda:
the programs and libraries), and what the client said of itself
(llama.cpp's eval and prompt times, gm benchmark's iterations), found in
its output. The output is kept in /tmp/last.out.
"""
import json, os, re, subprocess, sys, time

CG = "/sys/fs/cgroup/apps"


def memstat():
    d = {}
    with open(CG + "/memory.stat") as f:
        for line in f:
            k, v = line.split()
            d[k] = int(v)
    return d


def disk(dev):
    try:
        with open(f"/sys/block/{dev}/stat") as f:
            x = f.read().split()
        return int(x[0]), int(x[2]) // 2
    except OSError:
        return 0, 0


def main():
    args = sys.argv[1:]
    mem, tags = "max", {}
    while args and args[0] != "--":
        if args[0] == "-m":
            mem = args[1]
        elif args[0] == "-k":
            k, v = args[1].split("=", 1)
            tags[k] = int(v) if re.fullmatch(r"-?\d+", v) else v
        else:
            sys.exit(f"appsrun: unknown option {args[0]}")
        args = args[2:]
    cmd = args[1:]
    if not os.path.isdir(CG):
        with open("/sys/fs/cgroup/cgroup.subtree_control", "w") as f:
            f.write("+memory")
        os.mkdir(CG)
    with open(CG + "/memory.max", "w") as f:
        f.write(mem)
    print("@@RUN " + " ".join(cmd), flush=True)
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3")
    m0, b0, a0 = memstat(), disk("vdb"), disk("vda")
    t0 = time.time()

    def enter():
        with open(CG + "/cgroup.procs", "w") as f:
            f.write(str(os.getpid()))

    with open("/tmp/last.out", "w") as out:
        rc = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT, preexec_fn=enter)
    secs = time.time() - t0
    m1, b1, a1 = memstat(), disk("vdb"), disk("vda")
    text = open("/tmp/last.out", errors="replace").read()
    r = dict(tags)
    r.update({"rc": rc, "seconds": round(secs, 3), "memory_max": mem,
              "major_faults": m1["pgmajfault"] - m0["pgmajfault"],
              "faults": m1["pgfault"] - m0["pgfault"],
              "vdb_reads": b1[0] - b0[0], "vdb_kib": b1[1] - b0[1],
              "vda_reads": a1[0] - a0[0], "vda_kib": a1[1] - a0[1]})
    m = re.search(r"@@TOUCH-FIRST touches=(\d+) major_faults=(\d+)", text)
    if m:
        r["touches"], r["touch_faults"] = int(m.group(1)), int(m.group(2))
    # llama.cpp (common_perf_print)
    m = re.search(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens", text)
    if m:
        r["prompt_ms"], r["prompt_tokens"] = float(m.group(1)), int(m.group(2))
    m = re.search(r"\beval time =\s*([\d.]+) ms /\s*(\d+) runs", text)
    if m:
        r["eval_ms"], r["eval_runs"] = float(m.group(1)), int(m.group(2))
        if r["eval_runs"] and r["eval_ms"] > 0:
            r["tok_s"] = round(1000.0 * r["eval_runs"] / r["eval_ms"], 4)
    m = re.search(r"load time =\s*([\d.]+) ms", text)
    if m:
        r["load_ms"] = float(m.group(1))
    # gm benchmark: "Results: 2 threads 5 iter 10.07s user 10.08s total 0.496 iter/s ..."
    m = re.search(r"Results: (\d+) threads (\d+) iter ([\d.]+)s user ([\d.]+)s total ([\d.]+) iter/s", text)
    if m:
        r["threads"], r["iterations"] = int(m.group(1)), int(m.group(2))
        r["user_s"], r["total_s"] = float(m.group(3)), float(m.group(4))
        r["iter_per_min"] = round(60.0 * float(m.group(5)), 3)
    # the client's own results (ggufread's passes), with the tags
    for line in text.splitlines():
        if line.startswith("@@RESULT {"):
            sub = dict(tags)
            sub.update(json.loads(line[9:]))
            print("@@PART " + json.dumps(sub))
    print("@@RESULT " + json.dumps(r), flush=True)
    if rc:
        print(f"@@LAB-ERROR exit {rc}: " + " ".join(cmd))
        sys.stdout.write(text[-2000:])
    return rc


sys.exit(main())
