# tests/ckpt/lib.sh: what the standalone checkpoint suites
# (run_suite.sh, memory_suite.sh) share.  Sourced after the suite has
# set work (its scratch directory, removed on exit); sets top, src,
# condor_cc, condor_ckpt and started (the pids cleanup kills).
# CKPT_WAIT_SECONDS: how long wait_for waits (default 60).

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
src=$top/tests/ckpt
condor_cc=$top/bin/condor_cc
condor_ckpt=$top/bin/condor_ckpt
started=()

cleanup() {
	local p
	for p in "${started[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

# want NAME: NAME is selected (the suite's selected holds the names given
# on its command line; none selects all).
want() {
	local n
	[ ${#selected[@]} -eq 0 ] && return 0
	for n in "${selected[@]}"; do
		case "$1" in *"$n"*) return 0 ;; esac
	done
	return 1
}

# ready PID: wait (up to 10 s) until the checkpoint library of PID is up:
# SIGUSR2 caught or blocked (it blocks the checkpoint signals first thing,
# before that they would kill or stop it, as they would any program).
ready() {
	local i m x
	for ((i = 0; i < 1000; i++)); do
		m=$(awk '/^Sig(Cgt|Blk):/ {print $2}' /proc/$1/status 2>/dev/null | tr '\n' ' ')
		[ -z "$m" ] && return 0	# gone already
		for x in $m; do
			(( 16#$x & 0x800 )) && return 0
		done
		sleep 0.01
	done
}

# wait_for PID: its exit status, within CKPT_WAIT_SECONDS; a stopped
# process (a signal that came before the library was up) is continued.
wait_for() {
	local pid=$1 i state
	for ((i = 0; i < ${CKPT_WAIT_SECONDS:-60} * 100; i++)); do
		[ -d /proc/$pid ] || break
		state=$(awk '{print $3}' /proc/$pid/stat 2>/dev/null)
		[ "$state" = Z ] && break
		[ "$state" = T ] && kill -CONT "$pid" 2>/dev/null
		sleep 0.01
	done
	if [ -d /proc/$pid ] && [ "$(awk '{print $3}' /proc/$pid/stat 2>/dev/null)" != Z ]; then
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid"
}

# build_both NAME SRC [cc args...]: $work/bin/NAME.native (cc -static)
# and $work/bin/NAME (condor_cc) from SRC in tests/ckpt.
build_both() {
	local name=$1 file=$2
	shift 2
	mkdir -p "$work/bin"
	if ! cc -O2 -g -static -o "$work/bin/$name.native" "$src/$file" "$@" \
	    >"$work/bin/$name.log" 2>&1; then
		fail "build-$name" "native build failed: $(grep -m1 error "$work/bin/$name.log")"
		return 1
	fi
	if ! "$condor_cc" -O2 -g -o "$work/bin/$name" "$src/$file" "$@" \
	    >>"$work/bin/$name.log" 2>&1; then
		fail "build-$name" "condor_cc failed: $(grep -m1 error "$work/bin/$name.log")"
		return 1
	fi
	return 0
}
