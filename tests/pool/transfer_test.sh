#!/usr/bin/env bash
# tests/pool/transfer_test.sh: files that travel with vanilla jobs
# (transfer_input_files, transfer_output_files, transfer_output_remaps,
# when_to_transfer_output) through a whole pool: files, directories with
# and without a trailing '/', outputs made or changed by the job and
# nothing else, remaps, a missing input or output holding the job with
# its name, links out of the job's directory never followed, outputs
# kept across an eviction with ON_EXIT_OR_EVICT, and file lists
# condor_submit refuses.
#
# checks: 40
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTER_TIMEOUT = 20' 'VACATE_GRACE = 2' 'MAX_JOB_STARTS = 10'
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
submit() {
	cm condor_submit "$1" 2>&1 | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
status_is() { test "$(cm condor_q "$1" -af JobStatus 2>/dev/null)" = "$2"; }
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
running_on() { cm condor_q "$1" -af RemoteHost 2>/dev/null; }
is_running() { status_is "$1" 2 && test -n "$(running_on "$1")"; }

# --- 1. inputs and outputs -------------------------------------------
head -c 3000000 /dev/urandom >data.bin
mkdir -p tree/sub flat results
echo one >tree/a.txt
echo two >tree/sub/b.txt
echo three >flat/c.txt
echo kept >untouched.txt
cat >xfer.sh <<'EOF'
#!/bin/sh
# Inputs where HTCondor puts them.
cmp data.bin data.bin || exit 10
test -f tree/a.txt && test -f tree/sub/b.txt || exit 11
test -f c.txt || exit 12
test ! -e flat || exit 13
cat tree/a.txt tree/sub/b.txt c.txt >joined.txt
cp data.bin copy.bin
mkdir -p outdir/inner
echo deep >outdir/inner/d.txt
echo "to remap" >remapme.txt
echo "not asked for" >extra.txt
EOF
chmod 755 xfer.sh
cat >xfer.sub <<'EOF'
Universe              = vanilla
Executable            = xfer.sh
Output                = xfer.out
Should_Transfer_Files = YES
When_To_Transfer_Output = ON_EXIT
Transfer_Input_Files  = data.bin, tree, flat/, untouched.txt
Transfer_Output_Files = joined.txt, copy.bin, outdir, remapme.txt
transfer_output_remaps = "remapme.txt = results/remapped.$(Cluster).txt"
queue
EOF
C=$(submit xfer.sub)
check "a job with files to transfer is submitted" test -n "$C"
check "it completes" wait_for 90 in_history "$C.0"
check "it exited 0 (its inputs were where it looked)" \
	test "$(cm condor_history "$C.0" -af ExitCode)" = 0
check "joined.txt came back" test "$(cat joined.txt 2>/dev/null)" = "$(printf 'one\ntwo\nthree')"
check "a 3 MB binary output is byte-identical" cmp -s data.bin copy.bin
check "a named directory came back with what it holds" \
	test "$(cat outdir/inner/d.txt 2>/dev/null)" = deep
check "transfer_output_remaps put its file where it said" \
	test "$(cat "results/remapped.$C.txt" 2>/dev/null)" = "to remap"
check "... and not in Iwd" test ! -e remapme.txt
check "an output not named stayed behind" test ! -e extra.txt
check "no temporary file is left beside the outputs" \
	bash -c "! ls -A . results outdir | grep -q condor_xfer"

# --- 2. every new or changed file, when none are named ---------------
echo before >changed.txt
echo same >same.txt
ino_same=$(stat -c %i same.txt)
cat >auto.sh <<'EOF'
#!/bin/sh
echo after >changed.txt
echo new >new.txt
mkdir newdir && echo x >newdir/x
ln -s /etc/passwd link.txt
EOF
chmod 755 auto.sh
cat >auto.sub <<'EOF'
universe   = vanilla
executable = auto.sh
transfer_input_files = changed.txt, same.txt
queue
EOF
C=$(submit auto.sub)
check "a job with default outputs completes" wait_for 90 in_history "$C.0"
check "a new file came back" test "$(cat new.txt 2>/dev/null)" = new
check "a changed input came back" test "$(cat changed.txt)" = after
check "an input it left alone was not sent back" \
	test "$(stat -c %i same.txt)" = "$ino_same"
check "a new directory does not come back unless named" test ! -e newdir
check "a symbolic link does not come back" test ! -e link.txt
check "the executable does not come back" test ! -e condor_exec.exe

# --- 3. a missing input holds the job with its name ------------------
echo here >gone.txt
cat >missing.sub <<'EOF'
universe   = vanilla
executable = auto.sh
transfer_input_files = gone.txt
log = missing.log
queue
EOF
C=$(submit missing.sub)
rm -f gone.txt
check "a job whose input vanished is held" wait_for 60 status_is "$C.0" 5
check "... HoldReason names the file" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_q $C.0 -af HoldReason | grep -q 'gone.txt'"
check "... HoldReasonCode 13" test "$(cm condor_q "$C.0" -af HoldReasonCode)" = 13
cm condor_rm "$C.0" >/dev/null 2>&1

# --- 4. a named output missing, or a link out of the directory -------
cat >bad.sh <<'EOF'
#!/bin/sh
ln -s /etc/shadow secret.txt
ln -s / rootdir
EOF
chmod 755 bad.sh
cat >bad.sub <<'EOF'
universe   = vanilla
executable = bad.sh
transfer_output_files = secret.txt
queue
transfer_output_files = rootdir
queue
transfer_output_files = never_made.txt
queue
EOF
C=$(submit bad.sub)
for p in 0 1 2; do
	check "job $C.$p with an output it cannot send is held" \
		wait_for 60 status_is "$C.$p" 5
done
check "... a link is named as such" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_q $C.0 -af HoldReason | grep -q 'secret.txt.*symbolic link'"
check "... a missing output is named, HoldReasonCode 12" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_q $C.2 -af HoldReason HoldReasonCode | grep -q 'never_made.txt.* 12\$'"
check "nothing of /etc/shadow reached the submitter" \
	bash -c "! test -e secret.txt && ! test -e rootdir"
cm condor_rm "$C" >/dev/null 2>&1

# --- 5. ON_EXIT_OR_EVICT: what a run made goes to the next ------------
cat >resume.sh <<'EOF'
#!/bin/sh
n=0
test -f count.txt && n=$(cat count.txt)
n=$((n + 1))
echo $n >count.txt
echo "run $n"
if [ "$n" -lt 2 ]; then
	touch "$1/started"
	sleep 600
fi
EOF
chmod 755 resume.sh
cat >resume.sub <<EOF
universe   = vanilla
executable = resume.sh
arguments  = $W
output     = resume.out
log        = resume.log
should_transfer_files   = YES
when_to_transfer_output = ON_EXIT_OR_EVICT
queue
EOF
C=$(submit resume.sub)
check "a job that keeps its files runs" wait_for 60 is_running "$C.0"
wait_for 30 test -e started
host=$(running_on "$C.0")
cm condor_vacate "$host" >/dev/null 2>&1
check "vacated, it runs again and finishes" wait_for 120 in_history "$C.0"
check "its second run found what the first one made" \
	test "$(cat resume.out 2>/dev/null)" = "run 2"
check "count.txt came back at the end" test "$(cat count.txt 2>/dev/null)" = 2
check "its spooled files are gone from SPOOL" \
	bash -c "! ls $POOL/cm/spool | grep -q xfer"

# --- 6. lists condor_submit refuses ----------------------------------
printf 'universe = vanilla\nexecutable = auto.sh\ntransfer_output_files = ../up.txt\nqueue\n' >up.sub
queued_before=$(cm condor_q -af ClusterId 2>/dev/null | grep -c .)
check "an output outside the job's directory is refused, naming the line" \
	bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_submit up.sub 2>&1 | grep -q 'up.sub:3: .*not a relative path'"
printf 'universe = vanilla\nexecutable = auto.sh\ntransfer_output_remaps = "../a = b"\nqueue\n' >remap.sub
check "a remap of a name outside the directory is refused" \
	bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_submit remap.sub 2>&1 | grep -q 'remap.sub:3: .*transfer_output_remaps'"
python3 -c 'print("universe = vanilla\nexecutable = auto.sh\ntransfer_input_files = " + ",".join("f%d" % i for i in range(100000)) + "\nqueue")' >huge.sub
out=$(cm condor_submit huge.sub 2>&1); rc=$?
check "a list of 100,000 names is refused cleanly" \
	bash -c "test $rc != 0 && echo '$out' | grep -q 'huge.sub:3: .*longer than'"
printf 'universe = vanilla\nexecutable = auto.sh\nshould_transfer_files = NO\ntransfer_input_files = same.txt\nqueue\n' >no.sub
check "transfer_input_files with should_transfer_files = NO is refused" \
	bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_submit no.sub 2>&1 | grep -q 'no.sub:4: transfer_input_files with should_transfer_files = NO'"
printf 'universe = vanilla\nexecutable = auto.sh\ntransfer_input_files = http://example.org/x\nqueue\n' >url.sub
check "a URL is refused" \
	bash -c "CONDOR_CONFIG=$POOL/cm/condor_config condor_submit url.sub 2>&1 | grep -q 'url.sub:3: .*not URLs'"
check "none of them queued anything" \
	test "$(cm condor_q -af ClusterId 2>/dev/null | grep -c .)" = "$queued_before"

check "no shadow reported a user-log failure" \
	bash -c "! grep -q 'to the user log' $POOL/cm/log/ShadowLog"
