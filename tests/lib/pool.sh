# tests/lib/pool.sh: a pool of several hosts on one machine, for tests.
#
# Each "host" is a directory with its own LOCAL_DIR and condor_config,
# sharing one central manager (DESIGN.md section 9).  Every daemon
# listens on 127.0.0.1; only the collector has a fixed (free) port.
#
#   . tests/lib/pool.sh
#   pool_init                      # a fresh pool directory, $POOL
#   pool_config 'NAME = value'...  # settings every host shares
#   pool_host cm "MASTER, COLLECTOR" ['NAME = value'...]
#   pool_host exec1 "MASTER, STARTD"
#   pool_start                     # start every host's master
#   pool_wait_machines 4           # until 4 machine ads are in
#   on cm condor_status            # run a command as host cm
#   pool_owner DIR                 # OWNER, as_owner: who submits jobs
#   pool_stop                      # (also done at exit)
#
# Checks print "PASS name" / "FAIL name: why" for tests/run, or "SKIP
# name: why" when they cannot run here.  Every process started is
# stopped by pid at exit: the masters with SIGTERM (they stop their
# daemons), then anything still running whose environment names this
# pool.
#
# The pool runs the programs in $RELEASE (bin, sbin, lib, etc): the
# tree itself, unless the tests run as root and the tree is out of
# other users' reach (a clone in a directory only root may enter), since
# user nobody then submits jobs and runs them.  RELEASE is then a copy
# made by "make install" in a temporary 0755 directory: the one tests/run
# names in CONDOR_TEST_RELEASE (installed by the first test that needs
# it), or else this test's own.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RELEASE=$TOP
POOL_OWN_RELEASE=

# reachable_by_others PATH: every directory above PATH lets others in.
reachable_by_others() {
	local d=$1
	while [ "$d" != / ] && [ -n "$d" ]; do
		d=$(dirname "$d")
		[ $((8#$(stat -L -c %a "$d") & 1)) -eq 1 ] || return 1
	done
	test "$(stat -L -c %A "$1" | cut -c8-10)" = r-x
}

# pool_release: set RELEASE (above); exits the test if it cannot.
pool_release() {
	local dir=${CONDOR_TEST_RELEASE:-}
	[ "$(id -u)" = 0 ] || return 0
	reachable_by_others "$TOP/bin/condor_submit" &&
	    reachable_by_others "$TOP/sbin/condor_master" && return 0
	if [ -z "$dir" ] || ! reachable_by_others "$dir"; then
		dir=$(mktemp -d /tmp/condor-release.XXXXXX) || exit 1
		chmod 755 "$dir"
		POOL_OWN_RELEASE=$dir
	fi
	# Tests run side by side: one installs, the others wait for it.
	if ! (
		flock 9
		[ -x "$dir/sbin/condor_master" ] ||
		    make -s -C "$TOP" install PREFIX="$dir" >"$dir/install.log" 2>&1
	) 9>>"$dir/.install.lock"; then
		echo "FAIL make install PREFIX=$dir (for user nobody, who cannot reach $TOP): $(tail -n 5 "$dir/install.log")"
		exit 1
	fi
	RELEASE=$dir
}
pool_release
export PATH="$RELEASE/bin:$RELEASE/sbin:$PATH"
unset CONDOR_CONFIG	# each command names its host (on HOST ...)
# Descriptors inherited from whoever ran the test would be inherited by
# native runs too and shift their descriptor numbers against the same
# program's under Condor, which starts with 0, 1 and 2 only.
# (255 is the script bash itself is reading.)
for _fd in /proc/$$/fd/*; do
	_fd=${_fd##*/}
	[ "$_fd" -gt 2 ] 2>/dev/null && [ "$_fd" != 255 ] && exec {_fd}>&-
done
unset _fd
POOL=
POOL_HOSTS=()
declare -A POOL_MASTER_PID
COLLECTOR_PORT=
POOL_FAILS=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; POOL_FAILS=$((POOL_FAILS + 1)); }
# skip NAME REASON: a check that cannot run here.
skip() { echo "SKIP $1: $2"; }
# check NAME COMMAND...: PASS if the command succeeds.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "$*"; fi
}

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

