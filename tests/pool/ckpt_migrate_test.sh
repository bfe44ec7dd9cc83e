#!/usr/bin/env bash
# tests/pool/ckpt_migrate_test.sh: a CPU-bound standard-universe job
# (tests/programs/demo_primes.c relinked with condor_cc) checkpointed
# periodically and moved from host to host with condor_vacate on a pool
# of three execute hosts.  Each time: it runs and has committed a
# checkpoint on its host; condor_vacate that host; it resumes elsewhere
# from the checkpoint.  At the end its output is identical to a native
# run's, the user log shows executes on several hosts, checkpoints and
# five "Job was checkpointed" evictions, and the CPU it used over all
# runs exceeds a native run's by less than one checkpoint interval a
# move.  Also: a periodic checkpoint does not stop the job (its output
# keeps growing after one); a job that cannot checkpoint within
# VACATE_GRACE (stopped, here) is killed and resumes from its last
# periodic checkpoint, output still identical.
#
# checks: 22
set -u
. "$(dirname "$0")/../lib/pool.sh"
. "$(dirname "$0")/../lib/standard_pool.sh"

INTERVAL=3
MOVES=5
standard_pool 3 'SUSPEND : FALSE' 'MAX_JOB_STARTS = 10' \
	"PERIODIC_CHECKPOINT_INTERVAL = $INTERVAL" 'VACATE_GRACE = 3'
cd "$W" || exit 1

N=42000000
STEP=1000000
check "demo_primes builds natively" cc -O2 -static -o "$W/primes.native" \
	"$TOP/tests/programs/demo_primes.c"
check "demo_primes relinks with condor_cc" condor_cc -O2 -o "$W/primes" \
	"$TOP/tests/programs/demo_primes.c"
/usr/bin/env time -f %U -o "$W/native.cpu" "$W/primes.native" $N $STEP >"$W/native.txt"
native_cpu=$(tail -1 "$W/native.cpu")
echo "native run: ${native_cpu}s of CPU"

pool_owner "$W"
cm() { on cm "$@"; }
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
attr() { cm condor_q "$1" -af "$2" 2>/dev/null; }

