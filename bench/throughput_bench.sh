#!/usr/bin/env bash
# Trivial jobs (/bin/true) completed per second, end to end: ours on one
# schedd and 8 execute hosts, and Slurm (Debian's slurm-wlm, one
# controller and one 32-CPU node on loopback) on the same machine in the
# same run, stock and with SchedulerParameters=batch_sched_delay=0.
# Each side runs the same 1,000 jobs, timed from the first submit until
# every job is done (ours: all in condor_history; Slurm: none left in
# squeue).  Prints rows "what|measured|goal" for bench/run.
#
# Environment:
#   THROUGHPUT_JOBS=1000       jobs per run
#   THROUGHPUT_HOSTS=8         execute hosts (startds) of our pool
#   THROUGHPUT_SLURM=1         0: skip Slurm
#   THROUGHPUT_BUDGET=285      seconds for the whole script: our run stops
#                              there (at least 60 s in) and reports the rate
#                              of the jobs done so far, saying so
#   SLURM_JOB_LIMIT=120        seconds for one Slurm run
#   THROUGHPUT_SLURM_ARRAY=0   1: also one --array=1-N job array per
#                              setting (about as fast as N sbatch here)
#   THROUGHPUT_PROFILE=DIR     keep in DIR our daemons' CPU (/proc/PID/stat,
#                              children included) over THROUGHPUT_IDLE=10
#                              seconds with no job and over the run, and
#                              the pool's logs; bench/throughput_profile.py
#                              DIR sums them up
#   THROUGHPUT_PERF=1          with THROUGHPUT_PROFILE: also the system
#                              calls of the long-lived daemons (perf trace
#                              -s; it slows them down)
#   THROUGHPUT_KEEP=1          keep the scratch directory
#
# Slurm is installed with apt-get if missing (root only); if it cannot be
# installed or started, its rows say why.  Every process started here is
# stopped by its pid at exit, on failure too: munged, slurmctld and
# slurmd are children of this shell; our pool's masters stop their
# daemons, and anything left whose environment names the pool is killed
# (tests/lib/pool.sh).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
N=${THROUGHPUT_JOBS:-1000}
HOSTS=${THROUGHPUT_HOSTS:-8}
PROFILE=${THROUGHPUT_PROFILE:-}
BUDGET=${THROUGHPUT_BUDGET:-285}	# seconds for the whole script, roughly
export SLURM_JOB_LIMIT=${SLURM_JOB_LIMIT:-120}
SCRATCH=$(mktemp -d /tmp/throughput-bench.XXXXXX)
chmod 755 "$SCRATCH"

. "$TOP/tests/lib/pool.sh"
. "$TOP/bench/slurm/slurm.sh"

PERF_PID=
stop_perf() {
	[ -n "$PERF_PID" ] || return 0
	kill -INT "$PERF_PID" 2>/dev/null
	wait "$PERF_PID" 2>/dev/null
	PERF_PID=
}
# The pool's daemons: "PID COMM HOST UTIME STIME CUTIME CSTIME" (clock
# ticks); CUTIME and CSTIME hold the children reaped: the schedd's
# shadows, a startd's starters and their jobs.
profile_procs() {
	local p cfg host rest
	for p in $(pool_pids 2>/dev/null); do
		[ -r "/proc/$p/stat" ] || continue
		cfg=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^CONDOR_CONFIG=//p')
		host=$(basename "$(dirname "$cfg")")
		rest=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null) || continue
		# fields after "comm)": state is 3; utime 14 .. cstime 17
		set -- $rest
		echo "$p $(cat "/proc/$p/comm" 2>/dev/null) $host ${12} ${13} ${14} ${15}"
	done
}
# The CPU seconds of the pool's daemons so far, their reaped children
# (shadows, starters, jobs) included.
ours_cpu() {
	profile_procs | awk -v hz="$(getconf CLK_TCK)" \
	    '{ t += $4 + $5 + $6 + $7 } END { printf "%.3f\n", t / hz }'
}
cleanup() {
	stop_perf
	slurm_cleanup
	[ -n "$POOL" ] && pool_stop >/dev/null 2>&1
	if [ -n "$PROFILE" ] && [ -n "$POOL" ] && [ -d "$POOL" ]; then
		mkdir -p "$PROFILE"
		for h in "${POOL_HOSTS[@]}"; do
			mkdir -p "$PROFILE/logs/$h"
			cp -r "$POOL/$h/log/." "$PROFILE/logs/$h/" 2>/dev/null
		done
	fi
	if [ -z "${THROUGHPUT_KEEP:-}" ]; then
		[ -n "$POOL" ] && rm -rf "$POOL"
		rm -rf "$SCRATCH"
	else
		echo "kept $SCRATCH ${POOL:-}" >&2
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.1f jobs/s", n / s; else print "?" }'; }
now_ns() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }

