#!/usr/bin/env bash
# tests/pool/std_library_test.sh: what HTCondor's standard-universe test
# programs ask of the library and of the relinking commands, outside
# Condor (no daemons).
#
#  - A C, a C++ and a Fortran program that call ckpt_and_exit() three
#    times (CALL CKPT_AND_EXIT in Fortran, linked by condor_fc) exit 85
#    three times and, each time resumed, print what the native run does.
#  - A C++ program (static constructor, exceptions, iostreams) relinked
#    with condor_compile g++ and with condor_cc, stopped by SIGTSTP at
#    random moments and resumed: the native output.
#  - condor_compile passes a command that does not link through
#    unchanged.
#  - The -_condor_* arguments never reach main; -_condor_ckpt FILE says
#    where checkpoints go, -_condor_restart FILE resumes from one.
#  - A program resumed with CONDOR_CKPT_NOTIFY_FD checkpoints again
#    (forked writer, in-line writer, lazy restore).
#  - A program that handles SIGSYS (the library's trap signal) blocks,
#    raises and handles it as natively, making trapped calls in its
#    handler.
#
# checks: 15
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
P=$top/tests/programs
W=$(mktemp -d /tmp/std-library.XXXXXX)
started=()
cleanup() {
	local p
	for p in "${started[@]}"; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
check() {
	local name=$1
	shift
	if "$@" >>"$W/check.log" 2>&1; then pass "$name"; else fail "$name" "$*"; fi
}
cd "$W" || exit 1

# resume_all NAME: run ./NAME in the work directory, then its checkpoint
# as long as it exits 85; RUNS is how many times it exited 85, RC the
# last status, the output in NAME.out.
resume_all() {
	local n=$1
	rm -f "$n.ckpt"
	RUNS=0
	"./$n" >"$n.out" 2>"$n.err"
	RC=$?
	while [ "$RC" = 85 ] && [ "$RUNS" -lt 10 ]; do
		RUNS=$((RUNS + 1))
		"./$n.ckpt" >>"$n.out" 2>>"$n.err"
		RC=$?
	done
}

cc -O2 -static -o c.native "$P/selfckpt.c" &&
    "$top/bin/condor_cc" -O2 -o c "$P/selfckpt.c" >>build.log 2>&1
c_ok=$?
g++ -O2 -static -o cxx.native "$P/selfckpt_cxx.cc" &&
    "$top/bin/condor_compile" g++ -O2 -o cxx "$P/selfckpt_cxx.cc" >>build.log 2>&1
cxx_ok=$?
gfortran -O2 -static -o f.native "$P/selfckpt_f.F90" &&
    "$top/bin/condor_fc" -O2 -o f "$P/selfckpt_f.F90" >>build.log 2>&1
f_ok=$?
for n in c cxx f; do
	eval "ok=\$${n}_ok"
	if [ "$ok" != 0 ]; then
		fail "$n-ckpt-and-exit" "does not build: $(head -c 300 build.log)"
		continue
	fi
	"./$n.native" >"$n.native.out"
	resume_all "$n"
	if [ "$RC" = 0 ] && [ "$RUNS" = 3 ] && cmp -s "$n.native.out" "$n.out"; then
		pass "$n-ckpt-and-exit (3 exits with 85, each resumed, the native output)"
	else
		fail "$n-ckpt-and-exit" "status $RC after $RUNS resumptions; $(diff "$n.native.out" "$n.out" | head -5 | tr '\n' ' ')"
	fi
done

# C++ checkpointed at random moments (SIGTSTP), resumed until it ends.
tstp_cxx() {
	local n=$1 pid k=0
	rm -f "$n.ckpt"
	("./$n" 300000000 >"$n.out" 2>"$n.err") &
	pid=$!
	started+=("$pid")
	while :; do
		sleep "0.$((RANDOM % 30 + 10))"
		kill -TSTP "$pid" 2>/dev/null
		wait "$pid"
		RC=$?
		[ "$RC" = 85 ] || break
		k=$((k + 1))
		[ "$k" -lt 200 ] || break
		("./$n.ckpt" >>"$n.out" 2>>"$n.err") &
		pid=$!
		started+=("$pid")
	done
	RUNS=$k
}
if [ "$cxx_ok" = 0 ]; then
	# Work for a few seconds natively, so that at least four of the
	# checkpoints (one every 0.1-0.4 s) fall before its end on any
	# machine.
	"./cxx.native" 300000000 >cxx4.native.out
	cp cxx cxx4
	tstp_cxx cxx4
	if [ "$RC" = 0 ] && [ "$RUNS" -ge 4 ] && cmp -s cxx4.native.out cxx4.out; then
		pass "cxx-condor-compile-tstp (static constructor, exceptions, iostreams through $RUNS checkpoints)"
	else
		fail cxx-condor-compile-tstp "status $RC after $RUNS checkpoints; $(diff cxx4.native.out cxx4.out | head -5 | tr '\n' ' ')"
	fi
else
	fail cxx-condor-compile-tstp "condor_compile g++ failed"
fi
check "cxx-condor-cc (a C++ source links with condor_cc, libstdc++ added)" \
	bash -c "'$top/bin/condor_cc' -O2 -o cxxcc '$P/selfckpt_cxx.cc' &&
	    { ./cxxcc 1000 >cxxcc.out; [ \$? = 85 ]; } &&
	    grep -q '^step 1: kept .*static 7' cxxcc.out"

printf '#ifdef CONDOR_RELINKED\nrelinked\n#else\nplain\n#endif\n' >pp.c
check "condor-compile-passthrough (-E runs as given; condor_cc -E adds its define)" \
	bash -c "'$top/bin/condor_compile' gcc -E -P pp.c | grep -qx plain &&
	    '$top/bin/condor_cc' -E -P pp.c | grep -qx relinked"

# The -_condor_ flags.
if "$top/bin/condor_cc" -O2 -o args "$P/std_args.c" >>build.log 2>&1; then
	./args a -_condor_aggravate_bugs b -_condor_D_ALL c >args1.out 2>&1
	if head -1 args1.out | grep -qx 'argc 4: \[a\] \[b\] \[c\]'; then
		pass "condor-flags-consumed (main sees $(head -1 args1.out))"
	else
		fail condor-flags-consumed "main saw: $(head -1 args1.out)"
	fi
	rm -f args.ckpt mine.ckpt
	./args -_condor_ckpt mine.ckpt x >args2.out 2>&1 &
	pid=$!
	started+=("$pid")
	sleep 1
	kill -TSTP "$pid"
	wait "$pid"
	rc=$?
	if [ "$rc" = 85 ] && [ -x mine.ckpt ] && [ ! -e args.ckpt ] &&
	    head -1 args2.out | grep -qx 'argc 2: \[x\]'; then
		pass "condor-ckpt-flag (the checkpoint went to mine.ckpt)"
	else
		fail condor-ckpt-flag "status $rc; $(ls) $(head -1 args2.out)"
	fi
	./args -_condor_restart mine.ckpt >args3.out 2>&1
	rc=$?
	cat args2.out args3.out >args23.out
	./args x >args.native.out 2>&1
	if [ "$rc" = 0 ] && ! grep -q argc args3.out &&
	    cmp -s args.native.out args23.out; then
		pass "condor-restart-flag (it resumed from mine.ckpt and finished)"
	else
		fail condor-restart-flag "status $rc; $(head -3 args3.out | tr '\n' ' ')"
	fi
	./args -_condor_restart >args4.out 2>&1
	rc=$?
	if [ "$rc" = 1 ] && grep -q 'needs a file name' args4.out; then
		pass "condor-restart-needs-file (status 1, says why)"
	else
		fail condor-restart-needs-file "status $rc: $(head -c 200 args4.out)"
	fi
	# A resumed program, with CONDOR_CKPT_NOTIFY_FD (the restart moves
	# that descriptor out of the program's way), checkpoints again, in
	# each way of writing and restoring.
	./args y >args.native.out 2>&1
	for mode in CONDOR_CKPT_FORK=1 CONDOR_CKPT_FORK=0 CONDOR_RESTORE=lazy; do
		rm -f args.ckpt args5.out notes*
		env "$mode" CONDOR_CKPT_NOTIFY_FD=9 ./args y >args5.out 9>notes1 2>&1 &
		pid=$!
		started+=("$pid")
		sleep 0.7
		kill -TSTP "$pid"
		wait "$pid"
		rc1=$?
		env "$mode" CONDOR_CKPT_NOTIFY_FD=9 ./args.ckpt >>args5.out 9>notes2 2>&1 &
		pid=$!
		started+=("$pid")
		sleep 0.7
		kill -TSTP "$pid"
		wait "$pid"
		rc2=$?
		env "$mode" CONDOR_CKPT_NOTIFY_FD=9 ./args.ckpt >>args5.out 9>notes3 2>&1
		rc3=$?
		if [ "$rc1" = 85 ] && [ "$rc2" = 85 ] && [ "$rc3" = 0 ] &&
		    grep -q '^ok-exit ' notes2 && cmp -s args.native.out args5.out; then
			pass "resumed-notify-ckpt-$mode (a resumed program checkpointed again, output the native one)"
		else
			fail "resumed-notify-ckpt-$mode" "status $rc1 $rc2 $rc3; notes: $(cat notes2 | tr '\n' ' '); $(grep -v count args5.out | head -3 | tr '\n' ' ')"
		fi
	done
else
	for c in condor-flags-consumed condor-ckpt-flag condor-restart-flag condor-restart-needs-file \
	    resumed-notify-ckpt-CONDOR_CKPT_FORK=1 resumed-notify-ckpt-CONDOR_CKPT_FORK=0 \
	    resumed-notify-ckpt-CONDOR_RESTORE=lazy; do
		fail "$c" "std_args does not build"
	done
fi
# SIGSYS, the library's and the program's.
if cc -O2 -static -o sigsys.native "$P/std_sigsys.c" &&
    "$top/bin/condor_cc" -O2 -o sigsys "$P/std_sigsys.c" >>build.log 2>&1; then
	./sigsys.native >sigsys.native.out 2>&1
	./sigsys >sigsys.out 2>&1
	rc=$?
	if [ "$rc" = 0 ] && grep -qx done sigsys.native.out &&
	    cmp -s sigsys.native.out sigsys.out; then
		pass "sigsys-handler (blocked, raised, held, handled with trapped calls in it: as native)"
	else
		fail sigsys-handler "status $rc; $(diff sigsys.native.out sigsys.out | head -4 | tr '\n' ' ')"
	fi
	CONDOR_TRAP_ALL=1 ./sigsys >sigsys.all.out 2>&1
	rc=$?
	if [ "$rc" = 0 ] && cmp -s sigsys.native.out sigsys.all.out; then
		pass "sigsys-handler-trap-all (every call trapped: as native)"
	else
		fail sigsys-handler-trap-all "status $rc; $(diff sigsys.native.out sigsys.all.out | head -4 | tr '\n' ' ')"
	fi
else
	fail sigsys-handler "std_sigsys does not build"
	fail sigsys-handler-trap-all "std_sigsys does not build"
fi
exit 0
