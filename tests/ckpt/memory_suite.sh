#!/usr/bin/env bash
# checks: 13
# tests/ckpt/memory_suite.sh: restored memory must be the program's
# memory.  Each program is built natively (cc -static) and relinked
# (condor_cc); the relinked one checkpoints in the middle (ckpt_and_exit,
# or SIGTSTP for Lua) and its checkpoint is run to resume it; the output
# must be the native run's, byte for byte.
#
#   memsem-TEST          realloc, mremap, madvise, munmap, mprotect, brk,
#                        MAP_FIXED, calloc, PROT_NONE made writable, on
#                        memory a restart gave back (tests/ckpt/memsem.c)
#   memsem-generations   all of them in one program, a checkpoint and a
#                        restart before each, then everything checked
#                        again across two more (11 generations)
#   memsem-maps          /proc/self/maps after the restart shows the
#                        regions of before, of the same kinds (a memfd's
#                        memory a memfd's), and no mapping of the
#                        checkpoint's saved memory
#   memsem-corrupt       a byte flipped in the saved memory: the restart
#                        stops with a message, the program never runs
#   lua-primes-tstp      a Lua interpreter building a table of 250,000
#                        primes, written to a file, stopped with SIGTSTP
#                        four times at random moments (seeded; the seed
#                        is printed on failure, CKPT_SEED=N repeats it)
#
#   tests/ckpt/memory_suite.sh [NAME...]
#
# Prints "PASS name", "FAIL name: why" or "SKIP name: why" per check.
set -u
work=$(mktemp -d /tmp/ckpt-memory.XXXXXX)
selected=("$@")
CKPT_WAIT_SECONDS=120
. "$(dirname "$0")/lib.sh"

# self_cycles NAME DIR ARGS...: run the relinked program in DIR and its
# checkpoint after every exit 85, until it finishes (at most 30
# times).  Sets RC and GENS; output in DIR/out, stderr in DIR/err.
self_cycles() {
	local name=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	cp "$work/bin/$name" "$dir/"
	(cd "$dir" && rm -f "$name.ckpt" && exec "./$name" "$@" >out 2>err)
	RC=$?
	GENS=0
	while [ "$RC" -eq 85 ] && [ "$GENS" -lt 30 ]; do
		GENS=$((GENS + 1))
		# Through sh, so that a crash's message stays out of the log.
		sh -c 'cd "$1" && exec "./$2.ckpt" >>out 2>>err' sh "$dir" "$name" \
		    2>/dev/null
		RC=$?
	done
}

# compare CHECK DIR NATIVE_OUT WHAT
compare() {
	local check=$1 dir=$2 native=$3 what=$4
	if [ "$RC" -ne 0 ]; then
		fail "$check" "exit status $RC after $GENS restarts$([ "$RC" -gt 128 ] && echo " (signal $((RC - 128)))"); $(head -c 300 "$dir/err")"
	elif [ -s "$dir/err" ]; then
		fail "$check" "stderr: $(head -c 300 "$dir/err")"
	elif [ "$GENS" -lt 1 ]; then
		fail "$check" "no checkpoint was taken"
	elif ! cmp -s "$native" "$dir/out"; then
		fail "$check" "output differs from the native run after $GENS restarts: $(diff "$native" "$dir/out" | grep '^[<>]' | head -2 | tr -s ' ' | tr '\n' '|')"
	else
		pass "$check ($what; $GENS restart$([ "$GENS" -ne 1 ] && echo s))"
	fi
}

# ------------------------------------------------------------------ #

memsem_ok=0
for t in realloc mremap madvise munmap mprotect brk fixed calloc protnone \
    generations maps corrupt; do
	want "memsem-$t" || continue
	build_both memsem memsem.c && memsem_ok=1
	break
done

