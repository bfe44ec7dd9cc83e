#!/usr/bin/env bash
# bench/collector_burst_bench.sh (bench/run collector_burst): what a
# wake-up of the collector costs beside an update.  10,000 simulated
# machines (bench/collector_load.c) each send one ad a minute as a
# datagram (167 a second in all) for COLLECTOR_BURST_SECONDS, N at a
# time back to back at the same average rate; the collector's CPU
# (/proc/PID/schedstat) as a share of one core, with
# COLLECTOR_UPDATE_GATHER = 0 (every datagram taken as it comes) for N =
# 1, 4 and 17, and with the default gathering (0.05 s) for N = 1.
# Prints rows "what|measured|goal" for bench/run.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
N=${COLLECTOR_BENCH_MACHINES:-10000}
SECS=${COLLECTOR_BURST_SECONDS:-30}
dir=$(mktemp -d /tmp/condor-bench.XXXXXX)
cpid=
stop_collector() {
	[ -n "$cpid" ] || return 0
	kill -TERM "$cpid" 2>/dev/null
	wait "$cpid" 2>/dev/null
	cpid=
}
trap 'stop_collector; rm -rf "$dir"' EXIT
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP/include" -I"$TOP/obj/gen" \
	-I/usr/include/tirpc -o "$dir/collector_load" "$TOP/bench/collector_load.c" \
	-Wl,--start-group "$TOP/obj/libcondor_submit.a" "$TOP/obj/libcondor_common.a" "$TOP/obj/libcondor_classad.a" -Wl,--end-group "$TOP/obj/libcondor_util.a" -ltirpc -lm || exit 1
export CONDOR_CONFIG=$dir/condor_config

# start_collector GATHER: a fresh collector with that
# COLLECTOR_UPDATE_GATHER, every machine's ad already in.
start_collector() {
	local port _
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	rm -rf "$dir/log" "$dir/spool"
	cat >"$CONDOR_CONFIG" <<EOC
RELEASE_DIR = $TOP
LOCAL_DIR = $dir
COLLECTOR_HOST = 127.0.0.1:$port
CLASSAD_LIFETIME = 900
COLLECTOR_UPDATE_GATHER = $1
EOC
	"$TOP/sbin/condor_collector" -f &
	cpid=$!
	for _ in $(seq 50); do
		"$TOP/bin/condor_status" -total >/dev/null 2>&1 && break
		sleep 0.1
	done
	"$dir/collector_load" "$N" 20000 0 >/dev/null || return 1
	for _ in $(seq 100); do
		[ "$("$TOP/bin/condor_status" -af Name 2>/dev/null | wc -l)" -ge "$N" ] && return 0
		sleep 0.1
	done
	return 1
}
cpu_ns() { awk '{print $1}' "/proc/$cpid/schedstat"; }
rate=$(echo "scale=2; $N / 60" | bc)

# share BURST: the collector's CPU, % of a core, while the machines send
# BURST datagrams at a time at the steady rate.
share() {
	local c0 c1
	c0=$(cpu_ns)
	"$dir/collector_load" "$N" "$rate" "$SECS" "$1" >/dev/null || return 1
	sleep 0.2
	c1=$(cpu_ns)
	awk -v a="$c0" -v b="$c1" -v s="$SECS" 'BEGIN { printf "%.2f\n", (b - a) / 1e7 / s }'
}

if ! start_collector 0; then
	echo "collector_burst_bench: the collector did not take the $N ads" >&2
	exit 1
fi
for b in 1 4 17; do
	echo "collector: CPU at $rate datagrams/s, $b at a time, COLLECTOR_UPDATE_GATHER = 0|$(share "$b")% of a core|"
done
stop_collector
if ! start_collector 0.05; then
	echo "collector_burst_bench: the collector did not take the $N ads" >&2
	exit 1
fi
echo "collector: CPU at $rate datagrams/s, 1 at a time, COLLECTOR_UPDATE_GATHER = 0.05 (default)|$(share 1)% of a core|< 1%"
