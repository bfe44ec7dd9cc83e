#!/usr/bin/env bash
# tests/security/claim_test.sh: a claim id is no bearer ticket, and no
# daemon secret reaches a user (condor_security(7), "Claims" and "Who
# may hold the pool key").  On a real pool (a central manager and an
# execute host), an ordinary local user, the attacker (user daemon),
# tries against another, the victim (user nobody):
#   - to copy a machine's claim id into a job with $$(ClaimId) or
#     $$([ClaimId]) and read it with condor_q;
#   - to read a private attribute in a collector or startd reply;
#   - with the claim id of the victim's running job (which the test
#     takes from the schedd's spool, as if it had leaked), to move the
#     victim's starter to a listener of its own (STARTD_RECONNECT_JOB),
#     to pose as the starter to the victim's shadow (SHADOW_RECONNECT,
#     then SHADOW_GET of the job's standard input), to release the
#     claim (STARTD_RELEASE_CLAIM) and to fence it with a shadow of its
#     own (CONDOR_CLAIM_ID=... condor_shadow -fence, and the id on the
#     shadow's key descriptor);
#   - to find the pool key in the memory of the shadow, which acts for
#     the victim, or the claim in its environment;
#   - to read the daemons' logs for addresses, pids and ids;
#   - to find the pool key in condor_dagman's memory, run by root.
# Each attack is a verdict; the victim's job must complete with its
# output whole.
#
# checks: 35
set -u
. "$(dirname "$0")/../lib/pool.sh"

ATTACKER=daemon
VICTIM=nobody
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null ||
    ! [ -x /usr/bin/python3 ] ||
    ! id "$ATTACKER" >/dev/null 2>&1 || ! id "$VICTIM" >/dev/null 2>&1; then
	for i in $(seq 35); do
		echo "SKIP claim check $i: needs root, setpriv, /usr/bin/python3 and users $ATTACKER and $VICTIM"
	done
	exit 0
fi

pool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'STARTER_UPDATE_INTERVAL = 1' 'MAX_JOB_STARTS = 10'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
pool_start

rpc() { python3 "$TOP/tests/lib/rpccall.py" "$@"; }
install -m 644 "$TOP/tests/lib/rpccall.py" "$POOL/rpccall.py"
arpc() { as $ATTACKER /usr/bin/python3 "$POOL/rpccall.py" "$@"; }
. "$TOP/tests/lib/security.sh"
security_users $ATTACKER $VICTIM
CM=$POOL/cm
E1=$POOL/exec1
check "the execute host advertises" pool_wait_machines 1 60
check "the schedd listens" wait_for 60 test -S "$CM/spool/.schedd_socket"
wait_for 30 test -s "$E1/log/.startd_address"
startd=$(cat "$E1/log/.startd_address")

W=$POOL/work
mkdir -p "$W"
chown $VICTIM "$W"
chmod 700 "$W"
held() { test "$(on cm condor_q "$1.0" -af JobStatus 2>/dev/null)" = 5; }

# --- 1. $$(ClaimId): the machine's claim id copied into the queue. ------
# (A job that runs instead stays in the queue, where condor_q shows it.)
printf 'universe = vanilla\nexecutable = /bin/sleep\narguments = 300\n+Leak = "$$(ClaimId)"\nqueue\n' \
	>"$W/leak.sub"
printf 'universe = vanilla\nexecutable = /bin/sleep\narguments = 300\n+Leak2 = "$$([ClaimId])"\nqueue\n' \
	>"$W/leak2.sub"
