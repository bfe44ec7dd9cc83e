#!/usr/bin/env bash
# tests/security/owner_job_test.sh: attacks by a job that runs as its
# owner (hosts of one UID_DOMAIN and FILESYSTEM_DOMAIN, a shared
# directory in SHARED_FILESYSTEM_DIRS).  The victim (user nobody) runs a
# job on exec1, as nobody, that keeps a file in its execute directory
# and one (0600) in the shared directory; the attacker (user daemon)
# runs a job on exec2, as daemon, on the same kernel.  Running as a real
# user must give the job nothing of other users: not their files (but
# what their modes grant), not their jobs' processes (signals, ptrace,
# /proc), not the daemons' files or the pool key, never root (not even
# through a set-user-id program of root's in the shared directory), and
# nothing left behind when it ends.
#
# checks: 18
set -u
. "$(dirname "$0")/../lib/pool.sh"

ATTACKER=daemon
VICTIM=nobody
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null ||
    ! id "$ATTACKER" >/dev/null 2>&1 || ! id "$VICTIM" >/dev/null 2>&1 ||
    [ ! -x /usr/bin/python3 ]; then
	for i in $(seq 18); do
		echo "SKIP owner job check $i: needs root, setpriv, python3 and users $ATTACKER and $VICTIM"
	done
	exit 0
fi

pool_init
chmod 755 "$POOL"
SHARED=$POOL/shared
mkdir -p "$SHARED/$VICTIM" "$SHARED/$ATTACKER"
chmod 755 "$SHARED"
for u in $VICTIM $ATTACKER; do
	chown $u "$SHARED/$u"
	chmod 755 "$SHARED/$u"
done
# Root's set-user-id program, where jobs see it.
cp /usr/bin/id "$SHARED/suid_id"
chmod 4755 "$SHARED/suid_id"
pool_config 'START : TRUE' 'STARTER_UPDATE_INTERVAL = 1' \
	'VACATE_GRACE = 2' 'MAX_JOB_STARTS = 10' \
	'UID_DOMAIN = owner.test' 'FILESYSTEM_DOMAIN = owner.test' \
	'TRUST_UID_DOMAIN = True' "SHARED_FILESYSTEM_DIRS = $SHARED"
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
pool_host exec2 "MASTER, STARTD"
pool_start

. "$TOP/tests/lib/security.sh"
security_users $ATTACKER $VICTIM
check "two execute hosts advertise" pool_wait_machines 2 60

