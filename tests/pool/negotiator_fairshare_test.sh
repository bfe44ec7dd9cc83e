#!/usr/bin/env bash
# Fair share with real daemons: a central manager, two submitting hosts
# (heavy and light, each with its own schedd) and four execute hosts.
#
# 1. Without preemption: heavy queues 40 jobs and fills the pool; light
#    then queues 4.  Light's jobs get the slots as they free, within a
#    cycle, long before heavy's queue drains; while light waits, heavy
#    never gets more machines than light.
# 2. With PREEMPTION_ENABLED: heavy fills the pool with long jobs; light
#    queues one.  Within a few cycles one of heavy's machines is vacated
#    for light, light's job runs there and completes, and the vacated
#    job goes back to heavy's queue and runs again later.
. "$(dirname "$0")/../lib/pool.sh"

pool_init
# Jobs run as an unprivileged user when the pool runs as root: the
# execute directories under the pool must be reachable.
chmod 755 "$POOL"
pool_config 'START : KeyboardIdle > 20 && LoadAvg <= 0.3' \
	'MAX_JOB_STARTS = 10' 'PREEMPTION_ENABLED = FALSE'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR"
pool_host heavy "MASTER, SCHEDD"
pool_host light "MASTER, SCHEDD"
for i in 1 2 3 4; do
	pool_host exec$i "MASTER, STARTD"
done
pool_start

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
cd "$W" || exit 1
nlog="$POOL/cm/log/NegotiatorLog"

check "four machines advertise" pool_wait_machines 4 60
check "the heavy schedd listens" wait_for 60 test -S "$POOL/heavy/spool/.schedd_socket"
check "the light schedd listens" wait_for 60 test -S "$POOL/light/spool/.schedd_socket"

# running STATION: machines the collector shows running its jobs.
running() {
	on cm condor_status -af State RemoteSchedd 2>/dev/null |
	    grep -c "^Claimed $1\$"
}
# matches STATION [FROM]: match lines for STATION from line FROM on.
matches() { tail -n +"${2:-1}" "$nlog" | grep -c "match: $1 job"; }
submit() {	# submit HOST COUNT SECONDS
	printf 'universe = vanilla\nexecutable = /bin/sleep\narguments = %s\nqueue %s\n' \
	    "$3" "$2" >"$1.sub"
	on "$1" condor_submit "$1.sub" >/dev/null
}

# --- 1. fair share, no preemption -------------------------------------
check "heavy queues 40 jobs" submit heavy 40 8
check "heavy fills the pool" wait_for 40 bash -c "[ \$(CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af RemoteSchedd | grep -c heavy) = 4 ]"
mark=$(($(wc -l <"$nlog") + 1))
t0=$SECONDS
check "light queues 4 jobs" submit light 4 3
light_placed() { [ "$(matches light "$mark")" -ge 4 ]; }
check "every light job gets a machine" wait_for 60 light_placed
took=$((SECONDS - t0))
# Heavy's jobs take 8 s: slots free every few seconds, while heavy's
# queue needs 80 s to drain.
check "light's jobs started within three job lengths ($took s)" \
	test "$took" -le 25
upto=$(grep -n "match: light job" "$nlog" | tail -n +1 | sed -n 4p | cut -d: -f1)
heavy_meanwhile=$(sed -n "${mark},${upto}p" "$nlog" | grep -c "match: heavy job")
check "heavy got no more machines than light meanwhile ($heavy_meanwhile)" \
	test "$heavy_meanwhile" -le 4
check "light's priority is above heavy's while it waits" \
	bash -c "tail -n +$mark '$nlog' | grep -q 'stations by priority: light (.*), heavy ('"
idle_heavy=$(on heavy condor_q -af JobStatus | grep -c '^[01]$')
check "heavy's queue was far from drained ($idle_heavy idle)" \
	test "$idle_heavy" -ge 20
light_done() { [ "$(on light condor_history -af ExitCode 2>/dev/null | grep -c '^0$')" = 4 ]; }
check "light's jobs complete" wait_for 60 light_done

sub=$(on cm condor_status -submitters)
check "-submitters: light above heavy" \
	awk '$1 == "light" { l = $5 } $1 == "heavy" { h = $5 } END { exit !(l > h) }' <<<"$sub"

# --- 2. priority preemption -------------------------------------------
on heavy condor_rm 1 >/dev/null
all_idle() { [ "$(on cm condor_status -af State | grep -c '^Idle$')" = 4 ]; }
check "the pool empties after condor_rm" wait_for 60 all_idle
echo 'PREEMPTION_ENABLED = TRUE' >>"$POOL/cm/condor_config.local"
kill -HUP "${POOL_MASTER_PID[cm]}"
mark2=$(($(wc -l <"$nlog") + 1))
check "heavy queues 6 long jobs" submit heavy 6 300
check "heavy fills the pool again" wait_for 40 bash -c "[ \$(CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af RemoteSchedd | grep -c heavy) = 4 ]"
mark=$(($(wc -l <"$nlog") + 1))
check "light queues 1 job" submit light 1 2
preempted() { tail -n +"$mark" "$nlog" | grep -q "preempt: .* vacated for light"; }
check "one of heavy's machines is vacated for light" wait_for 20 preempted
vic=$(tail -n +"$mark" "$nlog" | sed -n 's/.*preempt: \([^ ]*\) (running a job of heavy.*/\1/p' | head -1)
check "the log says which machine and why" test -n "$vic"
light_on_vic() { tail -n +"$mark" "$nlog" | grep -q "match: light job [0-9.]* -> $vic\$"; }
check "light's job gets the vacated machine ($vic)" wait_for 30 light_on_vic
check "only one machine was vacated" \
	test "$(tail -n +"$mark" "$nlog" | grep -c 'preempt: ')" = 1
light_done2() { [ "$(on light condor_history -af ClusterId ExitCode 2>/dev/null | grep -c '^2 0$')" = 1 ]; }
check "light's job completes" wait_for 60 light_done2
# The vacated heavy job went back to heavy's queue; with light's job
# done, it gets a machine again.
rerun() { tail -n +"$mark2" "$nlog" | grep -o "match: heavy job [0-9.]*" | sort | uniq -d | grep -q .; }
check "the vacated heavy job runs again" wait_for 40 rerun
on heavy condor_rm -a >/dev/null 2>&1
exit 0
