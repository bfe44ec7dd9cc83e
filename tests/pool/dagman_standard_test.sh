#!/usr/bin/env bash
# tests/pool/dagman_standard_test.sh: a relinked standard-universe node
# in the middle of a DAG (first -> P -> last) is checkpointed, vacated
# and resumes on the other host, and the DAG does not notice: P is
# submitted once and ends once (one 000, one 005; executes on two hosts
# with a checkpointed eviction between), its output is a native run's,
# last runs on it, and the DAG exits 0.
#
# checks: 14
set -u
. "$(dirname "$0")/../lib/pool.sh"
. "$(dirname "$0")/../lib/standard_pool.sh"

standard_pool 2 'SUSPEND : FALSE' 'MAX_JOB_STARTS = 10' \
	'PERIODIC_CHECKPOINT_INTERVAL = 3' 'VACATE_GRACE = 3'
cd "$W" || exit 1
export CONDOR_TEST_POOL=$POOL
N=30000000
STEP=1000000
check "demo_primes relinks with condor_cc" \
	"$RELEASE/bin/condor_cc" -O2 -o "$W/primes" "$TOP/tests/programs/demo_primes.c"
cc -O2 -static -o "$W/primes.native" "$TOP/tests/programs/demo_primes.c" &&
    "$W/primes.native" $N $STEP >"$W/native.txt"
pool_owner "$W"
cm() { on cm "$@"; }
attr() { cm condor_q "$1" -af "$2" 2>/dev/null; }

cat >say.sh <<'EOF'
#!/bin/sh
echo "$@"
EOF
cat >lines.sh <<'EOF'
#!/bin/sh
wc -l <out.txt | tr -d ' '
EOF
chmod 755 say.sh lines.sh
cat >first.sub <<'EOF'
universe   = vanilla
executable = say.sh
arguments  = first
output     = first.out
queue
EOF
cat >primes.sub <<EOF
universe   = standard
executable = primes
arguments  = $N $STEP
output     = out.txt
error      = err.txt
queue
EOF
cat >last.sub <<'EOF'
universe                = vanilla
executable              = lines.sh
should_transfer_files   = YES
when_to_transfer_output = ON_EXIT
transfer_input_files    = out.txt
output                  = last.out
queue
EOF
cat >std.dag <<'EOF'
JOB first first.sub
JOB P primes.sub
JOB last last.sub
PARENT first CHILD P
PARENT P CHILD last
EOF
chmod -R a+rwX "$W"
D=$(CONDOR_CONFIG=$POOL/cm/condor_config as_owner "$RELEASE/bin/condor_submit_dag" \
    std.dag 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "the DAG is queued" test -n "$D"

# P's job, once the manager has queued it.
pjob_known() { [ -n "$(pjob)" ]; }
pjob() { awk '/^000 \(/ { c = substr($2, 2) + 0 } /^    DAG Node: P$/ { print c; exit }' std.dag.nodes.log 2>/dev/null; }
check "P's job is queued after first" wait_for 120 pjob_known
C=$(pjob)
C=${C:-0}
running() { [ "$(attr "$C.0" JobStatus)" = 2 ] && attr "$C.0" RemoteHost | grep -q .; }
ckpt() { [ "$(attr "$C.0" NumCkpts)" -gt 0 ] 2>/dev/null; }
run_ckpt() { running && ckpt; }
check "P runs and commits a checkpoint" wait_for 180 run_ckpt
host=$(attr "$C.0" RemoteHost)
f="$POOL/$host/condor_config.local"
sed -i '/^START : /d' "$f"
echo "START : FALSE" >>"$f"
pid=$(sed -n 's/.*condor_startd starting (pid \([0-9]*\)).*/\1/p' "$POOL/$host/log/StartLog" | tail -1)
[ -n "$pid" ] && kill -HUP "$pid"
cm condor_vacate "$host" >/dev/null 2>&1
elsewhere() { running && [ "$(attr "$C.0" RemoteHost)" != "$host" ]; }
check "P was vacated from $host and runs on the other host" wait_for 120 elsewhere
finished() { test -n "$(cm condor_history "$D.0" -af ProcId 2>/dev/null)"; }
check "the DAG finishes" wait_for 300 finished
check "with exit 0" test "$(cm condor_history "$D.0" -af ExitCode 2>/dev/null)" = 0
check "P's output is a native run's" cmp -s native.txt out.txt
check "last ran on P's output" test "$(cat last.out 2>/dev/null)" = "$(wc -l <native.txt | tr -d ' ')"
pev() { awk -v c="$C" '/^[0-9][0-9][0-9] \(/ { if (substr($2, 2) + 0 == c) print $1 }' std.dag.nodes.log; }
check "P: one 000 and one 005 in the node log" \
	test "$(pev | grep -c '^000$') $(pev | grep -c '^005$')" = "1 1"
check "P: executed twice, a checkpointed eviction between" \
	test "$(pev | grep -c '^001$')" -ge 2 -a "$(grep -A1 "^004 ($(printf %03d "$C")" std.dag.nodes.log | grep -c 'Job was checkpointed')" -ge 1
check "the manager queued P once and never retried it" \
	test "$(grep -c 'Node P: submitted' std.dag.dagman.out) $(grep -c 'Node P: retry' std.dag.dagman.out)" = "1 0"
pool_stop
