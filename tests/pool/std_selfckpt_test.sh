#!/usr/bin/env bash
# tests/pool/std_selfckpt_test.sh: standard jobs that checkpoint
# themselves.  A C, a C++ (condor_compile g++: static constructor,
# exceptions, iostreams) and a Fortran program (condor_fc, CALL
# CKPT_AND_EXIT) each call ckpt_and_exit() three times and print after
# each; the C and Fortran ones call ckpt() once too.  As in HTCondor,
# ckpt_and_exit() under Condor does not end the job: its checkpoint is
# shipped, the job is requeued and resumes from it, and its output is
# identical to the native run's.  Exit status 85 from a program's own
# exit() stays a normal exit.  getrusage in a program resumed three
# times counts the CPU of all its runs, and so does RemoteUserCpu.  A
# program that handles SIGSYS does as natively; -_condor_ arguments in
# the submit file never reach main.
#
# checks: 37
set -u
. "$(dirname "$0")/../lib/pool.sh"
. "$(dirname "$0")/../lib/standard_pool.sh"

standard_pool 2 'SUSPEND : FALSE' 'MAX_JOB_STARTS = 10' \
	'PERIODIC_CHECKPOINT_INTERVAL = 0' 'VACATE_GRACE = 10' \
	'NEGOTIATOR_INTERVAL = 2'
cd "$W" || exit 1
P=$TOP/tests/programs

check "selfckpt (C) builds natively and with condor_compile cc" \
	bash -c "cc -O2 -static -o '$W/c.native' '$P/selfckpt.c' &&
	    '$TOP/bin/condor_compile' cc -O2 -o '$W/c' '$P/selfckpt.c'"
check "selfckpt_cxx builds natively and with condor_compile g++" \
	bash -c "g++ -O2 -static -o '$W/cxx.native' '$P/selfckpt_cxx.cc' &&
	    '$TOP/bin/condor_compile' g++ -O2 -o '$W/cxx' '$P/selfckpt_cxx.cc'"
check "selfckpt_f builds natively and with condor_fc" \
	bash -c "gfortran -O2 -static -o '$W/f.native' '$P/selfckpt_f.F90' &&
	    '$TOP/bin/condor_fc' -O2 -o '$W/f' '$P/selfckpt_f.F90'"
check "std_rusage relinks with condor_cc" \
	"$TOP/bin/condor_cc" -O2 -o "$W/ru" "$P/std_rusage.c"
check "std_sigsys builds natively and relinks" \
	bash -c "cc -O2 -static -o '$W/sig.native' '$P/std_sigsys.c' &&
	    '$TOP/bin/condor_cc' -O2 -o '$W/sig' '$P/std_sigsys.c'"
check "std_args relinks" "$TOP/bin/condor_cc" -O2 -o "$W/args" "$P/std_args.c"
cat >"$W/exit85.c" <<'EOF2'
#include <stdio.h>
int main(void) { puts("exiting 85"); return 85; }
EOF2
check "a program that exits 85 by itself relinks" \
	"$TOP/bin/condor_cc" -O2 -o "$W/exit85" "$W/exit85.c"
for n in c cxx f sig; do
	(cd "$W" && "./$n.native" >"$W/$n.native.txt")
done
pool_owner "$W"
cm() { on cm "$@"; }
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }

submit() {
	local n=$1
	cat >"$W/$n.sub" <<EOF2
universe   = standard
executable = $n
arguments  = ${ARGS[$n]:-}
output     = $n.out
error      = $n.err
log        = $W/$n.log
queue
EOF2
	chmod 644 "$W/$n.sub"
	(cd "$W" && as_owner "$RELEASE/bin/condor_submit" "$n.sub" 2>&1) |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}

declare -A C ARGS
# As HTCondor's test jobs pass it.
ARGS[args]="a -_condor_aggravate_bugs b"
for n in c cxx f exit85 ru sig args; do
	C[$n]=$(submit "$n")
