#!/usr/bin/env bash
# tests/pool/owner_policy_test.sh: the owner stays in control.  The
# seeds' policy (START, SUSPEND, CONTINUE, VACATE, KILL from the default
# configuration) with time shrunk (MINUTE = 1, POLLING_INTERVAL = 1):
#
#  - exec1: touching its console suspends the running job at once
#    (process stopped, condor_q S, user log 010); leaving it alone for
#    ContinueIdleTime resumes it (011); continued activity for longer
#    than MaxSuspendTime vacates it, and it runs to completion on exec2
#    with the right output;
#  - exec3: with a high load in its LOAD_AVERAGE_FILE no job starts;
#  - exec5: condor_kbdd reports activity on an input device (a FIFO
#    here) and the startd suspends on it; a job that ignores the vacate
#    is killed by KILL;
#  - exec4: with the real /proc/loadavg, a CPU-bound job's own load
#    raises CondorLoadAvg and never makes its host leave Claimed;
#  - exec2: bad policy expressions (a misspelt attribute in SUSPEND, a
#    type error or garbage in START, a broken configuration file) are
#    logged once and handled on the owner's side; the startd serves on.
#
# checks: 99
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
# EXECUTE_USER (nobody, when the tests run as root) must reach the
# execute directories inside the pool.
chmod 755 "$POOL"
pool_config 'MINUTE = 1' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTER_TIMEOUT = 20' 'VACATE_GRACE = 2' 'MAX_JOB_STARTS = 10' \
	'PREEMPTION_ENABLED = FALSE'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
# exec1 keeps a suspended job 10 s (HTCondor's MaxSuspendTime is twice
# its ContinueIdleTime): with both at 5 s, CONTINUE and VACATE come true
# within a second of each other and a loaded machine may see both.
pool_host exec1 "MASTER, STARTD" \
	'VACATE : CurrentTime - EnteredCurrentState > 10 * $(MINUTE)'
pool_host exec2 "MASTER, STARTD"
pool_host exec3 "MASTER, STARTD"
pool_host exec4 "MASTER, STARTD"
pool_host exec5 "MASTER, STARTD, KBDD" "KBDD_DEVICES = $POOL/exec5/kbd" \
	'VACATE_GRACE = 60'
