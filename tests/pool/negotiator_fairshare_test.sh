#!/usr/bin/env bash
# Fair share with real daemons: a central manager, two submitting hosts
# (heavy and light, each with its own schedd) and four execute hosts.
#
# 1. Without preemption: heavy queues 40 jobs and fills the pool; light
#    then queues 4.  Light's jobs get the slots as they free, long
#    before heavy's queue drains; while light waits, heavy never gets
#    more machines than light.
# 2. With PREEMPTION_ENABLED: heavy fills the pool with four relinked
#    standard-universe jobs; light queues one.  Within two cycles one of
#    heavy's machines is vacated for light, its job checkpointed; light's
#    job runs there and completes, and the vacated job goes back to
#    heavy's queue and later resumes from its checkpoint, its output
#    equal to a native run's.
#
# checks: 31
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
check "light queues 4 jobs" submit light 4 3
light_placed() { [ "$(matches light "$mark")" -ge 4 ]; }
check "every light job gets a machine" wait_for 60 light_placed
# Heavy's jobs take 8 s: slots free every few seconds, while heavy's
# queue needs 80 s to drain; the order of the matches, not the clock,
# tells whether light was served first.
upto=$(grep -n "match: light job" "$nlog" | tail -n +1 | sed -n 4p | cut -d: -f1)
heavy_meanwhile=$(sed -n "${mark},${upto}p" "$nlog" | grep -c "match: heavy job")
check "heavy got no more machines than light meanwhile ($heavy_meanwhile)" \
	test "$heavy_meanwhile" -le 4
check "light's priority is above heavy's while it waits" \
	bash -c "tail -n +$mark '$nlog' | grep -q 'stations by priority: light (.*), heavy ('"
idle_heavy=$(on heavy condor_q -af JobStatus | grep -c '^1$')
check "heavy's queue was far from drained ($idle_heavy idle)" \
	test "$idle_heavy" -ge 20
light_done() { [ "$(on light condor_history -af ExitCode 2>/dev/null | grep -c '^0$')" = 4 ]; }
check "light's jobs complete" wait_for 60 light_done

sub=$(on cm condor_status -submitters)
check "-submitters: light above heavy" \
	awk '$1 == "light" { l = $5 } $1 == "heavy" { h = $5 } END { exit !(l > h) }' <<<"$sub"

# --- 2. priority preemption, with a checkpoint --------------------------
# Heavy's jobs are standard-universe: tests/programs/demo_primes.c
# relinked with condor_cc, each its own output and user log.  The one
# vacated for light is checkpointed, goes back to heavy's queue, and
# later resumes from that checkpoint; its output equals a native run's.
N=24000000
STEP=1000000
S="$W/std"
mkdir -p "$S"
check "demo_primes builds natively" cc -O2 -static -o "$S/primes.native" \
	"$TOP/tests/programs/demo_primes.c"
check "demo_primes relinks with condor_cc" condor_cc -O2 -o "$S/primes" \
	"$TOP/tests/programs/demo_primes.c"
"$S/primes.native" $N $STEP >"$S/native.txt" &
native=$!
pool_owner "$S"
cat >"$S/heavy.sub" <<EOF2
universe   = standard
executable = primes
arguments  = $N $STEP
output     = out.\$(Process).txt
error      = err.\$(Process).txt
log        = heavy.\$(Process).log
queue 4
EOF2
chmod 644 "$S/heavy.sub"

on heavy condor_rm 1 >/dev/null
all_idle() { [ "$(on cm condor_status -af State | grep -c '^Idle$')" = 4 ]; }
check "the pool empties after condor_rm" wait_for 60 all_idle
echo 'PREEMPTION_ENABLED = TRUE' >>"$POOL/cm/condor_config.local"
kill -HUP "${POOL_MASTER_PID[cm]}"
mark2=$(($(wc -l <"$nlog") + 1))
H=$( (cd "$S" && on heavy as_owner "$RELEASE/bin/condor_submit" heavy.sub 2>&1) |
    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "heavy queues 4 standard jobs" test -n "$H"
check "heavy fills the pool again" wait_for 40 bash -c "[ \$(CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af RemoteSchedd | grep -c heavy) = 4 ]"
mark=$(($(wc -l <"$nlog") + 1))
check "light queues 1 job" submit light 1 2
preempted() { tail -n +"$mark" "$nlog" | grep -q "preempt: .* vacated for light"; }
check "one of heavy's machines is vacated for light" wait_for 20 preempted
vic=$(tail -n +"$mark" "$nlog" | sed -n 's/.*preempt: \([^ ]*\) (running a job of heavy.*/\1/p' | head -1)
check "the log says which machine and why" test -n "$vic"
# Within two negotiation cycles of the first that saw light's job.
seen=$(tail -n +"$mark" "$nlog" | sed -n 's/.*cycle \([0-9]*\): stations by priority: .*light ([^,]*, 1 idle.*/\1/p' | head -1)
pre=$(tail -n +"$mark" "$nlog" | sed -n 's/.*cycle \([0-9]*\): .* [1-9][0-9]* preemption(s).*/\1/p' | head -1)
ncyc=$(( ${pre:-0} - ${seen:-0} + 1 ))
check "the preemption came within two cycles (in cycle $ncyc of light's wait)" \
	test -n "$seen" -a -n "$pre" -a "$ncyc" -le 2
light_on_vic() { tail -n +"$mark" "$nlog" | grep -q "match: light job [0-9.]* -> $vic\$"; }
check "light's job gets the vacated machine ($vic)" wait_for 30 light_on_vic
check "only one machine was vacated" \
	test "$(tail -n +"$mark" "$nlog" | grep -c 'preempt: ')" = 1
ckpted() { grep -l -A1 '^004 ' "$S"/heavy.*.log 2>/dev/null | head -1; }
check "the vacated heavy job was checkpointed (004)" wait_for 30 bash -c \
	"grep -A1 '^004 ' $S/heavy.*.log | grep -q '(1) Job was checkpointed'"
vlog=$(ckpted)
vp=$(basename "$vlog" .log)
vp=${vp#heavy.}
check "one heavy job was vacated (proc ${vp:-none})" test -n "$vp"
light_done2() { [ "$(on light condor_history -af ClusterId ExitCode 2>/dev/null | grep -c '^2 0$')" = 1 ]; }
check "light's job completes" wait_for 60 light_done2
# The others go, so that the vacated one finishes sooner.
for p in 0 1 2 3; do
	[ "$p" = "$vp" ] || on heavy as_owner "$RELEASE/bin/condor_rm" "$H.$p" >/dev/null 2>&1
done
check "the vacated heavy job completes" wait_for 120 bash -c \
	"[ -n \"\$(CONDOR_CONFIG=$POOL/heavy/condor_config condor_history $H.$vp -af ExitCode 2>/dev/null)\" ]"
check "its exit code is 0" test \
	"$(on heavy condor_history "$H.$vp" -af ExitCode 2>/dev/null)" = 0
check "it ran twice (two 001 events)" test "$(grep -c '^001 ' "$vlog")" = 2
check_resumed "$H.$vp" "$S/primes" 2
wait "$native"
check "its output is identical to the native run's" \
	cmp "$S/native.txt" "$S/out.$vp.txt"
on heavy condor_rm -a >/dev/null 2>&1
exit 0
