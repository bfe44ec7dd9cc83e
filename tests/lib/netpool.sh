# tests/lib/netpool.sh: the pool of tests/lib/pool.sh on a network: each
# host in a network namespace of its own, with its own loopback and its
# own address, all joined by veth pairs to one bridge (in a namespace of
# its own too, so that nothing is added to the machine's own network).
# Every daemon of a host binds to the host's address; CONDOR_HOST and
# COLLECTOR_HOST name the central manager's, the first host made.
#
#   . tests/lib/netpool.sh
#   netpool_require "check name"...   # root, iproute2, netns: else SKIPs
#   netpool_init                   # pool_init, the bridge, the subnet
#   pool_config 'NAME = value'...  # as for pool.sh
#   netpool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"  # first: CM
#   netpool_host exec1 "MASTER, STARTD" ['NAME = value'...]
#   pool_start
#   on exec1 condor_status         # runs inside exec1's namespace
#   netpool_cut exec1              # every frame to or from it dropped
#   netpool_heal exec1
#   netpool_link_down exec1 / netpool_link_up exec1   # carrier lost
#
# With NETPOOL_SWITCH=user (set before netpool_init) the hosts are
# joined by tests/lib/netswitch.py instead of the kernel's bridge (the
# kernel here has no netem), which can also delay and drop frames
# between two hosts; it needs ethtool (checksums and segmentation are
# done in software, so that a frame can be passed on as it is):
#   netpool_impair exec1 cm 10 1   # frames exec1 -> cm: 10 ms late, 1 % lost
#   netpool_impair_clear
#   netpool_cut_pair exec1 exec2   # the two cannot reach each other
#
# The namespaces are "condor<ID>-HOST" and "condor<ID>-switch", the
# subnet 10.A.B.0/24, both chosen per run; netpool_cleanup (at exit,
# after pool_cleanup, on failure too) deletes the namespaces by name,
# which takes their links with them.  Commands enter a host's network
# namespace with nsenter, which changes nothing else (mounts, cgroups
# and /tmp are the machine's, as on loopback).  A test that cannot make
# namespaces says SKIP with the reason (netpool_usable sets
# NETPOOL_WHY).
#
# From the machine's own namespace the hosts cannot be reached: every
# command that talks to a daemon runs "on HOST".

. "$(dirname "${BASH_SOURCE[0]}")/pool.sh"

NETPOOL_ID=
NETPOOL_PREFIX=
NETPOOL_WHY=
declare -A NETPOOL_ADDR NETPOOL_PORT
NETPOOL_N=0
NETPOOL_MADE=()		# the namespaces made, for netpool_cleanup
NETPOOL_SWITCH=${NETPOOL_SWITCH:-bridge}
NETPOOL_SWITCH_PID=
NETPOOL_RULES=

netpool_ns() { echo "condor$NETPOOL_ID-$1"; }

# netpool_usable: 0 if namespaces can be made here; else 1, NETPOOL_WHY.
netpool_usable() {
	local probe="condor-probe-$$"
	if [ "$(id -u)" != 0 ]; then
		NETPOOL_WHY="network namespaces need root"
		return 1
	fi
	if ! command -v ip >/dev/null || ! command -v nsenter >/dev/null; then
		NETPOOL_WHY="no ip (iproute2) or nsenter (util-linux)"
		return 1
	fi
	if ! ip netns add "$probe" 2>/dev/null; then
		NETPOOL_WHY="ip netns add fails here"
		return 1
	fi
	ip netns del "$probe" 2>/dev/null
	if [ "$NETPOOL_SWITCH" = user ] && ! command -v ethtool >/dev/null; then
		NETPOOL_WHY="no ethtool (make test-deps installs it)"
		return 1
	fi
	return 0
}

# netpool_require CHECK...: when namespaces cannot be made here, say
# SKIP for each named check, with the reason, and end the test.
netpool_require() {
	local c
	netpool_usable && return 0
	for c in "$@"; do skip "$c" "$NETPOOL_WHY"; done
	exit 0
}

