# bench/slurm/slurm.sh: a one-node Slurm cluster on loopback, for
# bench/throughput_bench.sh.  Sourced; every function prints its errors
# on stderr and returns non-zero on failure, with the reason in
# SLURM_WHY (one line, for a benchmark row).
#
#   slurm_install                  # apt-get slurm-wlm and munge if missing
#   slurm_setup DIR                # munge key, munged, slurm.conf in DIR
#   slurm_start [SCHEDPARAMS]      # slurmctld and slurmd, until the node is idle
#   slurm_run_jobs N [array]       # N /bin/true jobs; SLURM_RESULT="TOTAL SUBMIT" s
#   slurm_stop                     # slurmctld, slurmd (by pid)
#   slurm_cpu                      # after slurm_stop: SLURM_CPU, CPU seconds
#   slurm_cleanup                  # and munged
#
# Every daemon runs in the foreground as a child of this shell and is
# stopped by its pid: SIGTERM, then SIGKILL after a while.  slurmctld and
# slurmd each run under bench/slurm/cpu_reaper (built by slurm_setup),
# which reaps what they leave behind (slurmd's slurmstepd are orphans)
# and counts its CPU, so that the cost of Slurm's jobs can be summed up
# without perf or a quiet machine: slurm_cpu sets SLURM_CPU to "CTLD D
# MUNGED SUBMIT POLL" seconds of CPU: slurmctld's whole life, slurmd's
# with its slurmstepd and their jobs, munged's during slurm_run_jobs,
# the sbatch commands, and the squeue polls waiting for the jobs.

SLURM_DIR=
SLURM_WHY=
SLURM_RESULT=
SLURM_MUNGED_PID=
SLURM_CTLD_PID=
SLURM_D_PID=
SLURM_CPUS=${SLURM_CPUS:-32}
SLURM_CPU=
SLURM_REAPER=
SLURM_MUNGED_CPU=0
SLURM_SUBMIT_CPU=0
SLURM_POLL_CPU=0
SLURM_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# SLURM_T: the CPU seconds of this shell's reaped children so far
# (bash's times, run in this shell: a subshell's would count nothing).
slurm_children_cpu() {
	times >"$SLURM_DIR/log/times"
	SLURM_T=$(awk 'NR == 2 {
		for (i = 1; i <= 2; i++) {
			split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2]
		}
		printf "%.3f\n", t
	}' "$SLURM_DIR/log/times")
}

# A process's own user and system CPU so far, in seconds.
slurm_pid_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{
		sub(/.*\) /, ""); split($0, f, " "); printf "%.3f\n", (f[12] + f[13]) / hz
	}' "/proc/$1/stat" 2>/dev/null || echo 0
}

slurm_free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