mkfifo "$POOL/exec5/kbd"
echo "5.00 4.00 3.00 9/100 1" >"$POOL/exec3/loadavg"
pool_start

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "five machines advertise" pool_wait_machines 5 60

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
cd "$W" || exit 1
cm() { on cm "$@"; }
submit() {
	cm condor_submit "$1" 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
status_is() { test "$(cm condor_q "$1" -af JobStatus 2>/dev/null)" = "$2"; }
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
count_events() {	# LOG EVENT C.P
	local c=${3%.*} p=${3#*.}
	grep -c "^$2 ($(printf '%03d.%03d' "$c" "$p").000)" "$1" 2>/dev/null
}
events_at_least() { test "$(count_events "$1" "$2" "$3")" -ge "$4"; }
running_on() { cm condor_q "$1" -af RemoteHost 2>/dev/null; }
runs_on() { status_is "$1" 2 && test "$(running_on "$1")" = "$2"; }
attr() {	# HOST ATTR
	cm condor_status -af "$2" -constraint "Name == \"$1\"" 2>/dev/null
}
state_is() { test "$(attr "$1" State)" = "$2"; }
pstate() { awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null; }
pstate_is() { test "$(pstate "$1")" = "$2"; }
pstate_not() { local s; s=$(pstate "$1"); test -n "$s" && test "$s" != "$2"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# wait_pstate PID STATE SECONDS: poll /proc every 10 ms.
wait_pstate() {
	local t0=$SECONDS
	while [ "$(pstate "$1")" != "$2" ]; do
		[ $((SECONDS - t0)) -ge "$3" ] && return 1
		sleep 0.01
	done
}
# in_order FILE N REGEX...: past FILE's first N lines, lines matching
# each REGEX (awk) come in this order.
in_order() {
	local f=$1 n=$2
	shift 2
	awk -v n="$n" -v pats="$(printf '%s\n' "$@")" '
		BEGIN { k = split(pats, p, "\n"); i = 1 }
		NR > n && i <= k && $0 ~ p[i] { i++ }
		END { exit !(i > k) }' "$f"
}
startd_pid() { sed -n 's/.*started STARTD .*pid \([0-9]*\).*/\1/p' "$POOL/$1/log/MasterLog" | tail -1; }
startlog() { cat "$POOL/$1/log/StartLog"; }

check "the default policy is the seeds' with MINUTE = 1" \
	test "$(on exec1 condor_config_val START)" = \
	"(NonCondorLoadAvg <= 0.3) && KeyboardIdle > 15 * 1"

# A job that counts N seconds; its pid goes to stderr, its steps to
# stdout, so the output of a run that started over is still exact.
cat >count.sh <<'EOF'
#!/bin/sh
echo "pid $$" >&2
i=0
while [ $i -lt $1 ]; do
	i=$((i + 1))
	echo "step $i"
	sleep 1
done
echo "done"
EOF
chmod 755 count.sh
cat >a.sub <<'EOF'
universe     = vanilla
executable   = count.sh
arguments    = 30
output       = a.out
error        = a.err
log          = a.log
requirements = Name == "exec1" || Name == "exec2"
rank         = ifThenElse(Name == "exec1", 10, 0)
queue
EOF
cat >c.sub <<'EOF'
universe     = vanilla
executable   = count.sh
arguments    = 1
output       = c.out
log          = c.log
requirements = Name == "exec3"
queue
EOF
# A job that ignores SIGTERM, for exec5.
cat >stubborn.sh <<'EOF'
#!/bin/sh
echo "pid $$" >&2
trap '' TERM
while :; do sleep 1; done
EOF
chmod 755 stubborn.sh
cat >e.sub <<'EOF'
universe     = vanilla
executable   = stubborn.sh
output       = e.out
error        = e.err
log          = e.log
requirements = Name == "exec5"
queue
EOF

A=$(submit a.sub)
C=$(submit c.sub)
E=$(submit e.sub)
check "jobs submitted" test -n "$A" -a -n "$C" -a -n "$E"

# --- 1. exec1: suspend, continue, vacate --------------------------------
check "job A runs on exec1 (its best Rank)" wait_for 60 runs_on "$A.0" exec1
check "its pid arrives" wait_for 20 grep -q '^pid ' a.err
jpid=$(sed -n 's/^pid //p' a.err | head -1)
check "job A's process runs" pstate_not "$jpid" T
check "exec1 is Claimed" state_is exec1 Claimed
sleep 2

# The job runs until the console is touched, then stops; the startd's
# decision comes after the touch in its log.  (How soon it stops is
# bench/owner_bench.sh's to measure.)
check "no suspension before the console is touched" \
	bash -c "! grep -q 'Claimed -> Suspended' $POOL/exec1/log/StartLog"
n0=$(wc -l <"$POOL/exec1/log/StartLog")
t0=$(now)
touch "$POOL/exec1/tty"
check "touching the console stops the job" wait_pstate "$jpid" T 30
check "exec1 is Suspended" wait_for 5 state_is exec1 Suspended
check "StartLog: Claimed -> Suspended (SUSPEND is TRUE), after the touch" \
	in_order "$POOL/exec1/log/StartLog" "$n0" \
	'State Claimed -> Suspended \(SUSPEND is TRUE\)'
check "condor_q shows the job as S" wait_for 10 bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_q $A | grep -Eq '^ *$A\\.0 .* S '"
check "condor_q counts it suspended" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_q $A | grep -q '1 jobs; 0 unexpanded, 0 idle, 0 running, 1 suspended, 0 held'"
check "the user log has 010 (suspended)" wait_for 10 events_at_least a.log 010 "$A.0" 1
st=$(cm condor_status)
check "condor_status shows State Suspended" \
	grep -Eq '^exec1 +N .* Suspended ' <<<"$st"
check "condor_status adds StateTime after OpSys" \
	grep -Eq '^Name +Avail +Swap +Disk +State +LdAvg +Idle +Arch +OpSys +StateTime$' <<<"$st"
check "StateTime counts the time in the state" \
	grep -Eq '^exec1 .* LINUX +0\+00:00:[0-9][0-9]$' <<<"$st"
check "KeyboardIdle is small" test "$(attr exec1 KeyboardIdle)" -lt 5
sleep 1
check "the job stays stopped" pstate_is "$jpid" T

# Left alone for ContinueIdleTime (5 s), the job resumes.
if wait_for 20 state_is exec1 Claimed; then
	t2=$(now)
	d=$(elapsed "$t0" "$t2")
	echo "# console touched -> job continued: ${d}s (ContinueIdleTime 5)"
	check "it resumes only after ContinueIdleTime (${d}s)" \
		awk -v d="$d" 'BEGIN { exit !(d >= 5.0) }'
	pass "exec1 is Claimed again once the console is idle"
else
	fail "exec1 is Claimed again once the console is idle" "$(attr exec1 State)"
fi
check "StartLog: Suspended -> Claimed (CONTINUE is TRUE)" \
	grep -q "State Suspended -> Claimed (CONTINUE is TRUE)" "$POOL/exec1/log/StartLog"
check "the job's process runs again" wait_for 5 pstate_not "$jpid" T
check "the user log has 011 (unsuspended)" wait_for 10 events_at_least a.log 011 "$A.0" 1
check "condor_q shows it running again" wait_for 10 status_is "$A.0" 2

# Continued activity: touched every half second; after MaxSuspendTime
# (10 s on exec1) suspended the job is vacated and runs on exec2.
toucher() { while :; do touch "$1"; sleep 0.5; done; }
toucher "$POOL/exec1/tty" &
TOUCHER=$!
check "continued activity suspends it again" wait_for 5 state_is exec1 Suspended
check "and then vacates it" wait_for 20 bash -c \
	"grep -q 'State Suspended -> Vacating (VACATE is TRUE)' $POOL/exec1/log/StartLog"
check "the job is evicted (004)" wait_for 30 events_at_least a.log 004 "$A.0" 1
check "its process on exec1 is gone" wait_for 20 bash -c "! kill -0 $jpid 2>/dev/null"
check "exec1 is the owner's while the console is used" wait_for 10 state_is exec1 Owner
check "the starter on exec1 has exited" wait_for 10 bash -c \
	"grep -q 'the starter of job $A.0 .* exited' $POOL/exec1/log/StartLog"
check "job A runs again, on exec2" wait_for 60 runs_on "$A.0" exec2
kill "$TOUCHER" 2>/dev/null
wait "$TOUCHER" 2>/dev/null
check "exec1 stays Owner after the vacate (no job started there)" \
	bash -c "! grep -q 'claimed by job $A.0' <(sed -n '/Suspended -> Vacating/,\$p' $POOL/exec1/log/StartLog)"

# --- 2. exec5: the kbdd; KILL of a job that ignores the vacate -------------
check "job E runs on exec5" wait_for 60 runs_on "$E.0" exec5
check "job E's pid arrives" wait_for 20 grep -q '^pid ' e.err
epid=$(sed -n 's/^pid //p' e.err | head -1)
check "the kbdd watches its device" wait_for 10 grep -q "watching $POOL/exec5/kbd" "$POOL/exec5/log/KbdLog"
sleep 2
# As on exec1: running until the input event, then stopped, the kbdd's
# report and the suspension logged after it, in that order.
check "job E runs before the input event" pstate_not "$epid" T
n0=$(wc -l <"$POOL/exec5/log/StartLog")
echo key >"$POOL/exec5/kbd"
check "a kbdd report stops the job" wait_pstate "$epid" T 30
check "exec5 is Suspended" wait_for 5 state_is exec5 Suspended
check "StartLog: the kbdd reports, then Claimed -> Suspended" \
	in_order "$POOL/exec5/log/StartLog" "$n0" \
	'the kbdd \(uid [0-9]*\) reports' 'State Claimed -> Suspended'
check "KeyboardIdle follows the kbdd while the console is idle" bash -c \
	"k=\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af KeyboardIdle ConsoleIdle -constraint 'Name == \"exec5\"'); set -- \$k; [ \$1 -lt 5 ] && [ \$2 -gt 3000 ]"
check "exec5 continues once the keyboard is idle" wait_for 20 state_is exec5 Claimed
check "job E runs again" wait_for 5 pstate_not "$epid" T
# Typing on: suspended, vacated after 5 s; the job ignores SIGTERM
# (and VACATE_GRACE is long here), so KILL ends it 5 s later.
typist() { while :; do echo key >"$1"; sleep 0.5; done; }
typist "$POOL/exec5/kbd" &
TYPIST=$!
check "typing suspends it again" wait_for 5 state_is exec5 Suspended
check "then vacates it" wait_for 20 bash -c \
	"grep -q 'State Suspended -> Vacating (VACATE is TRUE)' $POOL/exec5/log/StartLog"
check "then KILL ends the vacate that takes too long" wait_for 20 bash -c \
	"grep -q 'State Vacating -> Killing (KILL is TRUE)' $POOL/exec5/log/StartLog"
check "the stubborn job's process is gone" wait_for 20 bash -c "! kill -0 $epid 2>/dev/null"
check "exec5 is the owner's" wait_for 10 state_is exec5 Owner
kill "$TYPIST" 2>/dev/null
wait "$TYPIST" 2>/dev/null
check "the kbdd kept its device through all the writers" \
	bash -c "! grep -q '$POOL/exec5/kbd: ' $POOL/exec5/log/KbdLog"
cm condor_rm "$E.0" >/dev/null 2>&1

# --- 3. job A completes on exec2, its output exact -----------------------
check "job A completes" wait_for 90 in_history "$A.0"
{ seq 1 30 | sed 's/^/step /'; echo done; } >a.want
check "job A's output is exact" cmp -s a.out a.want
check "its history names exec2" test "$(cm condor_history "$A.0" -af LastRemoteHost)" = exec2
check "exec1 went back to Idle once the console rested" wait_for 30 state_is exec1 Idle

# --- 4. exec3: a high load keeps jobs off ----------------------------------
check "exec3 is Owner under a load of 5" state_is exec3 Owner
check "the job for exec3 never started" bash -c \
	"[ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_q $C.0 -af JobStatus)\" = 1 ]"
check "exec3 never accepted a claim" bash -c "! grep -q 'claimed by' $POOL/exec3/log/StartLog"
echo "0.00 0.00 0.00 1/100 1" >"$POOL/exec3/loadavg"
check "with the load gone the job for exec3 runs and completes" wait_for 60 in_history "$C.0"

# --- 5. exec4: a CPU-bound job's own load ----------------------------------
# Three busy processes add about 1.5 to a load average in 45 s.  First
# on a load average the test keeps as the kernel would for this job
# alone (its runnable processes, averaged over a minute): the job's own
# load crosses HighLoad (0.5) and must not count as the owner's.  Then
# on the real /proc/loadavg, which other work on this machine moves too.
cat >busy.sh <<'EOF'
#!/bin/sh
echo "pid $$" >&2
for i in 1 2 3; do
	bash -c 'end=$((SECONDS + '"$1"')); while [ $SECONDS -lt $end ]; do :; done' &
done
wait
echo done
EOF
chmod 755 busy.sh
busy_sub() {	# NAME SECONDS
	cat >"$1.sub" <<EOF
universe     = vanilla
executable   = busy.sh
arguments    = $2
output       = $1.out
error        = $1.err
log          = $1.log
requirements = Name == "exec4"
queue
EOF
}
# kernel_like SID FILE: the load average of session SID's runnable
# processes, as the kernel computes it, written to FILE every second.
kernel_like() {
	local l=0 n t0 t1
	t0=$(now)
	while :; do
		sleep 1
		n=$(ps -o stat= --sid "$1" 2>/dev/null | grep -c '^R')
		t1=$(now)
		l=$(awk -v l="$l" -v n="$n" -v dt="$(elapsed "$t0" "$t1")" \
		    'BEGIN { e = exp(-dt / 60); printf "%.4f", l * e + n * (1 - e) }')
		t0=$t1
		echo "$l $l $l 1/100 1" >"$2.tmp"
		mv "$2.tmp" "$2"
	done
}
busy_sub b 45
B=$(submit b.sub)
check "the busy job runs on exec4" wait_for 60 runs_on "$B.0" exec4
check "its pid arrives" wait_for 20 grep -q '^pid ' b.err
bpid=$(sed -n 's/^pid //p' b.err | head -1)
kernel_like "$bpid" "$POOL/exec4/loadavg" &
FEEDER=$!
left=0
for i in $(seq 1 40); do
	# On a loaded machine the 40 looks outlast the job: its end
	# (005) frees the machine, which is not leaving under load.
	grep -q '^005 ' b.log 2>/dev/null && break
	s=$(attr exec4 State)
	[ "$s" = Claimed ] || [ -z "$s" ] || left=1
	cl=$(attr exec4 CondorLoadAvg)
	ld=$(attr exec4 LoadAvg)
	nc=$(attr exec4 NonCondorLoadAvg)
	[ $((i % 10)) = 0 ] && echo "# exec4 at ${i}s: $s LoadAvg $ld CondorLoadAvg $cl NonCondorLoadAvg $nc"
	sleep 1
done
kill "$FEEDER" 2>/dev/null
wait "$FEEDER" 2>/dev/null
check "the job's own load took LoadAvg above HighLoad (${ld:-?} > 0.5)" \
	awk -v l="${ld:-0}" 'BEGIN { exit !(l > 0.5) }'
check "exec4 stayed Claimed under its job's own load" test "$left" = 0
check "CondorLoadAvg rose with the job (${cl:-?} >= 1.0)" \
	awk -v c="${cl:-0}" 'BEGIN { exit !(c >= 1.0) }'
check "CondorLoadAvg agrees with the kernel's way (${cl:-?} vs ${ld:-?})" \
	awk -v c="${cl:-0}" -v l="${ld:-0}" 'BEGIN { d = c - l; exit !(d < 0.3 && d > -0.3) }'
check "StartLog of exec4 has no suspension" \
	bash -c "! grep -q 'Claimed -> Suspended' $POOL/exec4/log/StartLog"
check "the busy job completes" wait_for 60 in_history "$B.0"

L0=$(awk '{ print $1 }' /proc/loadavg)
bg=$(awk -v l="$L0" 'BEGIN { printf "%.2f", l + 0.6 }')
hi=$(awk -v l="$L0" 'BEGIN { printf "%.2f", l + 0.9 }')
{
	echo "LOAD_AVERAGE_FILE = /proc/loadavg"
	echo "BackgroundLoad = $bg"
	echo "HighLoad = $hi"
} >>"$POOL/exec4/condor_config.local"
kill -HUP "${POOL_MASTER_PID[exec4]}"
echo "# exec4 on /proc/loadavg: L0 $L0, BackgroundLoad $bg, HighLoad $hi"
check "exec4 is Idle with the real load average" wait_for 30 state_is exec4 Idle
busy_sub b2 40
B2=$(submit b2.sub)
check "the busy job runs on exec4 again" wait_for 60 runs_on "$B2.0" exec4
left=0
maxcl=0
for i in $(seq 1 25); do
	grep -q '^005 ' b2.log 2>/dev/null && break
	s=$(attr exec4 State)
	cl=$(attr exec4 CondorLoadAvg)
	ld=$(attr exec4 LoadAvg)
	nc=$(attr exec4 NonCondorLoadAvg)
	if [ "$s" != Claimed ] && [ -n "$s" ]; then
		left=1
		echo "# exec4 left Claimed ($s) with NonCondorLoadAvg $nc (HighLoad $hi): other work on this machine"
	fi
	maxcl=$(awk -v a="$maxcl" -v b="${cl:-0}" 'BEGIN { print (b > a ? b : a) }')
	[ $((i % 10)) = 0 ] && echo "# exec4 at ${i}s: $s LoadAvg $ld CondorLoadAvg $cl NonCondorLoadAvg $nc"
	sleep 1
done
check "on /proc/loadavg CondorLoadAvg rises too ($maxcl >= 0.6)" \
	awk -v c="$maxcl" 'BEGIN { exit !(c >= 0.6) }'
# Other work on this machine moves /proc/loadavg too: when it crossed
# HighLoad, leaving Claimed was right and there is nothing to judge
# (the load the test keeps above judged the same policy).
if [ "$left" = 0 ]; then
	pass "on /proc/loadavg exec4 stayed Claimed under its job's own load"
else
	skip "on /proc/loadavg exec4 stayed Claimed under its job's own load" \
	    "the load of other work on this machine crossed HighLoad ($hi)"
fi
cm condor_rm "$B2.0" >/dev/null 2>&1
check "the second busy job is removed" wait_for 30 in_history "$B2.0"

# --- 6. exec2: bad policy --------------------------------------------------
spid=$(startd_pid exec2)
cat >sleeper.sh <<'EOF'
#!/bin/sh
echo "pid $$" >&2
while :; do sleep 1; done
EOF
chmod 755 sleeper.sh
cat >p.sub <<'EOF'
universe     = vanilla
executable   = sleeper.sh
output       = p.out
error        = p.err
log          = p.log
requirements = Name == "exec2"
queue
EOF
cp "$POOL/exec2/condor_config.local" "$POOL/exec2/local.good"
echo 'SUSPEND : KeyboardIdel < 1' >>"$POOL/exec2/condor_config.local"
kill -HUP "${POOL_MASTER_PID[exec2]}"
check "SIGHUP: exec2 reads the misspelt SUSPEND" wait_for 10 grep -q \
	'SUSPEND is KeyboardIdel < 1$' "$POOL/exec2/log/StartLog"
check "exec2 stays Idle: no job, no complaint yet" state_is exec2 Idle
P=$(submit p.sub)
check "a job starts on exec2" wait_for 60 bash -c \
	"grep -q 'claimed by job $P.0' $POOL/exec2/log/StartLog"
check "the misspelt SUSPEND is logged, naming the culprit" wait_for 10 grep -q \
	"SUSPEND is UNDEFINED, not a boolean (KeyboardIdel defined nowhere: a misspelling?)" \
	"$POOL/exec2/log/StartLog"
check "and taken as TRUE: the job is suspended" wait_for 10 bash -c \
	"grep -q 'State Claimed -> Suspended (SUSPEND is bad, taken as TRUE)' $POOL/exec2/log/StartLog"
check "it is not continued while SUSPEND is bad; VACATE sends it away" wait_for 20 bash -c \
	"grep -q 'State Suspended -> Vacating (VACATE is TRUE)' $POOL/exec2/log/StartLog"
check "no Suspended -> Claimed flapping" \
	bash -c "! grep -q 'Suspended -> Claimed' $POOL/exec2/log/StartLog"
cm condor_rm "$P.0" >/dev/null 2>&1
check "the job leaves" wait_for 30 in_history "$P.0"
check "the misspelling was logged once, not at every look" \
	test "$(grep -c 'SUSPEND is UNDEFINED' "$POOL/exec2/log/StartLog")" = 1

cp "$POOL/exec2/local.good" "$POOL/exec2/condor_config.local"
echo 'START : KeyboardIdle > "soon"' >>"$POOL/exec2/condor_config.local"
kill -HUP "${POOL_MASTER_PID[exec2]}"
check "a type error in START makes exec2 the owner's" wait_for 10 state_is exec2 Owner
check "it is logged" wait_for 5 grep -q \
	'START is ERROR, not a boolean: KeyboardIdle > "soon"; treated as FALSE' \
	"$POOL/exec2/log/StartLog"
seq0=$(attr exec2 UpdateSequenceNumber)
sleep 4
check "logged once, not at every look" \
	test "$(grep -c 'START is ERROR' "$POOL/exec2/log/StartLog")" = 1
check "the startd keeps advertising" \
	test "$(attr exec2 UpdateSequenceNumber)" -gt "${seq0:-0}"

cp "$POOL/exec2/local.good" "$POOL/exec2/condor_config.local"
echo 'START : KeyboardIdle > (((' >>"$POOL/exec2/condor_config.local"
kill -HUP "${POOL_MASTER_PID[exec2]}"
check "a START that does not parse is logged" wait_for 10 grep -q \
	"START does not parse" "$POOL/exec2/log/StartLog"
check "and exec2 stays the owner's" state_is exec2 Owner

# A file that does not read at all: the startd keeps what it had (the
# master too, which then passes nothing on: the startd is told itself).
cp "$POOL/exec2/local.good" "$POOL/exec2/condor_config.local"
echo 'this is not a setting' >>"$POOL/exec2/condor_config.local"
kill -HUP "$spid"
check "a broken configuration file keeps the old one" wait_for 10 grep -q \
	"keeping the old one" "$POOL/exec2/log/StartLog"
check "and the machine stays as it was" state_is exec2 Owner

cp "$POOL/exec2/local.good" "$POOL/exec2/condor_config.local"
kill -HUP "${POOL_MASTER_PID[exec2]}"
check "with the policy repaired exec2 is Idle again" wait_for 20 state_is exec2 Idle
check "the startd of exec2 never died" test "$(startd_pid exec2)" = "$spid"
check "it answers queries" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af Name | grep -qx exec2"
check "no master restarted a startd" bash -c "! grep -q 'restarting STARTD' $POOL/*/log/MasterLog"

# --- 7. STARTD_KBDD_ACTIVITY: the local socket only -------------------------
# rpc_call ADDR PROC MS: Sun RPC to the startd over TCP ("<ip:port>") or
# its Unix socket (a path); prints "accept_stat code" (code: status_x's).
rpc_call() {
	python3 - "$@" <<'PY'
import socket, struct, sys
addr, proc, ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if addr.startswith("/"):
    s = socket.socket(socket.AF_UNIX)
    s.connect(addr)
else:
    h, p = addr.strip("<>").rsplit(":", 1)
    s = socket.create_connection((h, int(p)))
s.settimeout(10)
body = struct.pack(">IIIIIIIIIIq", 7, 0, 2, 0x2c0d0003, 1, proc,
                   0, 0, 0, 0, ms)
s.sendall(struct.pack(">I", 0x80000000 | len(body)) + body)
def recv(n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise SystemExit("short reply")
        b += c
    return b
n = struct.unpack(">I", recv(4))[0] & 0x7fffffff
r = recv(n)
xid, mtype, rstat, vflav, vlen = struct.unpack(">IIIII", r[:20])
astat = struct.unpack(">I", r[20 + vlen:24 + vlen])[0]
code = struct.unpack(">i", r[24 + vlen:28 + vlen])[0] if astat == 0 else "-"
print(astat, code)
PY
}
saddr=$(attr exec5 StartdIpAddr)
sock="$POOL/exec5/log/.startd_socket"
nowms=$(date +%s%3N)
# Unsigned it needs DAEMON and is refused before anything; signed with
# the pool key it is still refused: only the local socket takes reports.
out=$(python3 "$TOP/tests/lib/rpccall.py" "$saddr" 0x2c0d0003 1 5 "h:$nowms")
check "an unsigned STARTD_KBDD_ACTIVITY over TCP is refused as too weak ($out)" \
	test "$out" = "denied 5"
out=$(python3 "$TOP/tests/lib/rpccall.py" -k "$POOL/pool_key" "$saddr" \
	0x2c0d0003 1 5 "h:$nowms")
check "STARTD_KBDD_ACTIVITY over TCP is refused (EPERM) ($out)" \
	test "${out%% [\"\']*}" = "0 1"
check "and logged" grep -q "activity report from 127.0.0.1 refused" "$POOL/exec5/log/StartLog"
check "over the local socket it is taken" \
	test "$(rpc_call "$sock" 5 "$nowms")" = "0 0"
check "a negative time is refused (EINVAL)" \
	test "$(rpc_call "$sock" 5 -5)" = "0 22"
check "the local socket serves no claims (PROC_UNAVAIL)" \
	test "$(rpc_call "$sock" 2 0)" = "3 -"
check "the startd of exec5 is still up" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af Name | grep -qx exec5"
