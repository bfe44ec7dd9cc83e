#!/usr/bin/env bash
# tests/security/job_box_test.sh: attacks by jobs, on the execute hosts
# of a real pool (a central manager and two execute hosts on this one
# machine, so one kernel: what a job does to the other host's files and
# processes is what it would do to a neighbour's on a shared machine).
# The victim (user nobody) runs a vanilla job on exec1 that keeps a file
# in its execute directory and connects to a listener of the test
# (exec1 allows jobs the network); the attacker (user daemon) runs jobs
# on exec2, which does not (ALLOW_NETWORK_FOR_JOBS = false).  Each
# attack prints one line with its verdict as a check, beside the
# legitimate version of the same action.
#
# Attacks: reading and rewriting another job's files, signalling its
# processes (one by one and with kill -1), leaving a process behind in a
# session of its own, writing the host's /tmp, reading the pool's logs,
# reaching the network where the machine forbids it; a standard job's
# .preinit_array code that connects, opens and forks before the library
# starts; a program that carries the relinked mark without the library.
#
# checks: 46
set -u
. "$(dirname "$0")/../lib/pool.sh"

ATTACKER=daemon
VICTIM=nobody
need() {
	for i in $(seq 46); do
		echo "SKIP job box check $i: $1"
	done
	exit 0
}
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null ||
    ! id "$ATTACKER" >/dev/null 2>&1 || ! id "$VICTIM" >/dev/null 2>&1; then
	need "needs root, setpriv and users $ATTACKER and $VICTIM"
fi
command -v objcopy >/dev/null || need "needs objcopy"
[ -x /usr/bin/python3 ] || need "needs /usr/bin/python3"

pool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'STARTER_UPDATE_INTERVAL = 1' 'VACATE_GRACE = 2' \
	'MAX_JOB_STARTS = 10'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
# exec2 keeps no cgroups: its jobs' processes are found by their accounts.
# Its SLOT_UID_RANGE begins with the victim's own uid, which it must
# skip (never run a job as a user, never sweep a user's processes).
VU=$(id -u $VICTIM)
RANGE2=
getent passwd $((VU + 1)) >/dev/null || RANGE2="SLOT_UID_RANGE = $VU-$((VU + 1))"
pool_host exec2 "MASTER, STARTD" 'ALLOW_NETWORK_FOR_JOBS = false' \
	'BASE_CGROUP =' "$RANGE2"

pool_start
trap pool_cleanup EXIT

. "$TOP/tests/lib/security.sh"
security_users $ATTACKER $VICTIM
for u in $ATTACKER $VICTIM; do
	mkdir -p "$POOL/w.$u"
	chown "$u" "$POOL/w.$u"
	chmod 755 "$POOL/w.$u"
