#!/usr/bin/env bash
# tests/ckpt/run_suite.sh: the standalone checkpoint suite (issue 5, no
# daemons).  Every program here is built twice, natively (cc -static) and
# relinked (condor_cc); the relinked one is checkpointed and restarted at
# random moments and its output must be the native run's, byte for byte.
#
#   tests/ckpt/run_suite.sh [NAME...]     run all checks, or those named
#
# Prints "PASS name" or "FAIL name: why" per check.  Needs (Debian):
# liblua5.4-dev, libsqlite3-dev, zlib1g-dev, gfortran, gdb, binutils; the
# tree built
# (make).
set -u
work=$(mktemp -d /tmp/ckpt-suite.XXXXXX)
selected=("$@")
. "$(dirname "$0")/lib.sh"

# gdb_frame FUNCTION FILE: gdb's backtrace in FILE shows a frame of
# FUNCTION, with or without the "0x... in " before it.
gdb_frame() {
	grep -Eq "^#[0-9]+ +(0x[0-9a-f]+ in )?$1 \\(" "$2"
}

# A random pause of 0.04 to 0.24 s: where checkpoints land.
pause() { sleep "0.$(printf '%02d' $((RANDOM % 21 + 4)))"; }

# build NAME [cc args...]: bin/NAME.native and bin/NAME (relinked),
# the relinked one with its .condor_relinked section.
build() {
	local name=$1
	shift
	build_both "$name" "$name.c" "$@" || return 1
	if ! readelf -S "$work/bin/$name" | grep -q '\.condor_relinked'; then
		fail "build-$name" "no .condor_relinked section in the relinked program"
		return 1
	fi
	return 0
}

# native NAME DIR [args]: the reference output, DIR/out.native.
native() {
	local name=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	(cd "$dir" && "$work/bin/$name.native" "$@" >out.native 2>err.native)
}

# tstp_cycles NAME DIR [args]: run the relinked program in DIR, stop it
# with SIGTSTP (checkpoint and exit 85) at random moments and run its
# checkpoint again, until it finishes (after MAX_CYCLES it is left to
# finish).  Sets CYCLES and RC; output in DIR/out.relinked, stderr in
# DIR/err.relinked.
MAX_CYCLES=${MAX_CYCLES:-6}
tstp_cycles() {
	local name=$1 dir=$2 pid
	shift 2
	mkdir -p "$dir"
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

# same_output NAME DIR: compare the relinked run with the native one.
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
		pass "$check ($CYCLES checkpoint-restart cycles)"
	fi
}

# usr2_run NAME DIR [args]: SIGUSR2 (checkpoint and go on) twice while it
# runs; the run must be unaffected, and a restart from the last
# checkpoint must finish the output exactly.
usr2_run() {
	local name=$1 dir=$2 pid off n=0 i
	shift 2
	mkdir -p "$dir"
	cp "$work/bin/$name" "$dir/$name"
	(cd "$dir" && rm -f "$name.ckpt" && exec "./$name" "$@" >out.relinked 2>err.relinked) &
	pid=$!
	started+=("$pid")
	ready "$pid"
	for i in 1 2; do
		pause
		kill -USR2 "$pid" 2>/dev/null && n=$((n + 1))
	done
	wait_for "$pid"
	RC=$?
	CYCLES=$n
	if [ "$RC" -ne 0 ] || [ -s "$dir/err.relinked" ] ||
	    ! cmp -s "$dir/out.native" "$dir/out.relinked"; then
		same_output "$name-usr2" "$dir"
		return
	fi
	if [ ! -f "$dir/$name.ckpt" ]; then
		fail "$name-usr2" "no checkpoint file after SIGUSR2"
		return
	fi
	# Where stdout stood at the checkpoint: the restart writes the rest.
	off=$("$condor_ckpt" info "$dir/$name.ckpt" | awk '$1 == "fd" && $2 == "1:" {print $5}' | tr -d ,)
	if [ -z "$off" ]; then
		fail "$name-usr2" "condor_ckpt info shows no stdout offset"
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
		fail "$name-usr2" "restart from the periodic checkpoint exited $RC: $(head -c 300 "$dir/err.restart")"
	elif ! cmp -s "$dir/out.native" "$dir/out.combined"; then
		fail "$name-usr2" "restart from the periodic checkpoint (stdout at $off) gave other output"
	else
		pass "$name-usr2 (ran on through $n periodic checkpoints; restart from the last one finished it)"
	fi
}

