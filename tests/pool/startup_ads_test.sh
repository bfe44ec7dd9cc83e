#!/usr/bin/env bash
# No ad is lost at start-up: with updates every 300 s, execute hosts
# started before their central manager still appear within seconds (a
# daemon's first ad is repeated until the collector acknowledges it; one
# that advertises over TCP, polling its machine only every 60 s, tries
# its failed update again as soon), and
# a collector SIGKILLed and restarted by its master is full again within
# seconds (it remembers where the ads came from, in
# $(SPOOL)/collector_peers, and asks those daemons to advertise again).
# The time limits are generous liveness bounds, far below the interval.
# checks: 7
. "$(dirname "$0")/../lib/pool.sh"

N=3
pool_init
pool_config 'STARTD_UPDATE_INTERVAL = 300' 'MASTER_UPDATE_INTERVAL = 300' \
	'SCHEDD_INTERVAL = 300' 'CLASSAD_LIFETIME = 900'
pool_host cm "MASTER, COLLECTOR"
for i in $(seq $N); do
	pool_host exec$i "MASTER, STARTD"
done
pool_host tcp1 "MASTER, STARTD" 'UPDATE_COLLECTOR_WITH_TCP = True' \
	'POLLING_INTERVAL = 60'

# The execute hosts first: their startds send their first ads while no
# collector listens.
for h in $(seq -f exec%g $N) tcp1; do
	pool_start_host $h
done
for h in $(seq -f exec%g $N) tcp1; do
	wait_for 30 test -s "$POOL/$h/log/.startd_address"
done
check "the startds run before any collector" \
	test "$(ls "$POOL"/*/log/.startd_address | wc -l)" = $((N + 1))
sleep 1	# their first ads are out (and lost)
pool_start_host cm
# machines_named PATTERN: how many machine ads have a Name matching it.
machines_named() {
	on cm condor_status -af Name 2>/dev/null | grep -c "$1"
}
check "condor_status shows the $N machines after polling for up to 20 s" \
	wait_for 20 eval '[ $(machines_named ^exec) -ge $N ]'
check "and the one advertising over TCP (up to 20 s more)" \
	wait_for 20 eval '[ $(machines_named ^tcp1) -ge 1 ]'
check "the startds' first ads were repeated until acknowledged" \
	grep -q "the collector has our Machine ad (sent" "$POOL/exec1/log/StartLog"

# The collector remembers its daemons' addresses (one per daemon: the
# startds and the masters).
peers="$POOL/cm/spool/collector_peers"
check "the collector lists its daemons in its spool" \
	wait_for 30 bash -c "[ \$(wc -l <'$peers' 2>/dev/null || echo 0) -ge $((2 * N + 1)) ]"

collector_pid() {
	local p
	for p in $(pool_pids); do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null |
		    grep -q '^[^ ]*/condor_collector ' && echo "$p"
	done
}
old=$(collector_pid)
kill -KILL $old
new=
for _ in $(seq 150); do
	new=$(collector_pid)
	[ -n "$new" ] && [ "$new" != "$old" ] && break
	sleep 0.2
done
check "a new collector runs ($old -> ${new:-none})" \
	test -n "$new" -a "$new" != "$old"
# (The host advertising over TCP is not asked: it is back at its next
# update.)
check "the restarted collector shows the $N machines again within 30 s" \
	wait_for 30 eval '[ $(machines_named ^exec) -ge $N ]'
