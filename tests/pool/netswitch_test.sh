#!/usr/bin/env bash
# tests/pool/netswitch_test.sh: the pool on the user-space switch of
# tests/lib/netswitch.py (NETPOOL_SWITCH=user): a central manager (the
# collector and negotiator), a submitting host and two execute hosts.
# Frames pass between every pair; a delay set on one pair shows in its
# round trips and nowhere else; two hosts cut from each other only
# still reach everyone else.  Then an execute host loses the central
# manager, and only it, while it runs a job: its ad expires from the
# collector, but the startd keeps its claim and the job runs on (its
# shadow on the submitting host never misses it: no 022); healed, the
# startd advertises again by itself, still claimed, and the job
# completes, started once.
#
# checks: 12
set -u
NETPOOL_SWITCH=user
. "$(dirname "$0")/../lib/netpool.sh"

CHECKS=("the schedd listens" "two machines advertise"
    "every host reaches every other through the switch"
    "a 40 ms delay between exec1 and exec2 shows in their round trip"
    "... and not between exec1 and sub"
    "cut from each other, exec1 and cm do not reach each other"
    "... and both still reach sub and exec2"
    "the job runs on exec1" "cut from the central manager, exec1's ad expires"
    "the job runs on meanwhile, its shadow never disconnected"
    "healed, exec1 advertises again by itself, still claimed"
    "the job completes, started once, its output whole")
netpool_require "${CHECKS[@]}"

netpool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'SUSPEND : FALSE' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTD_UPDATE_INTERVAL = 2' 'CLASSAD_LIFETIME = 6' 'RPC_TIMEOUT = 5'
netpool_host cm "MASTER, COLLECTOR, NEGOTIATOR"
netpool_host sub "MASTER, SCHEDD"
netpool_host exec1 "MASTER, STARTD"
netpool_host exec2 "MASTER, STARTD" 'START : FALSE'
pool_start
check "the schedd listens" wait_for 60 test -S "$POOL/sub/spool/.schedd_socket"
check "two machines advertise" pool_wait_machines 2 60

HOSTS=(cm sub exec1 exec2)
all_pairs() {
	local a b
	for a in "${HOSTS[@]}"; do
		for b in "${HOSTS[@]}"; do
			[ "$a" = "$b" ] || netpool_reaches "$a" "$b" || return 1
		done
	done
}
check "every host reaches every other through the switch" all_pairs

# rtt FROM TO: milliseconds for a TCP connection attempt (refused: one
# round trip), the best of three.
rtt() {
	on "$1" python3 - "${NETPOOL_ADDR[$2]}" <<'EOF'
import socket, sys, time
best = None
for _ in range(3):
    s = socket.socket()
    s.settimeout(5)
    t = time.monotonic()
    try:
        s.connect((sys.argv[1], 9))
    except ConnectionRefusedError:
        pass
    except OSError:
        continue
    finally:
        s.close()
    d = (time.monotonic() - t) * 1000
    best = d if best is None or d < best else best
print(int(best) if best is not None else -1)
EOF
}
netpool_impair exec1 exec2 20 0
netpool_impair exec2 exec1 20 0
sleep 0.5
r12=$(rtt exec1 exec2)
r1s=$(rtt exec1 sub)
check "a 40 ms delay between exec1 and exec2 shows in their round trip" \
	test "$r12" -ge 40
check "... and not between exec1 and sub" test "$r1s" -ge 0 -a "$r1s" -lt 40
echo "round trips: exec1-exec2 ${r12} ms, exec1-sub ${r1s} ms"
netpool_impair_clear

netpool_cut_pair exec1 cm
sleep 0.5
apart() { ! netpool_reaches exec1 cm && ! netpool_reaches cm exec1; }
others() {
	netpool_reaches exec1 sub && netpool_reaches exec1 exec2 &&
	    netpool_reaches cm sub && netpool_reaches cm exec2
}
check "cut from each other, exec1 and cm do not reach each other" apart
check "... and both still reach sub and exec2" others
netpool_impair_clear

# --- the central manager lost from an execute host ------------------------
W="$POOL/work"
mkdir -p "$W"
chmod 777 "$W"
cd "$W" || exit 1
cat >count.sh <<'EOF'
#!/bin/sh
i=0
while [ $i -lt $1 ]; do echo "line $i"; i=$((i + 1)); sleep 1; done
EOF
chmod 755 count.sh
cat >job.sub <<'EOF'
universe   = vanilla
executable = count.sh
arguments  = 25
output     = job.out
log        = job.log
queue
EOF
C=$(on sub condor_submit job.sub 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "the job runs on exec1" wait_for 60 grep -qx "line 2" job.out
listed() { on cm condor_status -af Name 2>/dev/null | grep -q exec1; }
netpool_cut_pair exec1 cm
unlisted() { ! listed; }
check "cut from the central manager, exec1's ad expires" wait_for 60 unlisted
n=$(grep -c . job.out)
sleep 3
ran_on() { [ "$(grep -c . job.out)" -gt "$n" ] && ! grep -q '^022 ' job.log; }
check "the job runs on meanwhile, its shadow never disconnected" ran_on
netpool_impair_clear
state() { on cm condor_status -af Name State 2>/dev/null | grep "^exec1" | grep -q Claimed; }
check "healed, exec1 advertises again by itself, still claimed" wait_for 60 state
in_history() { test -n "$(on sub condor_history "$C" -af ProcId 2>/dev/null)"; }
want=$(i=0; while [ $i -lt 25 ]; do echo "line $i"; i=$((i + 1)); done)
done_once() {
	wait_for 120 in_history && [ "$(grep -c '^001 ' job.log)" = 1 ] &&
	    [ "$(cat job.out)" = "$want" ]
}
check "the job completes, started once, its output whole" done_once
