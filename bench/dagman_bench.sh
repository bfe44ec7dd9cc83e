#!/usr/bin/env bash
# DAGMan: (a) 10,000 trivial nodes in 100 independent chains of 100 on a
# pool of 8 execute hosts, beside the same 10,000 jobs submitted as one
# cluster in the same run (goal: the DAG takes at most 1.2x the flat
# cluster); (c) recovery of a 100,000-node DAG with 50,000 nodes done,
# from its node log (condor_dagman -recovery_only; goal under 2 s).
# (b), parsing a 1,000,000-node DAG, is bench/dag_parse_bench.sh.
# Prints rows "what|measured|goal" for bench/run.
#
# Environment:
#   DAG_BENCH_CHAINS=100 DAG_BENCH_LENGTH=100   the DAG of (a)
#   DAG_BENCH_HOSTS=8                           execute hosts
#   DAG_BENCH_POOL=1                            0: skip (a)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
CHAINS=${DAG_BENCH_CHAINS:-100}
LENGTH=${DAG_BENCH_LENGTH:-100}
HOSTS=${DAG_BENCH_HOSTS:-8}
N=$((CHAINS * LENGTH))
SCRATCH=$(mktemp -d /tmp/dagman-bench.XXXXXX)
chmod 755 "$SCRATCH"
. "$TOP/tests/lib/pool.sh"
POOL=
cleanup() {
	[ -n "$POOL" ] && pool_stop >/dev/null 2>&1
	[ -n "$POOL" ] && rm -rf "$POOL"
	rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# ---- (c) recovery ------------------------------------------------------
recovery() {
	local d=$SCRATCH/recovery chains=1000 len=100 out t
	mkdir -p "$d"
	cat >"$d/condor_config" <<EOF
RELEASE_DIR = $TOP
LOCAL_DIR = $d
EOF
	printf 'universe = vanilla\nexecutable = /bin/true\nqueue\n' >"$d/node.sub"
	python3 - "$d" "$chains" "$len" <<'PYEND'
import sys
d, chains, length = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(d + "/big.dag", "w") as f:
    for c in range(chains):
        for s in range(length):
            f.write("JOB n%d_%d node.sub\n" % (c, s))
            if s:
                f.write("PARENT n%d_%d CHILD n%d_%d\n" % (c, s - 1, c, s))
# Half of every chain done: 000 (naming the node), 001, 005 each.
cl = 100
with open(d + "/big.dag.nodes.log", "w") as f:
    for s in range(length // 2):
        for c in range(chains):
            cl += 1
            f.write("000 (%03d.000.000) 11/27 10:00:00 Job submitted from host: <127.0.0.1:9618>\n"
                    "    DAG Node: n%d_%d\n...\n" % (cl, c, s))
            f.write("001 (%03d.000.000) 11/27 10:00:01 Job executing on host: <127.0.0.1:9619>\n"
                    "\tSlotName: slot1@exec1\n...\n" % cl)
            f.write("005 (%03d.000.000) 11/27 10:00:02 Job terminated.\n"
                    "\t(1) Normal termination (return value 0)\n...\n" % cl)
with open(d + "/big.dag.lock", "w") as f:
    f.write("7.0\n")
PYEND
	out=$(cd "$d" && CONDOR_CONFIG=$d/condor_config CONDOR_ID=7.0 \
	    /usr/bin/time -f '%e %M' "$TOP/bin/condor_dagman" -Dag big.dag \
	    -recovery_only 2>"$d/time")
	t=$(tail -n 1 "$d/time")
	echo "recovery of a 100,000-node DAG, 50,000 done, from its node log|$(sed -n 's/.* in \([0-9.]*\) s.*/\1 s/p' <<<"$out")|under 2 s (whole command ${t% *} s, $((${t#* } / 1024)) MiB; $(sed -n 's/.*s: //p' <<<"$out"))"
}

# ---- (a) the DAG beside the flat cluster ------------------------------
pool_side() {
	local W t0 t1 flat dagt D C i
	pool_init
	trap cleanup EXIT
	chmod 755 "$POOL"
	pool_config 'START : TRUE' 'SUSPEND : FALSE' 'MAIL =' \
	    'NEGOTIATOR_INTERVAL = 1' 'SCHEDD_INTERVAL = 1' \
	    'STARTD_UPDATE_INTERVAL = 1' 'POLLING_INTERVAL = 1' \
	    'STARTER_UPDATE_INTERVAL = 1' "MAX_JOB_STARTS = $N" \
	    "MAX_JOBS_RUNNING = $N" 'PREEMPTION_ENABLED = FALSE'
	pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
	for i in $(seq 1 "$HOSTS"); do
		pool_host "exec$i" "MASTER, STARTD"
	done
	pool_start
	if ! wait_for 60 test -S "$POOL/cm/spool/.schedd_socket" ||
	    ! pool_wait_machines "$HOSTS" 60; then
		echo "DAG of $N nodes vs one cluster|not run|the pool did not come up"
		return
	fi
	W=$POOL/work
	mkdir -p "$W"
	chmod 777 "$W"
	cd "$W" || return
	export CONDOR_TEST_POOL=$POOL
	printf 'universe = vanilla\nexecutable = /bin/true\noutput = /dev/null\nerror = /dev/null\nqueue %d\n' "$N" >flat.sub
	printf 'universe = vanilla\nexecutable = /bin/true\noutput = /dev/null\nerror = /dev/null\nqueue\n' >node.sub
	awk -v c="$CHAINS" -v l="$LENGTH" 'BEGIN {
		for (i = 0; i < c; i++) for (s = 0; s < l; s++) {
			printf "JOB n%d_%d node.sub\n", i, s
			if (s) printf "PARENT n%d_%d CHILD n%d_%d\n", i, s - 1, i, s
		} }' >chains.dag
	left() { on cm condor_q -af ProcId 2>/dev/null | wc -l; }

	t0=$(now)
	C=$(on cm condor_submit flat.sub | sed -n 's/.* cluster \([0-9]*\)\./\1/p')
	while [ "$(left)" != 0 ]; do sleep 0.5; done
	t1=$(now)
	flat=$(elapsed "$t0" "$t1")
	echo "$N x /bin/true as one cluster, $HOSTS execute hosts|$flat s|(the reference)"

	t0=$(now)
	D=$(on cm condor_submit_dag chains.dag | sed -n 's/.* cluster \([0-9]*\)\./\1/p')
	until [ -n "$(on cm condor_history "$D.0" -af ExitCode 2>/dev/null)" ]; do
		sleep 0.5
	done
	t1=$(now)
	dagt=$(elapsed "$t0" "$t1")
	echo "the same as a DAG of $CHAINS chains of $LENGTH|$dagt s ($(awk -v a="$dagt" -v b="$flat" 'BEGIN { printf "%.2fx", a / b }'))|at most 1.2x the cluster (exit $(on cm condor_history "$D.0" -af ExitCode))"
	cd "$TOP" || return
	pool_stop >/dev/null 2>&1
}

recovery
[ "${DAG_BENCH_POOL:-1}" = 1 ] && pool_side
exit 0
