#!/usr/bin/env bash
# bench/chaos_bench.sh: the long chaos run (tests/chaos/chaos.sh): 200
# jobs on a central manager and four execute hosts, 300 SIGKILLs and 20
# partitions over six minutes.  Its table becomes the rows; a check
# that failed is a row too.  Goal: 0 lost, 0 twice, the whole run under
# 10 minutes.
set -u
out=$(mktemp /tmp/chaos-bench.XXXXXX)
trap 'rm -f "$out"' EXIT
t0=$(date +%s)
bash "$(dirname "$0")/../tests/chaos/chaos.sh" >"$out" 2>&1
t1=$(date +%s)
grep -m1 '^chaos seed' "$out" >&2
sed -n 's/^TABLE \(.*\)|\(.*\)/chaos: \1|\2|/p' "$out" | sed \
    -e 's/^\(chaos: lost|[0-9]*\)|$/\1|0/' \
    -e 's/^\(chaos: run twice concurrently|[0-9]*\)|$/\1|0/' \
    -e 's/^\(chaos: completed twice|[0-9]*\)|$/\1|0/'
echo "chaos: the whole run (setup, faults, drain, checks)|$((t1 - t0)) s|< 600 s"
grep -q '^TABLE ' "$out" ||
    echo "chaos: no table|$(grep -v '^PASS ' "$out" | tail -n 1 | cut -c1-150)|-"
grep '^FAIL ' "$out" | sed 's/^FAIL \(.*\)/chaos check failed|\1|-/' | cut -c1-200
grep '^SKIP ' "$out" | head -1 | sed 's/^SKIP \(.*\)/chaos skipped|\1|-/'
grep -q '^chaos seed .* failed' "$out" && grep '^chaos seed .* failed' "$out" >&2
exit 0
