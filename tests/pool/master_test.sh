#!/usr/bin/env bash
# tests/pool/master_test.sh: the master's own behaviour, with ads that
# live for ten minutes so that only an invalidation can take one away:
# condor_off withdraws the startd's ad at once; MASTER_RECONFIG and
# MASTER_SHUTDOWN work for a caller in HOSTALLOW_WRITE and are refused
# (and logged) for one outside it; a daemon that keeps dying is restarted
# after back-offs that grow by MASTER_BACKOFF_FACTOR up to
# MASTER_BACKOFF_CEILING, and start again from MASTER_BACKOFF_CONSTANT
# once it has stayed up MASTER_RECOVER_FACTOR seconds; a SIGHUP after
# DAEMON_LIST changed starts the daemon added and stops the one removed,
# also one waiting to be restarted, and starts it again when it returns.
#
# checks: 44
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
pool_config 'CLASSAD_LIFETIME = 600' 'RPC_TIMEOUT = 5'
pool_host cm "MASTER, COLLECTOR"
pool_host exec1 "MASTER, STARTD" 'MASTER_BACKOFF_CONSTANT = 1' \
	'MASTER_BACKOFF_FACTOR = 2' 'MASTER_BACKOFF_CEILING = 4' \
	'MASTER_RECOVER_FACTOR = 1000'
pool_host exec2 "MASTER, STARTD"
pool_start

rpc() { python3 "$TOP/tests/lib/rpccall.py" "$@"; }
PROG_COLLECTOR=0x2c0d0001
PROG_MASTER=0x2c0d0002
MASTER_RECONFIG=3
MASTER_SHUTDOWN=4
ADTYPE_MASTER=3
listed() { on cm condor_status -af Name | grep -qx "$1"; }
unlisted() { ! listed "$1"; }
# Number of master ads named $1 in the collector.
master_ads() {
	rpc "127.0.0.1:$COLLECTOR_PORT" $PROG_COLLECTOR 1 2 \
	    i:$ADTYPE_MASTER "s:Name == \"$1\"" s:Name | awk '{print $NF}'
}
# hup HOST: SIGHUP to HOST's master, and wait until it has taken it.
hup() {
	local n
	n=$(grep -c "caught SIGHUP" "$POOL/$1/log/MasterLog")
	kill -HUP "${POOL_MASTER_PID[$1]}"
	wait_for 20 bash -c "[ \$(grep -c 'caught SIGHUP' '$POOL/$1/log/MasterLog') -gt $n ]"
}
# The pid of the last NAME the master of HOST started.
started_pid() {
	sed -n "s/.*started $2 .*pid \([0-9]*\).*/\1/p" \
	    "$POOL/$1/log/MasterLog" | tail -1
}

check "two machines advertise" pool_wait_machines 2 60
has_master_ad() { test "$(master_ads "$1")" = 1; }
check "the masters advertise" wait_for 20 has_master_ad exec2

# 1. condor_off: the startd withdraws its ad; with CLASSAD_LIFETIME at
# ten minutes nothing else could take it away within the wait.
check "condor_off exec1" on cm condor_off exec1
check "exec1's ad is withdrawn at once" wait_for 20 unlisted exec1
check "the collector logs the invalidation" \
	grep -q "ad of exec1 invalidated" "$POOL/cm/log/CollectorLog"
check "the startd logs it" grep -q "ad withdrawn from the collector" \
	"$POOL/exec1/log/StartLog"
check "condor_on exec1" on cm condor_on exec1
check "exec1 is back" wait_for 20 listed exec1

# 2. Back-off: four quick deaths of exec1's startd are restarted after
# 1, 2, 4 and 4 seconds (the ceiling), in that order.
for round in 1 2 3 4; do
	p=$(started_pid exec1 STARTD)
	kill -KILL "$p"
	restarted() { local n; n=$(started_pid exec1 STARTD);
		[ -n "$n" ] && [ "$n" != "$p" ]; }
	wait_for 30 restarted || break
done
delays=$(sed -n 's/.*restarting STARTD in \([0-9]*\) s.*/\1/p' \
    "$POOL/exec1/log/MasterLog" | tr '\n' ' ')
check "back-offs grow by the factor up to the ceiling ($delays)" \
	test "$delays" = "1 2 4 4 "
deaths=$(grep -c "STARTD (pid [0-9]*) died on signal 9" \
    "$POOL/exec1/log/MasterLog")
check "each death is logged ($deaths)" test "$deaths" = 4
# Each restart comes after its death and its back-off, never before.
order=$(grep -o -e "died on signal 9" -e "restarting STARTD in" \
    -e "started STARTD" "$POOL/exec1/log/MasterLog" |
    sed -n '/^died/,$p' |
    sed 's/ in$//;s/ 9$//' | tr '\n' ',')