done
# submit USER DIR FILE: the cluster, or nothing.
submit() {
	(cd "$2" && as "$1" condor_submit "$3" 2>&1) |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
# vanilla_sub DIR NAME HOST [ARGS]: DIR/NAME.sub runs NAME.sh on HOST,
# its output, error and user log NAME.out, NAME.err, NAME.log.
vanilla_sub() {
	cat >"$1/$2.sub" <<EOF
universe     = vanilla
executable   = $2.sh
arguments    = ${4:-}
requirements = Name == "$3"
output       = $2.out
error        = $2.err
log          = $2.log
queue
EOF
}
status_of() { on cm condor_q "$1.0" -af JobStatus 2>/dev/null; }
gone() { test -z "$(status_of "$1")"; }

check "two execute hosts advertise" pool_wait_machines 2 60

# A listener on 127.0.0.1: one line per connection, what the peer said.
# python3 is exec'd: $! is its own pid.
PORT_FILE=$POOL/listener.port
CONNS=$POOL/listener.conns
: >"$CONNS"
/usr/bin/python3 -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
while True:
    c, _ = s.accept()
    c.settimeout(5)
    try:
        data = c.recv(100).decode(errors="replace").strip()
    except Exception:
        data = "?"
    with open(sys.argv[2], "a") as f:
        f.write((data or "-") + "\n")
    c.close()
' "$PORT_FILE" "$CONNS" &
LISTENER=$!
trap 'kill "$LISTENER" 2>/dev/null; pool_cleanup' EXIT
wait_for 10 test -s "$PORT_FILE"
echo "the pool's own file" >"$POOL/keep"
PORT=$(cat "$PORT_FILE")

# --- The victim's job on exec1. -------------------------------------------
VW=$POOL/w.$VICTIM
cat >"$VW/victim.sh" <<'EOF'
#!/bin/bash
echo "uid $(id -u)"
echo "dir $PWD"
echo "the victim's secret" >secret
chmod 644 secret
if exec 3<>"/dev/tcp/127.0.0.1/$1"; then
	echo victim >&3
	exec 3>&-
	echo "connected"
fi
echo "pid $$"
for i in $(seq 300); do
	sleep 1
	[ "$(cat secret)" = "the victim's secret" ] || echo "secret changed"
done
EOF
chmod 755 "$VW/victim.sh"
vanilla_sub "$VW" victim exec1 "$PORT"
V=$(submit $VICTIM "$VW" victim.sub)
check "the victim's job is submitted" test -n "$V"
check "legitimate: it runs on exec1, connects out and writes its file" \
	wait_for 120 grep -q "^pid " "$VW/victim.out"
VDIR=$(sed -n 's/^dir //p' "$VW/victim.out")
VPID=$(sed -n 's/^pid //p' "$VW/victim.out")
VUID=$(sed -n 's/^uid //p' "$VW/victim.out")
check "legitimate: exec1 lets its job reach the network" \
	grep -qx victim "$CONNS"
check "the victim's job has an account of its own (uid $VUID)" \
	test -n "$VUID" -a "$VUID" != "$(id -u $VICTIM)" -a "$VUID" != 0
check "... its processes are in a cgroup of their own" \
	grep -q "job $V.0: its processes are kept in the cgroup" \
	"$POOL/exec1/log/StarterLog"

# --- The attacker's vanilla job on exec2. ----------------------------------
# A process of the victim's own, beside its job: exec2 must leave it be.
setpriv --reuid=$VICTIM --regid="$(id -g $VICTIM)" --clear-groups sleep 3143 &
VSLEEP=$!
trap 'kill "$LISTENER" "$VSLEEP" 2>/dev/null; pool_cleanup' EXIT
AW=$POOL/w.$ATTACKER
cat >"$AW/attack.sh" <<'EOF'
#!/bin/bash
vdir=$1 vpid=$2 port=$3 pool=$4
echo "uid $(id -u)"
echo "nspid $$"
echo "procs $(ls /proc | grep -c '^[0-9]*$')"
cat "$vdir/secret" >/dev/null 2>&1 && echo "read the secret"
echo pwned 2>/dev/null >"$vdir/secret" && echo "wrote the secret"
kill -STOP "$vpid" 2>/dev/null && echo "signalled the victim"
kill -9 -1 2>/dev/null
echo probe 2>/dev/null >/tmp/condor-box-probe.$port && echo "own tmp ok"
cat "$pool/exec2/log/StartLog" >/dev/null 2>&1 && echo "read the pool's log"
ls "$pool/cm/spool" >/dev/null 2>&1 && echo "saw the pool's directory"
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
	echo "connected"
fi
setsid sleep 3141 </dev/null >/dev/null 2>&1 &
echo "left sleep 3141"
# A tree to trip its removal: unreadable directories, links out.
mkdir -p deep/a/b/c && echo x >deep/a/b/c/f && chmod 000 deep/a/b deep
ln -s "$pool/keep" keep_link
ln -s "$pool" keep_dir
chmod 000 .
echo done
EOF
chmod 755 "$AW/attack.sh"
vanilla_sub "$AW" attack exec2 "$VDIR $VPID $PORT $POOL"
A=$(submit $ATTACKER "$AW" attack.sub)
check "the attacker's job is submitted" test -n "$A"
check "it runs on exec2 and completes" wait_for 120 gone "$A"
check "... having done what it does" grep -qx done "$AW/attack.out"
AUID=$(sed -n 's/^uid //p' "$AW/attack.out")
exec2_empty() { test -z "$(ls -A "$POOL/exec2/execute")"; }
check "its execute directory is removed, unreadable directories (itself too)" \
	wait_for 20 exec2_empty
verdict "removing the host's files through links left in the execute directory" \
	test -f "$POOL/keep" -a -d "$POOL/exec2/log"
check "the two jobs run as two accounts ($VUID, $AUID)" \
	test -n "$AUID" -a "$AUID" != "$VUID"
if [ -n "$RANGE2" ]; then
	verdict "a job run as a user of the host, $VICTIM (uid $VU, first of exec2's SLOT_UID_RANGE)" \
		test "$AUID" = $((VU + 1))
	verdict "... and that user's own processes swept" proc_running "sleep 3143"
else
	echo "SKIP a job run as a user of the host: uid $((VU + 1)) is a user here too"
	echo "SKIP ... and that user's own processes swept: uid $((VU + 1)) is a user here too"
fi
kill "$VSLEEP" 2>/dev/null
verdict "reading another job's file" \
	bash -c "! grep -q 'read the secret' '$AW/attack.out'"
verdict "rewriting another job's file" \
	bash -c "! grep -q 'wrote the secret' '$AW/attack.out' && grep -qx \"the victim's secret\" '$VDIR/secret'"
verdict "stopping another job's process" \
	bash -c "! grep -q 'signalled the victim' '$AW/attack.out'"
check "... the victim's job still runs, and was never stopped" \
	test "$(awk '{print $3}' "/proc/$VPID/stat" 2>/dev/null)" = S
verdict "kill -9 -1 from a job" kill -0 "$VPID"
verdict "writing the host's /tmp" \
	test ! -e "/tmp/condor-box-probe.$PORT"
check "legitimate: the job writes its own private /tmp" \
	grep -qx "own tmp ok" "$AW/attack.out"
verdict "reading the pool's log files" \
	bash -c "! grep -q \"read the pool's log\" '$AW/attack.out'"
verdict "listing the pool's directories" \
	bash -c "! grep -q \"saw the pool's directory\" '$AW/attack.out'"
verdict "reaching the network from a host that forbids it" \
	bash -c "! grep -q connected '$AW/attack.out' && ! grep -qv victim '$CONNS'"
# A process it left in a session of its own: killed with its PID
# namespace on exec2, which keeps no cgroups (and found by its account
# too); killed with its cgroup on exec1.
not_left() { ! proc_running "sleep $1"; }
check "legitimate: the job started its process" \
	grep -qx "left sleep 3141" "$AW/attack.out"
check "exec2 says it keeps the job's processes in a PID namespace" \
	grep -q "job $A.0: no cgroup v2 here; its processes are kept in a PID namespace of its own and found by its account" \
	"$POOL/exec2/log/StarterLog"
check "legitimate: the job's shell is pid 2 there, after its init" \
	grep -qx "nspid 2" "$AW/attack.out"
procs=$(sed -n 's/^procs //p' "$AW/attack.out")
verdict "seeing the host's processes from a job on exec2 ($procs in its /proc)" \
	test -n "$procs" -a "${procs:-99}" -lt 10
verdict "leaving a process behind in a session of its own (PID namespace)" \
	wait_for 10 not_left 3141
# Its exit code and its death by a signal reach the submitter through
# its init.
for e in exit7 segv; do
	case $e in
	exit7) printf '#!/bin/sh\nexit 7\n' >"$AW/$e.sh" ;;
	segv) printf '#!/bin/sh\nkill -SEGV $$\n' >"$AW/$e.sh" ;;
	esac
	chmod 755 "$AW/$e.sh"
	vanilla_sub "$AW" $e exec2
