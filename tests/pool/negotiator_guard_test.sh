#!/usr/bin/env bash
# tests/pool/negotiator_guard_test.sh: the negotiator's guard against
# giving one machine out twice.  A machine given to a job stays Idle in
# its ad until its startd is claimed; here the claim never comes (a
# stand-in SHADOW gives up at once, as a shadow does whose startd does
# not answer), while the machine's ad, played by condor_advertise, keeps
# coming, fresh, Idle and with the same NumClaims.  Over the cycles that
# follow, neither the other idle job nor the requeued one may get that
# machine.  Once the ad shows a claim (NumClaims grew), or a restarted
# startd (DaemonStartTime changed), the machine is given out again.
#
# checks: 8
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
FAKE=$POOL/fake_shadow
cat >"$FAKE" <<'EOF'
#!/bin/sh
# A shadow whose claim never arrives: back to the queue (107).
echo "$1 $2 $3" >>"$(dirname "$0")/shadow_calls"
sleep 0.3
exit 107
EOF
chmod +x "$FAKE"
pool_config "SHADOW = $FAKE" 'NEGOTIATOR_INTERVAL = 1' 'SCHEDD_INTERVAL = 1'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_start

NLOG=$POOL/cm/log/NegotiatorLog
# The machine's ad: ADVERTISE NUMCLAIMS DAEMONSTARTTIME, again every
# half second in the background (AD_PID) until the next call.
AD_PID=
advertise() {
	[ -n "$AD_PID" ] && { kill "$AD_PID" 2>/dev/null; wait "$AD_PID" 2>/dev/null; }
	cat >"$POOL/m1.ad" <<EOA
Name = "m1"
Machine = "m1"
State = "Idle"
Activity = "Idle"
Arch = "X86_64"
OpSys = "LINUX"
Memory = 4096
Disk = 10000000
LoadAvg = 0.0
KeyboardIdle = 3600
Requirements = TRUE
START = TRUE
StartdIpAddr = "<127.0.0.1:9>"
NumClaims = $1
DaemonStartTime = $2
EOA
	(
		while :; do
			CONDOR_CONFIG="$POOL/cm/condor_config" \
			    condor_advertise -startd "$POOL/m1.ad" >/dev/null 2>&1
			sleep 0.5
		done
	) &
	AD_PID=$!
}
trap '[ -n "$AD_PID" ] && kill "$AD_PID" 2>/dev/null; pool_cleanup' EXIT

advertise 3 1000
check "m1 is in the collector" pool_wait_machines 1 30
matches() { grep -c . "$POOL/shadow_calls" 2>/dev/null || echo 0; }
# The number of the last cycle logged; cycles_past N: it is N or later.
last_cycle() { sed -n 's/.*cycle \([0-9]*\): [0-9]* match(es).*/\1/p' "$NLOG" | tail -1; }
cycles_past() { local c; c=$(last_cycle); [ -n "$c" ] && [ "$c" -ge "$1" ]; }

printf 'universe = vanilla\nexecutable = /bin/true\nqueue 2\n' >"$POOL/j.sub"
on cm condor_submit "$POOL/j.sub" >/dev/null 2>&1
matched() { [ "$(matches)" -ge 1 ]; }
check "a job gets m1" wait_for 30 matched
c0=$(last_cycle)
# Five more cycles with m1 Idle and fresh, its claim count unchanged.
check "the negotiator goes on cycling" wait_for 60 cycles_past $((c0 + 5))
check "m1 is not given out again while its claim is awaited ($(matches) match(es))" \
	test "$(matches)" = 1
check "... although both jobs wait (neither running nor held)" test \
	"$(on cm condor_q -af JobStatus | grep -c -x 1)" = 2

# The claim shows in the ad: m1 may be given out again, in one of the
# next cycles (not only once MATCH_CLAIM_WAIT, 30 s, has passed).
ad_is() { test "$(on cm condor_status -af NumClaims DaemonStartTime \
    -constraint 'Name == "m1"')" = "$1 $2"; }
more() { [ "$(matches)" -ge "$1" ]; }
more_or_cycles() { more "$1" || cycles_past "$2"; }
advertise 4 1000
wait_for 20 ad_is 4 1000
c1=$(last_cycle)
wait_for 60 more_or_cycles 2 $((c1 + 5))
check "once NumClaims grew, m1 is given out again (within 5 cycles)" more 2
c2=$(last_cycle)
wait_for 60 cycles_past $((c2 + 3))
check "... once, not every cycle" test "$(matches)" = 2
# A restarted startd (new DaemonStartTime, its count from zero).
advertise 0 2000
wait_for 20 ad_is 0 2000
c3=$(last_cycle)
wait_for 60 more_or_cycles 3 $((c3 + 5))
check "a restarted startd's machine is given out again (within 5 cycles)" more 3
