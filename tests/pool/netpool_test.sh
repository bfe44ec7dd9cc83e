#!/usr/bin/env bash
# tests/pool/netpool_test.sh: the pool on a network (tests/lib/netpool.sh):
# a central manager and four execute hosts, each in a network namespace
# of its own with its own address.  Every daemon speaks from its host's
# address; vanilla jobs run across the hosts; a relinked standard job
# checkpoints, is vacated from its host and resumes on another, its
# output identical to a native run's; a host cut off at the switch
# hears nothing and is heard by nobody until healed; a test that fails
# leaves no namespace behind.
#
# checks: 16
set -u
. "$(dirname "$0")/../lib/netpool.sh"

CHECKS=("the schedd listens" "four machines advertise"
    "each startd speaks from its own host's address"
    "the schedd speaks from the central manager's address"
    "eight vanilla jobs complete" "each printed its own line"
    "they ran on several hosts" "demo_primes builds natively"
    "demo_primes relinks with condor_cc" "the standard job runs and checkpoints"
    "condor_vacate of its host is obeyed" "it resumes on another host and completes"
    "its output is identical to the native run's"
    "a host cut off at the switch hears nothing" "healed, it is heard again"
    "a failed netpool test leaves no namespace behind")
netpool_require "${CHECKS[@]}"

netpool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'SUSPEND : FALSE' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTER_TIMEOUT = 20' 'PERIODIC_CHECKPOINT_INTERVAL = 3' \
	'VACATE_GRACE = 5' 'MAX_JOB_STARTS = 10'
netpool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
for i in 1 2 3 4; do
	netpool_host "exec$i" "MASTER, STARTD"
done
pool_start

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "four machines advertise" pool_wait_machines 4 60
want=$(for i in 1 2 3 4; do echo "exec$i <${NETPOOL_ADDR[exec$i]}:"; done)
check "each startd speaks from its own host's address" bash -c \
	"[ \"\$(nsenter --net=/run/netns/$(netpool_ns cm) env CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af Name StartdIpAddr | sed 's/:[0-9]*>\$/:/' | sort)\" = '$want' ]"
check "the schedd speaks from the central manager's address" bash -c \
	"nsenter --net=/run/netns/$(netpool_ns cm) env CONDOR_CONFIG=$POOL/cm/condor_config condor_status -submitters -af ScheddIpAddr | grep -q '^<${NETPOOL_ADDR[cm]}:'"

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
cd "$W" || exit 1
pool_owner "$W"
# submit FILE: as the owner, in the central manager's namespace.
submit() {
	if [ "$OWNER" = nobody ]; then
		on cm setpriv --reuid=nobody --regid="$(id -g nobody)" \
		    --clear-groups "$RELEASE/bin/condor_submit" "$1"
	else
		on cm condor_submit "$1"
	fi 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
in_history() { test -n "$(on cm condor_history "$1" -af ProcId 2>/dev/null)"; }
attr() { on cm condor_q "$1" -af "$2" 2>/dev/null; }

# --- vanilla jobs across the hosts ---------------------------------------
printf '#!/bin/sh\necho "job $1"\nsleep 2\n' >job.sh
chmod 755 job.sh
cat >many.sub <<'EOF'
universe   = vanilla
executable = job.sh
arguments  = $(Process)
output     = many.$(Process).out
queue 8
EOF
chmod 644 many.sub
C=$(submit many.sub)
all_done() {
	local p
	for p in 0 1 2 3 4 5 6 7; do in_history "$C.$p" || return 1; done
}
check "eight vanilla jobs complete" wait_for 180 all_done
ok=1
for p in 0 1 2 3 4 5 6 7; do
	[ "$(cat "many.$p.out" 2>/dev/null)" = "job $p" ] || ok=0
done
check "each printed its own line" test $ok = 1
check "they ran on several hosts" test "$(on cm condor_history "$C" -af LastRemoteHost | sort -u | wc -l)" -ge 2

# --- a standard job moves between hosts ----------------------------------
N=20000000
STEP=1000000
check "demo_primes builds natively" cc -O2 -static -o "$W/primes.native" \
	"$TOP/tests/programs/demo_primes.c"
check "demo_primes relinks with condor_cc" condor_cc -O2 -o "$W/primes" \
	"$TOP/tests/programs/demo_primes.c"
"$W/primes.native" $N $STEP >"$W/native.txt"
cat >primes.sub <<EOF
universe   = standard
executable = primes
arguments  = $N $STEP
output     = out.txt
log        = $W/primes.log
queue
EOF
chmod 644 primes.sub
S=$(submit primes.sub)
running_with_ckpt() {
	[ "$(attr "$S.0" JobStatus)" = 2 ] && [ "$(attr "$S.0" NumCkpts)" -ge 1 ] 2>/dev/null
}
check "the standard job runs and checkpoints" wait_for 120 running_with_ckpt
host=$(attr "$S.0" RemoteHost)
# Its host takes no job for a while, so that it moves.
sed -i '/^START : /d' "$POOL/$host/condor_config.local"
echo 'START : FALSE' >>"$POOL/$host/condor_config.local"
spid=$(sed -n 's/.*condor_startd starting (pid \([0-9]*\)).*/\1/p' "$POOL/$host/log/StartLog" | tail -1)
[ -n "$spid" ] && kill -HUP "$spid"
check "condor_vacate of its host is obeyed" on cm condor_vacate "$host"
moved() {
	in_history "$S.0" && [ "$(on cm condor_history "$S.0" -af LastRemoteHost)" != "$host" ]
}
check "it resumes on another host and completes" wait_for 300 moved
check "its output is identical to the native run's" cmp -s native.txt out.txt

# --- partitions ----------------------------------------------------------
check_reach_before=$(netpool_reaches exec4 cm && echo yes)
netpool_cut exec4
# Neither way: exec4 hears no answer from cm, nor cm from exec4.
netpool_unreachable() {
	[ "$check_reach_before" = yes ] && ! netpool_reaches exec4 cm &&
	    ! netpool_reaches cm exec4
}
check "a host cut off at the switch hears nothing" netpool_unreachable
netpool_heal exec4
check "healed, it is heard again" wait_for 30 netpool_reaches exec4 cm

# --- a failed test cleans up too ----------------------------------------
id=$(bash -c '. "$1/tests/lib/netpool.sh"; netpool_init >/dev/null
	netpool_host a "MASTER" >/dev/null; netpool_host b "MASTER" >/dev/null
	echo "$NETPOOL_ID"; exit 3' _ "$TOP" 2>/dev/null | tail -1)
check "a failed netpool test leaves no namespace behind" bash -c \
	"[ -n '$id' ] && ! ip netns list | grep -q 'condor$id-'"
