#!/usr/bin/env bash
# tests/pool/ckpt_incr_pool_test.sh: incremental checkpoints under
# Condor (INCREMENTAL_CHECKPOINTS = True).  A standard job
# (tests/ckpt/incr.c, relinked) rewrites 1 % of 64 MiB between the
# checkpoints it takes with ckpt(): its first checkpoint is shipped
# whole, the next ones as deltas of about 1 % (the StarterLog's byte
# counts), each folded by the shadow into the stored checkpoint
# ("incremental, folded" in the ShadowLog, every checksum verified).
# Then the job is stopped, so that its vacate cannot write a
# checkpoint, and vacated: it resumes elsewhere from the folded chain
# and its output is identical to a native run's.
#
# checks: 14
set -u
. "$(dirname "$0")/../lib/pool.sh"
. "$(dirname "$0")/../lib/standard_pool.sh"

MIB=64
ROUNDS=14
standard_pool 2 'SUSPEND : FALSE' 'MAX_JOB_STARTS = 10' \
	'PERIODIC_CHECKPOINT_INTERVAL = 0' 'VACATE_GRACE = 3' \
	'INCREMENTAL_CHECKPOINTS = True' 'CKPT_MAX_DELTAS = 4' \
	'NEGOTIATOR_INTERVAL = 2'
cd "$W" || exit 1
check "incr builds natively and relinks with condor_cc" \
	bash -c "cc -O2 -static -o '$W/incr.native' '$TOP/tests/ckpt/incr.c' &&
	    '$TOP/bin/condor_cc' -O2 -o '$W/incr' '$TOP/tests/ckpt/incr.c'"
(cd "$W" && ./incr.native $MIB $ROUNDS -1 >native.txt)
pool_owner "$W"
cm() { on cm "$@"; }
attr() { cm condor_q "$1" -af "$2" 2>/dev/null; }
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
cat >incr.sub <<EOF
universe   = standard
executable = incr
arguments  = $MIB $ROUNDS -1 - 1500
output     = out.txt
error      = err.txt
log        = $W/incr.log
queue
EOF
chmod 644 incr.sub
C=$( (cd "$W" && as_owner "$RELEASE/bin/condor_submit" incr.sub 2>&1) |
    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "the job is submitted" test -n "$C"

ckpts() { local n; n=$(attr "$C.0" NumCkpts); [ "${n:-0}" -ge "$1" ]; }
check "four checkpoints are installed while it runs" wait_for 120 ckpts 4
folded=$(grep -c "job $C.0: checkpoint [0-9]* installed: .*(incremental, folded)" \
    "$POOL/cm/log/ShadowLog")
check "the shadow folded the three after the first ($folded)" \
	test "$folded" -ge 3
# What the starter shipped, checkpoint by checkpoint.
sizes=$(cat "$POOL"/exec*/log/StarterLog | sed -n \
    "s/.*job $C\.0: checkpoint [0-9]* shipped: \([0-9]*\) bytes.*/\1/p")
echo "shipped: $(echo $sizes)"
first=$(echo "$sizes" | sed -n 1p)
check "the first is shipped whole ($first bytes)" \
	test "${first:-0}" -ge $((MIB << 20))
bad=0 n=0
for s in $(echo "$sizes" | sed -n 2,4p); do
	n=$((n + 1))
	# 1 % of the block, the program's new mapping, break, stack,
	# data: between 0.5 and 3 % of the whole.
	if [ $((s * 200)) -lt "$first" ] || [ $((s * 100)) -gt $((first * 3)) ]; then
		bad=$((bad + 1))
	fi
done
check "the next three are each about 1 % of it" test "$n" = 3 -a "$bad" = 0
f=$(ls "$POOL/cm/spool" | grep "^cluster$C\\.proc0\\.ckpt\$")
check "the stored checkpoint is whole (condor_ckpt info)" bash -c \
	"'$TOP/bin/condor_ckpt' info '$POOL/cm/spool/$f' >/dev/null"

# Stopped, it cannot checkpoint within VACATE_GRACE: killed, it resumes
# from the last folded checkpoint.
host=$(attr "$C.0" RemoteHost)
sed -i '/^START : /d' "$POOL/$host/condor_config.local"
echo 'START : FALSE' >>"$POOL/$host/condor_config.local"
spid=$(sed -n 's/.*condor_startd starting (pid \([0-9]*\)).*/\1/p' \
    "$POOL/$host/log/StartLog" | tail -1)
[ -n "$spid" ] && kill -HUP "$spid"
pid=$(sed -n "s/.*job $C\.0 started: pid \([0-9]*\) .*/\1/p" \
    "$POOL/$host/log/StarterLog" | tail -1)
stopped=no
[ -n "$pid" ] && kill -STOP "$pid" && stopped=yes
cm condor_vacate "$host" >/dev/null 2>&1
check "the job was stopped and vacated" test "$stopped" = yes
check "job $C.0 completes" wait_for 240 in_history "$C.0"
check "its eviction was not checkpointed" \
	grep -q '(0) Job was not checkpointed' "$W/incr.log"
check_resumed "$C.0" "$W/incr" +2
check "its output is identical to the native run's" cmp native.txt out.txt
exit $((POOL_FAILS > 0))
