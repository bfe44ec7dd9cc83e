#!/usr/bin/env bash
# tests/pool/disk_full_test.sh: SPOOL, LOG and EXECUTE each on a small
# file system of its own (tmpfs with a size limit), filled to the last
# block.  A submit into a full SPOOL, or one whose queue does not fit
# though its program does, fails with a clear message and queues
# nothing (its program is not left behind); the schedd keeps answering
# and queues again once there is room; what was committed survives a
# restart of the central manager.  With LOG full the daemons keep
# running and jobs complete, and they log again once there is room.  A
# host whose EXECUTE is small advertises it (Disk), and a program that
# would not fit runs on another host, never held.
#
# checks: 14
set -u
. "$(dirname "$0")/../lib/pool.sh"

CHECKS=("the schedd listens" "two machines advertise"
    "a submit into a full SPOOL fails, saying why"
    "... and queues nothing"
    "a submit whose queue does not fit fails, saying why"
    "... nothing half-queued, its program not left in SPOOL"
    "the schedd still answers" "with room again, jobs are queued and complete"
    "after a restart of the central manager the queue is what was committed"
    "with LOG full the daemons keep running: a job completes"
    "... and they log again once there is room"
    "a host with a small EXECUTE advertises its small Disk"
    "a program bigger than a host's EXECUTE runs on the other host"
    "... never tried on the small one, never held")
if [ "$(id -u)" != 0 ]; then
	for c in "${CHECKS[@]}"; do skip "$c" "mounting a small file system needs root"; done
	exit 0
fi

pool_init
chmod 755 "$POOL"
MOUNTS=()
# small DIR SIZE: DIR on a tmpfs of SIZE, unmounted by path at exit.
small() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2,mode=755" tmpfs "$1" || {
		for c in "${CHECKS[@]}"; do skip "$c" "cannot mount a tmpfs here"; done
		exit 0
	}
	MOUNTS+=("$1")
}
unmount_all() {
	local m
	for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m"; done
}
# The pool's tails are printed (on failure) before its file systems go.
trap 'pool_cleanup 2>/dev/null; unmount_all; [ "$POOL_FAILS" -gt 0 ] || rm -rf "$POOL"' EXIT
# fill DIR [KIB]: all of DIR's file system but KIB (default 0).
fill() {
	local avail
	avail=$(df -k --output=avail "$1" | tail -1)
	dd if=/dev/zero of="$1/filler" bs=1k count=$((avail - ${2:-0})) 2>/dev/null
	# To the last block (what the first left, in pages, say).
	[ -n "${2:-}" ] || dd if=/dev/zero of="$1/filler2" bs=1k 2>/dev/null
	return 0
}
unfill() { rm -f "$1/filler" "$1/filler2"; }

pool_config 'START : TRUE' 'SUSPEND : FALSE' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTER_TIMEOUT = 20'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
pool_host exec2 "MASTER, STARTD"
small "$POOL/cm/spool" 4m
small "$POOL/cm/log" 1m
small "$POOL/exec1/execute" 1m
pool_start

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "two machines advertise" pool_wait_machines 2 60

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
cd "$W" || exit 1
cm() { on cm "$@"; }
njobs() { cm condor_q -af ProcId 2>/dev/null | wc -l; }
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
printf '#!/bin/sh\necho "job $1"\n' >tiny.sh
chmod 755 tiny.sh
cat >small.sub <<'EOF'
universe   = vanilla
executable = tiny.sh
arguments  = $(Process)
output     = small.$(Cluster).$(Process).out
queue 2
EOF

# --- SPOOL ------------------------------------------------------------
fill "$POOL/cm/spool"
out=$(cm condor_submit small.sub 2>&1)
check "a submit into a full SPOOL fails, saying why" \
	grep -q "No space left on device" <<<"$out"
