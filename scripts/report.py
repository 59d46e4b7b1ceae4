#!/usr/bin/env python3
"""Turn the guests' console logs into the side-by-side report.

    report.py OUT_PREFIX VARIANT=CONSOLE_LOG [VARIANT=CONSOLE_LOG ...]

Reads the "@@RESULT {json}" lines of each log (each with the command of
the "@@RUN" line before it), writes OUT_PREFIX.json (a JSON array, one
record per workload, phase and variant) and OUT_PREFIX.md (a table), and
prints the table. The first variant is the reference for the ratios. A
record may name more of its fields in "metrics" ("a,b"): they get a second
table, a row per field.
"""
import json
import os
import re
import sys

FIELDS = ("major_faults", "dev_pages_read", "seconds")


class ParseError(Exception):
    pass


def parse_console(path):
    """Return (records, meta) from one console log.

    Raises ParseError for a result line whose JSON object cannot be read:
    a result that is lost must fail the report, not show as "-".
    """
    records, meta, command = [], {}, None
    decoder = json.JSONDecoder()
    with open(path, errors="replace") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            # A marker may follow the firmware's escape codes on a line,
            # and a kernel message may follow the object on the same
            # console line: read one JSON object and ignore what follows.
            i = line.find("@@RESULT ")
            if i >= 0:
                text = line[i + len("@@RESULT "):].lstrip()
                try:
                    rec, _ = decoder.raw_decode(text)
                except ValueError as e:
                    raise ParseError("%s:%d: result line without a readable "
                                     "JSON object (%s): %s" % (path, n, e, line))
                if not isinstance(rec, dict) or "workload" not in rec:
                    raise ParseError("%s:%d: result is not a workload record: %s"
                                     % (path, n, line))
                if command:
                    rec.setdefault("command", command)
                records.append(rec)
                continue
            m = re.search(r"@@RUN (.*\S)", line)
            if m:
                command = m.group(1)
                continue
            m = re.search(r"@@LAB-ACCEL (\w+)", line)
            if m:
                meta["accel"] = m.group(1)
            m = re.search(r"@@LAB-BOOT kernel=(\S+)", line)
            if m:
                meta["kernel"] = m.group(1)
    return records, meta


def key_of(rec):
    """What makes two records the same measurement on two kernels."""
    k = rec["workload"]
    if "random_faults" in rec:
        k += " N=%d" % rec["random_faults"]
    if rec.get("stride_pages"):
        k += " %d" % rec["stride_pages"]
    if rec.get("phase") not in (None, "read"):
        k += " (%s)" % rec["phase"]
    return k


def read_env(path):
    env = {}
    if os.path.exists(path):
        for line in open(path):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                env[k] = v
    return env


def ratio(a, b):
    if a is None or b is None:
        return None
    if b == 0:
        return None if a != 0 else 1.0
    return a / b


def fmt_num(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "%.2f" % v
    return str(v)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    prefix, pairs = argv[1], argv[2:]
    lab = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cache = os.environ.get("MMLAB_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mmlab")
    base = read_env(os.path.join(cache, "base.env"))

    variants, out = [], []
    by_key = {}
    for p in pairs:
        variant, path = p.split("=", 1)
        variants.append(variant)
        try:
            recs, meta = parse_console(path)
        except ParseError as e:
            sys.exit("report: %s" % e)
        if not recs:
            sys.exit("report: no results in %s (%s)" % (path, variant))
        info = read_env(os.path.join(lab, "build", variant, "info.env"))
        for r in recs:
            r.update(variant=variant, kernel=meta.get("kernel"),
                     accel=meta.get("accel"),
                     base_package=base.get("BASE_PKG_USED"),
                     base_version=base.get("BASE_VERSION_USED"),
                     base_pinned=base.get("BASE_PINNED") == "yes",
                     # unknown (None) where this checkout did not build
                     # the kernel: consoles reported again elsewhere
                     series_patches=int(info["SERIES_PATCHES"]) if info.get("SERIES_PATCHES") else None,
                     commit=info.get("COMMIT"))
            out.append(r)
            by_key.setdefault(key_of(r), {})[variant] = r

    with open(prefix + ".json", "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")

    ref = variants[0]
    lines = []
    notes = []
    if base and base.get("BASE_PINNED") != "yes":
        notes.append("**WARNING: base is %s %s, NOT the pinned version.**"
                     % (base.get("BASE_PKG_USED"), base.get("BASE_VERSION_USED")))
    accels = sorted({r.get("accel") or "?" for r in out})
    kernels = sorted({"%s: %s" % (r["variant"], r.get("kernel")) for r in out})
    notes.append("Base: %s %s; kernels: %s; accel: %s."
                 % (base.get("BASE_PKG_USED", "?"), base.get("BASE_VERSION_USED", "?"),
                    ", ".join(kernels), "/".join(accels)))
    for v in variants[1:]:
        n = {r["series_patches"] for r in out if r["variant"] == v}
        if n == {0}:
            notes.append("**%s has no patches applied: it is the base tree.**" % v)

    head = ["workload", "pages"]
    for f in FIELDS:
        for v in variants:
            head.append("%s %s" % (f.replace("_", " "), v))
    for v in variants[1:]:
        head.append("seconds %s/%s" % (v, ref))
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for k, per in by_key.items():
        row = [k, fmt_num(per.get(ref, next(iter(per.values()))).get("pages"))]
        for f in FIELDS:
            for v in variants:
                row.append(fmt_num(per.get(v, {}).get(f)))
        for v in variants[1:]:
            row.append(fmt_num(ratio(per.get(v, {}).get("seconds"),
                                     per.get(ref, {}).get("seconds"))))
        lines.append("| " + " | ".join(row) + " |")

    # Fields a record names in "metrics" (comma-separated), one row each
    extra = []
    for k, per in by_key.items():
        names = []
        for r in per.values():
            for m in (r.get("metrics") or "").split(","):
                if m and m not in names:
                    names.append(m)
        for m in names:
            row = [k, m.replace("_", " ")]
            row += [fmt_num(per.get(v, {}).get(m)) for v in variants]
            row += [fmt_num(ratio(per.get(v, {}).get(m), per.get(ref, {}).get(m)))
                    for v in variants[1:]]
            extra.append("| " + " | ".join(row) + " |")
    if extra:
        head = ["workload", "metric"] + variants
        head += ["%s/%s" % (v, ref) for v in variants[1:]]
        lines.append("")
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        lines += extra

    # what ran, at which scale: each guest command (the @@RUN line before
    # a result) with the rows it gave
    cmds = {}
    for k, per in by_key.items():
        c = per.get(ref, next(iter(per.values()))).get("command")
        if c:
            cmds.setdefault(c, []).append(k)
    if cmds:
        lines += ["", "Commands (in the guest, on the data disk):", ""]
        lines += ["- `%s`: %s" % (c, ", ".join(ks)) for c, ks in cmds.items()]

    text = "\n".join(notes) + "\n\n" + "\n".join(lines) + "\n"
    with open(prefix + ".md", "w") as f:
        f.write("# mmap_miss recovery: %s\n\n" % " vs ".join(variants))
        f.write(text)
        f.write("\nMajor faults: getrusage() of the workload; device pages: "
                "/sys/block/vda/stat sectors / 8; seconds: wall clock in the "
                "guest (noisy under TCG: compare the ratio, not the value).\n")
    print(text)


if __name__ == "__main__":
    main(sys.argv)
