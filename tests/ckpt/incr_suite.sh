#!/usr/bin/env bash
# checks: 12
# tests/ckpt/incr_suite.sh: incremental checkpoints (CONDOR_CKPT_INCREMENTAL=1,
# src/libckpt/ckpt_incr.c).  tests/ckpt/incr.c rewrites 1 % of a large
# block (INCR_MIB MiB, default 256) between checkpoints it takes with
# ckpt(), and also drops pages, maps and unmaps a region and grows the
# break; built natively (cc -static) and relinked (condor_cc).
#
#   incr-chain            the first checkpoint is full, the next three
#                         are deltas beside it (TARGET.delta1..3)
#   incr-delta-size       each delta is about 1 % of the full image
#                         (bytes written counted from the files)
#   incr-merge            condor_ckpt merge folds the chain; condor_ckpt
#                         info verifies every checksum of the result
#   incr-restart-eager    the folded checkpoint resumes the program and
#   incr-restart-lazy     its output is the native run's, byte for byte,
#                         memory read first or brought back on demand
#   incr-after-restart    a resumed program's next checkpoint is full,
#                         the one after a delta of it again
#   incr-unfolded         the full image with its deltas beside it
#                         refuses to run, saying how to fold them
#   incr-corrupt          a byte flipped in a delta: merge refuses, naming
#                         the delta and the memory, OUT left as it was;
#                         condor_ckpt info refuses it, verifies the good one
#   incr-corrupt-fallback the chain before the bad delta still folds, and
#                         resumes (through one more stop and fold) to the
#                         native output
#   incr-misordered       a delta applied to the wrong image is refused
#   incr-chain-limit      never more than CONDOR_CKPT_MAX_DELTAS deltas:
#                         then a full image, the old deltas removed
#   incr-off              without CONDOR_CKPT_INCREMENTAL, full images only
#
#   tests/ckpt/incr_suite.sh [NAME...]
set -u
work=$(mktemp -d /tmp/ckpt-incr.XXXXXX)
selected=("$@")
CKPT_WAIT_SECONDS=120
. "$(dirname "$0")/lib.sh"

MIB=${INCR_MIB:-256}

if ! build_both incr incr.c; then
	exit 0
fi
d=$work/run
mkdir -p "$d"
cp "$work/bin/incr" "$d/"
(cd "$d" && "$work/bin/incr.native" "$MIB" 6 >out.native)

# The chain: rounds 0..3 checkpointed, the program exits after round 3's.
(cd "$d" && CONDOR_CKPT_INCREMENTAL=1 exec ./incr "$MIB" 6 3 >out 2>err)
rc=$?
T=$d/incr.ckpt
if want incr-chain; then
	if [ "$rc" -ne 3 ]; then
		fail incr-chain "exit status $rc: $(head -c 300 "$d/err")"
	elif [ -s "$d/err" ]; then
		fail incr-chain "stderr: $(head -c 300 "$d/err")"
	elif ! "$condor_ckpt" info "$T" >/dev/null 2>"$d/info.err"; then
		fail incr-chain "the full image: $(cat "$d/info.err")"
	elif [ ! -f "$T.delta1" ] || [ ! -f "$T.delta2" ] ||
	    [ ! -f "$T.delta3" ] || [ -e "$T.delta4" ]; then
		fail incr-chain "deltas: $(cd "$d" && ls incr.ckpt.* 2>&1 | tr '\n' ' ')"
	else
		pass "incr-chain (a full image, then 3 deltas)"
	fi
fi

if want incr-delta-size; then
	full=$(stat -c %s "$T" 2>/dev/null || echo 0)
	bad="" sizes=""
	for k in 1 2 3; do
		s=$(stat -c %s "$T.delta$k" 2>/dev/null || echo 0)
		sizes="$sizes $s"
		# 1 % of the block, plus the new mapping, the grown break,
		# the stack and the program's data: between 1 and 2 %.
		if [ $((s * 1000)) -lt $((full * 9)) ] ||
		    [ $((s * 100)) -gt $((full * 2)) ]; then
			bad="$bad delta$k=$s"
		fi
	done
	if [ "$full" -lt $((MIB * 1048576)) ]; then
		fail incr-delta-size "the full image is $full bytes, under $MIB MiB"
	elif [ -n "$bad" ]; then
		fail incr-delta-size "full image $full bytes, deltas not 1-2 % of it:$bad"
	else
		pass "incr-delta-size (full $full bytes, deltas$sizes)"
	fi
fi