slurm_install() {
	local need=()
	command -v slurmctld >/dev/null 2>&1 && command -v slurmd >/dev/null 2>&1 &&
	    command -v sbatch >/dev/null 2>&1 || need+=(slurm-wlm)
	command -v munged >/dev/null 2>&1 || need+=(munge)
	[ ${#need[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		SLURM_WHY="${need[*]} not installed and not root (apt-get install ${need[*]})"
		return 1
	fi
	echo "installing ${need[*]}" >&2
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	    --no-install-recommends "${need[@]}" >&2; then
		DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
		if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		    --no-install-recommends "${need[@]}" >&2; then
			SLURM_WHY="apt-get install ${need[*]} failed"
			return 1
		fi
	fi
	# Services the packages may have started use their own socket and
	# ports; ours use a socket and free ports of their own.
	command -v slurmctld >/dev/null 2>&1 || { SLURM_WHY="no slurmctld after install"; return 1; }
	return 0
}

# slurm_stop_pid PID: SIGTERM, up to 10 s, then SIGKILL.
slurm_stop_pid() {
	local pid=$1 i
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
	for i in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

slurm_setup() {
	SLURM_DIR=$1
	local d=$SLURM_DIR i
	mkdir -p "$d/munge" "$d/state" "$d/spool" "$d/log"
	chmod 700 "$d/munge"
	if command -v mungekey >/dev/null 2>&1; then
		mungekey -c -k "$d/munge/munge.key" -b 1024 2>"$d/log/mungekey.err" ||
		    dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 2>/dev/null
	else
		dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 2>/dev/null
	fi
	chmod 400 "$d/munge/munge.key"
	# --force: munged running as root, and directories it would
	# otherwise find wanting; the socket, pid, seed and log are ours.
	munged -F --force --socket="$d/munge/munge.socket" \
	    --key-file="$d/munge/munge.key" --pid-file="$d/munge/munged.pid" \
	    --seed-file="$d/munge/munged.seed" --log-file="$d/log/munged.log" \
	    --num-threads=4 >"$d/log/munged.out" 2>&1 &
	SLURM_MUNGED_PID=$!
	for i in $(seq 50); do
		[ -S "$d/munge/munge.socket" ] && break
		kill -0 "$SLURM_MUNGED_PID" 2>/dev/null || break
		sleep 0.1
	done
	if ! [ -S "$d/munge/munge.socket" ]; then
		SLURM_WHY="munged did not start: $(tail -n 1 "$d/log/munged.out" "$d/log/munged.log" 2>/dev/null | grep -v '^==' | grep . | tail -n 1)"
		return 1
	fi
	if ! munge -S "$d/munge/munge.socket" -n </dev/null |
	    unmunge -S "$d/munge/munge.socket" >/dev/null 2>&1; then
		SLURM_WHY="munge/unmunge round trip through $d/munge/munge.socket failed"
		return 1
	fi
	if ! cc -O2 -o "$d/cpu_reaper" "$SLURM_SRC/cpu_reaper.c" \
	    2>"$d/log/cpu_reaper.err"; then
		SLURM_WHY="cc of bench/slurm/cpu_reaper.c failed"
		return 1
	fi
	SLURM_REAPER=$d/cpu_reaper
	SLURM_CTLD_PORT=$(slurm_free_port)
	SLURM_D_PORT=$(slurm_free_port)
	return 0
}

# slurm_conf SCHEDPARAMS: write $SLURM_DIR/slurm.conf.
slurm_conf() {
	local d=$SLURM_DIR sp=$1
	cat >"$d/slurm.conf" <<EOC
ClusterName=bench
SlurmctldHost=localhost
SlurmctldPort=$SLURM_CTLD_PORT
SlurmdPort=$SLURM_D_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/slurmd.%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SlurmdParameters=config_overrides
MailProg=/bin/true
MaxJobCount=100000
MinJobAge=300
${sp:+SchedulerParameters=$sp}
NodeName=localhost NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$SLURM_CPUS RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOC
}

# slurm_start [SCHEDPARAMS]: start slurmctld and slurmd with a fresh
# state, and wait until the node is idle.
slurm_start() {
	local d=$SLURM_DIR i st
	export SLURM_CONF=$d/slurm.conf
	slurm_conf "${1:-}"
	rm -rf "$d/state"/* "$d/spool"/* "$d/cpu.ctld" "$d/cpu.d"
	"$SLURM_REAPER" "$d/cpu.ctld" slurmctld -D -i -f "$d/slurm.conf" \
	    >"$d/log/slurmctld.out" 2>&1 &
	SLURM_CTLD_PID=$!
	"$SLURM_REAPER" "$d/cpu.d" slurmd -D -N localhost -f "$d/slurm.conf" \
	    >"$d/log/slurmd.out" 2>&1 &
	SLURM_D_PID=$!
	for i in $(seq 300); do
		kill -0 "$SLURM_CTLD_PID" 2>/dev/null || { SLURM_WHY="slurmctld exited: $(grep -hi 'error\|fatal' "$d/log/slurmctld.out" "$d/log/slurmctld.log" 2>/dev/null | tail -n 1)"; return 1; }
		kill -0 "$SLURM_D_PID" 2>/dev/null || { SLURM_WHY="slurmd exited: $(grep -hi 'error\|fatal' "$d/log/slurmd.out" "$d/log/slurmd.log" 2>/dev/null | tail -n 1)"; return 1; }
		st=$(sinfo -h -n localhost -o %T 2>/dev/null)
		[ "$st" = idle ] && return 0
		sleep 0.1
	done
	SLURM_WHY="the node did not come up idle in 30 s (state '${st:-?}')"
	return 1
}

# Jobs not yet finished.
slurm_active() {
	squeue -h -t PENDING,RUNNING,CONFIGURING,COMPLETING,SUSPENDED -o %i -r 2>/dev/null | wc -l
}

# slurm_run_jobs N [array]: N /bin/true jobs, one sbatch each (or one
# job array); sets SLURM_RESULT to "TOTAL SUBMIT": the seconds from the
# first submit until squeue shows none left, and those the submits
# took.  Returns 1 on failure (SLURM_WHY).
slurm_run_jobs() {
	local n=$1 mode=${2:-} t0 ts t1 i left limit=${SLURM_JOB_LIMIT:-240} bad=0
	local wd=$SLURM_DIR/work c0 c1 m0
	mkdir -p "$wd"
	m0=$(slurm_pid_cpu "$SLURM_MUNGED_PID")
	slurm_children_cpu
	c0=$SLURM_T
	t0=$(date +%s%N)
	if [ "$mode" = array ]; then
		(cd "$wd" && sbatch -Q --array=1-"$n" -o /dev/null -e /dev/null \
		    --wrap=/bin/true) >/dev/null 2>"$SLURM_DIR/log/sbatch.err" || bad=1
	else
		for i in $(seq "$n"); do
			(cd "$wd" && exec sbatch -Q -o /dev/null -e /dev/null \
			    --wrap=/bin/true) >/dev/null 2>>"$SLURM_DIR/log/sbatch.err" || bad=$((bad + 1))
		done
	fi
	ts=$(date +%s%N)
	slurm_children_cpu
	c1=$SLURM_T
	SLURM_SUBMIT_CPU=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.3f", b - a }')
	if [ "$bad" -gt 0 ]; then
		SLURM_WHY="sbatch failed $bad time(s): $(tail -n 1 "$SLURM_DIR/log/sbatch.err")"
		return 1
	fi
	while :; do
		left=$(slurm_active)
		[ "$left" -eq 0 ] && break
		if [ $(( ($(date +%s%N) - t0) / 1000000000 )) -ge "$limit" ]; then
			SLURM_WHY="$left of $n jobs still queued after $limit s"
			return 1
		fi
		sleep 0.2
	done
	t1=$(date +%s%N)
	slurm_children_cpu
	SLURM_POLL_CPU=$(awk -v a="$c1" -v b="$SLURM_T" 'BEGIN { printf "%.3f", b - a }')
	SLURM_MUNGED_CPU=$(awk -v a="$m0" -v b="$(slurm_pid_cpu "$SLURM_MUNGED_PID")" 'BEGIN { printf "%.3f", b - a }')
	SLURM_RESULT=$(awk -v a="$t0" -v s="$ts" -v b="$t1" \
	    'BEGIN { printf "%.2f %.2f\n", (b - a) / 1e9, (s - a) / 1e9 }')
}

slurm_stop() {
	slurm_stop_pid "$SLURM_D_PID"; SLURM_D_PID=
	slurm_stop_pid "$SLURM_CTLD_PID"; SLURM_CTLD_PID=
}

slurm_cpu() {
	local f t ctld d
	for f in ctld d; do
		t=$(awk '{ printf "%.3f", $1 + $2 }' "$SLURM_DIR/cpu.$f" 2>/dev/null)
		[ -n "$t" ] || { SLURM_CPU=; return 1; }
		eval "$f=\$t"
	done
	SLURM_CPU="$ctld $d $SLURM_MUNGED_CPU $SLURM_SUBMIT_CPU $SLURM_POLL_CPU"
}

slurm_cleanup() {
	slurm_stop
	slurm_stop_pid "$SLURM_MUNGED_PID"; SLURM_MUNGED_PID=
}
