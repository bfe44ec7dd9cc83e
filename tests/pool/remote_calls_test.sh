#!/usr/bin/env bash
# tests/pool/remote_calls_test.sh: the forwarded calls remote_files.c
# leaves out (linkat, symlinkat, readlinkat, fchmod, fchmodat, utimensat,
# futimens, umask, flock, fchdir, close_range, statx, the F_OFD_* locks),
# each with its success and its error paths, compared with a native run.
# tests/programs/remote_calls.c is built natively (cc -static) and
# relinked (condor_cc); the native one runs in an empty directory, the
# relinked one as a standard job in another, and what they print must be
# byte-identical, one check per call so that a failure names it.  The
# files they leave (type, mode, links, size, link target, owner) must be
# the same too.
#
# When the tests run as root the job's owner is user nobody (pool_owner).
#
# checks: 24
set -u
. "$(dirname "$0")/../lib/pool.sh"
. "$(dirname "$0")/../lib/standard_pool.sh"

standard_pool 1
P="$TOP/tests/programs"
check "remote_calls builds natively" \
	cc -O2 -static -o "$W/remote_calls.native" "$P/remote_calls.c"
check "remote_calls relinks with condor_cc" \
	condor_cc -O2 -o "$W/remote_calls" "$P/remote_calls.c"

pool_owner "$W"
for d in native condor; do
	mkdir -p "$W/$d"
	chmod 755 "$W/$d"
	[ "$OWNER" = nobody ] && chown nobody "$W/$d"
done

(cd "$W/native" && as_owner "$W/remote_calls.native" >"$W/native.out" \
    2>"$W/native.err"; echo $? >"$W/native.status")
check "the native run exits 0" test "$(cat "$W/native.status")" = 0

cat >"$W/calls.sub" <<EOF
universe   = standard
executable = remote_calls
initialdir = $W/condor
output     = $W/condor.out
error      = $W/condor.err
log        = $W/calls.log
queue
EOF
chmod 644 "$W/calls.sub"
C=$( (cd "$W" && on cm as_owner "$RELEASE/bin/condor_submit" calls.sub 2>&1) |
    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "the job is submitted" test -n "$C"
in_history() { test -n "$(on cm condor_history "$1" -af ProcId 2>/dev/null)"; }
check "job $C.0 completes" wait_for 120 in_history "$C.0"
check "job $C.0 exits as natively" test \
	"$(on cm condor_history "$C.0" -af ExitCode 2>/dev/null)" = \
	"$(cat "$W/native.status")"

# section NAME FILE: the lines of FILE from "== NAME" to the next "==".
section() {
	awk -v want="== $1" '/^== / { on = ($0 == want) } on' "$2"
}
# same_section NAME: that part of both outputs, line for line.
same_section() {
	section "$1" "$W/native.out" >"$W/native.part"
	section "$1" "$W/condor.out" >"$W/condor.part"
	[ -s "$W/native.part" ] &&
	    diff "$W/native.part" "$W/condor.part" | sed 's/^/    /'
	[ -s "$W/native.part" ] && cmp -s "$W/native.part" "$W/condor.part"
}
for s in umask symlinkat readlinkat linkat fchmod fchmodat utimensat \
    futimens statx fchdir close_range flock "F_OFD locks"; do
	check "$s as natively" same_section "$s"
done
check "the whole output byte for byte as natively" \
	cmp "$W/native.out" "$W/condor.out"
check "the job ran to the end" grep -qx done "$W/condor.out"

# What each left behind: type, mode, links, size, link target, owner.
tree() {
	(cd "$1" && find . -mindepth 1 -printf '%p %y %m %n %s [%l] %u\n' |
	    LC_ALL=C sort)
}
same_tree() {
	tree "$W/native" >"$W/native.tree"
	tree "$W/condor" >"$W/condor.tree"
	diff "$W/native.tree" "$W/condor.tree" | sed 's/^/    /'
	[ -s "$W/native.tree" ] && cmp -s "$W/native.tree" "$W/condor.tree"
}
check "the files left are the native run's" same_tree

echo "$POOL_FAILS failed"
[ "$POOL_FAILS" = 0 ]