declare -A what=(
	[realloc]="large and small blocks grown and shrunk"
	[mremap]="grown in place, grown with a move, shrunk, MREMAP_FIXED"
	[madvise]="DONTNEED gives zeros or the file's pages, FREE, REMOVE, touched again"
	[munmap]="the middle of a restored region unmapped, reused, grown into"
	[mprotect]="read-only, PROT_NONE, back, executable"
	[brk]="the break grown, shrunk, grown again"
	[fixed]="MAP_FIXED anonymous and file mappings over restored memory"
	[calloc]="large and small blocks zero"
	[protnone]="PROT_NONE at the checkpoint, writable after"
)
for t in realloc mremap madvise munmap mprotect brk fixed calloc protnone; do
	want "memsem-$t" || continue
	[ "$memsem_ok" = 1 ] || continue
	d=$work/memsem-$t
	mkdir -p "$d/n"
	(cd "$d/n" && "$work/bin/memsem.native" "$t" >out 2>err)
	self_cycles memsem "$d/r" "$t"
	compare "memsem-$t" "$d/r" "$d/n/out" "${what[$t]}"
done

if want memsem-generations && [ "$memsem_ok" = 1 ]; then
	d=$work/memsem-all
	mkdir -p "$d/n"
	(cd "$d/n" && "$work/bin/memsem.native" all >out 2>err)
	self_cycles memsem "$d/r" all
	if [ "$RC" -eq 0 ] && [ "$GENS" -ne 11 ]; then
		fail memsem-generations "$GENS restarts instead of 11"
	else
		compare memsem-generations "$d/r" "$d/n/out" \
		    "every test in one program, each restart resuming a restarted program"
	fi
fi

# Normalized maps: one line per run of pages of one kind and protection
# (the kernel may merge or split lines), the program's own file called
# EXE whatever its name.  Then: the file mappings of the checkpoint go
# no further than the original program's bytes (the executable part).
if want memsem-maps && [ "$memsem_ok" = 1 ]; then
	d=$work/memsem-maps
	mkdir -p "$d/n"
	(cd "$d/n" && "$work/bin/memsem.native" maps >out 2>err)
	self_cycles memsem "$d" maps
	if [ "$RC" -ne 0 ] || [ ! -s "$d/maps.pre" ] || [ ! -s "$d/maps.post" ]; then
		fail memsem-maps "exit status $RC after $GENS restarts: $(head -c 300 "$d/err")"
	elif ! cmp -s "$d/n/out" "$d/out"; then
		fail memsem-maps "output differs from the native run: $(diff "$d/n/out" "$d/out" | grep '^[<>]' | head -2 | tr -s ' ' | tr '\n' '|')"
	else
		why=$(python3 - "$d/maps.pre" "$d/maps.post" "$d/memsem" <<'EOF'
import os, sys

exe_len = os.path.getsize(sys.argv[3])

def runs(path):
    out, bad = [], []
    for line in open(path):
        f = line.split(None, 5)
        lo, hi = (int(x, 16) for x in f[0].split('-'))
        perms, off, name = f[1], int(f[2], 16), f[5].strip() if len(f) > 5 else ''
        base = os.path.basename(name)
        if base in ('memsem', 'memsem.ckpt'):
            if base == 'memsem.ckpt' and off + (hi - lo) > exe_len:
                bad.append(line.strip())
            name = 'EXE'
        elif name == '':
            off = None
        elif name.startswith('/dev/zero'):
            name, off = 'shared-anon', None
        if out and out[-1][1] == lo and out[-1][2:4] == [perms, name] and \
                (off is None or out[-1][4] is None or
                 out[-1][4] + (out[-1][1] - out[-1][0]) == off):
            out[-1][1] = hi
        else:
            out.append([lo, hi, perms, name, off])
    return out, bad

pre, _ = runs(sys.argv[1])
post, bad = runs(sys.argv[2])
if bad:
    print('the checkpoint\'s saved memory is still mapped: ' + bad[0])
elif pre != post:
    a = [r for r in pre if r not in post]
    b = [r for r in post if r not in pre]
    fmt = lambda r: '%x-%x %s %s' % (r[0], r[1], r[2], r[3] or 'anon') if r else '-'
    print('before: ' + fmt(a[0] if a else None) + '; after: ' +
          fmt(b[0] if b else None))
EOF
)
		if [ -n "$why" ]; then
			fail memsem-maps "$why"
		else
			pass "memsem-maps (/proc/self/maps after the restart: the same $(wc -l <"$d/maps.post") regions, anonymous, shared, memfd and heap as before, no mapping of the saved memory)"
		fi
	fi
fi

