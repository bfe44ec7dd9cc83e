#!/usr/bin/env bash
# tests/security/caps_groups_test.sh: caps that hold on every path, and
# accounting groups with members (condor_security(7)).
#  - A sparse file of 300 MB costs its size against MAX_JOB_DISK (5 MB):
#    the job is held with HoldReasonCode 34.
#  - Output sent back on eviction (ON_EXIT_OR_EVICT) counts against
#    MAX_TRANSFER_OUTPUT_MB (1 MB) as at exit: 3 MB is refused, the job
#    held, and nothing of it kept in SPOOL; output within it is kept
#    there as a file of the owner's.
#  - A job over its request_memory is held with HoldReasonCode 34; so
#    is a standard job over the image_size it declared (HTCondor derives
#    RequestMemory from ImageSize when request_memory is absent).
#  - GROUP_MEMBERS_physics admits the pool's job owner only: another
#    user (daemon) naming accounting_group = physics is refused by the
#    schedd, with the reason; a member's job runs within the quota; and
#    condor_qedit may not move a job into a group.
#
# checks: 19
set -u
. "$(dirname "$0")/../lib/pool.sh"

OTHER=daemon
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null ||
    ! id nobody >/dev/null 2>&1 || ! id "$OTHER" >/dev/null 2>&1; then
	for i in $(seq 19); do
		echo "SKIP caps and groups check $i: needs root, setpriv and users nobody and $OTHER"
	done
	exit 0
fi

pool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'SUSPEND : FALSE' 'STARTER_UPDATE_INTERVAL = 1' \
	'VACATE_GRACE = 2' 'MAX_JOB_STARTS = 10' 'MAX_JOB_DISK = 5' \
	'DISK_CHECK_INTERVAL = 1' 'MAX_TRANSFER_OUTPUT_MB = 1' \
	'GROUP_QUOTA_physics = 1' 'GROUP_MEMBERS_physics = nobody'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
pool_start
. "$TOP/tests/lib/security.sh"
security_users $OTHER
check "the execute host advertises" pool_wait_machines 1 60

W=$POOL/work
mkdir -p "$W"
chmod 755 "$W"
pool_owner "$W"

