#!/usr/bin/env bash
# The owner gets the machine back: how long from the owner's activity
# (a console device touched, an input event through condor_kbdd, pointer
# motion on an X display whose idle time condor_kbdd reads) to the
# job being stopped (its process in state T), with POLLING_INTERVAL 1;
# how long from the startd's vacate decision to the machine being free
# (starter gone, State Owner) for a vanilla job and for a standard job
# checkpointing a 100 MiB image (tests/programs/fill_compute.c relinked
# with condor_cc, on exec2); and what the startd's looks cost.  A pool
# on this machine, the seeds' policy with MINUTE = 1.  Prints rows for
# bench/run's table.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/tests/lib/pool.sh"
TRIALS=${OWNER_BENCH_TRIALS:-5}

pool_init >/dev/null
chmod 755 "$POOL"
# An X display (Xvfb, from make test-deps) for the kbdd to read, if any.
XVFB=
XDISPLAY=
if command -v Xvfb >/dev/null && command -v xdotool >/dev/null; then
	Xvfb -displayfd 3 -nolisten tcp 3>"$POOL/xdisplay" >/dev/null 2>&1 &
	XVFB=$!
	wait_for 20 test -s "$POOL/xdisplay" &&
	    XDISPLAY=":$(tr -dc 0-9 <"$POOL/xdisplay")"
fi
trap '[ -n "$XVFB" ] && kill "$XVFB" 2>/dev/null; pool_cleanup' EXIT
pool_config 'MINUTE = 1' 'STARTER_UPDATE_INTERVAL = 1' 'VACATE_GRACE = 2' \
	'PREEMPTION_ENABLED = FALSE'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD, KBDD" "KBDD_DEVICES = $POOL/exec1/kbd" \
	"KBDD_X_DISPLAY = $XDISPLAY"
pool_host exec2 "MASTER, STARTD" 'VACATE_GRACE = 30'
mkfifo "$POOL/exec1/kbd"
pool_start
# Quiet: the pool's own PASS/FAIL lines are not rows.
wait_for 60 test -S "$POOL/cm/spool/.schedd_socket" || exit 1
pool_wait_machines 2 60 || exit 1

W=$POOL/work
mkdir -p "$W"
chmod 755 "$W"
cd "$W" || exit 1
cat >sleeper.sh <<'EOF'
#!/bin/sh
echo "pid $$" >&2
while :; do sleep 1; done
EOF
chmod 755 sleeper.sh
cat >job.sub <<'EOF'
universe   = vanilla
executable = sleeper.sh
output     = job.out
error      = job.err
log        = job.log
requirements = Name == "exec1"
queue
EOF
cm() { on cm "$@"; }
state() { cm condor_status -af State -constraint 'Name == "exec1"' 2>/dev/null; }
state_is() { test "$(state)" = "$1"; }
job_pid() { sed -n 's/^pid //p' job.err 2>/dev/null | tail -1; }
new_pid() { local p; p=$(job_pid); [ -n "$p" ] && [ "$p" != "$1" ] && kill -0 "$p" 2>/dev/null; }

# stop_time PID KIND PATH: poke PATH (touch it, or write to the FIFO)
# and time until PID is stopped; seconds.
stop_time() {
	python3 - "$@" <<'PY'
import os, sys, time
pid, kind, path = sys.argv[1], sys.argv[2], sys.argv[3]
def state():
    with open("/proc/%s/stat" % pid) as f:
        s = f.read()
    return s[s.rindex(")") + 2]
t0 = time.monotonic()
if kind == "touch":
    os.utime(path)
elif kind == "x":
    # The pointer somewhere it was not: motion is input.
    xy = str(100 + int(t0 * 1000) % 500)
    os.spawnvpe(os.P_WAIT, "xdotool", ["xdotool", "mousemove", xy, xy],
                dict(os.environ, DISPLAY=path))
else:
    with open(path, "w") as f:
        f.write("key\n")
while state() != "T":
    if time.monotonic() - t0 > 10:
        print("timeout")
        sys.exit(1)
    time.sleep(0.0002)
print("%.4f" % (time.monotonic() - t0))
PY
}
# summary: "median s (min - max of N)" of the numbers on stdin.
summary() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "?"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f s (%.3f - %.3f, %d runs)\n", m, v[1], v[NR], NR }'
}

cm condor_submit job.sub >/dev/null 2>&1
wait_for 60 new_pid none || { echo "owner: the job did not start|?|"; exit 1; }
pid=$(job_pid)
wait_for 10 state_is Claimed

# The startd's cost per look while a job runs (20 s at one look a
# second), in CPU time from its schedstat (nanoseconds).
spid=$(sed -n 's/.*started STARTD .*pid \([0-9]*\).*/\1/p' "$POOL/exec1/log/MasterLog" | tail -1)
c0=$(awk '{ print $1 }' "/proc/$spid/schedstat")
sleep 20
c1=$(awk '{ print $1 }' "/proc/$spid/schedstat")
cost=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.2f", (b - a) / 1e6 / 20 }')

kinds="touch kbdd"
[ -n "$XDISPLAY" ] && kinds="$kinds x"
for kind in $kinds; do
	: >"times.$kind"
	for _ in $(seq "$TRIALS"); do
		# Resumed and quiet: the console idle for ContinueIdleTime.
		wait_for 30 state_is Claimed || break
		sleep 1.3
		if [ "$kind" = touch ]; then
			stop_time "$pid" touch "$POOL/exec1/tty" >>"times.$kind"
		elif [ "$kind" = x ]; then
			stop_time "$pid" x "$XDISPLAY" >>"times.$kind"
		else
			stop_time "$pid" fifo "$POOL/exec1/kbd" >>"times.$kind"
		fi
	done
