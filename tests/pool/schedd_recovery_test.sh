#!/usr/bin/env bash
# tests/pool/schedd_recovery_test.sh: the schedd on its own (a collector,
# no negotiator, no machines; tests/programs/schedd_peer plays the
# negotiator and a fake SHADOW script the shadows, as in schedd_test.sh):
#
# - QUEUE_SUPER_USERS: a listed user may hold and remove another user's
#   jobs, an ordinary user may not, and a user taken off the list (SIGHUP)
#   no longer may.
# - Compaction of job_queue.log when something is in the way of
#   job_queue.log.tmp: the failure is logged, the queue goes on, no retry
#   before QUEUE_COMPACT_RETRY has passed (counted in failures, not in
#   seconds), a retry once it has, a restart is not stopped by it, and
#   the compacted log holds the same queue.
# - Shadows that ignore SIGTERM: condor_rm of a running job kills its
#   shadow after the grace; after a SIGKILL of the schedd the next one
#   kills the old shadows of a job removed and of a job held just before
#   the crash, adopts the old shadow of a running job (the job runs on,
#   not offered again), and condor_rm stops and kills that one too.
#
# checks: 45
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
. "$(dirname "$0")/../lib/schedd.sh"
FAKE=$POOL/fake_shadow
cat >"$FAKE" <<'EOF'
#!/bin/sh
# A stand-in for condor_shadow: "fake_shadow C.P STARTD_ADDR MACHINE".
# Records its call and runs until it is stopped: SIGTERM exits 107,
# unless ignoreterm.C.P exists (then only SIGKILL stops it).
dir=$(dirname "$0")
echo "$1 $2 $3 $$" >>"$dir/shadow_calls"
if [ -f "$dir/ignoreterm.$1" ]; then
	trap '' TERM
else
	trap 'exit 107' TERM
fi
while :; do
	sleep 0.2 &
	wait $!
done
EOF
chmod +x "$FAKE"
# RPC_TIMEOUT = 1: a stopping shadow gets 5 s (the least) before SIGKILL.
pool_config "SHADOW = $FAKE" "MAX_JOB_STARTS = 1000" "SCHEDD_INTERVAL = 1" \
    "RPC_TIMEOUT = 1" "QUEUE_COMPACT_RATIO = 1.5" \
    "QUEUE_COMPACT_RETRY = 3600" "QUEUE_SUPER_USERS = root, daemon"
pool_host cm "MASTER, COLLECTOR"
pool_start

schedd_peer_build

SLOG=$POOL/cm/log/SchedLog
submit() {	# FILE: prints the cluster
	on cm condor_submit "$1" 2>/dev/null |
	    sed -n 's/.* cluster \([0-9]*\)\./\1/p'
}
reconfig() {	# LINE: add it to cm's configuration, SIGHUP the schedd
	local n
	n=$(grep -c "re-reading the configuration" "$SLOG")
	echo "$1" >>"$POOL/cm/condor_config.local"
	kill -HUP "$SCHEDD_PID"
	wait_for 10 bash -c "[ \$(grep -c 're-reading the configuration' '$SLOG') -gt $n ]"
}
# Lines of SchedLog after line $1 that hold $2.
log_since() { tail -n +"$(($1 + 1))" "$SLOG" | grep -- "$2"; }
mark() { wc -l <"$SLOG"; }
# in_order MARK TEXT...: after line MARK of SchedLog, each TEXT is
# logged, each one after the one before.
in_order() {
	local from=$1 n last=0
	shift
	for t in "$@"; do
		n=$(tail -n +"$((from + 1))" "$SLOG" | grep -n -F -- "$t" |
		    head -1 | cut -d: -f1)
		[ -n "$n" ] && [ "$n" -gt "$last" ] || return 1
		last=$n
	done
}

cd "$POOL" || exit 1
check "schedd starts" start_schedd

