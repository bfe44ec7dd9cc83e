#!/usr/bin/env bash
# tests/security/security_test.sh: attacks on a real pool (a central
# manager and an execute host) by an ordinary local user, the attacker
# (user daemon), against another, the victim (user nobody), whose job
# runs on the execute host.  Each attack prints one line with its
# verdict ("blocked" or "SUCCEEDED") as a check, and each has a check
# that the legitimate version of the same action still works: the
# owner's own condor_rm, the machine owner's condor_vacate (with a
# token), the administrator's condor_off, a real match, a real ad.
#
# The attacker has a shell on a pool host, so it can reach every
# daemon's TCP port and Unix socket, run our commands, and speak raw
# RPC (tests/lib/rpccall.py); it cannot read the pool key (0600, root's).
#
# checks: 58
set -u
. "$(dirname "$0")/../lib/pool.sh"

ATTACKER=daemon
VICTIM=nobody
# The attacker runs the system's Python (another user's may be out of
# its reach).
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null ||
    ! [ -x /usr/bin/python3 ] ||
    ! id "$ATTACKER" >/dev/null 2>&1 || ! id "$VICTIM" >/dev/null 2>&1; then
	for i in $(seq 58); do
		echo "SKIP security check $i: needs root, setpriv, /usr/bin/python3 and users $ATTACKER and $VICTIM"
	done
	exit 0
fi

pool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'STARTER_UPDATE_INTERVAL = 1' 'VACATE_GRACE = 2' \
	'MAX_JOB_STARTS = 10'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
# The execute host's owner is "hostowner": a token-holder, not a local
# user (tokens work from any host).
pool_host exec1 "MASTER, STARTD" 'ALLOW_OWNER = hostowner, root'
pool_start

rpc() { python3 "$TOP/tests/lib/rpccall.py" "$@"; }
# The attacker's copy (the tree may be out of its reach).
install -m 644 "$TOP/tests/lib/rpccall.py" "$POOL/rpccall.py"
. "$TOP/tests/lib/security.sh"
security_users $ATTACKER $VICTIM
CM=$POOL/cm
E1=$POOL/exec1
check "the pool key exists, mode 0600, root's" \
	test "$(stat -c '%a %U' "$POOL/pool_key")" = "600 root"
check "the execute host advertises" pool_wait_machines 1 60
check "the schedd listens" wait_for 60 test -S "$CM/spool/.schedd_socket"
collector="127.0.0.1:$COLLECTOR_PORT"
wait_for 30 test -s "$CM/log/.schedd_address"
wait_for 30 test -s "$E1/log/.startd_address"
wait_for 30 test -s "$E1/log/.master_address"
schedd=$(cat "$CM/log/.schedd_address")
startd=$(cat "$E1/log/.startd_address")
emaster=$(cat "$E1/log/.master_address")
check "the attacker cannot read the pool key" \
	bash -c "! as $ATTACKER cat $POOL/pool_key 2>/dev/null"

