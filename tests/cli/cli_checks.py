"""What the txcli end-to-end scripts of tests/cli/ share: a check that records a failure and goes on
(so one run lists every failure), and the end of a script: exit non-zero naming the count, or print
its one line of success. A script imports it from its own folder."""

import sys

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAILED: " + what)


def finish(success_line):
    if failures:
        sys.exit(str(len(failures)) + " check(s) failed")
    print(success_line)
