#!/usr/bin/env bash
# tests/pool/jobs_vanilla_test.sh: vanilla jobs from condor_submit to
# condor_history through the whole pool (collector, negotiator, schedd,
# shadows, two startds and their starters): input, output, exit codes,
# user-log events, mail, a missing input file held and released,
# condor_rm of a running job, condor_vacate, a startd killed under a
# running job, and the jobs' own policies (on_exit_hold, max_retries,
# periodic_hold, periodic_release, periodic_remove), concurrency limits,
# an accounting group's quota, a nice user's jobs giving way.
#
# checks: 83
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
# EXECUTE_USER (nobody, when the tests run as root) must reach the
# execute directories inside the pool.
chmod 755 "$POOL"
cat >"$POOL/mailer" <<EOF
#!/bin/sh
{ echo "=== to \$1"; cat; } >>"$POOL/mail.out"
EOF
chmod 755 "$POOL/mailer"
pool_config 'START : TRUE' "MAIL = $POOL/mailer" \
	'STARTER_UPDATE_INTERVAL = 1' 'STARTER_TIMEOUT = 20' \
	'VACATE_GRACE = 2' 'MAX_JOB_STARTS = 10' 'PERIODIC_EXPR_INTERVAL = 1' \
	'LIC_LIMIT = 1' 'GROUP_QUOTA_physics = 1' \
	"GROUP_MEMBERS_physics = $(id -un)"
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
cm() { on cm "$@"; }
# submit FILE: the cluster number, from "N job(s) submitted to cluster C."
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
is_running() { status_is "$1" 2 && test -n "$(running_on "$1")"; }

# --- 1. three jobs: stdin, stdout, stderr, exit codes, log, mail ------
cat >job.sh <<'EOF'
#!/bin/sh
read line
echo "job $1 read: $line"
echo "uid $(id -u)"
echo "to stderr $1" >&2
exit $1
EOF
chmod 755 job.sh
for i in 0 1 2; do echo "input $i" >"in.$i"; done
cat >three.sub <<'EOF'
universe     = vanilla
executable   = job.sh
arguments    = $(Process)
input        = in.$(Process)
output       = out.$(Process)
error        = err.$(Process)
log          = three.log
notification = Complete
queue 3
EOF
C=$(submit three.sub)
check "three jobs submitted" test -n "$C"
for i in 0 1 2; do
	check "job $C.$i completes" wait_for 90 in_history "$C.$i"
done
for i in 0 1 2; do
	check "job $C.$i read its input" grep -qx "job $i read: input $i" "out.$i"
	check "job $C.$i stderr" grep -qx "to stderr $i" "err.$i"
	check "job $C.$i did not run as root" bash -c "! grep -qx 'uid 0' out.$i"
	check "job $C.$i ExitCode $i" \
		test "$(cm condor_history "$C.$i" -af ExitCode)" = "$i"
	check "job $C.$i events 000 001 005" bash -c "
		grep -q '^000 ($(printf '%03d.%03d' "$C" "$i").000)' three.log &&
		grep -q '^001 ($(printf '%03d.%03d' "$C" "$i").000)' three.log &&
		grep -q '^005 ($(printf '%03d.%03d' "$C" "$i").000)' three.log"
	check "job $C.$i mail" grep -q "Subject: \[Condor\] Condor Job $C.$i\$" "$POOL/mail.out"
done
check "the user log records the return values" \
	grep -q "Normal termination (return value 2)" three.log
check "SlotName names an execute host" grep -Eq "SlotName: exec[12]\$" three.log
check "LastRemoteHost in the history" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_history $C -af LastRemoteHost | grep -Eqx 'exec[12]'"
check "RemoteWallClockTime in the history" \
	test -n "$(cm condor_history "$C.0" -af RemoteWallClockTime)"

# --- 1b. HTCondor's new syntax for arguments and environment ----------
cat >words.sh <<'EOF'
#!/bin/sh
for w in "$@"; do echo "word [$w]"; done
echo "B [$B]"
EOF
chmod 755 words.sh
cat >words.sub <<'EOF'
universe    = vanilla
executable  = words.sh
arguments   = "a 'b c' 'it''s' ""q"""
environment = "A=1 B='x y'"
output      = words.out
queue
EOF
NW=$(submit words.sub)
check "a job with new-style arguments and environment completes" \
	wait_for 90 in_history "$NW.0"
printf 'word [a]\nword [b c]\nword [it'"'"'s]\nword ["q"]\nB [x y]\n' >words.want
check "... its words and variable are its author's" cmp -s words.want words.out