done
echo "owner: console touched -> job stopped (POLLING_INTERVAL 1)|$(grep -v timeout times.touch | summary)|<= 1 s"
echo "owner: input event via condor_kbdd -> job stopped|$(grep -v timeout times.kbdd | summary)|<= 1 s"
if [ -n "$XDISPLAY" ]; then
	echo "owner: X pointer motion via condor_kbdd -> job stopped (xdotool's start included)|$(grep -v timeout times.x | summary)|<= 1 s"
else
	echo "owner: X pointer motion via condor_kbdd -> job stopped|? (no Xvfb and xdotool: make test-deps)|<= 1 s"
fi
echo "owner: startd CPU per second with a job (a look a second, ad every 2 s)|$cost ms|"

# Vacate: the owner stays (a touch every half second); after
# MaxSuspendTime the startd decides to vacate.  From that decision to
# the machine free, by the startd's own log.
: >times.vacate
for _ in $(seq 3); do
	wait_for 60 state_is Claimed || break
	pid=$(job_pid)
	n0=$(grep -c "State Vacating -> " "$POOL/exec1/log/StartLog")
	( while :; do touch "$POOL/exec1/tty"; sleep 0.5; done ) &
	toucher=$!
	wait_for 30 bash -c "[ \$(grep -c 'State Vacating -> ' $POOL/exec1/log/StartLog) -gt $n0 ]"
	kill "$toucher"
	wait "$toucher" 2>/dev/null
	python3 - "$POOL/exec1/log/StartLog" <<'PY' >>times.vacate
import re, sys, datetime
def t(line):
    m = re.match(r"(\d\d/\d\d/\d\d \d\d:\d\d:\d\d\.\d\d\d)", line)
    return datetime.datetime.strptime(m.group(1), "%m/%d/%y %H:%M:%S.%f")
lines = open(sys.argv[1]).read().splitlines()
a = [l for l in lines if "State Suspended -> Vacating" in l][-1]
b = [l for l in lines if "State Vacating -> " in l][-1]
print("%.4f" % (t(b) - t(a)).total_seconds())
PY
	# The job comes back once the console has rested StartIdleTime.
	wait_for 60 new_pid "$pid"
done
echo "owner: vacate decision -> machine free, vanilla job (killed)|$(summary <times.vacate)|"
cm condor_rm -all >/dev/null 2>&1

# The same for a standard job with 100 MiB of heap, vacated with a
# checkpoint on exec2: from the startd's vacate decision to its
# "State Vacating -> Owner" once the starter has shipped the
# checkpoint and exited.
std_log=$POOL/exec2/log/StartLog
: >times.ckpt
if condor_cc -O2 -o fill "$TOP/tests/programs/fill_compute.c" >/dev/null 2>&1; then
	chmod 755 fill
	cat >fill.sub <<'EOF'
universe     = standard
executable   = fill
arguments    = 100 100000
output       = fill.out
error        = fill.err
log          = fill.log
requirements = Name == "exec2"
queue
EOF
	chmod 644 fill.sub
	as_owner() { "$@"; }
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
		as_owner() {
			CONDOR_CONFIG="$POOL/cm/condor_config" setpriv --reuid=nobody \
			    --regid="$(id -g nobody)" --clear-groups "$@"
		}
		chown nobody "$W"
	fi
	as_owner "$TOP/bin/condor_submit" fill.sub >/dev/null 2>&1
	state2_is() { test "$(cm condor_status -af State -constraint 'Name == "exec2"' 2>/dev/null)" = "$1"; }
	rounds() { grep -c '^round ' fill.out 2>/dev/null; }
	for _ in $(seq 3); do
		wait_for 90 state2_is Claimed || break
		# Past the fill: computing over the 100 MiB.
		r0=$(rounds)
		wait_for 60 bash -c "[ \$(grep -c '^round ' fill.out 2>/dev/null) -gt ${r0:-0} ]" || break
		n0=$(grep -c "State Vacating -> " "$std_log")
		( while :; do touch "$POOL/exec2/tty"; sleep 0.5; done ) &
		toucher=$!
		wait_for 60 bash -c "[ \$(grep -c 'State Vacating -> ' $std_log) -gt $n0 ]"
		kill "$toucher"
		wait "$toucher" 2>/dev/null
		python3 - "$std_log" <<'PY' >>times.ckpt
import re, sys, datetime
def t(line):
    m = re.match(r"(\d\d/\d\d/\d\d \d\d:\d\d:\d\d\.\d\d\d)", line)
    return datetime.datetime.strptime(m.group(1), "%m/%d/%y %H:%M:%S.%f")
lines = open(sys.argv[1]).read().splitlines()
a = [l for l in lines if "State Suspended -> Vacating" in l][-1]
b = [l for l in lines if "State Vacating -> " in l][-1]
print("%.4f" % (t(b) - t(a)).total_seconds())
PY
	done
	cm condor_rm -all >/dev/null 2>&1
fi
nck=$(grep -A1 '^004 ' fill.log 2>/dev/null | grep -c '(1) Job was checkpointed')
echo "owner: vacate decision -> machine free, 100 MiB checkpoint ($nck checkpointed)|$(summary <times.ckpt)|<= 3 s"
pool_stop