want=$(for i in 1 2 3 4; do printf 'died on signal,restarting STARTD,started STARTD,'; done)
check "death, back-off, restart, in that order" test "$order" = "$want"

# Recovery: with MASTER_RECOVER_FACTOR = 1, a startd that ran longer
# than that is restarted after MASTER_BACKOFF_CONSTANT again.
echo 'MASTER_RECOVER_FACTOR = 1' >>"$POOL/exec1/condor_config.local"
hup exec1
p=$(started_pid exec1 STARTD)
sleep 2.5	# outlive the recover factor (1 s, counted in whole seconds)
kill -KILL "$p"
wait_for 30 restarted
delays=$(sed -n 's/.*restarting STARTD in \([0-9]*\) s.*/\1/p' \
    "$POOL/exec1/log/MasterLog" | tr '\n' ' ')
check "a recovered daemon starts over from the constant ($delays)" \
	test "$delays" = "1 2 4 4 1 "

# 3. MASTER_RECONFIG, signed with the pool key (as an administrator
# holding it calls), from a host outside HOSTALLOW_WRITE (127.0.0.2 is
# loopback, but not listed): refused and logged; from 127.0.0.1: the
# daemons re-read their configuration.
maddr=$(cat "$POOL/exec2/log/.master_address")
hups() { grep -c "re-reading the configuration" "$POOL/exec2/log/StartLog"; }
h0=$(hups)
echo 'START : FALSE' >>"$POOL/exec2/condor_config.local"
out=$(rpc -s 127.0.0.2 -k "$POOL/pool_key" "$maddr" $PROG_MASTER 1 $MASTER_RECONFIG)
check "MASTER_RECONFIG from 127.0.0.2 is refused (EPERM) ($out)" \
	test "${out%% \'*}" = "0 1"
check "... and logged" grep -q "request from 127.0.0.2 refused (HOSTALLOW_WRITE)" \
	"$POOL/exec2/log/MasterLog"
sleep 1
check "... and nothing is re-read" test "$(hups)" = "$h0"
out=$(rpc -k "$POOL/pool_key" "$maddr" $PROG_MASTER 1 $MASTER_RECONFIG)
check "MASTER_RECONFIG from 127.0.0.1 succeeds ($out)" test "${out%% \'*}" = "0 0"
more_hups() { [ "$(hups)" -gt "$h0" ]; }
check "the startd re-reads its configuration" wait_for 20 more_hups
start_false() { test "$(on cm condor_status -af START -constraint 'Name == "exec2"')" = false; }
check "exec2 advertises its new START" wait_for 20 start_false
sed -i '/^START : FALSE$/d' "$POOL/exec2/condor_config.local"

# 4. DAEMON_LIST changed, then SIGHUP: a daemon added is started, one
# removed is stopped, and one put back is started again.
sed -i 's/^DAEMON_LIST = .*/DAEMON_LIST = MASTER, STARTD, SCHEDD/' \
    "$POOL/exec2/condor_config.local"
hup exec2
check "SCHEDD added to DAEMON_LIST is started" wait_for 20 \
	grep -q "started SCHEDD" "$POOL/exec2/log/MasterLog"
schedd_up() { test "$(on exec2 condor_status -submitters -af Name)" = exec2; }
check "... and its schedd advertises" wait_for 20 schedd_up
sp=$(started_pid exec2 STARTD)
sed -i 's/^DAEMON_LIST = .*/DAEMON_LIST = MASTER, SCHEDD/' \
    "$POOL/exec2/condor_config.local"
hup exec2
check "STARTD removed from DAEMON_LIST is stopped" wait_for 20 \
	bash -c "! kill -0 $sp 2>/dev/null"
check "... as the MasterLog says" \
	grep -q "STARTD left DAEMON_LIST; stopping it" "$POOL/exec2/log/MasterLog"
check "... and its machine leaves the pool" wait_for 20 unlisted exec2
sed -i 's/^DAEMON_LIST = .*/DAEMON_LIST = MASTER, SCHEDD, STARTD/' \
    "$POOL/exec2/condor_config.local"
hup exec2
back() { local n; n=$(started_pid exec2 STARTD); [ -n "$n" ] && [ "$n" != "$sp" ]; }
check "STARTD put back into DAEMON_LIST is started again" wait_for 20 back
check "... and its machine returns" wait_for 20 listed exec2

# A daemon waiting out its back-off when it leaves DAEMON_LIST is not
# restarted: the master's ad shows it stopped, not restarting.
echo 'MASTER_BACKOFF_CONSTANT = 3600' >>"$POOL/exec2/condor_config.local"
hup exec2
kill -KILL "$(started_pid exec2 STARTD)"
check "a killed startd waits out its back-off" wait_for 20 \
	grep -q "restarting STARTD in 3600 s" "$POOL/exec2/log/MasterLog"