# ------------------------------------------------------------------ #
# Programs written for the suite (checkpoint-pitfalls.md's list).

for t in stdio recurse memory regs signals; do
	want "$t" || continue
	build "$t" || continue
	native "$t" "$work/$t"
	tstp_cycles "$t" "$work/$t"
	same_output "$t-tstp" "$work/$t"
done

if want files && build files; then
	d=$work/files
	mkdir -p "$d/n" "$d/r"
	(cd "$d/n" && "$work/bin/files.native" init)
	cp "$d/n/input.dat" "$d/r/"
	native files "$d/n"
	cp "$d/n/out.native" "$d/r/"
	tstp_cycles files "$d/r"
	same_output files-tstp "$d/r"
	for f in out.log report.txt; do
		if cmp -s "$d/n/$f" "$d/r/$f"; then
			pass "files-$f (written across restarts, same as native)"
		else
			fail "files-$f" "differs from the native run's"
		fi
	done
fi

for t in stdio memory signals regs; do
	want "$t-usr2" || continue
	[ -x "$work/bin/$t" ] || build "$t" || continue
	[ -f "$work/$t/out.native" ] || native "$t" "$work/$t"
	mkdir -p "$work/$t-usr2"
	cp "$work/$t/out.native" "$work/$t-usr2/"
	usr2_run "$t" "$work/$t-usr2"
done

if want cycles && build cycles; then
	d=$work/cycles
	native cycles "$d"
	mkdir -p "$d"
	cp "$work/bin/cycles" "$d/"
	n=0
	(cd "$d" && rm -f cycles.ckpt && exec ./cycles >out.relinked 2>err.relinked)
	RC=$?
	while [ "$RC" -eq 85 ] && [ "$n" -lt 300 ]; do
		n=$((n + 1))
		(cd "$d" && exec ./cycles.ckpt >>out.relinked 2>>err.relinked)
		RC=$?
	done
	CYCLES=$n
	if [ "$n" -ne 200 ]; then
		fail cycles-200 "$n checkpoint-and-exit cycles instead of 200 (exit $RC): $(head -c 200 "$d/err.relinked")"
	else
		same_output cycles-200 "$d"
	fi
fi

if want forkexec && build forkexec; then
	native forkexec "$work/forkexec"
	(cd "$work/forkexec" && "$work/bin/forkexec" >out.relinked 2>err.relinked)
	if cmp -s "$work/forkexec/out.native" "$work/forkexec/out.relinked"; then
		pass "forkexec (fork, exec, pipe, popen, exec of a relinked program: as native outside Condor)"
	else
		fail forkexec "differs from native: $(diff "$work/forkexec/out.native" "$work/forkexec/out.relinked" | head -3 | tr '\n' ' ')"
	fi
fi