pool_init() {
	POOL=$(mktemp -d /tmp/condor-pool.XXXXXX)
	COLLECTOR_PORT=$(free_port)
	cat >"$POOL/condor_config.common" <<EOC
# Shared by every host of the test pool in $POOL
RELEASE_DIR = $RELEASE
CONDOR_HOST = 127.0.0.1
COLLECTOR_HOST = 127.0.0.1:$COLLECTOR_PORT
BIND_ADDRESS = 127.0.0.1
POLLING_INTERVAL = 1
STARTD_UPDATE_INTERVAL = 2
SCHEDD_INTERVAL = 2
NEGOTIATOR_INTERVAL = 2
MASTER_UPDATE_INTERVAL = 2
MASTER_BACKOFF_CONSTANT = 1
RPC_TIMEOUT = 10
MAIL =
SEC_POOL_KEY_FILE = $POOL/pool_key
# One core per "host", whatever this machine has: a startd is one slot
# named HOST unless a test asks for a partitionable one.
NUM_CPUS = 1
EOC
	trap pool_cleanup EXIT
}

# pool_config LINE...: add settings shared by every host.
pool_config() {
	local l
	for l in "$@"; do
		printf '%s\n' "$l" >>"$POOL/condor_config.common"
	done
}

# pool_host NAME DAEMON_LIST [LINE...]: a host with its own LOCAL_DIR.
pool_host() {
	local name=$1 list=$2 dir="$POOL/$1" l
	shift 2
	mkdir -p "$dir"
	: >"$dir/tty"
	touch -d '1 hour ago' "$dir/tty"
	echo "0.00 0.00 0.00 1/100 1" >"$dir/loadavg"
	{
		cat "$POOL/condor_config.common"
		echo "LOCAL_CONFIG_FILE = $dir/condor_config.local"
	} >"$dir/condor_config"
	{
		echo "HOST = $name"
		echo "LOCAL_DIR = $dir"
		echo "DAEMON_LIST = $list"
		echo "CONSOLE_DEVICES = $dir/tty"
		echo "LOAD_AVERAGE_FILE = $dir/loadavg"
		for l in "$@"; do printf '%s\n' "$l"; done
	} >"$dir/condor_config.local"
	POOL_HOSTS+=("$name")
}

# on HOST COMMAND...: run a command with HOST's configuration.
on() {
	local host=$1
	shift
	CONDOR_CONFIG="$POOL/$host/condor_config" "$@"
}

pool_start_host() {
	local h=$1
	CONDOR_CONFIG="$POOL/$h/condor_config" CONDOR_TEST_POOL="$POOL" \
	    "$RELEASE/sbin/condor_master" -f >"$POOL/$h/master.out" 2>&1 &
	POOL_MASTER_PID[$h]=$!
}

pool_start() {
	local h
	for h in "${POOL_HOSTS[@]}"; do
		pool_start_host "$h"
	done
}

# wait_for SECONDS COMMAND...: retry until the command succeeds.  The
# limit is at least WAIT_FOR_FLOOR (60) seconds: tests run side by side
# on a loaded machine, where a step that takes a second alone may take
# many, and every wait_for waits for something to become true (none
# checks that something does not happen within a time).
wait_for() {
	local limit=$1 t0=$SECONDS
	[ "$limit" -lt "${WAIT_FOR_FLOOR:-60}" ] && limit=${WAIT_FOR_FLOOR:-60}
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ $((SECONDS - t0)) -ge "$limit" ] && return 1
		sleep 0.2
	done
	return 0
}

machine_count() {
	on "${POOL_HOSTS[0]}" condor_status -af Name 2>/dev/null | wc -l
}