M=$d/merged.ckpt
"$condor_ckpt" merge "$T" "$T.delta1" "$T.delta2" "$T.delta3" -o "$M" \
    >"$d/merge.out" 2>"$d/merge.err"
mrc=$?
if want incr-merge; then
	if [ "$mrc" -ne 0 ]; then
		fail incr-merge "exit $mrc: $(cat "$d/merge.err")"
	elif ! "$condor_ckpt" info "$M" >"$d/minfo" 2>&1; then
		fail incr-merge "the merged image: $(tail -1 "$d/minfo")"
	elif ! grep -q '^checksums .* verified' "$d/minfo"; then
		fail incr-merge "condor_ckpt info did not verify it"
	else
		pass incr-merge
	fi
fi

# resume MODE OUT CKPT [LINES]: OUT starts as the first LINES lines of
# the first run's output (4; 0: OUT kept as it is); the checkpoint's run
# appends.  Sets RC.
resume() {
	local mode=$1 out=$2 ck=$3 lines=${4:-4}
	[ "$lines" -gt 0 ] && head -n "$lines" "$d/out" >"$d/$out"
	sh -c 'cd "$1" && CONDOR_CKPT_INCREMENTAL=1 CONDOR_RESTORE=$2 exec "$3" >>"$4" 2>"$4.err"' \
	    sh "$d" "$mode" "$ck" "$d/$out" 2>/dev/null
	RC=$?
}

for mode in eager lazy; do
	want "incr-restart-$mode" || continue
	rm -f "$T" "$T".delta*
	resume "$mode" "out.$mode" "$M"
	if [ "$mrc" -ne 0 ]; then
		fail "incr-restart-$mode" "nothing merged"
	elif [ "$RC" -ne 0 ]; then
		fail "incr-restart-$mode" "exit status $RC: $(grep -v '^restore' "$d/out.$mode.err" | head -c 300)"
	elif ! cmp -s "$d/out.native" "$d/out.$mode"; then
		fail "incr-restart-$mode" "output differs: $(diff "$d/out.native" "$d/out.$mode" | grep '^[<>]' | head -2 | tr '\n' '|')"
	else
		pass "incr-restart-$mode"
	fi
done

# The last resumed run checkpointed rounds 4 and 5: a full image (its
# tracking began there), then a delta of it.
if want incr-after-restart; then
	if [ "$mrc" -ne 0 ]; then
		fail incr-after-restart "nothing merged"
	elif [ ! -f "$T" ] || [ ! -f "$T.delta1" ] || [ -e "$T.delta2" ]; then
		fail incr-after-restart "after the restart: $(cd "$d" && ls incr.ckpt* 2>&1 | tr '\n' ' ')"
	elif ! "$condor_ckpt" merge "$T" "$T.delta1" -o "$d/m2.ckpt" 2>"$d/m2.err"; then
		fail incr-after-restart "$(cat "$d/m2.err")"
	else
		pass incr-after-restart
	fi
fi

# A fresh chain for the rest.
rm -f "$T" "$T".delta* "$M"
(cd "$d" && CONDOR_CKPT_INCREMENTAL=1 exec ./incr "$MIB" 6 3 >out 2>err)

if want incr-unfolded; then
	sh -c 'cd "$1" && exec ./incr.ckpt >out.unfolded 2>err.unfolded' sh "$d" 2>/dev/null
	rc=$?
	if [ "$rc" -ne 1 ]; then
		fail incr-unfolded "exit status $rc, not 1"
	elif [ -s "$d/out.unfolded" ]; then
		fail incr-unfolded "the program ran: $(head -c 200 "$d/out.unfolded")"
	elif ! grep -q 'condor_ckpt merge.*incr.ckpt.delta1' "$d/err.unfolded"; then
		fail incr-unfolded "message: $(head -c 300 "$d/err.unfolded")"
	else
		pass incr-unfolded
	fi
fi