# condor_ckpt.h, and checkpoints that must fail without harm.
if want api && build api -lpthread; then
	d=$work/api
	mkdir -p "$d"
	cp "$work/bin/api" "$d/"
	# The second checkpoint outgrows a 32 MiB file size limit (as a full
	# disk would stop it): ckpt() says -1, the first checkpoint stays.
	(cd "$d" && ulimit -f 32768 && trap '' XFSZ &&
	    CONDOR_CKPT_NOTIFY_FD=7 exec ./api ckpt >out 2>err 7>notify)
	if [ "$(cat "$d/out")" = "$(printf 'ckpt returned 0\nsecond ckpt returned -1')" ] &&
	    grep -q 'checkpoint failed' "$d/err" &&
	    "$condor_ckpt" info "$d/api.ckpt" >/dev/null 2>&1 &&
	    [ -z "$(ls "$d" | grep '\.tmp\.')" ]; then
		pass "api-failed-ckpt (ckpt() returned 0, then -1 when the file size limit stopped the writer; the first checkpoint stayed, no temporary left)"
	else
		fail api-failed-ckpt "$(tr '\n' ' ' <"$d/out") / $(head -c 200 "$d/err")"
	fi
	if [ "$(cut -c1-6 "$d/notify" | tr '\n' ' ')" = "ok /tm failed " ]; then
		pass "api-notify (CONDOR_CKPT_NOTIFY_FD: \"$(head -1 "$d/notify" | cut -c1-3)...\" then \"$(sed -n 2p "$d/notify")\")"
	else
		fail api-notify "notification lines: $(tr '\n' '|' <"$d/notify")"
	fi
	(cd "$d" && exec ./api.ckpt >out2 2>err2)
	if grep -q 'ckpt returned 1' "$d/out2" && grep -q 'resumed from the first' "$d/out2"; then
		pass "api-ckpt-returns-1 (resumed from the checkpoint, ckpt() returned 1)"
	else
		fail api-ckpt-returns-1 "$(tr '\n' ' ' <"$d/out2") $(head -c 200 "$d/err2")"
	fi
	(cd "$d" && exec ./api unlinked >out3 2>err3)
	if grep -q 'deleted open file returned -1' "$d/out3" &&
	    grep -q 'once it is closed returned 0' "$d/out3" &&
	    grep -q 'was deleted' "$d/err3"; then
		pass "api-unlinked-refused (an open deleted file: refused, named; fine once closed)"
	else
		fail api-unlinked-refused "$(tr '\n' ' ' <"$d/out3") $(head -c 200 "$d/err3")"
	fi
	(cd "$d" && exec ./api threads >out4 2>err4)
	if grep -q 'two threads returned 0' "$d/out4" &&
	    grep -q 'second thread joined' "$d/out4" && [ ! -s "$d/err4" ]; then
		pass "api-threads (a second thread: checkpointed too, then joined)"
	else
		fail api-threads "$(tr '\n' ' ' <"$d/out4") $(head -c 200 "$d/err4")"
	fi
	(cd "$d" && "$work/bin/api.native" environ >env.native && ./api environ >env.relinked)
	if cmp -s "$d/env.native" "$d/env.relinked"; then
		pass "api-environ (the re-execution leaves the environment as native: $(cat "$d/env.native"))"
	else
		fail api-environ "native: $(cat "$d/env.native") relinked: $(cat "$d/env.relinked")"
	fi
fi

# Checkpoints raining on a loop of trapped calls.
if want storm && build storm; then
	d=$work/storm
	native storm "$d"
	cp "$work/bin/storm" "$d/"
	(cd "$d" && exec ./storm >out.relinked 2>err.relinked) &
	pid=$!
	started+=("$pid")
	n=0
	ready "$pid"
	while [ -d /proc/$pid ] && [ "$n" -lt 60 ]; do
		sleep 0.01
		kill -USR2 "$pid" 2>/dev/null && n=$((n + 1))
	done
	wait_for "$pid"
	RC=$?
	CYCLES=$n
	same_output storm-usr2 "$d"
	(cd "$d" && exec ./storm.ckpt >out.restart 2>err.restart)
	if [ $? -eq 0 ] && [ ! -s "$d/err.restart" ] && cmp -s "$d/out.native" "$d/out.restart"; then
		pass "storm-restart (the last of them restarts and finishes)"
	else
		fail storm-restart "$(head -c 200 "$d/err.restart")"
	fi
fi

