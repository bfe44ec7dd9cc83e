#!/usr/bin/env bash
# A central manager and five execute hosts on loopback: machine ads reach
# the collector, condor_status reports them, owner activity and load turn
# a machine to Owner, the master restarts a killed daemon, condor_off and
# condor_on work, stale ads expire, condor_advertise feeds many ads, and
# hostile RPC traffic leaves the collector serving.
#
# checks: 62
. "$(dirname "$0")/../lib/pool.sh"

pool_init
# Updates gather for up to 2 s while no one looks (COLLECTOR_UPDATE_GATHER):
# every query must still see every update sent before it.
pool_config 'CLASSAD_LIFETIME = 8' 'COLLECTOR_UPDATE_GATHER = 2' \
	'START : KeyboardIdle > 20 && LoadAvg <= 0.3'
pool_host cm "MASTER, COLLECTOR"
for i in 1 2 3 4 5; do
	pool_host exec$i "MASTER, STARTD"
done

# A portmapper is not needed, but when one runs the collector registers
# with it, and plain "rpcinfo -n PORT -t" (which on Debian asks the
# portmapper whatever -n says) then answers too.
RPCBIND_PID=
if [ -x /usr/sbin/rpcbind ] && ! rpcinfo -p 127.0.0.1 >/dev/null 2>&1; then
	mkdir -p /run/rpcbind
	rm -f /run/rpcbind.sock	# left by a portmapper that died
	/usr/sbin/rpcbind -w -f &
	RPCBIND_PID=$!
	wait_for 10 test -S /run/rpcbind.sock
fi
stop_rpcbind() {
	[ -n "$RPCBIND_PID" ] || return 0
	kill -TERM "$RPCBIND_PID" 2>/dev/null
	wait "$RPCBIND_PID" 2>/dev/null
	rm -f /run/rpcbind.sock
	RPCBIND_PID=
}
trap 'stop_rpcbind; pool_cleanup' EXIT
pool_start

check "five machines advertise" pool_wait_machines 5 60
status=$(on cm condor_status)
check "condor_status has the Condor 4 header" \
	grep -Eq '^Name +Avail +Swap +Disk +State +LdAvg +Idle +Arch +OpSys' <<<"$status"
for i in 1 2 3 4 5; do
	check "condor_status lists exec$i" grep -q "^exec$i " <<<"$status"
done
check "machines are Idle at first" \
	test "$(on cm condor_status -af State | sort -u)" = Idle
check "Arch and OpSys" \
	test "$(on cm condor_status -af Arch OpSys | sort -u)" = "X86_64 LINUX"

