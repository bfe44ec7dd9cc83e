#!/usr/bin/env bash
# tests/chaos/chaos.sh: a pool on a network (tests/lib/netpool.sh) runs
# a workload of vanilla and relinked standard-universe jobs while
# SIGKILL falls on a random daemon of a random host every few seconds,
# random hosts are cut off at the switch and healed, and owners come
# back to random execute hosts; then the promises are checked from the
# outside (tests/chaos/chaos_check.py): every job completed once, never
# ran twice at once, wrote exactly its native run's output, one 005 in
# its user log; the queue empty; no process of the pool left once its
# masters are stopped, no execute directory left; the queue log read
# back by a new schedd.  It ends with a table (lines "TABLE what|value").
#
# Choices come from bash's RANDOM seeded with CHAOS_SEED, so a failing
# run can be repeated with its seed (printed first and on failure); the
# daemons' own timing still varies from run to run.
#
#   CHAOS_SEED     the seed (default: random)
#   CHAOS_JOBS     jobs (default 200; two in five standard)
#   CHAOS_KILLS    SIGKILLs to inject (default 300)
#   CHAOS_CUTS     partitions to inject (default 20)
#   CHAOS_HOSTS    execute hosts (default 4, three cores each)
#   CHAOS_SECONDS  how long faults are injected (default 360)
#   CHAOS_DRAIN    how long the jobs may take to finish afterwards
#                  (default 300)
#
# A master that is killed takes its daemons with it (they follow their
# master); the script starts it again one to three seconds later, as a
# machine's init would.  Needs root (namespaces): else SKIP.
set -u
. "$(dirname "$0")/../lib/netpool.sh"

SEED=${CHAOS_SEED:-$((RANDOM * 32768 + RANDOM))}
JOBS=${CHAOS_JOBS:-200}
KILLS=${CHAOS_KILLS:-300}
CUTS=${CHAOS_CUTS:-20}
HOSTS=${CHAOS_HOSTS:-4}
INJECT=${CHAOS_SECONDS:-360}
DRAIN=${CHAOS_DRAIN:-300}
LEASE=20
RANDOM=$SEED
echo "chaos seed $SEED: $JOBS jobs, $KILLS kills and $CUTS partitions over ${INJECT}s, $HOSTS execute hosts"

CHECKS=("the pool starts" "the jobs build" "every job completed (none lost)"
    "no job ran twice at once" "no job completed twice"
    "every job's output identical to its native run's"
    "one 005 event per job" "the queue is empty at the end"
    "the faults were injected"
    "no process of the pool outlives its stopped masters"
    "no execute directory is left" "a new schedd reads the queue log back")
netpool_require "${CHECKS[@]}"

netpool_init
chmod 755 "$POOL"
W="$POOL/work"
mkdir -p "$W"/{out,logs,expected,sub}
chmod -R 777 "$W"
# The vanilla jobs' locks: outside /tmp, which a boxed job does not
# share, in one of the directories every job sees (read-only).
LOCKS=$(mktemp -d /var/tmp/condor-chaos-locks.XXXXXX)
chmod 755 "$LOCKS"
trap 'pool_cleanup; netpool_cleanup; rm -rf "$LOCKS"' EXIT
# Owners come and go quickly here; a job is vacated after 3 seconds
# suspended; a standard job checkpoints every 4 seconds.
pool_config 'StartIdleTime = 4' 'ContinueIdleTime = 2' 'MaxSuspendTime = 3' \
	'MaxVacateTime = 5' 'VACATE_GRACE = 5' 'PERIODIC_CHECKPOINT_INTERVAL = 4' \
	'STARTER_UPDATE_INTERVAL = 1' 'STARTER_TIMEOUT = 10' 'RPC_TIMEOUT = 5' \
	'MAX_JOB_STARTS = 1000' 'NUM_CPUS = 3' 'MEMORY = 3072' \
	"JOB_SYSTEM_DIRS = /bin /sbin /lib /lib32 /lib64 /libx32 /usr /etc /opt $LOCKS"
netpool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
for ((i = 1; i <= HOSTS; i++)); do
	mkfifo "$POOL/kbd$i"
	netpool_host "exec$i" "MASTER, STARTD, KBDD" "KBDD_DEVICES = $POOL/kbd$i"
done
pool_start
if wait_for 60 test -S "$POOL/cm/spool/.schedd_socket" &&
    pool_wait_machines "$HOSTS" 90; then
	pass "the pool starts"
