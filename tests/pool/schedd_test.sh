#!/usr/bin/env bash
# tests/pool/schedd_test.sh: the schedd on its own, with a collector but
# no negotiator and no machines.  tests/programs/schedd_peer plays the
# negotiator (SCHEDD_NEXT_JOB, SCHEDD_MATCH) and a fake SHADOW script
# plays the shadows: it exits with the status the test chose for each
# job, which is the schedd's whole contract with its shadows.
#
# Submitting 100 procs, the schedd's ad, restarts that replay the queue,
# SIGKILL in the middle of submits (every cluster whole or absent),
# hold/release/prio/rm with their user-log events and history, owners,
# the shadow exit statuses 100/107/112/other, MAX_JOB_STARTS, SIGKILL
# with shadows running (the next schedd adopts them) and SIGTERM, and
# hostile requests.
#
# checks: 82
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
. "$(dirname "$0")/../lib/schedd.sh"
FAKE=$POOL/fake_shadow
cat >"$FAKE" <<'EOF'
#!/bin/sh
# A stand-in for condor_shadow: "fake_shadow C.P STARTD_ADDR MACHINE".
# Records its call, optionally sends a job update, waits, and exits with
# the status in exit.C.P (default 100: completed).  SIGTERM: exit 107.
# Orphaned (its schedd died), it first tells the queue that status as
# ShadowExitCode, as condor_shadow does.
dir=$(dirname "$0")
parent=$PPID
echo "$1 $2 $3 $$" >>"$dir/shadow_calls"
finish() {
	if [ "$(awk '{ print $4 }' /proc/$$/stat)" != "$parent" ]; then
		"$dir/schedd_peer" update "$id" "ShadowExitCode=$1" \
		    >>"$dir/updates" 2>&1
	fi
	exit "$1"
}
id=$1
trap 'finish 107' TERM
code=100
delay=0.3
[ -f "$dir/exit.$1" ] && code=$(cat "$dir/exit.$1")
[ -f "$dir/sleep.$1" ] && delay=$(cat "$dir/sleep.$1")
if [ -f "$dir/update.$1" ]; then
	# shellcheck disable=SC2046
	eval "\"$dir/schedd_peer\" update $1 $(cat "$dir/update.$1")" \
	    >>"$dir/updates" 2>&1
fi
sleep "$delay" &
wait $!
finish "$code"
EOF
chmod +x "$FAKE"
pool_config "SHADOW = $FAKE" "MAX_SHADOW_EXCEPTIONS = 2" \
    "MAX_JOB_STARTS = 1000" "SCHEDD_INTERVAL = 1"
pool_host cm "MASTER, COLLECTOR"
pool_start

schedd_peer_build

none_running() { [ -z "$(q -af JobStatus | grep -x 2)" ]; }
submitters() {
	on cm condor_status -submitters -af Name TotalIdleJobs "$@" 2>/dev/null
}

cd "$POOL" || exit 1
check "schedd starts" start_schedd

# 1. A cluster of 100 procs.
cat >"$POOL/c100.sub" <<EOF
universe = vanilla
executable = /bin/echo
arguments = proc \$(Process)
log = $POOL/user.log
queue 100
EOF
out=$(on cm condor_submit "$POOL/c100.sub" 2>&1)
check "submit 100 procs" test "$out" = "100 job(s) submitted to cluster 1."
check "100 jobs in the queue" test "$(q -af ProcId | wc -l)" -eq 100
check "executable in the spool" cmp /bin/echo "$SPOOL/cluster1.ickpt"
check "owner set by the schedd" test "$(job_attr 1.7 Owner)" = "$(id -un)"
check "idle (1) though it never ran" test "$(job_attr 1.7 JobStatus)" = 1
check "ProcId per proc" test "$(job_attr 1.42 Args)" = "proc 42"
wait_for 10 grep -q "^000 (001.099.000)" "$POOL/user.log"
check "100 submit events" \
    test "$(grep -c '^000 (001\.' "$POOL/user.log")" -eq 100
all_idle_seen() { test "$(submitters)" = "cm 100"; }
wait_for 10 all_idle_seen
check "the schedd's ad: 100 idle" test "$(submitters NumUsers)" = "cm 100 1"

# 2. A restart replays the queue exactly.
before=$(q -l)
stop_schedd TERM
check "schedd restarts" start_schedd
check "replay gives the same queue" test "$(q -l)" = "$before"