done
E7=$(submit $ATTACKER "$AW" exit7.sub)
SG=$(submit $ATTACKER "$AW" segv.sub)
both_done() { gone "$E7" && gone "$SG"; }
check "legitimate: two more jobs run on exec2 and end" wait_for 120 both_done
check "... the one that exits 7 has ExitCode 7" \
	test "$(on cm condor_history "$E7.0" -af ExitCode 2>/dev/null)" = 7
check "... the one killed by SIGSEGV has ExitSignal 11" \
	test "$(on cm condor_history "$SG.0" -af ExitBySignal ExitSignal 2>/dev/null)" = "true 11"
# --- Standard jobs: the box is in force before any of the program. --------
cp "$TOP/tests/programs/box_preinit.c" "$TOP/tests/programs/box_liar.c" "$AW/"
chown $ATTACKER "$AW"/box_*.c
check "a program with .preinit_array code relinks with condor_cc" \
	as $ATTACKER condor_cc -O2 -o "$AW/box_preinit" "$AW/box_preinit.c"
check "a program without the library is built, with the mark added" \
	bash -c "gcc -static -O2 -o '$AW/box_liar' '$AW/box_liar.c' &&
	    head -c 64 /dev/zero >'$AW/mark' &&
	    objcopy --add-section .condor_relinked='$AW/mark' '$AW/box_liar' &&
	    chown $ATTACKER '$AW/box_liar'"
