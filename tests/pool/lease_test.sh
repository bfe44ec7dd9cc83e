#!/usr/bin/env bash
# tests/pool/lease_test.sh: job leases on a network (tests/lib/netpool.sh).
# A vanilla job with job_lease_duration = 40 runs on exec1; exec1 is cut
# off at the switch for about ten seconds: the job runs on over there, its
# starter reconnects to the same shadow when the link heals, and the
# job finishes with no restart, its output whole and written once, the
# user log saying 022 (disconnected) and 024 (reconnected).  The same
# for a relinked standard job writing its output through its shadow
# (remote I/O in flight when the link goes): its call waits, and the job
# goes on once the link is back, output identical to a native run's.
# The submitting host crashing (its schedd and the job's shadow killed)
# while exec1 is cut off: the restarted schedd starts a new shadow,
# which the starter reconnects to once the link is back; the job is
# never started again.
# A second
# job, with a lease of 10 seconds, is cut off for longer than that: its
# starter kills it when the lease is over, the shadow gives up (025) and
# the job runs again on exec2, which starts it only after exec1's
# starter stopped it (both hosts' logs); its output is whole.
#
# checks: 25
set -u
. "$(dirname "$0")/../lib/netpool.sh"

CHECKS=("the schedd listens" "two machines advertise"
    "the job with a lease runs on exec1"
    "cut off, exec1's starter keeps it running, disconnected"
    "the shadow writes 022 and waits"
    "healed, the starter reconnects (024)" "the job completes, started once"
    "its output is whole, every line once"
    "cut off past its lease, the second job is killed by exec1's starter"
    "the shadow gives up (025) and the job runs again on exec2"
    "... only after exec1's starter stopped it"
    "its output is whole"
    "no execute directory is left on exec1"
    "one 005 for each job" "after 025, no 004: the job was not evicted"
    "a standard job with a lease writes its output through its shadow on exec1"
    "cut off, its shadow writes 022" "healed, 024"
    "the standard job completes, started once"
    "its output is identical to a native run's"
    "the submitting host crashed: its schedd is back, a new shadow reconnects"
    "... and the job is not started again meanwhile"
    "healed, the starter reconnects to the new shadow (024)"
    "the job completes, started once" "its output is whole, one 005")
netpool_require "${CHECKS[@]}"

netpool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'SUSPEND : FALSE' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTER_TIMEOUT = 6' 'RPC_TIMEOUT = 4' 'MAX_JOB_STARTS = 10'
netpool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
netpool_host exec1 "MASTER, STARTD"
# exec2 takes jobs only once they have run somewhere.
netpool_host exec2 "MASTER, STARTD" 'START : TARGET.NumJobStarts > 0'
pool_start
check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "two machines advertise" pool_wait_machines 2 60

