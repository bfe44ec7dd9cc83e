#!/usr/bin/env bash
# tests/ckpt/threads_suite.sh: checkpoints of relinked programs that run
# several threads (pthreads, OpenMP), standalone (no daemons).  Each
# program is built natively (cc -static) and relinked (condor_cc); the
# relinked one is stopped with SIGTSTP (checkpoint and exit) at
# THREADS_CYCLES (20) random moments, drawn from the seed THREADS_SEED
# (28), and resumed from its checkpoint each time; then run again with
# three SIGUSR2 (checkpoint and go on) and restarted from the last of
# those.  Every output must be the native run's, byte for byte.
#
# The programs: threads.c (2, 8 and 64 threads, compute-heavy or
# mutex/condition-variable heavy) and omp.c (OpenMP, 2 and 8 threads;
# SKIP where gcc has no static libgomp).
#
#   tests/ckpt/threads_suite.sh [NAME...]    all checks, or those named
#
# Prints "PASS name", "FAIL name: why" or "SKIP name: reason" per check.
set -u
work=$(mktemp -d /tmp/ckpt-threads.XXXXXX)
selected=("$@")
. "$(dirname "$0")/lib.sh"

SEED=${THREADS_SEED:-28}
RANDOM=$SEED
MAX_CYCLES=${THREADS_CYCLES:-20}

# A random pause of 0.04 to 0.24 s: where checkpoints land.
pause() { sleep "0.$(printf '%02d' $((RANDOM % 21 + 4)))"; }

# native NAME DIR [args]: the reference output, DIR/out.native.
native() {
	local name=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	(cd "$dir" && "$work/bin/$name.native" "$@" >out.native 2>err.native)
}

# tstp_cycles NAME DIR [args]: stop the relinked program with SIGTSTP at
# random moments and run its checkpoint again, until it finishes (after
# MAX_CYCLES it is left to finish).  Sets CYCLES and RC.
tstp_cycles() {
	local name=$1 dir=$2 pid
	shift 2
	cp "$work/bin/$name" "$dir/$name"
	CYCLES=0
	(cd "$dir" && rm -f "$name.ckpt" && exec "./$name" "$@" >out.relinked 2>err.relinked) &
	pid=$!
	started+=("$pid")
	while :; do
		ready "$pid"
		pause
		[ "$CYCLES" -lt "$MAX_CYCLES" ] && kill -TSTP "$pid" 2>/dev/null
		wait_for "$pid"
		RC=$?
		[ "$RC" -eq 85 ] || break
		CYCLES=$((CYCLES + 1))
		(cd "$dir" && exec "./$name.ckpt" >>out.relinked 2>>err.relinked) &
		pid=$!
		started+=("$pid")
	done
}

# same_output CHECK DIR: the relinked run against the native one.
same_output() {
	local check=$1 dir=$2
	if [ "$RC" -ne 0 ]; then
		fail "$check" "exit status $RC after $CYCLES restarts; $(head -c 300 "$dir/err.relinked")"
	elif [ -s "$dir/err.relinked" ]; then
		fail "$check" "the library complained: $(head -c 300 "$dir/err.relinked")"
	elif ! cmp -s "$dir/out.native" "$dir/out.relinked"; then
		fail "$check" "output differs from the native run after $CYCLES restarts ($(diff "$dir/out.native" "$dir/out.relinked" | head -3 | tr '\n' ' '))"
	elif [ "$CYCLES" -lt 1 ]; then
		fail "$check" "no checkpoint was taken"
	else
		pass "$check ($CYCLES checkpoint-restart cycles, seed $SEED)"
	fi
}

# usr2_run CHECK NAME DIR [args]: three SIGUSR2 while it runs (the run
# must be unaffected), then a restart from the last checkpoint must
# finish the output exactly.
usr2_run() {
	local check=$1 name=$2 dir=$3 pid off n=0 i
	shift 3
	mkdir -p "$dir"
	cp "$work/bin/$name" "$dir/$name"
	(cd "$dir" && rm -f "$name.ckpt" && exec "./$name" "$@" >out.relinked 2>err.relinked) &
	pid=$!
	started+=("$pid")
	ready "$pid"
	for i in 1 2 3; do
		pause
		kill -USR2 "$pid" 2>/dev/null && n=$((n + 1))
	done
	wait_for "$pid"
	RC=$?
	CYCLES=$n
	if [ "$RC" -ne 0 ] || [ -s "$dir/err.relinked" ] ||
	    ! cmp -s "$dir/out.native" "$dir/out.relinked"; then
		same_output "$check" "$dir"
		return
	fi
	if [ ! -f "$dir/$name.ckpt" ]; then
		fail "$check" "no checkpoint file after SIGUSR2"
		return
	fi
	off=$("$condor_ckpt" info "$dir/$name.ckpt" | awk '$1 == "fd" && $2 == "1:" {print $5}' | tr -d ,)
	if [ -z "$off" ]; then
		fail "$check" "condor_ckpt info shows no stdout offset"
		return
	fi
	(cd "$dir" && exec "./$name.ckpt" >out.restart 2>err.restart) &
	pid=$!
	started+=("$pid")
	wait_for "$pid"
	RC=$?
	head -c "$off" "$dir/out.native" >"$dir/out.combined"
	cat "$dir/out.restart" >>"$dir/out.combined"
	if [ "$RC" -ne 0 ]; then
		fail "$check" "restart from the periodic checkpoint exited $RC: $(head -c 300 "$dir/err.restart")"
	elif ! cmp -s "$dir/out.native" "$dir/out.combined"; then
		fail "$check" "restart from the periodic checkpoint (stdout at $off) gave other output"
	else
		pass "$check (ran on through $n periodic checkpoints; restart from the last one finished it)"
	fi
}

