#!/usr/bin/env bash
# tests/pool/remote_syscalls_test.sh: standard-universe jobs (relinked
# with condor_cc) on a pool of a central manager and three execute
# hosts.  Their file system calls run at the shadow, on the submitting
# side, as the job's owner, in initialdir: a test program's output files
# are byte-identical to a native run's (cc -static) in a directory with
# the same inputs.  The sandbox: fork, socket, execve and a kill of
# another process are refused, and calls made by jumping into the
# library's gate are refused by the outer seccomp filter (EPERM).
#
# When the tests run as root the jobs are submitted by user nobody, so
# that EACCES is the owner's (a mode-000 file) rather than root's.
#
# checks: 53
set -u
. "$(dirname "$0")/../lib/pool.sh"
. "$(dirname "$0")/../lib/standard_pool.sh"

standard_pool 3 'MAX_JOB_STARTS = 10'
cd "$W" || exit 1

# Build each program natively and relinked.
P="$TOP/tests/programs"
for prog in remote_files remote_sandbox remote_edge remote_rootdir; do
	check "$prog builds natively" cc -O2 -static -o "$W/$prog.native" "$P/$prog.c"
	check "$prog relinks with condor_cc" condor_cc -O2 -o "$W/$prog" "$P/$prog.c"
done

pool_owner "$W"
submit() {
	(cd "$W" && as_owner "$RELEASE/bin/condor_submit" "$1" 2>&1) |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
cm() { on cm "$@"; }
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }

# The same inputs in two fresh directories, owned by the job's owner.
setup_dir() {
	mkdir -p "$1"
	seq 1 200 | sed 's/^/input line /' >"$1/in.txt"
	echo "first line" >"$1/app.txt"
	echo secret >"$1/noperm.txt"
	chmod 000 "$1/noperm.txt"
	printf 'one\ntwo\nthree\n' >"$1/stdin.txt"
	[ "$OWNER" = nobody ] && chown -R nobody "$1"
	return 0
}
setup_dir "$W/native"
setup_dir "$W/condor"

# --- 1. the file calls, native against remote ---------------------------
(cd "$W/native" && as_owner "$W/remote_files.native" <stdin.txt \
    >stdout.txt 2>stderr.txt; echo $? >status.txt)
cat >files.sub <<EOF2
universe   = standard
executable = remote_files
initialdir = $W/condor
input      = stdin.txt
output     = stdout.txt
error      = stderr.txt
log        = $W/files.log
queue
EOF2
chmod 644 files.sub
C=$(submit files.sub)
check "the file-call job is submitted" test -n "$C"
check "job $C.0 completes" wait_for 90 in_history "$C.0"
check "job $C.0 exit code as natively" test \
	"$(cm condor_history "$C.0" -af ExitCode 2>/dev/null)" = "$(cat "$W/native/status.txt")"
for f in stdout.txt stderr.txt out.txt app.txt big.bin dup.txt raw.txt; do
	check "$f identical to the native run's" cmp "$W/native/$f" "$W/condor/$f"
done
check "the job's output has every line" grep -qx done "$W/condor/stdout.txt"
if [ "$OWNER" = nobody ]; then
	check "EACCES as the owner (nobody)" grep -q 'open noperm  *EACCES' "$W/condor/stdout.txt"
else
	skip "EACCES as the owner (nobody)" "not root: the owner is $OWNER"
fi
check "ENOENT for a missing file" grep -q 'open missing  *ENOENT' "$W/condor/stdout.txt"
check "EISDIR for a directory opened for writing" grep -q 'open dir for write  *EISDIR' "$W/condor/stdout.txt"
check "the raw openat ran on the submitting side" test -f "$W/condor/raw.txt"
check "the files belong to the owner" test "$(stat -c %U "$W/condor/out.txt")" = "$OWNER"
check "no file of the job in the execute directories" \
	bash -c "! find $POOL/exec*/execute -name out.txt 2>/dev/null | grep -q ."
n=$(cm condor_history "$C.0" -af NumRemoteSyscalls 2>/dev/null)
check "NumRemoteSyscalls counted ($n)" test "${n:-0}" -gt 100
n=$(cm condor_history "$C.0" -af BytesRecvd 2>/dev/null)
check "BytesRecvd counted ($n)" test "${n:-0}" -gt 2400000

