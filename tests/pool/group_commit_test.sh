#!/usr/bin/env bash
# tests/pool/group_commit_test.sh: the schedd's group commit (one
# fdatasync of job_queue.log for all the changes of one turn of its
# loop, answers only after it), on a schedd of its own as in
# schedd_test.sh (tests/programs/schedd_peer plays the negotiator and
# the clients, a fake SHADOW script the shadows).
#
# - 20 clients whose edits reach the schedd in one turn (it is stopped
#   while they are sent): every one is answered, after one fdatasync
#   for the 20 transactions (its debug log counts them; strace, where
#   it can attach, sees every answer written after that sync), and all
#   20 are in the queue after a SIGKILL and a restart.  The same when
#   the 20 connect while it is stopped (it accepts every connection
#   waiting at once, not one a turn).
# - SIGKILL during 1,000 submits from four concurrent clients: every
#   submit a client was answered for is in the queue of the restarted
#   schedd.
# - SIGKILL during a burst of 1,000 completions (shadows that exit 100
#   at once): after the restart every job is in the queue or in the
#   history, exactly once: never lost, never both (which would run it
#   again), never twice in the history.
#
# checks: 16
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
. "$(dirname "$0")/../lib/schedd.sh"
FAKE=$POOL/fake_shadow
cat >"$FAKE" <<'EOF'
#!/bin/sh
# A stand-in for condor_shadow: the job completed (100) at once.
exit 100
EOF
chmod +x "$FAKE"
pool_config "SHADOW = $FAKE" "MAX_JOB_STARTS = 2000" \
    "MAX_JOBS_RUNNING = 2000" "SCHEDD_INTERVAL = 1"
pool_host cm "MASTER, COLLECTOR"
pool_start

schedd_peer_build

SLOG=$POOL/cm/log/SchedLog
# The schedd logs what each turn's flush did at the debug level.
start() { CONDOR_DEBUG=1 start_schedd; }
cd "$POOL" || exit 1
check "schedd starts" start

submit() {	# FILE: prints the cluster
	on cm condor_submit "$1" 2>/dev/null |
	    sed -n 's/.* cluster \([0-9]*\)\./\1/p'
}
restart() {
	stop_schedd KILL
	start
}

# 1. Twenty edits in one turn.
N=20
printf 'universe = vanilla\nexecutable = /bin/true\nqueue %d\n' "$N" \
    >"$POOL/burst.sub"
C=$(submit "$POOL/burst.sub")
rm -f "$POOL/go" "$POOL/burst.out"
peer burst "$C" "$N" "$POOL/go" >>"$POOL/burst.out" 2>&1 &
bp=$!
wait_for 30 grep -qx ready "$POOL/burst.out"
# strace, where it can attach, records the order of the schedd's writes
# and syncs during the burst.
sp=
if command -v strace >/dev/null && [ "$(id -u)" = 0 ]; then
	strace -qq -e trace=write,fdatasync -o "$POOL/burst.strace" \
	    -p "$SCHEDD_PID" 2>/dev/null &
	sp=$!
	traced() { ! grep -q '^TracerPid:[[:space:]]*0$' "/proc/$SCHEDD_PID/status"; }
	wait_for 30 traced || { kill "$sp"; wait "$sp"; sp=; }
fi
kill -STOP "$SCHEDD_PID"
touch "$POOL/go"
# Every call is in the schedd's sockets before it runs again.
wait_for 30 grep -qx sent "$POOL/burst.out"
kill -CONT "$SCHEDD_PID"
wait "$bp"
rc=$?
if [ -n "$sp" ]; then
	kill -INT "$sp"
	wait "$sp"
fi
check "20 edits sent together are all answered, each a success" \
	test "$rc:$(grep -c "^answered $C\.[0-9]* 0$" "$POOL/burst.out")" = "0:$N"
check "... after one fdatasync for their 20 transactions in one turn" \
	grep -q "group commit: $N transaction(s), $N answer(s), 1 fdatasync(s)" \
	"$SLOG"
check "... and no turn synced the log twice" \
	bash -c "! grep 'group commit:' '$SLOG' | grep -qv ', [01] fdatasync(s)'"
