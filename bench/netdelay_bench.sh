#!/usr/bin/env bash
# bench/netdelay_bench.sh (bench/run netdelay): a pool across a network
# that is slow or loses frames.  A central manager and an execute host in
# network namespaces, joined by the user-space switch of
# tests/lib/netswitch.py, which delays the frames of both directions by
# 0, 1, 10 and 50 ms (a round trip twice that) or drops 1 % of them.
# For each: a trivial vanilla job's turnaround (condor_submit to its
# completion in the history; the median of 3), and a relinked standard
# job's remote I/O (bench/remote_io_job.c: NETDELAY_MIB MiB written and
# read back in 1 MiB calls, then 1-byte preads, all served by its
# shadow across the switch), its calls cut into the default 64 KiB
# pieces (REMOTE_IO_CHUNK) and, on loopback and at 10 ms, into 1 MiB
# ones on a second execute host.  The same on loopback (tests/lib/pool.sh,
# no switch) comes first, for comparison.  Needs root and ethtool: else
# one row saying why.
#
#   NETDELAY_MIB=16      size of the file
#   NETDELAY_CALLS=40    1-byte preads
#   NETDELAY_CONDITIONS  "DELAY_MS:LOSS_PERCENT ..." (default "0:0 1:0 10:0 50:0 0:1")
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
MIB=${NETDELAY_MIB:-16}
CALLS=${NETDELAY_CALLS:-40}

if [ -z "${NETDELAY_LOOPBACK:-}" ]; then
	[ -n "${NETDELAY_CONDITIONS:-}" ] || NETDELAY_LOOPBACK=1 bash "$0" || exit 1
	NETPOOL_SWITCH=user
	. "$TOP/tests/lib/netpool.sh"
	if ! netpool_usable; then
		echo "remote I/O and turnaround with delay and loss|skipped: $NETPOOL_WHY|-"
		exit 0
	fi
	netpool_init >/dev/null
	trap 'pool_cleanup >/dev/null; netpool_cleanup' EXIT
	host() { netpool_host "$@"; }
	CONDITIONS=${NETDELAY_CONDITIONS:-"0:0 1:0 10:0 50:0 0:1"}
else
	. "$TOP/tests/lib/pool.sh"
	pool_init >/dev/null
	trap 'pool_cleanup >/dev/null' EXIT
	host() { pool_host "$@"; }
	CONDITIONS="loopback"
fi
chmod 755 "$POOL"
W=$POOL/work
mkdir -p "$W"
chmod 777 "$W"
"$TOP/bin/condor_cc" -O2 -o "$W/remote_io_job" "$TOP/bench/remote_io_job.c" || exit 1
pool_config 'START : TRUE' 'SUSPEND : FALSE' 'PREEMPTION_ENABLED = FALSE' \
	'STARTER_UPDATE_INTERVAL = 1' 'NEGOTIATOR_INTERVAL = 1' 'SCHEDD_INTERVAL = 1' \
	'RPC_TIMEOUT = 30'
host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
host exec1 "MASTER, STARTD"
# exec2 moves 1 MiB a remote call instead of 64 KiB (REMOTE_IO_CHUNK).
host exec2 "MASTER, STARTD" 'REMOTE_IO_CHUNK = 1048576'
pool_start
if ! wait_for 60 test -S "$POOL/cm/spool/.schedd_socket" ||
    ! pool_wait_machines 2 60; then
	echo "netdelay_bench: the pool did not come up" >&2
	exit 1
fi
cd "$W" || exit 1

in_history() { test -n "$(on cm condor_history "$1" -af ProcId 2>/dev/null)"; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
now() { date +%s.%N; }

# turnaround: seconds from condor_submit to the history, one trivial job.
turnaround() {
	local t0 C
	cat >true.sub <<EOS
universe   = vanilla
executable = /bin/true
queue
EOS
	t0=$(now)
	C=$(on cm condor_submit true.sub 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
	[ -n "$C" ] && wait_for 300 in_history "$C" || return 1
	awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f\n", b - a }'
}

# remote_io HOST: the figures of one standard job on HOST, "WRITE READ
# PREAD" (MiB/s, MiB/s, ms a call).
remote_io() {
	local C
	rm -f out.txt err.txt
	cat >io.sub <<EOS
universe     = standard
executable   = $W/remote_io_job
arguments    = $MIB $CALLS
output       = out.txt
error        = err.txt
requirements = Name == "$1"
queue
EOS
	C=$(on cm condor_submit io.sub 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
	[ -n "$C" ] && wait_for 600 in_history "$C" || return 1
	awk '$1 == "write_gibs" { w = $2 * 1024 } $1 == "read_gibs" { r = $2 * 1024 }
	    $1 == "pread_us" { p = $2 / 1000 }
	    END { if (w > 0) printf "%.1f %.1f %.2f\n", w, r, p }' out.txt
}

for c in $CONDITIONS; do
	if [ "$c" = loopback ]; then
		what="loopback"
	else
		d=${c%:*} l=${c#*:}
		netpool_impair_clear
		netpool_impair cm "*" "$d" "$l"
		netpool_impair "*" cm "$d" "$l"
		what="${d} ms each way, ${l} % loss"
		sleep 0.3	# (the switch reads its rules every 0.1 s)
	fi
	t=$(for i in 1 2 3; do turnaround; done | median)
	io=$(remote_io exec1)
	echo "trivial job turnaround, $what|${t:-failed} s|-"
	if [ -n "$io" ]; then
		set -- $io
		echo "remote I/O ($MIB MiB in 1 MiB calls), $what|write $1 MiB/s, read $2 MiB/s|-"
		echo "remote 1-byte pread round trip, $what|$3 ms|-"
	else
		echo "remote I/O, $what|failed: $(tail -n 1 err.txt 2>/dev/null)|-"
	fi
	case "$c" in loopback | 10:0) ;; *) continue ;; esac
	if io=$(remote_io exec2) && [ -n "$io" ]; then
		set -- $io
		echo "remote I/O, 1 MiB a remote call (REMOTE_IO_CHUNK), $what|write $1 MiB/s, read $2 MiB/s|-"
	fi
done
