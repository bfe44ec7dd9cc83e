#!/usr/bin/env bash
# tests/security/box_inherit_test.sh: no descriptor, mount or
# environment variable a job inherits leads out of its box, and a fresh
# standard job has no userfaultfd.
#
# tests/programs/box_inherit.c lists, from .preinit_array code (before
# a relinked program's library starts and closes what it was handed),
# every descriptor it has, where ".." leads from each directory among
# them, every mount it sees and its whole environment, and tries to
# create files in a world-writable directory of the host ($POOL/escape)
# through ../ of every directory descriptor (the attack that a host's
# /proc handed to the job made possible).  It runs as a standard job on
# an execute host with cgroups (exec1) and on one without (exec2, a PID
# namespace only), as a static program that carries the relinked mark
# and none of the library (its output goes nowhere: the host's
# directory and its exit code tell), and as a vanilla job.  Both hosts
# set STARTER_USERFAULTFD, which only a resuming job may benefit from
# (tests/pool/ckpt_memory_pool_test.sh resumes one lazily).  Anything
# naming the pool's directories (LOCAL_DIR, EXECUTE, the pool's own) is
# a leak, but for a vanilla job its own execute directory and the way
# to it, which its box holds at their own paths.
#
# checks: 24
set -u
. "$(dirname "$0")/../lib/pool.sh"
. "$(dirname "$0")/../lib/standard_pool.sh"

if [ "$(id -u)" != 0 ] || ! command -v objcopy >/dev/null; then
	for i in $(seq 24); do
		echo "SKIP box inherit check $i: needs root (the box) and objcopy"
	done
	exit 0
fi

standard_pool 2 'STARTER_USERFAULTFD = True'
# exec2: no cgroup; its jobs are kept in a PID namespace alone.
# (Each starter reads the configuration anew.)
echo 'BASE_CGROUP =' >>"$POOL/exec2/condor_config.local"

ESC="$POOL/escape"
mkdir -p "$ESC"
chmod 1777 "$ESC"
cp "$TOP/tests/programs/box_inherit.c" "$W/"
check "box_inherit relinks with condor_cc" \
	condor_cc -O2 -o "$W/box_inherit" "$W/box_inherit.c"
check "box_inherit builds as a static program with only the mark, and as an ordinary one" \
	bash -c "gcc -static -O2 -o '$W/box_liar' '$W/box_inherit.c' &&
	    head -c 64 /dev/zero >'$W/mark' &&
	    objcopy --add-section .condor_relinked='$W/mark' '$W/box_liar' &&
	    gcc -O2 -o '$W/box_plain' '$W/box_inherit.c'"
pool_owner "$W"
chmod 755 "$W"/box_*

# sub NAME UNIVERSE EXE HOST
sub() {
	cat >"$W/$1.sub" <<EOF
universe     = $2
executable   = $3
arguments    = $ESC $1
requirements = Name == "$4"
output       = $1.out
error        = $1.err
log          = $1.log
queue
EOF
	chmod 644 "$W/$1.sub"
	(cd "$W" && on cm as_owner "$RELEASE/bin/condor_submit" "$1.sub" 2>&1) |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
gone() { [ -z "$(on cm condor_q "$1" -af ClusterId 2>/dev/null)" ]; }
S1=$(sub std1 standard box_inherit exec1)
S2=$(sub std2 standard box_inherit exec2)
L=$(sub liar standard box_liar exec1)
V=$(sub van vanilla box_plain exec1)
check "the four jobs are submitted" test -n "$S1" -a -n "$S2" -a -n "$L" -a -n "$V"
all_gone() { gone "$S1" && gone "$S2" && gone "$L" && gone "$V"; }
check "the four jobs complete" wait_for 240 all_gone

# leaks FILE: the lines of FILE that name what is outside the box.  A
# descriptor may be a socket or pipe, its own checkpoint file (at its
# root), its procfs (a detached mount: "/"), or, for a vanilla job,
# /dev/null or a file in its own directory (both in its box); "..",
# followed from a directory, must end at its root or nowhere; nothing
# may name the pool but the vanilla job's own directory and the way to
# it.
leaks() {
	local own
	own=$(sed -n 's/^env _CONDOR_SCRATCH_DIR=//p' "$1")
	case $own in "$POOL"/exec*/execute/dir_*) ;; *) own= ;; esac
	awk -v pool="$POOL" -v own="$own" '
	function named(s) {
		if (index(s, pool) == 0)
			return 0
		if (own == "")
			return 1
		# its own directory, below it, or a directory on the way
		if (index(s, own) == 1 || index(own "/", s "/") == 1)
			return 0
		p = index(s, own)
		return !(p > 0 && index(substr(s, p), own) == 1 &&
		    index(substr(s, 1, p - 1), pool) == 0)
	}
	$1 == "fd" {
		t = $3
		if ((own != "" && t == "/dev/null") ||
		    t ~ /^(socket|pipe):\[[0-9]+\]$/ ||
		    t == "/_condor_ckpt" || t == "/")
			next
		if (own != "" && index(t, own "/") == 1)
			next
		print; next
	}
	$1 == "dirfd" && $3 == "top=other" { print; next }
	$1 == "escape" || $1 == "uffd" { print; next }
	$1 == "mount" && (named($2) || named($3)) { print; next }
	$1 == "env" && named($0) { print; next }
	' "$1"
}
for j in std1 std2 van; do
	check "$j: the job listed what it inherits" grep -qx end "$W/$j.out"
	l=$(leaks "$W/$j.out")
	check "$j: nothing it inherits names the host outside its box${l:+ ($(echo $l | head -c 300))}" \
		test -z "$l"
	check "$j: its /proc shows no process of another account (not the host's)" \
		grep -qx 'proc-foreign 0' "$W/$j.out"
done
for j in std1 std2; do
	check "$j: its /proc is its own, and \"..\" from it leads nowhere" \
		bash -c "grep -qx 'proc inherited' '$W/$j.out' &&
		    grep -qx 'dirfd 1003 top=self' '$W/$j.out'"
	check "$j: one socket (to its shadow), and no userfaultfd, even by the call" \
		bash -c "test \$(grep -c '^fd [0-9]* socket:' '$W/$j.out') = 1 &&
		    ! grep -q '^uffd ' '$W/$j.out' &&
		    grep -qx 'uffd-syscall EPERM' '$W/$j.out'"
	check "$j: no environment variable names its execute directory (HOME is /)" \
		bash -c "grep -qx 'env HOME=/' '$W/$j.out' &&
		    ! grep '^env ' '$W/$j.out' | grep -q '$POOL'"
done
code=$(on cm condor_history "$L.0" -af ExitCode 2>/dev/null)
check "the program without the library escaped through nothing (exit code $code)" \
	test "$code" = 0
check "nothing was created in the host's directory by any of them ($(ls "$ESC" | head -3 | tr '\n' ' '))" \
	test -z "$(ls -A "$ESC")"
check "legitimate: the host's directory is writable by the job's owner" \
	as_owner touch "$ESC/owner_can"
rm -f "$ESC/owner_can"

pool_cleanup
trap - EXIT