else
	fail "the pool starts"
	exit 1
fi

JOB_SRC="$TOP/tests/chaos/chaos_job.c"
if cc -O2 -o "$W/chaos_job" "$JOB_SRC" &&
    condor_cc -O2 -o "$W/chaos_job.std" "$JOB_SRC"; then
	pass "the jobs build"
else
	fail "the jobs build"
	exit 1
fi

# --- the workload ----------------------------------------------------------
# Job i: vanilla ("vI") or standard ("sI"), 20 to 50 steps of 0.2 s.
: >"$W/jobs.txt"
for ((i = 0; i < JOBS; i++)); do
	if [ $((RANDOM % 5)) -lt 2 ]; then u=standard t="s$i"; else u=vanilla t="v$i"; fi
	echo "$t $u $((20 + RANDOM % 31)) 1000000 200" >>"$W/jobs.txt"
	: >"$LOCKS/$t.lock"
done
chmod 644 "$LOCKS"/*.lock
# The native runs, without the pauses, meanwhile.
(
	while read -r t u steps spins ms; do
		nice "$W/chaos_job" "$t" "$steps" "$spins" 0 >"$W/expected/$t"
	done <"$W/jobs.txt"
) &
NATIVE_PID=$!

# submit_file BATCH UNIVERSE: the submit file of one batch's jobs of
# one universe, on standard output (empty: none).
submit_file() {
	local b=$1 u=$2 n=0 t uu steps spins ms
	while read -r t uu steps spins ms; do
		[ "$uu" = "$u" ] || continue
		if [ $n -eq 0 ]; then
			echo "universe = $u"
			[ "$u" = standard ] && echo "executable = $W/chaos_job.std" ||
			    echo "executable = $W/chaos_job"
			[ "$u" = vanilla ] && echo "job_lease_duration = $LEASE"
			echo "log = $W/logs/$b.$u.log"
			echo "+ChaosBatch = \"$b.$u\""
		fi
		n=$((n + 1))
		lock=
		[ "$u" = vanilla ] && lock=" $LOCKS"
		echo "arguments = $t $steps $spins $ms$lock"
		echo "output = $W/out/$t"
		echo "error = $W/out/$t.err"
		echo "+ChaosTag = \"$t\""
		echo "queue"
	done < <(sed -n "$(($3 + 1)),$(($4))p" "$W/jobs.txt")
}

# submit BATCH.UNIVERSE FILE: submit it once, whatever the schedd does
# meanwhile: a condor_submit that failed may still have committed, so
# the queue and the history are asked before trying again.
submit() {
	local b=$1 f=$2 try n
	for ((try = 0; try < 60; try++)); do
		on cm timeout 60 condor_submit "$f" >>"$W/submit.out" 2>&1 && return 0
		sleep 2
		# (One answer from both, or ask again: a schedd that was
		# down for the first may be up for the second.)
		until q=$(on cm condor_q -constraint "ChaosBatch == \"$b\"" -af ProcId 2>/dev/null) &&
		    h=$(on cm condor_history -constraint "ChaosBatch == \"$b\"" -af ProcId 2>/dev/null); do
			sleep 2
		done
		[ -n "$q$h" ] && return 0
	done
	echo "batch $b never submitted" >>"$W/submit.out"
	return 1
}

# Ten batches over the first half of the faults.
(
	per=$(((JOBS + 9) / 10))
	for ((b = 0; b < 10; b++)); do
		first=$((b * per))
		[ $first -ge "$JOBS" ] && break
		for u in vanilla standard; do
			submit_file "b$b" "$u" "$first" "$((first + per))" >"$W/sub/b$b.$u"
			[ -s "$W/sub/b$b.$u" ] && submit "b$b.$u" "$W/sub/b$b.$u"
		done
		sleep "$(awk -v s="$INJECT" 'BEGIN { printf "%.1f", s / 20 }')"
	done
) &
SUBMIT_PID=$!

python3 "$TOP/tests/chaos/chaos_watch.py" "$POOL" "$W/watch.txt" &
WATCH_PID=$!
stop_helpers() {
	touch "$W/watch.txt.stop"
	kill "$SUBMIT_PID" "$NATIVE_PID" 2>/dev/null
	wait "$WATCH_PID" "$SUBMIT_PID" "$NATIVE_PID" 2>/dev/null
}
trap 'stop_helpers; pool_cleanup; netpool_cleanup; rm -rf "$LOCKS"' EXIT

# --- the faults ------------------------------------------------------------
# The pool's daemons now: lines "PID HOST DAEMON".
daemons() {
	python3 - "$POOL" <<'EOF'
import os, sys
pool = sys.argv[1]
names = ('master', 'collector', 'negotiator', 'schedd', 'shadow',
         'startd', 'starter', 'kbdd')
for pid in os.listdir('/proc'):
    if not pid.isdigit():
        continue
    try:
        comm = open('/proc/%s/comm' % pid).read().strip()
        env = open('/proc/%s/environ' % pid, 'rb').read().split(b'\0')
    except OSError:
        continue
    if not comm.startswith('condor_') or comm[7:] not in names:
        continue
    if ('CONDOR_TEST_POOL=' + pool).encode() not in env:
        continue
    for e in env:
        if e.startswith(b'CONDOR_CONFIG=' + pool.encode() + b'/'):
            host = e.decode().split('/')[-2]
            print(pid, host, comm[7:])
EOF
}

now() { echo "${EPOCHREALTIME/./}"; }	# microseconds
usec() { awk -v s="$1" 'BEGIN { printf "%d", s * 1000000 }'; }
ALL_HOSTS=(cm)
for ((i = 1; i <= HOSTS; i++)); do ALL_HOSTS+=("exec$i"); done
declare -A RESTART HEAL OWNER_UNTIL
t0=$(now)
kill_gap=$(usec "$(awk -v s="$INJECT" -v k="$KILLS" 'BEGIN { print s / k }')")
cut_gap=$(usec "$(awk -v s="$INJECT" -v k="$CUTS" 'BEGIN { print s / k }')")
next_kill=$((t0 + kill_gap))
next_cut=$((t0 + cut_gap / 2))
next_owner=$((t0 + 5000000))
kills=0 cuts=0
: >"$W/kills.txt"
: >"$W/cuts.txt"

# One SIGKILL: a random host, a random kind of daemon running there, a
# random one of that kind.
kill_one() {
	local h list kinds k victim
	h=${ALL_HOSTS[RANDOM % ${#ALL_HOSTS[@]}]}
	list=$(daemons | awk -v h="$h" '$2 == h')
	[ -n "$list" ] || return 1
	mapfile -t kinds < <(echo "$list" | awk '{ print $3 }' | sort -u)
	k=${kinds[RANDOM % ${#kinds[@]}]}
	mapfile -t victim < <(echo "$list" | awk -v k="$k" '$3 == k { print $1 }')
	victim=${victim[RANDOM % ${#victim[@]}]}
	kill -KILL "$victim" 2>/dev/null || return 1
	echo "$(date +%s.%N) $h $k $victim" >>"$W/kills.txt"
	kills=$((kills + 1))
	if [ "$k" = master ]; then
		{ wait "$victim"; } 2>/dev/null	# (ours: reaped, quietly)
		RESTART[$h]=$(($(now) + 1000000 + RANDOM % 2000000))
	fi
	return 0
}

set +u	# (bash before 5.2 calls an empty associative array unbound)
while :; do
	t=$(now)
	[ $((t - t0)) -ge $(usec "$INJECT") ] && [ $kills -ge "$KILLS" ] &&
	    [ $cuts -ge "$CUTS" ] && break
	if [ "$t" -ge "$next_kill" ]; then
		kill_one && next_kill=$((next_kill + kill_gap))
	fi
	if [ "$t" -ge "$next_cut" ] && [ ${#HEAL[@]} -eq 0 ]; then
		h=${ALL_HOSTS[RANDOM % ${#ALL_HOSTS[@]}]}
		secs=$((3 + RANDOM % (2 * LEASE - 5)))
		netpool_cut "$h"
		echo "$(date +%s.%N) $h $secs" >>"$W/cuts.txt"
		HEAL[$h]=$((t + secs * 1000000))
		cuts=$((cuts + 1))
		next_cut=$((next_cut + cut_gap))
	fi
	for h in "${!HEAL[@]}"; do
		[ "$t" -ge "${HEAL[$h]}" ] || continue
		netpool_heal "$h"
		unset "HEAL[$h]"
	done
	for h in "${!RESTART[@]}"; do
		[ "$t" -ge "${RESTART[$h]}" ] || continue
		{ wait "${POOL_MASTER_PID[$h]}"; } 2>/dev/null
		pool_start_host "$h"
		unset "RESTART[$h]"
	done
	# Owners: one comes back to a random execute host every ten
	# seconds or so, and types for one to six seconds.
	if [ "$t" -ge "$next_owner" ]; then
		h=exec$((1 + RANDOM % HOSTS))
		OWNER_UNTIL[$h]=$((t + (1 + RANDOM % 6) * 1000000))
		next_owner=$((t + (5 + RANDOM % 10) * 1000000))
	fi
	for h in "${!OWNER_UNTIL[@]}"; do
		if [ "$t" -ge "${OWNER_UNTIL[$h]}" ]; then
			unset "OWNER_UNTIL[$h]"
		elif [ $((RANDOM % 2)) = 0 ]; then
			touch "$POOL/$h/tty"
		else
			timeout 1 sh -c "echo x >'$POOL/kbd${h#exec}'" 2>/dev/null &
		fi
	done
	sleep 0.2
done
for h in "${!HEAL[@]}"; do netpool_heal "$h"; done
for h in "${!RESTART[@]}"; do
	{ wait "${POOL_MASTER_PID[$h]}"; } 2>/dev/null
	pool_start_host "$h"
done
set -u
check "the faults were injected" test "$kills" -ge "$KILLS" -a "$cuts" -ge "$CUTS"
echo "faults over after $(( ($(now) - t0) / 1000000 ))s: $kills kills, $cuts partitions"

# --- the end ---------------------------------------------------------------
wait "$SUBMIT_PID" 2>/dev/null
t1=$SECONDS
while [ $((SECONDS - t1)) -lt "$DRAIN" ]; do
	# An empty answer from a schedd that answered, not no answer.
	left=$(on cm condor_q -af ProcId 2>/dev/null) && [ -z "$left" ] && break
	sleep 2
done
echo "drained $((SECONDS - t1))s after the faults"
wait "$NATIVE_PID" 2>/dev/null
on cm condor_q -af ClusterId ProcId JobStatus ChaosTag HoldReason >"$W/queue.txt" 2>&1
on cm condor_history -af ClusterId ProcId JobStatus ChaosTag >"$W/history.txt" 2>&1

# Stop every master and see that nothing of the pool stays behind.
for h in "${ALL_HOSTS[@]}"; do
	pid=${POOL_MASTER_PID[$h]:-}
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
done
for h in "${ALL_HOSTS[@]}"; do pool_stop_host "$h"; done
left_behind() { test -z "$(pool_pids | grep -vx $$)"; }
if wait_for 30 left_behind; then
	pass "no process of the pool outlives its stopped masters"
else
	fail "no process of the pool outlives its stopped masters" \
	    "$(for p in $(pool_pids); do [ "$p" = $$ ] || echo "$p $(cat /proc/$p/comm 2>/dev/null)"; done | tr '\n' ' ')"
fi
check "no execute directory is left" bash -c \
	"! ls -d '$POOL'/exec*/execute/dir_* 2>/dev/null | grep -q ."

