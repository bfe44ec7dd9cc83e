#!/usr/bin/env bash
# tests/pool/ckpt_full_test.sh: a standard job whose checkpoint does not
# fit in SPOOL (a small tmpfs).  Its periodic checkpoints are refused,
# nothing half written stays in SPOOL, and the job goes on running; once
# SPOOL has room the next one is installed (condor_ckpt info finds it
# whole); vacated, the job resumes from it elsewhere and its output is
# identical to a native run's.
#
# checks: 12
set -u
. "$(dirname "$0")/../lib/pool.sh"

CHECKS=("the schedd listens" "two machines advertise"
    "fill_compute builds natively" "fill_compute relinks with condor_cc"
    "the job runs" "a checkpoint that does not fit is refused, the job runs on"
    "... no checkpoint counted, nothing half written left in SPOOL"
    "with room, the next checkpoint is installed, whole"
    "condor_vacate of its host is obeyed"
    "it resumes from its checkpoint elsewhere and completes"
    "it resumed from its checkpoint"
    "its output is identical to the native run's")
if [ "$(id -u)" != 0 ]; then
	for c in "${CHECKS[@]}"; do skip "$c" "mounting a small file system needs root"; done
	exit 0
fi

pool_init
chmod 755 "$POOL"
SPOOL="$POOL/cm/spool"
mkdir -p "$SPOOL"
if ! mount -t tmpfs -o size=6m,mode=755 tmpfs "$SPOOL"; then
	for c in "${CHECKS[@]}"; do skip "$c" "cannot mount a tmpfs here"; done
	exit 0
fi
trap 'pool_cleanup 2>/dev/null; umount "$SPOOL" 2>/dev/null || umount -l "$SPOOL"; [ "$POOL_FAILS" -gt 0 ] || rm -rf "$POOL"' EXIT
pool_config 'START : TRUE' 'SUSPEND : FALSE' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTER_TIMEOUT = 20' 'PERIODIC_CHECKPOINT_INTERVAL = 2' \
	'VACATE_GRACE = 10' 'MAX_JOB_STARTS = 10'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
pool_host exec2 "MASTER, STARTD"
pool_start
check "the schedd listens" wait_for 60 test -S "$SPOOL/.schedd_socket"
check "two machines advertise" pool_wait_machines 2 60

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
cd "$W" || exit 1
cm() { on cm "$@"; }
attr() { cm condor_q "$1" -af "$2" 2>/dev/null; }
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
MIB=16
ROUNDS=6000
check "fill_compute builds natively" cc -O2 -static -o fill.native \
	"$TOP/tests/programs/fill_compute.c"
check "fill_compute relinks with condor_cc" condor_cc -O2 -o fill \
	"$TOP/tests/programs/fill_compute.c"
./fill.native $MIB $ROUNDS >native.txt
pool_owner "$W"
cat >fill.sub <<EOF
universe   = standard
executable = fill
arguments  = $MIB $ROUNDS
output     = out.txt
log        = $W/fill.log
queue
EOF
chmod 644 fill.sub
C=$( (cd "$W" && as_owner "$RELEASE/bin/condor_submit" fill.sub 2>&1) |
    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "the job runs" wait_for 120 bash -c "[ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_q $C.0 -af JobStatus)\" = 2 ]"
# The program is in SPOOL; what is left cannot hold 16 MiB of memory.
check "a checkpoint that does not fit is refused, the job runs on" bash -c \
	"t=0; until grep -q 'job $C.0: cannot write its checkpoint' '$POOL/cm/log/ShadowLog'; do t=\$((t+1)); [ \$t -gt 300 ] && exit 1; sleep 0.2; done; sleep 3; [ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_q $C.0 -af JobStatus)\" = 2 ]"
check "... no checkpoint counted, nothing half written left in SPOOL" bash -c \
	"[ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_q $C.0 -af NumCkpts)\" = 0 ] && ! ls '$SPOOL' | grep -q '\\.tmp\$'"
mount -o remount,size=128m "$SPOOL"
ckpt_in() { [ "$(attr "$C.0" NumCkpts)" -ge 1 ] 2>/dev/null; }
check "with room, the next checkpoint is installed, whole" bash -c \
	"t=0; until [ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_q $C.0 -af NumCkpts)\" -ge 1 ] 2>/dev/null; do t=\$((t+1)); [ \$t -gt 300 ] && exit 1; sleep 0.2; done; f=\$(ls '$SPOOL' | grep 'ckpt\$' | grep -v ickpt | head -1); [ -n \"\$f\" ] && condor_ckpt info '$SPOOL'/\$f >/dev/null"
host=$(attr "$C.0" RemoteHost)
sed -i '/^START : /d' "$POOL/$host/condor_config.local"
echo 'START : FALSE' >>"$POOL/$host/condor_config.local"
spid=$(sed -n 's/.*condor_startd starting (pid \([0-9]*\)).*/\1/p' "$POOL/$host/log/StartLog" | tail -1)
[ -n "$spid" ] && kill -HUP "$spid"
check "condor_vacate of its host is obeyed" cm condor_vacate "$host"
check "it resumes from its checkpoint elsewhere and completes" \
	wait_for 300 in_history "$C.0"
check_resumed "$C.0" "$W/fill" 2
check "its output is identical to the native run's" cmp -s native.txt out.txt