# HTCondor's item queue forms.
cat >items.sub <<'EOF'
universe    = vanilla
executable  = words.sh
arguments   = $(name) $(Step)
output      = item.$(name).$(Step)
queue 2 name in (alpha,
                 beta)
EOF
IC=$(submit items.sub)
items_done() { for n in alpha beta; do for s in 0 1; do in_history "$IC.$( [ $n = alpha ] && echo $s || echo $((s + 2)) )" || return 1; done; done; }
check "queue 2 name in (alpha, beta) runs four jobs" wait_for 90 items_done
check "... each with its item and step" bash -c \
	'grep -qx "word \[beta\]" item.beta.1 && grep -qx "word \[1\]" item.beta.1 && grep -qx "word \[alpha\]" item.alpha.0'

# --- 2. input removed after submit: held, then released --------------
echo "late input" >late.in
cat >late.sub <<'EOF'
universe   = vanilla
executable = job.sh
arguments  = 0
input      = late.in
output     = late.out
log        = late.log
queue
EOF
C=$(submit late.sub)
cm condor_hold "$C" >/dev/null 2>&1
rm -f late.in
cm condor_release "$C" >/dev/null 2>&1
check "a job whose input vanished goes Held" wait_for 60 status_is "$C.0" 5
reason=$(cm condor_q "$C.0" -af HoldReason 2>/dev/null)
check "HoldReason names the input file" \
	grep -q "Cannot open input file $W/late.in" <<<"$reason"
echo "late input" >late.in
cm condor_release "$C" >/dev/null 2>&1
check "released with its input back, it completes" wait_for 90 in_history "$C.0"
check "and read its input" grep -qx "job 0 read: late input" late.out

# --- 3. condor_rm of a running job -----------------------------------
cat >sleeper.sh <<'EOF'
#!/bin/sh
echo "pid $$"
trap '' TERM
while :; do sleep 1; done
EOF
chmod 755 sleeper.sh
cat >rm.sub <<'EOF'
universe   = vanilla
executable = sleeper.sh
output     = rm.out
log        = rm.log
queue
EOF
C=$(submit rm.sub)
check "the job to remove runs" wait_for 60 is_running "$C.0"
check "its output reaches the submit host while it runs" \
	wait_for 20 grep -q '^pid ' rm.out
host=$(running_on "$C.0")
jpid=$(sed -n 's/^pid //p' rm.out)
check "condor_rm" bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_rm $C.0 >/dev/null"
check "the removed job leaves the queue" wait_for 30 in_history "$C.0"
check "the removed job's process is killed" \
	wait_for 20 bash -c "! kill -0 $jpid 2>/dev/null"
check "its execute directory is removed" wait_for 20 bash -c \
	"test -z \"\$(ls -A $POOL/$host/execute)\""
check "its machine is free again" wait_for 20 bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af State -constraint 'Name == \"$host\"' | grep -qx Idle"

# --- 4. condor_vacate: back to idle, and it runs again ---------------
cat >vac.sub <<'EOF'
universe   = vanilla
executable = sleeper.sh
output     = vac.out
log        = vac.log
queue
EOF
C=$(submit vac.sub)
check "the job to vacate runs" wait_for 60 is_running "$C.0"
host=$(running_on "$C.0")
check "condor_vacate $host" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_vacate $host | grep -qx 'Sent vacate command to $host'"
check "the vacated job is evicted (004)" wait_for 30 events_at_least vac.log 004 "$C.0" 1
check "it says it was not checkpointed" grep -q "Job was not checkpointed" vac.log
check "the vacated job runs again" wait_for 60 events_at_least vac.log 001 "$C.0" 2
check "NumJobStarts counts both runs" wait_for 10 \
	test "$(cm condor_q "$C.0" -af NumJobStarts)" = 2
cm condor_rm "$C.0" >/dev/null 2>&1
wait_for 30 in_history "$C.0"

# --- 5. the startd dies under a running job --------------------------
cat >kill.sub <<'EOF'
universe   = vanilla
executable = sleeper.sh
output     = kill.out
log        = kill.log
queue
EOF
C=$(submit kill.sub)
check "the job whose startd dies runs" wait_for 60 is_running "$C.0"
wait_for 20 grep -q '^pid ' kill.out
host=$(running_on "$C.0")
jpid=$(sed -n 's/^pid //p' kill.out)
spid=$(sed -n 's/.*started STARTD .*pid \([0-9]*\).*/\1/p' "$POOL/$host/log/MasterLog" | tail -1)
check "found the startd of $host" test -n "$spid"
kill -KILL "$spid"
check "the job is evicted (004)" wait_for 60 events_at_least kill.log 004 "$C.0" 1
check "its process on $host is stopped" wait_for 30 bash -c "! kill -0 $jpid 2>/dev/null"
check "the job runs again" wait_for 90 events_at_least kill.log 001 "$C.0" 2
cm condor_rm "$C.0" >/dev/null 2>&1
wait_for 30 in_history "$C.0"

