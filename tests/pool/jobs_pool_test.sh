#!/usr/bin/env bash
# Fifty vanilla jobs on a central manager (with the schedd) and four
# execute hosts: different arguments and input files, all complete with
# the right output, exit codes and user-log events; condor_q shows them
# waiting then running; the first negotiation cycle puts one on each
# idle host, and the history names the hosts they ran on.  A job
# no machine can satisfy stays idle and condor_q -analyze names the
# clause.  Garbage on a startd's port leaves it serving.  The schedd is
# killed with SIGKILL again and again while jobs run: every job still
# completes exactly once.
#
# checks: 26
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"	# EXECUTE_USER must reach the execute directories
pool_config 'START : TRUE' 'MAIL =' 'STARTER_UPDATE_INTERVAL = 1' \
	'MAX_JOB_STARTS = 20' 'SCHEDD_INTERVAL = 1'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
for i in 1 2 3 4; do
	pool_host exec$i "MASTER, STARTD"
done
pool_start
check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "four machines advertise" pool_wait_machines 4 60

W=$POOL/work
mkdir -p "$W"
chmod 777 "$W"
cd "$W" || exit 1
cm() { on cm "$@"; }
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
history_count() { cm condor_history "$1" -af ProcId 2>/dev/null | wc -l; }

# --- fifty jobs -------------------------------------------------------
cat >work.sh <<'EOF2'
#!/bin/sh
# sum the numbers of the input, times the argument; exit with the
# argument modulo 7; take a moment so that jobs overlap.
s=0
while read n; do s=$((s + n)); done
echo "proc $1 sum $((s * $1))"
sleep 1
exit $(($1 % 7))
EOF2
chmod 755 work.sh
for p in $(seq 0 49); do
	seq 1 $((p + 1)) >"in.$p"
done
cat >fifty.sub <<'EOF2'
universe   = vanilla
executable = work.sh
arguments  = $(Process)
input      = in.$(Process)
output     = out.$(Process)
error      = err.$(Process)
log        = fifty.log
queue 50
EOF2
out=$(cm condor_submit fifty.sub)
C=$(sed -n 's/^50 job(s) submitted to cluster \([0-9]*\)\.$/\1/p' <<<"$out")
check "condor_submit queues 50 jobs" test -n "$C"
first=$(cm condor_q "$C" 2>/dev/null)
check "condor_q shows them waiting (U or I) at first" \
	grep -Eq "^ *$C\.[0-9]+ .* [UI] " <<<"$first"
check "the footer counts 50 jobs" grep -Eq '^50 jobs; ' <<<"$first"
saw_running() { cm condor_q "$C" 2>/dev/null | grep -Eq "^ *$C\.[0-9]+ .* R "; }
check "condor_q shows jobs Running" wait_for 60 saw_running
check "all 50 complete" wait_for 240 bash -c \
	"[ \$(CONDOR_CONFIG=$POOL/cm/condor_config condor_history $C -af ProcId | wc -l) -eq 50 ]"
bad=0
for p in $(seq 0 49); do
	want="proc $p sum $(( (p + 1) * (p + 2) / 2 * p ))"
	[ "$(cat "out.$p" 2>/dev/null)" = "$want" ] || { bad=$((bad + 1)); echo "out.$p: $(cat "out.$p" 2>/dev/null)"; }
done
check "every job wrote the right output" test $bad -eq 0
codes=$(cm condor_history "$C" -af ProcId ExitCode | sort -n | awk '$2 != $1 % 7 {print}')
check "every exit code is right" test -z "$codes"
ev_ok=1
for p in $(seq 0 49); do
	id=$(printf '%03d.%03d.000' "$C" "$p")
	for e in 000 001 005; do
		grep -q "^$e ($id)" fifty.log || { ev_ok=0; echo "no $e for $p"; }
	done
done
check "the user log has 000, 001 and 005 for every job" test $ev_ok = 1
check "005 events carry the return values" \
	test "$(grep -c 'Normal termination (return value' fifty.log)" -eq 50
hist=$(cm condor_history -af ClusterId ProcId ExitCode RemoteHost -constraint "ClusterId == $C")
check "condor_history -af ClusterId ProcId ExitCode RemoteHost lists 50" \
	test "$(wc -l <<<"$hist")" -eq 50
check "every job ran on one of the execute hosts" \
	test -z "$(awk '$4 !~ /^exec[1-4]$/' <<<"$hist")"
