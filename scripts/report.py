#!/usr/bin/env python3
"""Turn the guests' console logs into the side-by-side report.

    report.py OUT_PREFIX VARIANT=CONSOLE_LOG [VARIANT=CONSOLE_LOG ...]
    report.py --again OUT_PREFIX

Reads the "@@RESULT {json}" lines of each log (each with the command of
the "@@RUN" line before it), writes OUT_PREFIX.json (a JSON array, one
record per workload, phase and variant) and OUT_PREFIX.md (a table per
figure, a row per workload), and prints the tables. The first variant is
the reference for the ratios. A record may name more of its fields in
"metrics" ("a,b"): they get a table of their own, a row per field. What
the consoles do not hold comes from build/VARIANT/info.env (the kernel's
tree), the cache's base.env and the lab's HEAD (or MMLAB_LAB_COMMIT).
--again remakes a report from its consoles, OUT_DIR/console-NAME-VARIANT.log,
and takes that from OUT_PREFIX.json, keeping the .md from "## Kernels" on.
"""
import json
import os
import sys

from labreport import ParseError, kernel_info, lab_commit, md_table, read_console, read_env, write_json


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


PROVENANCE = ("base_package", "base_version", "base_pinned", "series_patches", "commit",
              "lab_commit")


def provenance(variants):
    """Per variant: what the consoles do not say, from this checkout"""
    cache = os.environ.get("MMLAB_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mmlab")
    base = read_env(os.path.join(cache, "base.env"))
    out = {}
    for v in variants:
        info = kernel_info(v)
        out[v] = dict(base_package=base.get("BASE_PKG_USED"),
                      base_version=base.get("BASE_VERSION_USED"),
                      base_pinned=base.get("BASE_PINNED") == "yes",
                      # unknown (None) where this checkout did not build
                      # the kernel: consoles reported again elsewhere
                      series_patches=int(info["SERIES_PATCHES"]) if info.get("SERIES_PATCHES") else None,
                      commit=info.get("COMMIT"), lab_commit=lab_commit())
    return out


def again(prefix):
    """--again: the variants, consoles, provenance and .md trailer of the
    report at PREFIX as committed"""
    old = json.load(open(prefix + ".json"))
    prov = {}
    for r in old:
        p = prov.setdefault(r["variant"], {k: r.get(k) for k in PROVENANCE})
        p["lab_commit"] = (os.environ.get("MMLAB_LAB_COMMIT") or p["lab_commit"]
                           or "not recorded")
    logs = os.path.join(os.path.dirname(prefix), "console-%s-" % os.path.basename(prefix))
    md = open(prefix + ".md").read()
    tail = md[md.index("\n## Kernels"):] if "\n## Kernels" in md else ""
    return ["%s=%s%s.log" % (v, logs, v) for v in prov], prov, tail


def table(caption, head, rows):
    return ["", caption, ""] + md_table(head, rows)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    tail = ""
    if argv[1] == "--again":
        prefix = argv[2]
        pairs, prov, tail = again(prefix)
    else:
        prefix, pairs = argv[1], argv[2:]
        prov = provenance([p.split("=", 1)[0] for p in pairs])

    variants, out = [], []
    by_key = {}
    for p in pairs:
        variant, path = p.split("=", 1)
        variants.append(variant)
        try:
            recs, meta = read_console(path)
        except ParseError as e:
            sys.exit("report: %s" % e)
        if not recs:
            sys.exit("report: no results in %s (%s)" % (path, variant))
        for _, command, r in recs:
            if command:
                r.setdefault("command", command)
            r.update(variant=variant, kernel=meta.get("kernel"), accel=meta.get("accel"),
                     **prov[variant])
            out.append(r)
            by_key.setdefault(key_of(r), {})[variant] = r

    write_json(prefix + ".json", out, sort_keys=True)

    ref = variants[0]
    notes = []
    p0 = prov[ref]
    if p0["base_package"] and not p0["base_pinned"]:
        notes.append("**WARNING: base is %s %s, NOT the pinned version.**"
                     % (p0["base_package"], p0["base_version"]))
    accels = sorted({r.get("accel") or "?" for r in out})
    kernels = []
    for v in variants:
        k = next(r.get("kernel") for r in out if r["variant"] == v)
        tree = prov[v]["commit"]
        kernels.append("%s %s (%s)" % (v, k, "tree %s, %s patches on lab-base" % (
            tree[:12], prov[v]["series_patches"]) if tree else "tree not recorded"))
    notes.append("Lab commit %s; base %s %s; accel %s. Kernels: %s."
                 % (p0["lab_commit"], p0["base_package"] or "?", p0["base_version"] or "?",
                    "/".join(accels), "; ".join(kernels)))
    for v in variants[1:]:
        if prov[v]["series_patches"] == 0:
            notes.append("**%s has no patches applied: it is the base tree.**" % v)

    def cells(per, f, ratios):
        """each variant's F, with its ratio to the reference's in brackets"""
        row = []
        for v in variants:
            c = fmt_num(per.get(v, {}).get(f))
            if ratios and v != ref:
                c += " (%s)" % fmt_num(ratio(per.get(v, {}).get(f), per.get(ref, {}).get(f)))
            row.append(c)
        return row

    first = lambda per: per.get(ref, next(iter(per.values())))
    lines = table("Major faults (getrusage() of the workload):", ["workload", "pages"] + variants,
                  [[k, fmt_num(first(per).get("pages"))] + cells(per, "major_faults", False)
                   for k, per in by_key.items()])
    lines += table("Pages read from the device (/sys/block/vda/stat sectors / 8):",
                   ["workload"] + variants,
                   [[k] + cells(per, "dev_pages_read", False) for k, per in by_key.items()])
    lines += table("Seconds, wall clock in the guest, in brackets over %s's (noisy under TCG: "
                   "compare the ratio, not the value):" % ref, ["workload"] + variants,
                   [[k] + cells(per, "seconds", True) for k, per in by_key.items()])

    # Fields a record names in "metrics" (comma-separated), one row each
    extra = []
    for k, per in by_key.items():
        names = dict.fromkeys(m for r in per.values() for m in (r.get("metrics") or "").split(",")
                              if m)
        extra += [[k, m.replace("_", " ")] + cells(per, m, True) for m in names]
    if extra:
        lines += table("More fields of the workloads, in brackets over %s's:" % ref,
                       ["workload", "metric"] + variants, extra)

    # what ran, at which scale: each guest command (the @@RUN line before
    # a result) with the rows it gave
    cmds = {}
    for k, per in by_key.items():
        c = first(per).get("command")
        if c:
            cmds.setdefault(c, []).append(k)
    if cmds:
        lines += ["", "Commands (in the guest, on the data disk):", ""]
        lines += ["- `%s`: %s" % (c, ", ".join(ks)) for c, ks in cmds.items()]

    text = "\n".join(notes) + "\n" + "\n".join(lines) + "\n"
    with open(prefix + ".md", "w") as f:
        f.write("# mmap_miss recovery: %s\n\n" % " vs ".join(variants))
        f.write(text + tail)
    print(text)


if __name__ == "__main__":
    main(sys.argv)
