# Sourced by the benchmark scripts: waits (up to 10 minutes) for a quiet machine, load average
# < 1, since a busy neighbour on a 2-core machine skews every timing; then says the load.
# TX_BENCH_NO_WAIT=1 skips the wait (a caller that serialises its timing runs itself).
waited=0
while [ "${TX_BENCH_NO_WAIT:-0}" != 1 ] && [ "$(awk '{print ($1 < 1.0)}' /proc/loadavg)" != 1 ]; do
    if [ "$waited" -ge 600 ]; then
        echo "warning: load average still $(cut -d' ' -f1 /proc/loadavg) after 10 minutes; timing anyway" >&2
        break
    fi
    sleep 15
    waited=$((waited + 15))
done
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
