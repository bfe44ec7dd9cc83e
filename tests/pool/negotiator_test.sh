#!/usr/bin/env bash
# The negotiator on a central manager: Up-Down priorities from schedd
# ads (rising while waiting, sinking while running, bounded, recovering
# toward 0 when quiet, kept for a station that stops advertising),
# persisted across a restart, shown by condor_status -submitters; a
# schedd that does not answer is skipped until it advertises again;
# hostile RPC traffic leaves it serving.
#
# checks: 23
. "$(dirname "$0")/../lib/pool.sh"

pool_init
pool_config 'START : KeyboardIdle > 20 && LoadAvg <= 0.3'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR"

# Priorities from an earlier life, with a line that does not parse.
mkdir -p "$POOL/cm/spool"
printf '# an earlier negotiator\n7 quiet\n-20 gone\n3.5 light\nnot a line\n' \
	>"$POOL/cm/spool/negotiator_priorities"
pool_start

nlog="$POOL/cm/log/NegotiatorLog"
prios="$POOL/cm/spool/negotiator_priorities"
check "the negotiator starts" wait_for 30 test -s "$POOL/cm/log/.negotiator_address"
check "it reads the stations of its earlier life" \
	wait_for 10 grep -q "3 station priorities read" "$nlog"
check "it warns of the line that does not parse" \
	grep -q "1 line(s) ignored" "$nlog"

# Schedd ads whose schedds do not answer (nothing listens there).
dead=$(free_port)
advertise_schedds() {
	on cm condor_advertise -schedd - >/dev/null <<EOA
Name = "heavy"
ScheddIpAddr = "<127.0.0.1:$dead>"
TotalIdleJobs = 36
TotalRunningJobs = 4
NumUsers = 1

Name = "light"
ScheddIpAddr = "<127.0.0.1:$dead>"
TotalIdleJobs = 1
TotalRunningJobs = 0
NumUsers = 1

Name = "flood"
ScheddIpAddr = "<127.0.0.1:$dead>"
TotalIdleJobs = 5000
TotalRunningJobs = 0
NumUsers = 5000

Name = "quiet"
ScheddIpAddr = "<127.0.0.1:$dead>"
TotalIdleJobs = 0
TotalRunningJobs = 0
NumUsers = 0
EOA
}
check "schedd ads advertised" advertise_schedds
# One idle machine, so that each station is asked for a job.
printf 'Name = "m1"\nState = "Idle"\nRequirements = TRUE\n' |
	on cm condor_advertise -startd - >/dev/null

# prio NAME [FILE]: the station's priority in the file.
prio() { awk -v n="$1" '$2 == n { print $1 }' "${2:-$prios}"; }
# Three updates at least (NEGOTIATOR_INTERVAL = 2).
updated_thrice() { [ "$(prio heavy)" ] && awk "BEGIN { exit !($(prio heavy) <= -9) }"; }
check "priorities are updated every interval" wait_for 30 updated_thrice
# One snapshot: the file is replaced at every update.
cp "$prios" "$POOL/snapshot"
h=$(prio heavy "$POOL/snapshot") l=$(prio light "$POOL/snapshot")
f=$(prio flood "$POOL/snapshot") q=$(prio quiet "$POOL/snapshot")
g=$(prio gone "$POOL/snapshot")
check "a running station sinks (Users - Running per update)" \
	awk "BEGIN { exit !($h < 0 && $h % 3 == 0) }"
check "a waiting station rises from where it was" \
	awk "BEGIN { exit !($l >= 6.5 && $l - 3.5 == (0 - $h) / 3) }"
check "the priority is bounded" test "$f" = 1000
check "a quiet station recovers toward 0" \
	awk "BEGIN { exit !($q < 7 && $q >= 0 && 7 - $q == (0 - $h) / 3) }"
check "a station that does not advertise keeps its priority" test "$g" = -20

sub=$(on cm condor_status -submitters)
check "condor_status -submitters shows the priorities" \
	grep -Eq '^flood +0 +5000 +5000 +1000' <<<"$sub"
check "condor_status -submitters -af StationPriority" \
	test "$(on cm condor_status -submitters -af Name StationPriority | grep '^quiet ')" != ""

check "the stations are logged in priority order" \
	grep -Eq 'stations by priority: flood \(1000, 5000 idle, 0 running\), .*, heavy \(-[0-9.]+, 36 idle, 4 running\)$' "$nlog"
check "a schedd that does not answer is logged" \
	grep -q "station heavy: cannot connect" "$nlog"
n1=$(grep -c "station heavy: cannot connect" "$nlog")
sleep 5
n2=$(grep -c "station heavy: cannot connect" "$nlog")
check "and skipped until its ad is refreshed" test "$n1" = "$n2"
advertise_schedds
tried_again() { [ "$(grep -c "station heavy: cannot connect" "$nlog")" -gt "$n2" ]; }
check "then tried again" wait_for 10 tried_again
check "each cycle is logged with its time" \
	grep -Eq 'cycle [0-9]+: 0 match\(es\), 0 preemption\(s\), [0-9]+ job\(s\) offered, 1 machine\(s\), [0-9.]+ s' "$nlog"

# A restart keeps fair share.
neg_pid() { sed -n 's/.*started NEGOTIATOR .*pid \([0-9]*\).*/\1/p' "$POOL/cm/log/MasterLog" | tail -1; }
old=$(neg_pid)
before=$(prio light)
kill -TERM "$old"
restarted() { local p; p=$(neg_pid); [ -n "$p" ] && [ "$p" != "$old" ] && kill -0 "$p"; }
check "the master restarts the negotiator" wait_for 30 restarted
check "the restarted negotiator reads every station back" \
	wait_for 10 grep -q "5 station priorities read" "$nlog"
kept() { awk "BEGIN { exit !($(prio light) > $before) }"; }
check "and goes on from the priorities it had" wait_for 10 kept
check "no temporary file is left" test ! -e "$prios.tmp"

# Hostile traffic does not stop it.
naddr=$(cat "$POOL/cm/log/.negotiator_address")
nport=${naddr##*:}
nport=${nport%>}
python3 "$TOP/tests/lib/rpcfuzz.py" 127.0.0.1 "$nport" 0x2c0d0005 300 11 >/dev/null
check "the negotiator survives hostile RPC traffic" \
	bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_status -submitters | grep -Eq '^flood .* 1000'"
check "and is still the same process" kill -0 "$(neg_pid)"

exit 0
