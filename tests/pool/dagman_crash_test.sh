#!/usr/bin/env bash
# tests/pool/dagman_crash_test.sh: a DAG of 200 nodes (10 chains of 20,
# with PRE and POST scripts on some) whose manager is killed with SIGKILL
# ten times at random moments, and whose schedd is killed once: the
# schedd starts the manager again each time, the manager recovers from
# its node log, and every node runs exactly once to completion (one 000
# and one 005 per node in the node log), the DAG finishes with exit 0,
# and every node's output is what an uninterrupted run writes.
# DAG_CRASH_SEED repeats a run.
#
# checks: 10
set -u
. "$(dirname "$0")/../lib/pool.sh"

seed=${DAG_CRASH_SEED:-$(( $(date +%s) % 100000 ))}
RANDOM=$seed
echo "# seed $seed (DAG_CRASH_SEED=$seed repeats it)"

pool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'SUSPEND : FALSE' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTER_TIMEOUT = 30' 'MAX_JOB_STARTS = 40'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD" 'NUM_CPUS = 6' 'MEMORY = 6144'
pool_host exec2 "MASTER, STARTD" 'NUM_CPUS = 6' 'MEMORY = 6144'
pool_start
check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "two machines advertise" pool_wait_machines 2 60

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
pool_owner "$W"
cd "$W" || exit 1
export CONDOR_TEST_POOL=$POOL
cm() { on cm "$@"; }

cat >say.sh <<'EOF'
#!/bin/sh
sleep 2
echo "node $1"
EOF
cat >mark.sh <<'EOF'
#!/bin/sh
exit 0
EOF
chmod 755 say.sh mark.sh
cat >node.sub <<'EOF'
universe   = vanilla
executable = say.sh
arguments  = $(JOB)
output     = out/$(JOB).out
error      = out/$(JOB).err
queue
EOF
mkdir -p out
{
	for c in $(seq 1 10); do
		for s in $(seq 1 20); do
			echo "JOB n${c}_$s node.sub"
			[ $((s % 4)) = 0 ] && echo "SCRIPT PRE n${c}_$s mark.sh \$JOB"
			[ $((s % 3)) = 0 ] && echo "SCRIPT POST n${c}_$s mark.sh \$JOB \$RETURN"
			[ "$s" -gt 1 ] && echo "PARENT n${c}_$((s - 1)) CHILD n${c}_$s"
		done
	done
} >big.dag
chmod -R a+rwX "$W"
D=$(CONDOR_CONFIG=$POOL/cm/condor_config as_owner "$RELEASE/bin/condor_submit_dag" \
    -maxjobs 30 big.dag 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "the 200-node DAG is queued" test -n "$D"

# The manager's pid, from its job's ad (the schedd runs it).
dagman_pid() { cm condor_q "$D.0" -af LocalJobPid 2>/dev/null | grep -E '^[0-9]+$'; }
done_nodes() { grep -c '^005 ' big.dag.nodes.log 2>/dev/null; }
finished() { test -n "$(cm condor_history "$D.0" -af ProcId 2>/dev/null)"; }
schedd_pid() { sed -n 's/.*condor_schedd starting (pid \([0-9]*\)).*/\1/p' "$POOL/cm/log/SchedLog" | tail -1; }

kills=0
restarts=0
for round in $(seq 1 10); do
	finished && break
	sleep "$((RANDOM % 2)).$((RANDOM % 10))"
	p=$(dagman_pid)
	[ -n "$p" ] || { wait_for 60 dagman_pid; p=$(dagman_pid); }
	[ -n "$p" ] || continue
	kill -KILL "$p" 2>/dev/null && kills=$((kills + 1))
	echo "# round $round: killed the manager ($p) with $(done_nodes) nodes done"
	if [ "$round" = 5 ]; then
		s=$(schedd_pid)
		kill -KILL "$s" 2>/dev/null && echo "# and the schedd ($s)"
		new_schedd() { [ -n "$(schedd_pid)" ] && [ "$(schedd_pid)" != "$s" ]; }
		wait_for 120 new_schedd
	fi
	restarted() { q=$(dagman_pid); [ -n "$q" ] && [ "$q" != "$p" ] || finished; }
	if wait_for 120 restarted; then
		restarts=$((restarts + 1))
	fi
done
check "the manager was killed 10 times and came back each time ($kills kills, $restarts restarts)" \
	test "$kills" = 10 -a "$restarts" = 10
check "the DAG finishes" wait_for 600 finished
check "with exit 0" test "$(cm condor_history "$D.0" -af ExitCode 2>/dev/null)" = 0
once() {
	awk '
	/^000 \(/ { c = substr($2, 2) + 0; pending = c; next }
	/^    DAG Node: / && pending != "" { node[pending] = $3; subs[$3]++; pending = ""; next }
	/^005 \(/ { c = substr($2, 2) + 0; ends[node[c]]++ }
	/^[0-9][0-9][0-9] \(/ { pending = "" }
	END {
		for (n in subs) { if (subs[n] != 1) bad++; nodes++ }
		for (n in ends) if (ends[n] != 1) bad++
		print nodes + 0, bad + 0
	}' big.dag.nodes.log
}
check "every node was submitted once and terminated once ($(once): nodes, wrong)" \
	test "$(once)" = "200 0"
check "no node job was removed" test "$(grep -c '^009 ' big.dag.nodes.log)" = 0
outs_ok() {
	local c s
	for c in $(seq 1 10); do for s in $(seq 1 20); do
		[ "$(cat "out/n${c}_$s.out" 2>/dev/null)" = "node n${c}_$s" ] || return 1
	done; done
}
check "every node's output is an uninterrupted run's" outs_ok
check "the manager said it recovered" grep -q '^.*Recovery: ' big.dag.dagman.out
pool_stop