netpool_init() {
	local a b
	NETPOOL_ID=$(printf '%04d' $((($$ + RANDOM) % 10000)))
	a=$((($$ % 200) + 20))
	b=$((RANDOM % 250 + 1))
	NETPOOL_PREFIX="10.$a.$b"
	pool_init
	trap 'pool_cleanup; netpool_cleanup' EXIT
	NETPOOL_MADE+=("$(netpool_ns switch)")
	ip netns add "$(netpool_ns switch)" || { echo "FAIL ip netns add"; exit 1; }
	if [ "$NETPOOL_SWITCH" = user ]; then
		NETPOOL_RULES=$POOL/netswitch.rules
		: >"$NETPOOL_RULES"
	else
		ip -n "$(netpool_ns switch)" link add br0 type bridge
		ip -n "$(netpool_ns switch)" link set br0 up
	fi
	# The pool's common settings, now for the network.
	sed -i -e "s/^CONDOR_HOST = .*/CONDOR_HOST = $NETPOOL_PREFIX.1/" \
	    -e "s/^COLLECTOR_HOST = .*/COLLECTOR_HOST = $NETPOOL_PREFIX.1:$COLLECTOR_PORT/" \
	    -e "/^BIND_ADDRESS = /d" "$POOL/condor_config.common"
	pool_config "HOSTALLOW_WRITE = $NETPOOL_PREFIX.*"
}

# netpool_host NAME DAEMON_LIST [LINE...]: a host with its own namespace
# and address (the first one made is the central manager, .1).
netpool_host() {
	local name=$1 list=$2 ns n addr
	shift 2
	NETPOOL_N=$((NETPOOL_N + 1))
	n=$NETPOOL_N
	addr="$NETPOOL_PREFIX.$n"
	ns=$(netpool_ns "$name")
	NETPOOL_MADE+=("$ns")
	ip netns add "$ns" || { echo "FAIL ip netns add $ns"; exit 1; }
	ip link add "cv${NETPOOL_ID}h$n" type veth peer name "cv${NETPOOL_ID}s$n"
	ip link set "cv${NETPOOL_ID}h$n" netns "$ns"
	ip link set "cv${NETPOOL_ID}s$n" netns "$(netpool_ns switch)"
	ip -n "$ns" link set "cv${NETPOOL_ID}h$n" name eth0
	ip -n "$ns" addr add "$addr/24" dev eth0
	ip -n "$ns" link set lo up
	ip -n "$ns" link set eth0 up
	if [ "$NETPOOL_SWITCH" = user ]; then
		ip netns exec "$ns" ethtool -K eth0 tx off tso off gso off \
		    gro off >/dev/null 2>&1
		ip netns exec "$(netpool_ns switch)" ethtool -K \
		    "cv${NETPOOL_ID}s$n" tx off tso off gso off gro off \
		    >/dev/null 2>&1
	else
		ip -n "$(netpool_ns switch)" link set "cv${NETPOOL_ID}s$n" master br0
	fi
	ip -n "$(netpool_ns switch)" link set "cv${NETPOOL_ID}s$n" up
	NETPOOL_ADDR[$name]=$addr
	NETPOOL_PORT[$name]="cv${NETPOOL_ID}s$n"
	pool_host "$name" "$list" "BIND_ADDRESS = $addr" "$@"
}

# on HOST COMMAND...: a command in HOST's namespace, with its
# configuration.
on() {
	local host=$1
	shift
	nsenter --net="/run/netns/$(netpool_ns "$host")" \
	    env CONDOR_CONFIG="$POOL/$host/condor_config" "$@"
}