W="$POOL/work"
mkdir -p "$W"
chmod 777 "$W"
cd "$W" || exit 1
submit() {
	on cm condor_submit "$1" 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
in_history() { test -n "$(on cm condor_history "$1" -af ProcId 2>/dev/null)"; }
attr() { on cm condor_q "$1" -af "$2" 2>/dev/null; }
# A job that counts to N, a line a second.
cat >count.sh <<'EOF'
#!/bin/sh
i=0
while [ $i -lt $1 ]; do echo "line $i"; i=$((i + 1)); sleep 1; done
echo done
EOF
chmod 755 count.sh
want() { i=0; while [ $i -lt "$1" ]; do echo "line $i"; i=$((i + 1)); done; echo done; }

# --- a cut of a quarter of the lease ----------------------------------------
cat >a.sub <<'EOF'
universe           = vanilla
executable         = count.sh
arguments          = 18
output             = a.out
log                = a.log
job_lease_duration = 40
queue
EOF
A=$(submit a.sub)
check "the job with a lease runs on exec1" wait_for 60 grep -qx "line 3" a.out
netpool_cut exec1
check "cut off, exec1's starter keeps it running, disconnected" \
	wait_for 30 grep -q "runs on under its lease" "$POOL/exec1/log/StarterLog"
check "the shadow writes 022 and waits" wait_for 30 grep -q "^022 " a.log
sleep 4
healed=$(date +%s.%N)
netpool_heal exec1
check "healed, the starter reconnects (024)" wait_for 30 grep -q "^024 " a.log
# For the record (no goal here: bench/README.md): heal to reconnection.
back=$(sed -n 's/^\([0-9/]* [0-9:.]*\) .*reconnected to the shadow.*/\1/p' "$POOL/exec1/log/StarterLog" | head -1)
[ -n "$back" ] && echo "reconnected $(awk -v a="$healed" -v b="$(date -d "$back" +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s after the link healed"
check "the job completes, started once" bash -c \
	"t=0; until [ -n \"\$(nsenter --net=/run/netns/$(netpool_ns cm) env CONDOR_CONFIG=$POOL/cm/condor_config condor_history $A.0 -af ProcId)\" ]; do t=\$((t+1)); [ \$t -gt 300 ] && exit 1; sleep 0.2; done; [ \"\$(grep -c '^001 ' a.log)\" = 1 ]"
check "its output is whole, every line once" test "$(cat a.out)" = "$(want 18)"

# --- a cut longer than the lease ------------------------------------------
cat >b.sub <<'EOF'
universe           = vanilla
executable         = count.sh
arguments          = 10
output             = b.out
log                = b.log
job_lease_duration = 10
queue
EOF
B=$(submit b.sub)
wait_for 60 grep -qx "line 2" b.out
netpool_cut exec1
check "cut off past its lease, the second job is killed by exec1's starter" \
	wait_for 90 grep -q "no shadow for the whole of the job's lease; killing job $B.0" "$POOL/exec1/log/StarterLog"
check "the shadow gives up (025) and the job runs again on exec2" bash -c \
	"t=0; until grep -q '^025 ' b.log && [ -n \"\$(nsenter --net=/run/netns/$(netpool_ns cm) env CONDOR_CONFIG=$POOL/cm/condor_config condor_history $B.0 -af ProcId)\" ]; do t=\$((t+1)); [ \$t -gt 600 ] && exit 1; sleep 0.2; done; [ \"\$(nsenter --net=/run/netns/$(netpool_ns cm) env CONDOR_CONFIG=$POOL/cm/condor_config condor_history $B.0 -af LastRemoteHost)\" = exec2 ]"
# When exec1's starter gave the job up, and when exec2's started it.
stamp() { sed -n "s/^\([0-9/]* [0-9:.]*\) .*$2.*/\1/p" "$1" | head -1; }
killed=$(stamp "$POOL/exec1/log/StarterLog" "killing job $B.0")
started=$(stamp "$POOL/exec2/log/StarterLog" "job $B.0 started")
check "... only after exec1's starter stopped it" bash -c \
	"[ -n '$killed' ] && [ -n '$started' ] && [ \"\$(date -d '$killed' +%s.%N)\" \< \"\$(date -d '$started' +%s.%N)\" ]"
netpool_heal exec1
check "its output is whole" test "$(cat b.out)" = "$(want 10)"
check "no execute directory is left on exec1" \
	wait_for 30 bash -c "! ls '$POOL/exec1/execute' | grep -q '^dir_'"
check "one 005 for each job" bash -c \
	"[ \"\$(grep -c '^005 ' a.log)\" = 1 ] && [ \"\$(grep -c '^005 ' b.log)\" = 1 ]"
check "after 025, no 004: the job was not evicted" bash -c "! grep -q '^004 ' b.log"

# --- a standard job, its remote I/O cut off -------------------------------
cc -O2 -o cj.native "$TOP/tests/chaos/chaos_job.c" &&
    condor_cc -O2 -o cj "$TOP/tests/chaos/chaos_job.c" || echo "cannot build chaos_job"
./cj.native s 60 1000000 0 >s.want
cat >s.sub <<'EOF'
universe           = standard
executable         = cj
arguments          = s 60 1000000 300
output             = s.out
log                = s.log
job_lease_duration = 40
queue
EOF
S=$(submit s.sub)
check "a standard job with a lease writes its output through its shadow on exec1" \
	wait_for 60 grep -q "^s step 5 " s.out
netpool_cut exec1
check "cut off, its shadow writes 022" wait_for 30 grep -q "^022 " s.log
sleep 4
netpool_heal exec1
check "healed, 024" wait_for 30 grep -q "^024 " s.log
s_done() {
	wait_for 120 in_history "$S.0" && [ "$(grep -c '^001 ' s.log)" = 1 ]
}
check "the standard job completes, started once" s_done
check "its output is identical to a native run's" cmp -s s.want s.out

# --- the submitting host crashes under a job with a lease -----------------
# Its schedd and the job's shadow are killed while the link to exec1 is
# down: exec1's starter runs on under the lease.  The restarted schedd
# starts a new shadow that asks exec1's startd to send the starter to
# it; once the link is back the starter reconnects, and the job goes on
# where it was, never started again (exec2 would have taken it).  The
# lease is long, so that however slowly a loaded machine goes through
# these steps the link is back before it is over.
cat >c.sub <<'EOF'
universe           = vanilla
executable         = count.sh
arguments          = 12
output             = c.out
log                = c.log
job_lease_duration = 180
queue
EOF
K=$(submit c.sub)
wait_for 60 grep -qx "line 2" c.out
shadow_pid=$(attr "$K.0" ShadowPid)
schedd_pid=$(sed -n 's/.*started SCHEDD (.*), pid \([0-9]*\)$/\1/p' "$POOL/cm/log/MasterLog" | tail -1)
spid=$(sed -n "s/^[0-9/]* [0-9:.]* \[\([0-9]*\)\] job $K.0 started.*/\1/p" "$POOL/exec1/log/StarterLog" | head -1)
netpool_cut exec1
wait_for 30 grep -q "\[$spid\] .*runs on under its lease" "$POOL/exec1/log/StarterLog"
kill -KILL "$shadow_pid" "$schedd_pid" 2>/dev/null
back() {
	grep -q "job $K.0: its shadow died; a new one (pid [0-9]*) reconnects" \
	    "$POOL/cm/log/SchedLog" &&
	    [ "$(grep -c 'condor_schedd starting' "$POOL/cm/log/SchedLog")" -ge 2 ]
}
check "the submitting host crashed: its schedd is back, a new shadow reconnects" wait_for 60 back
sleep 6
not_again() {
	! grep -q "job $K.0 started" "$POOL/exec2/log/StarterLog" &&
	    [ "$(grep -c "job $K.0 started" "$POOL/exec1/log/StarterLog")" = 1 ]
}
check "... and the job is not started again meanwhile" not_again
netpool_heal exec1
check "healed, the starter reconnects to the new shadow (024)" \
	wait_for 60 grep -q "^024 " c.log
k_done() {
	wait_for 120 in_history "$K.0" && [ "$(grep -c '^001 ' c.log)" = 1 ] &&
	    [ "$(grep -c "job $K.0 started" "$POOL/exec1/log/StarterLog")" = 1 ] &&
	    ! grep -q "job $K.0 started" "$POOL/exec2/log/StarterLog"
}
check "the job completes, started once" k_done
whole() { [ "$(cat c.out)" = "$(want 12)" ] && [ "$(grep -c '^005 ' c.log)" = 1 ]; }
if ! whole; then
	# What the job's log and the daemons said of it, to tell why.
	echo "---- c.log"; cat c.log
	echo "---- c.out"; cat c.out
	grep -h "$K\.0" "$POOL"/cm/log/SchedLog "$POOL"/cm/log/ShadowLog* \
	    "$POOL"/exec*/log/StarterLog* "$POOL"/exec*/log/StartLog 2>/dev/null |
	    tail -n 60
fi
check "its output is whole, one 005" whole
