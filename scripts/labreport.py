"""What the lab's report generators share: the guests' consoles, the
lab's commit, KEY=VALUE files, markdown tables and JSON files."""
import json
import os
import re
import subprocess

LAB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ParseError(Exception):
    pass


def first_line(*cmd, default="unknown"):
    """The first line CMD prints, or DEFAULT"""
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0].strip()
    except (OSError, IndexError):
        return default


def lab_commit(default="unknown"):
    """The lab's commit: MMLAB_LAB_COMMIT when set, else git's HEAD."""
    return os.environ.get("MMLAB_LAB_COMMIT") or first_line(
        "git", "-C", LAB, "rev-parse", "--short=12", "HEAD", default=default)


def read_env(path):
    """The KEY=VALUE lines of PATH (none if there is no PATH)"""
    env = {}
    if os.path.exists(path):
        for line in open(path):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                env[k] = v
    return env


def kernel_info(variant):
    """build/VARIANT/info.env (under MMLAB_BUILD when set)"""
    return read_env(os.path.join(os.environ.get("MMLAB_BUILD") or os.path.join(LAB, "build"),
                                 variant, "info.env"))


def read_console(path, tags=("RESULT",)):
    """(records, meta) of a console log. records: (tag, command, record)
    for each "@@TAG {json}" line, command that of the @@RUN line before
    it; meta: its text, and what @@LAB-ACCEL and @@LAB-BOOT say (accel,
    cpu, kernel, job). Raises ParseError for a result line whose JSON
    object cannot be read: a result that is lost must fail the report."""
    records, command = [], None
    text = open(path, errors="replace").read()
    meta = {"text": text}
    marker = re.compile(r"@@(%s) " % "|".join(tags))
    decoder = json.JSONDecoder()
    for n, line in enumerate(text.split("\n"), 1):
        # A marker may follow the firmware's escape codes on a line,
        # and a kernel message may follow the object on the same
        # console line: read one JSON object and ignore what follows.
        m = marker.search(line)
        if m:
            try:
                rec, _ = decoder.raw_decode(line[m.end():].lstrip())
            except ValueError as e:
                raise ParseError("%s:%d: result line without a readable "
                                 "JSON object (%s): %s" % (path, n, e, line))
            if not isinstance(rec, dict) or "workload" not in rec:
                raise ParseError("%s:%d: result is not a workload record: %s"
                                 % (path, n, line))
            records.append((m.group(1), command, rec))
            continue
        m = re.search(r"@@RUN (.*\S)", line)
        if m:
            command = m.group(1)
            continue
        m = re.search(r"@@LAB-ACCEL (\S+)(?: cpu=(\S+))?", line)
        if m:
            meta.update(accel=m.group(1), cpu=m.group(2))
        m = re.search(r"@@LAB-BOOT kernel=(\S+)(?: job=(\S+))?", line)
        if m:
            meta.update(kernel=m.group(1), job=m.group(2))
    return records, meta


def md_table(head, rows):
    """A markdown table: its header, rule and a line a row"""
    return (["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows])


def write_json(path, doc, end="\n", **kw):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, **kw)
        f.write(end)
