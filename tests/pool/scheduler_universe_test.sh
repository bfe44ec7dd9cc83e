#!/usr/bin/env bash
# tests/pool/scheduler_universe_test.sh: jobs of the scheduler universe
# (and its later name, local) run by the schedd itself, in a pool with no
# startd at all.  A job runs in its initialdir as its owner, with its
# arguments, environment, CONDOR_ID, output and error; its user log has
# 000, 001 and 005 and it goes to the history.  condor_rm sends SIGTERM
# (a job that traps it says so; 009), then SIGKILL after VACATE_GRACE.
# The schedd killed with SIGKILL while a job runs: the next one adopts
# the job's keeper (the job runs once, one 001, one 005 with its exit
# code); and while no schedd runs the job ends: the next one completes it
# from its exit file, without running it again.  on_exit_remove FALSE
# runs a job again (one 005).  A DAG node's 000 event names it.  The
# schedd's shutdown stops a scheduler job.
#
# checks: 30
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"
pool_config 'VACATE_GRACE = 3'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_start
check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"

W="$POOL/work"
mkdir -p "$W/sub1"
chmod 777 "$W" "$W/sub1"
pool_owner "$W"
[ "$(id -u)" = 0 ] && chown "$OWNER" "$W/sub1"
cd "$W" || exit 1
export CONDOR_CONFIG="$POOL/cm/condor_config"
submit() { as_owner condor_submit "$@" 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'; }
in_history() { [ -n "$(condor_history "$1" -af ProcId 2>/dev/null)" ]; }
hist() { condor_history "$1" -af "$2" 2>/dev/null | head -1; }
schedd_pid() { sed -n 's/.*condor_schedd starting (pid \([0-9]*\)).*/\1/p' "$POOL/cm/log/SchedLog" | tail -1; }
new_schedd() { local p; p=$(schedd_pid); [ -n "$p" ] && [ "$p" != "$1" ]; }

# 1. An ordinary run.
cat >basic.sh <<'EOF'
#!/bin/sh
echo "args: $1|$2"
echo "cwd: $(pwd)"
echo "user: $(id -un)"
echo "id: $CONDOR_ID"
echo "color: $COLOR"
echo "to stderr" >&2
exit 3
EOF
chmod 755 basic.sh
cat >basic.sub <<EOF
universe    = scheduler
executable  = basic.sh
arguments   = "one 'two words'"
environment = "COLOR=blue"
initialdir  = $W/sub1
output      = out
error       = err
log         = $W/basic.log
queue
EOF
C=$(submit basic.sub)
check "a scheduler job is submitted" test -n "$C"
check "it runs and is in the history, with no startd in the pool" \
	wait_for 60 in_history "$C"
check "its arguments, directory, owner, CONDOR_ID, environment" test \
	"$(cat sub1/out 2>/dev/null)" = "args: one|two words
cwd: $W/sub1
user: $OWNER
id: $C.0
color: blue"
check "its error file" test "$(cat sub1/err 2>/dev/null)" = "to stderr"
check "its log: 000, 001, 005 with its return value" bash -c \
	"[ \"\$(grep -o '^00[015] ' basic.log | tr -d ' ' | tr '\n' ,)\" = 000,001,005, ] && grep -q 'Normal termination (return value 3)' basic.log"
check "ExitCode 3 and the owner in the history" test \
	"$(hist "$C" ExitCode) $(hist "$C" Owner)" = "3 $OWNER"

# 2. condor_rm: SIGTERM to the job, which traps it.
cat >term.sh <<'EOF'
#!/bin/sh
trap 'echo "SIGTERM seen" >term.marker; exit 0' TERM
echo $$ >term.pid
while :; do sleep 0.2; done
EOF
cat >ignore.sh <<'EOF'
#!/bin/sh
trap '' TERM
echo $$ >ignore.pid
while :; do sleep 0.2; done
EOF
chmod 755 term.sh ignore.sh
for s in term ignore; do
	cat >$s.sub <<EOF
universe   = scheduler
executable = $s.sh
log        = $s.log
queue
EOF
done
T=$(submit term.sub)
I=$(submit ignore.sub)
check "the two jobs to remove run" wait_for 60 test -s term.pid -a -s ignore.pid
as_owner condor_rm "$T" "$I" >/dev/null 2>&1
check "condor_rm: the job saw SIGTERM" wait_for 60 grep -q "SIGTERM seen" term.marker
check "the removed job's log ends with 009, and it is in the history" \
	wait_for 60 bash -c "grep -q '^009 ' term.log && [ -n \"\$(condor_history $T -af ProcId)\" ]"
gone() { ! kill -0 "$1" 2>/dev/null; }
check "a job ignoring SIGTERM is killed after VACATE_GRACE" \
	wait_for 60 gone "$(cat ignore.pid)"
check "the schedd said it killed it" grep -q "job $I.0 did not stop after SIGTERM; killing it" "$POOL/cm/log/SchedLog"

# 3. The schedd killed while a job runs: adopted, not run again.
cat >wait.sh <<'EOF'
#!/bin/sh
echo started >>"starts.$1"
while [ ! -e "go.$1" ]; do sleep 0.2; done
exit "$2"
EOF
chmod 755 wait.sh
cat >crash.sub <<EOF
universe   = scheduler
executable = wait.sh
arguments  = crash 7
log        = crash.log
queue
EOF
K=$(submit crash.sub)
check "the job to outlive its schedd runs" wait_for 60 test -s starts.crash
counted() { [ "$(condor_status -submitters -af TotalSchedulerJobsRunning TotalRunningJobs TotalIdleJobs 2>/dev/null)" = "1 0 0" ]; }
check "the schedd's ad counts it apart, not for the negotiator" \
	wait_for 60 counted
old=$(schedd_pid)
kill -KILL "$old"
check "the master starts a new schedd" wait_for 90 new_schedd "$old"
check "the new schedd adopts the job's keeper" wait_for 60 grep -q \
	"job $K.0 runs on: its keeper [0-9]* is adopted" "$POOL/cm/log/SchedLog"
touch go.crash
check "the adopted job completes" wait_for 60 in_history "$K"
check "it ran once: one start, one 001, one 005 (return value 7)" bash -c \
	"[ \$(wc -l <starts.crash) = 1 ] && [ \$(grep -c '^001 ' crash.log) = 1 ] && [ \$(grep -c '^005 ' crash.log) = 1 ] && grep -q 'return value 7' crash.log"
check "ExitCode 7, NumJobStarts 1" test "$(hist "$K" ExitCode) $(hist "$K" NumJobStarts)" = "7 1"

# 4. The job ends while no schedd runs at all.
cat >gone.sub <<EOF
universe   = scheduler
executable = wait.sh
arguments  = gone 5
log        = gone.log
queue
EOF
G=$(submit gone.sub)
check "the job to end while no schedd runs runs" wait_for 60 test -s starts.gone
master=${POOL_MASTER_PID[cm]}
kill -STOP "$master"
kill -KILL "$(schedd_pid)"
kill -KILL "$master"
wait "$master" 2>/dev/null
unset "POOL_MASTER_PID[cm]"
touch go.gone
daemons_gone() {
	local p c
	for p in $(pool_pids); do
		c=$(cat "/proc/$p/comm" 2>/dev/null)
		case $c in condor_collecto*|condor_negotiat*) return 1 ;; esac
	done
	return 0
}
check "its exit file is written while no schedd runs" wait_for 60 \
	test -e "$POOL/cm/spool/local/$G.0.exit"