# one CHECK NAME ARGS...: the native run, the SIGTSTP cycles, SIGUSR2.
one() {
	local check=$1 name=$2
	shift 2
	want "$check" || return 0
	native "$name" "$work/$check" "$@"
	tstp_cycles "$name" "$work/$check" "$@"
	same_output "$check-tstp" "$work/$check"
	mkdir -p "$work/$check-usr2"
	cp "$work/$check/out.native" "$work/$check-usr2/"
	usr2_run "$check-usr2" "$name" "$work/$check-usr2" "$@"
}

# ------------------------------------------------------------------ #

if build_both threads threads.c -pthread; then
	# About three seconds of work each, whatever the number of threads.
	one threads-compute-2 threads compute 2 20 8000000
	one threads-compute-8 threads compute 8 20 3000000
	one threads-compute-64 threads compute 64 20 400000
	one threads-sync-2 threads sync 2 20 20000
	one threads-sync-8 threads sync 8 20 4500
	one threads-sync-64 threads sync 64 20 400
fi

# A thread other than the main one calls ckpt() itself, four times while
# the others compute; the run is unaffected, and a restart from the last
# of them (the main thread made again as the process's first thread, the
# caller returning 1 from ckpt()) finishes the output exactly.
if want threads-self && [ -x "$work/bin/threads" ]; then
	d=$work/threads-self
	native threads "$d" compute 8 20 400000
	cp "$work/bin/threads" "$d/"
	(cd "$d" && rm -f threads.ckpt && THREADS_SELF_CKPT=1 exec ./threads compute 8 20 400000 >out.relinked 2>err.relinked) &
	pid=$!
	started+=("$pid")
	wait_for "$pid"
	RC=$?
	off=$("$condor_ckpt" info "$d/threads.ckpt" 2>/dev/null | awk '$1 == "fd" && $2 == "1:" {print $5}' | tr -d ,)
	if [ "$RC" -ne 0 ] || [ -s "$d/err.relinked" ] ||
	    ! cmp -s "$d/out.native" "$d/out.relinked"; then
		fail threads-self-ckpt "the run calling ckpt() from a thread exited $RC or printed otherwise: $(head -c 300 "$d/err.relinked")"
	elif [ -z "$off" ]; then
		fail threads-self-ckpt "no checkpoint with a stdout offset after ckpt()"
	else
		(cd "$d" && exec ./threads.ckpt >out.restart 2>err.restart) &
		pid=$!
		started+=("$pid")
		wait_for "$pid"
		RC=$?
		head -c "$off" "$d/out.native" >"$d/out.combined"
		cat "$d/out.restart" >>"$d/out.combined"
		if [ "$RC" -ne 0 ]; then
			fail threads-self-ckpt "restart exited $RC: $(head -c 300 "$d/err.restart")"
		elif ! cmp -s "$d/out.native" "$d/out.combined"; then
			fail threads-self-ckpt "restart from the thread's ckpt() (stdout at $off) gave other output"
		else
			pass "threads-self-ckpt (a worker thread's ckpt(), restarted from phase 17)"
		fi
	fi
fi

# OpenMP (gcc -fopenmp, static): libgomp's threads, its barriers and
# its spinning waits, checkpointed like the program's own.
if ! want omp; then
	:
elif [ "$(gcc -print-file-name=libgomp.a)" = libgomp.a ]; then
	for n in 2 8; do
		skip "omp-$n-tstp" "no static libgomp (libgomp.a) to link OpenMP programs with"
		skip "omp-$n-usr2" "no static libgomp (libgomp.a) to link OpenMP programs with"
	done
elif build_both omp omp.c -fopenmp; then
	for n in 2 8; do
		export OMP_NUM_THREADS=$n
		one "omp-$n" omp 20 20000
	done
	unset OMP_NUM_THREADS
fi
