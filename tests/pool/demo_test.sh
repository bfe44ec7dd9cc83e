#!/usr/bin/env bash
# make demo's driver (tests/demo) says whether the demo worked, without
# running the demo: its verdict on a pool's run (demo_verdict, tried
# alone on made-up results) is "demo: OK: ..." with status 0 for a job
# that was checkpointed, ran on two hosts, ended with 0 and printed the
# native build's output, and "demo: FAILED: ..." with status 1 when any
# of these is missing; and the driver itself, when its first step fails
# (a sample program that does not exist), ends with "demo: FAILED: 1.
# relink: ..." and exits 1.
# checks: 7
TOP=$(cd "$(dirname "$0")/../.." && pwd)
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }
DEMO_LIB=1 . "$TOP/tests/demo" || { fail "tests/demo can be sourced"; exit 1; }

dir=$(mktemp -d /tmp/condor-demo-test.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
seq 1 10 >native.out
seq 1 10 >good.out
seq 1 9 >short.out
# userlog FILE HOST...: a user log of a job that ran on each HOST in
# turn, evicted with a checkpoint from each but the last, then ended.
userlog() {
	local f=$1
	shift
	echo '000 (001.000.000) 11/27 12:00:00 Job submitted from host: <127.0.0.1:9618>' >"$f"
	echo '...' >>"$f"
	while [ $# -gt 0 ]; do
		printf '001 (001.000.000) 11/27 12:00:01 Job executing on host: <127.0.0.1:1>\n\tSlotName: %s\n...\n' "$1" >>"$f"
		shift
		[ $# -gt 0 ] || break
		printf '004 (001.000.000) 11/27 12:00:02 Job was evicted.\n\t(1) Job was checkpointed.\n...\n' >>"$f"
	done
	printf '005 (001.000.000) 11/27 12:00:03 Job terminated.\n\t(1) Normal termination (return value 0)\n...\n' >>"$f"
}
userlog moved.log host1 host2
userlog stayed.log host1
# (checkpointed where it stayed: only the second host is missing)
sed -i '/^001/i 004 (001.000.000) 11/27 12:00:00 Job was evicted.\n\t(1) Job was checkpointed.\n...' stayed.log
userlog back.log host1 host1

# verdict NAME WANT-STATUS WANT-LINE-PATTERN ARG...: demo_verdict ARG...
verdict() {
	local name=$1 want=$2 pattern=$3 out rc
	shift 3
	out=$(demo_verdict "$@")
	rc=$?
	if [ "$rc" = "$want" ] && grep -qE "$pattern" <<<"$out"; then
		pass "$name"
	else
		fail "$name" "status $rc, said: $out"
	fi
}
verdict "a job moved from host1 to host2 with the native output: OK" 0 \
    '^demo: OK: the job was checkpointed, migrated from host1 to host2 and finished with the same output as its native run$' \
    native.out good.out moved.log 0
verdict "an output that differs from the native one: FAILED" 1 \
    '^demo: FAILED: .*output differs' native.out short.out moved.log 0
verdict "a job that never left its first host: FAILED" 1 \
    '^demo: FAILED: .*another host' native.out good.out stayed.log 0
verdict "a job that ran again on the same host: FAILED" 1 \
    '^demo: FAILED: .*another host' native.out good.out back.log 0
verdict "a job that did not exit 0: FAILED" 1 \
    '^demo: FAILED: .*exit code' native.out good.out moved.log 1
grep -v checkpointed moved.log >nockpt.log
verdict "a job never checkpointed: FAILED" 1 \
    '^demo: FAILED: .*checkpoint' native.out good.out nockpt.log 0

# The driver, whose first step fails at once.
out=$(DEMO_PROGRAM=$dir/no_such_program.c bash "$TOP/tests/demo" 2>&1)
rc=$?
last=$(tail -n 1 <<<"$out")
if [ "$rc" = 1 ] && [[ "$last" == "demo: FAILED: 1. relink: "* ]]; then
	pass "the driver exits 1 naming the step that failed"
else
	fail "the driver exits 1 naming the step that failed" "status $rc, last line: $last"
fi
