#!/usr/bin/env bash
# tests/pool/pslot_test.sh: partitionable slots.  A startd with
# NUM_CPUS = 4 and MEMORY = 8192 advertises slot1@exec1; four 1-core
# jobs run on it at once (each writes a start marker, then waits for a
# file the test makes only once all four markers are there), each in a
# dynamic slot slot1_N@exec1 named in the user log; then one 4-core job
# runs alone (slot1 shows Cpus 0 meanwhile); a job with request_gpus
# finds its GPU in CUDA_VISIBLE_DEVICES; condor_vacate of the host sends
# every job of it away; when the owner comes back every dynamic slot
# is suspended, and continues when the owner leaves; a job asking more
# memory
# than any machine has stays idle and condor_q -analyze names the
# memory; the dynamic slots leave condor_status with their jobs and
# slot1 is whole again (condor_status -compact shows the machine on one
# line); a startd with NUM_CPUS = 1 (tests/lib/pool.sh's) keeps its
# one ad named HOST; a startd that stops withdraws all its slots' ads.
#
# checks: 41
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTER_TIMEOUT = 20' 'VACATE_GRACE = 2'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD" 'NUM_CPUS = 4' 'MEMORY = 8192' \
	'MACHINE_RESOURCE_GPUs = 2' 'CONTINUE : KeyboardIdle > 2'