for p in preinit liar; do
	cat >"$AW/$p.sub" <<EOF
universe     = standard
requirements = Name == "exec2"
log          = $p.log
executable   = box_$p
arguments    = $PORT
output       = $p.out
queue
EOF
done
S=$(submit $ATTACKER "$AW" preinit.sub)
L=$(submit $ATTACKER "$AW" liar.sub)
check "both are submitted as standard jobs" test -n "$S" -a -n "$L"
both_gone() { gone "$S" && gone "$L"; }
check "both complete" wait_for 180 both_gone
verdict "a connection from .preinit_array code" \
	grep -qx "connect EPERM" "$AW/preinit.out"
verdict "opening a host file from .preinit_array code" \
	grep -qx "open EPERM" "$AW/preinit.out"
verdict "forking from .preinit_array code" \
	grep -qx "fork EPERM" "$AW/preinit.out"
code=$(on cm condor_history "$L.0" -af ExitCode 2>/dev/null)
verdict "a program that lies about being relinked (exit code $code: 0 is all refused)" \
	bash -c "test '$code' = 0 && ! grep -Eq 'preinit|liar' '$CONNS'"

kill "$LISTENER" 2>/dev/null
wait "$LISTENER" 2>/dev/null
check "legitimate: the victim removes its own job" as $VICTIM condor_rm "$V"
check "... and it leaves the queue" wait_for 60 gone "$V"
# exec1, free again: a job that leaves a process behind there.
cat >"$AW/leave.sh" <<'EOF'
#!/bin/sh
setsid sleep 3142 </dev/null >/dev/null 2>&1 &
echo "left sleep 3142"
EOF
chmod 755 "$AW/leave.sh"
vanilla_sub "$AW" leave exec1
LV=$(submit $ATTACKER "$AW" leave.sub)
check "a job on exec1 leaves a process behind" \
	wait_for 120 grep -qx "left sleep 3142" "$AW/leave.out"
check "... the job is gone from the queue" wait_for 60 gone "$LV"
verdict "leaving a process behind in a session of its own (cgroup)" \
	wait_for 10 not_left 3142
cg=$(sed -n "s/.*job $LV\.0: its processes are kept in the cgroup //p" \
    "$POOL/exec1/log/StarterLog")
check "its cgroup ($cg) is removed" test -n "$cg" -a ! -e "$cg"

pool_cleanup
trap - EXIT