# pool_wait_machines N [SECONDS]: until N machine ads are in.
pool_wait_machines() {
	local n=$1 limit=${2:-60}
	wait_for "$limit" bash -c "[ \$(CONDOR_CONFIG='$POOL/${POOL_HOSTS[0]}/condor_config' '$RELEASE/bin/condor_status' -af Name 2>/dev/null | wc -l) -ge $n ]"
}

# pool_owner DIR: who submits the jobs: OWNER, and as_owner COMMAND...
# which runs a command as OWNER (with the central manager's
# configuration unless CONDOR_CONFIG is set for it, as "on HOST" does).
# When the tests run as root OWNER is user nobody, so that what the job
# meets (EACCES on a mode-000 file, the files it creates) is an ordinary
# user's, and the work directory DIR is given to nobody.
pool_owner() {
	OWNER=$(id -un)
	as_owner() { "$@"; }
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	    id nobody >/dev/null 2>&1; then
		OWNER=nobody
		as_owner() {
			CONDOR_CONFIG=${CONDOR_CONFIG:-$POOL/cm/condor_config} \
			    setpriv --reuid=nobody --regid="$(id -g nobody)" \
			    --clear-groups "$@"
		}
		chown nobody "$1"
	fi
}

# check_resumed JOB EXE RUNS: a check that the standard-universe JOB
# (C.P) ran RUNS times ("2", or "+2" for at least two), its starters
# fetching the program EXE itself once and its checkpoint every other
# time (the sizes in the StarterLogs tell which).
check_resumed() {
	local sizes orig op=-eq n=${3#+}
	[ "$n" != "$3" ] && op=-ge
	orig=$(stat -c %s "$2")
	# What each starter of the job fetched, by the starter's pid.
	sizes=$(cat "$POOL"/*/log/StarterLog 2>/dev/null | awk -v job="job $1 " '
	    index($0, job "(standard universe)") { s[$3] = 1 }
	    /fetched condor_exec.exe: / && s[$3] {
		sub(/.*fetched condor_exec.exe: /, ""); print $1 }')
	check "it resumed from its checkpoint (fetched: $(echo $sizes))" \
		test "$(echo "$sizes" | grep -c .)" "$op" "$n" -a \
		"$(echo "$sizes" | grep -cx "$orig")" = 1
}

# Pids of processes whose environment names this pool.
pool_pids() {
	local p
	for p in /proc/[0-9]*; do
		[ -r "$p/environ" ] || continue
		if { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qx "CONDOR_TEST_POOL=$POOL"; then
			echo "${p#/proc/}"
		fi
	done
}

pool_stop_host() {
	local h=$1 pid=${POOL_MASTER_PID[$1]:-}
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	local t0=$SECONDS
	while kill -0 "$pid" 2>/dev/null; do
		[ $((SECONDS - t0)) -ge 30 ] && { kill -KILL "$pid" 2>/dev/null; break; }
		sleep 0.1
	done
	wait "$pid" 2>/dev/null
	unset "POOL_MASTER_PID[$h]"
}

pool_stop() {
	local h p
	for h in "${!POOL_MASTER_PID[@]}"; do
		pool_stop_host "$h"
	done
	# Anything left (a daemon whose master was killed): by pid.
	for p in $(pool_pids); do
		[ "$p" = $$ ] && continue
		kill -KILL "$p" 2>/dev/null
	done
}

pool_cleanup() {
	pool_stop
	if [ "$POOL_FAILS" -gt 0 ] || [ -n "${KEEP_POOL:-}" ]; then
		echo "pool kept in $POOL"
		for h in "${POOL_HOSTS[@]}"; do
			for f in "$POOL/$h"/log/*Log; do
				[ -f "$f" ] || continue
				echo "---- $f (last lines)"
				tail -n 25 "$f"
			done
		done
	else
		rm -rf "$POOL"
	fi
	[ -z "$POOL_OWN_RELEASE" ] || rm -rf "$POOL_OWN_RELEASE"
}