# The user-space switch, over every host made so far (pool_start
# starts it).
netpool_switch_start() {
	local h ports=()
	[ "$NETPOOL_SWITCH" = user ] && [ -z "$NETPOOL_SWITCH_PID" ] || return 0
	for h in "${!NETPOOL_PORT[@]}"; do ports+=("${NETPOOL_PORT[$h]}"); done
	ip netns exec "$(netpool_ns switch)" python3 "$TOP/tests/lib/netswitch.py" \
	    "$NETPOOL_RULES" "${ports[@]}" >"$POOL/netswitch.out" 2>&1 &
	NETPOOL_SWITCH_PID=$!
}

pool_start() {
	local h
	netpool_switch_start
	for h in "${POOL_HOSTS[@]}"; do
		pool_start_host "$h"
	done
}

# netpool_impair FROM TO DELAY_MS LOSS_PERCENT (user switch): frames
# from FROM to TO (host names, or * for any) delayed and dropped.
netpool_impair() {
	local f=${NETPOOL_PORT[$1]:-*} t=${NETPOOL_PORT[$2]:-*}
	[ "$1" = "*" ] && f="*"
	[ "$2" = "*" ] && t="*"
	echo "$f $t $3 $4" >>"$NETPOOL_RULES"
}
netpool_impair_clear() { : >"$NETPOOL_RULES"; }

# netpool_cut_pair A B (user switch): A and B no longer reach each
# other; both still reach everyone else.
netpool_cut_pair() {
	netpool_impair "$1" "$2" 0 100
	netpool_impair "$2" "$1" 0 100
}

pool_start_host() {
	local h=$1
	nsenter --net="/run/netns/$(netpool_ns "$h")" env \
	    CONDOR_CONFIG="$POOL/$h/condor_config" CONDOR_TEST_POOL="$POOL" \
	    "$RELEASE/sbin/condor_master" -f >"$POOL/$h/master.out" 2>&1 &
	POOL_MASTER_PID[$h]=$!
}

machine_count() {
	on "${POOL_HOSTS[0]}" condor_status -af Name 2>/dev/null | wc -l
}

pool_wait_machines() {
	local n=$1 limit=${2:-60}
	wait_for "$limit" bash -c "[ \$(nsenter --net=/run/netns/$(netpool_ns "${POOL_HOSTS[0]}") env CONDOR_CONFIG='$POOL/${POOL_HOSTS[0]}/condor_config' '$RELEASE/bin/condor_status' -af Name 2>/dev/null | wc -l) -ge $n ]"
}

# netpool_reaches FROM TO: can FROM open a TCP connection to TO's
# collector port... or any closed port: a refusal is an answer, silence
# is not.  0 if TO answered within two seconds.
netpool_reaches() {
	on "$1" python3 - "${NETPOOL_ADDR[$2]}" <<'EOF' >/dev/null 2>&1
import socket, sys
s = socket.socket()
s.settimeout(2)
try:
    s.connect((sys.argv[1], 9))
except ConnectionRefusedError:
    sys.exit(0)
except OSError:
    sys.exit(1)
sys.exit(0)
EOF
}

# netpool_cut HOST: drop every frame to or from HOST at the switch (a
# silent partition: no carrier lost, no error, nothing arrives).
netpool_cut() {
	ip netns exec "$(netpool_ns switch)" bridge link set \
	    dev "${NETPOOL_PORT[$1]}" state 0
}

netpool_heal() {
	ip netns exec "$(netpool_ns switch)" bridge link set \
	    dev "${NETPOOL_PORT[$1]}" state 3
}

# netpool_link_down HOST, netpool_link_up HOST: HOST's cable pulled and
# put back (its sends fail at once, its peers hear nothing).
netpool_link_down() { ip -n "$(netpool_ns "$1")" link set eth0 down; }
netpool_link_up() { ip -n "$(netpool_ns "$1")" link set eth0 up; }

netpool_cleanup() {
	local ns
	if [ -n "$NETPOOL_SWITCH_PID" ]; then
		kill "$NETPOOL_SWITCH_PID" 2>/dev/null
		wait "$NETPOOL_SWITCH_PID" 2>/dev/null
	fi
	for ns in "${NETPOOL_MADE[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
}