cat >primes.sub <<EOF2
universe   = standard
executable = primes
arguments  = $N $STEP
output     = out.txt
error      = err.txt
log        = $W/primes.log
queue
EOF2
chmod 644 primes.sub
C=$( (cd "$W" && as_owner "$RELEASE/bin/condor_submit" primes.sub 2>&1) |
    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "the job is submitted" test -n "$C"

# The host it runs on, once it is running.
running_on() {
	[ "$(attr "$C.0" JobStatus)" = 2 ] || return 1
	attr "$C.0" RemoteHost | grep -q .
}
# A checkpoint committed since the job started on its current host.
ckpt_here() {
	local n
	n=$(attr "$C.0" NumCkpts)
	[ "${n:-0}" -gt "$1" ]
}

# START on HOST (TRUE or FALSE), re-read by its startd (SIGHUP): the
# host just vacated takes no job until the job runs elsewhere.
set_start() {
	local f="$POOL/$1/condor_config.local" pid
	sed -i '/^START : /d' "$f"
	echo "START : $2" >>"$f"
	pid=$(sed -n 's/.*condor_startd starting (pid \([0-9]*\)).*/\1/p' \
	    "$POOL/$1/log/StartLog" | tail -1)
	[ -n "$pid" ] && kill -HUP "$pid"
}

moved=0
grew=no
last=
hosts=""
for i in $(seq 1 $MOVES); do
	wait_for 60 running_on || break
	host=$(attr "$C.0" RemoteHost)
	before=$(attr "$C.0" NumCkpts)
	wait_for 30 ckpt_here "${before:-0}" || break
	if [ "$i" = 1 ]; then
		# The job goes on after a periodic checkpoint.
		s1=$(stat -c %s "$W/out.txt" 2>/dev/null || echo 0)
		sleep $((INTERVAL + 1))
		s2=$(stat -c %s "$W/out.txt" 2>/dev/null || echo 0)
		n2=$(attr "$C.0" NumCkpts)
		[ "$s2" -gt "$s1" ] && [ "${n2:-0}" -gt "${before:-0}" ] && grew=yes
	fi
	hosts="$hosts $host"
	[ -n "$last" ] && set_start "$last" TRUE
	set_start "$host" FALSE
	last=$host
	cm condor_vacate "$host" >/dev/null 2>&1
	# Gone from that host.
	wait_for 40 bash -c "[ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config $RELEASE/bin/condor_q $C.0 -af RemoteHost 2>/dev/null)\" != '$host' ] ||
	    [ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config $RELEASE/bin/condor_q $C.0 -af JobStatus 2>/dev/null)\" != 2 ]" || break
	moved=$((moved + 1))
done
echo "vacated from:$hosts"
check "the job's output grows after a periodic checkpoint" test "$grew" = yes
check "the job was vacated $MOVES times" test "$moved" = $MOVES
check "job $C.0 completes" wait_for 120 in_history "$C.0"
check "its exit code is 0" test "$(cm condor_history "$C.0" -af ExitCode 2>/dev/null)" = 0
check "its output is identical to the native run's" cmp "$W/native.txt" "$W/out.txt"
log="$W/primes.log"
n=$(grep -c '^001 ' "$log")
check "the user log has an execute event per run ($n)" test "$n" -ge $((MOVES + 1))
nh=$(grep -A1 '^001 ' "$log" | grep -o 'SlotName: .*' | sort -u | wc -l)
check "it executed on different hosts ($nh)" test "$nh" -ge 2
n=$(grep -c '^003 ' "$log")
check "the user log has checkpoint events ($n)" test "$n" -ge $MOVES
n=$(grep -A1 '^004 ' "$log" | grep -c '(1) Job was checkpointed')
check "the user log has $MOVES checkpointed evictions ($n)" test "$n" -ge $MOVES
check "the user log ends with return value 0" \
	grep -q 'Normal termination (return value 0)' "$log"
cpu=$(cm condor_history "$C.0" -af RemoteUserCpu 2>/dev/null)
echo "remote CPU over all runs: ${cpu}s; native: ${native_cpu}s"
check "no move lost more than one checkpoint interval (${cpu}s < ${native_cpu}s + $((MOVES + 1)) x ${INTERVAL}s)" \
	python3 -c "import sys; sys.exit(0 if float('${cpu:-0}') < float('${native_cpu:-0}') + $(( (MOVES + 1) * INTERVAL )) else 1)"

# --- a vacate without a checkpoint: the job is stopped, so it cannot
# write one within VACATE_GRACE; it is killed and resumes elsewhere from
# its last periodic checkpoint.
N2=12000000
"$W/primes.native" $N2 $STEP >"$W/native2.txt"
sed -e "s/^arguments .*/arguments  = $N2 $STEP/" -e 's/out.txt/out2.txt/' \
    -e 's/err.txt/err2.txt/' -e 's/primes.log/primes2.log/' primes.sub >primes2.sub
chmod 644 primes2.sub
C=$( (cd "$W" && as_owner "$RELEASE/bin/condor_submit" primes2.sub 2>&1) |
    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "the second job is submitted" test -n "$C"
stopped=no
if wait_for 60 running_on && wait_for 30 ckpt_here 0; then
	host=$(attr "$C.0" RemoteHost)
	pid=$(sed -n "s/.*job $C\.0 started: pid \([0-9]*\) .*/\1/p" \
	    "$POOL/$host/log/StarterLog" | tail -1)
	[ -n "$pid" ] && kill -STOP "$pid" && stopped=yes
	cm condor_vacate "$host" >/dev/null 2>&1
fi
check "the second job was stopped and vacated" test "$stopped" = yes
check "job $C.0 completes" wait_for 120 in_history "$C.0"
check "its output is identical to the native run's" cmp "$W/native2.txt" "$W/out2.txt"
check "its eviction was not checkpointed" \
	grep -q '(0) Job was not checkpointed' "$W/primes2.log"
# What its starters fetched: the program once, then checkpoints only.
check_resumed "$C.0" "$W/primes" +2

n=$(grep -h 'checkpoint written in' "$POOL"/exec*/log/StarterLog 2>/dev/null | head -3)
echo "$n"
grep -h 'shipped' "$POOL"/exec*/log/StarterLog 2>/dev/null | head -3
exit $((POOL_FAILS > 0))
