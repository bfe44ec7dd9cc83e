#!/usr/bin/env bash
# checks: 31
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
# Each of those runs twice: with every page read back before the program
# runs (CONDOR_RESTORE=eager), and with the memory brought back on demand
# by the restore's helper through userfaultfd (CONDOR_RESTORE=lazy; the
# names end in -lazy; memsem-fork-lazy forks while pages are still
# coming).  Then, for the lazy restore only (tests/ckpt/lazyhold.c):
#
#   lazy-notes           the restore says which way it went and why
#                        (CONDOR_CKPT_NOTIFY_FD: what the StarterLog
#                        shows), and when all memory is back
#   lazy-helper-gone     no helper is left once the memory is back, nor
#                        when the program is killed while it is loading
#   lazy-unprivileged    a user userfaultfd is refused to restores
#                        eagerly and says why
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
    fork generations maps corrupt; do
	want "memsem-$t" || want "memsem-$t-lazy" || continue
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
	[fork]="a child forked at once sees the memory, neither sees the other's changes"
)
lazy_ok=1
if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/vm/unprivileged_userfaultfd 2>/dev/null)" != 1 ]; then
	lazy_ok=0
fi
for sfx in "" -lazy; do
	if [ "$sfx" = -lazy ]; then
		export CONDOR_RESTORE=lazy
		if [ "$lazy_ok" = 0 ]; then
			for t in realloc mremap madvise munmap mprotect brk fixed \
			    calloc protnone fork generations maps corrupt; do
				skip "memsem-$t-lazy" "userfaultfd is not available to this user"
			done
			skip lua-primes-tstp-lazy "userfaultfd is not available to this user"
			continue
		fi
	else
		export CONDOR_RESTORE=eager
	fi
	for t in realloc mremap madvise munmap mprotect brk fixed calloc protnone fork; do
		want "memsem-$t$sfx" || continue
		[ "$memsem_ok" = 1 ] || continue
		d=$work/memsem-$t$sfx
		mkdir -p "$d/n"
		(cd "$d/n" && "$work/bin/memsem.native" "$t" >out 2>err)
		self_cycles memsem "$d/r" "$t"
		compare "memsem-$t$sfx" "$d/r" "$d/n/out" "${what[$t]}"
	done

	if want memsem-generations$sfx && [ "$memsem_ok" = 1 ]; then
		d=$work/memsem-all$sfx
		mkdir -p "$d/n"
		(cd "$d/n" && "$work/bin/memsem.native" all >out 2>err)
		self_cycles memsem "$d/r" all
		if [ "$RC" -eq 0 ] && [ "$GENS" -ne 12 ]; then
			fail memsem-generations$sfx "$GENS restarts instead of 12"
		else
			compare memsem-generations$sfx "$d/r" "$d/n/out" \
			    "every test in one program, each restart resuming a restarted program"
		fi
	fi

	# Normalized maps: one line per run of pages of one kind and protection
	# (the kernel may merge or split lines), the program's own file called
	# EXE whatever its name.  Then: the file mappings of the checkpoint go
	# no further than the original program's bytes (the executable part).
	if want memsem-maps$sfx && [ "$memsem_ok" = 1 ]; then
		d=$work/memsem-maps$sfx
		mkdir -p "$d/n"
		(cd "$d/n" && "$work/bin/memsem.native" maps >out 2>err)
		self_cycles memsem "$d" maps
		if [ "$RC" -ne 0 ] || [ ! -s "$d/maps.pre" ] || [ ! -s "$d/maps.post" ]; then
			fail memsem-maps$sfx "exit status $RC after $GENS restarts: $(head -c 300 "$d/err")"
		elif ! cmp -s "$d/n/out" "$d/out"; then
			fail memsem-maps$sfx "output differs from the native run: $(diff "$d/n/out" "$d/out" | grep '^[<>]' | head -2 | tr -s ' ' | tr '\n' '|')"
		else
			why=$(python3 - "$d/maps.pre" "$d/maps.post" "$d/memsem" <<-'EOF'
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
				fail memsem-maps$sfx "$why"
			else
				pass "memsem-maps$sfx (/proc/self/maps after the restart: the same $(wc -l <"$d/maps.post") regions, anonymous, shared, memfd and heap as before, no mapping of the saved memory)"
			fi
		fi
	fi

	if want memsem-corrupt$sfx && [ "$memsem_ok" = 1 ]; then
		d=$work/memsem-corrupt$sfx
		mkdir -p "$d"
		cp "$work/bin/memsem" "$d/"
		(cd "$d" && exec ./memsem realloc >out 2>err)
		RC=$?
		read -r off size < <(readelf -SW "$d/memsem.ckpt" 2>/dev/null |
		    sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".condor_data" { print $4, $5 }')
		if [ "$RC" -ne 85 ] || [ -z "${off:-}" ]; then
			fail memsem-corrupt "no checkpoint to damage (exit $RC)"
		else
			# Eager: a byte near the end (the stack's pages, read
			# first).  Lazy: one of a mapping's, 64 KiB before the
			# stack's (saved last): memory restored on demand.
			at=$((16#$off + 16#$size - 4096 * 3 + 123))
			if [ "$sfx" = -lazy ]; then
				stack_kib=$("$condor_ckpt" info "$d/memsem.ckpt" |
				    awk '$3 == "stack" { print $6 }')
				at=$((16#$off + 16#$size - ${stack_kib:-0} * 1024 - 65536 + 123))
			fi
			orig=$(od -An -tu1 -j "$at" -N1 "$d/memsem.ckpt" | tr -d ' ')
			printf "$(printf '\\%03o' $(((orig ^ 0x5a) & 255)))" |
			    dd of="$d/memsem.ckpt" bs=1 seek="$at" conv=notrunc status=none
			lines=$(wc -l <"$d/out")
			# (The exit status through a file: the shell that waits
			# for a killed process says so on its stderr.)
			(sh -c 'cd "$1" && exec ./memsem.ckpt >>out 2>err2' sh "$d"
			    echo $? >"$d/rc") 2>/dev/null
			RC=$(cat "$d/rc")
			# Eager: refused before the program runs (exit 1, no output).
			# Lazy: the program may run until it touches the bad extent,
			# then is killed with the message; what it printed before is
			# what the native run printed (it never ran on the bad data).
			if [ "$sfx" = "" ] && [ "$RC" -eq 1 ] && grep -q 'checksum mismatch in memory' "$d/err2" &&
			    [ "$(wc -l <"$d/out")" -eq "$lines" ]; then
				pass "memsem-corrupt (a flipped byte in the saved memory: $(head -c 100 "$d/err2" | tr -d '\n'))"
			elif [ "$sfx" = -lazy ] && [ "$RC" -eq 137 ] &&
			    grep -q 'checksum mismatch in memory.*restored on demand' "$d/err2" &&
			    (cd "$d" && "$work/bin/memsem.native" realloc >native 2>&1) &&
		    cmp -s <(head -n "$(wc -l <"$d/out")" "$d/native") "$d/out"; then
				pass "memsem-corrupt-lazy (a flipped byte in memory restored on demand: killed with \"$(head -c 90 "$d/err2" | tr -d '\n')\", $(($(wc -l <"$d/out") - lines)) lines printed first, all as native)"
			else
				fail memsem-corrupt$sfx "exit $RC, $(($(wc -l <"$d/out") - lines)) lines of output; $(head -c 200 "$d/err2")"
			fi
		fi
	fi

	# ------------------------------------------------------------------ #

	if want lua-primes-tstp$sfx; then
		if [ ! -f /usr/include/lua5.4/lua.h ]; then
			skip lua-primes-tstp$sfx "liblua5.4-dev is not installed"
		elif [ -x "$work/bin/lua_primes" ] || build_both lua_primes lua_primes.c "$src/lua_run.c" -I/usr/include/lua5.4 -llua5.4 -lm; then
			seed=${CKPT_SEED:-$(( $(date +%s%N) % 32768 ))}
			RANDOM=$seed
			d=$work/lua-primes$sfx
			mkdir -p "$d/n" "$d/r"
			t0=$(date +%s%N)
			(cd "$d/n" && "$work/bin/lua_primes.native" >out 2>err)
			# The native run's length in ms, and how much primes.txt
			# holds at its end.  Checkpoint K is taken once the file
			# holds K sixths of it (the program's own progress, not
			# the clock's: a loaded machine or a lazy restore that
			# runs it slower still sees four), a random 0 to 3% of
			# the run later.
			ms=$(( ($(date +%s%N) - t0) / 1000000 ))
			total=$(wc -c <"$d/n/primes.txt")
			cp "$work/bin/lua_primes" "$d/r/"
			(cd "$d/r" && exec ./lua_primes >out 2>err) &
			pid=$!
			started+=("$pid")
			GENS=0
			while :; do
				ready "$pid"
				if [ "$GENS" -lt 4 ]; then
					want=$(( total * (GENS + 1) / 6 ))
					while kill -0 "$pid" 2>/dev/null &&
					    [ "$(wc -c <"$d/r/primes.txt" 2>/dev/null || echo 0)" -lt "$want" ]; do
						sleep 0.01
					done
					p=$(( ms * (RANDOM % 4) / 100 ))
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
				fail lua-primes-tstp$sfx "seed $seed: exit status $RC after $GENS restarts$([ "$RC" -gt 128 ] && echo " (signal $((RC - 128)))"); $(head -c 200 "$d/r/err")"
			elif [ "$GENS" -ne 4 ]; then
				fail lua-primes-tstp$sfx "seed $seed: the program finished after $GENS checkpoints, not 4"
			elif [ -s "$d/r/err" ] || ! cmp -s "$d/n/out" "$d/r/out"; then
				fail lua-primes-tstp$sfx "seed $seed: output differs from the native run: $(diff "$d/n/out" "$d/r/out" | head -2 | tr '\n' '|') $(head -c 200 "$d/r/err")"
			elif ! cmp -s "$d/n/primes.txt" "$d/r/primes.txt"; then
				fail lua-primes-tstp$sfx "seed $seed: primes.txt differs from the native run's"
			else
				pass "lua-primes-tstp$sfx (250,000 primes in a growing table and primes.txt, 4 SIGTSTP checkpoints at random moments, seed $seed: as native)"
			fi
		fi
	fi
done
unset CONDOR_RESTORE

# ------------------------------------------------------------------ #
# The lazy restore's own promises.

# The helper's processes: those named condor_restore whose environment
# carries LAZY_MARK=MARK.
helpers() {
	local f p
	for f in /proc/[0-9]*/comm; do
		[ "$(cat "$f" 2>/dev/null)" = condor_restore ] || continue
		p=${f%/comm}
		{ tr '\0' '\n' <"$p/environ"; } 2>/dev/null |
		    grep -qx "LAZY_MARK=$1" && echo "${p#/proc/}"
	done
}

if want lazy-notes || want lazy-helper-gone || want lazy-unprivileged; then
	mkdir -p "$work/bin"
	if ! "$condor_cc" -O2 -o "$work/bin/lazyhold" "$src/lazyhold.c" \
	    >"$work/bin/lazyhold.log" 2>&1; then
		fail build-lazyhold "condor_cc failed: $(grep -m1 error "$work/bin/lazyhold.log")"
	fi
	d=$work/lazy
	mkdir -p "$d"
	cp "$work/bin/lazyhold" "$d/"
	(cd "$d" && ./lazyhold 64 >/dev/null 2>&1)
	[ -f "$d/lazyhold.ckpt" ] || fail lazy "lazyhold made no checkpoint"
fi

if want lazy-notes && [ -f "$d/lazyhold.ckpt" ]; then
	if [ "$lazy_ok" = 0 ]; then
		skip lazy-notes "userfaultfd is not available to this user"
	else
		# By default (64 MiB of heap): on demand; then eager on request.
		(cd "$d" && CONDOR_CKPT_NOTIFY_FD=3 exec ./lazyhold.ckpt >out.auto 2>err.auto 3>notes.auto)
		rc1=$?
		(cd "$d" && CONDOR_RESTORE=eager CONDOR_CKPT_NOTIFY_FD=3 exec ./lazyhold.ckpt >out.eager 2>err.eager 3>notes.eager)
		rc2=$?
		if [ "$rc1" -ne 0 ] || [ "$rc2" -ne 0 ] ||
		    ! grep -q '^0 wrong bytes of 67108864$' "$d/out.auto" ||
		    ! grep -q '^0 wrong bytes of 67108864$' "$d/out.eager"; then
			fail lazy-notes "exit $rc1 and $rc2: $(cat "$d/out.auto" "$d/err.auto" "$d/out.eager" "$d/err.eager" | head -c 300)"
		elif [ "$(cat "$d/lazyhold.dat")" != data ] ||
		    ! grep -q '^lazyhold.dat on 3: data$' "$d/out.auto"; then
			fail lazy-notes "the program's own descriptor 3 (also CONDOR_CKPT_NOTIFY_FD's number): $(head -c 100 "$d/lazyhold.dat" | tr '\n' '|')"
		elif ! grep -q '^restore lazy (userfaultfd): [0-9]* bytes on demand; running again after [0-9.]* s$' "$d/notes.auto" ||
		    ! grep -q '^restore done: [0-9]* bytes back in [0-9.]* s$' "$d/notes.auto"; then
			fail lazy-notes "the default restore said: $(tr '\n' '|' <"$d/notes.auto")"
		elif ! grep -q '^restore eager (CONDOR_RESTORE=eager): all memory back after [0-9.]* s$' "$d/notes.eager"; then
			fail lazy-notes "the eager restore said: $(tr '\n' '|' <"$d/notes.eager")"
		elif ! "$condor_ckpt" info "$d/lazyhold.ckpt" | grep -q '^restore  *run here: [0-9]* KiB of heap and anonymous memory on demand (userfaultfd)'; then
			fail lazy-notes "condor_ckpt info says: $("$condor_ckpt" info "$d/lazyhold.ckpt" 2>&1 | grep -m1 '^restore')"
		else
			pass "lazy-notes (64 MiB: $(head -1 "$d/notes.auto" | cut -d: -f1), then $(sed -n 2p "$d/notes.auto"); on request: $(head -1 "$d/notes.eager" | cut -d: -f1))"
		fi
	fi
fi

if want lazy-helper-gone && [ -f "$d/lazyhold.ckpt" ]; then
	if [ "$lazy_ok" = 0 ] || [ ! -r /proc/self/environ ]; then
		skip lazy-helper-gone "userfaultfd is not available to this user"
	else
		mark=$$-$RANDOM-done
		(cd "$d" && LAZY_MARK=$mark exec ./lazyhold.ckpt >out.gone 2>err.gone)
		rc=$?
		left=$(helpers "$mark")
		# Killed while its memory is still coming back: the program
		# (256 MiB) stops its own process group, the helper with it,
		# as soon as it runs again; it is killed, the helper let go:
		# its next copy finds the process gone, and it ends.
		rm -f "$d/lazyhold.ckpt"
		(cd "$d" && ./lazyhold 256 stop >/dev/null 2>&1)
		mark2=$$-$RANDOM-killed
		(cd "$d" && LAZY_MARK=$mark2 exec setsid ./lazyhold.ckpt >out.kill 2>err.kill) &
		pid=$!
		started+=("$pid")
		for ((i = 0; i < 500; i++)); do
			[ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" = T ] && break
			sleep 0.02
		done
		during=$(helpers "$mark2")
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		[ -n "$during" ] && kill -CONT $during 2>/dev/null
		for ((i = 0; i < 100; i++)); do
			after=$(helpers "$mark2")
			[ -z "$after" ] && break
			sleep 0.1
		done
		if [ "$rc" -ne 0 ] || [ -n "$left" ]; then
			fail lazy-helper-gone "exit $rc; helper still there after the program ended: ${left:-none}"
		elif [ -n "$after" ]; then
			fail lazy-helper-gone "helper $after still there 10 s after its program was killed"
			kill -KILL $after 2>/dev/null
		else
			pass "lazy-helper-gone (none left after the program ended; $( [ -n "$during" ] && echo "helper $during was loading when its program was killed, and went" || echo "the memory was all back before the kill"))"
		fi
	fi
fi

if want lazy-unprivileged && [ -f "$d/lazyhold" ]; then
	if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
		skip lazy-unprivileged "needs root to run as nobody"
	else
		u=$work/lazy-nobody
		mkdir -p "$u"
		cp "$d/lazyhold" "$u/"
		chown -R nobody "$u"
		chmod 755 "$work"
		(cd "$u" && setpriv --reuid=nobody --regid=nogroup --clear-groups ./lazyhold 16 >/dev/null 2>&1)
		(cd "$u" && CONDOR_CKPT_NOTIFY_FD=3 setpriv --reuid=nobody --regid=nogroup --clear-groups ./lazyhold.ckpt >out 2>err 3>notes)
		rc=$?
		if [ "$(cat /proc/sys/vm/unprivileged_userfaultfd 2>/dev/null)" = 1 ]; then
			want_why='userfaultfd cannot follow a fork here'
		else
			want_why='userfaultfd is not permitted'
		fi
		if [ "$rc" -ne 0 ] || ! grep -q '^0 wrong bytes' "$u/out"; then
			fail lazy-unprivileged "exit $rc: $(cat "$u/out" "$u/err" | head -c 300)"
		elif ! grep -q "^restore eager ($want_why" "$u/notes"; then
			fail lazy-unprivileged "it said: $(tr '\n' '|' <"$u/notes")"
		elif ! setpriv --reuid=nobody --regid=nogroup --clear-groups "$condor_ckpt" info "$u/lazyhold.ckpt" |
		    grep -q "^restore  *run here: all memory first ($want_why"; then
			fail lazy-unprivileged "condor_ckpt info as nobody says: $(setpriv --reuid=nobody --regid=nogroup --clear-groups "$condor_ckpt" info "$u/lazyhold.ckpt" 2>&1 | grep -m1 '^restore')"
		else
			pass "lazy-unprivileged (as nobody: $(head -c 120 "$u/notes"))"
		fi
	fi
fi

exit 0
