#!/usr/bin/env bash
# tests/pool/analyze_policy_test.sh: condor_q -analyze says why each
# machine's policy refuses an idle job.  A configured pool (pool.sh
# names its central manager) keeps the owner policy by default, START =
# (NonCondorLoadAvg <= 0.3) && KeyboardIdle > 15 * 60:
#
#  - exec1's console is in use (its terminal touched all along): the
#    analysis names the clause on KeyboardIdle with its value, the
#    limit as written, and when it becomes true without keyboard use
#    (KeyboardIdle + that wait is just past the limit);
#  - exec2's load is high: the clause on NonCondorLoadAvg with its
#    value, which waiting alone does not change;
#  - exec3 takes only another user's jobs: the string comparison with
#    both values;
#  - the verdict names the machine that may accept the job soonest.
#
# checks: 12
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
pool_host exec2 "MASTER, STARTD"
pool_host exec3 "MASTER, STARTD" 'START : TARGET.Owner == "someone_else"'
echo "5.00 4.00 3.00 9/100 1" >"$POOL/exec2/loadavg"
(while :; do touch "$POOL/exec1/tty"; sleep 0.5; done) &
toucher=$!
trap 'kill $toucher 2>/dev/null; pool_cleanup' EXIT
pool_start

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "three machines advertise" pool_wait_machines 3 60
busy() {
	local idle
	idle=$(on cm condor_status -af KeyboardIdle -constraint 'Name == "exec1"')
	[ -n "$idle" ] && [ "$idle" -lt 60 ]
}
check "exec1's console is in use" wait_for 30 busy

W=$POOL/work
mkdir -p "$W"
pool_owner "$W"
printf 'universe = vanilla\nexecutable = /bin/true\nlog = log\nqueue\n' >"$W/job.sub"
chmod 644 "$W/job.sub"
(cd "$W" && CONDOR_CONFIG=$POOL/cm/condor_config as_owner condor_submit job.sub) >"$POOL/submit.out" 2>&1
check "a job is submitted" grep -q "submitted to cluster 1" "$POOL/submit.out"
on cm condor_q -analyze 1.0 >"$POOL/analyze.out" 2>&1
cat "$POOL/analyze.out"

check "exec1 is named as refusing the job" grep -qx "Machine exec1 refuses the job:" "$POOL/analyze.out"
# "  START: KeyboardIdle 12 < 900 (15 * 60), true in 889 s without keyboard use"
line=$(grep -E '^  START: KeyboardIdle [0-9]+ < 900 \(15 \* 60\), true in [0-9]+ s without keyboard use$' "$POOL/analyze.out" | head -1)
check "... its false clause: KeyboardIdle, its value, the limit as written" test -n "$line"
idle=$(sed -E 's/.*KeyboardIdle ([0-9]+) <.*/\1/' <<<"$line")
wait_s=$(sed -E 's/.*true in ([0-9]+) s.*/\1/' <<<"$line")
check "... true once KeyboardIdle passes 900 ($idle + $wait_s = 901)" \
	test "$((idle + wait_s))" = 901
check "... its true clause is not shown" \
	bash -c "! grep -q 'NonCondorLoadAvg 0' '$POOL/analyze.out'"
check "exec2: the load clause with its value, not by waiting" \
	grep -Eq '^  START: NonCondorLoadAvg 5(\.0*)? > 0\.3, not by waiting alone$' "$POOL/analyze.out"
check "exec3: the owner, both values" \
	grep -Eq "^  START: TARGET\.Owner \"$OWNER\" != \"someone_else\", not by waiting alone$" "$POOL/analyze.out"
check "the verdict: exec1 may accept it in $wait_s s" \
	grep -Eq "exec1 may accept it in [0-9]+ s if no one uses its keyboard" "$POOL/analyze.out"
# (0 or 1: a job that never ran may still be counted as unexpanded.)
check "the job is still idle" \
	bash -c "CONDOR_CONFIG='$POOL/cm/condor_config' condor_q 1.0 -af JobStatus | grep -Eqx '[01]'"
