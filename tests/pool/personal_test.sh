#!/usr/bin/env bash
# A personal pool: condor_master with no configuration file at all
# detaches, writes its pid file, starts a collector and a startd on
# 127.0.0.1 with its state in ~/.condor, and condor_status shows this
# machine.  SIGTERM to the pid in the pid file stops everything.
#
# checks: 7
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# As root, the test runs in a network namespace of its own (a loopback
# nobody else uses), so the default collector port is free whatever
# else runs on this machine.
if [ -z "${PERSONAL_NETNS:-}" ] && [ "$(id -u)" = 0 ] &&
    command -v ip >/dev/null && unshare -n true 2>/dev/null; then
	exec unshare -n env PERSONAL_NETNS=1 bash -c \
	    'ip link set lo up && exec bash "$0"' "$0"
fi
home=$(mktemp -d /tmp/condor-personal.XXXXXX)
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n" "$*"; fi; }
wait_for() { local l=$1 t0=$SECONDS; shift; while ! "$@" >/dev/null 2>&1; do [ $((SECONDS - t0)) -ge "$l" ] && return 1; sleep 0.2; done; }

# The test needs a machine with no system-wide configuration and the
# default collector port free; say so plainly rather than skip.
if [ -e /etc/condor/condor_config ]; then
	fail "personal pool" "/etc/condor/condor_config exists on this machine"
	exit 1
fi
if python3 -c 'import socket,sys; s=socket.socket(); sys.exit(0 if s.connect_ex(("127.0.0.1",9618)) == 0 else 1)'; then
	fail "personal pool" "port 9618 is already in use"
	exit 1
fi
cleanup() {
	local pid
	pid=$(cat "$home/.condor/log/condor_master.pid" 2>/dev/null)
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 100); do [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	rm -rf "$home"
}
trap cleanup EXIT

export HOME=$home
unset CONDOR_CONFIG
check "condor_master detaches" env -u CONDOR_CONFIG "$TOP/sbin/condor_master"
check "it writes its pid file" wait_for 10 test -s "$home/.condor/log/condor_master.pid"
pid=$(cat "$home/.condor/log/condor_master.pid")
check "the master runs" kill -0 "$pid"
host=$(hostname -s)
check "condor_status shows this machine" \
	wait_for 30 bash -c "'$TOP/bin/condor_status' -af Name | grep -qx '$host'"
check "state lives in ~/.condor" test -d "$home/.condor/spool" -a -d "$home/.condor/execute"
check "the collector listens on 127.0.0.1:9618" \
	grep -q '<127.0.0.1:9618>' "$home/.condor/log/.collector_address"
kill -TERM "$pid"
check "SIGTERM stops the personal pool" wait_for 30 bash -c "! kill -0 $pid"
