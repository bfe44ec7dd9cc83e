#!/usr/bin/env bash
# tests/security/planted_links_test.sh: files written for a user are
# never written through a link another user planted (condor_security(7),
# "Files written for users").  A project directory is writable by both
# the victim (user nobody) and the attacker (user daemon) and is not
# sticky, so the kernel's protected_symlinks does not apply (mode 0777
# here stands for a group-writable one: the test needs no new group).
# The attacker plants symbolic links, pointing at a file of the
# victim's, under the names the victim's jobs and DAGs will write: a
# vanilla job's Out, Err, user log and transferred output file, and a
# DAG's DAGFILE.condor.sub, .lib.out, .dagman.log, .dagman.out, .lock,
# .nodes.log, NODE_STATUS_FILE, DOT and rescue files.  Each job is held
# with the reason, or the command refuses, or the DAG says so and stops;
# the victim's file is never changed.  The legitimate twins work: a job
# with output = /dev/null, and a DAG in the shared project directory
# running to completion.
#
# checks: 25
set -u
. "$(dirname "$0")/../lib/pool.sh"

ATTACKER=daemon
VICTIM=nobody
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null ||
    ! id "$ATTACKER" >/dev/null 2>&1 || ! id "$VICTIM" >/dev/null 2>&1; then
	for i in $(seq 25); do
		echo "SKIP planted link check $i: needs root, setpriv and users $ATTACKER and $VICTIM"
	done
	exit 0
fi

pool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'SUSPEND : FALSE' 'STARTER_UPDATE_INTERVAL = 1' \
	'MAX_JOB_STARTS = 10' 'DAGMAN_UPDATE_INTERVAL = 1'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD" 'NUM_CPUS = 2' 'MEMORY = 2048'
pool_start
. "$TOP/tests/lib/security.sh"
security_users $ATTACKER $VICTIM
check "the execute host advertises" pool_wait_machines 1 60

# The project directory, and the victim's own file the links point at.
P=$POOL/project
mkdir -p "$P"
chmod 0777 "$P"
PRECIOUS=$POOL/home.$VICTIM/precious
echo "the victim's data" >"$PRECIOUS"
chown $VICTIM "$PRECIOUS"
SUM=$(md5sum <"$PRECIOUS")
unchanged() { test "$(md5sum <"$PRECIOUS")" = "$SUM"; }
# The DAG jobs inherit this (getenv): pool_stop finds them by it.
export CONDOR_TEST_POOL=$POOL

