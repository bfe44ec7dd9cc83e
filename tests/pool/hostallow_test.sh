#!/usr/bin/env bash
# tests/pool/hostallow_test.sh: HOSTALLOW_READ at every daemon that
# answers queries (collector: ads and pool history; negotiator:
# priorities; startd: its machine ad; schedd: its queue).  A query from
# 127.0.0.2 (loopback, but not in HOSTALLOW_READ = 127.0.0.1) is refused
# with EPERM and logged by the daemon; the same query from 127.0.0.1 is
# answered; once the list names 127.0.0.2 too (SIGHUP) it is answered
# from there as well.  An invalidation from outside HOSTALLOW_WRITE is
# refused and logged at the collector.
#
# checks: 28
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
pool_config 'HOSTALLOW_READ = 127.0.0.1' 'COLLECTOR_HISTORY_INTERVAL = 1'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD"
pool_start

rpc() { python3 "$TOP/tests/lib/rpccall.py" "$@"; }
LOG=$POOL/cm/log
check "the machine advertises" pool_wait_machines 1 60
for d in negotiator schedd startd; do
	wait_for 30 test -s "$LOG/.${d}_address"
done
collector="127.0.0.1:$COLLECTOR_PORT"
negotiator=$(cat "$LOG/.negotiator_address")
schedd=$(cat "$LOG/.schedd_address")
startd=$(cat "$LOG/.startd_address")

# One query of each daemon: NAME LOG ADDRESS PROGRAM PROC ARG...
queries=(
	"collector|CollectorLog|$collector|0x2c0d0001|2|i:1 s: s:"
	"collector history|CollectorLog|$collector|0x2c0d0001|5|h:0 h:0 i:10"
	"negotiator|NegotiatorLog|$negotiator|0x2c0d0005|2|"
	"startd|StartLog|$startd|0x2c0d0003|1|"
	"schedd|SchedLog|$schedd|0x2c0d0004|2|s: i:0"
)
# code FROM ADDRESS PROGRAM PROC ARG...: the code the daemon answers
# ("accept_stat code"; "0 1" is EPERM).
code() {
	local from=$1
	shift
	rpc -s "$from" "$@" | awk '{print $1, $2}'
}
answered() { test "$(code "$@")" = "0 0"; }
# The startd's ad comes after its first sample.
wait_for 20 answered 127.0.0.1 "$startd" 0x2c0d0003 1

for q in "${queries[@]}"; do
	IFS='|' read -r name log addr prog proc args <<<"$q"
	# shellcheck disable=SC2086
	out=$(code 127.0.0.2 "$addr" "$prog" 1 "$proc" $args)
	check "$name: a query from 127.0.0.2 is refused with EPERM ($out)" \
		test "$out" = "0 1"
	# shellcheck disable=SC2086
	out=$(code 127.0.0.1 "$addr" "$prog" 1 "$proc" $args)
	check "$name: the same query from 127.0.0.1 is answered ($out)" \
		test "$out" = "0 0"
done
# Each refusal is in its daemon's log, naming the caller.
check "collector: the refused query is logged" \
	grep -q "query from 127.0.0.2 refused (HOSTALLOW_READ)" "$LOG/CollectorLog"
check "collector: the refused history query is logged" \
	grep -q "history query from 127.0.0.2 refused (HOSTALLOW_READ)" \
	"$LOG/CollectorLog"
check "negotiator: the refusal is logged" \
	grep -q "priorities query from 127.0.0.2 refused (HOSTALLOW_READ)" \
	"$LOG/NegotiatorLog"
check "startd: the refusal is logged" \
	grep -q "query from 127.0.0.2 refused (HOSTALLOW_READ)" "$LOG/StartLog"
check "schedd: the refusal is logged" \
	grep -q "query from 127.0.0.2 refused (HOSTALLOW_READ)" "$LOG/SchedLog"
check "no daemon logs a refusal of 127.0.0.1" \
	bash -c "! grep -q 'from 127.0.0.1 refused' $LOG/*Log"
# An invalidation from outside HOSTALLOW_WRITE (127.0.0.1 only, by
# default) is refused and logged too, and the ad stays.
# An unsigned one is refused before any host is looked at (it needs
# DAEMON: the pool key); one signed with the key, for the host part.
out=$(code 127.0.0.2 "$collector" 0x2c0d0001 1 3 i:1 s:cm)
check "collector: an unsigned invalidation is refused as too weak ($out)" \
	test "$out" = "denied 5"
out=$(code 127.0.0.2 -k "$POOL/pool_key" "$collector" 0x2c0d0001 1 3 \
	i:1 s:cm)
check "collector: an invalidation from 127.0.0.2 is refused with EPERM ($out)" \
	test "$out" = "0 1"
check "collector: the refused invalidation is logged" \
	grep -q "invalidation from 127.0.0.2 refused (HOSTALLOW_WRITE)" \
	"$LOG/CollectorLog"
check "collector: the machine's ad stays" \
	bash -c "! grep -q 'ad of cm invalidated' $LOG/CollectorLog"
# The refusals changed nothing: the tools still work.
check "condor_status still answers" pool_wait_machines 1 10
check "condor_q still answers" on cm condor_q

# 127.0.0.2 added to HOSTALLOW_READ: SIGHUP, and every daemon answers it.
echo 'HOSTALLOW_READ = 127.0.0.1, 127.0.0.2' >>"$POOL/cm/condor_config.local"
kill -HUP "${POOL_MASTER_PID[cm]}"
for q in "${queries[@]}"; do
	IFS='|' read -r name log addr prog proc args <<<"$q"
	# shellcheck disable=SC2086
	check "$name: after SIGHUP, 127.0.0.2 (now listed) is answered" \
		wait_for 20 answered 127.0.0.2 "$addr" "$prog" 1 "$proc" $args
done
