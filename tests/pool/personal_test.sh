#!/usr/bin/env bash
# A personal pool: condor_master with no configuration file at all
# (CONDOR_CONFIG unset, no /etc/condor/condor_config, no
# ~condor/condor_config, and run from an installed copy without
# etc/condor_config) detaches, writes its pid file, starts every daemon
# on 127.0.0.1 with its state in ~/.condor, its collector on a free port
# written in ~/.condor/log/.collector_address, and runs its owner's jobs
# at once.  The tree's own etc/condor_config describes the same pool.
#
# Two users, root and nobody, each with a HOME of their own, run one
# each side by side: their collectors do not collide, each condor_status
# shows its own machine only, and each runs its owner's job.  A second
# master for the same ~/.condor is refused.  With a local file naming a
# console that is in use (still a personal pool: no file names a central
# manager), a job runs all the same and is not suspended: the personal
# policy does not wait for the keyboard.  The machine is one
# partitionable slot with the machine's cores (NUM_CPUS by default).
# `kill $(cat ~/.condor/log/condor_master.pid)` stops each.
#
# checks: 35
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# As root, the test runs in a network namespace of its own (a loopback
# nobody else uses).
if [ -z "${PERSONAL_NETNS:-}" ] && [ "$(id -u)" = 0 ] &&
    command -v ip >/dev/null && unshare -n true 2>/dev/null; then
	exec unshare -n env PERSONAL_NETNS=1 bash -c \
	    'ip link set lo up && exec bash "$0"' "$0"
fi
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }
skip() { echo "SKIP $1: $2"; }
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n" "$*"; fi; }
wait_for() { local l=$1 t0=$SECONDS; shift; [ "$l" -lt 60 ] && l=60; while ! "$@" >/dev/null 2>&1; do [ $((SECONDS - t0)) -ge "$l" ] && return 1; sleep 0.2; done; }

# The test needs a machine with no system-wide configuration; say so
# plainly rather than skip.
if [ -e /etc/condor/condor_config ]; then
	fail "personal pool" "/etc/condor/condor_config exists on this machine"
	exit 1
fi
if cdir=$(getent passwd condor | cut -d: -f6) && [ -n "$cdir" ] &&
    [ -e "$cdir/condor_config" ]; then
	fail "personal pool" "$cdir/condor_config (~condor) exists on this machine"
	exit 1
fi
unset CONDOR_CONFIG
W=$(mktemp -d /tmp/condor-personal.XXXXXX)
chmod 755 "$W"
REL=$W/release
home=$W/home
masters=()
stop_pool() {	# HOME
	local pid
	pid=$(cat "$1/.condor/log/condor_master.pid" 2>/dev/null)
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 300); do [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
}
cleanup() {
	[ -n "${toucher:-}" ] && kill "$toucher" 2>/dev/null
	stop_pool "$home"
	[ -n "${home2:-}" ] && stop_pool "$home2"
	rm -rf "$W"
}
trap cleanup EXIT

# An installed copy without etc/condor_config: no configuration at all.
if ! make -s -C "$TOP" install PREFIX="$REL" >"$W/install.log" 2>&1; then
	fail "make install PREFIX=$REL" "$(tail -n 5 "$W/install.log")"
	exit 1
fi
rm -f "$REL/etc/condor_config"
mkdir -p "$home"
me=$(id -un)

# What the tree's own etc/condor_config says is the same personal pool.
check "the tree's etc/condor_config keeps the personal START" \
	test "$(env HOME="$home" "$TOP/bin/condor_config_val" START)" = "TARGET.Owner == \"$me\""
check "... and no configuration file at all gives it too" \
	test "$(env HOME="$home" "$REL/bin/condor_config_val" START)" = "TARGET.Owner == \"$me\""
check "... with the collector on any port" \
	test "$(env HOME="$home" "$REL/bin/condor_config_val" COLLECTOR_HOST)" = "127.0.0.1:0"
check "NUM_CPUS defaults to the machine's cores ($(getconf _NPROCESSORS_ONLN))" \
	test "$(env HOME="$home" "$REL/bin/condor_config_val" NUM_CPUS)" = "$(getconf _NPROCESSORS_ONLN)"

P1=$home/.condor/log
check "condor_master detaches" env HOME="$home" "$REL/sbin/condor_master"
check "it writes its pid file" wait_for 10 test -s "$P1/condor_master.pid"
pid=$(cat "$P1/condor_master.pid")
check "the master runs" kill -0 "$pid"
check "state lives in ~/.condor" test -d "$home/.condor/spool" -a -d "$home/.condor/execute"
check "the collector writes its address" wait_for 30 test -s "$P1/.collector_address"
# As root the machine's cores make one partitionable slot, slot1@HOST,
# when there are several; else one slot named HOST.
host=$(hostname -s)
name=$host
[ "$(getconf _NPROCESSORS_ONLN)" -gt 1 ] && name=slot1@$host
status1() { env HOME="$home" "$REL/bin/condor_status" "$@"; }
check "condor_status finds the collector and shows this machine ($name)" \
	wait_for 30 bash -c "env HOME='$home' '$REL/bin/condor_status' -af Name | grep -qx '$name'"
check "... one partitionable slot with the machine's cores" \
	bash -c "[ \$(getconf _NPROCESSORS_ONLN) = 1 ] || [ \"\$(env HOME='$home' '$REL/bin/condor_status' -af PartitionableSlot TotalSlotCpus)\" = \"true \$(getconf _NPROCESSORS_ONLN)\" ]"