# 3. SIGKILL in the middle of submits, again and again: every cluster is
# whole or absent, and each one condor_submit reported is there.  Small
# clusters go in one request, the large one in pieces.
cat >"$POOL/c20.sub" <<EOF
universe = vanilla
executable = /bin/true
queue 20
EOF
cat >"$POOL/c5000.sub" <<EOF
universe = vanilla
executable = /bin/true
arguments = --input data/part-\$(Process).dat --output out/part-\$(Process)
queue 5000
EOF
: >"$POOL/acked"
bad_kill=0
for round in 1 2 3 4 5 6 7 8; do
	(
		i=0
		while :; do
			f=c20
			[ $((i % 4)) -eq 3 ] && f=c5000
			out=$(on cm condor_submit "$POOL/$f.sub" 2>/dev/null) ||
			    break
			echo "$out" >>"$POOL/acked"
			i=$((i + 1))
		done
	) &
	loop=$!
	sleep "0.$((RANDOM % 9 + 1))"
	kill -KILL "$SCHEDD_PID"
	wait "$SCHEDD_PID" 2>/dev/null
	wait "$loop" 2>/dev/null
	start_schedd || bad_kill=$((bad_kill + 1))
done
check "schedd survives eight SIGKILLs" test "$bad_kill" -eq 0
counts=$(q -af ClusterId | sort -n | uniq -c |
    awk '$2 > 1 && $1 != 20 && $1 != 5000')
check "no cluster is partial" test -z "$counts"
check "large clusters were submitted too" \
    grep -q "^5000 job(s)" "$POOL/acked"
missing=0
while read -r n _ _ _ _ c; do
	c=${c%.}
	[ "$(q "$c" -af ProcId | wc -l)" -eq "$n" ] || missing=$((missing + 1))
done <"$POOL/acked"
check "every acknowledged cluster is there ($(wc -l <"$POOL/acked") of them)" \
    test "$missing" -eq 0
check "no duplicate ids" test -z "$(q -af ClusterId ProcId | sort | uniq -d)"

# 4. Hold, release, priorities, remove.
on cm condor_hold 1.0 >/dev/null 2>&1
check "hold" test "$(job_attr 1.0 JobStatus)" = 5
check "hold reason" test "$(job_attr 1.0 HoldReason)" = \
    "via condor_hold (by user $(id -un))"
on cm condor_release 1.0 >/dev/null 2>&1
check "release of a job that never ran: idle (1)" \
    test "$(job_attr 1.0 JobStatus)" = 1
on cm condor_prio -p 7 1.1 >/dev/null 2>&1
check "prio set" test "$(job_attr 1.1 UserPrio)" = 7
on cm condor_prio +30 1.1 >/dev/null 2>&1
check "prio clamped to 20" test "$(job_attr 1.1 UserPrio)" = 20
on cm condor_rm 1.2 >/dev/null 2>&1
check "removed idle job leaves the queue" test -z "$(job_attr 1.2 JobStatus)"
check "removed job in the history" test "$(hist_attr 1.2 JobStatus)" = 3
wait_for 5 grep -q "^009 (001.002.000)" "$POOL/user.log"
check "user log: held, released, aborted" bash -c \
    "grep -q '^012 (001.000.000)' $POOL/user.log &&
     grep -q '^013 (001.000.000)' $POOL/user.log &&
     grep -q '^009 (001.002.000)' $POOL/user.log"
if ! on cm condor_rm 999.0 >/dev/null 2>&1; then
	pass "rm of a job that does not exist fails"
else
	fail "rm of a job that does not exist fails"
fi

# 5. Owners: another user may not touch these jobs.  Nobody runs the
# commands in $RELEASE from a directory of theirs (tests/lib/pool.sh).
OWNER_CHECKS=("nobody cannot remove root's job" "root's job is still there"
    "nobody submits" "the job is nobody's" "nobody holds their own job" "held"
    "nobody's user log is written as nobody"
    "the log has submit and hold events")
if [ "$(id -u)" != 0 ]; then
	for c in "${OWNER_CHECKS[@]}"; do skip "$c" "not root"; done
	rm_all
elif ! id nobody >/dev/null 2>&1 || ! command -v runuser >/dev/null; then
	for c in "${OWNER_CHECKS[@]}"; do skip "$c" "no user nobody or no runuser"; done
	rm_all
else
	chmod 755 "$POOL" "$POOL/cm"
	nd=$POOL/nobody
	mkdir -p "$nd"
	chown nobody "$nd"
	# as_nobody COMMAND ARG...: a command of $RELEASE/bin run as nobody.
	as_nobody() {
		(cd "$nd" && CONDOR_CONFIG="$POOL/cm/condor_config" \
		    runuser -u nobody -- "$RELEASE/bin/$1" "${@:2}")
	}
	out=$(as_nobody condor_rm 1.3 2>&1)
	check "nobody cannot remove root's job" \
	    test $? -ne 0 -a -n "$(grep "not yours" <<<"$out")"
	check "root's job is still there" test "$(job_attr 1.3 JobStatus)" = 1
	rm_all
	# Jobs of an ordinary user: theirs to change, logged as them.
	cat >"$nd/job.sub" <<EOS