# submit USER NAME HOST ARGS: USER's job NAME.sh in its shared directory.
submit() {
	local d=$SHARED/$1
	cat >"$d/$2.sub" <<EOF
universe              = vanilla
executable            = $2.sh
arguments             = $4
initialdir            = $d
requirements          = Name == "$3"
should_transfer_files = IF_NEEDED
output                = $2.out
error                 = $2.err
log                   = $2.log
queue
EOF
	chown $1 "$d/$2.sub" "$d/$2.sh"
	(cd "$d" && as $1 condor_submit "$2.sub" 2>&1) |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
gone() { test -z "$(on cm condor_q "$1.0" -af JobStatus 2>/dev/null)"; }

# --- The victim's job on exec1, as nobody. ---------------------------------
VW=$SHARED/$VICTIM
cat >"$VW/victim.sh" <<'EOF'
#!/bin/bash
echo "uid $(id -u)"
echo "dir $_CONDOR_SCRATCH_DIR"
echo "the victim's secret" >"$_CONDOR_SCRATCH_DIR/secret"
chmod 644 "$_CONDOR_SCRATCH_DIR/secret"
echo "the victim's shared secret" >shared_secret
chmod 600 shared_secret
echo ready
for i in $(seq 600); do
	[ -e stop ] && break
	sleep 0.5
done
[ "$(cat shared_secret)" = "the victim's shared secret" ] || echo "secret changed"
echo "victim ends"
EOF
chmod 755 "$VW/victim.sh"
V=$(submit $VICTIM victim exec1 "")
check "the victim's job is submitted" test -n "$V"
check "legitimate: it runs on exec1 as its owner" \
	wait_for 120 grep -qx ready "$VW/victim.out"
check "... as $VICTIM" grep -qx "uid $(id -u $VICTIM)" "$VW/victim.out"
VDIR=$(sed -n 's/^dir //p' "$VW/victim.out")
VPID=$(sed -n "s/.*job $V\.0 started: pid \([0-9]*\) .*/\1/p" \
    "$POOL/exec1/log/StarterLog" | tail -n 1)
check "the victim's process is known ($VPID)" test -n "$VPID"

# --- The attacker's job on exec2, as daemon. --------------------------------
AW=$SHARED/$ATTACKER
cat >"$AW/attack.sh" <<'EOF'
#!/bin/bash
vdir=$1 vpid=$2 pool=$3 shared=$4 victim=$5
echo "uid $(id -u)"
cat "$vdir/secret" >/dev/null 2>&1 && echo "read the victim's execute directory"
cat "$shared/$victim/shared_secret" >/dev/null 2>&1 && echo "read the victim's shared file"
echo pwned 2>/dev/null >"$shared/$victim/shared_secret" && echo "wrote the victim's shared file"
kill -STOP "$vpid" 2>/dev/null && echo "signalled the victim"
/usr/bin/python3 -c '
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.ptrace(16, int(sys.argv[1]), 0, 0) == 0:
    print("ptraced the victim")
' "$vpid"
cat "/proc/$vpid/environ" >/dev/null 2>&1 && echo "read the victim's environment"
cat "$pool/pool_key" >/dev/null 2>&1 && echo "read the pool key"
cat "$pool/exec2/log/StarterLog" >/dev/null 2>&1 && echo "read the daemons' log"
ls "$pool/cm/spool" >/dev/null 2>&1 && echo "saw the schedd's spool"
echo "euid through root's set-user-id program: $("$shared/suid_id" -u 2>/dev/null)"
setsid sleep 3147 </dev/null >/dev/null 2>&1 &
echo done
EOF
chmod 755 "$AW/attack.sh"
A=$(submit $ATTACKER attack exec2 "$VDIR $VPID $POOL $SHARED $VICTIM")
check "the attacker's job is submitted" test -n "$A"
check "it runs on exec2 and completes" wait_for 120 gone "$A"
check "... having done what it does" grep -qx done "$AW/attack.out"
check "legitimate: it ran as its owner, $ATTACKER" \
	grep -qx "uid $(id -u $ATTACKER)" "$AW/attack.out"
attack_failed() { ! grep -qx "$1" "$AW/attack.out"; }
verdict "reading another job's execute directory" \
	attack_failed "read the victim's execute directory"
verdict "reading another user's 0600 file in the shared directory" \
	attack_failed "read the victim's shared file"
verdict "signalling another user's job" attack_failed "signalled the victim"
verdict "ptrace of another user's job, or its /proc" \
	test -z "$(grep -x -e "ptraced the victim" \
	    -e "read the victim's environment" "$AW/attack.out")"
verdict "reading the pool key or the daemons' files" \
	test -z "$(grep -x -e "read the pool key" -e "read the daemons' log" \
	    -e "saw the schedd's spool" "$AW/attack.out")"
verdict "becoming root through a set-user-id program in the shared directory" \
	grep -qx "euid through root's set-user-id program: $(id -u $ATTACKER)" \
	"$AW/attack.out"
verdict "leaving a process behind (no account sweep for an owner's job)" \
	wait_for 30 bash -c "$(declare -f proc_running); ! proc_running 'sleep 3147'"

# --- The victim, after all that. --------------------------------------------
touch "$VW/stop"
chown $VICTIM "$VW/stop"
check "the victim's job ends by itself" wait_for 120 gone "$V"
verdict "killing or changing the victim's job" \
	test "$(grep -v -e '^uid ' -e '^dir ' "$VW/victim.out")" = "$(printf 'ready\nvictim ends')"
