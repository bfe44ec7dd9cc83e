#!/usr/bin/env bash
# tests/pool/job_failure_test.sh: failures say why and stop.
# Programs the execute machine cannot execute (a script with DOS line
# endings, whose #! interpreter "/bin/sh\r" does not exist; a missing #!
# interpreter; an interpreter without its exec bit; bytes that are no
# program; a program for another architecture) are held at once with
# HoldReasonCode 6, execve's errno as HoldReasonSubCode and "Error from
# exec1: Failed to execute '...'", started once, shown by condor_q
# -hold, written to the user log (007 then 012 with its "Code 6 Subcode
# N" line) and kept in condor_history after condor_rm; condor_submit
# refuses a program without its exec bit.  A machine that cannot start
# the job (its EXECUTE is a file) has it back
# MAX_JOB_STARTS_WITHOUT_RUNNING (3) times, each 004 saying why, and
# then it is held (code 6) with the last reason.  condor_rm and
# condor_hold of a job running with a lease of 600 s free its machine at
# once (Idle again long before the lease): the shadow tells the starter
# it is going away on purpose, and the starter says so in its log.  An
# eviction by condor_vacate says why.  A match whose shadow never claims
# the machine frees it after MATCH_TIMEOUT.  A scheduler-universe
# program that cannot be executed is held the same way.
#
# checks: 59
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"
W=$POOL/work
mkdir -p "$W"
chmod 755 "$W"
pool_config 'START : TRUE' 'STARTER_UPDATE_INTERVAL = 1' \
	'MAX_JOB_STARTS = 10' 'VACATE_GRACE = 2' 'MATCH_TIMEOUT = 5' \
	"JOB_SYSTEM_DIRS = /bin /sbin /lib /lib32 /lib64 /libx32 /usr /etc /opt $W"
# The schedd's shadow program: once $W/drop_next exists, once, one that
# never claims the machine it was given (a match never activated).
cat >"$W/shadow_wrap" <<EOS
#!/bin/sh
if [ -e $W/drop_next ] && mkdir $W/dropped 2>/dev/null; then
	exit 107
fi
exec $RELEASE/sbin/condor_shadow "\$@"
EOS
chmod 755 "$W/shadow_wrap"
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD" \
	'MAX_JOB_STARTS_WITHOUT_RUNNING = 3' "SHADOW = $W/shadow_wrap"
# exec1 advertises only when its state changes: a match whose claim
# never comes is given up by MATCH_TIMEOUT, not by its next ad.
pool_host exec1 "MASTER, STARTD" 'START : TARGET.WantBroken =!= TRUE' \
	'STARTD_UPDATE_INTERVAL = 600'
# (With no job to look at, START is TRUE: the machine is Idle, not Owner.)
pool_host exec2 "MASTER, STARTD" \
	'START : TARGET.ClusterId =?= UNDEFINED || TARGET.WantBroken =?= TRUE'
pool_start
check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "the machines advertise" pool_wait_machines 2 60
# exec2 cannot start any job: a file stands where its EXECUTE was.
rm -rf "$POOL/exec2/execute"
echo "not a directory" >"$POOL/exec2/execute"

