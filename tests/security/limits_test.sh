#!/usr/bin/env bash
# tests/security/limits_test.sh: bounded resources, on a real pool.
# The execute host caps a job's run at MAX_JOB_DISK, the submitting
# host caps what a job sends back (MAX_TRANSFER_OUTPUT_MB) and what a
# standard job writes through its shadow (MAX_JOB_WRITE_MB), and a job
# asks for its own allowed_job_duration and request_memory.  A job over a cap is killed and
# held with a HoldReason naming it (a write past MAX_JOB_WRITE_MB fails
# with EDQUOT instead); a job within every cap completes.
#
# checks: 27
set -u
. "$(dirname "$0")/../lib/pool.sh"
. "$(dirname "$0")/../lib/standard_pool.sh"
. "$(dirname "$0")/../lib/security.sh"

standard_pool 1 'MAX_JOB_WRITE_MB = 1' 'MAX_TRANSFER_OUTPUT_MB = 1' \
	'MAX_JOB_DISK = 5' 'DISK_CHECK_INTERVAL = 1'
pool_owner "$W"

# submit NAME: submit $W/NAME.sub; the cluster.
submit() {
	(cd "$W" && on cm as_owner "$RELEASE/bin/condor_submit" "$1.sub" 2>&1) |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
status_of() { on cm condor_q "$1.0" -af JobStatus 2>/dev/null; }
held() { test "$(status_of "$1")" = 5; }
gone() { test -z "$(status_of "$1")"; }
reason() { on cm condor_q "$1.0" -af HoldReason 2>/dev/null; }
# has_reason CLUSTER PATTERN: its HoldReason matches PATTERN.
has_reason() { reason "$1" | grep -q "$2"; }
job() {	# job NAME SCRIPT [SUBMIT LINES...]: a vanilla job
	local name=$1 script=$2 l
	shift 2
	printf '#!/bin/sh\n%s\n' "$script" >"$W/$name.sh"
	chmod 755 "$W/$name.sh"
	{
		echo "universe = vanilla"
		echo "executable = $name.sh"
		echo "output = $name.out"
		echo "error = $name.err"
		echo "log = $name.log"
		for l in "$@"; do echo "$l"; done
		echo "queue"
	} >"$W/$name.sub"
	chmod 644 "$W/$name.sub"
	submit "$name"
}

# --- Time: allowed_job_duration. ---------------------------------------
D=$(job long 'echo started; sleep 3001' 'allowed_job_duration = 3')
check "a job asking for 3 s that runs for 300 s is held" wait_for 90 held "$D"
check "... and its HoldReason names allowed_job_duration ($(reason "$D"))" \
	has_reason "$D" 'longer than its allowed_job_duration, 3 s'
not_sleeping() { ! proc_running "sleep 3001"; }
check "... and its process is gone" wait_for 10 not_sleeping
on cm condor_rm "$D" >/dev/null 2>&1
S=$(job short 'echo short; sleep 1' 'allowed_job_duration = 300')
check "legitimate: a job within its allowed_job_duration completes" \
	wait_for 90 gone "$S"
check "... with its output" grep -qx short "$W/short.out"

# --- Disk: MAX_JOB_DISK on the execute host. ---------------------------
B=$(job big 'head -c 20000000 /dev/zero >big; echo wrote; sleep 60')
check "a job filling 20 MB of its directory (MAX_JOB_DISK 5) is held" \
	wait_for 90 held "$B"
check "... and its HoldReason names MAX_JOB_DISK" \
	has_reason "$B" "over this machine's MAX_JOB_DISK of 5 MB"
on cm condor_rm "$B" >/dev/null 2>&1
M=$(job small 'head -c 1000000 /dev/zero >small; echo wrote small')
check "legitimate: a job writing 1 MB there completes" wait_for 90 gone "$M"
check "... with its output" grep -qx "wrote small" "$W/small.out"
# A stream the job does not ship back is not kept on the disk either.
Q=$(job quiet 'head -c 20000000 /dev/zero; sleep 3; echo done >&2' \
    'output = /dev/null')
check "legitimate: a job printing 20 MB to output = /dev/null completes" \
	wait_for 90 gone "$Q"
check "... with its stderr" grep -qx done "$W/quiet.err"

# --- Memory: request_memory. ---------------------------------------------
if [ -x /usr/bin/python3 ]; then
	H=$(job hungry 'exec /usr/bin/python3 -c "import time; b = b\"x\" * (200 << 20); print(\"allocated\", flush=True); time.sleep(60)"' \
	    'request_memory = 50 MB')
	check "a job holding 200 MB with request_memory = 50 MB is held" \
		wait_for 90 held "$H"
	check "... and its HoldReason names request_memory ($(reason "$H"))" \
		has_reason "$H" "over its request_memory of 50 MB"
	# Where the kernel has a memory controller (v1's hierarchy, or
	# memory among cgroup v2's controllers), a root starter has it
	# kill the job at the limit.
	v2=$(awk '$(NF-2) == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	if [ "$(id -u)" = 0 ] && { awk '$(NF-2) == "cgroup" && $NF ~ /(^|,)memory(,|$)/ { f = 1 } END { exit !f }' /proc/self/mountinfo ||
	    grep -qw memory "$v2/cgroup.controllers" 2>/dev/null; }; then
		check "... killed by the kernel at the limit (a memory cgroup)" \
			has_reason "$H" "the kernel killed it at the limit"
		no_memcg() { ! ls -d /sys/fs/cgroup/memory/condor/job_* 2>/dev/null | grep -q .; }
		check "... and its memory cgroup is removed" wait_for 10 no_memcg
	else
		echo "SKIP ... killed by the kernel at the limit: no memory controller here, or not root"
		echo "SKIP ... and its memory cgroup is removed: no memory controller here, or not root"
	fi
	on cm condor_rm "$H" >/dev/null 2>&1
else
	echo "SKIP a job holding 200 MB with request_memory = 50 MB is held: no /usr/bin/python3"
	echo "SKIP ... and its HoldReason names request_memory: no /usr/bin/python3"
	echo "SKIP ... killed by the kernel at the limit: no /usr/bin/python3"
	echo "SKIP ... and its memory cgroup is removed: no /usr/bin/python3"
fi
# A request no machine has: the job does not match (its requests join
# its Requirements); the one after it, which fits, runs meanwhile.
X=$(job huge 'echo huge' 'request_memory = 100 TB')
R=$(job modest 'echo modest' 'request_memory = 2 GB')
check "legitimate: request_memory = 2 GB is RequestMemory 2048 (MB)" \
	test "$(on cm condor_q "$R.0" -af RequestMemory 2>/dev/null)" = 2048 -o \
	"$(on cm condor_history "$R.0" -af RequestMemory 2>/dev/null)" = 2048
check "... and the job completes" wait_for 90 gone "$R"
# (Idle: 1, or 0, U, for a job that has never run.)
check "a job asking for 100 TB of memory, submitted first, is still idle" \
	bash -c "case '$(status_of "$X")' in 0|1) exit 0 ;; *) exit 1 ;; esac"
on cm condor_rm "$X" >/dev/null 2>&1

# --- Output: MAX_TRANSFER_OUTPUT_MB on the submitting host. -------------
O=$(job loud 'head -c 3000000 /dev/zero; sleep 60')
check "a job printing 3 MB (MAX_TRANSFER_OUTPUT_MB 1) is held" \
	wait_for 90 held "$O"
check "... and its HoldReason names MAX_TRANSFER_OUTPUT_MB" \
	has_reason "$O" "its output passed MAX_TRANSFER_OUTPUT_MB (1 MB)"
check "... and no more than 1 MB of it was written" \
	test "$(stat -c %s "$W/loud.out")" -le 1048576
on cm condor_rm "$O" >/dev/null 2>&1

# --- Writes through the shadow: MAX_JOB_WRITE_MB. -----------------------
check "write_quota relinks with condor_cc" \
	condor_cc -O2 -o "$W/write_quota" "$TOP/tests/programs/write_quota.c"
cat >"$W/quota.sub" <<EOS
universe   = standard
executable = write_quota
arguments  = quota.data
output     = quota.out
log        = quota.log
queue
EOS
chmod 644 "$W/quota.sub"
Q=$(submit quota)
check "a standard job writing 8 MB (MAX_JOB_WRITE_MB 1) completes" \
	wait_for 120 gone "$Q"
check "... its writes failed with EDQUOT (exit code 17)" \
	test "$(on cm condor_history "$Q.0" -af ExitCode 2>/dev/null)" = 17
check "... and the file holds 1 MB" \
	test "$(stat -c %s "$W/quota.data" 2>/dev/null)" = 1048576
