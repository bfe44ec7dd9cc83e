#!/usr/bin/env bash
# tests/pool/execute_cleanup_test.sh: a root-run pool whose execute
# host's LOCAL_DIR's parent is a 0700 directory, so that the accounts
# jobs run as cannot search the path down to EXECUTE: each job's
# sandbox (EXECUTE/dir_PID, with files and nested directories the job
# made) is removed when the job ends, not left until the startd starts
# again.
#
# checks: 6
set -u
. "$(dirname "$0")/../lib/pool.sh"

if [ "$(id -u)" != 0 ]; then
	for c in "the execute host's LOCAL_DIR's parent is 0700" "the schedd listens" \
	    "one machine advertises" "three jobs complete with exit code 0" \
	    "EXECUTE holds no job directory once the jobs ended" \
	    "no starter failed to remove its sandbox"; do
		skip "$c" "jobs run as other accounts only under root"
	done
	exit 0
fi
pool_init
# The submitting host is in everyone's reach (its socket, its files);
# the execute host's LOCAL_DIR is under a 0700 directory.
chmod 755 "$POOL"
private=$POOL/private
mkdir -p "$private/exec1"
chmod 700 "$private"
check "the execute host's LOCAL_DIR's parent is 0700" \
	test "$(stat -c %a "$private")" = 700
pool_config 'START : TRUE'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD" "LOCAL_DIR = $private/exec1"
W=$POOL/work
mkdir -p "$W"
chmod 755 "$W"
pool_owner "$W"
pool_start

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "one machine advertises" pool_wait_machines 1 60

cd "$W" || exit 1
cat >job.sh <<'EOS'
#!/bin/sh
# Leave something to clean: files, nested directories, one read-only.
mkdir -p a/b/c && echo data >a/b/c/f && echo more >top.txt
mkdir ro && echo x >ro/f && chmod 500 ro
echo "ran in $(pwd)"
EOS
chmod 755 job.sh
cat >jobs.sub <<'EOS'
universe   = vanilla
executable = job.sh
output     = out.$(Process)
error      = err.$(Process)
log        = jobs.log
queue 3
EOS
cluster=$(as_owner condor_submit jobs.sub 2>&1 |
    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
done_ok() {
	[ "$(on cm condor_history "$cluster" -af ExitCode 2>/dev/null |
	    grep -cx 0)" = 3 ]
}
check "three jobs complete with exit code 0" wait_for 180 done_ok
# A job's end in the history comes after its starter's exit; the
# directories go as each starter ends.
no_job_dirs() { ! ls "$private/exec1/execute" | grep -q '^dir_'; }
check "EXECUTE holds no job directory once the jobs ended" \
	wait_for 60 no_job_dirs
check "no starter failed to remove its sandbox" \
	test "$(grep -c 'cannot remove\|cannot clean' "$private/exec1/log/StarterLog")" = 0