# ---- Slurm ------------------------------------------------------------
SLURM_RATE=
OURS_RATE=
slurm_side() {
	local what sp mode t ref
	if ! slurm_install; then
		echo "slurm 22.05: $N x sbatch --wrap=/bin/true, 1 node 32 CPUs|not run|$SLURM_WHY"
		return
	fi
	if ! slurm_setup "$SCRATCH/slurm"; then
		echo "slurm: $N x sbatch --wrap=/bin/true, 1 node 32 CPUs|not run|$SLURM_WHY"
		return
	fi
	local ver
	ver=$(slurmctld -V 2>/dev/null | awk '{print $2}')
	ver=${ver:-?}
	local modes=single
	[ "${THROUGHPUT_SLURM_ARRAY:-0}" = 1 ] && modes="single array"
	for sp in "" batch_sched_delay=0; do
		for mode in $modes; do
			if [ "$mode" = array ]; then
				what="slurm $ver: sbatch --array=1-$N --wrap=/bin/true"
			else
				what="slurm $ver: $N x sbatch --wrap=/bin/true"
			fi
			what="$what, ${sp:-stock}"
			ref="issue: ~13 jobs/s"
			[ -n "$sp" ] && ref="issue: ~40 jobs/s"
			if ! slurm_start "$sp"; then
				echo "$what|not run|$SLURM_WHY"
				slurm_stop
				continue
			fi
			local ran=0
			if slurm_run_jobs "$N" "$mode"; then
				t=${SLURM_RESULT%% *}
				echo "$what|$(rate "$N" "$t")|($ref; $t s, submits ${SLURM_RESULT#* } s)"
				[ "$mode" = single ] && SLURM_RATE="$SLURM_RATE $(awk -v n="$N" -v s="$t" 'BEGIN{printf "%.2f", n/s}')"
				ran=1
			else
				echo "$what|failed|$SLURM_WHY"
			fi
			slurm_stop
			if [ "$ran" = 1 ] && slurm_cpu; then
				# shellcheck disable=SC2086
				set -- $SLURM_CPU
				echo "$what: CPU per job|$(awk -v n="$N" -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN { printf "%.1f ms", (a + b + c + d) * 1000 / n }')|$(awk -v n="$N" -v a="$1" -v b="$2" -v c="$3" -v d="$4" -v e="$5" 'BEGIN { k = 1000 / n; printf "slurmctld %.1f, slurmd with slurmstepd and jobs %.1f, munged %.1f, sbatch %.1f ms (the daemons from start to stop); squeue polls %.1f ms more", a * k, b * k, c * k, d * k, e * k }')"
			fi
		done
	done
}

