#!/usr/bin/env bash
# tests/pool/summary_test.sh: condor_summary on a real pool (a central
# manager and two execute hosts).  The collector samples the machines
# every second; vanilla jobs burning about a second of CPU each run as
# two owners (root and nobody when the tests run as root).  Then
# condor_summary's counts and CPU sums per owner agree with
# condor_history's, its utilization shows machines Claimed while the
# jobs ran, -plot writes well-formed SVG, a torn line in the pool
# history is skipped, and bad arguments fail with clear messages.
#
# checks: >=50 (56 as root: a second owner, nobody, adds checks)
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTER_TIMEOUT = 20' 'MAX_JOB_STARTS = 10' \
	'COLLECTOR_HISTORY_INTERVAL = 1'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
pool_host exec2 "MASTER, STARTD"
pool_start

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "two machines advertise" pool_wait_machines 2 60

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
cd "$W" || exit 1
cm() { on cm "$@"; }

OWNER1=$(id -un)
# A second owner (nobody) when the tests run as root.
mkdir -p "$W/two"
pool_owner "$W/two"
OWNER2=
[ "$OWNER" != "$OWNER1" ] && OWNER2=$OWNER

# About a second of CPU in the shell, then a little sleep so that the
# collector sees the machine Claimed.
cat >burn.sh <<'EOF'
#!/bin/sh
i=0
while [ $i -lt 500000 ]; do i=$((i + 1)); done
sleep 1
echo done $i
EOF
chmod 755 burn.sh
cat >burn.sub <<EOF
universe   = vanilla
executable = $W/burn.sh
output     = out.\$(Process)
error      = err.\$(Process)
queue 2
EOF
submit_as() {	# DIR COMMAND-PREFIX...: the cluster number
	local dir=$1
	shift
	(cd "$dir" && "$@" "$RELEASE/bin/condor_submit" "$W/burn.sub" 2>&1) |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }

C1=$(CONDOR_CONFIG="$POOL/cm/condor_config" submit_as "$W" env)
check "jobs of $OWNER1 submitted" test -n "$C1"
C2=
if [ -n "$OWNER2" ]; then
	C2=$(submit_as "$W/two" as_owner)
	check "jobs of $OWNER2 submitted" test -n "$C2"
else
	skip "jobs of a second owner submitted" "not root: one owner only"
fi
for c in $C1 $C2; do
	for p in 0 1; do
		check "job $c.$p finishes" wait_for 90 in_history "$c.$p"
	done
done
sleep 2	# a sample or two after the jobs

# --- the accounting agrees with condor_history -------------------------
cm condor_history -af Owner RemoteUserCpu RemoteSysCpu LocalUserCpu \
    LocalSysCpu >hist.txt 2>&1
cm condor_summary -l >long.txt 2>summary.err
check "condor_summary -l exits 0" test $? -eq 0
cm condor_summary >table.txt 2>>summary.err
check "condor_summary exits 0" test $? -eq 0

# owner_field OWNER NAME: the value of NAME in OWNER's UserSummary ad.
owner_field() {
	awk -v o="\"$1\"" -v n="$2" '
		/^$/ { if (own == o && val != "") print val; own = ""; val = "" }
		$1 == "Owner" { own = $3 }
		$1 == n { val = $3 }
		END { if (own == o && val != "") print val }' long.txt
}
hist_jobs() { awk -v o="$1" '$1 == o { n++ } END { print n + 0 }' hist.txt; }
hist_remote() { awk -v o="$1" '$1 == o { s += $2 + $3 } END { printf "%.3f\n", s }' hist.txt; }
hist_local() { awk -v o="$1" '$1 == o { s += $4 + $5 } END { printf "%.3f\n", s }' hist.txt; }
is_ratio() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; }
close_to() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 0.01) }'; }

for o in $OWNER1 $OWNER2 TOTAL; do
	if [ "$o" = TOTAL ]; then
		want_jobs=$(wc -l <hist.txt)
		want_remote=$(awk '{ s += $2 + $3 } END { printf "%.3f\n", s }' hist.txt)
		want_local=$(awk '{ s += $4 + $5 } END { printf "%.3f\n", s }' hist.txt)
	else
		want_jobs=$(hist_jobs "$o")
		want_remote=$(hist_remote "$o")
		want_local=$(hist_local "$o")
	fi
	check "$o: job count agrees with condor_history ($want_jobs)" \
		test "$(owner_field "$o" Jobs)" = "$want_jobs"
	check "$o: remote CPU agrees with condor_history ($want_remote s)" \
		close_to "$(owner_field "$o" RemoteCpu)" "$want_remote"
	check "$o: local CPU agrees with condor_history ($want_local s)" \
		close_to "$(owner_field "$o" LocalCpu)" "$want_local"
	# -1 (or no WaitRatio at all) would mean no job was served.
	check "$o: jobs ran and waited (wait ratio defined)" \
		is_ratio "$(owner_field "$o" WaitRatio)"