check "... and queues nothing" test "$(njobs)" = 0
unfill "$POOL/cm/spool"
cat >big.sub <<'EOF'
universe   = vanilla
executable = tiny.sh
arguments  = a long argument that makes each job ad larger $(Process)
output     = /dev/null
queue 5000
EOF
fill "$POOL/cm/spool" 16
out=$(cm condor_submit big.sub 2>&1)
check "a submit whose queue does not fit fails, saying why" \
	grep -q "cannot write the job queue: No space left on device" <<<"$out"
[ "$POOL_FAILS" = 0 ] || echo "condor_submit said: $out"
check "... nothing half-queued, its program not left in SPOOL" bash -c \
	"[ \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_q -af ProcId | wc -l)\" = 0 ] && ! ls '$POOL/cm/spool' | grep -q '^cluster'"
check "the schedd still answers" cm condor_q -totals
unfill "$POOL/cm/spool"
C=$(cm condor_submit small.sub 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "with room again, jobs are queued and complete" bash -c \
	"[ -n '$C' ] && for p in 0 1; do t=0; until [ -n \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_history $C.\$p -af ProcId)\" ]; do t=\$((t+1)); [ \$t -gt 300 ] && exit 1; sleep 0.2; done; done; grep -qx 'job 1' small.$C.1.out"
# One more, left idle by START false everywhere, then a restart.
cat >held.sub <<'EOF'
universe     = vanilla
executable   = tiny.sh
requirements = Memory < 0
queue 3
EOF
H=$(cm condor_submit held.sub 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
before=$( (cm condor_q -af ClusterId ProcId; cm condor_history -af ClusterId ProcId) | sort)
pool_stop_host cm
pool_start_host cm
wait_for 60 cm condor_q -totals
after=$( (cm condor_q -af ClusterId ProcId; cm condor_history -af ClusterId ProcId) | sort)
check "after a restart of the central manager the queue is what was committed" \
	test -n "$H" -a "$before" = "$after"
cm condor_rm "$H" >/dev/null 2>&1

# --- LOG --------------------------------------------------------------
wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
pool_wait_machines 2 60
fill "$POOL/cm/log"
C=$(cm condor_submit small.sub 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "with LOG full the daemons keep running: a job completes" bash -c \
	"[ -n '$C' ] && t=0; until [ -n \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_history $C.1 -af ProcId)\" ]; do t=\$((t+1)); [ \$t -gt 300 ] && exit 1; sleep 0.2; done"
unfill "$POOL/cm/log"
C2=$(cm condor_submit small.sub 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "... and they log again once there is room" \
	wait_for 90 grep -q "job $C2\\.1 completed" "$POOL/cm/log/SchedLog"

# --- EXECUTE ----------------------------------------------------------
# exec1's EXECUTE holds 1 MiB: it says so (Disk), and a 2 MiB program,
# which asks for as much disk, is not matched there.
check "a host with a small EXECUTE advertises its small Disk" bash -c \
	"d=\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_status -constraint 'Name == \"exec1\"' -af Disk); [ -n \"\$d\" ] && [ \"\$d\" -le 1024 ]"
{ printf '#!/bin/sh\necho "big job ran"\nexit 0\n'; head -c 2097152 /dev/zero | tr '\0' '#'; echo; } >big.sh
chmod 755 big.sh
cat >bigexe.sub <<'EOF'
universe   = vanilla
executable = big.sh
output     = bigexe.out
log        = bigexe.log
queue
EOF
B=$(cm condor_submit bigexe.sub 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
big_done() { in_history "$B.0" && [ "$(cm condor_history "$B.0" -af LastRemoteHost)" = exec2 ] && grep -qx 'big job ran' bigexe.out; }
check "a program bigger than a host's EXECUTE runs on the other host" \
	wait_for 120 big_done
check "... never tried on the small one, never held" bash -c \
	"! grep -q 'job $B\\.0 ' '$POOL/exec1/log/StarterLog' && ! grep -q '^012 ' bigexe.log"