# --- 2. the sandbox -------------------------------------------------------
mkdir -p "$W/sandbox"
[ "$OWNER" = nobody ] && chown nobody "$W/sandbox"
cat >sandbox.sub <<EOF2
universe   = standard
executable = remote_sandbox
initialdir = $W/sandbox
output     = out.txt
error      = err.txt
queue
EOF2
chmod 644 sandbox.sub
C=$(submit sandbox.sub)
check "the sandbox job is submitted" test -n "$C"
check "job $C.0 completes" wait_for 90 in_history "$C.0"
for what in fork socket execve "kill 1" "gate openat" "gate open" \
    "gate socket" "gate clone" "gate execve" "gate kill 1"; do
	check "$what refused" grep -q "^$what  *refused" "$W/sandbox/out.txt"
done
check "the gate's calls meet EPERM" \
	test "$(grep -c '^gate .*refused (Operation not permitted)' "$W/sandbox/out.txt")" = 6
if [ "$(id -u)" = 0 ]; then
	check "the job ran chrooted" grep -q "job.*started" "$POOL"/exec*/log/StarterLog
else
	skip "the job ran chrooted" "not root"
fi

# --- 3. bad pointers and poll/select, native against remote ---------------
setup_dir "$W/edge_native"
setup_dir "$W/edge_condor"
(cd "$W/edge_native" && as_owner "$W/remote_edge.native" >out.txt 2>err.txt)
cat >edge.sub <<EOF2
universe   = standard
executable = remote_edge
initialdir = $W/edge_condor
output     = out.txt
error      = err.txt
queue
EOF2
chmod 644 edge.sub
C=$(submit edge.sub)
check "the edge job is submitted" test -n "$C"
check "job $C.0 completes" wait_for 90 in_history "$C.0"
same() { diff "$1" "$2" >&2 || { ls -l /proc/self/fd >&2; false; }; }
check "bad pointers and poll/select as natively" \
	same "$W/edge_native/out.txt" "$W/edge_condor/out.txt"
check "bad pointers give EFAULT" test \
	"$(grep -c EFAULT "$W/edge_condor/out.txt")" -ge 14
check "the edge job ran to the end" grep -qx done "$W/edge_condor/out.txt"
check "epoll refused with ENOSYS" grep -qx 'epoll_create1 ENOSYS' \
	"$W/edge_condor/err.txt"

# --- 4. rootdir: the job's paths confined to a directory -----------------
# chroot needs root; as another user the shadow cannot confine a job.
if [ "$(id -u)" = 0 ]; then
	J="$W/jail"
	mkdir -p "$J/home"
	echo "the jail's marker" >"$J/marker.txt"
	echo "outside the jail" >"$W/marker.txt"
	seq 1 3 | sed 's/^/input line /' >"$J/home/in.txt"
	ln -s /etc/hostname "$J/home/escape"
	[ "$OWNER" = nobody ] && chown nobody "$J/home" "$J/home/in.txt"
	rootdir_sub rootdir.sub "$J"
	C=$(submit rootdir.sub)
	check "the rootdir job is submitted" test -n "$C"
	check "job $C.0 completes" wait_for 90 in_history "$C.0"
	if [ "$OWNER" = nobody ]; then wrote=EACCES; else wrote=ok; fi
	rootdir_want rootdir.want "$wrote"
	check "every path stays inside rootdir" same rootdir.want "$J/home/out.txt"
	# An initialdir that climbs out of the rootdir by its name: the job
	# starts at the root of its jail, never above it.
	sed -e "s|^initialdir .*|initialdir = $J/home/../..|" \
	    -e 's|^output .*|output     = up.out|' \
	    -e 's|^error .*|error      = up.err|' rootdir.sub >rootup.sub
	chmod 644 rootup.sub
	if [ "$OWNER" = nobody ]; then
		touch "$W/up.out" "$W/up.err"
		chown nobody "$W/up.out" "$W/up.err"
	fi
	C=$(submit rootup.sub)
	check "an initialdir of rootdir/.. leaves the job at its jail's root" \
	    wait_for 90 rootup_ok "$W/up.out"
else
	for c in "the rootdir job is submitted" "its job completes" \
	    "every path stays inside rootdir" \
	    "an initialdir of rootdir/.. leaves the job at its jail's root"; do
		skip "$c" "not root: chroot needs root"
	done
fi

echo "$POOL_FAILS failed"
[ "$POOL_FAILS" = 0 ]
