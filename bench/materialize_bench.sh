#!/usr/bin/env bash
# Late materialization at the size the issue asks for: one cluster of
# MATERIALIZE_BENCH_JOBS (default 100,000) /bin/true jobs with
# JobMaterializeLimit 100 on two 8-core execute hosts, the schedd killed
# (SIGKILL) once under it: tests/pool/materialize_test.sh, with its
# checks (never more than 100 in the queue, from the queue log; each job
# completed once, from the history).  Prints rows "what|measured|goal"
# for bench/run.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
JOBS=${MATERIALIZE_BENCH_JOBS:-100000}
out=$(mktemp /tmp/materialize-bench.XXXXXX)
trap 'rm -f "$out"' EXIT
t0=$(date +%s.%N)
MATERIALIZE_JOBS=$JOBS bash "$TOP/tests/pool/materialize_test.sh" >"$out" 2>&1
t1=$(date +%s.%N)
pass=$(grep -c '^PASS' "$out")
fail=$(grep -c '^FAIL' "$out")
grep '^FAIL' "$out" >&2
most=$(sed -n 's/^PASS the queue log never held more than [0-9]* of its jobs (at most \([0-9]*\)).*/\1/p' "$out")
hwm=$(sed -n 's/^# schedd peak resident memory: //p' "$out")
secs=$(echo "$t1 - $t0" | bc)
echo "materialize: $JOBS jobs, limit 100, schedd killed once: checks|$pass passed, $fail failed|all pass"
echo "materialize: most of its jobs in the queue at once (queue log)|${most:-?}|<= 100"
echo "materialize: wall time, submit to the last job completed|${secs%.*} s|"
echo "materialize: jobs/s|$(echo "scale=1; $JOBS / $secs" | bc)|"
echo "materialize: the restarted schedd's peak resident memory|${hwm:-?}|"
[ "$fail" -eq 0 ]