if want memsem-corrupt && [ "$memsem_ok" = 1 ]; then
	d=$work/memsem-corrupt
	mkdir -p "$d"
	cp "$work/bin/memsem" "$d/"
	(cd "$d" && exec ./memsem realloc >out 2>err)
	RC=$?
	read -r off size < <(readelf -SW "$d/memsem.ckpt" 2>/dev/null |
	    sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".condor_data" { print $4, $5 }')
	if [ "$RC" -ne 85 ] || [ -z "${off:-}" ]; then
		fail memsem-corrupt "no checkpoint to damage (exit $RC)"
	else
		# A byte of the heap's or a mapping's saved pages, near the end.
		at=$((16#$off + 16#$size - 4096 * 3 + 123))
		orig=$(od -An -tu1 -j "$at" -N1 "$d/memsem.ckpt" | tr -d ' ')
		printf "$(printf '\\%03o' $(((orig ^ 0x5a) & 255)))" |
		    dd of="$d/memsem.ckpt" bs=1 seek="$at" conv=notrunc status=none
		lines=$(wc -l <"$d/out")
		sh -c 'cd "$1" && exec ./memsem.ckpt >>out 2>err2' sh "$d" 2>/dev/null
		RC=$?
		if [ "$RC" -eq 1 ] && grep -q 'checksum mismatch in memory' "$d/err2" &&
		    [ "$(wc -l <"$d/out")" -eq "$lines" ]; then
			pass "memsem-corrupt (a flipped byte in the saved memory: $(head -c 100 "$d/err2" | tr -d '\n'))"
		else
			fail memsem-corrupt "exit $RC, $(($(wc -l <"$d/out") - lines)) lines of output; $(head -c 200 "$d/err2")"
		fi
	fi
fi

# ------------------------------------------------------------------ #

if want lua-primes; then
	if [ ! -f /usr/include/lua5.4/lua.h ]; then
		skip lua-primes-tstp "liblua5.4-dev is not installed"
	elif build_both lua_primes lua_primes.c "$src/lua_run.c" -I/usr/include/lua5.4 -llua5.4 -lm; then
		seed=${CKPT_SEED:-$(( $(date +%s%N) % 32768 ))}
		RANDOM=$seed
		d=$work/lua-primes
		mkdir -p "$d/n" "$d/r"
		t0=$(date +%s%N)
		(cd "$d/n" && "$work/bin/lua_primes.native" >out 2>err)
		# The native run's length in ms: each pause is 2 to 17% of it,
		# so four fit whatever the machine's speed.
		ms=$(( ($(date +%s%N) - t0) / 1000000 ))
		cp "$work/bin/lua_primes" "$d/r/"
		(cd "$d/r" && exec ./lua_primes >out 2>err) &
		pid=$!
		started+=("$pid")
		GENS=0
		while :; do
			ready "$pid"
			if [ "$GENS" -lt 4 ]; then
				p=$(( ms * (RANDOM % 16 + 2) / 100 ))
				sleep "$((p / 1000)).$(printf '%03d' $((p % 1000)))"
				kill -TSTP "$pid" 2>/dev/null
			fi
			wait_for "$pid"
			RC=$?
			[ "$RC" -eq 85 ] || break
			GENS=$((GENS + 1))
			(cd "$d/r" && exec ./lua_primes.ckpt >>out 2>>err) &
			pid=$!
			started+=("$pid")
		done
		if [ "$RC" -ne 0 ]; then
			fail lua-primes-tstp "seed $seed: exit status $RC after $GENS restarts$([ "$RC" -gt 128 ] && echo " (signal $((RC - 128)))"); $(head -c 200 "$d/r/err")"
		elif [ "$GENS" -ne 4 ]; then
			fail lua-primes-tstp "seed $seed: the program finished after $GENS checkpoints, not 4"
		elif [ -s "$d/r/err" ] || ! cmp -s "$d/n/out" "$d/r/out"; then
			fail lua-primes-tstp "seed $seed: output differs from the native run: $(diff "$d/n/out" "$d/r/out" | head -2 | tr '\n' '|') $(head -c 200 "$d/r/err")"
		elif ! cmp -s "$d/n/primes.txt" "$d/r/primes.txt"; then
			fail lua-primes-tstp "seed $seed: primes.txt differs from the native run's"
		else
			pass "lua-primes-tstp (250,000 primes in a growing table and primes.txt, 4 SIGTSTP checkpoints at random moments, seed $seed: as native)"
		fi
	fi
fi
exit 0