# The queue log read back: a new schedd on the central manager.
pool_start_host cm
if wait_for 60 test -S "$POOL/cm/spool/.schedd_socket" &&
    wait_for 60 on cm condor_q -af ProcId &&
    [ "$(on cm condor_q -af ProcId | wc -l)" = "$(grep -c . "$W/queue.txt")" ] &&
    [ "$(on cm condor_history -af ProcId | wc -l)" = "$(grep -c . "$W/history.txt")" ]; then
	pass "a new schedd reads the queue log back"
else
	fail "a new schedd reads the queue log back" \
	    "$(grep -i 'queue log\|job_queue' "$POOL/cm/log/SchedLog" | tail -3)"
fi
pool_stop_host cm
stop_helpers

python3 "$TOP/tests/chaos/chaos_check.py" "$POOL" "$W" >"$W/check.out" 2>&1
rc=$?
[ "$rc" -gt 1 ] && fail "the checks ran" "chaos_check.py exited $rc: $(tail -n 3 "$W/check.out" | tr '\n' ' ')"
grep -v '^TABLE ' "$W/check.out"
grep '^TABLE ' "$W/check.out"
grep -q '^FAIL ' "$W/check.out" && POOL_FAILS=$((POOL_FAILS + 1))
if [ "$POOL_FAILS" -gt 0 ]; then
	echo "chaos seed $SEED failed: CHAOS_SEED=$SEED CHAOS_JOBS=$JOBS CHAOS_KILLS=$KILLS CHAOS_CUTS=$CUTS CHAOS_HOSTS=$HOSTS CHAOS_SECONDS=$INJECT $0"
fi
exit 0