wait_for 60 daemons_gone
old=$(schedd_pid)
pool_start_host cm
check "a new schedd starts" wait_for 90 new_schedd "$old"
check "the job is completed from its exit file" wait_for 60 in_history "$G"
check "not run again: one start, one 005 (return value 5)" bash -c \
	"[ \$(wc -l <starts.gone) = 1 ] && [ \$(grep -c '^005 ' gone.log) = 1 ] && grep -q 'return value 5' gone.log && [ \"\$(condor_history $G -af ExitCode)\" = 5 ]"

# 5. on_exit_remove FALSE once, then TRUE.
cat >retry.sh <<'EOF'
#!/bin/sh
echo run >>runs.retry
[ "$(wc -l <runs.retry)" -ge 2 ]
EOF
chmod 755 retry.sh
cat >retry.sub <<EOF
universe       = scheduler
executable     = retry.sh
log            = retry.log
on_exit_remove = (ExitCode == 0)
queue
EOF
R=$(submit retry.sub)
check "on_exit_remove FALSE: the job runs again, then completes" \
	wait_for 90 in_history "$R"
check "two runs, two 001, one 005" bash -c \
	"[ \$(wc -l <runs.retry) = 2 ] && [ \$(grep -c '^001 ' retry.log) = 2 ] && [ \$(grep -c '^005 ' retry.log) = 1 ]"

# 6. A local-universe DAG node.
cat >node.sub <<EOF
universe     = local
executable   = /bin/true
log          = node.log
+DAGNodeName = "NodeA"
queue
EOF
N=$(submit node.sub)
check "a local-universe job runs" wait_for 60 in_history "$N"
check "its 000 event names its DAG node" bash -c \
	"grep -A1 '^000 ' node.log | sed -n 2p | grep -qx '    DAG Node: NodeA' && [ \"\$(condor_history $N -af Universe)\" = local ]"

# 7. The schedd's shutdown stops a scheduler job.
cat >stop.sub <<EOF
universe   = scheduler
executable = wait.sh
arguments  = stop 0
log        = stop.log
queue
EOF
S=$(submit stop.sub)
check "a job runs when the pool stops" wait_for 60 test -s starts.stop
jpid=$(condor_q "$S" -af LocalJobPid 2>/dev/null)
pool_stop_host cm
check "the schedd's shutdown stopped it and put it back in the queue" \
	bash -c "[ -n '$jpid' ] && ! kill -0 '$jpid' 2>/dev/null && grep -q 'job $S.0 back in the queue (the schedd stops)' $POOL/cm/log/SchedLog"