sed -i 's/^DAEMON_LIST = .*/DAEMON_LIST = MASTER, SCHEDD/' \
    "$POOL/exec2/condor_config.local"
hup exec2
startd_stopped() {
	test "$(rpc "127.0.0.1:$COLLECTOR_PORT" $PROG_COLLECTOR 1 2 \
	    i:$ADTYPE_MASTER \
	    's:Name == "exec2" && Daemons == "STARTD=stopped SCHEDD=running"' \
	    s:Name | awk '{print $NF}')" = 1
}
check "removed while waiting: the master's ad says STARTD=stopped" \
	wait_for 20 startd_stopped
check "... as the MasterLog says" grep -q \
	"STARTD left DAEMON_LIST; not restarting it" "$POOL/exec2/log/MasterLog"
sed -i 's/^DAEMON_LIST = .*/DAEMON_LIST = MASTER, SCHEDD, STARTD/' \
    "$POOL/exec2/condor_config.local"
sed -i '/^MASTER_BACKOFF_CONSTANT = 3600$/d' "$POOL/exec2/condor_config.local"
n0=$(grep -c "started STARTD" "$POOL/exec2/log/MasterLog")
hup exec2
more_starts() { [ "$(grep -c "started STARTD" "$POOL/exec2/log/MasterLog")" -gt "$n0" ]; }
check "... and put back it starts at once" wait_for 20 more_starts

# A SIGHUP the master passes on just after starting a daemon (here
# while a wrapper still sleeps before it execs the startd) waits for
# the daemon's handler: the daemon re-reads its configuration, it does
# not die of it.
printf '#!/usr/bin/env bash\nsleep 2\nexec "%s" "$@"\n' \
    "$RELEASE/sbin/condor_startd" >"$POOL/slow_startd"
chmod +x "$POOL/slow_startd"
echo "STARTD = $POOL/slow_startd" >>"$POOL/exec1/condor_config.local"
hup exec1
p=$(started_pid exec1 STARTD)
kill -KILL "$p"
check "the startd is restarted through the wrapper" wait_for 30 restarted
p=$(started_pid exec1 STARTD)
hup exec1
hup_caught() { grep -q "\[$p\] caught SIGHUP" "$POOL/exec1/log/StartLog"; }
check "a SIGHUP right after the start reaches the daemon's handler" \
	wait_for 30 hup_caught
check "... and does not kill it" \
	bash -c "kill -0 $p && ! grep -q 'died on signal 1\$' $POOL/exec1/log/MasterLog"

# 5. MASTER_SHUTDOWN: refused from 127.0.0.2; from 127.0.0.1 the master
# stops its daemons, withdraws its own ad and exits.
out=$(rpc -s 127.0.0.2 -k "$POOL/pool_key" "$maddr" $PROG_MASTER 1 $MASTER_SHUTDOWN)
check "MASTER_SHUTDOWN from 127.0.0.2 is refused (EPERM) ($out)" \
	test "${out%% \'*}" = "0 1"
sleep 1
check "... and the master stays" kill -0 "${POOL_MASTER_PID[exec2]}"
check "... and its daemons too" kill -0 "$(started_pid exec2 SCHEDD)"
refusals=$(grep -c "request from 127.0.0.2 refused" "$POOL/exec2/log/MasterLog")
check "both refusals are logged ($refusals)" test "$refusals" = 2
check "exec2's master ad is there" test "$(master_ads exec2)" = 1
exec2_pids="$(started_pid exec2 STARTD) $(started_pid exec2 SCHEDD)"
# Unsigned, it needs ADMINISTRATOR and is refused before anything else.
out=$(rpc "$maddr" $PROG_MASTER 1 $MASTER_SHUTDOWN)
check "an unsigned MASTER_SHUTDOWN is refused as too weak ($out)" \
	test "$out" = "denied 5"
out=$(rpc -k "$POOL/pool_key" "$maddr" $PROG_MASTER 1 $MASTER_SHUTDOWN)
check "MASTER_SHUTDOWN from 127.0.0.1 succeeds ($out)" test "${out%% \'*}" = "0 0"
check "the master exits" wait_for 30 \
	bash -c "! kill -0 ${POOL_MASTER_PID[exec2]} 2>/dev/null"
wait "${POOL_MASTER_PID[exec2]}" 2>/dev/null
unset "POOL_MASTER_PID[exec2]"
alive=0
for p in $exec2_pids; do kill -0 "$p" 2>/dev/null && alive=1; done
check "its daemons are stopped" test $alive = 0
check "its master ad is withdrawn" test "$(master_ads exec2)" = 0
check "its machine ad is withdrawn" unlisted exec2
check "the other host is untouched" listed exec1
