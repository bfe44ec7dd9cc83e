#!/usr/bin/env bash
# tests/pool/claim_reuse_test.sh: a claim outlives its first job
# (CLAIM_WORKLIFE, condor_config(5)).  When a job leaves a machine it
# claimed, the schedd runs its next idle job that fits the claim there
# at once, with no negotiation cycle in between, and the startd decides
# START again for each job; the schedd ends the claim when no such job
# is left.
#
#  - six jobs for exec1 run on one claim: one match in the
#    NegotiatorLog, one claim in exec1's StartLog reused by five jobs,
#    each with its own shadow; no claim id in the job ads;
#  - a job whose Requirements do not fit the claimed machine is not run
#    on it: the claim ends, and the job waits for a match elsewhere
#    (exec2, started later);
#  - exec2's START refuses a job the claim's schedd sends it next: the
#    startd refuses it with its reason and ends the claim; the job waits;
#  - exec3 (the seeds' owner policy, MINUTE = 1): the owner returning
#    during a reused claim suspends the job (010) and then vacates it
#    (004); the claim ends, and the job runs again later on a new one;
#  - exec4 (partitionable, 2 cores): each dynamic slot runs the next
#    1-core job; a 2-core job is never run in a 1-core dynamic slot;
#  - the schedd killed with SIGKILL between two jobs of a claim: every
#    job completes exactly once (one 005 each in the user log);
#  - CLAIM_WORKLIFE = 0: every job is matched by the negotiator;
#    CLAIM_WORKLIFE = 1 with 2-second jobs: the claim is released after
#    each job.
#
# checks: 46
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"	# EXECUTE_USER must reach the execute directories
pool_config 'MINUTE = 1' 'MAIL =' 'STARTER_UPDATE_INTERVAL = 1' \
	'MAX_JOB_STARTS = 20' 'STARTER_TIMEOUT = 20' 'VACATE_GRACE = 2' \
	'PREEMPTION_ENABLED = FALSE'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD" 'START : TRUE'
pool_host exec2 "MASTER, STARTD" 'START : TARGET.Refused =!= True'
pool_host exec3 "MASTER, STARTD"
pool_host exec4 "MASTER, STARTD" 'START : TRUE' 'NUM_CPUS = 2' \
	'MEMORY = 2048'
for h in cm exec1 exec3 exec4; do
	pool_start_host "$h"
done
check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "three machines advertise" pool_wait_machines 3 60