done
# Each job's loop takes a third of a second here; a tenth is plenty to
# tell CPU time from none, on one owner's two jobs or two owners' four.
check "the jobs burnt CPU remotely (> 0.1 s a job)" \
	awk -v r="$(owner_field TOTAL RemoteCpu)" -v n="$(wc -l <hist.txt)" \
	    'BEGIN { exit !(n > 0 && r > 0.1 * n) }'
check "leverage is remote CPU over local CPU" \
	awk -v r="$(owner_field TOTAL RemoteCpu)" -v l="$(owner_field TOTAL LocalCpu)" \
	    -v v="$(owner_field TOTAL Leverage)" \
	    'BEGIN { if (l == 0) exit !(v == -1); d = v - r / l; if (d < 0) d = -d; exit !(d < 0.01 * (v + 1)) }'
check "the table has a line per owner and a total" \
	bash -c "grep -q '^$OWNER1 ' table.txt && grep -q '^TOTAL ' table.txt${OWNER2:+ && grep -q '^$OWNER2 ' table.txt}"
check "the table's job column agrees" \
	test "$(awk '$1 == "TOTAL" { print $2 }' table.txt)" = "$(wc -l <hist.txt)"
check "condor_summary OWNER shows that owner alone" \
	bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_summary $OWNER1 | awk '\$1 == \"TOTAL\" { print \$2 }' | grep -qx $(hist_jobs "$OWNER1")"
nclusters=$(echo $C1 $C2 | wc -w)
check "-hours and -constraint select the jobs" \
	bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_summary -hours 1 -constraint 'ProcId == 0' | awk '\$1 == \"TOTAL\" { print \$2 }' | grep -qx $nclusters"
check "a constraint matching no job: No finished jobs" \
	bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_summary -constraint 'CompletionDate < time() - 7200' | grep -q '^No finished jobs'"

# --- utilization --------------------------------------------------------
check "the collector wrote its pool history" test -s "$POOL/cm/spool/pool_history"
check "the pool history saw both machines Claimed at once" \
	awk '$3 == 2 && $6 == 2 { f = 1 } END { exit !f }' "$POOL/cm/spool/pool_history"
check "the samples name the submitter of claimed machines" \
	grep -q " $OWNER1@[^ ]*=[12]\| $OWNER1=[12]" "$POOL/cm/spool/pool_history"
check "the utilization table is shown" grep -q '^Pool utilization: [0-9]* samples' table.txt
check "some bucket had machines Claimed" \
	awk '$1 == "ClaimedMachines" && $3 + 0 > 0 { f = 1 } END { exit !f }' long.txt
check "some bucket had Condor using the pool" \
	awk '$1 == "CondorUtilization" && $3 + 0 > 0 { f = 1 } END { exit !f }' long.txt
check "the table shows a bucket with Condor at work" \
	awk '/^TIME/ { t = 1; next } t && $10 ~ /%$/ && $10 + 0 > 0 { f = 1 } END { exit !f }' table.txt
check "buckets are few" test "$(grep -c '^[0-9][0-9]/[0-9][0-9] ' table.txt)" -le 24

# A torn last line (a crash mid-write) and garbage are skipped.
printf '1 12345 garbage\nnot a record\n1 %s 2 0 2' "$(date +%s)" >>"$POOL/cm/spool/pool_history"
check "condor_summary still reads the history with a torn line" \
	bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_summary >torn.txt 2>&1 && grep -q '^Pool utilization: [0-9]* samples' torn.txt"
sleep 2
check "the collector appends whole lines after the torn one" \
	bash -c "tail -n 1 '$POOL/cm/spool/pool_history' | grep -q '^1 [0-9]* 2 '"

# --- hostile queries -------------------------------------------------------
# Well-formed COLLECTOR_HISTORY calls with absurd windows and counts get
# bounded answers or errors; garbage to every procedure leaves the
# collector serving.
cat >histq.py <<'EOF'
import socket, struct, sys
port = int(sys.argv[1])
def call(args):
    hdr = struct.pack(">IIIIIIIIII", 7, 0, 2, 0x2c0d0001, 1, 5, 0, 0, 0, 0)
    body = hdr + args
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(struct.pack(">I", len(body) | 0x80000000) + body)
    data = b""
    while True:
        n = struct.unpack(">I", s.recv(4, socket.MSG_WAITALL))[0]
        chunk = b""
        while len(chunk) < (n & 0x7fffffff):
            c = s.recv((n & 0x7fffffff) - len(chunk))
            if not c:
                raise SystemExit("short reply")
            chunk += c
        data += chunk
        if n & 0x80000000:
            break
    s.close()
    xid, mtype, rstat, vflav, vlen = struct.unpack(">IIIII", data[:20])
    assert mtype == 1 and rstat == 0, "not accepted"
    astat = struct.unpack(">I", data[20 + vlen:24 + vlen])[0]
    if astat != 0:
        return ("garbage_args", astat)
    p = 24 + vlen
    code, mlen = struct.unpack(">iI", data[p:p + 8])
    p += 8 + (mlen + 3) // 4 * 4
    interval, matched, skipped, nsamples = struct.unpack(">iiiI", data[p:p + 16])
    return (code, nsamples, matched)
