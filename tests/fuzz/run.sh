#!/usr/bin/env bash
# A short run of every libFuzzer target from its corpus (part of make
# check).  FUZZ_SECONDS sets the time per target; a crash, leak, or
# sanitizer report fails the target and leaves the input in the log dir.
# A target not built (make fuzzers) is a SKIP.
#
# checks: 13 (one per tests/fuzz/fuzz_*.c, and fuzz_syscall once more)
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
secs=${FUZZ_SECONDS:-8}
work=$(mktemp -d /tmp/condor-fuzz.XXXXXX)
fails=0
for src in "$TOP"/tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	f=$TOP/obj/fuzz/$name
	if [ ! -x "$f" ]; then
		echo "SKIP $name: not built (make fuzzers)"
		continue
	fi
	corpus=$TOP/tests/fuzz/corpus/${name#fuzz_}
	mkdir -p "$work/$name"
	cp -r "$corpus"/. "$work/$name/" 2>/dev/null
	if (cd "$work" && "$f" -max_total_time="$secs" -seed=1 -max_len=4096 \
	    -rss_limit_mb=1024 -timeout=10 "$work/$name" >"$work/$name.log" 2>&1); then
		runs=$(grep -o 'Done [0-9]* runs' "$work/$name.log" | tail -1)
		if grep -q '^SKIP ' "$work/$name.log"; then
			grep '^SKIP ' "$work/$name.log"
		else
			echo "PASS $name (${runs:-ran})"
		fi
	else
		echo "FAIL $name: see $work/$name.log"
		tail -n 30 "$work/$name.log"
		fails=$((fails + 1))
	fi
done
# The runtime opens descriptors of its own between inputs (the
# symbolizer's pipes, here started by printing each newly covered PC):
# fuzz_syscall's check that the service leaves no descriptor behind
# must tell them from the service's.
f=$TOP/obj/fuzz/fuzz_syscall
if [ -x "$f" ]; then
	mkdir -p "$work/pcs"
	cp -r "$TOP"/tests/fuzz/corpus/syscall/. "$work/pcs/"
	if (cd "$work" && "$f" -print_pcs=1 -runs=2000 -seed=1 -max_len=4096 \
	    -rss_limit_mb=1024 -timeout=10 "$work/pcs" >"$work/pcs.log" 2>&1); then
		if grep -q '^SKIP ' "$work/pcs.log"; then
			grep -m1 '^SKIP ' "$work/pcs.log"
		else
			echo "PASS fuzz_syscall with the symbolizer started between inputs"
		fi
	else
		echo "FAIL fuzz_syscall with the symbolizer started between inputs: see $work/pcs.log"
		tail -n 30 "$work/pcs.log"
		fails=$((fails + 1))
	fi
fi
[ "$fails" -eq 0 ] && rm -rf "$work"
exit 0
