#!/usr/bin/env bash
# bench/transfer_bench.sh (bench/run transfer): a vanilla job's input
# files through its shadow and starter, beside cp of the same files in
# the same run.  A pool on this machine (tests/lib/pool.sh: a central
# manager and one execute host) runs jobs whose transfer_input_files is
# a directory of TRANSFER_FILES files, TRANSFER_MIB in all; the time is
# the starter's own ("transferred N input files (B bytes) in S s" in its
# log: from the first list call to the last byte on disk, CRC-32s
# checked on both sides).  cp copies the same files to a new directory
# on the same file system, as the execute directory is.  Prints rows
# "what|measured|goal" for bench/run; the figures are medians of
# TRANSFER_ROUNDS runs.
#
#   TRANSFER_MIB=1024   TRANSFER_FILES=8   TRANSFER_ROUNDS=3
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
MIB=${TRANSFER_MIB:-1024}
FILES=${TRANSFER_FILES:-8}
ROUNDS=${TRANSFER_ROUNDS:-3}
. "$TOP/tests/lib/pool.sh"

if [ ! -x "$TOP/sbin/condor_master" ]; then
	echo "transfer_bench: build first (make)" >&2
	exit 1
fi
pool_init >/dev/null
chmod 755 "$POOL"
trap 'pool_cleanup >/dev/null' EXIT
W=$POOL/work
mkdir -p "$W/in"
chmod 755 "$W"
each=$((MIB / FILES))
for i in $(seq "$FILES"); do
	head -c "$((each * 1048576))" /dev/urandom >"$W/in/f$i.dat"
done
pool_config 'START : TRUE' 'SUSPEND : FALSE' 'PREEMPTION_ENABLED = FALSE' \
	'STARTER_UPDATE_INTERVAL = 1'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
pool_start
if ! wait_for 60 test -S "$POOL/cm/spool/.schedd_socket" ||
    ! pool_wait_machines 1 60; then
	echo "transfer_bench: the pool did not come up" >&2
	exit 1
fi
pool_owner "$W"
in_history() { test -n "$(on cm condor_history "$1" -af ProcId 2>/dev/null)"; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

cat >"$W/job.sh" <<'EOS'
#!/bin/sh
n=$(ls *.dat | wc -l)
test "$n" -eq "$1"
EOS
chmod 755 "$W/job.sh"
cat >"$W/job.sub" <<EOS
universe   = vanilla
executable = job.sh
arguments  = $FILES
transfer_input_files = in/
queue
EOS
xfer=()
cps=()
for r in $(seq "$ROUNDS"); do
	sync
	C=$(cd "$W" && on cm condor_submit job.sub 2>/dev/null |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
	if [ -z "$C" ] || ! wait_for 600 in_history "$C.0"; then
		echo "transfer_bench: the job did not finish" >&2
		exit 1
	fi
	if [ "$(on cm condor_history "$C.0" -af ExitCode)" != 0 ]; then
		echo "transfer_bench: the job did not find its $FILES files" >&2
		exit 1
	fi
	s=$(grep -h 'transferred [0-9]* input files' "$POOL"/exec1/log/StarterLog* |
	    tail -1 | sed -n 's/.* in \([0-9.]*\) s.*/\1/p')
	xfer+=("$s")
	rm -rf "$W/cp"
	mkdir "$W/cp"
	sync
	t0=$(date +%s%N)
	cp "$W"/in/*.dat "$W/cp/"
	t1=$(date +%s%N)
	cps+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')")
	rm -rf "$W/cp"
	echo "transfer_bench: round $r: transfer $s s, cp ${cps[-1]} s" >&2
done
x=$(printf '%s\n' "${xfer[@]}" | median)
c=$(printf '%s\n' "${cps[@]}" | median)
rate() { awk -v m="$MIB" -v s="$1" 'BEGIN { if (s > 0) printf "%.0f MiB/s", m / s; else print "?" }'; }
echo "transfer: $MIB MiB input ($FILES files) to a job, shadow to starter|$x s ($(rate "$x"))|"
echo "transfer: cp of the same files, same file system|$c s ($(rate "$c"))|"
echo "transfer: job transfer speed / cp speed|$(awk -v a="$x" -v b="$c" 'BEGIN { if (a > 0) printf "%.0f %%", 100 * b / a; else print "?" }')|>= 80 %"
