#!/usr/bin/env bash
# tests/pool/schedd_crash_test.sh: the schedd killed with SIGKILL while
# twenty jobs run (they wait for the test's word to finish).  Their shadows outlive it; the master starts a new
# schedd, which adopts every one of them instead of sending the jobs
# back to the queue: no job restarts (one 001 event each, NumJobStarts
# 1), every job completes once (one 005, once in the history) with its
# output whole, and what each shadow said of its job's end reached the
# new schedd.
#
# checks: 9
set -u
. "$(dirname "$0")/../lib/pool.sh"

N=20
pool_init
chmod 755 "$POOL"
# The jobs wait for a file of the test's: the execute hosts let them see
# the work directory, read-only, as a shared file system would.
pool_config 'START : TRUE' 'SUSPEND : FALSE' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTER_TIMEOUT = 30' 'MAX_JOB_STARTS = 40' \
	"JOB_SYSTEM_DIRS = /bin /sbin /lib /lib32 /lib64 /libx32 /usr /etc /opt $POOL/work"
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD" 'NUM_CPUS = 10' 'MEMORY = 10240'
pool_host exec2 "MASTER, STARTD" 'NUM_CPUS = 10' 'MEMORY = 10240'
pool_start
check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "two machines advertise" pool_wait_machines 2 60

W="$POOL/work"
mkdir -p "$W"
chmod 777 "$W"
cd "$W" || exit 1
cm() { on cm "$@"; }
cat >count.sh <<EOF
#!/bin/sh
echo "job \$1 started"
while [ ! -e "$W/go" ]; do sleep 0.5; done
i=0
while [ \$i -lt 5 ]; do echo "job \$1 line \$i"; i=\$((i + 1)); sleep 1; done
EOF
chmod 755 count.sh
cat >many.sub <<EOF
universe       = vanilla
executable     = count.sh
arguments      = \$(Process)
output         = out.\$(Process)
log            = many.log
request_memory = 64
queue $N
EOF
C=$(cm condor_submit many.sub 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
running() { [ "$(cm condor_q "$C" -af JobStatus 2>/dev/null | grep -c '^2$')" = "$N" ]; }
check "all $N jobs run" wait_for 180 running
old=$(sed -n 's/.*condor_schedd starting (pid \([0-9]*\)).*/\1/p' "$POOL/cm/log/SchedLog" | tail -1)
kill -KILL "$old"
newpid() {
	local p
	p=$(sed -n 's/.*condor_schedd starting (pid \([0-9]*\)).*/\1/p' "$POOL/cm/log/SchedLog" | tail -1)
	[ -n "$p" ] && [ "$p" != "$old" ]
}
check "killed with SIGKILL, the schedd is started again by the master" \
	wait_for 90 newpid
check "the new schedd adopts every running job's shadow" \
	wait_for 60 grep -q "$N running job(s) run on with their shadows" "$POOL/cm/log/SchedLog"
touch go
all_done() { [ "$(cm condor_history "$C" -af ProcId 2>/dev/null | wc -l)" -ge "$N" ]; }
check "every job completes" wait_for 300 all_done
check "none restarted: one 001 each, NumJobStarts 1" bash -c \
	"[ \"\$(grep -c '^001 ' many.log)\" = $N ] && [ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_history $C -af NumJobStarts | sort -u)\" = 1 ]"
check "each completed once: one 005 each, once in the history" bash -c \
	"[ \"\$(grep -c '^005 ' many.log)\" = $N ] && [ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_history $C -af ProcId | sort -u | wc -l)\" = $N ] && [ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_history $C -af ProcId | wc -l)\" = $N ]"
ok=1
for ((p = 0; p < N; p++)); do
	[ "$(wc -l <"out.$p")" = 6 ] && [ "$(tail -1 "out.$p")" = "job $p line 4" ] || ok=0
done
check "every output is whole" test $ok = 1