# ---- ours --------------------------------------------------------------
ours_side() {
	local i t0 t1 tsub out C done_n last=-1 stall=0 limit
	# What is left of the run's time budget, at least a minute.
	limit=${THROUGHPUT_LIMIT:-$(( BUDGET - SECONDS > 60 ? BUDGET - SECONDS : 60 ))}
	pool_init
	trap cleanup EXIT
	chmod 755 "$POOL"	# EXECUTE_USER must reach the execute directories
	pool_config 'START : TRUE' 'SUSPEND : FALSE' 'MAIL =' \
	    'NEGOTIATOR_INTERVAL = 1' 'SCHEDD_INTERVAL = 1' \
	    'STARTD_UPDATE_INTERVAL = 1' 'POLLING_INTERVAL = 1' \
	    'STARTER_UPDATE_INTERVAL = 1' "MAX_JOB_STARTS = $N" \
	    "MAX_JOBS_RUNNING = $N" 'PREEMPTION_ENABLED = FALSE'
	pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
	for i in $(seq 1 "$HOSTS"); do
		pool_host "exec$i" "MASTER, STARTD"
	done
	pool_start
	if ! wait_for 60 test -S "$POOL/cm/spool/.schedd_socket" ||
	    ! pool_wait_machines "$HOSTS" 60; then
		echo "ours: $N x /bin/true, 1 schedd, $HOSTS execute hosts|not run|the pool did not come up"
		return
	fi
	local W=$POOL/work
	mkdir -p "$W"
	chmod 777 "$W"
	cat >"$W/true.sub" <<EOS
universe   = vanilla
executable = /bin/true
output     = /dev/null
error      = /dev/null
queue $N
EOS
	if [ -n "$PROFILE" ]; then
		mkdir -p "$PROFILE"
		# The pool's own cost with no job, to set apart from the jobs'.
		profile_procs >"$PROFILE/procstat.idle0"
		sleep "${THROUGHPUT_IDLE:-10}"
		profile_procs >"$PROFILE/procstat.idle1"
		echo "${THROUGHPUT_IDLE:-10}" >"$PROFILE/idle_seconds"
		profile_procs >"$PROFILE/procstat.before"
		head -n 1 /proc/stat >"$PROFILE/cpu.before"
		if [ "${THROUGHPUT_PERF:-0}" = 1 ] && command -v perf >/dev/null 2>&1; then
			# System-call counts and times of the long-lived
			# daemons (not their children).
			local pids
			pids=$(awk '$2 != "condor_master" { printf "%s%s", sep, $1; sep = "," }' "$PROFILE/procstat.before")
			perf trace -s -p "$pids" -o "$PROFILE/perftrace.txt" >/dev/null 2>&1 &
			PERF_PID=$!
			sleep 0.5
		fi
	fi
	local cpu0
	cpu0=$(ours_cpu)
	t0=$(now_ns)
	out=$(cd "$W" && on cm condor_submit true.sub 2>&1)
	tsub=$(now_ns)
	C=$(sed -n "s/^$N job(s) submitted to cluster \([0-9]*\)\.\$/\1/p" <<<"$out")
	if [ -z "$C" ]; then
		echo "ours: $N x /bin/true, 1 schedd, $HOSTS execute hosts|failed|condor_submit: $(head -n 1 <<<"$out")"
		return
	fi
	while :; do
		done_n=$(on cm condor_history "$C" -af ProcId 2>/dev/null | wc -l)
		[ "$done_n" -ge "$N" ] && break
		if [ "$done_n" = "$last" ]; then
			stall=$((stall + 1))
		else
			stall=0
			last=$done_n
		fi
		if [ "$stall" -ge 120 ]; then
			echo "ours: $N x /bin/true, 1 schedd, $HOSTS execute hosts|failed|$done_n of $N done after $(secs "$t0" "$(now_ns)") s; none for 30 s"
			return
		fi
		if [ $(( ($(now_ns) - t0) / 1000000000 )) -ge "$limit" ]; then
			t1=$(now_ns)
			echo "ours: $N x /bin/true (one cluster), 1 schedd, $HOSTS execute hosts|$(rate "$done_n" "$(secs "$t0" "$t1")")|400 jobs/s (10x Slurm); only $done_n of $N done in the time allowed ($(secs "$t0" "$t1") s)"
			OURS_RATE=$(awk -v n="$done_n" -v s="$(secs "$t0" "$t1")" 'BEGIN { printf "%.2f", n / s }')
			python3 "$TOP/bench/throughput_profile.py" --row "$POOL" 2>/dev/null
			return
		fi
		sleep 0.25
	done
	t1=$(now_ns)
	if [ -n "$PROFILE" ]; then
		head -n 1 /proc/stat >"$PROFILE/cpu.after"
		profile_procs >"$PROFILE/procstat.after"
		stop_perf
		echo "$N $HOSTS $(secs "$t0" "$t1")" >"$PROFILE/run"
		cp "$W/true.sub" "$PROFILE/"
	fi
	local t goal="400 jobs/s (10x Slurm)"
	t=$(secs "$t0" "$t1")
	local bad
	bad=$(on cm condor_history "$C" -af ExitCode 2>/dev/null | grep -cvx 0)
	[ "$bad" -gt 0 ] && goal="$goal; $bad job(s) with ExitCode != 0"
	echo "ours: $N x /bin/true (one cluster), 1 schedd, $HOSTS execute hosts|$(rate "$N" "$t")|$goal"
	OURS_RATE=$(awk -v n="$N" -v s="$t" 'BEGIN { printf "%.2f", n / s }')
	echo "ours: the same, seconds (submit alone)|$t s ($(secs "$t0" "$tsub") s)|"
	echo "ours: CPU per job|$(awk -v a="$cpu0" -v b="$(ours_cpu)" -v n="$N" 'BEGIN { printf "%.1f ms", (b - a) * 1000 / n }')|every daemon of the pool with its reaped shadows, starters and jobs (condor_submit and the bench's condor_history polls not counted)"
	python3 "$TOP/bench/throughput_profile.py" --row "$POOL" 2>/dev/null
}

if [ "${THROUGHPUT_SLURM:-1}" = 1 ]; then
	slurm_side
fi
ours_side
if [ -n "$SLURM_RATE" ] && [ -n "$OURS_RATE" ]; then
	echo "ours / slurm, same $N jobs, this $(nproc)-core machine|$(awk -v o="$OURS_RATE" -v s="$SLURM_RATE" 'BEGIN { n = split(s, v, " "); for (i = 1; i <= n; i++) printf "%s%.2fx", (i > 1 ? " / " : ""), o / v[i]; if (n > 1) printf " (stock / tuned)" }')|>= 10x"
fi