universe = vanilla
executable = /bin/true
log = $nd/job.log
queue 2
EOS
	check "nobody submits" as_nobody condor_submit "$nd/job.sub"
	NC=$(q -af ClusterId | sort -n | tail -1)
	check "the job is nobody's" test "$(job_attr "$NC.0" Owner)" = nobody
	check "nobody holds their own job" as_nobody condor_hold "$NC.0"
	check "held" test "$(job_attr "$NC.0" JobStatus)" = 5
	wait_for 5 grep -q "^012" "$nd/job.log"
	check "nobody's user log is written as nobody" \
	    test "$(stat -c %U "$nd/job.log")" = nobody
	check "the log has submit and hold events" bash -c \
	    "grep -q '^000' $nd/job.log && grep -q '^012' $nd/job.log"
	rm_all
fi
check "rm -a empties the queue" wait_for 30 queue_empty

# 6. Negotiation and the shadows' exit statuses.
cat >"$POOL/c5.sub" <<EOF
universe = vanilla
executable = /bin/true
log = $POOL/user5.log
queue 5
EOF
out=$(on cm condor_submit "$POOL/c5.sub" 2>&1)
C=$(echo "$out" | sed -n 's/.* cluster \([0-9]*\)\./\1/p')
echo 107 >"$POOL/exit.$C.1"
echo 112 >"$POOL/exit.$C.2"
echo "HoldReason='\"input file /x is missing\"'" >"$POOL/update.$C.2"
echo 1 >"$POOL/exit.$C.3"
echo "ExitCode=0 RemoteUserCpu=1.5 Owner='\"evil\"'" >"$POOL/update.$C.4"
n=$(peer negotiate "$(addr)" 10 10 exec1 "<127.0.0.1:9>" 2>/dev/null | wc -l)
check "five jobs matched" test "$n" -eq 5
check "running" test "$(job_attr "$C.0" JobStatus)" = 2
check "RemoteHost" test "$(job_attr "$C.0" RemoteHost)" = exec1
check "shadow called with id, address, machine" \
    grep -q "^$C.0 <127.0.0.1:9> exec1 " "$POOL/shadow_calls"
wait_for 20 none_running
check "100: completed, in the history" test "$(hist_attr "$C.0" JobStatus)" = 4
check "100: LastRemoteHost" test "$(hist_attr "$C.0" LastRemoteHost)" = exec1
check "100: CompletionDate" test "$(hist_attr "$C.0" CompletionDate)" -gt 0
check "100: wall time counted" \
    awk "BEGIN { exit !($(hist_attr "$C.0" RemoteWallClockTime) > 0) }"
check "107: idle again" test "$(job_attr "$C.1" JobStatus)" = 1
check "107: started once" test "$(job_attr "$C.1" NumJobStarts)" = 1
check "107: RemoteHost gone" test "$(job_attr "$C.1" RemoteHost)" = undefined
check "112: held" test "$(job_attr "$C.2" JobStatus)" = 5
check "112: the shadow's HoldReason" \
    test "$(job_attr "$C.2" HoldReason)" = "input file /x is missing"
check "failure: requeued" test "$(job_attr "$C.3" JobStatus)" = 1
check "failure: counted" test "$(job_attr "$C.3" NumShadowExceptions)" = 1
check "update: ExitCode" test "$(hist_attr "$C.4" ExitCode)" = 0
check "update: RemoteUserCpu" test "$(hist_attr "$C.4" RemoteUserCpu)" = 1.5
check "update: Owner left alone" test "$(hist_attr "$C.4" Owner)" = "$(id -un)"
check "user log: held event" \
    grep -q "^012 ($(printf %03d "$C").002.000)" "$POOL/user5.log"
# The job that failed once fails again: held after MAX_SHADOW_EXCEPTIONS.
rm -f "$POOL/exit.$C.1"
n=$(peer negotiate "$(addr)" 11 10 exec2 "<127.0.0.1:9>" 2>/dev/null | wc -l)
check "two idle jobs matched again" test "$n" -eq 2
wait_for 20 none_running
check "second failure: held" test "$(job_attr "$C.3" JobStatus)" = 5
case "$(job_attr "$C.3" HoldReason)" in
*"shadow failed 2 times"*) pass "second failure: reason" ;;
*) fail "second failure: reason" "$(job_attr "$C.3" HoldReason)" ;;
esac
check "requeued job completes on its second run" \
    test "$(hist_attr "$C.1" NumJobStarts)" = 2
rm_all