if want incr-corrupt; then
	cp "$T.delta2" "$d/bad.delta2"
	# A byte of the saved memory, after the header page.
	printf '\377' | dd of="$d/bad.delta2" bs=1 seek=$((4096 + 4000)) \
	    conv=notrunc 2>/dev/null
	echo previous >"$M"
	"$condor_ckpt" merge "$T" "$T.delta1" "$d/bad.delta2" "$T.delta3" \
	    -o "$M" >/dev/null 2>"$d/bad.err"
	rc=$?
	if [ "$rc" -ne 1 ]; then
		fail incr-corrupt "exit status $rc, not 1"
	elif ! grep -q 'bad.delta2: checksum mismatch in memory at 0x' "$d/bad.err"; then
		fail incr-corrupt "message: $(head -c 300 "$d/bad.err")"
	elif "$condor_ckpt" info "$d/bad.delta2" >/dev/null 2>&1; then
		fail incr-corrupt "condor_ckpt info finds the bad delta good"
	elif ! "$condor_ckpt" info "$T.delta2" >"$d/info.delta" 2>&1 ||
	    ! grep -q '^checksums .* verified' "$d/info.delta"; then
		fail incr-corrupt "condor_ckpt info of the good delta: $(tail -1 "$d/info.delta")"
	elif [ "$(cat "$M")" != previous ]; then
		fail incr-corrupt "OUT was replaced"
	elif ls "$d"/merged.ckpt.tmp.* >/dev/null 2>&1; then
		fail incr-corrupt "a temporary file was left"
	else
		pass "incr-corrupt ($(head -c 120 "$d/bad.err"))"
	fi
fi

if want incr-corrupt-fallback; then
	if ! "$condor_ckpt" merge "$T" "$T.delta1" -o "$d/m1.ckpt" 2>"$d/m1.err"; then
		fail incr-corrupt-fallback "$(cat "$d/m1.err")"
	else
		# Resumed after round 1, it stops again after round 3's
		# checkpoint (a full image and a delta now): fold, resume.
		rm -f "$T" "$T".delta*
		resume eager out.m1 "$d/m1.ckpt" 2
		if [ "$RC" -eq 3 ] && "$condor_ckpt" merge "$T" "$T.delta1" \
		    -o "$d/m1b.ckpt" 2>"$d/m1b.err"; then
			resume eager out.m1 "$d/m1b.ckpt" 0
		fi
		if [ "$RC" -ne 0 ]; then
			fail incr-corrupt-fallback "exit status $RC: $(grep -v '^restore' "$d/out.m1.err" | head -c 300)"
		elif ! cmp -s "$d/out.native" "$d/out.m1"; then
			fail incr-corrupt-fallback "output differs: $(diff "$d/out.native" "$d/out.m1" | grep '^[<>]' | head -2 | tr '\n' '|')"
		else
			pass incr-corrupt-fallback
		fi
	fi
fi

if want incr-misordered; then
	rm -f "$T" "$T".delta*
	(cd "$d" && CONDOR_CKPT_INCREMENTAL=1 exec ./incr 16 4 3 >/dev/null 2>&1)
	"$condor_ckpt" merge "$T" "$T.delta2" -o "$d/mo.ckpt" 2>"$d/mo.err"
	rc=$?
	if [ "$rc" -ne 1 ]; then
		fail incr-misordered "exit status $rc, not 1"
	elif ! grep -q 'delta2: delta 2 applies to image [0-9a-f]*, not to' "$d/mo.err"; then
		fail incr-misordered "message: $(head -c 300 "$d/mo.err")"
	elif [ -e "$d/mo.ckpt" ]; then
		fail incr-misordered "OUT was written"
	else
		pass incr-misordered
	fi
fi

if want incr-chain-limit; then
	rm -f "$T" "$T".delta*
	# 8 checkpoints, at most 2 deltas: full, 2 deltas, full, 2 deltas,
	# full, a delta.
	(cd "$d" && CONDOR_CKPT_INCREMENTAL=1 CONDOR_CKPT_MAX_DELTAS=2 \
	    exec ./incr 16 8 -1 >out.limit 2>err.limit)
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail incr-chain-limit "exit status $rc: $(head -c 300 "$d/err.limit")"
	elif [ ! -f "$T.delta1" ] || [ -e "$T.delta2" ] || [ -e "$T.delta3" ]; then
		fail incr-chain-limit "files: $(cd "$d" && ls incr.ckpt* | tr '\n' ' ')"
	elif ! "$condor_ckpt" merge "$T" "$T.delta1" -o "$d/ml.ckpt" 2>"$d/ml.err"; then
		fail incr-chain-limit "$(cat "$d/ml.err")"
	else
		pass incr-chain-limit
	fi
fi

if want incr-off; then
	rm -f "$T" "$T".delta*
	(cd "$d" && exec ./incr 16 4 -1 >/dev/null 2>"$d/err.off")
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail incr-off "exit status $rc: $(head -c 300 "$d/err.off")"
	elif [ ! -f "$T" ] || ls "$T".delta* >/dev/null 2>&1; then
		fail incr-off "files: $(cd "$d" && ls incr.ckpt* | tr '\n' ' ')"
	else
		pass incr-off
	fi
fi
exit 0