chown $VICTIM "$W"/leak*.sub
submit() { (cd "$W" && as $VICTIM condor_submit "$1" 2>&1 |
	sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'); }
leak=$(submit leak.sub)
check "a job naming \$\$(ClaimId) is submitted" test -n "$leak"
check "... its shadow holds it rather than expand it" wait_for 90 held "$leak"
no_match_exp() {
	on cm condor_q -l "$1.0" | grep -q "^ClusterId" &&
	    ! on cm condor_q -l "$1.0" | grep -qi "^MATCH_EXP_$2"
}
verdict "\$\$(ClaimId) copied into the job as MATCH_EXP_Leak" \
	no_match_exp "$leak" Leak
private_reason() {
	on cm condor_q "$1.0" -af HoldReason | grep -q 'private attribute'
}
check "... the hold reason says the attribute is private" \
	private_reason "$leak"
on cm condor_rm "$leak" >/dev/null 2>&1
leak2=$(submit leak2.sub)
check "a job naming \$\$([ClaimId]) is held too" wait_for 90 held "$leak2"
verdict "\$\$([ClaimId]) copied into the job as MATCH_EXP_Leak2" \
	no_match_exp "$leak2" Leak2
on cm condor_rm "$leak" "$leak2" >/dev/null 2>&1

# --- 2. Private attributes in replies to a user. ------------------------
no_claim_id() { ! as $ATTACKER condor_status -l | grep -qi "^ClaimId"; }
verdict "ClaimId in the collector's reply to condor_status -l" no_claim_id
answered_without() { [[ $out == "0 0 "*" lacks $1" ]]; }
out=$(arpc -g ClaimId "$startd" 0x2c0d0003 1 1)
verdict "ClaimId in the startd's reply to a user's STARTD_QUERY ($out)" \
	answered_without ClaimId
out=$(rpc -k "$POOL/pool_key" -g ClaimId "$startd" 0x2c0d0003 1 1)
check "legitimate: the pool's own STARTD_QUERY has it ($out)" \
	test "${out##* has }" = ClaimId

# --- The victim's job: private input, a lease (so a starter may come
# back to its shadow), long enough for the attacks. ----------------------
cat >"$W/job.sh" <<'EOF'
#!/bin/sh
cat
echo started
sleep 40
echo done
EOF
chmod 755 "$W/job.sh"
echo "the victim's secret input" >"$W/in"
chmod 600 "$W/in"
cat >"$W/job.sub" <<EOF
universe   = vanilla
executable = $W/job.sh
input      = $W/in
output     = $W/out
log        = $W/job.log
job_lease_duration = 300
queue
EOF
chown $VICTIM "$W"/*
cluster=$(submit job.sub)
running() { test "$(on cm condor_q "$cluster.0" -af JobStatus 2>/dev/null)" = 2; }
check "the victim's job runs on exec1" wait_for 90 running
hello() { grep -q "job $cluster.0: starter pid .* said hello" "$CM/log/ShadowLog"; }
wait_for 60 hello
# What leaked: the claim id the schedd keeps for the job.
id=$(sed -n 3p "$CM/spool/claims/$cluster.0" 2>/dev/null)
shadow_addr=$(sed -n "s/.*claimed by job $cluster.0 .*shadow \(<[^>]*>\).*/\1/p" \
	"$E1/log/StartLog" | tail -1)
starter_pid=$(sed -n "s/.*claimed by job $cluster.0 .*starter pid \([0-9]*\).*/\1/p" \
	"$E1/log/StartLog" | tail -1)
check "the test has the claim id ($id), the shadow's address ($shadow_addr) and the starter's pid ($starter_pid)" \
	test -n "$id" -a -n "$shadow_addr" -a -n "$starter_pid"

# --- 3. Logs: unreadable by others, no claim id in full. -----------------
world_readable=$(find "$CM/log" "$E1/log" -maxdepth 1 -name '*Log' -perm -o+r)
verdict "the daemons' logs readable by everyone (${world_readable:-none})" \
	test -z "$world_readable"
check "... every daemon's log is 0640" \
	test "$(stat -c %a "$CM/log/SchedLog" "$CM/log/ShadowLog" \
	"$E1/log/StartLog" "$E1/log/StarterLog" | sort -u)" = 640
verdict "the claim id written in a log" \
	bash -c "! grep -rqi '$id' $CM/log $E1/log"

# --- 4. The stolen claim id against the victim's job. --------------------
# The attacker's listener, where a moved starter would send the output.
port=$(free_port)
as $ATTACKER /usr/bin/python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4)
s.settimeout(900)	# never outlives the test for long, whatever stops it
c, _ = s.accept()
open(sys.argv[2], "w").write("a starter called\n")
' "$port" "$POOL/home.$ATTACKER/caught" >/dev/null 2>&1 &
listener=$!
out=$(arpc "$startd" 0x2c0d0003 1 8 "s:$id" "s:<127.0.0.1:$port>")
verdict "STARTD_RECONNECT_JOB with the stolen claim id ($out)" \
	test "${out%% \'*}" != "0 0"
check "... refused and logged by the startd" \
	grep -q "reconnect from 127.0.0.1 refused" "$E1/log/StartLog"
out=$(arpc "$shadow_addr" 0x2c0d0006 1 11 "s:$id" s:exec1 "i:$starter_pid")
verdict "SHADOW_RECONNECT with the stolen id and the starter's pid ($out)" \
	test "${out%% \'*}" != "0 0"
check "... refused and logged by the shadow" \
	grep -q "job $cluster.0: RECONNECT from 127.0.0.1 refused" "$CM/log/ShadowLog"
# Then, on the connection a RECONNECT would have made the starter's,
# the job's standard input.
out=$(arpc -g secret "$shadow_addr" 0x2c0d0006 1 11 "s:$id" s:exec1 \
	"i:$starter_pid" --then 2 i:2 h:0 i:4096)
got_nothing() { [[ $out == *" ; 0 "*" lacks secret" && $out != *" ; 0 0 "* ]]; }
verdict "SHADOW_GET of the job's standard input after it ($out)" got_nothing
out=$(arpc "$startd" 0x2c0d0003 1 4 "s:$id")
verdict "STARTD_RELEASE_CLAIM with the stolen id ($out)" \
	test "${out%% \'*}" != "0 0"
as $ATTACKER env CONDOR_CLAIM_ID="$id" "$RELEASE/sbin/condor_shadow" \
	-fence "$cluster.0" "$startd" 3 >/dev/null 2>&1
as $ATTACKER bash -c 'exec 3<<<"$1$1"; CONDOR_CLAIM_KEY_FD=3 exec "$2" -fence "$3" "$4" 3' \
	fence "$id" "$RELEASE/sbin/condor_shadow" "$cluster.0" "$startd" \
	>/dev/null 2>&1
refusals=$(grep -c "release from 127.0.0.1 refused" "$E1/log/StartLog")
check "... the startd refused both releases and the fence's ($refusals)" \
	test "$refusals" -ge 2
unkilled() { running && ! grep -q "killing job $cluster.0" "$E1/log/StarterLog"; }
verdict "the attacker's releases and fences stopped the victim's job" unkilled

# --- 5. The shadow acts for the victim: no pool key, no claim. -----------
spid=$(sed -n "s/.*job $cluster.0: shadow starting (pid \([0-9]*\)).*/\1/p" \
	"$CM/log/ShadowLog" | tail -1)
schedd_pid=$(sed -n 's/.*condor_schedd starting (pid \([0-9]*\)).*/\1/p' \
	"$CM/log/SchedLog" | tail -1)
# Is the pool key (its bytes, or its text) anywhere in PID's memory?
holds_key() {
	python3 - "$1" "$POOL/pool_key" <<'EOF'
import re, sys
pid, keyfile = sys.argv[1], sys.argv[2]
text = open(keyfile).read().split()[0]
needles = [bytes.fromhex(text), text.encode()]
mem = open("/proc/%s/mem" % pid, "rb", 0)
for line in open("/proc/%s/maps" % pid):
    m = re.match(r"([0-9a-f]+)-([0-9a-f]+) (\S+)", line)
    if not m or m.group(3)[0] != "r":
        continue
    lo, hi = int(m.group(1), 16), int(m.group(2), 16)
    try:
        mem.seek(lo)
        data = mem.read(hi - lo)
    except (OSError, ValueError, OverflowError):
        continue
    if any(n in data for n in needles):
        sys.exit(0)
sys.exit(1)
EOF
}
check "the test finds the shadow ($spid) and the schedd ($schedd_pid)" \
	kill -0 "$spid" "$schedd_pid"
check "legitimate: the schedd, a daemon, holds the pool key (the scan works)" \
	holds_key "$schedd_pid"
shadow_keyless() { ! holds_key "$spid"; }
verdict "the pool key in the memory of the victim's shadow" shadow_keyless
verdict "the pool key open in the shadow" \
	bash -c "! ls -l /proc/$spid/fd | grep -q pool_key"
# (CONDOR_CLAIM_KEY_FD=3 names a pipe, already read and closed.)
claimless_env() {
	! tr '\0' '\n' <"/proc/$spid/environ" | grep -qiE -e "$id" \
	    -e '^CONDOR_CLAIM_ID=' -e '=[0-9a-f]{64}$'
}
verdict "the claim or its key in the shadow's environment" claimless_env

# --- The victim's job completes, its output whole. ----------------------
gone() { test -z "$(on cm condor_q "$cluster.0" -af JobStatus 2>/dev/null)"; }
check "the victim's job completes" wait_for 120 gone
check "... its output is whole (input, start and end, once each)" \
	test "$(cat "$W/out")" = "the victim's secret input
started
done"
check "... it ran once (one 001, one 005, no 004)" \
	test "$(grep -c "^001 ($(printf '%03d' "$cluster")" "$W/job.log")$(grep -c "^005 ($(printf '%03d' "$cluster")" "$W/job.log")$(grep -c "^004 ($(printf '%03d' "$cluster")" "$W/job.log")" = 110
verdict "the victim's starter called the attacker's listener" \
	test ! -e "$POOL/home.$ATTACKER/caught"
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null

# --- 6. condor_dagman acts for its user, even run by root. --------------
printf 'universe = vanilla\nexecutable = /bin/sleep\narguments = 300\nqueue\n' \
	>"$W/node.sub"
printf 'JOB A node.sub\n' >"$W/d.dag"
(cd "$W" && CONDOR_CONFIG=$CM/condor_config exec "$RELEASE/bin/condor_dagman" \
	-Dag d.dag >/dev/null 2>&1) &
dagman=$!
node_queued() { [ -n "$(on cm condor_q -af ClusterId 2>/dev/null)" ]; }
check "condor_dagman run by root submits its node" wait_for 60 node_queued
dagman_keyless() { kill -0 "$dagman" && ! holds_key "$dagman"; }
# A guard more than an attack: DAGMan calls the schedd on its socket,
# where it needs no key, and must go on never loading one.
check "condor_dagman run by root holds no pool key in its memory" \
	dagman_keyless
kill "$dagman" 2>/dev/null
wait "$dagman" 2>/dev/null
for c in $(on cm condor_q -af ClusterId 2>/dev/null); do
	on cm condor_rm "$c" >/dev/null 2>&1
done
pool_stop
exit 0