# 7. MAX_JOB_STARTS per cycle, after a reconfiguration.
echo "MAX_JOB_STARTS = 2" >>"$POOL/cm/condor_config.local"
kill -HUP "$SCHEDD_PID"
sleep 0.5
out=$(on cm condor_submit "$POOL/c5.sub" 2>&1)
C=$(echo "$out" | sed -n 's/.* cluster \([0-9]*\)\./\1/p')
for p in 0 1 2 3 4; do echo 5 >"$POOL/sleep.$C.$p"; done
n=$(peer negotiate "$(addr)" 20 10 exec1 "<127.0.0.1:9>" 2>/dev/null | wc -l)
check "MAX_JOB_STARTS = 2: two starts in a cycle" test "$n" -eq 2
n=$(peer negotiate "$(addr)" 21 10 exec1 "<127.0.0.1:9>" 2>/dev/null | wc -l)
check "two more in the next cycle" test "$n" -eq 2
check "the best job first" test "$(peer next "$(addr)" 22)" = "$C.4"

# 8. SIGKILL with shadows running: the next schedd adopts them, their
# jobs run on and end as their shadows say (completed: exit 100).
shadows=$(awk -v c="$C" '$1 ~ "^"c"\\." { print $4 }' "$POOL/shadow_calls")
stop_schedd KILL
alive=0
for p in $shadows; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
check "shadows outlive a killed schedd" test "$alive" -eq 4
check "schedd restarts after SIGKILL" start_schedd
check "the new schedd adopts the old shadows" grep -q \
	"4 running job(s) run on with their shadows" "$POOL/cm/log/SchedLog"
gone() {
	for p in $shadows; do
		kill -0 "$p" 2>/dev/null && return 1
	done
	return 0
}
wait_for 30 gone
four_done() { [ "$(on cm condor_history "$C" -af ProcId 2>/dev/null | wc -l)" = 4 ]; }
check "their jobs end as their shadows said: completed, once" \
	wait_for 30 four_done

# 9. SIGTERM with shadows running: they leave, their jobs requeue.
n=$(peer negotiate "$(addr)" 30 10 exec1 "<127.0.0.1:9>" 2>/dev/null | wc -l)
check "the one job left runs" test "$n" -eq 1
stop_schedd TERM
check "schedd restarts after SIGTERM" start_schedd
check "requeued without counting a failure" test -z \
    "$(q "$C" -af NumShadowExceptions | grep -v -x -e 0 -e undefined)"
check "nothing running after the restart" test -z \
    "$(q "$C" -af JobStatus | grep -x 2)"
rm_all

# 10. Hostile requests.
check "garbage on the TCP port" peer garbage "$(addr)"
check "still serving after garbage" q -af ClusterId
check "submit over TCP refused" peer submit-remote "$(addr)"
check "a constraint that does not parse: an error" peer bad-constraint
check "missing executable refused" peer submit-bad /nonexistent/program
check "directory refused" peer submit-bad /tmp
mkfifo "$POOL/fifo"
check "FIFO refused without hanging" on cm timeout 10 "$PEER" submit-bad \
    "$POOL/fifo"
check "nothing queued by refused submits" test -z "$(q -af ClusterId)"
check "no stray spool files" test -z \
    "$(ls "$SPOOL" | grep -v -e '^job_queue.log$' -e '^history$' \
    -e '^pool_history$' -e '^pool_history.old$' -e '^job_queue.log.bad$' \
    -e '^collector_peers$')"
# (pool_history, collector_peers: the collector's.  job_queue.log.bad:
# a SIGKILL of part 3 may land in the write of a large transaction;
# replay cuts the torn, never acknowledged tail and keeps it there, and
# says so.)
if [ -e "$SPOOL/job_queue.log.bad" ]; then
	check "a kept tail was cut from an unfinished transaction" grep -q \
	    "dropping [0-9]* bytes after the last complete transaction" \
	    "$POOL/cm/log/SchedLog"
else
	skip "a kept tail was cut from an unfinished transaction" \
	    "no SIGKILL of part 3 landed in a write this time"
fi

# 11. A damaged queue log: the tail is cut, the schedd starts.
rm -f "$SPOOL/job_queue.log.bad"
mark=$(($(wc -l <"$POOL/cm/log/SchedLog") + 1))
out=$(on cm condor_submit "$POOL/c5.sub" 2>&1)
stop_schedd KILL
printf 'B\nS 999 0 Torn "half a transac' >>"$SPOOL/job_queue.log"
check "schedd starts on a torn log" start_schedd
check "the committed cluster survives" test "$(q -af ProcId | wc -l)" -eq 5
check "the cut is logged" bash -c \
	"tail -n +$mark '$POOL/cm/log/SchedLog' | grep -q dropping"
check "the torn tail is kept aside" grep -q 'half a transac' \
	"$SPOOL/job_queue.log.bad"

stop_schedd TERM
exit 0