plant() { (cd "$P" && as $ATTACKER ln -s "$PRECIOUS" "$1"); }
victim() { (cd "$P" && as $VICTIM "$@"); }
cluster_of() { sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'; }
status_of() { on cm condor_q "$1.0" -af JobStatus 2>/dev/null; }
held() { test "$(status_of "$1")" = 5; }
reason() { on cm condor_q "$1.0" -af HoldReason 2>/dev/null; }
has_reason() { reason "$1" | grep -q "$2"; }
# held_for CLUSTER PATTERN: held, its HoldReason matching PATTERN.
held_for() { held "$1" && has_reason "$1" "$2"; }
# says FILE PATTERN: FILE holds a line matching PATTERN.
says() { grep -q "$2" "$1" 2>/dev/null; }
in_history() { test -n "$(on cm condor_history "$1" -af ProcId 2>/dev/null)"; }

cat >"$P/hello.sh" <<'EOF'
#!/bin/sh
echo hello
echo to-stderr >&2
[ "$1" = result ] && echo result >result.txt
exit 0
EOF
chmod 755 "$P/hello.sh"
# vanilla NAME [LINES...]: the victim's job NAME in the project directory.
vanilla() {
	local name=$1 l
	shift
	{
		echo "universe   = vanilla"
		echo "executable = hello.sh"
		echo "output     = $name.out"
		echo "error      = $name.err"
		echo "log        = $name.log"
		for l in "$@"; do echo "$l"; done
		echo "queue"
	} >"$P/$name.sub"
	chown $VICTIM "$P/$name.sub"
	victim "$RELEASE/bin/condor_submit" "$name.sub" 2>&1 | cluster_of
}

# --- A vanilla job's files. ---------------------------------------------
plant a.out
A=$(vanilla a)
check "a job whose Out is a planted link is held" wait_for 60 held "$A"
check "... saying so ($(reason "$A"))" \
	has_reason "$A" "Cannot open output file $P/a.out: is a symbolic link"
plant b.err
B=$(vanilla b)
check "a job whose Err is a planted link is held, saying so" \
	wait_for 60 held_for "$B" "error file $P/b.err: is a symbolic link"
plant c.log
C=$(vanilla c)
check "a job whose user log is a planted link is held, saying so" \
	wait_for 60 held_for "$C" "user log file $P/c.log: is a symbolic link"
plant result.txt
T=$(vanilla t 'arguments = result' 'should_transfer_files = YES' \
    'when_to_transfer_output = ON_EXIT' 'transfer_output_files = result.txt')
check "a job whose output file's name is a planted link is held" \
	wait_for 90 held "$T"
check "... saying so ($(reason "$T"))" \
	has_reason "$T" "result.txt: is a symbolic link"
check "the victim's file is unchanged by all four" unchanged
check "... and each link is still the attacker's link" \
	bash -c "test -L '$P/a.out' -a -L '$P/b.err' -a -L '$P/c.log' -a -L '$P/result.txt'"
for j in "$A" "$B" "$C" "$T"; do on cm condor_rm "$j" >/dev/null 2>&1; done

# Legitimate: output to /dev/null, the rest in the project directory.
N=$(vanilla n 'output = /dev/null')
check "legitimate: a job with output = /dev/null completes" \
	wait_for 90 in_history "$N"
check "... its error and log in the shared directory written" \
	bash -c "grep -qx to-stderr '$P/n.err' && grep -q '^005 ' '$P/n.log'"

# --- A DAG's files. -----------------------------------------------------
cat >"$P/node.sub" <<'EOF'
universe   = vanilla
executable = hello.sh
output     = $(node).out
error      = $(node).err
queue
EOF
cat >"$P/fail.sh" <<'EOF'
#!/bin/sh
exit 3
EOF
chmod 755 "$P/fail.sh"
cat >"$P/failnode.sub" <<'EOF'
universe   = vanilla
executable = fail.sh
output     = failnode.out
queue
EOF
# dag NAME [LINES...]: NAME.dag, two nodes A -> B of node.sub.
dag() {
	local name=$1 l
	shift
	{
		echo "JOB A node.sub"
		echo "JOB B node.sub"
		echo "VARS A node=\"${name}_A\""
		echo "VARS B node=\"${name}_B\""
		echo "PARENT A CHILD B"
		for l in "$@"; do echo "$l"; done
	} >"$P/$name.dag"
	chown $VICTIM "$P"/*.sub "$P/$name.dag"
}
submit_dag() { victim "$RELEASE/bin/condor_submit_dag" "$@" 2>&1; }

dag d1
plant d1.dag.condor.sub
out=$(submit_dag d1.dag)
check "condor_submit_dag refuses a planted DAGFILE.condor.sub ($out)" \
	grep -q 'd1.dag.condor.sub is a symbolic link (not written through)' \
	<<<"$out"

dag d2
plant d2.dag.lib.out
D2=$(submit_dag d2.dag | cluster_of)
check "a DAG job whose lib.out is a planted link is held" wait_for 60 held "$D2"
check "... saying so ($(reason "$D2"))" \
	has_reason "$D2" "cannot open Out .*: is a symbolic link"
on cm condor_rm "$D2" >/dev/null 2>&1

dag d3
plant d3.dag.dagman.log
D3=$(submit_dag d3.dag | cluster_of)
check "a DAG job whose dagman.log is a planted link is held, saying so" \
	wait_for 60 held_for "$D3" \
	"open the user log for the scheduler-universe job: is a symbolic link"
on cm condor_rm "$D3" >/dev/null 2>&1

dag d4
plant d4.dag.dagman.out
D4=$(submit_dag d4.dag | cluster_of)
check "condor_dagman stops at a planted DAGFILE.dagman.out, saying so" \
	wait_for 60 says "$P/d4.dag.lib.err" \
	"d4.dag.dagman.out: is a symbolic link"

dag d5
plant d5.dag.lock
D5=$(submit_dag d5.dag | cluster_of)
check "condor_dagman stops at a planted DAGFILE.lock, saying so" \
	wait_for 60 says "$P/d5.dag.dagman.out" "d5.dag.lock: is a symbolic link"
wait_for 60 in_history "$D5"
# A new run moves an old node log aside: a link planted there goes with
# it, and the node log is the victim's own regular file.
rm -f "$P/d5.dag.lock" "$P/d5.dag.condor.sub"
plant d5.dag.nodes.log
D5=$(submit_dag d5.dag | cluster_of)
check "a DAG with a planted DAGFILE.nodes.log completes" \
	wait_for 180 in_history "$D5"
check "... the link moved aside, the node log a regular file written" \
	bash -c "test -L '$P/d5.dag.nodes.log.old' -a ! -L '$P/d5.dag.nodes.log' && grep -q '^005 ' '$P/d5.dag.nodes.log'"

# The status file, the DOT file and the rescue DAG: the DAG goes on
# (they are reports), but none is written through its link.
{
	echo "JOB F failnode.sub"
	echo "NODE_STATUS_FILE d6.status"
	echo "DOT d6.dot"
} >"$P/d6.dag"
chown $VICTIM "$P/d6.dag" "$P/failnode.sub"
plant d6.status
plant d6.dot
ln -s "$PRECIOUS" "$P/d6.dag.rescue001.tmp"
chown -h $ATTACKER "$P/d6.dag.rescue001.tmp"
D6=$(submit_dag d6.dag | cluster_of)
check "a failing DAG with planted report files ends" wait_for 120 in_history "$D6"
check "... its status and DOT files refused, saying so" \
	bash -c "grep -q 'd6.status: is a symbolic link' '$P/d6.dag.dagman.out' && grep -q 'd6.dot: is a symbolic link' '$P/d6.dag.dagman.out'"
check "... its rescue DAG written, not through the link under its .tmp" \
	bash -c "test -f '$P/d6.dag.rescue001' -a ! -L '$P/d6.dag.rescue001' && grep -q '^DONE\|^# ' '$P/d6.dag.rescue001'"
check "the victim's file is unchanged by every DAG" unchanged

# Legitimate: a DAG in the shared project directory runs to completion.
dag ok
OK=$(submit_dag ok.dag | cluster_of)
check "legitimate: a DAG in the shared project directory completes" \
	wait_for 180 in_history "$OK"
check "... its last node's output written" grep -qx hello "$P/ok_B.out"
exit 0