# What the negotiator promises, whatever the timing afterwards: its first
# cycle that places jobs of the cluster (50 idle, four idle machines
# that START them) matches one to each machine.
first_cycle_hosts() {
	awk -v c="$C" '
		/ cycle [0-9]+: stations by priority/ { n = 0; split("", h) }
		$0 ~ " match: [^ ]* job " c "\\.[0-9]+ -> " {
			h[$NF] = 1
			n++
		}
		/ cycle [0-9]+: [0-9]+ match\(es\)/ && n > 0 {
			for (x in h)
				k++
			print k
			exit
		}' "$POOL/cm/log/NegotiatorLog"
}
hosts=$(first_cycle_hosts)
check "the first cycle placed jobs on all four hosts (${hosts:-0} of 4)" \
	test "${hosts:-0}" -eq 4
check "no job completed twice" test -z "$(cm condor_history "$C" -af ProcId | sort | uniq -d)"

# --- requirements no machine satisfies --------------------------------
cat >never.sub <<'EOF2'
universe     = vanilla
executable   = work.sh
arguments    = 1
requirements = Memory > 100000000 && Arch == "X86_64"
queue
EOF2
N=$(cm condor_submit never.sub | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
cm condor_reschedule >/dev/null
sleep 4
check "an unsatisfiable job stays idle" \
	test "$(cm condor_q "$N.0" -af JobStatus)" = 1
an=$(cm condor_q -analyze "$N.0")
check "condor_q -analyze names the failing clause" grep -q "Memory > 100000000" <<<"$an"
check "and says no machine satisfies it" grep -qi "no machine" <<<"$an"
cm condor_rm "$N" >/dev/null

# --- garbage on a startd's port ---------------------------------------
saddr=$(cm condor_status -af StartdIpAddr -constraint 'Name == "exec2"')
sport=${saddr##*:}; sport=${sport%>}
python3 "$TOP/tests/lib/rpcfuzz.py" 127.0.0.1 "$sport" 0x2c0d0003 200 11 >/dev/null
check "the startd survives hostile RPC traffic" \
	rpcinfo -a "127.0.0.1.$((sport / 256)).$((sport % 256))" -T tcp $((0x2c0d0003)) 1
qaddr=$(cat "$POOL/cm/log/.schedd_address")
qport=${qaddr##*:}; qport=${qport%>}
python3 "$TOP/tests/lib/rpcfuzz.py" 127.0.0.1 "$qport" 0x2c0d0004 200 12 >/dev/null
check "the schedd survives hostile RPC traffic" cm condor_q -af ClusterId

# --- the schedd killed again and again while jobs run -------------------
cat >crash.sub <<'EOF2'
universe   = vanilla
executable = work.sh
arguments  = $(Process)
input      = in.$(Process)
output     = crash.$(Process)
log        = crash.log
queue 20
EOF2
K=$(cm condor_submit crash.sub | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "twenty jobs for the crash test" test -n "$K"
schedd_pid() { sed -n 's/.*started SCHEDD .*pid \([0-9]*\).*/\1/p' "$POOL/cm/log/MasterLog" | tail -1; }
kills=0
for round in 1 2 3 4 5 6; do
	sleep $((RANDOM % 3 + 1))
	p=$(schedd_pid)
	[ -n "$p" ] && kill -KILL "$p" 2>/dev/null && kills=$((kills + 1))
	# the master restarts it after its back-off
	wait_for 30 bash -c "p=\$(sed -n 's/.*started SCHEDD .*pid \([0-9]*\).*/\1/p' $POOL/cm/log/MasterLog | tail -1); [ \"\$p\" != \"$p\" ] && kill -0 \$p"
done
check "the schedd was killed $kills times and restarted" test "$kills" -ge 5
check "all twenty complete after the crashes" wait_for 240 bash -c \
	"[ \$(CONDOR_CONFIG=$POOL/cm/condor_config condor_history $K -af ProcId | sort -u | wc -l) -eq 20 ]"
check "none completes twice in the history" \
	test -z "$(cm condor_history "$K" -af ProcId | sort | uniq -d)"
check "none is left in the queue" test -z "$(cm condor_q "$K" -af ProcId)"
bad=0
for p in $(seq 0 19); do
	[ "$(cat "crash.$p" 2>/dev/null)" = "proc $p sum $(( (p + 1) * (p + 2) / 2 * p ))" ] || bad=$((bad + 1))
done
check "their outputs are right" test $bad -eq 0