cluster_of() { sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'; }
status_of() { on cm condor_q "$1.0" -af JobStatus 2>/dev/null; }
held() { test "$(status_of "$1")" = 5; }
is_running() { test "$(status_of "$1")" = 2; }
reason() { on cm condor_q "$1.0" -af HoldReason 2>/dev/null; }
has_reason() { reason "$1" | grep -q "$2"; }
code() { on cm condor_q "$1.0" -af HoldReasonCode 2>/dev/null; }
in_history() { test -n "$(on cm condor_history "$1" -af ProcId 2>/dev/null)"; }
# job NAME SCRIPT [LINES...]: the owner's vanilla job; its cluster.
job() {
	local name=$1 script=$2 l
	shift 2
	printf '#!/bin/sh\n%s\n' "$script" >"$W/$name.sh"
	chmod 755 "$W/$name.sh"
	{
		echo "universe   = vanilla"
		echo "executable = $name.sh"
		echo "output     = $name.out"
		echo "error      = $name.err"
		for l in "$@"; do echo "$l"; done
		echo "queue"
	} >"$W/$name.sub"
	chmod 644 "$W/$name.sub"
	(cd "$W" && on cm as_owner "$RELEASE/bin/condor_submit" "$name.sub" 2>&1) |
	    cluster_of
}

# --- A sparse file against MAX_JOB_DISK. --------------------------------
S=$(job sparse 'truncate -s 300M sparse.bin; echo made; sleep 600')
check "a job making a 300 MB sparse file (MAX_JOB_DISK 5) is held" \
	wait_for 90 held "$S"
check "... for MAX_JOB_DISK ($(reason "$S"))" \
	has_reason "$S" "over this machine's MAX_JOB_DISK of 5 MB"
check "... with HoldReasonCode 34" test "$(code "$S")" = 34
on cm condor_rm "$S" >/dev/null 2>&1

# --- Output sent on eviction against MAX_TRANSFER_OUTPUT_MB. ------------
E=$(job evict "head -c 3000000 /dev/zero >big.bin; echo started; sleep 600" \
    'should_transfer_files = YES' 'when_to_transfer_output = ON_EXIT_OR_EVICT')
check "a job keeping its files on eviction runs" \
	wait_for 60 grep -qx started "$W/evict.out"
host=$(on cm condor_q "$E.0" -af RemoteHost 2>/dev/null)
on cm condor_vacate "${host#*@}" >/dev/null 2>&1
check "evicted with 3 MB of output (MAX_TRANSFER_OUTPUT_MB 1), it is held" \
	wait_for 90 held "$E"
check "... for MAX_TRANSFER_OUTPUT_MB ($(reason "$E"))" \
	has_reason "$E" "MAX_TRANSFER_OUTPUT_MB (1 MB)"
check "... and nothing of its output is kept in SPOOL" \
	bash -c "! ls '$POOL/cm/spool' | grep -q 'cluster$E\\.proc0\\.xfer'"
on cm condor_rm "$E" >/dev/null 2>&1

# Legitimate: output within the cap is kept on eviction, as the owner's.
K=$(job keep "echo kept >kept.txt; echo started; sleep 600" \
    'should_transfer_files = YES' 'when_to_transfer_output = ON_EXIT_OR_EVICT')
wait_for 60 grep -qx started "$W/keep.out"
host=$(on cm condor_q "$K.0" -af RemoteHost 2>/dev/null)
on cm condor_vacate "${host#*@}" >/dev/null 2>&1
kept=$POOL/cm/spool/cluster$K.proc0.xfer/kept.txt
check "legitimate: output within the cap is kept in SPOOL on eviction" \
	wait_for 90 test -f "$kept"
check "... as a file of its owner's ($(stat -c %U "$kept" 2>/dev/null))" \
	test "$(stat -c %U "$kept" 2>/dev/null)" = "$OWNER"
on cm condor_rm "$K" >/dev/null 2>&1

# --- Memory over request_memory. ----------------------------------------
if [ -x /usr/bin/python3 ]; then
	M=$(job hungry 'exec /usr/bin/python3 -c "import time; b = b\"x\" * (200 << 20); time.sleep(600)"' \
	    'request_memory = 50 MB')
	check "a job holding 200 MB with request_memory = 50 MB is held" \
		wait_for 90 held "$M"
	check "... with HoldReasonCode 34 ($(reason "$M"))" \
		test "$(code "$M")" = 34
	on cm condor_rm "$M" >/dev/null 2>&1
else
	echo "SKIP a job holding 200 MB with request_memory = 50 MB is held: no /usr/bin/python3"
	echo "SKIP ... with HoldReasonCode 34: no /usr/bin/python3"
fi

# A standard job that declares image_size = 102400 (100 MiB, Condor 4's
# declaration) and touches 300 MiB.
cat >"$W/touch.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int
main(void)
{
	size_t n = (size_t)300 << 20;
	char *p = malloc(n);

	if (p == NULL)
		return 1;
	memset(p, 1, n);
	printf("touched\n");
	fflush(stdout);
	sleep(600);
	return p[n - 1];
}
EOC
if (cd "$W" && "$RELEASE/bin/condor_cc" -O0 -o touch touch.c) >"$W/cc.out" 2>&1; then
	chmod 755 "$W/touch"
	cat >"$W/touch.sub" <<EOS
universe   = standard
executable = touch
output     = touch.out
image_size = 102400
queue
EOS
	chmod 644 "$W/touch.sub"
	T=$( (cd "$W" && on cm as_owner "$RELEASE/bin/condor_submit" touch.sub 2>&1) | cluster_of)
	check "a standard job touching 300 MiB with image_size = 102400 is held" \
		wait_for 90 held "$T"
	check "... with HoldReasonCode 34 ($(reason "$T"))" \
		test "$(code "$T")" = 34
	on cm condor_rm "$T" >/dev/null 2>&1
else
	echo "FAIL condor_cc builds the memory-touching program: $(tail -3 "$W/cc.out")"
	echo "SKIP ... with HoldReasonCode 34: not built"
fi

# --- Accounting groups with members. ------------------------------------
G=$(job grp 'echo in physics' 'accounting_group = physics.theory')
check "legitimate: a member's job of group physics.theory completes" \
	wait_for 90 in_history "$G"
check "... counted in its group" test "$(on cm condor_history "$G.0" \
	-af AcctGroup 2>/dev/null)" = physics.theory
D=$POOL/home.$OTHER
printf '#!/bin/sh\necho stolen\n' >"$D/steal.sh"
printf 'universe = vanilla\nexecutable = steal.sh\naccounting_group = physics\nqueue\n' \
    >"$D/steal.sub"
chown $OTHER "$D/steal.sh" "$D/steal.sub"
chmod 755 "$D/steal.sh"
out=$(cd "$D" && as $OTHER "$RELEASE/bin/condor_submit" steal.sub 2>&1)
check "a non-member naming accounting_group = physics is refused ($out)" \
	grep -q "user $OTHER is not a member of accounting group physics (GROUP_MEMBERS_physics)" <<<"$out"
check "... and nothing of it is queued" \
	test -z "$(on cm condor_q -af Owner 2>/dev/null | grep -x $OTHER)"
P=$(cd "$D" && printf 'universe = vanilla\nexecutable = steal.sh\nhold = true\nqueue\n' \
    >plain.sub && chown $OTHER plain.sub &&
    as $OTHER "$RELEASE/bin/condor_submit" plain.sub 2>&1 | cluster_of)
check "condor_qedit may not move a job into a group" \
	bash -c "! (cd '$D' && HOME='$D' CONDOR_CONFIG='$POOL/cm/condor_config' setpriv --reuid=$OTHER --regid=$(id -g $OTHER) --clear-groups '$RELEASE/bin/condor_qedit' '$P.0' AcctGroup '\"physics\"') >/dev/null 2>&1 && test -z \"\$(CONDOR_CONFIG='$POOL/cm/condor_config' '$RELEASE/bin/condor_q' '$P.0' -af AcctGroup 2>/dev/null | grep physics)\""
on cm condor_rm "$P" >/dev/null 2>&1
exit 0
