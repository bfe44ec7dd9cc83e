#!/usr/bin/env bash
# tests/pool/standard_chroot_test.sh: a standard job's root on the
# execute host, seen by the job itself.  A starter that runs as root
# chroots a standard job into its execute directory
# (src/starter/starter_universe.c); the job's file calls go to the
# shadow, but the calls it makes through the library's gate run on the
# execute host (tests/programs/remote_localroot.c).  The job prints the
# device and inode of its local "/" and waits; meanwhile this test
# stats the execute directory, which must be that "/", and only then
# lets the job finish.  Also: its local working directory is "/", "/.."
# is "/" itself, its executable is at the top, the host's /etc/passwd
# cannot be reached, and a path through the library (the shadow's "/")
# is not its local "/".
#
# chroot needs root: as another user the starter runs the job without,
# and the checks of the job's root say SKIP.
#
# checks: 14
set -u
. "$(dirname "$0")/../lib/pool.sh"
. "$(dirname "$0")/../lib/standard_pool.sh"

standard_pool 1
check "remote_localroot relinks with condor_cc" \
	condor_cc -O2 -o "$W/remote_localroot" \
	"$TOP/tests/programs/remote_localroot.c"
pool_owner "$W"

cat >"$W/root.sub" <<EOF
universe   = standard
executable = remote_localroot
initialdir = $W
output     = out.txt
error      = err.txt
queue
EOF
chmod 644 "$W/root.sub"
C=$( (cd "$W" && on cm as_owner "$RELEASE/bin/condor_submit" root.sub 2>&1) |
    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "the job is submitted" test -n "$C"
check "the job reports its local root" \
	wait_for 120 grep -q '^waiting for go$' "$W/out.txt"

# The job's execute directory, while it waits: the only one there.
dirs=$(find "$POOL/exec1/execute" -mindepth 1 -maxdepth 1 -type d \
    -name 'dir_*' 2>/dev/null)
dir_id=$(stat -c 'dev %d ino %i' $dirs 2>/dev/null)
check "its execute directory exists (${dirs##*/})" \
	test -n "$dirs" -a "$(echo "$dirs" | wc -l)" = 1 -a -n "$dir_id"
job_id=$(sed -n 's/^local \/ \(dev [0-9]* ino [0-9]*\)$/\1/p' "$W/out.txt")
(cd "$W" && as_owner touch go)

# job_says LINE: the job printed exactly LINE.
job_says() { grep -qxF "$1" "$W/out.txt"; }
root_check() {
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP $1: chroot needs root (the tests run as $(id -un))"
		return
	fi
	check "$@"
}
root_check "the job's local / is its execute directory ($job_id)" \
	test -n "$job_id" -a "$job_id" = "$dir_id"
root_check "its local working directory is /" job_says 'local cwd [/]'
root_check "its local /.. is its local /" job_says 'local /.. is local /: yes'
root_check "its executable is at its local /" \
	job_says 'local /condor_exec.exe: regular file'
root_check "the host's /etc/passwd is out of its reach" \
	job_says 'local /etc/passwd: ENOENT'
root_check "its forwarded / (the shadow's) is not its local /" \
	job_says 'forwarded / is local /: no'

in_history() { test -n "$(on cm condor_history "$1" -af ProcId 2>/dev/null)"; }
check "job $C.0 completes" wait_for 120 in_history "$C.0"
check "the job ran to the end" job_says done

echo "$POOL_FAILS failed"
[ "$POOL_FAILS" = 0 ]
