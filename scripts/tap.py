#!/usr/bin/env python3
"""Read the kselftest TAP that a guest printed between its markers.

    tap.py CONSOLE_LOG            print "name result" per test case
    tap.py CONSOLE_LOG --expect FILE VARIANT
        compare with the expectations for VARIANT in FILE (lines of
        "variant case pass|fail"); print one line per case and exit 1 on any
        difference, missing case, or failing case that has no expectation.
"""
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
        name = m.group(2).split(".")[-1]
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
    expect = {}
    for line in open(argv[3]):
        line = line.split("#", 1)[0].split()
        if len(line) == 3 and line[0] == variant:
            expect[line[1]] = line[2]
    if not expect:
        sys.exit("tap: no expectations for %s in %s" % (variant, argv[3]))
    if rc is None:
        print("tap: the selftest did not finish (no @@TAP-END)")
        return 1
    bad = 0
    for case, want in expect.items():
        got = results.get(case, "missing")
        ok = got == want
        bad += not ok
        print("  %-28s expected %-4s got %-7s %s" % (case, want, got, "" if ok else "<-- WRONG"))
    for case in results:
        if case not in expect:
            # a case nobody expected may pass or skip; it may not fail
            failed = results[case] == "fail"
            bad += failed
            print("  %-28s %s (no expectation)%s"
                  % (case, results[case], "  <-- WRONG: fails" if failed else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