# --- 6. the jobs' own policies ------------------------------------------
printf '#!/bin/sh\nexit $1\n' >code.sh
chmod 755 code.sh
cat >policy.sub <<'EOF'
universe     = vanilla
executable   = code.sh
arguments    = 3
on_exit_hold = ExitCode == 3
queue
arguments    = 1
on_exit_hold = false
max_retries  = 2
queue
arguments    = 7
max_retries  = 5
retry_until  = 7
queue
EOF
P=$(submit policy.sub)
status_is_5() { status_is "$1" 5; }
check "on_exit_hold: a job exiting 3 is held" wait_for 90 status_is_5 "$P.0"
check "... its HoldReason names the expression, HoldReasonCode 3" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_q -af HoldReasonCode HoldReason $P.0 | grep -qx \"3 The job attribute OnExitHold expression 'ExitCode == 3' evaluated to TRUE\""
check "max_retries = 2: a job that fails runs three times, then leaves" \
	wait_for 120 in_history "$P.1"
check "... NumJobCompletions 3, ExitCode 1" test \
	"$(cm condor_history -af NumJobCompletions ExitCode "$P.1")" = "3 1"
history_is() {	# C.P "NumJobCompletions ExitCode"
	test "$(cm condor_history -af NumJobCompletions ExitCode "$1" 2>/dev/null)" = "$2"
}
check "retry_until = 7: a job exiting 7 leaves after its first run" \
	wait_for 120 history_is "$P.2" "1 7"
cm condor_rm "$P.0" >/dev/null 2>&1
cat >periodic.sub <<'EOF'
universe         = vanilla
executable       = sleeper.sh
output           = periodic.out
log              = periodic.log
periodic_hold    = JobStatus == 2 && time() - JobStartDate > 1
periodic_release = time() - EnteredCurrentStatus > 1
queue
requirements     = Memory < 0
periodic_hold    = false
periodic_release = false
periodic_remove  = JobStatus == 1
queue
EOF
Q=$(submit periodic.sub)
check "periodic_remove: a job no machine can run is removed" \
	wait_for 30 in_history "$Q.1"
check "... RemoveReason names the expression" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_history -af RemoveReason $Q.1 | grep -q \"PeriodicRemove expression .* evaluated to TRUE\""
check "periodic_hold: the running job is held (event 012)" \
	wait_for 90 events_at_least periodic.log 012 "$Q.0" 1
check "periodic_release: then released (013), and it runs again" \
	wait_for 90 events_at_least periodic.log 001 "$Q.0" 2
check "... the user log says why it was held, Code 3" bash -c \
	"grep -q 'PeriodicHold expression' periodic.log && grep -q 'Code 3 Subcode 0' periodic.log"
cm condor_rm "$Q.0" >/dev/null 2>&1
wait_for 30 in_history "$Q.0"

# --- several executables in one file (one cluster) --------------------
printf '#!/bin/sh\necho "A $1"\n' >prog_a.sh
printf '#!/bin/sh\necho "B $1"\n' >prog_b.sh
chmod 755 prog_a.sh prog_b.sh
cat >multi.sub <<'EOF'
universe   = vanilla
executable = prog_a.sh
arguments  = $(Process)
output     = multi.$(Process).out
queue 2
executable = prog_b.sh
queue
EOF
M=$(submit multi.sub)
check "a file with two executables: each job runs its own statement's program" \
	wait_for 90 bash -c "test \"\$(cat multi.0.out multi.1.out multi.2.out 2>/dev/null)\" = \"\$(printf 'A 0\nA 1\nB 2')\""
check "... as one cluster of three jobs" wait_for 30 bash -c \
	"test \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_history $M -af ProcId | sort | tr '\n' ' ')\" = '0 1 2 '"
check "... their programs leave SPOOL with them" \
	wait_for 30 bash -c "! ls $POOL/cm/spool | grep -q 'cluster$M\\.'"

# --- concurrency_limits: LIC_LIMIT = 1 lets one of two jobs run ------
# (a job sees only its own directory: it says it started on its output)
cat >lic.sh <<'EOF'
#!/bin/sh
echo started
while :; do sleep 1; done
EOF
chmod 755 lic.sh
cat >lic.sub <<'EOF'
universe           = vanilla
executable         = lic.sh
output             = lic.$(Process).out
concurrency_limits = LIC
queue 2
EOF
L=$(submit lic.sub)
lic_started() { grep -lx started lic.0.out lic.1.out 2>/dev/null | wc -l; }
check "concurrency_limits: one job holding the limit runs" \
	wait_for 60 bash -c "grep -qx started lic.0.out 2>/dev/null || grep -qx started lic.1.out 2>/dev/null"