# Every trapped call (CONDOR_TRAP_ALL=1): the trap must be transparent.
if want trapall && { [ -x "$work/bin/files" ] || build files; }; then
	d=$work/trapall
	mkdir -p "$d/n" "$d/r"
	(cd "$d/n" && "$work/bin/files.native" init && "$work/bin/files.native" >out.native)
	cp "$d/n/input.dat" "$d/n/out.native" "$d/r/"
	export CONDOR_TRAP_ALL=1
	tstp_cycles files "$d/r"
	unset CONDOR_TRAP_ALL
	same_output trapall-files "$d/r"
fi

# ------------------------------------------------------------------ #
# Real programs nobody here wrote.

if want lua && build lua_main "$src/lua_run.c" -I/usr/include/lua5.4 -llua5.4 -lm; then
	native lua_main "$work/lua"
	tstp_cycles lua_main "$work/lua"
	same_output lua-tstp "$work/lua"
fi

if want sqlite && build sqlite_main -lsqlite3 -lm; then
	native sqlite_main "$work/sqlite/n"
	mkdir -p "$work/sqlite/r"
	cp "$work/sqlite/n/out.native" "$work/sqlite/r/"
	tstp_cycles sqlite_main "$work/sqlite/r"
	same_output sqlite-tstp "$work/sqlite/r"
fi

if want fortran; then
	d=$work/fortran
	mkdir -p "$d/n" "$d/r" "$work/bin"
	if ! gfortran -O2 -static -o "$work/bin/fortran.native" "$src/fortran.f90" \
	    >"$work/bin/fortran.log" 2>&1 ||
	    ! "$top/bin/condor_fc" -O2 -o "$work/bin/fortran" "$src/fortran.f90" \
	    >>"$work/bin/fortran.log" 2>&1; then
		fail build-fortran "$(head -c 200 "$work/bin/fortran.log")"
	else
		native fortran "$d/n"
		cp "$d/n/out.native" "$d/r/"
		tstp_cycles fortran "$d/r"
		same_output fortran-tstp "$d/r"
		if cmp -s "$d/n/table.out" "$d/r/table.out"; then
			pass "fortran-table (the formatted file written across restarts is the native one)"
		else
			fail fortran-table "table.out differs from the native run's"
		fi
	fi
fi

# Heavy allocators, their memory brought back on demand after every
# restart (CONDOR_RESTORE=lazy: the restore's helper fills it while the
# program runs): SQLite with a 128 MiB page cache, zlib with its largest
# windows and buffers that come and go, a Fortran program whose
# allocatable arrays grow, shrink and are given back.

if want sqlite-cache-lazy && build sqlite_cache -lsqlite3 -lm; then
	native sqlite_cache "$work/sqlite-cache/n"
	mkdir -p "$work/sqlite-cache/r"
	cp "$work/sqlite-cache/n/out.native" "$work/sqlite-cache/r/"
	CONDOR_RESTORE=lazy tstp_cycles sqlite_cache "$work/sqlite-cache/r"
	same_output sqlite-cache-lazy "$work/sqlite-cache/r"
fi

if want zlib-lazy && build zlib_windows -lz; then
	native zlib_windows "$work/zlib/n"
	mkdir -p "$work/zlib/r"
	cp "$work/zlib/n/out.native" "$work/zlib/r/"
	CONDOR_RESTORE=lazy tstp_cycles zlib_windows "$work/zlib/r"
	same_output zlib-lazy "$work/zlib/r"
fi

if want fortran-alloc-lazy; then
	d=$work/fortran-alloc
	mkdir -p "$d/n" "$d/r" "$work/bin"
	if ! gfortran -O2 -static -o "$work/bin/fortran_alloc.native" \
	    "$src/fortran_alloc.f90" >"$work/bin/fortran_alloc.log" 2>&1 ||
	    ! "$top/bin/condor_fc" -O2 -o "$work/bin/fortran_alloc" \
	    "$src/fortran_alloc.f90" >>"$work/bin/fortran_alloc.log" 2>&1; then
		fail build-fortran_alloc "$(head -c 200 "$work/bin/fortran_alloc.log")"
	else
		native fortran_alloc "$d/n"
		cp "$d/n/out.native" "$d/r/"
		CONDOR_RESTORE=lazy tstp_cycles fortran_alloc "$d/r"
		same_output fortran-alloc-lazy "$d/r"
	fi
