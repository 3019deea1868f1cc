#!/usr/bin/env bash
# The self-test under a virtual X server (xvfb-run): tx-app-self-test drives the explorer through
# every panel, step, toggle and lesson and trains 20 steps (tests/app/self_test.cpp), then the
# picture it takes at the end is checked by tx-png-check (not blank). Headless runs must leave
# the learner's settings alone.
# usage: run_self_test.sh SELF_TEST PNG_CHECK OUT_DIR
set -u
self_test=${1:?usage: run_self_test.sh SELF_TEST PNG_CHECK OUT_DIR}
check=${2:?}
out=${3:?}
mkdir -p "$out"
rm -f "$out/self-test.png"   # a picture from an earlier run must not pass for this one
export XDG_CONFIG_HOME="$out/config"   # never touch the user's settings
failures=0
if timeout 600 xvfb-run -a -s "-screen 0 1920x1200x24" "$self_test" --screenshot "$out/self-test.png" > "$out/self-test.log" 2>&1; then
    echo "ok   $(grep "^self-test: passed" "$out/self-test.log")"
    if ! "$check" "$out/self-test.png" > "$out/self-test.check" 2>&1; then
        echo "FAIL self-test screenshot"; cat "$out/self-test.check"; failures=$((failures + 1))
    fi
else
    echo "FAIL self-test: exited non-zero"; cat "$out/self-test.log"; failures=$((failures + 1))
fi
if [ -e "$out/config/transformer-explorer" ] && [ -n "$(ls -A "$out/config/transformer-explorer" 2>/dev/null)" ]; then
    echo "FAIL the self-test wrote settings"; failures=$((failures + 1))
fi
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