check "... the other waits, the negotiator naming the limit" \
	wait_for 60 grep -q "waits: concurrency limit lic: 1 of 1 in use" "$POOL/cm/log/NegotiatorLog"
check "... while only one has started" test "$(lic_started)" = 1
first=0
grep -qx started lic.1.out 2>/dev/null && first=1
cm condor_rm "$L.$first" >/dev/null 2>&1
check "... once it leaves, the other runs" wait_for 90 bash -c \
	"test \"\$(grep -lx started lic.0.out lic.1.out 2>/dev/null | wc -l)\" = 2"
cm condor_rm "$L" >/dev/null 2>&1
wait_for 30 bash -c "! CONDOR_CONFIG=$POOL/cm/condor_config condor_q $L -af ProcId | grep -q ."

# --- accounting_group: GROUP_QUOTA_physics bounds the group's cores ----
cat >grp.sub <<'EOF'
universe         = vanilla
executable       = lic.sh
output           = grp.$(Process).out
accounting_group = physics.theory
queue 2
EOF
G=$(submit grp.sub)
grp_started() { grep -lx started grp.0.out grp.1.out 2>/dev/null | wc -l; }
check "accounting_group: a job of group physics.theory runs" \
	wait_for 60 bash -c "grep -qx started grp.0.out 2>/dev/null || grep -qx started grp.1.out 2>/dev/null"
check "... the other waits for the quota of physics, the negotiator says" \
	wait_for 60 grep -q "waits: group quota of physics: " "$POOL/cm/log/NegotiatorLog"
check "... while only one has started" test "$(grp_started)" = 1
cm condor_rm "$G" >/dev/null 2>&1
wait_for 30 bash -c "! CONDOR_CONFIG=$POOL/cm/condor_config condor_q $G -af ProcId | grep -q ."

# --- nice_user: its jobs take idle machines, and give them back --------
cat >nice.sub <<'EOF'
universe   = vanilla
executable = lic.sh
output     = nice.$(Process).out
log        = nice.log
nice_user  = true
queue 2
EOF
N=$(submit nice.sub)
check "nice_user: two nice jobs take both idle machines" wait_for 90 bash -c \
	"grep -qx started nice.0.out 2>/dev/null && grep -qx started nice.1.out 2>/dev/null"
check "... their machines say so (NiceUser)" wait_for 30 bash -c \
	"test \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af NiceUser | grep -c true)\" = 2"
cat >notnice.sub <<'EOF'
universe   = vanilla
executable = lic.sh
output     = notnice.out
queue
EOF
R=$(submit notnice.sub)
check "an ordinary job then has a nice job's machine vacated, and runs" \
	wait_for 120 grep -qx started notnice.out
check "... the nice job was evicted (004), and waits again" bash -c \
	"grep -q '^004 ($(printf '%03d' "$N")\\.' nice.log"
cm condor_rm "$N" "$R" >/dev/null 2>&1
wait_for 30 bash -c "! CONDOR_CONFIG=$POOL/cm/condor_config condor_q -af ProcId | grep -q ."

# --- $$(Attr): from the machine the job matched ----------------------
cat >dollar.sub <<'EOF'
universe   = vanilla
executable = /bin/echo
arguments  = "on $$(Name) arch $$(Arch) extra $$(NoSuchAttr:none)"
output     = dollar.out
queue
arguments  = $$(NoSuchAttr)
output     = dollar2.out
queue
EOF
D=$(submit dollar.sub)
check "a job with \$\$(Name) completes" wait_for 60 in_history "$D.0"
host=$(cm condor_history "$D.0" -af LastRemoteHost 2>/dev/null)
check "\$\$(Name), \$\$(Arch) and a default came from the machine it ran on" \
	test "$(cat dollar.out 2>/dev/null)" = "on $host arch X86_64 extra none"
check "... MATCH_EXP_Args records what it became" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_history -af MATCH_EXP_Args $D.0 | grep -q 'on $host'"
check "a reference the machine cannot fill holds the job, naming it" \
	wait_for 60 bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_q $D.1 -af HoldReason | grep -q 'NoSuchAttr'"
cm condor_rm "$D.1" >/dev/null 2>&1

check "no shadow reported a user-log failure" \
	bash -c "! grep -q 'to the user log' $POOL/cm/log/ShadowLog"