fi

# ------------------------------------------------------------------ #
# Cores, gdb, merge, readelf, a moved vDSO.

if want core && { [ -x "$work/bin/recurse" ] || build recurse; }; then
	d=$work/core
	mkdir -p "$d"
	cp "$work/bin/recurse" "$d/"
	[ -f "$work/recurse/out.native" ] || native recurse "$work/recurse"
	cp "$work/recurse/out.native" "$d/"
	(cd "$d" && CONDOR_CKPT_CORE=core.recurse exec ./recurse >out.relinked 2>err.relinked) &
	pid=$!
	started+=("$pid")
	ready "$pid"
	sleep 0.15
	kill -TSTP "$pid"
	wait_for "$pid"
	RC=$?
	if [ "$RC" -ne 85 ] || [ ! -s "$d/core.recurse" ]; then
		fail core-written "no core after SIGTSTP (exit $RC): $(head -c 200 "$d/err.relinked")"
	else
		pass "core-written (an ELF core of $(stat -c %s "$d/core.recurse") bytes)"
		if [ "$(readelf -h "$d/core.recurse" | awk '/Type:/{print $2}')" = CORE ]; then
			pass "core-is-et-core (readelf: Type CORE)"
		else
			fail core-is-et-core "readelf does not see an ET_CORE"
		fi
		gdb -batch -ex "bt 6" -ex "bt -3" "$d/recurse" "$d/core.recurse" >"$d/gdb.out" 2>&1
		# A frame line is "#0  0x... in work () at recurse.c:22", or
		# "#0  work () at recurse.c:22" when the pc sits on a
		# statement boundary.
		if gdb_frame work "$d/gdb.out" && gdb_frame recurse "$d/gdb.out" &&
		    gdb_frame main "$d/gdb.out"; then
			pass "gdb-backtrace (gdb PROGRAM CORE: work <- recurse <- ... <- main)"
		else
			fail gdb-backtrace "gdb printed no work/recurse/main frames: $(grep '^#' "$d/gdb.out" | head -3 | tr '\n' ' ')"
		fi
		if "$condor_ckpt" merge "$d/recurse" "$d/core.recurse" -o "$d/merged.ckpt" 2>"$d/merge.err"; then
			pass "merge (condor_ckpt merge EXE CORE -o CKPT)"
			if "$condor_ckpt" info "$d/merged.ckpt" >/dev/null 2>"$d/info.err"; then
				pass "merge-info (the merged checkpoint verifies)"
			else
				fail merge-info "$(cat "$d/info.err")"
			fi
			(cd "$d" && exec ./merged.ckpt >>out.relinked 2>>err.relinked)
			RC=$?
			CYCLES=1
			same_output merge-restart "$d"
		else
			fail merge "$(cat "$d/merge.err")"
		fi
	fi
fi

if want readelf && { [ -x "$work/bin/stdio" ] || build stdio; }; then
	d=$work/readelf
	mkdir -p "$d"
	cp "$work/bin/stdio" "$d/"
	(cd "$d" && exec ./stdio >out 2>err) &
	pid=$!
	started+=("$pid")
	ready "$pid"
	sleep 0.1
	kill -TSTP "$pid"
	wait_for "$pid"
	if readelf -lW "$d/stdio.ckpt" >"$d/readelf.out" 2>&1 &&
	    grep -q 'LOAD' "$d/readelf.out" && ! grep -qi 'error\|warning' "$d/readelf.out"; then
		pass "readelf (readelf -l reads a checkpoint: $(grep -c LOAD "$d/readelf.out") LOAD segments)"
	else
		fail readelf "$(head -3 "$d/readelf.out" | tr '\n' ' ')"
	fi
	if readelf -SW "$d/stdio.ckpt" 2>&1 | grep -q '\.condor_restart' &&
	    ! readelf -SW "$d/stdio.ckpt" 2>&1 | grep -qi 'warning\|error'; then
		pass "readelf-sections (readelf -S shows .condor_restart and .condor_data)"
	else
		fail readelf-sections "readelf -S does not read the sections cleanly"
	fi
