#!/usr/bin/env bash
# tests/pool/commands_daily_test.sh: the commands users type daily, as
# HTCondor has them, against a pool that really runs jobs (a central
# manager and two execute hosts): condor_version; condor_reconfig (a
# changed setting takes effect, no daemon restarts) and condor_restart
# (new daemons, the master itself, or one daemon); condor_status
# -schedd, -master, -negotiator, -any, -af:OPTS with expressions,
# -format; condor_q -af expressions, -af:jh, -format and its PRI column;
# condor_tail of a running vanilla job, -stderr, -maxbytes, -f until the
# job ends, refused to another user; of a job whose output is not
# streamed (from its execute host, through the schedd); of a standard
# job; condor_userprio after jobs ran, and
# -setprio for administrators only; condor_history newest first and
# -forwards.
#
# checks: 86
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'STARTER_UPDATE_INTERVAL = 1' 'VACATE_GRACE = 2'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
pool_host exec2 "MASTER, STARTD"
pool_start

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "two machines advertise" pool_wait_machines 2 60

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
cd "$W" || exit 1
pool_owner "$W"
cm() { on cm "$@"; }
fails() { ! "$@" >/dev/null 2>&1; }
# starts HOST DAEMON LOG: how many times DAEMON's log says it started.
starts() { grep -c "\*\* condor_$2 starting (pid" "$POOL/$1/log/$3" 2>/dev/null; }
# last_pid HOST DAEMON LOG: the pid of DAEMON's latest start
last_pid() { sed -n 's/.*\*\* condor_'"$2"' starting (pid \([0-9]*\)).*/\1/p' "$POOL/$1/log/$3" | tail -n 1; }
cluster_of() { sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'; }

# --- every new command: -h, and errors on stderr -------------------
for c in condor_version condor_reconfig condor_restart condor_userprio \
    condor_tail; do
	check "$c -h" cm "$c" -h >/dev/null
	err=$(cm "$c" -no-such-option 2>&1 >/dev/null)
	rc=$?
	check "$c: a bad option fails, said as \"$c: ...\"" \
		test "$rc" -ne 0 -a "${err#"$c: "}" != "$err"
done

# --- condor_version -------------------------------------------------
v=$(cm condor_version)
check "condor_version: \$CondorVersion: X.Y.Z DATE \$" grep -Eqx \
	'\$CondorVersion: [0-9]+\.[0-9]+\.[0-9]+ [A-Z][a-z]{2} [ 0-9][0-9] [0-9]{4} \$' \
	<<<"$(sed -n 1p <<<"$v")"
check "condor_version: \$CondorPlatform: X86_64-Linux \$" test \
	"$(sed -n 2p <<<"$v")" = "\$CondorPlatform: $(uname -m | tr a-z A-Z)-Linux \$"

# --- condor_status: other ads ---------------------------------------
has_ads() { [ "$(cm condor_status "$1" -af Name 2>/dev/null | sort | tr '\n' ' ')" = "$2" ]; }
check "condor_status -master: the three masters" wait_for 60 has_ads -master "cm exec1 exec2 "
check "condor_status -schedd: the schedd" wait_for 60 has_ads -schedd "cm "
check "condor_status -negotiator: the negotiator" wait_for 60 has_ads -negotiator "cm "
t=$(cm condor_status -schedd)
check "condor_status -schedd table" grep -Eq '^Name +Machine +RunningJobs +IdleJobs +HeldJobs$' <<<"$t"
check "condor_status -schedd row" grep -Eq '^cm +cm +0 +0 +0$' <<<"$t"
check "condor_status -master shows what each master runs" grep -Eq \
	'^exec1 +exec1 +STARTD=running$' <<<"$(cm condor_status -master)"
any=$(cm condor_status -any -af MyType | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')
check "condor_status -any: every kind of ad ($any)" test \
	"$any" = "DaemonMaster=3 Machine=2 Negotiator=1 Scheduler=1 "

# --- condor_status -af:OPTS, expressions, -format ---------------------
mem=$(cm condor_status exec1 -af Memory)
out=$(cm condor_status exec1 -af:h Name 'Memory * 2' 'State == "Idle"')
check "condor_status -af:h: a heading of the names" test \
	"$(sed -n 1p <<<"$out")" = 'Name Memory * 2 State == "Idle"'
check "condor_status -af: an expression's value" test \
	"$(sed -n 2p <<<"$out")" = "exec1 $((mem * 2)) true"
check "condor_status -af:, commas" test \
	"$(cm condor_status exec1 -af:, Name Memory)" = "exec1, $mem"
check "condor_status -af:jh: the Name first, a heading" test \
	"$(cm condor_status exec2 -af:jh Memory | tr '\n' '|')" = "Name Memory|exec2 $mem|"
check "condor_status -af:ln: labels, a line each" test \
	"$(cm condor_status exec1 -af:ln Name Memory | tr '\n' '|')" = "Name = exec1|Memory = $mem|"
check "condor_status -format" test \
	"$(cm condor_status -format '%s:' Name -format '%d\n' 'Memory + 1')" = \
	"$(printf 'exec1:%d\nexec2:%d' $((mem + 1)) $((mem + 1)))"
check "condor_status -format: a bad format is refused" fails cm condor_status -format '%n' Name

# --- condor_reconfig: a changed setting takes effect ------------------
s0=$(starts cm schedd SchedLog)
max_is() { test "$(cm condor_status -schedd -af MaxJobsRunning)" = "$1"; }
check "MaxJobsRunning as configured" wait_for 60 max_is 200
echo "MAX_JOBS_RUNNING = 77" >>"$POOL/cm/condor_config.local"
check "condor_reconfig as an ordinary user is refused" fails \
	as_owner env CONDOR_CONFIG="$POOL/cm/condor_config" condor_reconfig
check "condor_reconfig" grep -qx 'Sent "reconfig" to the master of cm' \
	<<<"$(cm condor_reconfig 2>&1)"
check "after condor_reconfig the schedd has the new setting" wait_for 60 max_is 77
check "... without restarting" test "$(starts cm schedd SchedLog)" = "$s0"

# --- condor_restart ---------------------------------------------------
m0=$(starts exec1 master MasterLog)
d0=$(last_pid exec1 startd StartLog)
mpid=${POOL_MASTER_PID[exec1]}
check "condor_restart exec1" grep -qx 'Sent "restart" to the master of exec1' \
	<<<"$(cm condor_restart exec1 2>&1)"
more_starts() { [ "$(starts "$1" "$2" "$3")" -gt "$4" ]; }
check "the master of exec1 started again" wait_for 60 more_starts exec1 master MasterLog "$m0"
newer_startd() { [ -n "$(last_pid "$1" startd StartLog)" ] && [ "$(last_pid "$1" startd StartLog)" != "$2" ]; }
check "... with a new startd" wait_for 60 newer_startd exec1 "$d0"
check "... the master in the same process" kill -0 "$mpid"
check "... whose startd advertises again" pool_wait_machines 2 60
d2=$(last_pid exec2 startd StartLog)
m2=$(starts exec2 master MasterLog)
check "condor_restart -daemon STARTD exec2" cm condor_restart -daemon STARTD exec2
check "exec2's startd has a new pid" wait_for 60 newer_startd exec2 "$d2"
check "... its master went on" test "$(starts exec2 master MasterLog)" = "$m2"
check "condor_restart of a daemon not listed fails" fails cm condor_restart -daemon SCHEDD exec2
check "condor_restart as an ordinary user is refused" fails \
	as_owner env CONDOR_CONFIG="$POOL/exec2/condor_config" condor_restart
check "two machines advertise after the restarts" pool_wait_machines 2 60

# --- condor_q: PRI, -af expressions, -af:jh, -format ------------------
printf '%s\n' 'universe = vanilla' 'executable = /bin/true' \
	'requirements = Memory < 0' 'priority = 7' 'queue' >idle.sub
I=$(as_owner condor_submit idle.sub 2>&1 | cluster_of)
check "a job that cannot run queued" test -n "$I"
check "condor_q's PRI column shows its priority" grep -Eq \
	"^ +$I\.0 +$OWNER .* [UI]  7 " <<<"$(cm condor_q "$I")"
as_owner condor_prio +3 "$I.0" >/dev/null
check "condor_prio +3 raises it in the PRI column (higher runs sooner)" grep -Eq \
	"^ +$I\.0 +$OWNER .* [UI]  10 " <<<"$(cm condor_q "$I")"
check "condor_q -af expressions" test \
	"$(cm condor_q "$I" -af 'ClusterId * 10' 'ProcId == 0' 'UserPrio + 1')" = \
	"$((I * 10)) true 11"
check "condor_q -af:jh" test "$(cm condor_q "$I" -af:jh Owner | tr '\n' '|')" = \
	"ID Owner|$I.0 $OWNER|"
check "condor_q -format" test \
	"$(cm condor_q "$I" -format '<%d>' 'ClusterId + ProcId' -format '%s\n' Owner)" = \
	"<$I>$OWNER"
cm condor_rm "$I" >/dev/null

# --- condor_tail ----------------------------------------------------------
printf '%s\n' '#!/bin/sh' 'echo "to stderr" >&2' 'i=1' \
	'while [ $i -le $1 ]; do' '	echo "tick $i"' '	i=$((i + 1))' \
	'	sleep 0.25' 'done' 'echo "the end"' >ticks.sh
chmod 755 ticks.sh
printf '%s\n' 'universe = vanilla' 'executable = ticks.sh' 'arguments = 160' \
	'output = ticks.out' 'error = ticks.err' 'log = ticks.log' \
	'stream_output = true' 'stream_error = true' 'queue' >ticks.sub
T=$(as_owner condor_submit ticks.sub 2>&1 | cluster_of)
check "a job that writes for a while queued" test -n "$T"
tails() { as_owner condor_tail "$T.0" 2>/dev/null | grep -q '^tick '; }
check "condor_tail shows its output while it runs" wait_for 120 tails
check "its status is running meanwhile" test "$(cm condor_q "$T.0" -af JobStatus)" = 2
check "condor_tail -stderr" grep -qx "to stderr" <<<"$(as_owner condor_tail -stderr "$T.0")"
check "condor_tail -maxbytes 5: 5 bytes at most" test \
	"$(as_owner condor_tail -maxbytes 5 "$T.0" | wc -c)" -le 5
check "an administrator may condor_tail it" grep -q '^tick ' <<<"$(cm condor_tail "$T.0")"
if [ "$OWNER" != "$(id -un)" ] && id daemon >/dev/null 2>&1; then
	err=$(CONDOR_CONFIG="$POOL/cm/condor_config" setpriv --reuid=daemon \
	    --regid="$(id -g daemon)" --clear-groups condor_tail "$T.0" 2>&1)
	rc=$?
	check "another user cannot condor_tail it" test "$rc" -ne 0 -a \
		-z "$(grep '^tick' <<<"$err")"
	check "... and is told whose it is" grep -q "is $OWNER's, not yours" <<<"$err"
else
	skip "another user cannot condor_tail it" "needs root and user daemon"
	skip "... and is told whose it is" "needs root and user daemon"
fi
as_owner condor_tail -f "$T.0" >"$POOL/tail.out" 2>"$POOL/tail.err" &
tpid=$!
check "condor_tail -f ends when the job ends" wait_for 240 bash -c "! kill -0 $tpid 2>/dev/null"
wait "$tpid"
trc=$?
check "condor_tail -f exits 0" test "$trc" = 0
check "condor_tail -f followed to the last tick" grep -qx "tick 160" "$POOL/tail.out"
check "condor_tail -f printed the last line" test "$(tail -n 1 "$POOL/tail.out")" = "the end"
check "condor_tail -f printed no line twice" test \
	"$(grep -c '^tick ' "$POOL/tail.out")" = "$(grep '^tick ' "$POOL/tail.out" | sort -u | wc -l)"
done_job() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
check "the job finished" wait_for 120 done_job "$T.0"
check "condor_tail of a job that is not running fails" fails as_owner condor_tail "$T.0"

# --- condor_tail of a job whose output is not streamed: from its machine ---
printf '%s\n' 'universe = vanilla' 'executable = ticks.sh' 'arguments = 100' \
	'output = nost.out' 'error = nost.err' '+StreamOut = false' \
	'+StreamErr = false' 'queue' >nost.sub
N=$(as_owner condor_submit nost.sub 2>&1 | cluster_of)
check "a job whose output is not streamed queued" test -n "$N"
ntails() { as_owner condor_tail "$N.0" 2>/dev/null | grep -q '^tick '; }
check "condor_tail gets its output from its machine (SCHEDD_TAIL)" wait_for 120 ntails
check "... and its error" grep -qx "to stderr" <<<"$(as_owner condor_tail -stderr "$N.0")"
check "... at most -maxbytes of it" test \
	"$(as_owner condor_tail -maxbytes 7 "$N.0" | wc -c)" -le 7
if [ "$OWNER" != "$(id -un)" ] && id daemon >/dev/null 2>&1; then
	err=$(CONDOR_CONFIG="$POOL/cm/condor_config" setpriv --reuid=daemon \
	    --regid="$(id -g daemon)" --clear-groups condor_tail "$N.0" 2>&1)
	rc=$?
	check "the schedd refuses it to another user" test "$rc" -ne 0 -a \
		-z "$(grep '^tick' <<<"$err")"
else
	skip "the schedd refuses it to another user" "needs root and user daemon"
fi
as_owner condor_tail -f "$N.0" >"$POOL/ntail.out" 2>"$POOL/ntail.err" &
tpid=$!
check "condor_tail -f from its machine ends when the job ends" wait_for 240 \
	bash -c "! kill -0 $tpid 2>/dev/null"
wait "$tpid"
trc=$?
check "... exits 0, having followed it ($(grep -c '^tick ' "$POOL/ntail.out") ticks)" \
	test "$trc" = 0 -a "$(grep -c '^tick ' "$POOL/ntail.out")" -gt 0 -a \
	"$(grep -c '^tick ' "$POOL/ntail.out")" = "$(grep '^tick ' "$POOL/ntail.out" | sort -u | wc -l)"

# --- condor_tail of a standard job: its output comes by remote calls ---
printf '%s\n' '#include <stdio.h>' '#include <stdlib.h>' '#include <unistd.h>' \
	'int main(int argc, char **argv) {' \
	'	int i, n = argc > 1 ? atoi(argv[1]) : 10;' \
	'	for (i = 1; i <= n; i++) {' \
	'		printf("std tick %d\n", i);' '		fflush(stdout);' \
	'		usleep(250000);' '	}' '	printf("std end\n");' \
	'	return 0;' '}' >stdticks.c
check "a standard job relinked" condor_cc -O2 -o stdticks stdticks.c
printf '%s\n' 'universe = standard' 'executable = stdticks' 'arguments = 120' \
	'output = stdticks.out' 'error = stdticks.err' 'log = stdticks.log' \
	'queue' >stdticks.sub
S=$(as_owner condor_submit stdticks.sub 2>&1 | cluster_of)
check "the standard job queued" test -n "$S"
std_tails() { as_owner condor_tail "$S.0" 2>/dev/null | grep -q '^std tick '; }
check "condor_tail shows the standard job's output while it runs" wait_for 120 std_tails
as_owner condor_tail -f "$S.0" >"$POOL/stdtail.out" 2>"$POOL/stdtail.err" &
tpid=$!
check "condor_tail -f of the standard job ends when it ends" wait_for 240 \
	bash -c "! kill -0 $tpid 2>/dev/null"
wait "$tpid"
trc=$?
check "... exits 0, having printed its last line" test "$trc" = 0 -a \
	"$(tail -n 1 "$POOL/stdtail.out")" = "std end"

# --- condor_userprio ---------------------------------------------------
up=$(cm condor_userprio)
check "condor_userprio heading" grep -q '^Last Priority Update: ' <<<"$up"
check "condor_userprio shows the submitting station" grep -Eq \
	'^cm +-?[0-9]+\.[0-9]{2} +1\.00 +[0-9]+ +[0-9]+$' <<<"$up"
check "condor_userprio -all has the real priority" grep -Eq \
	'^cm +-?[0-9]+\.[0-9]{2} +-?[0-9]+\.[0-9]{2} +1\.00 ' <<<"$(cm condor_userprio -all)"
check "condor_userprio -setprio as an ordinary user is refused" fails \
	as_owner condor_userprio -setprio cm 500
check "condor_userprio -setprio by an administrator" grep -qx \
	"The priority of cm was set to 500" <<<"$(cm condor_userprio -setprio cm 500)"
prio_of_cm() { cm condor_userprio | awk '$1 == "cm" { print int($2) }'; }
p=$(prio_of_cm)
check "the station's priority is what was set, give or take the updates since ($p)" \
	test "${p:-0}" -ge 400 -a "${p:-0}" -le 600
check "the negotiator logged who set it" grep -q "priority .* -> 500 (condor_userprio -setprio)" \
	"$POOL/cm/log/NegotiatorLog"
check "condor_userprio -setfactor is refused with a reason" grep -q "no priority factor" \
	<<<"$(cm condor_userprio -setfactor cm 2 2>&1)"

# --- condor_history: newest first, -forwards ----------------------------
printf '%s\n' 'universe = vanilla' 'executable = /bin/echo' 'arguments = hi' \
	'output = quick.$(Cluster).out' 'queue' >quick.sub
Q1=$(as_owner condor_submit quick.sub 2>&1 | cluster_of)
check "a first quick job finished" wait_for 120 done_job "$Q1.0"
Q2=$(as_owner condor_submit quick.sub 2>&1 | cluster_of)
check "a second quick job finished" wait_for 120 done_job "$Q2.0"
h=$(cm condor_history -af ClusterId)
check "condor_history: newest first" test "$(sed -n 1p <<<"$h")" = "$Q2"
check "condor_history -forwards: oldest first, the same jobs" test \
	"$(cm condor_history -forwards -af ClusterId)" = "$(tac <<<"$h")"
check "condor_history -limit 1: the newest" test "$(cm condor_history -limit 1 -af ClusterId)" = "$Q2"
check "condor_history -forwards -limit 1: the oldest" test \
	"$(cm condor_history -forwards -limit 1 -af ClusterId)" = "$(sed -n '$p' <<<"$h")"

pool_stop
