#!/usr/bin/env bash
# tests/pool/starter_timeout_test.sh: a starter that goes silent without
# dying (SIGSTOP) under a running vanilla job.  The shadow hears nothing
# for STARTER_TIMEOUT seconds, gives up and releases the claim; the
# startd gets rid of the stopped starter and its job; the job goes back
# to the queue (evicted, not held, not lost), runs again on the same
# machine, never twice at once, and completes.
#
# checks: 15
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
# The job's account must reach the execute directories and the job's
# files inside the pool.
chmod 755 "$POOL"
# The job waits for a file of the test's: the execute host lets its jobs
# see the work directory, read-only, as a shared file system would.
# Without a lease: with one, the shadow waits for a silent starter that
# its startd says lives (tests/pool/lease_test.sh).
pool_config 'START : TRUE' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTER_TIMEOUT = 3' 'RPC_TIMEOUT = 3' 'MAX_JOB_STARTS = 10' \
	'JOB_DEFAULT_LEASE_DURATION = 0' \
	"JOB_SYSTEM_DIRS = /bin /sbin /lib /lib32 /lib64 /libx32 /usr /etc /opt $POOL/work"
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
pool_start

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "the machine advertises" pool_wait_machines 1 60

W=$POOL/work
mkdir -p "$W"
chmod 755 "$W"
cd "$W" || exit 1
TOKEN=silent-starter-$$-$RANDOM
# Runs until $W/finish exists (the test's signal that it may end).
cat >job.sh <<EOF
#!/bin/sh
echo "run \$1"
while [ ! -e "$W/finish" ]; do sleep 0.3; done
echo done
EOF
chmod 755 job.sh
cat >job.sub <<EOF
universe   = vanilla
executable = job.sh
arguments  = $TOKEN
output     = out
log        = job.log
queue
EOF
C=$(on cm condor_submit job.sub 2>&1 | sed -n 's/.* cluster \([0-9]*\)\./\1/p')
check "the job is submitted" test -n "$C"
J=$C.0

# Processes of the job (its command line carries TOKEN).
job_pids() {
	local p c
	for p in /proc/[0-9]*; do
		c=$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)
		[[ $c == *"$TOKEN"* ]] && echo "${p#/proc/}"
	done
}
job_copies() { job_pids | wc -l; }
one_copy() { [ "$(job_copies)" = 1 ]; }
check "the job runs" wait_for 90 one_copy
starter=$(sed -n "s/.*claimed by job $J .*starter pid \([0-9]*\).*/\1/p" \
    "$POOL/exec1/log/StartLog" | tail -1)
check "the startd names its starter ($starter)" kill -0 "${starter:-0}"
# The starter has reported at least once: the shadow's lease is running.
kill -STOP "$starter"

SLOG=$POOL/cm/log/ShadowLog
gave_up() { grep -q "job $J: no word from the starter on exec1 for 3 seconds" "$SLOG"; }
check "the shadow gives up after STARTER_TIMEOUT" wait_for 60 gave_up
starter_gone() { ! kill -0 "$starter" 2>/dev/null; }
check "the stopped starter is got rid of" wait_for 60 starter_gone
evicted() { grep -q "^004 ($(printf '%03d' "$C").000.000)" job.log; }
check "the user log says evicted" wait_for 30 evicted
runs() { on cm condor_q "$J" -af NumJobStarts 2>/dev/null; }
ran_twice() { [ "$(runs)" = 2 ] && one_copy; }
check "the job runs again (NumJobStarts 2)" wait_for 90 ran_twice
check "... one copy of it" test "$(job_copies)" = 1
check "... not held" test "$(on cm condor_q "$J" -af JobStatus)" = 2
touch "$W/finish"
in_history() { test "$(on cm condor_history "$J" -af JobStatus 2>/dev/null)" = 4; }
check "the job completes" wait_for 60 in_history
check "its output ends with the second run's end" \
	test "$(tail -1 out 2>/dev/null)" = done
order=$(sed -n "s/^\(00[145]\) ($(printf '%03d' "$C").000.000).*/\1/p" job.log |
    tr '\n' ' ')
check "user log: executing, evicted, executing, terminated ($order)" \
	test "$order" = "001 004 001 005 "
check "no copy of the job is left" test "$(job_copies)" = 0
