#!/usr/bin/env bash
# tests/pool/owner_standard_test.sh: the owner policy with a
# standard-universe job.  The seeds' policy from the default
# configuration with time shrunk (MINUTE = 1, POLLING_INTERVAL = 1),
# each host watching its own CONSOLE_DEVICES file.  A CPU-bound job
# (tests/programs/demo_primes.c relinked with condor_cc, ~20 s of work)
# runs on exec1; touching exec1's console suspends it (user log 010);
# continued activity (a touch every half second) past MaxSuspendTime
# vacates it with a checkpoint (004 "Job was checkpointed"); it resumes
# on the idle exec2 from that checkpoint, and its output equals a native
# run's.
#
# checks: 22
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"
pool_config 'MINUTE = 1' 'POLLING_INTERVAL = 1' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTER_TIMEOUT = 20' 'VACATE_GRACE = 10' 'MAX_JOB_STARTS = 10' \
	'PREEMPTION_ENABLED = FALSE'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
pool_host exec2 "MASTER, STARTD"
pool_start
toucher=
cleanup() {
	[ -n "$toucher" ] && kill "$toucher" 2>/dev/null
	pool_cleanup
}
trap cleanup EXIT

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "two machines advertise" pool_wait_machines 2 60
check "the policy is the seeds' with MINUTE = 1" \
	test "$(on exec1 condor_config_val VACATE)" = \
	"(CurrentTime - EnteredCurrentState) > 5 * 1"

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
cd "$W" || exit 1

N=36000000
STEP=1000000
check "demo_primes builds natively" cc -O2 -static -o "$W/primes.native" \
	"$TOP/tests/programs/demo_primes.c"
check "demo_primes relinks with condor_cc" condor_cc -O2 -o "$W/primes" \
	"$TOP/tests/programs/demo_primes.c"
"$W/primes.native" $N $STEP >"$W/native.txt"

pool_owner "$W"
cm() { on cm "$@"; }
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
attr() { cm condor_q "$1" -af "$2" 2>/dev/null; }
mstate() { cm condor_status -af State -constraint "Name == \"$1\"" 2>/dev/null; }
mstate_is() { test "$(mstate "$1")" = "$2"; }
runs_on() { test "$(attr "$1" JobStatus)" = 2 && test "$(attr "$1" RemoteHost)" = "$2"; }
log="$W/primes.log"

cat >primes.sub <<EOF2
universe     = standard
executable   = primes
arguments    = $N $STEP
output       = out.txt
error        = err.txt
log          = $log
requirements = Name == "exec1" || Name == "exec2"
rank         = ifThenElse(Name == "exec1", 10, 0)
queue
EOF2
chmod 644 primes.sub
C=$( (cd "$W" && as_owner "$RELEASE/bin/condor_submit" primes.sub 2>&1) |
    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "the job is submitted" test -n "$C"

check "the job runs on exec1 (its best Rank)" wait_for 60 runs_on "$C.0" exec1
check "it makes progress" wait_for 20 test -s "$W/out.txt"

# The owner comes back: the job is suspended.
touch "$POOL/exec1/tty"
check "exec1 is Suspended" wait_for 5 mstate_is exec1 Suspended
check "the user log has 010 (suspended)" wait_for 10 grep -q "^010 ($(printf '%03d' "$C").000.000)" "$log"
s1=$(stat -c %s "$W/out.txt")
sleep 2
s2=$(stat -c %s "$W/out.txt")
check "its output stops growing while suspended" test "$s1" = "$s2"

# The owner stays: a touch every half second, past MaxSuspendTime.
( while :; do touch "$POOL/exec1/tty"; sleep 0.5; done ) &
toucher=$!
check "StartLog: Suspended -> Vacating" wait_for 20 \
	grep -q "State Suspended -> Vacating" "$POOL/exec1/log/StartLog"
check "the user log has a checkpointed eviction" wait_for 20 bash -c \
	"grep -A1 '^004 ' '$log' | grep -q '(1) Job was checkpointed'"
check "the job resumes on exec2" wait_for 40 runs_on "$C.0" exec2
check "exec1 stays with its owner" bash -c "! grep -A1 '^001 ' '$log' | tail -1 | grep -q exec1"
kill "$toucher"
wait "$toucher" 2>/dev/null
toucher=

check "job $C.0 completes" wait_for 90 in_history "$C.0"
check "its exit code is 0" test "$(cm condor_history "$C.0" -af ExitCode 2>/dev/null)" = 0
check "its output is identical to the native run's" cmp "$W/native.txt" "$W/out.txt"
n=$(grep -c '^001 ' "$log")
check "the user log has two executes ($n)" test "$n" = 2
check "the user log has no 004 without a checkpoint" \
	bash -c "! grep -q 'Job was not checkpointed' '$log'"
# What its starters fetched: the program on exec1, the checkpoint on exec2.
check_resumed "$C.0" "$W/primes" 2
check "the user log ends with return value 0" \
	grep -q 'Normal termination (return value 0)' "$log"
exit $((POOL_FAILS > 0))
