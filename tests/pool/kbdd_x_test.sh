#!/usr/bin/env bash
# tests/pool/kbdd_x_test.sh: condor_kbdd reads an X display's idle time.
# A real X server (Xvfb, with a cookie in an Xauthority file), a central
# manager and two execute hosts, each with a kbdd watching the display
# and no input device at all:
#  - exec1's kbdd has the cookie: X input (xdotool moving the pointer,
#    an XInput 2 event the kbdd selected) suspends the job running there
#    (user log 010), and idleness lets it continue (011);
#  - exec2's kbdd has a wrong cookie: the display refuses it, which it
#    logs once and keeps trying; X input does not touch exec2;
#  - when the X server goes away the kbdd says so and keeps running.
#
# checks: 24
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"
XVFB=
cleanup() {
	[ -n "$XVFB" ] && kill "$XVFB" 2>/dev/null && wait "$XVFB" 2>/dev/null
	pool_cleanup
}
trap cleanup EXIT

for p in Xvfb xdotool xauth; do
	check "$p is installed (make test-deps)" bash -c "command -v $p >/dev/null"
done

# The display, with a random cookie; its number is the first free one.
cookie=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
xauth -f "$POOL/xauth" add :0 MIT-MAGIC-COOKIE-1 "$cookie" 2>/dev/null
Xvfb -displayfd 3 -nolisten tcp -auth "$POOL/xauth" 3>"$POOL/xdisplay" \
    >"$POOL/xvfb.out" 2>&1 &
XVFB=$!
check "Xvfb starts" wait_for 20 test -s "$POOL/xdisplay"
D=":$(tr -dc 0-9 <"$POOL/xdisplay")"
xauth -f "$POOL/xauth" add "$D" MIT-MAGIC-COOKIE-1 "$cookie" 2>/dev/null
xauth -f "$POOL/wrong" add "$D" MIT-MAGIC-COOKIE-1 \
    00112233445566778899aabbccddeeff 2>/dev/null
x() { DISPLAY=$D XAUTHORITY=$POOL/xauth "$@"; }
check "xdotool reaches the display $D" x xdotool getmouselocation

pool_config 'STARTER_UPDATE_INTERVAL = 1' 'MAX_JOB_STARTS = 10' \
	'PREEMPTION_ENABLED = FALSE' 'KBDD_DEVICES =' "KBDD_X_DISPLAY = $D" \
	'START : KeyboardIdle > 4' 'SUSPEND : KeyboardIdle < 2' \
	'CONTINUE : KeyboardIdle > 4' 'VACATE : FALSE' 'KILL : FALSE'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD, KBDD" "KBDD_XAUTHORITY = $POOL/nowhere:$POOL/xauth"
pool_host exec2 "MASTER, STARTD, KBDD" "KBDD_XAUTHORITY = $POOL/wrong"
pool_start

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "two machines advertise" pool_wait_machines 2 60
check "exec1's kbdd watches the display, its input events too" wait_for 20 \
	grep -q "watching X display $D (its idle time and input events)" \
	"$POOL/exec1/log/KbdLog"
check "exec2's kbdd is refused, and says why" wait_for 20 \
	grep -q "X display $D: the display refused us: .*trying again" \
	"$POOL/exec2/log/KbdLog"

cm() { on cm "$@"; }
kidle() { cm condor_status -af KeyboardIdle -constraint "Name == \"$1\"" 2>/dev/null; }
state_is() { test "$(cm condor_status -af State -constraint "Name == \"$1\"" 2>/dev/null)" = "$2"; }
idle_over() { k=$(kidle "$1"); test -n "$k" && test "$k" -gt "$2"; }
idle_under() { k=$(kidle "$1"); test -n "$k" && test "$k" -lt "$2"; }

# The display has been idle since it started: so is exec1.
check "exec1 becomes Idle with the display idle" wait_for 30 state_is exec1 Idle

W="$POOL/work"
mkdir -p "$W"
cd "$W" || exit 1
cat >job.sub <<EOF2
universe     = vanilla
executable   = /bin/sleep
arguments    = 300
log          = $W/job.log
requirements = Name == "exec1"
queue
EOF2
C=$(cm condor_submit job.sub 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "the job is submitted" test -n "$C"
check "it runs on exec1" wait_for 60 state_is exec1 Claimed
check "exec2 is Idle too" wait_for 20 state_is exec2 Idle
sleep 1

# The owner moves the mouse on the display.
t0=$(date +%s.%N)
x xdotool mousemove 10 10 mousemove 20 20
check "X input suspends the job on exec1" wait_for 10 state_is exec1 Suspended
t1=$(date +%s.%N)
echo "# X input -> exec1 Suspended: $(echo "$t1 - $t0" | bc) s"
check "StartLog: the kbdd reports" grep -q "the kbdd (uid [0-9]*) reports" \
	"$POOL/exec1/log/StartLog"
check "the user log has 010 (suspended)" wait_for 10 grep -q "^010 " "$W/job.log"
check "exec2's KeyboardIdle does not see the X input" idle_over exec2 4
check "exec2 stays Idle" state_is exec2 Idle
check "the job continues once the display is idle" wait_for 20 state_is exec1 Claimed
check "the user log has 011 (unsuspended)" wait_for 10 grep -q "^011 " "$W/job.log"
n=$(grep -c "refused us" "$POOL/exec2/log/KbdLog")
check "exec2's kbdd said it once ($n)" test "$n" = 1

# The X server goes away: the kbdd logs it and goes on.
kill "$XVFB"
wait "$XVFB" 2>/dev/null
XVFB=
check "exec1's kbdd notices the display is gone" wait_for 20 \
	grep -q "X display $D: lost: " "$POOL/exec1/log/KbdLog"
kpid=$(sed -n 's/.*started KBDD (.*), pid \([0-9]*\)$/\1/p' "$POOL/exec1/log/MasterLog" | tail -1)
sleep 2
check "it keeps running (pid $kpid)" kill -0 "$kpid"
check "the startd took no harm" state_is exec1 Claimed
cm condor_rm "$C" >/dev/null 2>&1
exit $((POOL_FAILS > 0))
