#!/usr/bin/env bash
# bench/collector_bench.sh (bench/run collector_bench): the collector
# absorbing the ads of 10,000 machines: updates per second it sustains
# (one ad per call, as startds send them; and batched, as
# condor_advertise sends them), its CPU at the steady rate of one update
# per machine per minute, and a query of all 10,000 ads with a
# constraint.  Prints rows for bench/run's table.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
N=${COLLECTOR_BENCH_MACHINES:-10000}
dir=$(mktemp -d /tmp/condor-bench.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$dir/condor_config" <<EOC
RELEASE_DIR = $TOP
LOCAL_DIR = $dir
COLLECTOR_HOST = 127.0.0.1:$port
CLASSAD_LIFETIME = 900
EOC
# The simulated startds send over TCP (each waiting for the answer) with
# this configuration, as datagrams with the first.
{ cat "$dir/condor_config"; echo "UPDATE_COLLECTOR_WITH_TCP = True"; } \
	>"$dir/condor_config.tcp"
export CONDOR_CONFIG=$dir/condor_config
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP/include" -I"$TOP/obj/gen" \
	-I/usr/include/tirpc -o "$dir/collector_load" "$TOP/bench/collector_load.c" \
	-Wl,--start-group "$TOP/obj/libcondor_submit.a" "$TOP/obj/libcondor_common.a" "$TOP/obj/libcondor_classad.a" -Wl,--end-group "$TOP/obj/libcondor_util.a" -ltirpc -lm || exit 1
"$TOP/sbin/condor_collector" -f &
cpid=$!
trap 'kill -TERM $cpid 2>/dev/null; wait $cpid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 50); do "$TOP/bin/condor_status" -total >/dev/null 2>&1 && break; sleep 0.1; done

# The collector's CPU so far, in nanoseconds (schedstat: time on a CPU).
cpu_ns() { awk '{print $1}' "/proc/$cpid/schedstat"; }
# Updates the collector has taken, and those it counted lost, so far.
taken() {
	"$TOP/bin/condor_status" -af UpdatesTotal UpdatesLost 2>/dev/null |
	    awk '{t += $1; l += $2} END {print t + 0, l + 0}'
}
# Wait until the collector has taken every update sent (or 10 s).
settle() {
	local want=$1 i
	for i in $(seq 100); do
		[ "$(taken | awk '{print $1}')" -ge "$want" ] && return 0
		sleep 0.1
	done
}

# Peak rate, one ad per call over TCP, each answered: best of three
# rounds of all N machines.
best=0
for _ in 1 2 3; do
	r=$(CONDOR_CONFIG=$dir/condor_config.tcp "$dir/collector_load" "$N" 0 0 |
	    awk '{print $3}')
	[ "${r%.*}" -gt "$best" ] && best=${r%.*}
done
echo "collector: updates/s, one ad per call over TCP ($N machines)|$best|>= 20000"
sent=$((3 * N))

# The collector's CPU per update, over TCP and as datagrams: one more
# round of all N machines each, the datagrams paced at 20,000 a second.
before=$(taken | awk '{print $1}')
c0=$(cpu_ns)
CONDOR_CONFIG=$dir/condor_config.tcp "$dir/collector_load" "$N" 0 0 >/dev/null
c1=$(cpu_ns)
tcp_us=$(echo "scale=1; ($c1 - $c0) / 1000 / $N" | bc)
sent=$((sent + N))
c0=$(cpu_ns)
"$dir/collector_load" "$N" 20000 0 >/dev/null
sent=$((sent + N))
settle "$sent"
c1=$(cpu_ns)
read -r now lost <<<"$(taken)"
got=$((now - before - N))
udp_us=$(echo "scale=1; ($c1 - $c0) / 1000 / $got" | bc)
echo "collector: CPU per update, TCP / UDP|${tcp_us} / ${udp_us} us|"
echo "collector: datagrams taken at 20,000/s|$got of $N|"

# Peak rate as datagrams: three rounds of all N machines as fast as they
# can be sent, timed until the collector has taken them all.
t0=$(date +%s.%N)
for _ in 1 2 3; do "$dir/collector_load" "$N" 0 0 >/dev/null; done
sent=$((sent + 3 * N))
settle "$sent"
t1=$(date +%s.%N)
read -r now lost <<<"$(taken)"
echo "collector: updates/s, one ad per datagram (UDP), all taken|$(echo "($now - $before - 2 * $N) / ($t1 - $t0)" | bc) ($((now - before - 2 * N)) of $((3 * N)))|>= 20000"

# Peak rate, batched (condor_advertise).
python3 - "$dir/ads" "$N" <<'PY'
import sys
n = int(sys.argv[2])
with open(sys.argv[1], "w") as f:
    for i in range(n):
        f.write(f'Name = "adv{i:05d}"\nArch = "X86_64"\nOpSys = "LINUX"\n'
                f'Memory = {2048 + i % 8 * 1024}\nDisk = {50000000 + i}\n'
                f'LoadAvg = 0.{i % 100:02d}\nKeyboardIdle = {60 * (i % 120)}\n'
                f'State = "Idle"\nStartdIpAddr = "<10.0.0.1:40000>"\n'
                f'START = (LoadAvg <= 0.3) && KeyboardIdle > 15 * 60\n\n')
PY
t0=$(date +%s.%N)
"$TOP/bin/condor_advertise" "$dir/ads" >/dev/null
t1=$(date +%s.%N)
echo "collector: updates/s, batched (condor_advertise)|$(echo "$N / ($t1 - $t0)" | bc)|"

# Steady state: every machine once a minute, for 30 s, over TCP and as
# datagrams (the default).
rate=$(echo "scale=2; $N / 60" | bc)
c0=$(cpu_ns)
ntcp=$(CONDOR_CONFIG=$dir/condor_config.tcp "$dir/collector_load" "$N" "$rate" 30 | awk '{print $1}')
c1=$(cpu_ns)
tcp_each=$(echo "scale=1; ($c1 - $c0) / 1000 / $ntcp" | bc)
pct=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.2f", (b - a) / 1e7 / 30 }')
echo "collector: CPU at 1 update/machine/minute ($rate/s), TCP|${pct}% of a core|< 1%"
read -r before lost0 <<<"$(taken)"
c0=$(cpu_ns)
n=$("$dir/collector_load" "$N" "$rate" 30 | awk '{print $1}')
c1=$(cpu_ns)
settle $((before + n))
read -r after lost1 <<<"$(taken)"
pct=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.2f", (b - a) / 1e7 / 30 }')
echo "collector: CPU at 1 update/machine/minute ($rate/s), UDP|${pct}% of a core|< 1%"
echo "collector: datagrams lost at that rate|$((n - (after - before))) of $n|"
echo "collector: CPU per update at that rate, TCP / UDP|$tcp_each / $(echo "scale=1; ($c1 - $c0) / 1000 / $n" | bc) us|"

# A query of all machine ads with a constraint (best of five).
bestq=999999
for _ in 1 2 3 4 5; do
	t0=$(date +%s%N)
	cnt=$("$TOP/bin/condor_status" -af Name -constraint 'Memory >= 0 && OpSys == "LINUX"' | wc -l)
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	[ "$ms" -lt "$bestq" ] && bestq=$ms
done
echo "collector: query of all $cnt ads with a constraint (condor_status -af)|${bestq} ms|< 100 ms"

# The same query returning every attribute of every ad (condor_status -l).
bestl=999999
for _ in 1 2 3; do
	t0=$(date +%s%N)
	"$TOP/bin/condor_status" -l -constraint 'Memory >= 0 && OpSys == "LINUX"' >/dev/null
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	[ "$ms" -lt "$bestl" ] && bestl=$ms
done
echo "collector: the same query, whole ads (condor_status -l)|${bestl} ms|"
