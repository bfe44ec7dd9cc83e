#!/usr/bin/env bash
# tests/pool/master_lock_test.sh: one master per LOCAL_DIR.  A host's
# master runs detached (as README starts a pool); a second condor_master
# for the same LOCAL_DIR, detached or with -f, says which master runs
# (its pid) and for which LOCAL_DIR, exits non-zero, and leaves the
# first alone: its pid file, its address file, its daemons' pids and
# the machine's ad are as they were, nothing new is logged or started,
# and a job still runs.  `kill $(cat .../condor_master.pid)` then stops
# the pool, and the lock goes with its master: a new one starts.
#
# checks: 20
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"
pool_config 'START : TRUE'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD"
L=$POOL/cm/log
PIDFILE=$L/condor_master.pid

# The first master, detached; the cleanup stops it by the pid it writes.
CONDOR_CONFIG=$POOL/cm/condor_config CONDOR_TEST_POOL=$POOL \
	"$RELEASE/sbin/condor_master" >"$POOL/first.out" 2>&1
check "the first master detaches (exit 0)" test $? = 0
check "it writes its pid file" wait_for 30 test -s "$PIDFILE"
pid=$(cat "$PIDFILE")
POOL_MASTER_PID[cm]=$pid
check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "the machine advertises" pool_wait_machines 1 60

# What must not change: the pid file, the master's address file, each
# daemon's pid (as the MasterLog says it started it, and still alive).
started_pids() {
	local d p
	for d in COLLECTOR NEGOTIATOR SCHEDD STARTD; do
		p=$(sed -n "s/.*started $d .*pid \([0-9]*\).*/\1/p" "$L/MasterLog" | tail -1)
		kill -0 "$p" 2>/dev/null || p="$p(gone)"
		printf '%s=%s ' "$d" "$p"
	done
}
wait_for 30 bash -c "[ \$(grep -c ' started ' '$L/MasterLog') -ge 4 ]"
addr=$(cat "$L/.master_address")
before=$(started_pids)
loglines=$(wc -l <"$L/MasterLog")

second() {
	CONDOR_CONFIG=$POOL/cm/condor_config CONDOR_TEST_POOL=$POOL \
	    "$RELEASE/sbin/condor_master" "$@" >"$POOL/second.out" 2>"$POOL/second.err"
}
says_who() {
	grep -qx "condor_master: a condor_master is already running (pid $pid) for LOCAL_DIR $POOL/cm" \
	    "$POOL/second.err"
}
second
check "a second master (detached) exits non-zero" test $? != 0
check "... naming the running master's pid and LOCAL_DIR on stderr" says_who
# -f too; should it not be refused, it would run in the foreground:
# a time limit ends the test's wait for it, and the cleanup its pool.
timeout 60 env CONDOR_CONFIG=$POOL/cm/condor_config CONDOR_TEST_POOL=$POOL \
	"$RELEASE/sbin/condor_master" -f >"$POOL/second.out" 2>"$POOL/second.err"
rc=$?
check "a second master with -f exits non-zero at once" test $rc != 0 -a $rc != 124
check "... naming the running master's pid and LOCAL_DIR on stderr" says_who

check "the pid file is unchanged" test "$(cat "$PIDFILE" 2>/dev/null)" = "$pid"
check "the master's address file is unchanged" \
	test "$(cat "$L/.master_address" 2>/dev/null)" = "$addr"
check "the daemons are the same processes ($before)" \
	test "$(started_pids)" = "$before"
check "the second masters logged nothing in the MasterLog" \
	test "$(grep -c 'condor_master starting' "$L/MasterLog")" = 1
check "the MasterLog saw no shutdown nor new start" \
	bash -c "! tail -n +$((loglines + 1)) '$L/MasterLog' | grep -Eq 'shutting down|started |invalidat'"
host_listed() { on cm condor_status -af Name | grep -qx cm; }
check "the machine's ad is still in the collector" host_listed

# A job still runs.
W=$POOL/work
mkdir -p "$W"
pool_owner "$W"
printf 'universe = vanilla\nexecutable = /bin/echo\narguments = still here\noutput = out\nerror = err\nlog = log\nqueue\n' >"$W/job.sub"
chmod 644 "$W/job.sub"
(cd "$W" && CONDOR_CONFIG=$POOL/cm/condor_config as_owner condor_submit job.sub) >"$POOL/submit.out" 2>&1
check "a job is submitted" grep -q "submitted to cluster" "$POOL/submit.out"
check "the job runs to completion" wait_for 90 grep -q "^005 " "$W/log"
check "... with its output" grep -qx "still here" "$W/out"

# README's way to stop a personal pool.
kill $(cat "$PIDFILE")
check "kill \$(cat condor_master.pid) stops the master" \
	wait_for 60 bash -c "! kill -0 $pid 2>/dev/null"
gone() {
	local p
	for p in $(tr ' ' '\n' <<<"$before" | sed -n 's/.*=\([0-9]*\)$/\1/p'); do
		kill -0 "$p" 2>/dev/null && return 1
	done
	return 0
}
check "... and its daemons" wait_for 60 gone
unset "POOL_MASTER_PID[cm]"

# The lock went with it.
pool_start_host cm
check "a new master starts for the LOCAL_DIR" \
	wait_for 30 bash -c "[ \"\$(cat '$PIDFILE' 2>/dev/null)\" = ${POOL_MASTER_PID[cm]} ]"
