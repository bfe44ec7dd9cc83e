#!/usr/bin/env bash
# tests/pool/materialize_test.sh: late materialization.  A cluster of
# MATERIALIZE_JOBS (default 2000) short jobs with JobMaterializeLimit 100
# (submit's max_materialize) never has more than 100 jobs in the queue,
# as the queue log shows transaction by transaction; the schedd is
# killed (SIGKILL) while it materializes, and in the end every job
# completed exactly once, as the history shows, none lost, none twice.
# JobMaterializeMaxIdle (max_idle) bounds the idle jobs; condor_rm of a
# cluster removes the jobs not yet materialized too.  bench/ runs
# 100,000 (MATERIALIZE_JOBS=100000).
#
# checks: 21
set -u
. "$(dirname "$0")/../lib/pool.sh"

JOBS=${MATERIALIZE_JOBS:-2000}
LIMIT=100

pool_init
chmod 755 "$POOL"
# The queue log is never compacted here: its every transaction is read
# back to check the limit.
pool_config 'START : TRUE' 'MAX_JOB_STARTS = 100' \
	'QUEUE_COMPACT_RATIO = 1000000' 'STARTER_UPDATE_INTERVAL = 1'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD" 'NUM_CPUS = 8' 'MEMORY = 4096'
pool_host exec2 "MASTER, STARTD" 'NUM_CPUS = 8' 'MEMORY = 4096'
pool_start

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "two machines advertise" pool_wait_machines 2 60

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
cd "$W" || exit 1
pool_owner "$W"
cm() { on cm "$@"; }
QLOG="$POOL/cm/spool/job_queue.log"
submit() {
	(cd "$W" && as_owner "$RELEASE/bin/condor_submit" "$1" 2>&1)
}
in_queue() { cm condor_q "$1" -af ProcId 2>/dev/null | wc -l; }
in_history() { cm condor_history "$1" -af ProcId 2>/dev/null | wc -l; }
schedd_pid() {
	sed -n 's/.*condor_schedd starting (pid \([0-9]*\)).*/\1/p' \
	    "$POOL/cm/log/SchedLog" | tail -1
}

