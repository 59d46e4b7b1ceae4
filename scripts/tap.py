#!/usr/bin/env python3
"""Read the kselftest TAP that a guest printed between its markers.

    tap.py CONSOLE_LOG            print "name result" per test case
    tap.py CONSOLE_LOG --expect FILE VARIANT
        compare with the expectations for VARIANT in FILE (lines of
        "variant case pass|fail|skip"); print one line per case and exit 1
        on any difference, missing case, or failing case that has no
        expectation. A case is named without its fixture
        ("ext4_4k.sequential_control" for
        "mmap_miss.ext4_4k.sequential_control"); an expectation may name
        cases with shell wildcards ("*.sequential_control"), and a later
        line overrides an earlier one for the cases both match.
"""
import fnmatch
import re
import sys


def parse(path):
    """Return ({case: 'pass'|'fail'|'skip'}, exit code or None)."""
    results, rc, inside = {}, None, False
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
        m = re.match(r"^(not ok|ok) \d+ (\S+)(.*)$", line)
        if not m:
            continue
        # fixture.variant.case or fixture.case: drop the fixture
        name = m.group(2).split(".", 1)[-1]
        if "# SKIP" in m.group(3):
            results[name] = "skip"
        else:
            results[name] = "pass" if m.group(1) == "ok" else "fail"
    return results, rc


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    results, rc = parse(argv[1])
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
    if rc is None:
        print("tap: the selftest did not finish (no @@TAP-END)")
        return 1
    bad = 0
    # each pattern must match a case that ran
    for pat, _ in patterns:
        if not any(fnmatch.fnmatchcase(c, pat) for c in results):
            bad += 1
            print("  %-40s expected, missing  <-- WRONG" % pat)
    for case, got in results.items():
        want = None
        for pat, w in patterns:
            if fnmatch.fnmatchcase(case, pat):
                want = w
        if want is None:
            # a case nobody expected may pass or skip; it may not fail
            failed = got == "fail"
            bad += failed
            print("  %-40s %s (no expectation)%s"
                  % (case, got, "  <-- WRONG: fails" if failed else ""))
            continue
        ok = got == want
        bad += not ok
        print("  %-40s expected %-4s got %-7s %s"
              % (case, want, got, "" if ok else "<-- WRONG"))
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv))
