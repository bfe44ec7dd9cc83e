#!/usr/bin/env bash
# tests/security/rootdir_test.sh: a standard job's rootdir in a personal
# pool, run by an ordinary user (nobody): its shadow is not root, and
# confines the job with a chroot in a user namespace of its own.  The
# job (tests/programs/remote_rootdir.c) tries "..", an absolute path, an
# absolute symbolic link out of its jail and /proc; each stays inside.
# An initialdir of rootdir/.. leaves it at its jail's root.  And the
# legitimate version: its own files in the jail are read and written.
#
# checks: 7
set -u
. "$(dirname "$0")/../lib/pool.sh"
. "$(dirname "$0")/../lib/standard_pool.sh"

USER_=nobody
skip_all() {
	for c in "remote_rootdir relinks" "the personal pool starts" \
	    "the rootdir job is submitted" "it completes" \
	    "every path stays inside rootdir" \
	    "an initialdir of rootdir/.. is submitted" \
	    "... and leaves the job at its jail's root"; do
		echo "SKIP $c: $1"
	done
	exit 0
}
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null ||
    ! id "$USER_" >/dev/null 2>&1; then
	skip_all "needs root (to act as $USER_), setpriv and user $USER_"
fi
if ! setpriv --reuid="$USER_" --regid="$(id -g "$USER_")" --clear-groups \
    unshare -U true 2>/dev/null; then
	skip_all "this kernel gives ordinary users no user namespace"
fi

pool_init
chmod 755 "$POOL"
W=$POOL/w
H=$POOL/home
mkdir -p "$W" "$H"
check "remote_rootdir relinks" \
	condor_cc -O2 -o "$W/remote_rootdir" "$TOP/tests/programs/remote_rootdir.c"
J=$W/jail
mkdir -p "$J/home"
echo "the jail's marker" >"$J/marker.txt"
echo "outside the jail" >"$W/marker.txt"
seq 1 3 | sed 's/^/input line /' >"$J/home/in.txt"
ln -s /etc/hostname "$J/home/escape"
chown -R "$USER_" "$W" "$H"
chmod 755 "$W" "$H"

port=$(free_port)
cat >"$H/condor_config" <<EOC
RELEASE_DIR = $RELEASE
COLLECTOR_HOST = 127.0.0.1:$port
DAEMON_LIST = MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD
START : TRUE
NEGOTIATOR_INTERVAL = 2
SCHEDD_INTERVAL = 2
UPDATE_INTERVAL = 2
EOC
chown "$USER_" "$H/condor_config"
as_user() {
	CONDOR_CONFIG=$H/condor_config HOME=$H setpriv --reuid="$USER_" \
	    --regid="$(id -g "$USER_")" --clear-groups "$@"
}
# setpriv execs the master: $! is its own pid.
CONDOR_CONFIG=$H/condor_config HOME=$H setpriv --reuid="$USER_" \
	--regid="$(id -g "$USER_")" --clear-groups "$RELEASE/sbin/condor_master" -f \
	>"$POOL/master.out" 2>&1 &
mpid=$!
stop_master() {
	local children p
	children=$(ps -o pid= --ppid "$mpid" 2>/dev/null)
	kill -TERM "$mpid" 2>/dev/null
	wait "$mpid" 2>/dev/null
	for p in $children; do kill -KILL "$p" 2>/dev/null; done
}
trap 'stop_master; pool_cleanup' EXIT
check "the personal pool starts" \
	wait_for 60 test -S "$H/.condor/spool/.schedd_socket"

submit() {
	(cd "$W" && as_user "$RELEASE/bin/condor_submit" "$1" 2>&1) |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
in_history() {
	test -n "$(as_user "$RELEASE/bin/condor_history" "$1" -af ProcId 2>/dev/null)"
}
rootdir_sub "$W/rootdir.sub" "$J"
C=$(submit rootdir.sub)
check "the rootdir job is submitted" test -n "$C"
check "it completes" wait_for 120 in_history "$C.0"
rootdir_want "$POOL/rootdir.want" ok
check "every path stays inside rootdir" \
	cmp -s "$POOL/rootdir.want" "$J/home/out.txt"
sed -e "s|^initialdir .*|initialdir = $J/home/../..|" \
    -e 's|^output .*|output     = up.out|' \
    -e 's|^error .*|error      = up.err|' "$W/rootdir.sub" >"$W/rootup.sub"
chmod 644 "$W/rootup.sub"
U=$(submit rootup.sub)
check "an initialdir of rootdir/.. is submitted" test -n "$U"
check "... and leaves the job at its jail's root" \
	wait_for 120 rootup_ok "$W/up.out"