# A second master for the same ~/.condor.
env HOME="$home" "$REL/sbin/condor_master" 2>"$W/second.err"
check "a second master for the same LOCAL_DIR exits non-zero" test $? != 0
check "... saying which master runs" \
	grep -q "already running (pid $pid) for LOCAL_DIR $home/.condor" "$W/second.err"
check "... and the pid file is untouched" test "$(cat "$P1/condor_master.pid")" = "$pid"

# The owner's job runs at once.
jobdir=$W/job1
mkdir -p "$jobdir"
printf 'universe = vanilla\nexecutable = /bin/echo\narguments = personal\noutput = out\nerror = err\nlog = log\nqueue\n' >"$jobdir/job.sub"
(cd "$jobdir" && env HOME="$home" "$REL/bin/condor_submit" job.sub) >"$W/sub1.out" 2>&1
check "the owner submits a job" grep -q "submitted to cluster" "$W/sub1.out"
check "it runs to completion" wait_for 60 grep -q "^005 " "$jobdir/log"
check "... with its output" grep -qx personal "$jobdir/out"

# A second user's personal pool beside it.
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null ||
    ! id nobody >/dev/null 2>&1; then
	for c in "user nobody's pool starts" "its collector is another" \
	    "each condor_status shows its own machine only (root's)" \
	    "each condor_status shows its own machine only (nobody's)" \
	    "nobody's job runs" "... with its output" \
	    "kill \$(cat condor_master.pid) stops nobody's pool"; do
		skip "$c" "needs root, setpriv and user nobody"
	done
else
	home2=$W/home2
	mkdir -p "$home2"
	chown nobody "$home2"
	as_nobody() {
		env HOME="$home2" setpriv --reuid=nobody --regid="$(id -g nobody)" \
		    --clear-groups "$@"
	}
	P2=$home2/.condor/log
	as_nobody "$REL/sbin/condor_master"
	check "user nobody's pool starts" wait_for 30 test -s "$P2/.collector_address"
	check "its collector is another" \
		test "$(cat "$P1/.collector_address")" != "$(cat "$P2/.collector_address")"
	# Each sees exactly one startd: its own (the address it wrote).
	own_only() {	# HOME LOGDIR RUNNER...
		local h=$1 l=$2 seen
		shift 2
		seen=$(env HOME="$h" "$@" "$REL/bin/condor_status" -af StartdIpAddr | sort -u)
		test -n "$seen" && test "$seen" = "$(cat "$l/.startd_address")"
	}
	check "each condor_status shows its own machine only (root's)" \
		wait_for 30 own_only "$home" "$P1"
	check "each condor_status shows its own machine only (nobody's)" \
		wait_for 30 own_only "$home2" "$P2" setpriv --reuid=nobody \
		--regid="$(id -g nobody)" --clear-groups
	jobdir2=$W/job2
	mkdir -p "$jobdir2"
	cp "$jobdir/job.sub" "$jobdir2/job.sub"
	sed -i 's/personal/nobody/' "$jobdir2/job.sub"
	chown -R nobody "$jobdir2"
	(cd "$jobdir2" && as_nobody "$REL/bin/condor_submit" job.sub) >"$W/sub2.out" 2>&1
	check "nobody's job runs" wait_for 60 grep -q "^005 " "$jobdir2/log"
	check "... with its output" grep -qx nobody "$jobdir2/out"
	pid2=$(cat "$P2/condor_master.pid")
	kill "$(cat "$P2/condor_master.pid")"
	check "kill \$(cat condor_master.pid) stops nobody's pool" \
		wait_for 30 bash -c "! kill -0 $pid2 2>/dev/null"
fi

# README's way to stop it.
kill "$(cat "$P1/condor_master.pid")"
check "kill \$(cat ~/.condor/log/condor_master.pid) stops the personal pool" \
	wait_for 30 bash -c "! kill -0 $pid 2>/dev/null"

# The owner at the console: a local file names a terminal, touched all
# along.  No file names a central manager, so the pool stays personal.
tty=$W/tty
: >"$tty"
(while :; do touch "$tty"; sleep 0.5; done) &
toucher=$!
echo "CONSOLE_DEVICES = $tty" >"$home/.condor/condor_config.local"
check "with a local file naming a console, still a personal pool" \
	test "$(env HOME="$home" "$REL/bin/condor_config_val" START)" = "TARGET.Owner == \"$me\""
rm -f "$jobdir/log" "$jobdir/out"
check "condor_master starts again" env HOME="$home" "$REL/sbin/condor_master"
check "... and writes its pid file" wait_for 10 test -s "$P1/condor_master.pid"
pid=$(cat "$P1/condor_master.pid")
busy_console() {
	local idle
	idle=$(status1 -af KeyboardIdle | head -1)
	[ -n "$idle" ] && [ "$idle" -lt 60 ]
}
check "the machine sees the console in use (KeyboardIdle < 60)" \
	wait_for 30 busy_console
(cd "$jobdir" && env HOME="$home" "$REL/bin/condor_submit" job.sub) >"$W/sub3.out" 2>&1
check "a job runs while the console is in use" wait_for 60 grep -q "^005 " "$jobdir/log"
check "... with its output" grep -qx personal "$jobdir/out"
check "... and it was never suspended (no 010 event)" bash -c "! grep -q '^010 ' '$jobdir/log'"
check "the console was in use all along (KeyboardIdle < 60)" busy_console
kill "$toucher"
toucher=
kill "$(cat "$P1/condor_master.pid")"
check "SIGTERM stops it" wait_for 30 bash -c "! kill -0 $pid 2>/dev/null"
check "... and removes its pid file" test ! -e "$P1/condor_master.pid"
