#!/usr/bin/env bash
# tests/pool/htcondor_defaults_test.sh: the daemons' side of HTCondor's
# defaults.  JobStatus 1 (Idle) for a job that never ran, found by
# `JobStatus == 1', with condor_q's table still showing Condor 4's U; an
# older queue log's JobStatus 0 read back as 1; requests that are
# expressions of the machine, evaluated at match time and carved so from
# a partitionable slot (a request that is no number never matches, and
# -analyze says so); $$(Attr) in the
# executable: one program per platform, found on the submitting host
# when the job starts (vanilla and standard), a missing one held with
# HoldReasonCode 6; a job's output reaching its Out file while it runs.
#
# checks: 33
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'STARTER_UPDATE_INTERVAL = 1' \
	'PERIODIC_EXPR_INTERVAL = 1' 'STARTD_ATTRS = Platform'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD" 'Platform = "alpha"'
pool_host exec2 "MASTER, STARTD" 'Platform = "beta"'
pool_host exec3 "MASTER, STARTD" 'Platform = "gamma"' 'NUM_CPUS = 2' \
	'MEMORY = 4096'
pool_start

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "three machines advertise" pool_wait_machines 3 60

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
cd "$W" || exit 1
pool_owner "$W"
cm() { on cm "$@"; }
submit() {
	(cd "$W" && as_owner "$RELEASE/bin/condor_submit" "$1" 2>&1) |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
attr() { cm condor_q "$1" -af "$2" 2>/dev/null; }
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
hist() { cm condor_history "$1" -af "$2" 2>/dev/null; }

# --- 1. JobStatus 1 for a job that never ran ----------------------------
cat >never.sub <<'EOF'
universe     = vanilla
executable   = /bin/true
requirements = Platform == "nowhere"
queue 2
EOF
chmod 644 never.sub
N=$(submit never.sub)
check "a job that never ran has JobStatus 1" \
	test "$(attr "$N.0" JobStatus)" = 1
check "JobStatus == 1 finds both" test "$(cm condor_q -constraint \
	"ClusterId == $N && JobStatus == 1" -af ProcId 2>/dev/null | wc -l)" = 2
check "condor_q's table still shows U, its summary counts it unexpanded" \
	bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_q $N | grep -Eq '^ *$N\\.0 .* U ' &&
	CONDOR_CONFIG=$POOL/cm/condor_config condor_q $N | grep -q '^2 jobs; 2 unexpanded, 0 idle'"
idle_submitters() {
	test "$(cm condor_status -submitters -af TotalIdleJobs 2>/dev/null)" = 2
}
check "the schedd's ad (condor_status -submitters) counts them idle" \
	wait_for 20 idle_submitters

# An older queue log: the schedd stopped, a transaction of the old
# numbering (0) appended, the schedd killed; its successor reads 1.
spid=$(sed -n 's/.*condor_schedd starting (pid \([0-9]*\)).*/\1/p' \
	"$POOL/cm/log/SchedLog" | tail -1)
kill -STOP "$spid"
python3 - "$POOL/cm/spool/job_queue.log" "$N" <<'EOF'
import sys, zlib
path, c = sys.argv[1], sys.argv[2]
tx = "B\nS %s -1 JobStatus 0\nS %s 1 JobStatus 0\n" % (c, c)
with open(path, "a") as f:
    f.write(tx + "E %08x\n" % (zlib.crc32(tx.encode()) & 0xffffffff))
EOF
kill -KILL "$spid"
kill -CONT "$spid" 2>/dev/null
new_schedd() {
	local p
	p=$(sed -n 's/.*condor_schedd starting (pid \([0-9]*\)).*/\1/p' \
	    "$POOL/cm/log/SchedLog" | tail -1)
	[ -n "$p" ] && [ "$p" != "$spid" ] && [ -n "$(attr "$N.1" ProcId)" ]
}
check "a new schedd takes the queue" wait_for 60 new_schedd
check "an old queue's JobStatus 0 is read as 1" \
	test "$(cm condor_q "$N" -af JobStatus 2>/dev/null | tr '\n' ' ')" = "1 1 "
check "... both ads, written back as 1" grep -q \
	"2 ad(s) of an older queue: JobStatus 0 (unexpanded) read as 1" \
	"$POOL/cm/log/SchedLog"
cm condor_rm "$N" >/dev/null 2>&1

# --- 2. requests that are expressions of the machine ------------------
cat >req.sub <<'EOF'
universe       = vanilla
executable     = /bin/true
+RequestMemory = ifThenElse(MemoryUsage =!= undefined, MemoryUsage * 3 / 2, 1)
requirements   = TARGET.Memory >= RequestMemory && Platform == "alpha"
queue
EOF
cat >badreq.sub <<'EOF'
universe       = vanilla
executable     = /bin/true
+RequestMemory = TARGET.NoSuchAttribute * 2
queue
EOF
chmod 644 req.sub badreq.sub
# The job whose request is no number first: the other one's run shows
# that the negotiator went through it, and left it.
B=$(submit badreq.sub)
R=$(submit req.sub)
check "a job whose request is ifThenElse(...) of MemoryUsage runs" \
	wait_for 90 in_history "$R.0"
check "... on the machine its requirements chose" \
	test "$(hist "$R.0" LastRemoteHost)" = exec1
check "a job whose request gives no number is never started" \
	test "$(attr "$B.0" JobStatus) $(attr "$B.0" NumJobStarts)" = "1 0"
check "-analyze says what the request gave" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_q -analyze $B.0 | grep -q 'RequestMemory is undefined, not a number'"
cm condor_rm "$B" >/dev/null 2>&1

# --- 3. $$(Attr) in the executable: a program per platform ------------
for p in alpha beta; do
	printf '#!/bin/sh\necho "%s program"\n' "$p" >"prog.$p"
	chmod 755 "prog.$p"
done
for p in alpha beta; do
	cat >"plat_$p.sub" <<EOF
universe     = vanilla
executable   = /bin/true
+Cmd         = "$W/prog.\$\$(Platform)"
requirements = Platform == "$p"
output       = plat_$p.out
queue
EOF
	chmod 644 "plat_$p.sub"
done
PA=$(submit plat_alpha.sub)
PB=$(submit plat_beta.sub)
check "vanilla: the job on alpha completes" wait_for 90 in_history "$PA.0"
check "vanilla: the job on beta completes" wait_for 90 in_history "$PB.0"
check "vanilla: each ran its platform's program" test \
	"$(cat plat_alpha.out 2>/dev/null) / $(cat plat_beta.out 2>/dev/null)" = \
	"alpha program / beta program"
check "... on the host it names" test \
	"$(hist "$PA.0" LastRemoteHost) $(hist "$PB.0" LastRemoteHost)" = \
	"exec1 exec2"
check "... and the queue kept the name with \$\$()" \
	grep -q 'prog.\$\$(Platform)' <<<"$(hist "$PA.0" Cmd)"

cat >missing.sub <<EOF
universe     = vanilla
executable   = /bin/true
+Cmd         = "$W/missing.\$\$(Platform)"
requirements = Platform == "beta"
queue
EOF
chmod 644 missing.sub
M=$(submit missing.sub)
check "a missing program for the machine holds the job" \
	wait_for 90 bash -c "[ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_q $M.0 -af JobStatus)\" = 5 ]"
check "... with HoldReasonCode 6 and a reason naming it" test \
	"$(attr "$M.0" HoldReasonCode) $(attr "$M.0" HoldReason)" = \
	"6 Cannot execute $W/missing.beta, the program for exec2: No such file or directory"
cm condor_rm "$M" >/dev/null 2>&1

# Standard universe: two relinked programs.
for p in alpha beta; do
	printf '#include <stdio.h>\nint main(void) { printf("%s relinked\\n"); return 0; }\n' \
	    "$p" >"std_$p.c"
	condor_cc -O2 -o "std.$p" "std_$p.c" >/dev/null 2>&1
done
if [ -x std.alpha ] && [ -x std.beta ]; then
	for p in alpha beta; do
		cat >"std_$p.sub" <<EOF
universe     = standard
executable   = std.alpha
+Cmd         = "$W/std.\$\$(Platform)"
requirements = Platform == "$p"
output       = std_$p.out
queue
EOF
		chmod 644 "std_$p.sub"
	done
	SA=$(submit std_alpha.sub)
	SB=$(submit std_beta.sub)
	both_done() { in_history "$SA.0" && in_history "$SB.0"; }
	check "standard: both jobs complete" wait_for 120 both_done
	check "standard: each ran its platform's relinked program" test \
	    "$(cat std_alpha.out 2>/dev/null) / $(cat std_beta.out 2>/dev/null)" = \
	    "alpha relinked / beta relinked"
else
	fail "standard: both jobs complete" "condor_cc could not relink"
	fail "standard: each ran its platform's relinked program" "no programs"
fi

# --- 4. output reaches Out while the job runs -------------------------
cat >stream.sh <<'EOF'
#!/bin/sh
d=${_CONDOR_SCRATCH_DIR:-.}
echo "first line"
touch "$d/started.$1"
i=0
while [ ! -e "$d/go" ] && [ $i -lt 600 ]; do sleep 0.2; i=$((i + 1)); done
echo "last line"
EOF
chmod 755 stream.sh
for s in true false; do
	cat >"stream_$s.sub" <<EOF
universe     = vanilla
executable   = stream.sh
arguments    = $s
+StreamOut   = $s
requirements = Platform == "alpha"
output       = stream_$s.out
queue
EOF
	chmod 644 "stream_$s.sub"
done
X="$POOL/exec1/execute"
go() {
	local d
	for d in "$X"/dir_*; do [ -e "$d/started.$1" ] && touch "$d/go"; done
}
for s in true false; do
	S=$(submit "stream_$s.sub")
	check "StreamOut = $s: the job runs" wait_for 90 bash -c \
	    "ls $X/dir_*/started.$s >/dev/null 2>&1"
	check "StreamOut = $s: its first line is in Out while it runs" \
	    wait_for 30 grep -qx "first line" "stream_$s.out"
	check "StreamOut = $s: ... it was running then" \
	    test "$(attr "$S.0" JobStatus)" = 2
	go "$s"
	check "StreamOut = $s: all of it at the end" \
	    wait_for 60 grep -qx 'last line' "stream_$s.out"
	wait_for 60 in_history "$S.0"
done

# --- 5. a partitionable slot carves what the expression gives -----------
cat >carve.sub <<'EOF'
universe       = vanilla
executable     = stream.sh
arguments      = carve
+RequestMemory = ifThenElse(MemoryUsage =!= undefined, MemoryUsage * 3 / 2, 1024)
requirements   = Platform == "gamma"
output         = carve.out
queue
EOF
chmod 644 carve.sub
S=$(submit carve.sub)
X="$POOL/exec3/execute"
check "the job runs on the partitionable slot" wait_for 90 bash -c \
	"ls $X/dir_*/started.carve >/dev/null 2>&1"
dslot() {
	test "$(cm condor_status -constraint 'Name == "slot1_1@exec3"' \
	    -af Memory 2>/dev/null)" = 1024
}
check "... in a dynamic slot of 1024 MiB, the expression's value" \
	wait_for 30 dslot
go carve
check "... and completes" wait_for 60 in_history "$S.0"

[ "$POOL_FAILS" = 0 ]