# 1. QUEUE_SUPER_USERS = root, daemon: daemon may act on nobody's jobs,
# bin may not; once daemon is taken off the list, neither may.
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null &&
    id nobody >/dev/null 2>&1 && id daemon >/dev/null 2>&1 &&
    id bin >/dev/null 2>&1; then
	chmod 755 "$POOL" "$POOL/cm"
	nd=$POOL/nobody
	mkdir -p "$nd"
	chown nobody "$nd"
	printf 'universe = vanilla\nexecutable = /bin/true\nqueue 3\n' \
	    >"$nd/job.sub"
	as() {	# USER TOOL ARG...
		CONDOR_CONFIG="$POOL/cm/condor_config" runuser -u "$1" -- \
		    "$RELEASE/bin/$2" "${@:3}" >/dev/null 2>&1
	}
	check "nobody submits three jobs" as nobody condor_submit "$nd/job.sub"
	N=$(q -af ClusterId | sort -n | tail -1)
	check "they are nobody's" test "$(job_attr "$N.0" Owner)" = nobody
	if as bin condor_rm "$N.0"; then
		fail "bin (not a super user) cannot remove nobody's job"
	else
		pass "bin (not a super user) cannot remove nobody's job"
	fi
	check "... and the job is still there" \
		test "$(job_attr "$N.0" JobStatus)" = 1
	check "daemon (a super user) holds nobody's job" \
		as daemon condor_hold "$N.1"
	check "... it is held, by daemon" test \
		"$(job_attr "$N.1" JobStatus) $(job_attr "$N.1" HoldReason)" = \
		"5 via condor_hold (by user daemon)"
	check "daemon removes nobody's job" as daemon condor_rm "$N.0"
	check "... it leaves the queue" wait_for 20 \
		bash -c "[ -z \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_q $N.0 -af ClusterId 2>/dev/null)\" ]"
	check "... removed, in the history" test "$(hist_attr "$N.0" JobStatus)" = 3
	reconfig "QUEUE_SUPER_USERS = root"
	if as daemon condor_rm "$N.2"; then
		fail "daemon, off the list, can no longer remove nobody's job"
	else
		pass "daemon, off the list, can no longer remove nobody's job"
	fi
	check "... and the job is still there" \
		test "$(job_attr "$N.2" JobStatus)" = 1
	check "root still may" on cm condor_rm "$N.2"
	rm_all
else
	for n in 1 2 3 4 5 6 7 8 9 10 11 12; do
		echo "SKIP QUEUE_SUPER_USERS ($n): needs root, runuser and the users nobody, daemon and bin"
	done
fi

# 2. Compaction with a directory in the way of job_queue.log.tmp.
printf 'universe = vanilla\nexecutable = /bin/true\narguments = --input data/part-$(Process).dat\nqueue 600\n' \
    >"$POOL/c600.sub"
printf 'universe = vanilla\nexecutable = /bin/true\nqueue 1\n' \
    >"$POOL/c1.sub"
K=$(submit "$POOL/c1.sub")	# a job that stays, to compare
mkdir "$SPOOL/job_queue.log.tmp"
m0=$(mark)
C=$(submit "$POOL/c600.sub")
on cm condor_rm "$C" >/dev/null 2>&1
wait_for 30 bash -c "[ -z \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_q $C -af ClusterId 2>/dev/null)\" ]"
fails() { log_since "$m0" "cannot create .*job_queue.log.tmp" | wc -l; }
failed() { [ "$(fails)" -ge 1 ]; }
check "the churn makes a compaction due; it fails and says why" \
	wait_for 10 failed
size0=$(stat -c %s "$SPOOL/job_queue.log")
check "the log was not replaced" test "$size0" -gt 65536
before=$(q -l)
for i in 1 2 3 4 5; do
	on cm condor_prio -p "$i" "$K.0" >/dev/null 2>&1
done
check "the queue goes on taking changes" test "$(job_attr "$K.0" UserPrio)" = 5
check "no retry before QUEUE_COMPACT_RETRY: one failure for six commits ($(fails))" \
	test "$(fails)" = 1
stop_schedd TERM
check "a restart with the obstacle still there" start_schedd
check "... keeps the queue" test "$(q -l | grep -v '^UserPrio')" = \
	"$(echo "$before" | grep -v '^UserPrio')"
rmdir "$SPOOL/job_queue.log.tmp"
m1=$(mark)
reconfig "QUEUE_COMPACT_RETRY = 0"
on cm condor_prio -p 6 "$K.0" >/dev/null 2>&1
compacted() { log_since "$m1" "job queue compacted from" | grep -q .; }
check "once QUEUE_COMPACT_RETRY has passed, the next commit compacts" \
	wait_for 10 compacted
