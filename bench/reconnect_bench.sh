#!/usr/bin/env bash
# bench/reconnect_bench.sh (bench/run reconnect): how soon a disconnected
# job is running with its shadow again once the link heals.  A pool in
# network namespaces (tests/lib/netpool.sh: a central manager and one
# execute host); a vanilla job with job_lease_duration = 120 runs; its
# host is cut off at the switch until both sides say they lost each
# other (the starter "runs on under its lease", the shadow wrote 022),
# then healed; the time is from the heal to the starter's "reconnected
# to the shadow" in its log.  RECONNECT_ROUNDS rounds, one job each;
# prints the median and the spread.  Also the time from the cut to the
# shadow's 022 (STARTER_TIMEOUT = 8 here, RPC_TIMEOUT = 4).
#
#   RECONNECT_ROUNDS=5
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${RECONNECT_ROUNDS:-5}
. "$TOP/tests/lib/netpool.sh"
if ! netpool_usable; then
	echo "reconnect_bench: $NETPOOL_WHY" >&2
	exit 1
fi
netpool_init >/dev/null
chmod 755 "$POOL"
trap 'pool_cleanup >/dev/null; netpool_cleanup' EXIT
pool_config 'START : TRUE' 'SUSPEND : FALSE' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTER_TIMEOUT = 8' 'RPC_TIMEOUT = 4' 'MAX_JOB_STARTS = 10'
netpool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
netpool_host exec1 "MASTER, STARTD"
pool_start
if ! wait_for 60 test -S "$POOL/cm/spool/.schedd_socket" ||
    ! pool_wait_machines 1 60; then
	echo "reconnect_bench: the pool did not come up" >&2
	exit 1
fi
W=$POOL/work
mkdir -p "$W"
chmod 777 "$W"
cd "$W" || exit 1
printf '#!/bin/sh\nwhile [ ! -e /nonexistent ]; do echo tick; sleep 1; done\n' >tick.sh
chmod 755 tick.sh
cat >tick.sub <<'EOF'
universe           = vanilla
executable         = tick.sh
output             = tick.$(Cluster).out
log                = tick.log
job_lease_duration = 120
queue
EOF
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
stamp() { date -d "$1" +%s.%N; }
back=()
lost=()
for r in $(seq "$ROUNDS"); do
	C=$(on cm condor_submit tick.sub 2>/dev/null | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
	if [ -z "$C" ] || ! wait_for 60 grep -q tick "tick.$C.out"; then
		echo "reconnect_bench: the job did not start" >&2
		exit 1
	fi
	n022=$(grep -c '^022 ' tick.log)
	nrec=$(grep -c 'reconnected to the shadow' "$POOL/exec1/log/StarterLog")
	cut=$(date +%s.%N)
	netpool_cut exec1
	if ! wait_for 60 bash -c "[ \$(grep -c '^022 ' tick.log) -gt $n022 ]"; then
		echo "reconnect_bench: no 022" >&2
		exit 1
	fi
	t022=$(date +%s.%N)
	healed=$(date +%s.%N)
	netpool_heal exec1
	if ! wait_for 60 bash -c "[ \$(grep -c 'reconnected to the shadow' '$POOL/exec1/log/StarterLog') -gt $nrec ]"; then
		echo "reconnect_bench: no reconnection" >&2
		exit 1
	fi
	t=$(grep 'reconnected to the shadow' "$POOL/exec1/log/StarterLog" | tail -1 | cut -d' ' -f1-2)
	back+=("$(awk -v a="$healed" -v b="$(stamp "$t")" 'BEGIN { printf "%.3f", b - a }')")
	lost+=("$(awk -v a="$cut" -v b="$t022" 'BEGIN { printf "%.1f", b - a }')")
	echo "reconnect_bench: round $r: 022 after ${lost[-1]} s, back ${back[-1]} s after the heal" >&2
	on cm condor_rm "$C" >/dev/null 2>&1
	wait_for 60 bash -c "! nsenter --net=/run/netns/$(netpool_ns cm) env CONDOR_CONFIG=$POOL/cm/condor_config condor_q $C -af ProcId | grep -q ."
done
b=$(printf '%s\n' "${back[@]}" | median)
lo=$(printf '%s\n' "${back[@]}" | sort -g | head -1)
hi=$(printf '%s\n' "${back[@]}" | sort -g | tail -1)
l=$(printf '%s\n' "${lost[@]}" | median)
echo "reconnect: link healed to job reconnected (median of $ROUNDS; $lo - $hi s)|$b s|< 2 s"
echo "reconnect: link cut to the shadow's 022 (STARTER_TIMEOUT = 8)|$l s|"
