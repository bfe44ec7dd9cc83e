#!/usr/bin/env bash
# A central manager and four execute hosts on loopback: machine ads reach
# the collector, condor_status reports them, owner activity and load turn
# a machine to Owner, the master restarts a killed daemon, condor_off and
# condor_on work, stale ads expire, condor_advertise feeds many ads, and
# hostile RPC traffic leaves the collector serving.
. "$(dirname "$0")/../lib/pool.sh"

pool_init
pool_config 'CLASSAD_LIFETIME = 8' \
	'START : KeyboardIdle > 20 && LoadAvg <= 0.3'
pool_host cm "MASTER, COLLECTOR"
for i in 1 2 3 4; do
	pool_host exec$i "MASTER, STARTD"
done
pool_start

check "four machines advertise" pool_wait_machines 4 60
status=$(on cm condor_status)
check "condor_status has the Condor 4 header" \
	grep -Eq '^Name +Avail +Swap +Disk +State +LdAvg +Idle +Arch +OpSys' <<<"$status"
for i in 1 2 3 4; do
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
	check "rpcinfo pings the collector" \
		rpcinfo -a "$(uaddr "$COLLECTOR_PORT")" -T tcp $((0x2c0d0001)) 1
	saddr=$(on cm condor_status -af StartdIpAddr -constraint 'Name == "exec1"')
	check "rpcinfo pings a startd" rpcinfo -a "$(uaddr "$saddr")" -T tcp $((0x2c0d0003)) 1
	maddr=$(cat "$POOL/exec1/log/.master_address")
	check "rpcinfo pings a master" rpcinfo -a "$(uaddr "$maddr")" -T tcp $((0x2c0d0002)) 1
fi

# The owner comes back to exec2 (its console is touched) and exec3 gets
# busy: both leave the processor bank.
touch "$POOL/exec2/tty"
echo "2.50 1.00 0.50 3/100 1" >"$POOL/exec3/loadavg"
state_is() { test "$(on cm condor_status -af State -constraint "Name == \"$1\"")" = "$2"; }
check "console activity turns exec2 to Owner" wait_for 20 state_is exec2 Owner
check "load turns exec3 to Owner" wait_for 20 state_is exec3 Owner
check "condor_status -avail lists only idle machines" \
	test "$(on cm condor_status -avail -af Name | sort | tr '\n' ' ')" = "exec1 exec4 "
echo "0.00 0.00 0.00 1/100 1" >"$POOL/exec3/loadavg"
check "exec3 returns to Idle when the load drops" wait_for 20 state_is exec3 Idle
tot=$(on cm condor_status -total)
check "condor_status -total counts by state" grep -Eq 'Total +4 +1 +3' <<<"$tot"

# The master restarts a daemon that dies.
startd_pid() { sed -n 's/.*started STARTD .*pid \([0-9]*\).*/\1/p' "$POOL/exec4/log/MasterLog" | tail -1; }
old=$(startd_pid)
kill -KILL "$old"
restarted() { local p; p=$(startd_pid); [ -n "$p" ] && [ "$p" != "$old" ] && kill -0 "$p"; }
check "the master restarts a killed startd" wait_for 30 restarted
check "the restart is logged with its back-off" grep -q "restarting STARTD in" "$POOL/exec4/log/MasterLog"

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

# SIGHUP makes the master and its daemons re-read the configuration.
kill -HUP "${POOL_MASTER_PID[exec1]}"
check "SIGHUP is passed on" wait_for 10 grep -q "re-reading the configuration" "$POOL/exec1/log/StartLog"

# Stopping the pool stops every daemon it started.
pids=$(sed -n 's/.*started [A-Z]* .*pid \([0-9]*\).*/\1/p' "$POOL"/*/log/MasterLog)
pool_stop
alive=0
for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
check "SIGTERM to the masters stops every daemon" test $alive = 0