cd "$W" || exit 1
cm() { on cm "$@"; }
submit() {
	cm condor_submit "$1" 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
attr() { cm condor_q "$1" -af "$2" 2>/dev/null; }
hist() { cm condor_history "$1" -af "$2" 2>/dev/null; }
status_is() { test "$(attr "$1" JobStatus)" = "$2"; }
ev() {	# LOG EVENT C: how many
	grep -c "^$2 ($(printf '%03d' "$3").000.000)" "$1" 2>/dev/null
}

# --- 1. programs that cannot be executed ------------------------------
printf '#!/bin/sh\r\necho hello\r\n' >crlf.sh
printf '#!/nonexistent/bin/interp\necho hello\n' >nointerp.sh
printf '#!/bin/sh\necho I am no interpreter\n' >interp
chmod 644 interp
printf '#!%s/interp\necho hello\n' "$W" >badinterp.sh
head -c 2048 /dev/urandom | tr -d '#' >garbage.bin
printf 'XX' | dd of=garbage.bin bs=1 count=2 conv=notrunc 2>/dev/null
# /bin/true for another machine: e_machine (offset 18) says AArch64, or
# x86-64 on an AArch64 host.
cp /bin/true foreign.bin
if [ "$(uname -m)" = aarch64 ]; then m='\x3e'; else m='\xb7'; fi
printf "$m\\x00" | dd of=foreign.bin bs=1 seek=18 count=2 conv=notrunc 2>/dev/null
chmod 755 crlf.sh nointerp.sh badinterp.sh garbage.bin foreign.bin

declare -A JOB WANT_ERRNO WHAT
WANT_ERRNO=([crlf.sh]=2 [nointerp.sh]=2 [badinterp.sh]=13 [garbage.bin]=8 [foreign.bin]=8)
WHAT=([crlf.sh]="a CRLF script" [nointerp.sh]="a missing interpreter"
    [badinterp.sh]="an interpreter without its exec bit"
    [garbage.bin]="bytes that are no program"
    [foreign.bin]="a program for another architecture")
for x in crlf.sh nointerp.sh badinterp.sh garbage.bin foreign.bin; do
	cat >"$x.sub" <<EOS
universe   = vanilla
executable = $x
output     = $x.out
log        = $x.log
queue
EOS
	JOB[$x]=$(submit "$x.sub")
done
for x in crlf.sh nointerp.sh badinterp.sh garbage.bin foreign.bin; do
	c=${JOB[$x]}
	check "${WHAT[$x]}: held" wait_for 60 status_is "$c.0" 5
	check "... HoldReasonCode 6, HoldReasonSubCode ${WANT_ERRNO[$x]} ($(attr "$c.0" HoldReasonCode) $(attr "$c.0" HoldReasonSubCode))" \
		test "$(attr "$c.0" HoldReasonCode) $(attr "$c.0" HoldReasonSubCode)" = "6 ${WANT_ERRNO[$x]}"
	r=$(attr "$c.0" HoldReason)
	check "... HoldReason says so ($r)" \
		test "${r#Error from exec1: Failed to execute \'}" != "$r"
	echo "$r" >"$x.reason"
	check "... started at most once ($(attr "$c.0" NumJobStarts))" \
		test "$(attr "$c.0" NumJobStarts)" -le 1
done
held_line() { cm condor_q -hold 2>/dev/null | grep -q "^ *$1\.0 .*Error from exec1: Failed to execute"; }
for x in crlf.sh garbage.bin; do
	c=${JOB[$x]}
	check "${WHAT[$x]}: condor_q -hold shows it and why" held_line "$c"
	check "... condor_q -hold -af: its codes" bash -c "CONDOR_CONFIG=$POOL/cm/condor_config $RELEASE/bin/condor_q -hold -af ClusterId HoldReasonCode HoldReasonSubCode | grep -qx '$c 6 ${WANT_ERRNO[$x]}'"
	check "... its user log: 007 with the reason, then 012" \
		test "$(ev "$x.log" 007 "$c") $(ev "$x.log" 012 "$c") $(ev "$x.log" 004 "$c")" = "1 1 0"
	check "... 012 says the reason and \"Code 6 Subcode ${WANT_ERRNO[$x]}\"" \
		grep -qxF "	Code 6 Subcode ${WANT_ERRNO[$x]}" "$x.log"
	check "... 012's reason is the HoldReason" \
		grep -qxF "	$(cat "$x.reason")" "$x.log"
	check "... 007 says where" \
		grep -q "^	Error from exec1: Failed to execute" "$x.log"
done
# condor_submit itself refuses a program without its exec bit.
refused() {
	local out
	out=$(cm condor_submit "$1" 2>&1)
	[[ $out != *submitted* && $out == *noexec.sh* ]]
}
cp crlf.sh noexec.sh
chmod 644 noexec.sh
sed 's/crlf.sh/noexec.sh/g' crlf.sh.sub >noexec.sub
check "a program without its exec bit: condor_submit refuses it, naming it" \
	refused noexec.sub
for x in crlf.sh nointerp.sh badinterp.sh garbage.bin foreign.bin; do
	cm condor_rm "${JOB[$x]}" >/dev/null 2>&1
done
c=${JOB[crlf.sh]}
in_history() { test -n "$(hist "$1" ProcId)"; }
check "removed, the held job goes to the history" wait_for 60 in_history "$c.0"
check "... with HoldReasonCode 6 and its HoldReason ($(hist "$c.0" HoldReasonCode))" \
	test "$(hist "$c.0" HoldReasonCode) $(hist "$c.0" HoldReasonSubCode)" = "6 2" -a \
	"$(hist "$c.0" HoldReason)" = "$(cat crlf.sh.reason)"

# --- 2. a machine that cannot start the job, again and again ----------
cat >broken.sub <<EOS
universe   = vanilla
executable = crlf.sh
log        = broken.log
+WantBroken = True
queue
EOS
B=$(submit broken.sub)
check "a job no machine starts is held after MAX_JOB_STARTS_WITHOUT_RUNNING (3) starts" \
	wait_for 120 status_is "$B.0" 5
check "... started 3 times, NumStartsWithoutRunning 3 ($(attr "$B.0" NumJobStarts) $(attr "$B.0" NumStartsWithoutRunning))" \
	test "$(attr "$B.0" NumJobStarts) $(attr "$B.0" NumStartsWithoutRunning)" = "3 3"
r=$(attr "$B.0" HoldReason)
names_why() {
	[[ $(attr "$B.0" HoldReasonCode) == 6 &&
	    $r == *MAX_JOB_STARTS_WITHOUT_RUNNING* &&
	    $r == *"cannot create $POOL/exec2/execute/dir_"* ]]
}
check "... HoldReasonCode 6, the reason names the limit and the last cause ($r)" \
	names_why
check "... each eviction (004) in its user log says why ($(ev broken.log 004 "$B"))" \
	test "$(ev broken.log 004 "$B")" = 3 -a \
	"$(grep -c "^	cannot create $POOL/exec2/execute/dir_" broken.log)" = 3
cm condor_rm "$B" >/dev/null 2>&1

# --- 3. condor_rm and condor_hold of a running job free the machine ----
printf '#!/bin/sh\necho started\nsleep 600\n' >long.sh
chmod 755 long.sh
cat >long.sub <<EOS
universe           = vanilla
executable         = long.sh
output             = long.out
log                = long.log
job_lease_duration = 600
queue
EOS
state1() { cm condor_status -af Name State 2>/dev/null | awk '$1 == "exec1" { print $2 }'; }
state_is() { test "$(state1)" = "$1"; }
started() { grep -q started long.out 2>/dev/null; }
on_purpose() { grep -c "stopped on purpose" "$POOL/exec1/log/StarterLog" 2>/dev/null; }
L=$(submit long.sub)
check "a job with a lease of 600 s runs on exec1" wait_for 60 started
check "... exec1 is Claimed" state_is Claimed
before=$(on_purpose)
cm condor_rm "$L" >/dev/null 2>&1
check "condor_rm: exec1 is Idle again (not after the lease)" wait_for 60 state_is Idle
check "... its StarterLog says the job was stopped on purpose" \
	test "$(on_purpose)" -gt "${before:-0}"
check "... the startd did not have to kill its starter" \
	bash -c "! grep -q 'ignores its kill order' '$POOL/exec1/log/StartLog'"
: >long.out
H=$(submit long.sub)
check "another runs on exec1" wait_for 60 started
before=$(on_purpose)
cm condor_hold "$H" >/dev/null 2>&1
check "condor_hold: the job is held" wait_for 60 status_is "$H.0" 5
check "... exec1 is Idle again (not after the lease)" wait_for 60 state_is Idle
check "... its StarterLog says the job was stopped on purpose" \
	test "$(on_purpose)" -gt "${before:-0}"
check "... the startd did not have to kill its starter" \
	bash -c "! grep -q 'ignores its kill order' '$POOL/exec1/log/StartLog'"
cm condor_rm "$H" >/dev/null 2>&1

# --- 4. an eviction says why -------------------------------------------
: >long.out
V=$(submit long.sub)
check "a third runs on exec1" wait_for 60 started
on exec1 condor_vacate exec1 >/dev/null 2>&1
evicted() { test "$(ev long.log 004 "$V")" -ge 1; }
check "condor_vacate: 004 in the user log" wait_for 60 evicted
check "... saying why" grep -q "^	the execute machine vacated the job" long.log
cm condor_rm "$V" >/dev/null 2>&1

# --- 5. a match never activated -----------------------------------------
printf '#!/bin/sh\necho ok\n' >ok.sh
chmod 755 ok.sh
cat >ok.sub <<EOS
universe   = vanilla
executable = ok.sh
output     = ok.out
log        = ok.log
queue
EOS
: >drop_next
D=$(submit ok.sub)
done_ok() { test "$(hist "$D.0" JobStatus)" = 4; }
check "a match whose claim never comes: the machine is offered again, the job runs" \
	wait_for 120 done_ok
check "... the negotiator gave the match up after MATCH_TIMEOUT" \
	grep -q "exec1: no claim came for its match of .* (MATCH_TIMEOUT 5): it is offered again" \
	"$POOL/cm/log/NegotiatorLog"

# --- 6. the scheduler universe ----------------------------------------
cat >sched.sub <<EOS
universe   = scheduler
executable = crlf.sh
log        = sched.log
queue
EOS
S=$(submit sched.sub)
check "a scheduler-universe job that cannot be executed is held" \
	wait_for 60 status_is "$S.0" 5
r=$(attr "$S.0" HoldReason)
check "... code 6, subcode 2, \"Failed to execute\" ($r)" \
	test "$(attr "$S.0" HoldReasonCode) $(attr "$S.0" HoldReasonSubCode) ${r%%\'*}" = "6 2 Failed to execute "
check "... its user log: 012 with \"Code 6 Subcode 2\"" \
	grep -qxF "	Code 6 Subcode 2" sched.log
cm condor_rm "$S" >/dev/null 2>&1