# A whole machine that takes no job: only its ad is looked at.
pool_host exec2 "MASTER, STARTD" 'START : FALSE' 'MEMORY = 4096'
pool_start

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "two machine ads come in" pool_wait_machines 2 60

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
X="$POOL/exec1/execute"
# markers TAG: how many jobs marked their start; go TAG: let them end.
markers() { ls "$X"/dir_*/"started.$1" 2>/dev/null | wc -l; }
markers_are() { test "$(markers "$1")" -eq "$2"; }
go() {
	local d
	for d in "$X"/dir_*; do
		[ -e "$d/started.$1" ] && touch "$d/go"
	done
}
cd "$W" || exit 1
cm() { on cm "$@"; }
submit() {
	cm condor_submit "$1" 2>&1 |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
names() { cm condor_status -af Name 2>/dev/null | sort | tr '\n' ' '; }
slot1() { cm condor_status -constraint 'Name == "slot1@exec1"' -af "$@" 2>/dev/null; }

check "the 4-core machine is slot1@exec1, the other keeps its HOST name" \
	wait_for 30 bash -c "[ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af Name | sort | tr '\n' ' ')\" = 'exec2 slot1@exec1 ' ]"
check "slot1 is partitionable with 4 cores and 8192 MiB" \
	test "$(slot1 SlotType PartitionableSlot Cpus Memory TotalSlotCpus)" = "Partitionable true 4 8192 4"
check "slot1 offers 2 GPUs" test "$(slot1 GPUs TotalSlotGPUs)" = "2 2"

# wait.sh TAG: mark the start in the job's execute directory, which the
# test sees from outside, then wait (at most 120 s) for the file "go"
# the test puts there.
cat >wait.sh <<'EOF'
#!/bin/sh
d=${_CONDOR_SCRATCH_DIR:-.}
touch "$d/started.$1"
i=0
while [ ! -e "$d/go" ] && [ $i -lt 600 ]; do sleep 0.2; i=$((i + 1)); done
[ -e "$d/go" ]
EOF
chmod 755 wait.sh

# --- four 1-core jobs at once -----------------------------------------
cat >four.sub <<'EOF'
universe       = vanilla
executable     = wait.sh
arguments      = one
request_cpus   = 1
request_memory = 1024
log            = four.log
queue 4
EOF
C=$(submit four.sub)
check "four 1-core jobs submitted" test -n "$C"
check "all four run at once (four start markers)" \
	wait_for 120 markers_are one 4
check "four dynamic slots in condor_status" \
	test "$(names)" = "exec2 slot1@exec1 slot1_1@exec1 slot1_2@exec1 slot1_3@exec1 slot1_4@exec1 "
check "... each Dynamic, Claimed, 1 core, 1024 MiB" bash -c \
	"[ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_status -constraint 'SlotType == \"Dynamic\"' -af SlotType State Cpus Memory | sort -u)\" = 'Dynamic Claimed 1 1024' ]"
check "slot1 has nothing left but memory" \
	test "$(slot1 Cpus Memory)" = "0 4096"
compact=$(cm condor_status -compact 2>/dev/null)
check "condor_status -compact: exec1 on one line, 4 slots of its 4 cores, 2 GPUs, 8 GB, 0 cores and 4 GB free, Cb" \
	test "$(awk '$1 == "exec1" { print $3, $4, $5, $6, $7, $8, $10 }' <<<"$compact")" = "4 4 2 8.0 0 4.0 Cb"
check "... exec2, a whole machine, is one slot of its own, and the totals follow" \
	bash -c "awk '\$1 == \"exec2\" { print \$3 }' <<<'$compact' | grep -qx 1 && grep -q '^Total ' <<<'$compact'"
go one
ok=1
for i in 0 1 2 3; do
	wait_for 90 in_history "$C.$i" || ok=0
done
check "the four jobs complete" test $ok = 1
check "the user log's SlotName names the dynamic slots" \
	test "$(grep -c 'SlotName: slot1_[1-4]@exec1$' four.log)" = 4
check "the dynamic slots leave condor_status" \
	wait_for 30 bash -c "[ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_status -af Name | sort | tr '\n' ' ')\" = 'exec2 slot1@exec1 ' ]"
check "slot1 is whole again" wait_for 30 bash -c \
	"[ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_status -constraint 'Name == \"slot1@exec1\"' -af Cpus Memory)\" = '4 8192' ]"
check "... and condor_status -compact shows it whole: no slots, all free, Ui" \
	test "$(cm condor_status -compact 2>/dev/null | awk '$1 == "exec1" { print $3, $4, $7, $8, $10 }')" = "0 4 4 8.0 Ui"

# --- one 4-core job alone ------------------------------------------------
cat >big.sub <<'EOF'
universe       = vanilla
executable     = wait.sh
arguments      = big
request_cpus   = 4
request_memory = 2048
log            = big.log
queue
EOF
B=$(submit big.sub)
check "a 4-core job starts" wait_for 120 markers_are big 1
check "slot1 shows Cpus 0 while it runs" \
	wait_for 20 bash -c "[ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_status -constraint 'Name == \"slot1@exec1\"' -af Cpus)\" = 0 ]"
check "its dynamic slot has the 4 cores" \
	test "$(cm condor_status -constraint 'SlotType == "Dynamic"' -af Cpus Memory 2>/dev/null)" = "4 2048"
go big
check "the 4-core job completes" wait_for 90 in_history "$B.0"

# --- a GPU ---------------------------------------------------------------
cat >gpu.sh <<'EOF'
#!/bin/sh
echo "CUDA=$CUDA_VISIBLE_DEVICES NAMES=$_CONDOR_AssignedGPUs"
EOF
chmod 755 gpu.sh
cat >gpu.sub <<'EOF'
universe     = vanilla
executable   = gpu.sh
request_gpus = 1
output       = gpu.out
queue
EOF
G=$(submit gpu.sub)
check "a job asking for a GPU completes" wait_for 90 in_history "$G.0"
check "... with its GPU in its environment" grep -qx "CUDA=0 NAMES=GPU-0" gpu.out

# --- condor_vacate of the host ---------------------------------------------
cat >vac.sub <<'EOF'
universe     = vanilla
executable   = wait.sh
arguments    = vac
log          = vac.log
queue 2
EOF
V=$(submit vac.sub)
check "two jobs run" wait_for 120 markers_are vac 2
first=$(ls -d "$X"/dir_* 2>/dev/null)
# rerun: both jobs marked their start again, in new directories.
rerun() {
	local n=0 d
	for d in "$X"/dir_*; do
		[ -e "$d/started.vac" ] || continue
		grep -qxF "$d" <<<"$first" || n=$((n + 1))
	done
	[ $n -eq 2 ]
}
check "condor_vacate exec1 is obeyed" cm condor_vacate exec1
evictions() { test "$(grep -c '^004 ' vac.log)" -ge 2; }
check "... and both jobs are evicted" wait_for 60 evictions
wait_for 120 rerun
go vac
ok=1
for i in 0 1; do
	wait_for 120 in_history "$V.$i" || ok=0
done
check "they run again and complete" test $ok = 1

# --- condor_vacate of one dynamic slot -------------------------------------
cat >one.sub <<'EOF'
universe     = vanilla
executable   = wait.sh
arguments    = sv
log          = sv.log
queue 2
EOF
S=$(submit one.sub)
check "two jobs run, in two dynamic slots" wait_for 120 markers_are sv 2
first=$(ls -d "$X"/dir_* 2>/dev/null)
victim=$(cm condor_status -constraint 'SlotType == "Dynamic"' -af Name 2>/dev/null | head -1)
check "condor_vacate $victim is obeyed" cm condor_vacate "$victim"
one_eviction() { test "$(grep -c '^004 ' sv.log)" -ge 1; }
wait_for 60 one_eviction
# again: the evicted job marked its start anew, the other never left.
again() {
	local n=0 fresh=0 d
	for d in "$X"/dir_*; do
		[ -e "$d/started.sv" ] || continue
		n=$((n + 1))
		grep -qxF "$d" <<<"$first" || fresh=$((fresh + 1))
	done
	[ $n -eq 2 ] && [ $fresh -eq 1 ]
}
check "only that slot's job was evicted and it runs again" \
	wait_for 120 again
go sv
ok=1
for i in 0 1; do
	wait_for 120 in_history "$S.$i" || ok=0
done
check "both complete, one evicted once" bash -c \
	"[ $ok = 1 ] && [ \$(grep -c '^004 ' sv.log) = 1 ]"

# --- the owner comes back ---------------------------------------------------
cat >own.sub <<'EOF'
universe     = vanilla
executable   = wait.sh
arguments    = own
queue 2
EOF
O=$(submit own.sub)
check "two jobs run before the owner comes" wait_for 120 markers_are own 2
# The owner types: the console device is touched until the test stops.
(while :; do touch "$POOL/exec1/tty"; sleep 0.3; done) &
TOUCHER=$!
dyn_states() {
	cm condor_status -constraint 'SlotType == "Dynamic"' -af State \
	    2>/dev/null | sort -u | tr '\n' ' '
}
states_are() { test "$(dyn_states)" = "$1 "; }
check "the owner is back: every dynamic slot is Suspended" \
	wait_for 30 states_are Suspended
kill "$TOUCHER"
wait "$TOUCHER" 2>/dev/null
check "the owner left: every dynamic slot is Claimed again" \
	wait_for 30 states_are Claimed
go own
ok=1
for i in 0 1; do
	wait_for 120 in_history "$O.$i" || ok=0
done
check "... and both jobs complete" test $ok = 1

# --- more memory than any machine has ------------------------------------
cat >huge.sub <<'EOF'
universe       = vanilla
executable     = wait.sh
arguments      = huge
request_memory = 100000
queue
EOF
H=$(submit huge.sub)
check "a job asking 100000 MiB is queued" test -n "$H"
cm condor_reschedule >/dev/null 2>&1
sleep 3
check "... and stays idle" \
	bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_q $H.0 -af JobStatus | grep -qx 1"
cm condor_q -analyze "$H.0" >analyze.out 2>&1
check "condor_q -analyze names the memory" grep -q \
	'^RequestMemory = 100000 MiB: no machine has that much Memory (largest: 8192)$' \
	analyze.out
check "slot1 is whole at the end" \
	test "$(slot1 Cpus Memory)" = "4 8192"

# --- a startd that stops takes its ads with it ----------------------------
names_are() { test "$(names)" = "$1"; }
cat >end.sub <<'EOF'
universe     = vanilla
executable   = wait.sh
arguments    = end
queue
EOF
E=$(submit end.sub)
check "a job runs before its startd stops" wait_for 120 markers_are end 1
pool_stop_host exec1
check "a stopped partitionable startd leaves no ad behind" \
	wait_for 30 names_are "exec2 "

pool_stop
exit $((POOL_FAILS > 0))
