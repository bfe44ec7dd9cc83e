#!/usr/bin/env bash
# checks: 9
# tests/pool/ckpt_memory_pool_test.sh: restored memory inside the job's
# sandbox.  A standard-universe job whose memory keeps changing shape
# (tests/ckpt/memgrow.c: a large block grown with realloc, MADV_DONTNEED
# on an anonymous mapping, the break grown and shrunk, every round) is
# checkpointed periodically and vacated from its host once; it resumes
# from its checkpoint, under the seccomp filter of the sandbox, and must
# print what a native run prints.  The starters may hand the job
# /dev/userfaultfd (STARTER_USERFAULTFD) and the job asks for its memory
# on demand (CONDOR_RESTORE=lazy): the StarterLog says it came back so.
set -u
. "$(dirname "$0")/../lib/pool.sh"
. "$(dirname "$0")/../lib/standard_pool.sh"
INTERVAL=2
standard_pool 2 'SUSPEND : FALSE' 'MAX_JOB_STARTS = 10' \
	"PERIODIC_CHECKPOINT_INTERVAL = $INTERVAL" 'VACATE_GRACE = 10' \
	'STARTER_USERFAULTFD = True'
cd "$W" || exit 1
ROUNDS=40
WORK=150000000
check "memgrow builds natively and relinks" bash -c "cc -O2 -static -o '$W/memgrow.native' '$TOP/tests/ckpt/memgrow.c' &&
	'$RELEASE/bin/condor_cc' -O2 -o '$W/memgrow' '$TOP/tests/ckpt/memgrow.c'"
"$W/memgrow.native" $ROUNDS $WORK >"$W/native.txt"

pool_owner "$W"
cm() { on cm "$@"; }
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
attr() { cm condor_q "$1" -af "$2" 2>/dev/null; }

cat >memgrow.sub <<EOF2
universe   = standard
executable = memgrow
arguments  = $ROUNDS $WORK
output     = out.txt
error      = err.txt
log        = $W/memgrow.log
environment = CONDOR_RESTORE=lazy
queue
EOF2
chmod 644 memgrow.sub
C=$( (cd "$W" && as_owner "$RELEASE/bin/condor_submit" memgrow.sub 2>&1) |
    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "the job is submitted" test -n "$C"

running_on() {
	[ "$(attr "$C.0" JobStatus)" = 2 ] || return 1
	attr "$C.0" RemoteHost | grep -q .
}
ckpt_done() {
	local n
	n=$(attr "$C.0" NumCkpts)
	[ "${n:-0}" -gt 0 ]
}
# Vacated a second after its first periodic checkpoint, it resumes from
# the vacate checkpoint (on either host) with memory to grow and give
# back that the checkpoint saved.
moved=no
if wait_for 60 running_on && wait_for 60 ckpt_done; then
	host=$(attr "$C.0" RemoteHost)
	sleep 1
	cm condor_vacate "$host" >/dev/null 2>&1 && moved=yes
fi
check "the job was checkpointed and vacated" test "$moved" = yes
check "job $C.0 completes" wait_for 180 in_history "$C.0"
check "its output is the native run's" cmp "$W/native.txt" "$W/out.txt"
check_resumed "$C.0" "$W/memgrow" +2
if [ "$(id -u)" = 0 ] && [ -c /dev/userfaultfd ]; then
	check "its memory came back on demand in the sandbox ($(grep -h "job $C\.0: restore" "$POOL"/*/log/StarterLog | sed 's/.*: restore /restore /' | cut -c1-60 | sort | uniq -c | tr -s ' ' | tr '\n' ';'))" \
	    bash -c "grep -h 'job $C\.0: restore lazy (userfaultfd)' '$POOL'/*/log/StarterLog | grep -q . &&
		grep -h 'job $C\.0: restore done' '$POOL'/*/log/StarterLog | grep -q ."
else
	skip "its memory came back on demand in the sandbox" "needs root and /dev/userfaultfd"
fi