fi

# Streamed to a descriptor (a pipe, as the starter would read it).
if want stream && { [ -x "$work/bin/stdio" ] || build stdio; }; then
	d=$work/stream
	mkdir -p "$d"
	cp "$work/bin/stdio" "$d/"
	[ -f "$work/stdio/out.native" ] || native stdio "$work/stdio"
	cp "$work/stdio/out.native" "$d/"
	(cd "$d" && CONDOR_CKPT_FILE=fd:7 exec ./stdio >out.relinked 2>err.relinked 7> >(cat >piped.ckpt)) &
	pid=$!
	started+=("$pid")
	ready "$pid"
	sleep 0.2
	kill -TSTP "$pid"
	wait_for "$pid"
	RC=$?
	sleep 0.2
	chmod +x "$d/piped.ckpt"
	if [ "$RC" -eq 85 ] && "$condor_ckpt" info "$d/piped.ckpt" >/dev/null 2>"$d/info.err"; then
		(cd "$d" && exec ./piped.ckpt >>out.relinked 2>>err.relinked)
		RC=$?
		CYCLES=1
		same_output stream-pipe "$d"
	else
		fail stream-pipe "exit $RC; $(cat "$d/info.err" "$d/err.relinked" | head -c 200)"
	fi
fi

# A restart where the kernel puts [vdso]/[vvar] elsewhere (a bigger stack
# limit moves the mmap base): the library must move them back, or the
# clock calls after the restart (the vDSO's) would jump into nothing.
if want vdso && { [ -x "$work/bin/signals" ] || build signals; }; then
	d=$work/vdso
	mkdir -p "$d"
	cp "$work/bin/signals" "$d/"
	[ -f "$work/signals/out.native" ] || native signals "$work/signals"
	cp "$work/signals/out.native" "$d/"
	(cd "$d" && exec ./signals >out.relinked 2>err.relinked) &
	pid=$!
	started+=("$pid")
	ready "$pid"
	sleep 0.3
	kill -TSTP "$pid"
	wait_for "$pid"
	(cd "$d" && ulimit -s 1048576 && exec ./signals.ckpt >>out.relinked 2>>err.relinked)
	RC=$?
	CYCLES=1
	same_output vdso-moved "$d"
fi

# ------------------------------------------------------------------ #
# Damaged checkpoints: refused, never resumed, never a crash.