# --- The victim's job, running on exec1: a real match. -------------------
W=$POOL/work
mkdir -p "$W"
chown $VICTIM "$W"
cat >"$W/job.sh" <<'EOF'
#!/bin/sh
echo started
sleep 600
EOF
chmod 755 "$W/job.sh"
cat >"$W/job.sub" <<EOF
universe   = vanilla
executable = $W/job.sh
output     = $W/out
log        = $W/job.log
queue
EOF
cluster=$(cd "$W" && as $VICTIM condor_submit job.sub 2>&1 |
	sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "the victim submits a job" test -n "$cluster"
running() { test "$(on cm condor_q "$cluster.0" -af JobStatus 2>/dev/null)" = 2; }
check "legitimate: the negotiator matches it and it runs on exec1" \
	wait_for 90 running

# --- 1. A fake machine ad sent to the collector. -----------------------
printf 'Name = "evil"\nArch = "X86_64"\nOpSys = "LINUX"\nState = "Idle"\nMemory = 99999\nDisk = 1000000\nStartdIpAddr = "<127.0.0.1:9>"\nKeyboardIdle = 3600\nLoadAvg = 0.0\n\n' \
	>"$POOL/evil.ad"
chmod 644 "$POOL/evil.ad"
as $ATTACKER condor_advertise "$POOL/evil.ad" >"$POOL/adv.out" 2>&1
sleep 1
no_evil() { ! on cm condor_status -af Name | grep -qx evil; }
verdict "a made-up machine ad sent with condor_advertise" no_evil
check "... the refusal names what was missing" \
	grep -q "needs DAEMON" "$POOL/adv.out"
check "... and the collector logs it with the peer" \
	grep -q "COLLECTOR_UPDATE.* from 127.0.0.1 (unauthenticated) refused" \
	"$CM/log/CollectorLog"
# A key of the attacker's own making is not the pool's.
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$POOL/fake_key"
out=$(rpc -k "$POOL/fake_key" "$collector" 0x2c0d0001 1 1 i:1 i:1 s:Name 's:"evil2"')
verdict "an ad signed with a key not the pool's ($out)" test "$out" = "denied 4"
check "legitimate: the administrator's condor_advertise is taken" \
	on cm condor_advertise "$POOL/evil.ad"
evil_there() { ! no_evil; }
check "... and the ad is there" wait_for 10 evil_there

# --- 2. Machine ads deleted from the collector. ------------------------
out=$(rpc "$collector" 0x2c0d0001 1 3 i:1 s:exec1)
verdict "an unsigned invalidation of exec1's ad ($out)" test "$out" = "denied 5"
check "... and exec1 is still listed" \
	bash -c "CONDOR_CONFIG=$CM/condor_config condor_status -af Name | grep -qx exec1"

# --- 3. A forged match hands the victim's job to the attacker's startd. --
out=$(rpc "$schedd" 0x2c0d0004 1 6 i:1 i:$cluster i:0 i:0)
verdict "an unsigned SCHEDD_MATCH ($out)" test "$out" = "denied 5"
out=$(rpc -k "$POOL/fake_key" "$schedd" 0x2c0d0004 1 6 i:1 i:$cluster i:0 i:0)
verdict "a SCHEDD_MATCH signed with a made-up key ($out)" test "$out" = "denied 4"
out=$(rpc "$schedd" 0x2c0d0004 1 5 s:daemon)
verdict "an unsigned SCHEDD_NEXT_JOB (the victim's job ads) ($out)" \
	test "$out" = "denied 5"
check "... the job still runs where the real match put it" running

# --- 4. Vacating another user's job. -----------------------------------
as $ATTACKER condor_vacate exec1 >"$POOL/vac.out" 2>&1
sleep 1
verdict "condor_vacate of exec1 by the attacker" running
check "... refused as not OWNER" grep -q "needs OWNER" "$POOL/vac.out"
out=$(rpc "$startd" 0x2c0d0003 1 3)
verdict "a raw unsigned STARTD_VACATE ($out)" test "$out" = "denied 5"
# The machine's owner has a token (ALLOW_OWNER names it on exec1).
on cm condor_token_create -identity hostowner -lifetime 3600 \
	-token "$POOL/hostowner.token" 2>/dev/null
chown $ATTACKER "$POOL/hostowner.token"
mkdir -p "$POOL/home.$ATTACKER/.condor/tokens.d"
# A token for the attacker's own name gives it nothing it lacked.
on cm condor_token_create -identity daemon >"$POOL/home.$ATTACKER/.condor/tokens.d/mine"
chmod 600 "$POOL/home.$ATTACKER/.condor/tokens.d/mine"
chown -R $ATTACKER "$POOL/home.$ATTACKER/.condor"
as $ATTACKER condor_vacate exec1 >"$POOL/vac2.out" 2>&1
sleep 1
verdict "condor_vacate with a token of the attacker's own identity" running
check "... refused naming the identity" \
	grep -q "as daemon was not allowed" "$POOL/vac2.out"
out=$(as $ATTACKER /usr/bin/python3 "$POOL/rpccall.py" \
	-t "$POOL/home.$ATTACKER/.condor/tokens.d/mine" -i hostowner \
	"$startd" 0x2c0d0003 1 3)
verdict "a token whose identity was changed to the owner's ($out)" \
	test "$out" = "denied 4"
out=$(rpc -t "$POOL/home.$ATTACKER/.condor/tokens.d/mine" -o 3600 \
	"$startd" 0x2c0d0003 1 3)
verdict "a token call dated an hour ahead ($out)" test "$out" = "denied 2"
check "... the victim's job is untouched by all of it" running

# --- 5. Fake keyboard activity through the startd's Unix socket. -------
out=$(as $ATTACKER /usr/bin/python3 "$POOL/rpccall.py" \
	"$E1/log/.startd_socket" 0x2c0d0003 1 5 h:0)
verdict "a kbdd report from another user on the 0666 socket ($out)" \
	test "$out" = "denied 5"
check "... logged with the user's name" \
	grep -q "STARTD_KBDD_ACTIVITY from local (daemon) refused" "$E1/log/StartLog"
out=$(rpc "$E1/log/.startd_socket" 0x2c0d0003 1 5 h:0)
check "legitimate: root's report is taken ($out)" test "${out%% \'*}" = "0 0"

# --- 6. A claim from a host outside HOSTALLOW_WRITE. --------------------
out=$(rpc -s 127.0.0.2 "$startd" 0x2c0d0003 1 2 i:0 's:<127.0.0.2:9>' s:c s:x)
verdict "STARTD_REQUEST_CLAIM from 127.0.0.2 ($out)" test "${out%% \'*}" = "0 1"
# From an allowed host, a well-formed claim with a claim id of its own:
# only the startd's current one, which the negotiator alone learns, will do.
claim_args=(i:3 s:ClusterId s:1 s:ProcId s:0 s:Owner 's:"daemon"'
	's:<127.0.0.1:9>' s:0123456789abcdef0123456789abcdef s:evil)
out=$(rpc "$startd" 0x2c0d0003 1 2 "${claim_args[@]}")
claim_refused() { [[ $out == "0 1 "*"not this machine's claim id"* ]]; }
verdict "a claim with a made-up claim id ($out)" claim_refused
check "... logged" grep -q "refused: not this machine's claim id" "$E1/log/StartLog"
no_claim_id() { ! as $ATTACKER condor_status -l | grep -qi "^ClaimId"; }
verdict "reading a machine's claim id with condor_status -l" no_claim_id

# --- 7. Replays and tampering, with the pool's own key. ----------------
out=$(rpc -r -k "$POOL/pool_key" "$collector" 0x2c0d0001 1 2 i:1 s: s:)
verdict "the same signed call sent twice ($out)" \
	test "${out##*| }" = "denied 4"
check "... the first was answered" test "${out%% *}" = "0"
out=$(rpc -m -k "$POOL/pool_key" "$collector" 0x2c0d0001 1 2 i:1 s: s:)
verdict "a signed call with one bit of its MAC flipped ($out)" test "$out" = "denied 4"
out=$(rpc -o -1000 -k "$POOL/pool_key" "$collector" 0x2c0d0001 1 2 i:1 s: s:)
verdict "a signed call 1000 s old ($out)" test "$out" = "denied 2"

# --- 8. The administrator's commands. -----------------------------------
as $ATTACKER condor_off -daemon STARTD exec1 >"$POOL/off.out" 2>&1
sleep 1
startd_up() { test "$(rpc "$startd" 0x2c0d0003 1 0)" = 0; }
verdict "condor_off of exec1's startd by the attacker" startd_up
check "... refused as not ADMINISTRATOR" grep -q "needs ADMINISTRATOR" "$POOL/off.out"
# On exec1 itself the master's Unix socket knows the attacker by its uid.
CONDOR_CONFIG=$E1/condor_config as $ATTACKER condor_off -daemon STARTD \
	>"$POOL/off2.out" 2>&1
sleep 1
verdict "condor_off through exec1's own master socket by a local user" startd_up
check "... refused, naming the local user" \
	grep -q "as local user $ATTACKER was not allowed" "$POOL/off2.out"
out=$(rpc "$emaster" 0x2c0d0002 1 4)
verdict "a raw unsigned MASTER_SHUTDOWN ($out)" test "$out" = "denied 5"
check "... exec1's master still runs" kill -0 "${POOL_MASTER_PID[exec1]}"

# --- 9. Someone else's jobs. --------------------------------------------
as $ATTACKER condor_rm "$cluster" >"$POOL/rm.out" 2>&1
verdict "condor_rm of the victim's job by the attacker" running

# --- The legitimate versions. --------------------------------------------
evicted() { grep -q "^004 ($(printf '%03d' "$cluster").000.000)" "$W/job.log"; }
mkdir -p "$POOL/home.owner/.condor/tokens.d"
cp "$POOL/hostowner.token" "$POOL/home.owner/.condor/tokens.d/t"
chmod 600 "$POOL/home.owner/.condor/tokens.d/t"
chown -R $ATTACKER "$POOL/home.owner"
check "legitimate: the machine owner's token vacates exec1" \
	as $ATTACKER env HOME="$POOL/home.owner" condor_vacate exec1
check "... and the job is evicted" wait_for 30 evicted
check "legitimate: the victim's own condor_rm removes the job" \
	as $VICTIM condor_rm "$cluster"
gone() { test -z "$(on cm condor_q "$cluster.0" -af JobStatus 2>/dev/null)"; }
check "... and it leaves the queue" wait_for 60 gone
# An idle machine advertises its next claim id; the pool's daemons (and
# whoever holds the key) see it, nobody else.
root_sees_id() { on cm condor_status -l | grep -qi '^ClaimId'; }
check "legitimate: the pool's own query sees an idle machine's claim id" \
	wait_for 30 root_sees_id
verdict "reading an idle machine's claim id as another user" no_claim_id
check "legitimate: the administrator's condor_off stops exec1's startd" \
	on exec1 condor_off -daemon STARTD
off() { ! on cm condor_status -af Name | grep -qx exec1; }
check "... and exec1 leaves the pool" wait_for 30 off

pool_stop

# --- 10. A personal pool, run by the victim with no security settings. --
PH=$POOL/home.$VICTIM
pport=$(free_port)
cat >"$PH/condor_config" <<EOC
RELEASE_DIR = $RELEASE
COLLECTOR_HOST = 127.0.0.1:$pport
DAEMON_LIST = MASTER, COLLECTOR, NEGOTIATOR, SCHEDD
EOC
chown $VICTIM "$PH/condor_config"
chmod 755 "$PH"
# setpriv execs the master: $! is the master's own pid.
CONDOR_CONFIG=$PH/condor_config HOME=$PH setpriv --reuid=$VICTIM \
	--regid="$(id -g $VICTIM)" --clear-groups "$RELEASE/sbin/condor_master" -f \
	>"$POOL/personal.out" 2>&1 &
ppid=$!
trap 'kill -TERM $ppid 2>/dev/null; wait $ppid 2>/dev/null; pool_cleanup' EXIT
personal() { CONDOR_CONFIG=$PH/condor_config as "$@"; }
check "the victim's personal pool starts" \
	wait_for 60 test -S "$PH/.condor/spool/.schedd_socket"
check "its master made the key, the victim's, mode 0600" \
	test "$(stat -c '%a %U' "$PH/.condor/pool_key" 2>/dev/null)" = "600 $VICTIM"
printf 'universe = vanilla\nexecutable = /bin/true\nqueue\n' >"$POOL/p.sub"
chmod 644 "$POOL/p.sub"
# The attacker aims its commands at the victim's pool.
cat >"$POOL/aim.config" <<EOC
RELEASE_DIR = $RELEASE
COLLECTOR_HOST = 127.0.0.1:$pport
LOCAL_DIR = $PH/.condor
EOC
chmod 644 "$POOL/aim.config"
(cd "$POOL" && CONDOR_CONFIG=$POOL/aim.config as $ATTACKER condor_submit p.sub) \
	>"$POOL/psub.out" 2>&1
no_attackers_job() {
	grep -q "needs WRITE" "$POOL/psub.out" &&
	    test -z "$(personal $VICTIM condor_q -af Owner)"
}
verdict "another user submits to the victim's personal pool" no_attackers_job
CONDOR_CONFIG=$POOL/aim.config as $ATTACKER condor_advertise "$POOL/evil.ad" \
	>"$POOL/padv.out" 2>&1
p_no_evil() { ! personal $VICTIM condor_status -af Name | grep -qx evil; }
verdict "another user advertises a machine to it" p_no_evil
check "legitimate: the victim submits to it" \
	bash -c "cd $POOL && CONDOR_CONFIG=$PH/condor_config HOME=$PH setpriv --reuid=$VICTIM --regid=$(id -g $VICTIM) --clear-groups condor_submit p.sub"
# The master and the daemons it started, by pid, are all stopped.
children=$(ps -o pid= --ppid $ppid)
kill -TERM $ppid 2>/dev/null
wait $ppid 2>/dev/null
left=""
for p in $ppid $children; do kill -0 $p 2>/dev/null && left="$left $p"; done
check "the personal pool's master and its $(echo $children | wc -w) daemons are all gone (${left:-none left})" \
	test -n "$children" -a -z "$left"
exit 0
