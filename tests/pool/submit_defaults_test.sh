#!/usr/bin/env bash
# tests/pool/submit_defaults_test.sh: HTCondor's defaults through a real
# pool.  A file with no universe line and a script for executable runs
# as a vanilla job (condor_submit says so on stderr, stdout keeps its
# one line) and sends no mail (notification Never); a job that uses an
# undefined macro runs with it empty; hold = true queues the job held
# (JobStatus 5, HoldReasonCode 15, its user log 000 and nothing more)
# until condor_release, when it runs to the end.
#
# checks: 22
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"
cat >"$POOL/mailer" <<EOF
#!/bin/sh
{ echo "=== to \$1"; cat; } >>"$POOL/mail.out"
EOF
chmod 755 "$POOL/mailer"
pool_config 'START : TRUE' "MAIL = $POOL/mailer" \
	'STARTER_UPDATE_INTERVAL = 1' 'PERIODIC_EXPR_INTERVAL = 1'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
pool_start

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "a machine advertises" pool_wait_machines 1 60

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
cd "$W" || exit 1
cm() { on cm "$@"; }
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
status_is() { test "$(cm condor_q "$1" -af JobStatus 2>/dev/null)" = "$2"; }

cat >job.sh <<'EOF'
#!/bin/sh
echo "args [$*]"
EOF
chmod 755 job.sh

# --- no universe line: vanilla, said on stderr --------------------------
cat >plain.sub <<'EOF'
executable = job.sh
arguments  = x$(Datatype)y
output     = plain.out
log        = plain.log
queue
EOF
cm condor_submit plain.sub >plain.stdout 2>plain.stderr
C=$(sed -n 's/^1 job(s) submitted to cluster \([0-9]*\)\.$/\1/p' plain.stdout)
check "no universe: stdout is the one line" test -n "$C" -a "$(wc -l <plain.stdout)" = 1
check "no universe: stderr says vanilla" grep -qF \
	"condor_submit: no universe given: vanilla (job.sh is not relinked for Condor)" plain.stderr
check "undefined macro: a warning names the line" grep -qF \
	"plain.sub:2: warning: undefined macro \$(Datatype) expands to nothing" plain.stderr
check "no universe: the job completes" wait_for 90 in_history "$C.0"
check "no universe: it ran as a vanilla job" \
	test "$(cm condor_history "$C.0" -af JobUniverse)" = 5
check "undefined macro: the job ran with it empty" grep -qx "args \[xy\]" plain.out
check "notification Never by default: no mail" \
	bash -c "! grep -q 'Condor Job $C.0' '$POOL/mail.out' 2>/dev/null"

# --- hold = true ---------------------------------------------------------
cat >held.sub <<'EOF'
universe   = vanilla
executable = job.sh
arguments  = held
output     = held.out
log        = held.log
hold       = true
queue
EOF
H=$(cm condor_submit held.sub 2>/dev/null | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "hold: submitted" test -n "$H"
check "hold: queued held (JobStatus 5)" wait_for 30 status_is "$H.0" 5
check "hold: HoldReasonCode 15" \
	test "$(cm condor_q "$H.0" -af HoldReasonCode)" = 15
check "hold: HoldReason says so" \
	test "$(cm condor_q "$H.0" -af HoldReason)" = "submitted on hold at user's request"
check "hold: the user log has its submit event" \
	wait_for 30 grep -q "^000 ($(printf '%03d' "$H").000.000)" held.log
# Another job, queued after it, runs to its end: the held one is left.
cat >probe.sub <<'EOF'
universe   = vanilla
executable = job.sh
output     = probe.out
queue
EOF
P=$(cm condor_submit probe.sub 2>/dev/null | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "hold: a job queued after it completes" wait_for 90 in_history "$P.0"
check "hold: the held job has not run" bash -c "! grep -q '^001 ' held.log"
check "hold: still held" status_is "$H.0" 5
check "hold: condor_release" cm condor_release "$H.0"
check "hold: released, it completes" wait_for 90 in_history "$H.0"
check "hold: it ran" grep -qx "args \[held\]" held.out
check "hold: the user log says it ran and ended" \
	bash -c "grep -q '^001 ' held.log && grep -q '^005 ' held.log"
check "hold: the history has no hold reason left" \
	test -z "$(cm condor_history "$H.0" -af HoldReason 2>/dev/null | grep -v '^undefined$')"
