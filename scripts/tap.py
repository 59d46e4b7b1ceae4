#!/usr/bin/env python3
"""Read the kselftest TAP that a guest printed between its markers.

    tap.py CONSOLE_LOG            print "name result" per test case
    tap.py CONSOLE_LOG --expect FILE VARIANT
        compare with the expectations for VARIANT in FILE (lines of
        "variant case pass|fail|skip"); print a TAP stream with its plan,
        one test line per case ("ok N - CASE: expected pass, got pass"),
        and exit 1 on any difference, missing case, or failing case that
        has no expectation. A case is named without its fixture
        ("ext4_4k.sequential_control" for
        "mmap_miss.ext4_4k.sequential_control"); an expectation may name
        cases with shell wildcards ("*.sequential_control"), and a later
        line overrides an earlier one for the cases both match.
"""
import fnmatch
import re
import sys


def parse(path):
    """Return ({case: 'pass'|'fail'|'skip'}, exit code or None, {case that
    did not skip: the count of its "# N ..." line before the result})."""
    results, rc, inside, counts, last = {}, None, False, {}, None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if "@@TAP-BEGIN" in line:
            inside = True
            continue
        m = re.search(r"@@TAP-END \S+ rc=(\d+)", line)
        if m:
            rc = int(m.group(1))
            inside = False
            continue
        if not inside:
            continue
        m = re.match(r"# (\d+) ", line)
        if m:
            last = m.group(1)
        m = re.match(r"^(not ok|ok) \d+ (\S+)(.*)$", line)
        if not m:
            continue
        # fixture.variant.case or fixture.case: drop the fixture
        name = m.group(2).split(".", 1)[-1]
        if "# SKIP" in m.group(3):
            results[name] = "skip"
        else:
            results[name] = "pass" if m.group(1) == "ok" else "fail"
            if last:
                counts[name] = last
        last = None
    return results, rc, counts


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    results, rc, _ = parse(argv[1])
    if len(argv) == 2:
        for k, v in results.items():
            print(k, v)
        return 0 if rc is not None else 1
    if len(argv) != 5 or argv[2] != "--expect":
        sys.exit(__doc__)
    variant = argv[4]
    patterns = []
    for line in open(argv[3]):
        line = line.split("#", 1)[0].split()
        if len(line) == 3 and line[0] == variant:
            patterns.append((line[1], line[2]))
    if not patterns:
        sys.exit("tap: no expectations for %s in %s" % (variant, argv[3]))
    lines = []
    if rc is None:
        lines.append((False, "the selftest finished: no @@TAP-END in %s"
                      % argv[1]))
    # each pattern must match a case that ran
    for pat, want in patterns:
        if not any(fnmatch.fnmatchcase(c, pat) for c in results):
            lines.append((False, "%s: expected %s, missing" % (pat, want)))
    for case, got in results.items():
        want = None
        for pat, w in patterns:
            if fnmatch.fnmatchcase(case, pat):
                want = w
        if want is None:
            # a case nobody expected may pass or skip; it may not fail
            lines.append((got != "fail",
                          "%s: no expectation, got %s" % (case, got)))
        else:
            lines.append((got == want,
                          "%s: expected %s, got %s" % (case, want, got)))
    print("TAP version 13")
    print("1..%d" % len(lines))
    for i, (ok, text) in enumerate(lines, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, text))
    return 0 if all(ok for ok, _ in lines) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
