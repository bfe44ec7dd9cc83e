#!/usr/bin/env bash
# tests/pool/std_threads_test.sh: standard-universe jobs that run several
# threads (tests/ckpt/threads.c relinked with condor_cc, -pthread): one
# compute-heavy with 8 threads made and joined every phase, one with 8
# threads sharing a mutex, condition variables and a queue, each writing
# its output through the shadow.  Each is checkpointed periodically and
# moved with condor_vacate from host to host twice on a pool of two
# execute hosts; its output must be the native run's and its user log
# show checkpointed evictions and runs on both hosts, and no checkpoint
# be refused (a thread that never stopped, say) on its stderr.
#
# checks: 20
set -u
. "$(dirname "$0")/../lib/pool.sh"
. "$(dirname "$0")/../lib/standard_pool.sh"

INTERVAL=3
MOVES=2
standard_pool 2 'SUSPEND : FALSE' 'MAX_JOB_STARTS = 10' \
	"PERIODIC_CHECKPOINT_INTERVAL = $INTERVAL" 'VACATE_GRACE = 10'
cd "$W" || exit 1

check "threads builds natively" cc -O2 -static -pthread \
	-o "$W/threads.native" "$TOP/tests/ckpt/threads.c"
check "threads relinks with condor_cc" condor_cc -O2 -pthread \
	-o "$W/threads" "$TOP/tests/ckpt/threads.c"

pool_owner "$W"
cm() { on cm "$@"; }
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
attr() { cm condor_q "$1" -af "$2" 2>/dev/null; }

# START on HOST (TRUE or FALSE), re-read by its startd (SIGHUP).
set_start() {
	local f="$POOL/$1/condor_config.local" pid
	sed -i '/^START : /d' "$f"
	echo "START : $2" >>"$f"
	pid=$(sed -n 's/.*condor_startd starting (pid \([0-9]*\)).*/\1/p' \
	    "$POOL/$1/log/StartLog" | tail -1)
	[ -n "$pid" ] && kill -HUP "$pid"
}

# run_job NAME ARGS: submit the job, vacate it MOVES times once it has
# a checkpoint on its host, and check what it printed and logged.
run_job() {
	local name=$1 args=$2 C host before last="" moved=0 i n nh log
	"$W/threads.native" $args >"$W/$name.native"
	cat >"$W/$name.sub" <<EOF2
universe   = standard
executable = threads
arguments  = $args
output     = $name.out
error      = $name.err
log        = $W/$name.log
queue
EOF2
	chmod 644 "$W/$name.sub"
	C=$( (cd "$W" && as_owner "$RELEASE/bin/condor_submit" "$name.sub" 2>&1) |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
	check "$name: the job is submitted" test -n "$C"
	running_on() {
		[ "$(attr "$C.0" JobStatus)" = 2 ] || return 1
		attr "$C.0" RemoteHost | grep -q .
	}
	ckpt_here() {
		n=$(attr "$C.0" NumCkpts)
		[ "${n:-0}" -gt "$1" ]
	}
	for ((i = 1; i <= MOVES; i++)); do
		wait_for 60 running_on || break
		host=$(attr "$C.0" RemoteHost)
		before=$(attr "$C.0" NumCkpts)
		wait_for 30 ckpt_here "${before:-0}" || break
		[ -n "$last" ] && set_start "$last" TRUE
		set_start "$host" FALSE
		last=$host
		cm condor_vacate "$host" >/dev/null 2>&1
		wait_for 40 bash -c "[ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config $RELEASE/bin/condor_q $C.0 -af RemoteHost 2>/dev/null)\" != '$host' ] ||
		    [ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config $RELEASE/bin/condor_q $C.0 -af JobStatus 2>/dev/null)\" != 2 ]" || break
		moved=$((moved + 1))
	done
	[ -n "$last" ] && set_start "$last" TRUE
	check "$name: the job was vacated $MOVES times" test "$moved" = $MOVES
	check "$name: job $C.0 completes" wait_for 180 in_history "$C.0"
	check "$name: its exit code is 0" \
		test "$(cm condor_history "$C.0" -af ExitCode 2>/dev/null)" = 0
	check "$name: its output is identical to the native run's" \
		cmp "$W/$name.native" "$W/$name.out"
	log="$W/$name.log"
	n=$(grep -A1 '^004 ' "$log" | grep -c '(1) Job was checkpointed')
	check "$name: the user log has $MOVES checkpointed evictions ($n)" \
		test "$n" -ge $MOVES
	nh=$(grep -A1 '^001 ' "$log" | grep -o 'SlotName: .*' | sort -u | wc -l)
	check "$name: it executed on both hosts ($nh)" test "$nh" -ge 2
	check "$name: nothing on its stderr (no checkpoint refused)" \
		test ! -s "$W/$name.err"
	[ -s "$W/$name.err" ] && head -c 300 "$W/$name.err"
	return 0
}

run_job compute "compute 8 60 12000000"
run_job sync "sync 8 40 1500"
exit $((POOL_FAILS > 0))