done
check "the seven jobs are submitted" test -n "${C[c]}" -a -n "${C[cxx]}" \
	-a -n "${C[f]}" -a -n "${C[exit85]}" -a -n "${C[ru]}" -a -n "${C[sig]}" \
	-a -n "${C[args]}"
for n in c cxx f; do
	c=${C[$n]}
	check "$n: job $c.0 completes" wait_for 240 in_history "$c.0"
	check "$n: its exit code is 0" \
	    test "$(cm condor_history "$c.0" -af ExitCode 2>/dev/null)" = 0
	check "$n: its output, printed after each ckpt_and_exit, is the native run's" \
	    cmp "$W/$n.native.txt" "$W/$n.out"
	k=$(grep -A1 '^004 ' "$W/$n.log" | grep -c '(1) Job was checkpointed')
	check "$n: the user log has 3 checkpointed evictions ($k), one per call" \
	    test "$k" -eq 3
	if [ "$n" != cxx ]; then
		k=$(grep -c '^003 ' "$W/$n.log")
		check "$n: its ckpt() shipped a checkpoint too: 4 checkpoint events ($k)" \
		    test "$k" -eq 4
	fi
	t=$(grep -c '^005 ' "$W/$n.log")
	check "$n: one termination, no 'return value 85' ($t)" bash -c \
	    "[ '$t' = 1 ] && ! grep -q 'return value 85' '$W/$n.log'"
done
e=${C[exit85]}
check "exit85: job $e.0 completes with its exit code 85" bash -c \
	"for i in \$(seq 1 120); do v=\$(CONDOR_CONFIG=$POOL/cm/condor_config $RELEASE/bin/condor_history $e.0 -af ExitCode 2>/dev/null); [ -n \"\$v\" ] && break; sleep 1; done; [ \"\$v\" = 85 ]"
check "exit85: it ran once, not requeued" \
	test "$(grep -c '^001 ' "$W/exit85.log")" = 1

# getrusage and times() across the runs: each step's figure at least the last one
# plus most of a step; the last at least 3.5 steps (four runs); the
# job's RemoteUserCpu their sum too.
r=${C[ru]}
check "ru: job $r.0 completes" wait_for 300 in_history "$r.0"
# grows_by_runs FILE: four figures, each at least the last plus most of
# the first, the last at least 3.5 times the first.
grows_by_runs() {
	awk 'NR == 1 { first = $1; if (first <= 0) exit 1 }
	    NR > 1 && $1 < prev + 0.7 * first { exit 1 }
	    { prev = $1; n = NR }
	    END { exit !(n == 4 && prev >= 3.5 * first) }' "$1"
}
awk '/^step/ {print $4}' "$W/ru.out" >"$W/ru.times"
check "ru: after three migrations getrusage counts every run ($(tr '\n' ' ' <"$W/ru.times"))" \
	grows_by_runs "$W/ru.times"
awk '/^step/ {print $6}' "$W/ru.out" >"$W/ru.ticks"
check "ru: times() counts every run as well ($(tr '\n' ' ' <"$W/ru.ticks"))" \
	grows_by_runs "$W/ru.ticks"
rcpu=$(cm condor_history "$r.0" -af RemoteUserCpu 2>/dev/null)
last=$(tail -1 "$W/ru.times")
check "ru: RemoteUserCpu ($rcpu) is the sum over the runs (getrusage: $last)" \
	awk -v a="${rcpu:-0}" -v b="${last:-0}" 'BEGIN { exit !(a >= 0.8 * b && b >= 0.8 * a && b > 0) }'

# A SIGSYS handler under Condor, where most calls are trapped.
g=${C[sig]}
check "sig: job $g.0 completes" wait_for 120 in_history "$g.0"
check "sig: its SIGSYS handling is the native run's" \
	cmp "$W/sig.native.txt" "$W/sig.out"
# -_condor_ arguments from the submit file never reach main.
a=${C[args]}
check "args: job $a.0 completes" wait_for 120 in_history "$a.0"
check "args: main saw its arguments without -_condor_aggravate_bugs" \
	grep -qx 'argc 3: \[a\] \[b\]' "$W/args.out"