if want fuzz && { [ -x "$work/bin/stdio" ] || build stdio; }; then
	d=$work/fuzz
	mkdir -p "$d"
	cp "$work/bin/stdio" "$d/"
	(cd "$d" && exec ./stdio >out 2>err) &
	pid=$!
	started+=("$pid")
	ready "$pid"
	sleep 0.1
	kill -TSTP "$pid"
	wait_for "$pid"
	good=$d/stdio.ckpt
	size=$(stat -c %s "$good")
	if ! "$condor_ckpt" info "$good" >/dev/null 2>&1; then
		fail fuzz-info "the undamaged checkpoint does not verify"
	else
		bad_info=0 crash_info=0 n=0
		for ((i = 0; i < 300; i++)); do
			cp "$good" "$d/bad.ckpt"
			if ((i % 3 == 0)); then
				off=$(( (RANDOM * 32768 + RANDOM) % size ))
				truncate -s "$off" "$d/bad.ckpt"
			else
				# Flip one byte: anywhere, or in the headers and
				# the restart state at the end.
				if ((i % 3 == 1)); then
					off=$(( (RANDOM * 32768 + RANDOM) % size ))
				else
					off=$(( size - 1 - (RANDOM * 32768 + RANDOM) % 16384 ))
				fi
				orig=$(od -An -tu1 -j "$off" -N1 "$d/bad.ckpt" | tr -d ' ')
				new=$(( (orig ^ (RANDOM % 255 + 1)) & 255 ))
				printf "$(printf '\\%03o' "$new")" |
				    dd of="$d/bad.ckpt" bs=1 seek="$off" conv=notrunc status=none
			fi
			n=$((n + 1))
			"$condor_ckpt" info "$d/bad.ckpt" >/dev/null 2>"$d/info.err"
			rc=$?
			if [ "$rc" -ge 128 ]; then
				crash_info=$((crash_info + 1))
			elif [ "$rc" -eq 0 ]; then
				bad_info=$((bad_info + 1))
				echo "accepted: offset $off" >>"$d/accepted"
			fi
		done
		if [ "$crash_info" -ne 0 ]; then
			fail fuzz-info "condor_ckpt info crashed on $crash_info of $n damaged files"
		elif [ "$bad_info" -ne 0 ]; then
			fail fuzz-info "condor_ckpt info accepted $bad_info of $n damaged files ($(head -1 "$d/accepted"))"
		else
			pass "fuzz-info (condor_ckpt info refused all $n truncated or flipped checkpoints, no crash)"
		fi
		# Truncated inside its loadable segments, a file cannot even be
		# exec'd: the kernel kills the process in execve (SIGSEGV)
		# before any of its code runs.  A byte flipped in the ELF and
		# program headers (the kernel's to interpret) or in the code
		# that runs the first check (the entry point and the checksum)
		# may crash before anything can check.  Anything else must be
		# refused by the checkpoint's own checks (status 1, a message).
		load_end=0
		while read -r typ off_ x_ x_ fsz x_; do
			[ "$typ" = LOAD ] || continue
			e=$(( off_ + fsz ))
			[ "$e" -gt "$load_end" ] && load_end=$e
		done < <(readelf -lW "$good")
		# The text segment: readelf writes its flags "R E" (two words).
		read -r t_off t_vaddr < <(readelf -lW "$good" |
		    awk '$1 == "LOAD" && ($7 ~ /E/ || $8 == "E") { print $2, $3 }')
		if [ -z "$t_off" ]; then
			fail fuzz-restart-layout "no text segment found in $good"
			t_off=0 t_vaddr=0
		fi
		hdr_end=$(( $(readelf -hW "$good" | awk '/Start of program headers/ {print $5}') + \
		    $(readelf -hW "$good" | awk '/Number of program headers/ {print $5}') * 56 ))
		precheck=()
		while read -r s_addr s_size x_ name; do
			case "$name" in
			condor_ckpt_entry|ckpt_entry_check|condor_gate_install|raw_syscall6|\
			pread_full|refuse|cj_*|ckpt_sum*|lanes_*|fold_*|crc32c_*|condor_gate_template*)
				precheck+=("$(( 16#$s_addr - t_vaddr + t_off )):$(( 16#$s_size ))") ;;
			esac
		done < <(nm -S --defined-only "$work/bin/stdio" | awk 'NF == 4')
		in_precheck() {
			local r lo
			[ "$1" -lt "$hdr_end" ] && return 0
			for r in "${precheck[@]}"; do
				lo=${r%%:*}
				[ "$1" -ge "$lo" ] && [ "$1" -lt $((lo + ${r##*:})) ] && return 0
			done
			return 1
		}
		ran=0 crashed=0 refused=0 kernel=0 n=0
		for ((i = 0; i < 60; i++)); do
			cp "$good" "$d/bad.ckpt"
			trunc=0
			if ((i % 4 == 0)); then
				off=$(( (RANDOM * 32768 + RANDOM) % size ))
				truncate -s "$off" "$d/bad.ckpt"
				trunc=1
			else
				off=$(( (RANDOM * 32768 + RANDOM) % size ))
				orig=$(od -An -tu1 -j "$off" -N1 "$d/bad.ckpt" | tr -d ' ')
				new=$(( (orig ^ (RANDOM % 255 + 1)) & 255 ))
				printf "$(printf '\\%03o' "$new")" |
				    dd of="$d/bad.ckpt" bs=1 seek="$off" conv=notrunc status=none
			fi
			n=$((n + 1))
			# Through sh, whose "Segmentation fault" goes to /dev/null.
			sh -c 'cd "$1" && CONDOR_RESTORE=eager timeout -k 2 10 ./bad.ckpt >run.out 2>run.err; echo $? >rc' \
			    sh "$d" 2>/dev/null
			rc=$(cat "$d/rc")
			if [ -s "$d/run.out" ]; then
				ran=$((ran + 1))
				echo "ran: offset $off rc $rc" >>"$d/ran"
			elif [ "$trunc" = 1 ] && [ "$off" -lt "$load_end" ] && [ "$rc" -ne 0 ]; then
				# Cut inside what the kernel loads: it kills the
				# process (SIGBUS, SIGSEGV), or refuses the exec
				# (ENOEXEC, and then timeout's execvp hands the file
				# to /bin/sh, which fails on it); nothing ran.
				kernel=$((kernel + 1))
			elif [ "$trunc" = 0 ] && [ "$rc" -ge 128 ] && in_precheck "$off"; then
				kernel=$((kernel + 1))
			elif [ "$rc" -eq 1 ] && grep -q 'cannot resume' "$d/run.err"; then
				refused=$((refused + 1))
			elif [ "$rc" -eq 126 ] || [ "$rc" -eq 127 ]; then
				kernel=$((kernel + 1))	# exec format error
			else
				crashed=$((crashed + 1))
				echo "offset $off rc $rc trunc $trunc: $(head -c 100 "$d/run.err")" >>"$d/crashed"
			fi
		done
		if [ "$ran" -ne 0 ]; then
			fail fuzz-restart "$ran of $n damaged checkpoints resumed ($(head -1 "$d/ran"))"
		elif [ "$crashed" -ne 0 ]; then
			fail fuzz-restart "$crashed of $n damaged checkpoints were not refused cleanly ($(head -1 "$d/crashed"))"
		else
			pass "fuzz-restart (none of $n damaged checkpoints resumed: $refused refused with a message, $kernel stopped before any check could run)"
		fi
	fi
fi

# A checkpoint whose open file is gone: refused with the reason.
if want missing && { [ -x "$work/bin/files" ] || build files; }; then
	d=$work/missing
	mkdir -p "$d"
	(cd "$d" && "$work/bin/files.native" init)
	cp "$work/bin/files" "$d/"
	(cd "$d" && exec ./files >out.relinked 2>err.relinked) &
	pid=$!
	started+=("$pid")
	ready "$pid"
	sleep 0.3
	kill -TSTP "$pid"
	wait_for "$pid"
	RC=$?
	if [ "$RC" -ne 85 ]; then
		fail missing-file "the program did not checkpoint (exit $RC)"
	else
		rm -f "$d/input.dat"
		(cd "$d" && exec ./files.ckpt >out.restart 2>err.restart)
		RC=$?
		if [ "$RC" -eq 1 ] && [ ! -s "$d/out.restart" ] &&
		    grep -q 'cannot reopen .*input.dat' "$d/err.restart"; then
			pass "missing-file (restart refused: $(head -c 120 "$d/err.restart"))"
		else
			fail missing-file "exit $RC, stderr: $(head -c 200 "$d/err.restart")"
		fi
	fi
fi
exit 0
