#!/usr/bin/env bash
# bench/ckpt_incr_bench.sh: periodic checkpoints of a program that
# rewrites 1 % of a large block between them (tests/ckpt/incr.c), full
# against incremental (CONDOR_CKPT_INCREMENTAL=1), for N = 256 and 1024
# MiB (or the sizes given).
#
#   bench/ckpt_incr_bench.sh [MiB...]
#
# Five checkpoints taken with ckpt() (the program waits for each to be
# durable: written, fsynced, read back, renamed): the first is full in
# both modes; for the other four, the median of
#   bytes      the file written (a full image, or a delta beside it);
#              under Condor the same bytes go to the shadow
#   time       ckpt() to its return, the checkpoint durable
#   frozen     in a second run, each checkpoint taken with SIGUSR2: how
#              long the signal stopped the program (the handler takes
#              the state, for a delta lists and protects again the pages
#              written, and forks the writer)
# and "fold", condor_ckpt merge of the full image and its four deltas
# into one checkpoint (fsynced, verified): what a restart from the chain
# costs first.
#
# The table goes to standard error; standard output gets one
# "what|measured|goal" row per figure for bench/run.
set -u
exec 3>&1 1>&2
row() { echo "$1|$2|$3" >&3; }
top=$(cd "$(dirname "$0")/.." && pwd)
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(256 1024)
work=$(mktemp -d /tmp/ckpt-incr-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

if ! "$top/bin/condor_cc" -O2 -o "$work/incr" "$top/tests/ckpt/incr.c" \
    >"$work/cc.log" 2>&1; then
	echo "condor_cc failed: $(head -c 300 "$work/cc.log")"
	exit 1
fi

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-8s %-12s %14s %10s %10s %10s\n' MiB mode "bytes/ckpt" "s/ckpt" \
    frozen fold
for mib in "${sizes[@]}"; do
	for mode in full incr; do
		d=$work/$mib-$mode
		mkdir -p "$d"
		env=()
		[ "$mode" = incr ] && env=(CONDOR_CKPT_INCREMENTAL=1)
		# Full images replace one another in one file; the deltas
		# stay beside the first image, and are measured after.
		(cd "$d" && env "${env[@]}" "$work/incr" "$mib" 5 -1 t \
		    >out 2>err)
		rc=$?
		if [ "$rc" -ne 0 ] || grep -qv '^ckpt ' "$d/err"; then
			echo "incr $mib $mode: exit $rc: $(grep -v '^ckpt ' "$d/err" | head -c 300)"
			exit 1
		fi
		t=$(awk '$1 == "ckpt" && $2 > 0 { print $3 }' "$d/err" | median)
		# Frozen: SIGUSR2, and time for the writer (4 s a GiB: a busy disk).
		f=$d/frozen
		mkdir -p "$f"
		(cd "$f" && env "${env[@]}" "$work/incr" "$mib" 5 -1 f \
		    $((4 * mib + 500)) >out 2>err)
		fz=$(awk '$1 == "frozen" && $2 > 0 { print $3 }' "$f/err" | median)
		if [ "$mode" = incr ]; then
			b=$(for k in 1 2 3 4; do stat -c %s "$d/incr.ckpt.delta$k"; done | median)
			s0=$(date +%s.%N)
			"$top/bin/condor_ckpt" merge "$d/incr.ckpt" \
			    "$d"/incr.ckpt.delta{1,2,3,4} -o "$d/folded.ckpt" || exit 1
			fold=$(echo "$(date +%s.%N) - $s0" | bc)
			fold=$(printf '%.2f' "$fold")
		else
			b=$(stat -c %s "$d/incr.ckpt")
			fold=-
		fi
		printf '%-8s %-12s %14s %10s %10s %10s\n' "$mib" "$mode" "$b" "$t" \
		    "$fz" "$fold"
		row "ckpt_incr $mib MiB $mode: bytes per periodic checkpoint" "$b" ""
		row "ckpt_incr $mib MiB $mode: seconds per periodic checkpoint" "$t" ""
		row "ckpt_incr $mib MiB $mode: frozen per periodic checkpoint (s)" "$fz" ""
		[ "$mode" = incr ] &&
		    row "ckpt_incr $mib MiB: fold of 4 deltas (s)" "$fold" ""
		rm -rf "$d"
	done
done