# A huge count: at most the samples there are (and never over 4096).
code, n, matched = call(struct.pack(">qqi", 0, 0, 0x7fffffff))
assert code == 0 and 0 < n <= 4096 and n == matched, (code, n, matched)
# Thinned to two, the window's ends kept.
code, n, matched = call(struct.pack(">qqi", 0, 0, 2))
assert code == 0 and n == 2 and matched > 2, (code, n, matched)
# Nonsense windows and counts: an error reply.
for args in (struct.pack(">qqi", -1, 0, 10), struct.pack(">qqi", 100, 50, 10),
             struct.pack(">qqi", 0, 0, 0), struct.pack(">qqi", 0, 0, -5)):
    r = call(args)
    assert r[0] == 22, r
# A window in the future: nothing.
code, n, matched = call(struct.pack(">qqi", 1 << 40, 0, 10))
assert code == 0 and n == 0, (code, n)
# Arguments cut short: GARBAGE_ARGS, not a crash.
assert call(struct.pack(">q", 0))[0] == "garbage_args"
print("ok")
EOF
check "COLLECTOR_HISTORY answers hostile windows within bounds" python3 histq.py "$COLLECTOR_PORT"
python3 "$TOP/tests/lib/rpcfuzz.py" 127.0.0.1 "$COLLECTOR_PORT" 0x2c0d0001 200 5 >/dev/null
check "the collector survives hostile RPC traffic" \
	bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_summary | grep -q '^Pool utilization: [0-9]* samples'"

# --- the plot -----------------------------------------------------------
cm condor_summary -plot "$W/pool.svg" >/dev/null 2>&1
check "-plot exits 0" test $? -eq 0
check "-plot writes well-formed SVG" python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
lines = root.findall(".//{http://www.w3.org/2000/svg}polyline")
assert len(lines) == 3 and lines[0].get("points").strip(), "no series"
assert len(root.findall(".//{http://www.w3.org/2000/svg}rect")) >= 3
' "$W/pool.svg"
check "the plot names the owners" grep -q ">$OWNER1<" "$W/pool.svg"

# --- errors ---------------------------------------------------------------
has() { printf '%s\n' "$1" | grep -q "$2"; }	# TEXT PATTERN
err=$(cm condor_summary -bogus 2>&1 >/dev/null)
rc=$?
check "a bad option fails" test "$rc" -ne 0
check "a bad option is named on stderr" has "$err" '^condor_summary: unknown option -bogus'
err=$(cm condor_summary -name nosuchhost 2>&1 >/dev/null)
rc=$?
check "a bad -name fails" test "$rc" -ne 0
check "a bad -name says so" has "$err" '^condor_summary: .*nosuchhost'
err=$(cm condor_summary -hours zero 2>&1 >/dev/null)
rc=$?
check "a bad -hours fails" test "$rc" -ne 0
check "a bad -hours says why" has "$err" '^condor_summary: -hours'
err=$(cm condor_summary -plot /nonexistent/dir/x.svg 2>&1 >/dev/null)
rc=$?
check "an unwritable -plot fails" test "$rc" -ne 0
check "an unwritable -plot says why" has "$err" '^condor_summary: cannot create /nonexistent/dir/x.svg'
check "-h prints the usage and exits 0" bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_summary -h | grep -q '^usage: condor_summary'"

# No collector at COLLECTOR_HOST: the accounting is still printed, the
# failure named.
sed "s|^LOCAL_CONFIG_FILE = .*|LOCAL_CONFIG_FILE = $POOL/cm/condor_config.local, $POOL/nocoll.local|" \
    "$POOL/cm/condor_config" >"$POOL/nocoll.config"
echo "COLLECTOR_HOST = 127.0.0.1:$(free_port)" >"$POOL/nocoll.local"
CONDOR_CONFIG="$POOL/nocoll.config" condor_summary >nocoll.out 2>nocoll.err
rc=$?
check "no collector: a failure" test "$rc" -ne 0
check "no collector: the accounting is still shown" grep -q '^TOTAL ' nocoll.out
check "no collector: a clear message" grep -q '^condor_summary: cannot read the pool.s utilization from the collector' nocoll.err
exit 0
