#!/usr/bin/env bash
# tests/pool/remote_stream_test.sh: the streamed path of remote I/O.  A
# standard-universe job's read or write larger than one piece (at most
# REMOTE_IO_CHUNK and 256 KiB) goes to its shadow as pieces in flight
# (src/libremote/remote_client.c, r_stream),
# each chained to the one before (include/syscall_proto.h); what the
# program sees must be what it sees natively.  tests/programs/
# remote_stream.c runs natively (cc -static) and relinked with condor_cc
# on copies of the same files, and prints only what its calls returned:
#
#  - a 32 MiB file read sequentially in reads, preads and readvs of
#    sizes that cut pieces unevenly (counts, checksums, and bytes that
#    differ from the pattern the file was written with);
#  - writes, seeks, a truncation and reads interleaved on two
#    descriptors of one file, each read seeing the data just written;
#  - reads into a buffer whose middle page is unmapped: the call stops
#    at the fault, as the kernel's does, and the offset after the bytes
#    that arrived, though pieces after it had been read at the shadow;
#  - a job's writes capped (MAX_JOB_WRITE_MB = 12) cut short inside a
#    piece in flight: the short count at that call, EDQUOT at the next;
#  - a file truncated by another process while the job reads it over
#    and over in large reads: never a byte that is not the file's, and
#    the pass after the truncation ends at the new size.
#
# REMOTE_IO_CHUNK is 64 KiB (the default) on exec1 and 1 MiB on exec2;
# every job runs on each.
#
# checks: 30
set -u
. "$(dirname "$0")/../lib/pool.sh"
. "$(dirname "$0")/../lib/standard_pool.sh"

standard_pool 2 'MAX_JOB_WRITE_MB = 12'
# Each starter reads its configuration when it starts.
echo 'REMOTE_IO_CHUNK = 1048576' >>"$POOL/exec2/condor_config.local"
cd "$W" || exit 1
P="$TOP/tests/programs"
check "remote_stream builds natively" \
	cc -O2 -static -o "$W/remote_stream.native" "$P/remote_stream.c"
check "remote_stream relinks with condor_cc" \
	condor_cc -O2 -o "$W/remote_stream" "$P/remote_stream.c"
"$W/remote_stream.native" make "$W/big.bin" 32
head -c $((12 * 1024 * 1024)) "$W/big.bin" >"$W/p12.ref"
pool_owner "$W"

submit() {
	(cd "$W" && as_owner "$RELEASE/bin/condor_submit" "$1" 2>&1) |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
in_history() { test -n "$(on cm condor_history "$1" -af ProcId 2>/dev/null)"; }

# job NAME HOST ARGS...: a job running remote_stream ARGS on HOST in
# $W/NAME; its cluster on standard output.
job() {
	local name=$1 host=$2
	shift 2
	cat >"$W/$name.sub" <<EOF2
universe     = standard
executable   = remote_stream
arguments    = $*
initialdir   = $W/$name
output       = out.txt
error        = err.txt
requirements = Name == "$host"
queue
EOF2
	chmod 644 "$W/$name.sub"
	submit "$name.sub"
}

# A directory with a copy of FILE, for the owner.
dir() {
	mkdir -p "$W/$1"
	[ -n "${2:-}" ] && cp "$W/$2" "$W/$1/"
	[ "$OWNER" = nobody ] && chown -R nobody "$W/$1"
	return 0
}

# Native runs, one directory each.
for mode in seq mixed fault; do
	dir "native_$mode" big.bin
	(cd "$W/native_$mode" &&
	    as_owner "$W/remote_stream.native" "$mode" big.bin >out.txt 2>&1)
done

# The same under Condor, on each host.
for host in exec1 exec2; do
	for mode in seq mixed fault; do
		dir "${mode}_$host" big.bin
		C=$(job "${mode}_$host" "$host" "$mode" big.bin)
		check "$mode on $host completes" wait_for 120 in_history "$C.0"
		check "$mode on $host prints what the native run does" \
			cmp "$W/native_$mode/out.txt" "$W/${mode}_$host/out.txt"
	done
	check "the file written on $host as natively" \
		cmp "$W/native_mixed/big.bin" "$W/mixed_$host/big.bin"
done
check "the native sequential reads saw the file's bytes" \
	test "$(grep -c 'differing 0$' "$W/native_seq/out.txt")" = 3

# A job's writes capped at 12 MiB: the second write cut short inside a
# piece, the third refused.
dir quota
C=$(job quota exec1 quota out.bin)
check "quota completes" wait_for 120 in_history "$C.0"
code=$(on cm condor_history "$C.0" -af ExitCode 2>/dev/null)
check "the first write, under the cap, is whole ($code)" \
	test -n "$code" -a $((${code:-1} & 1)) = 0
check "the write that reaches the cap returns what was written" \
	test -n "$code" -a $((${code:-2} & 2)) = 0
check "the write after it fails with EDQUOT" \
	test -n "$code" -a $((${code:-4} & 12)) = 0
check "the file holds the 12 MiB written and nothing else" \
	cmp "$W/p12.ref" "$W/quota/out.bin"

# Truncated by another process while the job streams it: 32 MiB, then
# 5 MiB.
for host in exec1 exec2; do
	dir "trunc_$host" big.bin
	C=$(job "trunc_$host" "$host" trunc big.bin 5)
	if wait_for 120 test -e "$W/trunc_$host/reading"; then
		truncate -s $((5 * 1024 * 1024)) "$W/trunc_$host/big.bin"
		as_owner touch "$W/trunc_$host/truncated" ||
			touch "$W/trunc_$host/truncated"
	fi
	check "trunc on $host completes" wait_for 120 in_history "$C.0"
	check "trunc on $host: never a byte that is not the file's" \
		grep -qx 'differing 0' "$W/trunc_$host/out.txt"
	check "trunc on $host: the pass after the truncation ends at 5 MiB" \
		grep -qx 'last pass the new size' "$W/trunc_$host/out.txt"
done