# Procedure 0 answers rpcinfo on the collector and on a startd, at the
# daemon's own port: no portmapper runs.  (Debian's rpcinfo ignores -n
# for -t and asks rpcbind anyway; -a with a universal address does not.)
uaddr() { local port=${1##*:}; port=${port%>}; echo "127.0.0.1.$((port / 256)).$((port % 256))"; }
if command -v rpcinfo >/dev/null; then
	check "rpcinfo pings the collector at its port" \
		rpcinfo -a "$(uaddr "$COLLECTOR_PORT")" -T tcp $((0x2c0d0001)) 1
	if [ -n "$RPCBIND_PID" ] || rpcinfo -p 127.0.0.1 >/dev/null 2>&1; then
		check "rpcinfo -n PORT -t answers for the collector" \
			rpcinfo -n "$COLLECTOR_PORT" -t 127.0.0.1 $((0x2c0d0001)) 1
	else
		skip "rpcinfo -n PORT -t answers for the collector" \
			"no portmapper runs and /usr/sbin/rpcbind is missing"
	fi
	saddr=$(on cm condor_status -af StartdIpAddr -constraint 'Name == "exec1"')
	check "rpcinfo pings a startd" rpcinfo -a "$(uaddr "$saddr")" -T tcp $((0x2c0d0003)) 1
	maddr=$(cat "$POOL/exec1/log/.master_address")
	check "rpcinfo pings a master" rpcinfo -a "$(uaddr "$maddr")" -T tcp $((0x2c0d0002)) 1
else
	for c in "rpcinfo pings the collector at its port" \
	    "rpcinfo -n PORT -t answers for the collector" \
	    "rpcinfo pings a startd" "rpcinfo pings a master"; do
		skip "$c" "no rpcinfo (make test-deps installs rpcbind)"
	done
fi

# The owner comes back to exec2 (its console is touched) and exec3 gets
# busy: both leave the processor bank.
touch "$POOL/exec2/tty"
echo "2.50 1.00 0.50 3/100 1" >"$POOL/exec3/loadavg"
state_is() { test "$(on cm condor_status -af State -constraint "Name == \"$1\"")" = "$2"; }
check "console activity turns exec2 to Owner" wait_for 20 state_is exec2 Owner
check "load turns exec3 to Owner" wait_for 20 state_is exec3 Owner
check "condor_status -avail lists only idle machines" \
	test "$(on cm condor_status -avail -af Name | sort | tr '\n' ' ')" = "exec1 exec4 exec5 "
check "condor_status -af Name State is right" \
	test "$(on cm condor_status -af Name State | sort | tr '\n' ' ')" = "exec1 Idle exec2 Owner exec3 Owner exec4 Idle exec5 Idle "
echo "0.00 0.00 0.00 1/100 1" >"$POOL/exec3/loadavg"
check "exec3 returns to Idle when the load drops" wait_for 20 state_is exec3 Idle
tot=$(on cm condor_status -total)
check "condor_status -total counts by state" grep -Eq 'Total +5 +1 +4' <<<"$tot"

# The master restarts a daemon that dies.
startd_pid() { sed -n 's/.*started STARTD .*pid \([0-9]*\).*/\1/p' "$POOL/exec4/log/MasterLog" | tail -1; }
old=$(startd_pid)
kill -KILL "$old"
restarted() { local p; p=$(startd_pid); [ -n "$p" ] && [ "$p" != "$old" ] && kill -0 "$p"; }
check "the master restarts a killed startd" wait_for 30 restarted
check "the restart is logged with its back-off" grep -q "restarting STARTD in" "$POOL/exec4/log/MasterLog"
check "the restarted startd's machine is back" wait_for 20 bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af Name | grep -qx exec4"

# Changing START in a host's local configuration and sending SIGHUP
# changes what the host advertises.
echo 'START : FALSE' >>"$POOL/exec1/condor_config.local"
kill -HUP "${POOL_MASTER_PID[exec1]}"
start_is_false() { test "$(on cm condor_status -af START -constraint 'Name == "exec1"')" = "false"; }
check "SIGHUP: exec1 advertises its new START" wait_for 20 start_is_false
check "SIGHUP: exec1 becomes Owner under START : FALSE" wait_for 20 state_is exec1 Owner
sed -i '/^START : FALSE$/d' "$POOL/exec1/condor_config.local"
kill -HUP "${POOL_MASTER_PID[exec1]}"
check "SIGHUP again: exec1 returns to Idle" wait_for 20 state_is exec1 Idle

# condor_off and condor_on, by host name through the collector.
check "condor_off exec1" on cm condor_off exec1
gone() { ! on cm condor_status -af Name | grep -qx exec1; }
check "exec1's machine leaves the pool" wait_for 20 gone
check "condor_on exec1" on cm condor_on exec1
check "exec1 comes back" wait_for 20 bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af Name | grep -qx exec1"
check "condor_off of an unknown host fails" bash -c "! CONDOR_CONFIG=$POOL/cm/condor_config condor_off nosuchhost 2>/dev/null"

# A host that stops talking is forgotten after CLASSAD_LIFETIME.
p4=$(startd_pid)
kill -STOP "$p4"
expired() { ! on cm condor_status -af Name | grep -qx exec4; }
check "a silent machine's ad expires" wait_for 30 expired
kill -CONT "$p4"
check "it comes back when it talks again" wait_for 20 bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af Name | grep -qx exec4"

# condor_advertise: a thousand machines in one file.
python3 - "$POOL/ads" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1000):
        f.write(f'Name = "fake{i:04d}"\nArch = "X86_64"\nOpSys = "LINUX"\n'
                f'State = "Idle"\nMemory = {1024 + i}\nDisk = 1000000\n'
                f'LoadAvg = 0.0\nKeyboardIdle = 3600\n\n')
PY
check "condor_advertise sends 1000 ads" on cm condor_advertise "$POOL/ads"
check "the collector answers a constraint over them" \
	test "$(on cm condor_status -af Name -constraint 'Memory >= 2000 && Disk == 1000000' | wc -l)" = 24
printf 'Name = "bad"\nMemory = (1 +\n' >"$POOL/bad.ads"
check "condor_advertise rejects a bad file with its line" \
	bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_advertise $POOL/bad.ads 2>&1 | grep -q 'line 2'"

# Hostile traffic does not stop the collector.
python3 "$TOP/tests/lib/rpcfuzz.py" 127.0.0.1 "$COLLECTOR_PORT" 0x2c0d0001 300 7 >/dev/null
check "the collector survives hostile RPC traffic" \
	bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af Name | grep -qx exec1"

# Periodic ads come as UDP datagrams (UPDATE_COLLECTOR_WITH_TCP is
# false): the collector counts them, and no daemon keeps a TCP
# connection to it (established sockets on its port in /proc/net/tcp).
updates() { on cm condor_status -af UpdatesTotal -constraint "Name == \"$1\""; }
more_updates() { [ "$(updates exec2)" -gt "$1" ]; }
u0=$(updates exec2)
check "the startds' updates arrive, counted in UpdatesTotal" \
	wait_for 20 more_updates "${u0:-0}"
port_hex=$(printf '%04X' "${COLLECTOR_PORT##*:}")
tcp_conns() { awk -v p=":$port_hex" 'substr($2, length($2) - 4) == p && $4 == "01"' /proc/net/tcp | wc -l; }
check "no daemon keeps a TCP connection to the collector" test "$(tcp_conns)" = 0
cport=${COLLECTOR_PORT##*:}
udp() { python3 "$TOP/tests/lib/udpupdate.py" "$@"; }
# STARTD_ATTRS: settings advertised as written; one of them makes exec3's
# ad too big for a datagram, so it goes over TCP.  Bad entries are
# logged and left out.
big=$(head -c 9000 /dev/zero | tr '\0' x)
cat >>"$POOL/exec3/condor_config.local" <<EOF2
HasMatlab = True
Department = "physics"
Big = "$big"
Broken = (1 +
TotalCpus = 1000
STARTD_ATTRS = HasMatlab, Department Big, Broken, TotalCpus, Unset
EOF2
kill -HUP "${POOL_MASTER_PID[exec3]}"
has_matlab() { test "$(on cm condor_status -af Name -constraint 'HasMatlab && Department == "physics"')" = exec3; }
check "STARTD_ATTRS: the settings are in the machine ad" wait_for 20 has_matlab
check "an ad too big for a datagram goes over TCP and arrives whole" \
	test "$(on cm condor_status -af Big -constraint 'Name == "exec3"' | tr -d '\n' | wc -c)" = 9000
for what in "Broken = (1 +" "TotalCpus is the startd's own" "Unset is not set"; do
	check "STARTD_ATTRS: logged and left out: $what" grep -qF "STARTD_ATTRS: $what" "$POOL/exec3/log/StartLog"
done
check "STARTD_ATTRS cannot replace the startd's own TotalCpus" \
	test "$(on cm condor_status -af TotalCpus -constraint 'Name == "exec3"')" != 1000
sed -i '/^HasMatlab\|^Department\|^Big\|^Broken\|^TotalCpus\|^STARTD_ATTRS/d' "$POOL/exec3/condor_config.local"
kill -HUP "${POOL_MASTER_PID[exec3]}"
no_matlab() { local out; out=$(on cm condor_status -af Name -constraint 'HasMatlab =?= true') && test -z "$out"; }
check "STARTD_ATTRS: gone again after SIGHUP" wait_for 20 no_matlab

# An unsigned update needs DAEMON (the pool key): refused and logged.
udp 127.0.0.1 "$cport" 'Name = "udp0"' 'State = "Idle"'
check "an unsigned update datagram is refused and logged" \
	wait_for 10 grep -q "COLLECTOR_UPDATE from 127.0.0.1 (unauthenticated) refused" \
	"$POOL/cm/log/CollectorLog"
check "... and its ad is not stored" bash -c "! CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af Name | grep -qx udp0"
# The rest are signed with the pool key, as the daemons sign them.
udp() { python3 "$TOP/tests/lib/udpupdate.py" -k "$POOL/pool_key" "$@"; }
udp 127.0.0.1 "$cport" 'Name = "udp1"' 'State = "Idle"' 'UpdateSequenceNumber = 1'
udp_there() { on cm condor_status -af Name | grep -qx udp1; }
check "an update datagram is taken" wait_for 10 udp_there
udp 127.0.0.1 "$cport" 'Name = "udp1"' 'State = "Idle"' 'UpdateSequenceNumber = 5'
lost3() { test "$(on cm condor_status -af UpdatesTotal UpdatesLost -constraint 'Name == "udp1"')" = "2 3"; }
check "updates missing from the sequence count as lost" wait_for 10 lost3
udp 127.0.0.1 "$cport" 'Name = "udp1"' 'State = "Idle"' 'UpdateSequenceNumber = 1'
restarted_seq() { test "$(on cm condor_status -af UpdatesTotal UpdatesLost -constraint 'Name == "udp1"')" = "3 3"; }
check "a smaller sequence number (a restart) loses nothing" wait_for 10 restarted_seq
udp 127.0.0.1 "$cport" 'Name = "udp3"' 'State = "Idle"'
udp 127.0.0.1 "$cport" 'Name = "udp3"' 'State = "Claimed"'
check "a query sees the update sent just before it, gathered or not" \
	test "$(on cm condor_status -af State -constraint 'Name == "udp3"')" = Claimed
udp -s 127.0.0.2 127.0.0.1 "$cport" 'Name = "udp2"' 'State = "Idle"'
check "a datagram from a host not in HOSTALLOW_WRITE is refused and logged" \
	wait_for 10 grep -q "update from 127.0.0.2 refused" "$POOL/cm/log/CollectorLog"
check "... and its ad is not stored" bash -c "! CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af Name | grep -qx udp2"
check "a query over UDP is refused (PROC_UNAVAIL)" \
	test "$(udp -p 2 127.0.0.1 "$cport")" = 3
check "the null procedure answers over UDP" \
	test "$(udp -p 0 127.0.0.1 "$cport")" = 0
python3 "$TOP/tests/lib/rpcfuzz.py" -u 127.0.0.1 "$cport" 0x2c0d0001 300 9 >/dev/null
check "the collector survives hostile datagrams" \
	bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af Name | grep -qx exec1"
u1=$(updates exec2)
check "... and still takes the startds' datagrams" wait_for 20 more_updates "${u1:-0}"

check "SIGHUP is passed on to the daemons" grep -q "re-reading the configuration" "$POOL/exec1/log/StartLog"

# A host whose master and daemons stop (a crash: nothing says goodbye)
# drops out of the collector once its ad's lifetime has passed, and
# comes back when its master is started again.
m5=${POOL_MASTER_PID[exec5]}
s5=$(sed -n 's/.*started STARTD .*pid \([0-9]*\).*/\1/p' "$POOL/exec5/log/MasterLog" | tail -1)
kill -KILL "$m5" "$s5"
wait "$m5" 2>/dev/null
unset "POOL_MASTER_PID[exec5]"
gone5() { ! on cm condor_status -af Name | grep -qx exec5; }
check "a dead host is still listed before its ad expires" bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af Name | grep -qx exec5"
check "a dead host drops out after CLASSAD_LIFETIME" wait_for 30 gone5
pool_start_host exec5
check "the host comes back with its master" wait_for 30 bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af Name | grep -qx exec5"

# Stopping the pool stops every daemon it started.
pids=$(sed -n 's/.*started [A-Z]* .*pid \([0-9]*\).*/\1/p' "$POOL"/*/log/MasterLog)
pool_stop
alive=0
for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
check "SIGTERM to the masters stops every daemon" test $alive = 0
