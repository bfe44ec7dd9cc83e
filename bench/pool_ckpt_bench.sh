#!/usr/bin/env bash
# bench/pool_ckpt_bench.sh (bench/run pool_ckpt): checkpoints of a
# standard universe job in a pool, from the daemons' own logs.  A pool
# on this machine (tests/lib/pool.sh: a central manager and one execute
# host, PERIODIC_CHECKPOINT_INTERVAL = 2); for each size, a job
# (tests/programs/fill_compute.c relinked with condor_cc) filling that
# many MiB (size 0: tests/programs/demo_primes.c, counting primes in
# little memory) runs until POOL_CKPT_COUNT periodic checkpoints are
# installed, then condor_vacate takes its machine back (a vacate
# checkpoint) and it is removed.  The medians of what the logs say:
#   frozen     StarterLog "checkpoint written in S s (the job was frozen
#              meanwhile)": under Condor there is no forked writer (the
#              sandbox allows no fork), so the job stops for the write
#   shipped    StarterLog "checkpoint N shipped: B bytes in S s"
#   installed  ShadowLog "checkpoint N installed: B bytes, verified in
#              S s" (CRC-32, checksums, fsync, rename in SPOOL)
#   vacate     StarterLog "vacate checkpoint written in S s" (SIGTSTP to
#              the checkpoint written)
# Prints rows "what|measured|goal" for bench/run.
#
#   POOL_CKPT_SIZES="0 16 256"   MiB the job fills (0: demo_primes)
#   POOL_CKPT_COUNT=3            periodic checkpoints per size
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
SIZES=${POOL_CKPT_SIZES:-0 16 256}
COUNT=${POOL_CKPT_COUNT:-3}
. "$TOP/tests/lib/pool.sh"

if [ ! -x "$TOP/bin/condor_cc" ] || [ ! -x "$TOP/sbin/condor_master" ]; then
	echo "pool_ckpt_bench: build first (make)" >&2
	exit 1
fi
pool_init >/dev/null
chmod 755 "$POOL"
trap 'pool_cleanup >/dev/null' EXIT
W=$POOL/work
mkdir -p "$W"
chmod 755 "$W"
"$TOP/bin/condor_cc" -O2 -o "$W/fill" "$TOP/tests/programs/fill_compute.c" ||
    exit 1
"$TOP/bin/condor_cc" -O2 -o "$W/primes" "$TOP/tests/programs/demo_primes.c" ||
    exit 1

pool_config 'START : TRUE' 'SUSPEND : FALSE' 'PREEMPTION_ENABLED = FALSE' \
	'STARTER_UPDATE_INTERVAL = 1' 'PERIODIC_CHECKPOINT_INTERVAL = 2' \
	'VACATE_GRACE = 30'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
pool_start
if ! wait_for 60 test -S "$POOL/cm/spool/.schedd_socket" ||
    ! pool_wait_machines 1 60; then
	echo "pool_ckpt_bench: the pool did not come up" >&2
	exit 1
fi
pool_owner "$W"
cm() { on cm "$@"; }
attr() { cm condor_q "$1" -af "$2" 2>/dev/null; }
ckpts_at_least() { [ "$(attr "$1" NumCkpts)" -ge "$2" ] 2>/dev/null; }
vacated() { grep -q "job ${1//./\\.}: vacate checkpoint written" "$POOL/exec1/log/StarterLog"; }
gone() { [ -z "$(attr "$1" ProcId)" ]; }
idle_machine() { [ "$(cm condor_status -af State 2>/dev/null)" != Claimed ]; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
ms() { median | awk '{ printf "%.0f ms", $1 * 1000 }'; }

ok=0
for mib in $SIZES; do
	if [ "$mib" = 0 ]; then
		exe=primes args="42000000 1000000" label=demo_primes
	else
		exe=fill args="$mib 1000000" label="fill_compute $mib MiB"
	fi
	cat >"$W/fill$mib.sub" <<EOS
universe   = standard
executable = $W/$exe
arguments  = $args
output     = out$mib.txt
error      = err$mib.txt
queue
EOS
	chmod 644 "$W/fill$mib.sub"
	C=$(cd "$W" && as_owner "$TOP/bin/condor_submit" "fill$mib.sub" 2>&1 |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
	j=$C.0
	if [ -z "$C" ] || ! wait_for 180 ckpts_at_least "$j" "$COUNT"; then
		echo "pool checkpoint, $label|failed|$COUNT checkpoints not installed (NumCkpts $(attr "$j" NumCkpts))"
		[ -n "$C" ] && cm condor_rm "$C" >/dev/null 2>&1
		continue
	fi
	cm condor_vacate exec1 >/dev/null 2>&1
	wait_for 60 vacated "$j"
	cm condor_rm "$C" >/dev/null 2>&1
	wait_for 60 gone "$j"
	wait_for 60 idle_machine
	sl=$POOL/exec1/log/StarterLog
	id=${j//./\\.}
	size=$(sed -n "s/.*job $id: checkpoint [0-9]* shipped: \([0-9]*\) bytes.*/\1/p" "$sl" | tail -n 1)
	what="pool checkpoint, $label ($(awk -v b="${size:-0}" 'BEGIN { printf "%.1f MiB", b / 1048576 }') checkpoint)"
	fr=$(sed -n "s/.*job $id: checkpoint written in \([0-9.]*\) s (the job was frozen.*/\1/p" "$sl")
	sh=$(sed -n "s/.*job $id: checkpoint [0-9]* shipped: [0-9]* bytes in \([0-9.]*\) s.*/\1/p" "$sl")
	in=$(sed -n "s/.*job $id: checkpoint [0-9]* installed: [0-9]* bytes, verified in \([0-9.]*\) s.*/\1/p" "$POOL/cm/log/ShadowLog")
	va=$(sed -n "s/.*job $id: vacate checkpoint written in \([0-9.]*\) s.*/\1/p" "$sl")
	n=$(grep -c . <<<"$fr")
	echo "$what: job frozen by a periodic checkpoint ($n)|$(ms <<<"$fr")|"
	echo "$what: shipped to the shadow|$(ms <<<"$sh")|"
	echo "$what: verified and installed in SPOOL|$(ms <<<"$in")|"
	if [ -n "$va" ]; then
		echo "$what: vacate checkpoint (SIGTSTP to written)|$(ms <<<"$va")|"
	else
		echo "$what: vacate checkpoint|not seen|no 'vacate checkpoint written' in the StarterLog"
	fi
	ok=$((ok + 1))
done
echo "(load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
[ "$ok" -gt 0 ]