size1=$(stat -c %s "$SPOOL/job_queue.log")
check "the log shrank ($size0 -> $size1 bytes)" test "$size1" -lt $((size0 / 4))
check "nothing is left in the way" test ! -e "$SPOOL/job_queue.log.tmp"
after=$(q -l)
stop_schedd TERM
check "the schedd restarts on the compacted log" start_schedd
check "... with the same queue" test "$(q -l)" = "$after"
check "the kept job is whole" test "$(job_attr "$K.0" UserPrio)" = 6
rm_all

# 3. Shadows that ignore SIGTERM.
printf 'universe = vanilla\nexecutable = /bin/true\nqueue 4\n' >"$POOL/c4.sub"
C=$(submit "$POOL/c4.sub")
for p in 0 1 2 3; do : >"$POOL/ignoreterm.$C.$p"; done
n=$(peer negotiate "$(addr)" 1 10 exec1 "<127.0.0.1:9>" 2>/dev/null | wc -l)
check "four jobs matched" test "$n" -eq 4
spid() { awk -v id="$1" '$1 == id { p = $4 } END { print p }' "$POOL/shadow_calls"; }
for p in 0 1 2 3; do wait_for 10 test -n "$(spid "$C.$p")"; done
s0=$(spid "$C.0") s1=$(spid "$C.1") s2=$(spid "$C.2") s3=$(spid "$C.3")
dead() { ! kill -0 "$1" 2>/dev/null; }

# condor_rm of a running job: SIGTERM is ignored, SIGKILL follows.
m2=$(mark)
on cm condor_rm "$C.0" >/dev/null 2>&1
check "condor_rm: the shadow that ignores SIGTERM is killed" wait_for 30 dead "$s0"
check "... after the grace: stopped, then killed" in_order "$m2" \
	"stopping shadow $s0 of job $C.0" \
	"shadow $s0 of job $C.0 did not stop; killing it"
removed() { test "$(hist_attr "$1" JobStatus)" = 3; }
check "... and the job leaves the queue, removed" wait_for 10 removed "$C.0"

# Removed (C.1) and held (C.3) just before the schedd dies, and running
# (C.2): the next schedd stops the first two old shadows, and adopts the
# third: its job runs on.
on cm condor_rm "$C.1" >/dev/null 2>&1
on cm condor_hold "$C.3" >/dev/null 2>&1
stop_schedd KILL
check "the old shadows outlive the killed schedd" \
	bash -c "kill -0 $s1 && kill -0 $s2 && kill -0 $s3"
m3=$(mark)
check "a new schedd starts" start_schedd
check "the running job's old shadow is adopted: the job runs on" \
	wait_for 10 grep -q "shadow $s2 of job $C.2 outlived the last schedd; the job runs on with it" "$SLOG"
check "C.2 is not offered while its old shadow lives" \
	test "$(peer next "$(addr)" 2 2>/dev/null)" = none
check "C.2 is still running" test "$(job_attr "$C.2" JobStatus)" = 2
for s in "$s1:$C.1" "$s3:$C.3"; do
	pid=${s%%:*} id=${s#*:}
	check "old shadow of $id: stopped at start-up" \
		grep -q "shadow $pid of job $id outlived the last schedd" "$SLOG"
	check "old shadow of $id: killed after the grace" wait_for 30 dead "$pid"
	check "old shadow of $id: stopped, killed, gone, in that order" \
		wait_for 10 in_order "$m3" "shadow $pid of job $id outlived" \
		"old shadow $pid of job $id did not stop; killing it" \
		"old shadow $pid of job $id is gone"
done
check "the removed job is in the history" test "$(hist_attr "$C.1" JobStatus)" = 3
check "the held job stays held" test "$(job_attr "$C.3" JobStatus)" = 5
# condor_rm of the adopted job: its shadow ignores SIGTERM, SIGKILL
# follows, and the job leaves the queue, removed.
m4=$(mark)
on cm condor_rm "$C.2" >/dev/null 2>&1
check "condor_rm of the adopted job: its old shadow is killed after the grace" \
	wait_for 30 dead "$s2"
check "... stopped, killed, gone, in that order" \
	wait_for 10 in_order "$m4" "stopping old shadow $s2 of job $C.2" \
	"old shadow $s2 of job $C.2 did not stop; killing it" \
	"old shadow $s2 of job $C.2 is gone"
check "... and the job leaves the queue, removed" wait_for 10 removed "$C.2"
rm -f "$POOL"/ignoreterm.*
rm_all
stop_schedd TERM
exit 0
