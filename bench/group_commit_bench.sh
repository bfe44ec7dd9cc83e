#!/usr/bin/env bash
# The schedd's durable changes under load (group commit: one fdatasync of
# job_queue.log per turn of its loop for all the turn's changes):
# edits/s from 8 clients at once (SCHEDD_EDIT, each answered once
# synced), single-job condor_submit/s from 4 clients at once, and job
# completions/s when the shadows of 1,000 running jobs (a script that
# exits 100: the job completed) end together; with the fdatasyncs of the
# schedd counted by strace where it is installed.  SPOOL is on the disk
# (/var/tmp), where a sync costs what it costs.  Prints rows for
# bench/run's table.
#
#   GROUP_BENCH_TREE=DIR  the tree to measure (default: this one), for a
#                         figure before a change
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
TREE=${GROUP_BENCH_TREE:-$TOP}
CLIENTS=8 EDITS=500 SUBMITTERS=4 SUBMITS=100 JOBS=1000
dir=$(mktemp -d /var/tmp/condor-bench.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# The shadows wait, blocked opening a FIFO, until the bench opens it for
# writing: then all of them exit 100 (completed) together.
mkfifo "$dir/go"
printf '#!/bin/sh\nexec 3<"%s"\nexit 100\n' "$dir/go" >"$dir/shadow"
chmod +x "$dir/shadow"
cat >"$dir/condor_config" <<EOC
RELEASE_DIR = $TREE
LOCAL_DIR = $dir
COLLECTOR_HOST = 127.0.0.1:$port
SHADOW = $dir/shadow
MAX_JOB_STARTS = 5000
MAX_JOBS_RUNNING = 5000
EOC
export CONDOR_CONFIG=$dir/condor_config
mkdir -p "$dir/log" "$dir/spool"
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$TREE/include" -I"$TREE/obj/gen" \
    -I/usr/include/tirpc -o "$dir/peer" "$TOP/tests/programs/schedd_peer.c" \
    -Wl,--start-group "$TREE/obj/libcondor_submit.a" \
    "$TREE/obj/libcondor_common.a" "$TREE/obj/libcondor_classad.a" \
    -Wl,--end-group "$TREE/obj/libcondor_util.a" -ltirpc -lm || exit 1
"$TREE/sbin/condor_collector" -f & c=$!
# strace stops the schedd only at the calls counted (seccomp-bpf).
if command -v strace >/dev/null; then
	strace -f --seccomp-bpf -qq -c -U name,calls \
	    -e trace=fdatasync,fsync -o "$dir/strace" \
	    "$TREE/sbin/condor_schedd" -f & t=$!
else
	"$TREE/sbin/condor_schedd" -f & t=$!
fi
s=
trap 'kill -TERM $c $s 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do [ -S "$dir/spool/.schedd_socket" ] && break; sleep 0.1; done
s=$(sed -n 's/.*condor_schedd starting (pid \([0-9]*\)).*/\1/p' "$dir/log/SchedLog" | tail -1)
[ -n "$s" ] || exit 1
ms() { echo $(( ($2 - $1) / 1000000 )); }
rate() { awk -v n="$1" -v ms="$2" 'BEGIN { printf "%.0f/s", n * 1000 / (ms ? ms : 1) }'; }

printf 'universe = vanilla\nexecutable = /bin/true\nqueue %d\n' "$CLIENTS" \
    >"$dir/edit.sub"
C=$("$TREE/bin/condor_submit" "$dir/edit.sub" | sed -n 's/.* cluster \([0-9]*\)\./\1/p')
t0=$(date +%s%N)
"$dir/peer" edits "$C" "$CLIENTS" "$EDITS" || exit 1
t1=$(date +%s%N)
n=$((CLIENTS * EDITS))
echo "schedd: durable edits, $CLIENTS clients at once ($n)|$(rate "$n" "$(ms "$t0" "$t1")")|"

printf 'universe = vanilla\nexecutable = /bin/true\nqueue\n' >"$dir/one.sub"
t0=$(date +%s%N)
for k in $(seq "$SUBMITTERS"); do
	(for _ in $(seq "$SUBMITS"); do
		"$TREE/bin/condor_submit" "$dir/one.sub" >/dev/null || exit 1
	done) &
done
wait_ok=0
for p in $(jobs -p); do
	[ "$p" = "$c" ] || [ "$p" = "$t" ] && continue
	wait "$p" || wait_ok=1
done
t1=$(date +%s%N)
[ "$wait_ok" = 0 ] || exit 1
n=$((SUBMITTERS * SUBMITS))
echo "schedd: condor_submit of one job, $SUBMITTERS clients at once ($n)|$(rate "$n" "$(ms "$t0" "$t1")")|"
"$TREE/bin/condor_rm" -a >/dev/null
for _ in $(seq 600); do [ -z "$("$TREE/bin/condor_q" -af ClusterId)" ] && break; sleep 0.1; done

printf 'universe = vanilla\nexecutable = /bin/true\nqueue %d\n' "$JOBS" \
    >"$dir/many.sub"
D=$("$TREE/bin/condor_submit" "$dir/many.sub" | sed -n 's/.* cluster \([0-9]*\)\./\1/p')
addr=$(cat "$dir/log/.schedd_address")
"$dir/peer" negotiate "$addr" 1 "$JOBS" m1 "<127.0.0.1:9>" >/dev/null 2>&1
for _ in $(seq 3000); do
	[ "$("$TREE/bin/condor_q" "$D" -af JobStatus | grep -c '^2$')" -ge "$JOBS" ] && break
	sleep 0.1
done
sleep 1		# the last shadows reach the FIFO
t0=$(date +%s%N)
: >"$dir/go"
for _ in $(seq 3000); do
	[ "$("$TREE/bin/condor_history" "$D" -af ProcId | wc -l)" -ge "$JOBS" ] && break
	sleep 0.05
done
t1=$(date +%s%N)
echo "schedd: completions, $JOBS shadows ending together, to the history|$(rate "$JOBS" "$(ms "$t0" "$t1")")|"
kill -TERM "$s"
wait "$t" 2>/dev/null
s=
if [ -f "$dir/strace" ]; then
	syncs=$(awk '$1 == "fdatasync" || $1 == "fsync" { n += $2 } END { print n + 0 }' "$dir/strace")
	echo "schedd: fdatasync+fsync calls for all of the above|$syncs|"
fi
