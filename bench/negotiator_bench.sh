#!/usr/bin/env bash
# One negotiation cycle at scale: 10,000 machine ads (condor_advertise)
# and 100,000 idle jobs over 10 schedds.  Each schedd may start
# NEG_BENCH_STARTS jobs per cycle; its shadows are stand-ins that just
# wait, so only the matchmaking is measured.  The cycle's duration is the
# negotiator's own LastCycleDuration.
#
# Two kinds of stand-in (NEG_BENCH_SHADOW; both by default): "static", a
# static program that only waits, so that the cycle is the matchmaking
# alone; "shell", a script that execs sleep, whose two dynamic execs per
# match cost about what real shadows cost to start, and take CPU from the
# cycle on a small machine (the schedd starts a station's shadows while
# the negotiator goes on with the next station).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${NEG_BENCH_SHADOW:-}" ]; then
	NEG_BENCH_SHADOW=static bash "$0"
	NEG_BENCH_SHADOW=shell bash "$0"
	exit
fi
M=${NEG_BENCH_MACHINES:-10000}
S=${NEG_BENCH_SCHEDDS:-10}
J=${NEG_BENCH_JOBS:-10000}	# per schedd
STARTS=${NEG_BENCH_STARTS:-100}
dir=$(mktemp -d /tmp/condor-bench.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
if [ "$NEG_BENCH_SHADOW" = static ]; then
	printf '#include <unistd.h>\nint main(void) { pause(); return 0; }\n' |
	    cc -O2 -static -x c -o "$dir/shadow" - || exit 1
else
	printf '#!/bin/sh\nexec sleep 600\n' >"$dir/shadow"
	chmod 755 "$dir/shadow"
fi
common="RELEASE_DIR = $TOP
COLLECTOR_HOST = 127.0.0.1:$port
NEGOTIATOR_INTERVAL = 3600
SCHEDD_INTERVAL = 2
SHADOW = $dir/shadow
MAX_JOB_STARTS = $STARTS
MAX_JOBS_RUNNING = 100000
CLASSAD_LIFETIME = 3600
PREEMPTION_ENABLED = FALSE
SEC_POOL_KEY_FILE = $dir/pool_key"
mk() {	# NAME: a host directory with its configuration
	mkdir -p "$dir/$1/log" "$dir/$1/spool"
	printf '%s\nLOCAL_DIR = %s\nHOST = %s\n' "$common" "$dir/$1" "$1" >"$dir/$1/condor_config"
}
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	wait 2>/dev/null
	# the stand-in shadows, by the pids their schedds recorded
	for p in $(cat "$dir"/s*/spool/shadow.pids 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$dir"
}
trap cleanup EXIT
mk cm
CONDOR_CONFIG=$dir/cm/condor_config "$TOP/sbin/condor_collector" -f & pids+=($!)
CONDOR_CONFIG=$dir/cm/condor_config "$TOP/sbin/condor_negotiator" -f & pids+=($!)
sleep 0.5
python3 - "$dir/ads" "$M" <<'PY'
import sys
n = int(sys.argv[2])
with open(sys.argv[1], "w") as f:
    for i in range(n):
        f.write(f'Name = "m{i:05d}"\nArch = "X86_64"\nOpSys = "LINUX"\n'
                f'Memory = {1024 + i % 8 * 1024}\nDisk = 100000000\n'
                f'State = "Idle"\nStartdIpAddr = "<127.0.0.1:9>"\n'
                f'START = TRUE\nRequirements = TRUE\nRank = 0\n\n')
PY
CONDOR_CONFIG=$dir/cm/condor_config "$TOP/bin/condor_advertise" "$dir/ads" >/dev/null
cat >"$dir/job.sub" <<EOS
universe   = vanilla
executable = /bin/true
output     = /dev/null
queue $J
EOS
for i in $(seq 1 "$S"); do
	mk "s$i"
	CONDOR_CONFIG=$dir/s$i/condor_config "$TOP/sbin/condor_schedd" -f & pids+=($!)
done
for i in $(seq 1 "$S"); do
	for _ in $(seq 100); do [ -S "$dir/s$i/spool/.schedd_socket" ] && break; sleep 0.1; done
	CONDOR_CONFIG=$dir/s$i/condor_config "$TOP/bin/condor_submit" "$dir/job.sub" >/dev/null
done
# wait until the collector has every schedd's ad with its idle jobs
for _ in $(seq 100); do
	n=$(CONDOR_CONFIG=$dir/cm/condor_config "$TOP/bin/condor_status" -submitters -af TotalIdleJobs 2>/dev/null | awk '$1 > 0' | wc -l)
	[ "$n" -ge "$S" ] && break
	sleep 0.2
done
# The negotiator logs every cycle: "cycle N: M match(es), ... in S s".
last_cycle() { grep -E 'cycle [0-9]+: [0-9]+ match' "$dir/cm/log/NegotiatorLog" | tail -1; }
before=$(last_cycle)
CONDOR_CONFIG=$dir/s1/condor_config "$TOP/bin/condor_reschedule" >/dev/null
for _ in $(seq 600); do
	now=$(last_cycle)
	[ -n "$now" ] && [ "$now" != "$before" ] && break
	sleep 0.1
done

matches=$(sed -n 's/.*: \([0-9]*\) match.*/\1/p' <<<"$now")
dur=$(sed -n 's/.*, \([0-9.]*\) s$/\1/p' <<<"$now")
echo "negotiator: one cycle, $M machines, $((S * J)) idle jobs over $S schedds ($matches matches, $NEG_BENCH_SHADOW stand-in shadows)|${dur} s|< 1 s"