# --- 1. a large cluster, at most LIMIT at a time ------------------------
cat >big.sub <<EOF
universe              = vanilla
executable            = /bin/true
request_memory        = 1
log                   = big.log
+JobMaterializeLimit  = $LIMIT
queue $JOBS
EOF
chmod 644 big.sub
out=$(submit big.sub)
C=$(sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p' <<<"$out")
check "$JOBS jobs submitted in one cluster" \
	test "$out" = "$JOBS job(s) submitted to cluster $C."
check "the jobs not yet in the queue wait in the spool" \
	test -s "$POOL/cm/spool/cluster$C.factory"
check "condor_q -batch shows the cluster's total" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_q -batch | grep -Eq ' $JOBS +$C\\.'"

# The schedd is killed while it materializes, once a few hundred are done.
# Progress from the user log's terminated events: cheap to count, where
# condor_history would read the whole history each time.
ended() { grep -c '^005 ' big.log 2>/dev/null; }
SLOW=$((JOBS / 10 > 1800 ? JOBS / 10 : 1800))	# seconds, at the most
killed=0
kill_when_busy() { [ "$(ended)" -ge $((JOBS / 5)) ] || { sleep 1; false; }; }
if wait_for $SLOW kill_when_busy; then
	old=$(schedd_pid)
	kill -KILL "$old" && killed=1
	new_schedd() { p=$(schedd_pid); [ -n "$p" ] && [ "$p" != "$old" ]; }
	wait_for 60 new_schedd
fi
check "the schedd was killed under the cluster and restarted" \
	test "$killed" = 1
all_done() {
	[ "$(ended)" -ge "$JOBS" ] && [ "$(in_history "$C")" -ge "$JOBS" ] ||
	    { sleep 1; false; }
}
check "every job completes" wait_for $SLOW all_done
# For bench/materialize_bench.sh: what the schedd (the one restarted
# under the cluster) held at most.
p=$(schedd_pid)
echo "# schedd peak resident memory: $(sed -n 's/^VmHWM: *//p' "/proc/$p/status" 2>/dev/null)"
check "... once each: $JOBS in the history, none twice" test \
	"$(cm condor_history "$C" -af ProcId 2>/dev/null | sort -un | wc -l) $(in_history "$C")" = \
	"$JOBS $JOBS"
check "... all of them completed (JobStatus 4)" test \
	"$(cm condor_history "$C" -af JobStatus 2>/dev/null | sort -u)" = 4
check "the cluster is gone from the queue" test "$(in_queue "$C")" = 0
check "... and its file from the spool" wait_for 20 \
	test ! -e "$POOL/cm/spool/cluster$C.factory"

# Every committed transaction of the queue log, replayed: the cluster's
# jobs in the queue after each, and how often each proc was created.
read -r most created twice < <(python3 - "$QLOG" "$C" <<'EOF'
import sys
path, c = sys.argv[1], sys.argv[2]
live, most, created, twice, tx = set(), 0, set(), 0, []
for line in open(path, encoding="utf-8", errors="replace"):
    f = line.rstrip("\n").split(" ", 3)
    if f[0] == "B":
        tx = []
    elif f[0] in ("N", "X"):
        if f[1] == c and f[2] != "-1":
            tx.append((f[0], int(f[2])))
    elif f[0] == "E":
        for op, p in tx:
            if op == "N":
                if p in created:
                    twice += 1
                created.add(p)
                live.add(p)
            else:
                live.discard(p)
        most = max(most, len(live))
        tx = []
print(most, len(created), twice)
EOF
)
check "the queue log never held more than $LIMIT of its jobs (at most $most)" \
	test "${most:-999999}" -le "$LIMIT"
check "... and it held $LIMIT at some point" test "${most:-0}" = "$LIMIT"
check "... each of the $JOBS procs created once (created $created, $twice twice)" \
	test "${created:-0} ${twice:-1}" = "$JOBS 0"
check "the user log has one submit event per job" \
	test "$(grep -c '^000 ' big.log)" = "$JOBS"

# --- 2. max_idle, and condor_rm of what is not yet materialized -------
cat >idle.sub <<'EOF'
universe               = vanilla
executable             = /bin/true
requirements           = TARGET.Memory < 0
+JobMaterializeMaxIdle = 5
queue 50
EOF
cat >rm.sub <<'EOF'
universe              = vanilla
executable            = /bin/true
requirements          = TARGET.Memory < 0
+JobMaterializeLimit  = 10
queue 1000
EOF
chmod 644 idle.sub rm.sub
I=$(submit idle.sub | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
R=$(submit rm.sub | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "max_idle 5: 5 idle jobs of 50 in the queue" \
	test "$(in_queue "$I")" = 5
check "max_materialize 10: 10 jobs of 1000 in the queue" \
	test "$(in_queue "$R")" = 10
check "condor_q -batch: none done, 10 idle, 1000 in all" test "$(cm \
	condor_q -batch 2>/dev/null | awk -v r="$R" '$2 == "ID:" && $3 == r {
	print $6, $7, $8, $9, $10 }')" = "_ _ 10 _ 1000"
rm_cluster() { as_owner "$RELEASE/bin/condor_rm" "$R" >/dev/null; }
check "condor_rm of the cluster" rm_cluster
rm_done() {
	[ "$(in_queue "$R")" = 0 ] &&
	    [ ! -e "$POOL/cm/spool/cluster$R.factory" ]
}
check "... removes its materialized jobs and those still waiting" \
	wait_for 60 rm_done
check "... only the 10 materialized reach the history" \
	test "$(in_history "$R")" = 10
cm condor_rm "$I" >/dev/null 2>&1

[ "$POOL_FAILS" = 0 ]