W=$POOL/work
mkdir -p "$W"
chmod 777 "$W"
cd "$W" || exit 1
cm() { on cm "$@"; }
submit() {
	cm condor_submit "$1" 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
in_history() { test "$(cm condor_history "$1" -af ProcId 2>/dev/null | wc -l)" -eq "$2"; }
status_is() { test "$(cm condor_q "$1" -af JobStatus 2>/dev/null)" = "$2"; }
# matches C: the negotiator's matches of cluster C's jobs.
matches() { grep -c " match: [^ ]* job $1\.[0-9]* -> " "$POOL/cm/log/NegotiatorLog"; }
# claims HOST C / reuses HOST C: claims made, and reused, by cluster C's
# jobs in HOST's StartLog.
claims() { grep -c "claimed by job $2\.[0-9]* " "$POOL/$1/log/StartLog"; }
reuses() { grep -c "reused by job $2\.[0-9]* " "$POOL/$1/log/StartLog"; }
count_events() {	# LOG EVENT C.P
	grep -c "^$2 ($(printf '%03d.%03d' "${3%.*}" "${3#*.}").000)" "$1" 2>/dev/null
}
state_is() {
	test "$(cm condor_status -af State -constraint "Name == \"$1\"" 2>/dev/null)" = "$2"
}

cat >quick.sh <<'EOF'
#!/bin/sh
echo "job $1"
sleep "${2:-1}"
EOF
chmod 755 quick.sh

# --- six jobs, one claim -----------------------------------------------
cat >six.sub <<'EOF'
universe     = vanilla
executable   = quick.sh
arguments    = $(Process)
output       = six.$(Process).out
log          = six.log
requirements = Name == "exec1"
queue 6
EOF
A=$(submit six.sub)
check "six jobs submitted" test -n "$A"
check "all six complete" wait_for 120 in_history "$A" 6
check "one negotiator match for six jobs ($(matches "$A"))" \
	test "$(matches "$A")" -eq 1
check "exec1's StartLog: one claim ($(claims exec1 "$A")) reused by five jobs ($(reuses exec1 "$A"))" \
	test "$(claims exec1 "$A")" -eq 1 -a "$(reuses exec1 "$A")" -eq 5
serials=$(grep -E "(claimed|reused) by job $A\." "$POOL/exec1/log/StartLog" |
	sed -n 's/.*claim \([0-9]*\): .*/\1/p' | sort -u | wc -l)
check "all six on the same claim" test "$serials" -eq 1
shadows=$(grep -E "(claimed|reused) by job $A\." "$POOL/exec1/log/StartLog" |
	sed -n 's/.*, shadow \(<[^>]*>\)).*/\1/p' | sort -u | wc -l)
check "each with a shadow of its own ($shadows)" test "$shadows" -eq 6
check "the schedd ran five of them on the claim without a match" \
	test "$(grep -c "runs on the claim of exec1 after job $A\." "$POOL/cm/log/SchedLog")" -eq 5
out_ok=1
for p in 0 1 2 3 4 5; do
	[ "$(cat "six.$p.out" 2>/dev/null)" = "job $p" ] || out_ok=0
done
check "every job wrote its output" test $out_ok = 1
check "the claim ended when no job was left" wait_for 30 state_is exec1 Idle
# (The schedd's word may come while the last starter is still leaving:
# the claim then ends as it leaves.)
check "the schedd ended it after six jobs" bash -c \
	"grep -q 'the claim of exec1, after job $A\.5 (6 on the claim), ends: no idle job' $POOL/cm/log/SchedLog &&
	 grep -Eq 'claim [0-9]+ ends after 6 job\(s\)' $POOL/exec1/log/StartLog"

# --- Requirements that do not fit the claimed machine --------------------
cat >x.sub <<'EOF'
universe     = vanilla
executable   = quick.sh
arguments    = x 2
output       = x.out
log          = xy.log
requirements = Name == "exec1"
queue
EOF
cat >y.sub <<'EOF'
universe     = vanilla
executable   = quick.sh
arguments    = y
output       = y.out
log          = xy.log
requirements = Name == "exec2"
queue
EOF
X=$(submit x.sub)
Y=$(submit y.sub)
check "X completes on exec1" wait_for 60 in_history "$X" 1
check "Y is not run on X's claim" \
	test "$(grep -c "job $Y\.0" "$POOL/exec1/log/StartLog")" -eq 0
check "Y waits" status_is "$Y.0" 1
pool_start_host exec2
check "Y runs elsewhere (exec2) once matched" wait_for 60 in_history "$Y" 1
check "Y was matched by the negotiator" test "$(matches "$Y")" -ge 1
check "Y ran on exec2" test "$(cm condor_history "$Y" -af LastRemoteHost)" = exec2

# --- START refuses the claim's next job ----------------------------------
cat >r0.sub <<'EOF'
universe     = vanilla
executable   = quick.sh
arguments    = r0 6
output       = r0.out
log          = r.log
requirements = Name == "exec2"
queue
EOF
cat >r1.sub <<'EOF'
universe     = vanilla
executable   = quick.sh
arguments    = r1
output       = r1.out
log          = r.log
requirements = Name == "exec2"
+Refused     = True
queue
EOF
R0=$(submit r0.sub)
check "R0 runs on exec2" wait_for 60 grep -q "claimed by job $R0\.0 " "$POOL/exec2/log/StartLog"
R1=$(submit r1.sub)
check "R0 completes" wait_for 60 in_history "$R0" 1
check "exec2 refuses R1 on R0's claim: START is FALSE for it" wait_for 60 \
	grep -q "job $R1\.0 from .* refused: START is FALSE for it" "$POOL/exec2/log/StartLog"
check "and ends the claim" \
	grep -q "ends after 1 job(s): START is not TRUE for its next job" "$POOL/exec2/log/StartLog"
r1_waits() {
	test "$(cm condor_q "$R1.0" -af JobStatus)" = 1 &&
	    ! grep -q "^001 ($(printf '%03d' "$R1").000.000)" r.log
}
check "R1 waits, never having run" wait_for 30 r1_waits
cm condor_rm "$R1" >/dev/null 2>&1

# --- the owner returns during a reused claim -----------------------------
cat >owner.sub <<'EOF'
universe     = vanilla
executable   = quick.sh
arguments    = $(Process) $(Process)0
output       = owner.$(Process).out
log          = owner.log
requirements = Name == "exec3"
queue 2
EOF
O=$(submit owner.sub)
check "the second job runs on the first one's claim" wait_for 90 \
	grep -q "reused by job $O\.1 " "$POOL/exec3/log/StartLog"
n0=$(wc -l <"$POOL/exec3/log/StartLog")
# The owner at the console, every second, until the job has left.
(
	while [ ! -e "$W/owner.stop" ]; do
		touch "$POOL/exec3/tty"
		sleep 0.5
	done
) &
toucher=$!
check "the job is suspended (010)" wait_for 60 bash -c \
	"[ \$(grep -c '^010 ($(printf '%03d.001' "$O").000)' owner.log) -ge 1 ]"
check "then vacated (004)" wait_for 60 bash -c \
	"[ \$(grep -c '^004 ($(printf '%03d.001' "$O").000)' owner.log) -ge 1 ]"
check "StartLog: Claimed -> Suspended -> Vacating" bash -c \
	"tail -n +$n0 $POOL/exec3/log/StartLog | grep -q 'Claimed -> Suspended' &&
	 tail -n +$n0 $POOL/exec3/log/StartLog | grep -q 'Suspended -> Vacating'"
touch "$W/owner.stop"
kill "$toucher" 2>/dev/null
wait "$toucher" 2>/dev/null
check "the job completes later" wait_for 120 in_history "$O" 2
check "it ran again on a new claim, not the vacated one" \
	test "$(grep -c "claimed by job $O\.1 " "$POOL/exec3/log/StartLog")" -ge 1
check "one 005 for each job" test "$(count_events owner.log 005 "$O.0")" -eq 1 -a \
	"$(count_events owner.log 005 "$O.1")" -eq 1

# --- a partitionable machine's dynamic slots ------------------------------
cat >p.sub <<'EOF'
universe       = vanilla
executable     = quick.sh
arguments      = $(Process) 2
output         = p.$(Process).out
log            = p.log
request_cpus   = 1
request_memory = 100
requirements   = Machine == "exec4"
queue 4
EOF
cat >q.sub <<'EOF'
universe       = vanilla
executable     = quick.sh
arguments      = q
output         = q.out
log            = p.log
request_cpus   = 2
request_memory = 100
requirements   = Machine == "exec4"
queue
EOF
P=$(submit p.sub)
Q=$(submit q.sub)
check "the 1-core jobs and the 2-core job complete" wait_for 120 bash -c \
	"[ \$(CONDOR_CONFIG=$POOL/cm/condor_config condor_history $P -af ProcId | wc -l) -eq 4 ] &&
	 [ \$(CONDOR_CONFIG=$POOL/cm/condor_config condor_history $Q -af ProcId | wc -l) -eq 1 ]"
check "dynamic slots were reused ($(claims exec4 "$P") claims, $(reuses exec4 "$P") reuses)" \
	test "$(reuses exec4 "$P")" -ge 1 -a \
	"$(( $(claims exec4 "$P") + $(reuses exec4 "$P") ))" -eq 4
check "the 2-core job was never tried in a 1-core slot" \
	test "$(reuses exec4 "$Q")" -eq 0 -a "$(claims exec4 "$Q")" -eq 1

# --- no claim id in the job ads ------------------------------------------
cat >long.sub <<'EOF'
universe     = vanilla
executable   = quick.sh
arguments    = $(Process) 3
output       = long.$(Process).out
log          = long.log
requirements = Name == "exec1"
queue 2
EOF
L=$(submit long.sub)
check "a job runs on a reused claim" wait_for 60 \
	grep -q "reused by job $L\.1 " "$POOL/exec1/log/StartLog"
check "its ad holds no claim id" bash -c \
	"! CONDOR_CONFIG=$POOL/cm/condor_config condor_q $L.1 -l | grep -qi claimid"
check "both complete" wait_for 60 in_history "$L" 2

# --- the schedd killed between two jobs of a claim -----------------------
cat >k.sub <<'EOF'
universe     = vanilla
executable   = quick.sh
arguments    = $(Process)
output       = k.$(Process).out
log          = k.log
requirements = Name == "exec1"
queue 6
EOF
K=$(submit k.sub)
check "the second job of the claim ends" wait_for 60 bash -c \
	"grep -q '^005 ($(printf '%03d.001' "$K").000)' k.log"
spid=$(sed -n 's/.*started SCHEDD .*pid \([0-9]*\).*/\1/p' "$POOL/cm/log/MasterLog" | tail -1)
check "the schedd is killed (SIGKILL) at once" kill -KILL "$spid"
check "all six complete" wait_for 180 in_history "$K" 6
dup=0
for p in 0 1 2 3 4 5; do
	[ "$(count_events k.log 005 "$K.$p")" -eq 1 ] || { dup=1; echo "# $K.$p: $(count_events k.log 005 "$K.$p") 005 events"; }
done
check "exactly one 005 per job" test $dup = 0
check "each completed once in the history" \
	test -z "$(cm condor_history "$K" -af ProcId | sort | uniq -d)"

# --- CLAIM_WORKLIFE -------------------------------------------------------
for h in cm exec1; do
	echo 'CLAIM_WORKLIFE = 0' >>"$POOL/$h/condor_config.local"
	on "$h" condor_reconfig >/dev/null 2>&1
done
sleep 2
cat >w.sub <<'EOF'
universe     = vanilla
executable   = quick.sh
arguments    = $(Process)
output       = w.$(Process).out
requirements = Name == "exec1"
queue 3
EOF
Z=$(submit w.sub)
check "CLAIM_WORKLIFE = 0: all three complete" wait_for 90 in_history "$Z" 3
check "each was matched by the negotiator ($(matches "$Z") matches), none reused" \
	test "$(matches "$Z")" -eq 3 -a "$(reuses exec1 "$Z")" -eq 0
for h in cm exec1; do
	sed -i 's/^CLAIM_WORKLIFE = 0$/CLAIM_WORKLIFE = 1/' "$POOL/$h/condor_config.local"
	on "$h" condor_reconfig >/dev/null 2>&1
done
sleep 2
cat >v.sub <<'EOF'
universe     = vanilla
executable   = quick.sh
arguments    = $(Process) 2
output       = v.$(Process).out
requirements = Name == "exec1"
queue 3
EOF
V=$(submit v.sub)
check "CLAIM_WORKLIFE = 1: all three complete" wait_for 90 in_history "$V" 3
check "each 2-second job's claim was released after it ($(matches "$V") matches)" \
	test "$(matches "$V")" -eq 3 -a "$(reuses exec1 "$V")" -eq 0
check "StartLog: the worklife ended the claims" \
	grep -q "the claim's worklife (CLAIM_WORKLIFE) is over" "$POOL/exec1/log/StartLog"

exit $((POOL_FAILS > 0))