# An answer is one write of an RPC record, which starts with its record
# mark (high bit set: "\200" as strace writes it); the edits' records
# are written to the log before the sync, the 20 answers only after it.
answers_after_sync() {
	awk '
	/^fdatasync\(/ { if (!replies) syncs++ }
	/^write\([0-9]+, "\\200/ { replies++; if (!syncs) early++ }
	END { exit !(syncs == 1 && replies == '"$N"' && early == 0) }
	' "$POOL/burst.strace"
}
if [ -n "$sp" ]; then
	check "... and every answer was written after that fdatasync (strace)" \
		answers_after_sync
else
	skip "... and every answer was written after that fdatasync (strace)" \
		"strace is missing, or cannot attach to the schedd here"
fi
# The same from 20 clients that connect while the schedd is stopped: it
# accepts them all in one turn and serves their calls in the next.
rm -f "$POOL/go" "$POOL/fresh.out"
peer burst-fresh "$C" "$N" "$POOL/go" >>"$POOL/fresh.out" 2>&1 &
bp=$!
wait_for 30 grep -qx ready "$POOL/fresh.out"
kill -STOP "$SCHEDD_PID"
touch "$POOL/go"
wait_for 30 grep -qx sent "$POOL/fresh.out"
kill -CONT "$SCHEDD_PID"
wait "$bp"
rc=$?
check "20 clients connecting together are accepted together: their edits share one fdatasync" \
	test "$rc:$(grep -c "^answered $C\.[0-9]* 0$" "$POOL/fresh.out"):$(grep -c "group commit: $N transaction(s), $N answer(s), 1 fdatasync(s)" "$SLOG")" = "0:$N:2"
restart
burst_vals() { q "$C" -af Burst | sort -n | tr '\n' ' '; }
check "after SIGKILL and a restart the 20 edits are in the queue" \
	test "$(burst_vals)" = "$(seq 0 $((N - 1)) | tr '\n' ' ')"
on cm condor_rm "$C" >/dev/null 2>&1

# 2. SIGKILL during 1,000 submits from four clients.
printf 'universe = vanilla\nexecutable = /bin/true\nqueue\n' >"$POOL/one.sub"
client() {	# K: submits until 250 are done or one fails
	local i c
	: >"$POOL/answered.$1"
	for i in $(seq 250); do
		c=$(submit "$POOL/one.sub")
		[ -n "$c" ] || break
		echo "$c" >>"$POOL/answered.$1"
	done
}
pids=()
for k in 1 2 3 4; do
	client "$k" &
	pids+=($!)
done
answered() { [ "$(cat "$POOL"/answered.* 2>/dev/null | wc -l)" -ge "$1" ]; }
check "four clients are answered for 300 submits" wait_for 300 answered 300
stop_schedd KILL
wait "${pids[@]}"
start
cat "$POOL"/answered.* | sort -n >"$POOL/told"
q -af ClusterId | sort -n >"$POOL/queued"
told=$(wc -l <"$POOL/told")
check "the clients were answered for some but not all of the 1,000 submits" \
	test "$told" -ge 300 -a "$told" -lt 1000
check "every submit answered before SIGKILL is in the restarted queue" \
	test -z "$(comm -23 "$POOL/told" "$POOL/queued")"
on cm condor_rm -a >/dev/null 2>&1
wait_for 60 queue_empty

# 3. SIGKILL during 1,000 completions.
M=1000
printf 'universe = vanilla\nexecutable = /bin/true\nqueue %d\n' "$M" \
    >"$POOL/many.sub"
D=$(submit "$POOL/many.sub")
check "1,000 jobs queued" test "$(q "$D" -af ProcId | wc -l)" = "$M"
peer negotiate "$(addr)" 50 "$M" exec1 "<127.0.0.1:9>" >/dev/null 2>&1 &
np=$!
in_history() { on cm condor_history "$D" -af ProcId 2>/dev/null | wc -l; }
some_done() { [ "$(in_history)" -ge 200 ]; }
check "200 of the 1,000 jobs have completed" wait_for 300 some_done
stop_schedd KILL
wait "$np"
check "SIGKILL came before every job had completed" \
	test "$(in_history)" -lt "$M"
start
# The restarted schedd finishes the jobs it finds completed; the others
# are idle again (their shadows' ends were never heard).
no_completed() { [ -z "$(q "$D" -af JobStatus | grep -x 4)" ]; }
check "the restarted schedd finishes the completed jobs it found" \
	wait_for 60 no_completed
q "$D" -af ProcId >"$POOL/left"
on cm condor_history "$D" -af ProcId >"$POOL/hist" 2>/dev/null
check "every job is in the queue or the history, exactly once" \
	test "$(sort -n "$POOL/left" "$POOL/hist" | uniq -c | awk '$1 == 1' | wc -l)" = "$M"
check "... and never twice in the history" \
	test "$(sort -n "$POOL/hist" | uniq -d | wc -l)" = 0
stop_schedd TERM
exit 0
