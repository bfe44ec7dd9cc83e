#!/usr/bin/env bash
# bench/remote_io_bench.sh (bench/run remote_io): what a remote system call costs against the
# bare transport under it, in the same run.  A relinked program
# (bench/remote_io_job.c, built with bin/condor_cc) runs as a standard
# universe job on a pool on this machine (tests/lib/pool.sh: a central
# manager and two execute hosts, REMOTE_IO_CHUNK 64 KiB on exec1 and
# 1 MiB on exec2), its file calls served by its shadow: a 128 MiB file
# written and read back in 1 MiB calls, then 1-byte preads.  Beside it,
# bench/tcp_loopback.c (built with cc): two processes on 127.0.0.1, a
# 1-byte ping-pong and a 128 MiB stream read in 1 MiB reads.  Prints
# rows "what|measured|goal" for bench/run, the remote figures as ratios
# to the bare ones (remote / bare).
#
#   REMOTE_IO_MIB=128      size of the file and of the stream
#   REMOTE_IO_CALLS=20000  1-byte round trips
#   REMOTE_IO_ROUNDS=3     rounds of each (the medians are printed)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
MIB=${REMOTE_IO_MIB:-128}
CALLS=${REMOTE_IO_CALLS:-20000}
ROUNDS=${REMOTE_IO_ROUNDS:-3}
. "$TOP/tests/lib/pool.sh"

if [ ! -x "$TOP/bin/condor_cc" ] || [ ! -x "$TOP/sbin/condor_master" ]; then
	echo "remote_io_bench: build first (make)" >&2
	exit 1
fi
pool_init >/dev/null
chmod 755 "$POOL"
trap 'pool_cleanup >/dev/null' EXIT
W=$POOL/work
mkdir -p "$W"
chmod 755 "$W"
cc -O2 -o "$W/tcp_loopback" "$TOP/bench/tcp_loopback.c" || exit 1
"$TOP/bin/condor_cc" -O2 -o "$W/remote_io_job" "$TOP/bench/remote_io_job.c" ||
    exit 1

pool_config 'START : TRUE' 'SUSPEND : FALSE' 'PREEMPTION_ENABLED = FALSE' \
	'STARTER_UPDATE_INTERVAL = 1'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD" 'REMOTE_IO_CHUNK = 65536'
pool_host exec2 "MASTER, STARTD" 'REMOTE_IO_CHUNK = 1048576'
pool_start
if ! wait_for 60 test -S "$POOL/cm/spool/.schedd_socket" ||
    ! pool_wait_machines 2 60; then
	echo "remote_io_bench: the pool did not come up" >&2
	exit 1
fi
pool_owner "$W"

in_history() { test -n "$(on cm condor_history "$1" -af ProcId 2>/dev/null)"; }
# num FILE KEY: the figure the program printed after KEY.
num() { awk -v k="$2" '$1 == k { print $2 }' "$1" 2>/dev/null; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "?" }'; }

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

# run_job HOST: one job on HOST (its REMOTE_IO_CHUNK); its figures
# appended to $W/HOST.pread, .read, .write.  Returns 1 with the reason
# on standard error if it failed.
run_job() {
	local h=$1 C out
	mkdir -p "$W/$h"
	[ "$OWNER" = nobody ] && chown nobody "$W/$h"
	rm -f "$W/$h/out.txt" "$W/$h/err.txt"
	cat >"$W/$h.sub" <<EOS
universe     = standard
executable   = $W/remote_io_job
arguments    = $MIB $CALLS
initialdir   = $W/$h
output       = out.txt
error        = err.txt
requirements = Name == "$h"
queue
EOS
	chmod 644 "$W/$h.sub"
	C=$(cd "$W" && as_owner "$TOP/bin/condor_submit" "$h.sub" 2>&1 |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
	if [ -z "$C" ] || ! wait_for 180 in_history "$C"; then
		echo "the job on $h did not complete $(tail -n 1 "$W/$h/err.txt" 2>/dev/null)" >&2
		return 1
	fi
	out=$W/$h/out.txt
	if [ -z "$(num "$out" pread_us)" ]; then
		echo "the job on $h printed no figures: $(tail -n 1 "$W/$h/err.txt" 2>/dev/null)" >&2
		return 1
	fi
	num "$out" pread_us >>"$W/$h.pread"
	num "$out" read_gibs >>"$W/$h.read"
	num "$out" write_gibs >>"$W/$h.write"
	# The shadow's own account: "job C.0: N remote system calls, ...,
	# U s user and S s system CPU".
	sed -n "s/.*job $C\.0: \([0-9]*\) remote system calls, .*, \([0-9.]*\) s user and \([0-9.]*\) s system CPU.*/\1 \2 \3/p" \
	    "$POOL/cm/log/ShadowLog" |
	    awk '$1 > 0 { printf "%.2f\n", ($2 + $3) * 1e6 / $1 }' >>"$W/$h.shadow"
}

# ROUNDS rounds of the bare transport and each chunk size's job, one at
# a time so that they do not share the two cores with each other; the
# medians.
for ((r = 0; r < ROUNDS; r++)); do
	"$W/tcp_loopback" "$MIB" "$CALLS" >"$W/bare.out" || {
		echo "remote_io_bench: tcp_loopback failed" >&2
		exit 1
	}
	num "$W/bare.out" pingpong_us >>"$W/bare.ping"
	num "$W/bare.out" stream_gibs >>"$W/bare.stream"
	run_job exec1
	run_job exec2
done
ping=$(median <"$W/bare.ping")
stream=$(median <"$W/bare.stream")
echo "bare TCP on loopback: 1-byte ping-pong round trip (median of $ROUNDS)|$ping us|"
echo "bare TCP on loopback: $MIB MiB stream, 1 MiB reads|$stream GiB/s|"
ok=0
for h in exec1 exec2; do
	if [ "$h" = exec1 ]; then chunk="64 KiB"; else chunk="1 MiB"; fi
	if [ ! -s "$W/$h.pread" ]; then
		echo "remote I/O, REMOTE_IO_CHUNK $chunk|failed|no job completed"
		continue
	fi
	n=$(wc -l <"$W/$h.pread")
	pr=$(median <"$W/$h.pread")
	rd=$(median <"$W/$h.read")
	wr=$(median <"$W/$h.write")
	echo "remote 1-byte pread round trip, REMOTE_IO_CHUNK $chunk ($n jobs)|$pr us ($(ratio "$pr" "$ping")x bare)|"
	echo "remote $MIB MiB sequential read, 1 MiB reads, chunk $chunk|$rd GiB/s ($(ratio "$rd" "$stream")x bare)|"
	echo "remote $MIB MiB sequential write, 1 MiB writes, chunk $chunk|$wr GiB/s|"
	[ -s "$W/$h.shadow" ] &&
	    echo "the shadow's CPU per remote call (ShadowLog), chunk $chunk|$(median <"$W/$h.shadow") us|"
	ok=$((ok + 1))
done
echo "(load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
[ "$ok" -eq 2 ]
