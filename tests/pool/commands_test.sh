#!/usr/bin/env bash
# The job commands against a real schedd, without running jobs (no
# negotiator): condor_submit's errors name the line and queue nothing,
# a good file queues a cluster (in pieces when it is large or uses
# $(Cluster)); condor_q's table, footer, -l, -af, -format, -global;
# condor_prio, condor_hold, condor_release, condor_rm and their errors;
# condor_qedit; another user cannot touch root's jobs; condor_q -analyze
# names the clause no machine satisfies (two startds); condor_history,
# condor_reschedule, condor_wait.
#
# checks: 124
. "$(dirname "$0")/../lib/pool.sh"

pool_init
pool_host cm "MASTER, COLLECTOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
pool_host exec2 "MASTER, STARTD"
pool_start

SPOOL_SOCKET="$POOL/cm/spool/.schedd_socket"
check "the schedd listens" wait_for 60 test -S "$SPOOL_SOCKET"
check "two machines advertise" pool_wait_machines 2 60

W="$POOL/work"
mkdir -p "$W"
cd "$W" || exit 1
cm() { on cm "$@"; }
fails() { ! "$@" >/dev/null 2>&1; }
njobs() { cm condor_q -af ClusterId | wc -l; }

# --- condor_submit: errors name the line, nothing is queued ---------
# bad_submit NAME LINE WORDS: the file bad.sub fails at LINE with WORDS.
bad_submit() {
	local name=$1 line=$2 words=$3 out rc
	out=$(cm condor_submit bad.sub 2>&1)
	rc=$?
	check "submit $name: fails" test "$rc" -ne 0
	check "submit $name: names line $line" \
		grep -q "^condor_submit: bad.sub:$line: " <<<"$out"
	check "submit $name: says \"$words\"" grep -q -- "$words" <<<"$out"
}
printf 'universe = vanilla\nexecutible = /bin/true\nqueue\n' >bad.sub
bad_submit "misspelt executable" 3 "no executable"
printf 'universe = vanilla\nexecutable = /bin/true\n\nrequirements = Memory >\nqueue\n' >bad.sub
bad_submit "bad requirement" 4 "requirements"
printf 'universe = vanilla\nexecutable = ./no-such-program\nqueue\n' >bad.sub
bad_submit "missing executable" 2 "No such file"
printf 'universe = vanilla\nexecutable = /bin/true\nqueue -1\n' >bad.sub
bad_submit "queue -1" 3 "queue count"
printf 'universe = standard\nexecutable = /bin/true\nqueue\n' >bad.sub
bad_submit "standard universe, not relinked" 2 "condor_cc"
printf 'universe = vanilla\nexecutable = /bin/true\nqueue 2\npriority = 50\nqueue\n' >bad.sub
bad_submit "error after a queue" 4 "priority"
check "no job was queued by the bad files" test "$(njobs)" -eq 0

# --- a good cluster -------------------------------------------------
cat >good.sub <<'EOF'
# three jobs, outputs named by cluster and proc
universe   = vanilla
executable = /bin/echo
arguments  = x$(Process)
output     = out.$(Cluster).$(Process)
log        = good.log
queue 3
EOF
out=$(cm condor_submit good.sub 2>&1)
check "submit prints the count and cluster" \
	test "$out" = "3 job(s) submitted to cluster 1."
table=$(cm condor_q)
check "condor_q header" grep -qx \
	' ID      OWNER            SUBMITTED     CPU_USAGE ST PRI SIZE CMD' <<<"$table"
check "condor_q rows" test "$(grep -Ec '^ +1\.[0-2] ' <<<"$table")" -eq 3
check "condor_q row format" grep -Eq \
	'^   1\.1   root +[0-9]{2}/[0-9]{2} [0-9]{2}:[0-9]{2} +0\+00:00:00 U  0   0\.0  echo x1$' \
	<<<"$table"
check "condor_q footer" grep -qx \
	'3 jobs; 3 unexpanded, 0 idle, 0 running, 0 suspended, 0 held' <<<"$table"
check "condor_q -af" test "$(cm condor_q -af ClusterId ProcId Args)" = \
	"$(printf '1 0 x0\n1 1 x1\n1 2 x2')"
check "\$(Cluster) expanded" test "$(cm condor_q -af Out 1.2)" = "$W/out.1.2"
long=$(cm condor_q -l 1.0)
check "condor_q -l" grep -qx 'Args = "x0"' <<<"$long"
check "condor_q -l has Owner" grep -qx 'Owner = "root"' <<<"$long"
check "condor_q C.P" test "$(cm condor_q -af ProcId 1.1)" = 1
check "condor_q OWNER" test "$(cm condor_q root -af ProcId | wc -l)" -eq 3
check "condor_q -constraint" \
	test "$(cm condor_q -af ProcId -constraint 'ProcId > 0' | wc -l)" -eq 2
check "condor_q -global names the schedd" grep -q '^-- Schedd: cm : <' \
	<<<"$(cm condor_q -global)"
check "condor_submit from stdin" grep -qx "3 job(s) submitted to cluster 2." \
	<<<"$(cm condor_submit <good.sub 2>&1)"
check "condor_rm of a cluster" grep -qx "Cluster 2 has been marked for removal" \
	<<<"$(cm condor_rm 2)"

# --- a large cluster goes in pieces ---------------------------------
printf 'universe = vanilla\nexecutable = /bin/true\narguments = $(Process) $(Cluster)\nqueue 20000\n' >big.sub
out=$(cm condor_submit big.sub 2>&1)
check "20000 jobs in one cluster" grep -q "^20000 job(s) submitted to cluster" <<<"$out"
c=$(sed -n 's/.*cluster \([0-9]*\)\./\1/p' <<<"$out")
check "each proc of the large cluster has its arguments" \
	test "$(cm condor_q -af Args "$c.19999")" = "19999 $c"
check "condor_q counts them" \
	test "$(cm condor_q -af ProcId "$c" | wc -l)" -eq 20000
check "condor_rm of the large cluster" grep -qx \
	"Cluster $c has been marked for removal" <<<"$(cm condor_rm "$c")"

# --- prio, hold, release --------------------------------------------
check "condor_prio -p" grep -qx "Priority of job 1.1 set to 5" \
	<<<"$(cm condor_prio -p 5 1.1)"
check "UserPrio changed" test "$(cm condor_q -af UserPrio 1.1)" = 5
check "condor_prio +N" grep -qx "Priority of cluster 1 changed by +2" \
	<<<"$(cm condor_prio +2 1)"
check "UserPrio raised" test "$(cm condor_q -af UserPrio 1.1)" = 7
check "condor_prio out of range" fails cm condor_prio -p 21 1.1
check "condor_hold" grep -qx "Job 1.2 held" <<<"$(cm condor_hold -reason 'fixing input' 1.2)"
check "held job is H" test "$(cm condor_q -af JobStatus 1.2)" = 5
check "footer counts the held job" grep -qx \
	'3 jobs; 2 unexpanded, 0 idle, 0 running, 0 suspended, 1 held' <<<"$(cm condor_q)"
check "-analyze tells why a job is held" grep -q "held: fixing input" \
	<<<"$(cm condor_q -analyze 1.2)"
check "condor_release" grep -qx "Job 1.2 released" <<<"$(cm condor_release 1.2)"
check "released job is back" test "$(cm condor_q -af JobStatus 1.2)" = 1

# --- errors of the job tools ----------------------------------------
out=$(cm condor_rm 1.7 2>&1)
check "condor_rm of a missing job fails" test $? -ne 0
check "condor_rm says not found" grep -qx "condor_rm: job 1.7 not found" <<<"$out"
check "condor_rm of a missing cluster" grep -qx \
	"condor_rm: cluster 77 not found" <<<"$(cm condor_rm 77 2>&1)"
check "condor_hold of garbage" fails cm condor_hold 1.x

# --- condor_qedit ---------------------------------------------------
out=$(cm condor_qedit 1.1 Foo '"bar baz"' 2>&1)
check "condor_qedit sets an attribute" \
	grep -qx 'Set attribute "Foo" for 1 matching job.' <<<"$out"
check "... condor_q shows it" test "$(cm condor_q -af Foo 1.1)" = "bar baz"
n1=$(cm condor_q -af ProcId 1 | wc -l)
check "a cluster's jobs, all at once, and an expression" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_qedit 1 Deadline 'QDate + 3600' | grep -qx 'Set attribute \"Deadline\" for $n1 matching jobs.'"
check "... kept as an expression" grep -qx "Deadline = QDate + 3600" \
	<<<"$(cm condor_q -l 1.2 | grep '^Deadline =')"
check "-constraint selects" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_qedit -constraint 'ProcId == 2' Foo 7 >/dev/null && test \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_q -af Foo 1.2)\" = 7"
out=$(cm condor_qedit 1.1 Owner '"nobody"' 2>&1)
check "the job's Owner cannot be edited" test $? -ne 0
check "... it says the attribute is the schedd's" grep -q "Owner is the schedd's to set" <<<"$out"
check "... Owner is unchanged" test "$(cm condor_q -af Owner 1.1)" = "$(id -un)"
check "nor its JobStatus" fails cm condor_qedit 1.1 JobStatus 4
check "a value that does not parse changes nothing" bash -c \
	"! CONDOR_CONFIG=$POOL/cm/condor_config condor_qedit 1.1 Foo 'a +' 2>/dev/null && test \"\$(CONDOR_CONFIG=$POOL/cm/condor_config condor_q -af Foo 1.1)\" = 'bar baz'"
check "an attribute name that is not one is refused" fails cm condor_qedit 1.1 'A-B' 1
out=$(cm condor_qedit 1.7 Foo 1 2>&1)
check "a missing job: no job matches" grep -q "no job matches" <<<"$out"

check "condor_q -format, twice" test "$(cm condor_q 1.1 -format '%d.' ClusterId -format '%d\n' ProcId)" = "1.1"
check "condor_q -af:jh: a header, then the job id first" \
	test "$(cm condor_q 1.1 -af:jh Owner Foo)" = "$(printf 'ID Owner Foo\n1.1 %s bar baz' "$(id -un)")"
check "condor_q -format with a bad conversion is refused" fails cm condor_q -format '%n' ProcId

# --- another user cannot touch root's jobs --------------------------
OTHER_CHECKS=("another user cannot remove root's job"
    "it is told the job is not theirs" "root's job is still there"
    "another user cannot change its priority" "another user cannot hold it"
    "root's job is not held" "another user submits" "the job is theirs"
    "condor_rm -a removes only their own" "root's jobs survive condor_rm -a"
    "another user cannot condor_qedit root's job")
if [ "$(id -u)" != 0 ]; then
	for c in "${OTHER_CHECKS[@]}"; do skip "$c" "not root"; done
elif ! command -v setpriv >/dev/null || ! id nobody >/dev/null 2>&1; then
	for c in "${OTHER_CHECKS[@]}"; do skip "$c" "no setpriv or no user nobody"; done
else
	chmod a+rx "$POOL" "$POOL/cm" "$W"
	as_nobody() {
		(cd /tmp && CONDOR_CONFIG="$POOL/cm/condor_config" setpriv \
		    --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@")
	}
	out=$(as_nobody "$RELEASE/bin/condor_rm" 1.1 2>&1)
	check "another user cannot remove root's job" test $? -ne 0
	check "it is told the job is not theirs" grep -q "not yours" <<<"$out"
	check "root's job is still there" test "$(cm condor_q -af ProcId 1.1)" = 1
	check "another user cannot change its priority" \
		fails as_nobody "$RELEASE/bin/condor_prio" -p 1 1.1
	check "another user cannot hold it" fails as_nobody "$RELEASE/bin/condor_hold" 1
	check "root's job is not held" test "$(cm condor_q -af JobStatus 1.1)" = 1
	printf 'universe = vanilla\nexecutable = /bin/true\nqueue\n' >"$W/nobody.sub"
	chmod a+r "$W/nobody.sub"
	out=$(as_nobody "$RELEASE/bin/condor_submit" "$W/nobody.sub" 2>&1)
	check "another user submits" grep -q "submitted to cluster" <<<"$out"
	nc=$(sed -n 's/.*cluster \([0-9]*\)\./\1/p' <<<"$out")
	check "the job is theirs" test "$(cm condor_q -af Owner "$nc")" = nobody
	check "condor_rm -a removes only their own" grep -qx \
		"All jobs marked for removal" <<<"$(as_nobody "$RELEASE/bin/condor_rm" -a)"
	check "root's jobs survive condor_rm -a" \
		test "$(cm condor_q -af ProcId 1 | wc -l)" -eq 3
	as_nobody "$RELEASE/bin/condor_qedit" 1.1 Foo '"evil"' >/dev/null 2>&1
	check "another user cannot condor_qedit root's job" \
		test "$(cm condor_q -af Foo 1.1)" = "bar baz"
fi

# --- condor_q -analyze ----------------------------------------------
printf 'universe = vanilla\nexecutable = /bin/sleep\narguments = 100\nrequirements = Memory > 100000000 && Disk > 0\nqueue\n' >huge.sub
out=$(cm condor_submit huge.sub 2>&1)
hc=$(sed -n 's/.*cluster \([0-9]*\)\./\1/p' <<<"$out")
an=$(cm condor_q -analyze "$hc")
check "-analyze counts the machines" grep -q "^Of 2 machines in the pool:" <<<"$an"
check "-analyze names the failing clause" \
	grep -qx "No machine satisfies: Memory > 100000000" <<<"$an"
check "-analyze: the other clause is satisfied" \
	grep -Eq '^ +2 satisfy Disk > 0$' <<<"$an"
check "-analyze: the job needs new requirements" \
	grep -q "cannot run until its requirements change" <<<"$an"
an=$(cm condor_q -analyze 1.0)
check "-analyze: a job that fits has machines available" \
	grep -Eq '^ +2 are available to the job$' <<<"$an"

# --- reschedule, history, wait --------------------------------------
check "condor_reschedule" grep -qx "Sent reschedule command to local schedd" \
	<<<"$(cm condor_reschedule)"
cm condor_wait -wait 0.5 "$W/good.log" >"$W/wait.out"
check "condor_wait times out" test $? -eq 2
check "condor_wait says so" grep -qx "Time expired." "$W/wait.out"
check "condor_rm of a job" grep -qx "Job 1.0 marked for removal" \
	<<<"$(cm condor_rm 1.0)"
check "condor_rm of a user's jobs" grep -qx "All jobs of user root marked for removal" \
	<<<"$(cm condor_rm root)"
queue_empty() { test "$(njobs)" -eq 0; }
wait_for 20 queue_empty
check "the queue is empty" test "$(njobs)" -eq 0
check "condor_history lists the removed jobs" \
	test "$(cm condor_history -af ClusterId ProcId JobStatus 1 | sort)" = \
	"$(printf '1 0 3\n1 1 3\n1 2 3')"
check "condor_history table" grep -Eq '^   1\.1   root .* X  [0-9]{2}/[0-9]{2} ' \
	<<<"$(cm condor_history)"
cm condor_wait -wait 10 "$W/good.log" 1 >"$W/wait.out"
check "condor_wait: aborted jobs give 1" test $? -eq 1
check "condor_wait reports them" grep -qx "All jobs done; 3 aborted." "$W/wait.out"

# --- -json: what scripts parse -------------------------------------
cat >json.sub <<'EOF'
universe   = vanilla
executable = /bin/true
+B = true
+R = 1.5
+U = undefined
+S = "quote \" back \\ tab\t é"
+E = MY.R * 2 + 1
queue
EOF
JC=$(cm condor_submit json.sub 2>/dev/null | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
cm condor_hold "$JC" >/dev/null 2>&1
check "condor_q -hold: the held job, since when and why" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_q -hold | grep -Eq '^ +$JC\.0 +root +[0-9]{2}/[0-9]{2} [0-9]{2}:[0-9]{2} .*condor_hold'"
check "condor_hold gives HoldReasonCode 1 (UserRequest)" \
	test "$(cm condor_q -af HoldReasonCode "$JC")" = 1
check "condor_q -run: none running, the header alone" test \
	"$(cm condor_q -run | grep -c .)" = 1
check "condor_q -totals: the counts alone" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_q -totals | grep -v '^\$' | grep -Eqx '[0-9]+ jobs; .* 1 held'"
cm condor_q -json "$JC" >q.json
cm condor_status -json >status.json
cm condor_rm "$JC" >/dev/null 2>&1
wait_for 20 queue_empty
cm condor_history -json "$JC" >history.json
check "condor_history -limit 1: the job that left last" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_history -limit 1 -af ClusterId | grep -qx $JC"
if [ -x /usr/bin/python3 ]; then
	for f in q status history; do
		check "condor_$f -json parses (python3 -m json.tool)" \
			bash -c "python3 -m json.tool $f.json >/dev/null"
	done
	check "... every attribute type keeps its type (condor_q -json)" python3 -c '
import json, sys
j = json.load(open("q.json"))[0]
assert j["ClusterId"] == int(sys.argv[1]) and type(j["ClusterId"]) is int
assert j["B"] is True and j["R"] == 1.5 and j["U"] is None
assert j["S"] == "quote \" back \\ tab\t \u00e9", j["S"]
assert j["E"] == "/Expr(MY.R * 2 + 1)/", j["E"]
assert j["Owner"] == "root" or type(j["Owner"]) is str
' "$JC"
	check "... and condor_history -json holds the same job" python3 -c '
import json, sys
j = json.load(open("history.json"))
assert len(j) == 1 and j[0]["ClusterId"] == int(sys.argv[1]) and j[0]["R"] == 1.5
' "$JC"
	check "... and condor_status -json one object a machine" python3 -c '
import json
j = json.load(open("status.json"))
assert sorted(m["Name"] for m in j) == ["exec1", "exec2"], j
assert all(type(m["Memory"]) is int for m in j)
'
	check "an empty answer is an empty array" \
		test "$(cm condor_q -json -constraint 'ClusterId < 0')" = "[]"
else
	for c in "condor_q -json parses" "condor_status -json parses" \
	    "condor_history -json parses" "every attribute type" \
	    "condor_history -json" "condor_status -json" "an empty answer"; do
		echo "SKIP $c: no /usr/bin/python3"
	done
fi

# --- condor_q -batch: HTCondor's view, a line a batch ----------------
printf 'universe = vanilla\nexecutable = /bin/true\nqueue 3\n' >b3.sub
printf 'universe = vanilla\nexecutable = /bin/true\nbatch_name = own\nqueue\n' >bn.sub
B1=$(cm condor_submit -batch-name nightly b3.sub 2>/dev/null | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
B2=$(cm condor_submit -batch-name ignored bn.sub 2>/dev/null | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
B3=$(cm condor_submit b3.sub 2>/dev/null | sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "condor_submit -terse prints the jobs' ids" bash -c \
	"CONDOR_CONFIG=$POOL/cm/condor_config condor_submit -terse b3.sub | grep -Eqx '[0-9]+\.0 - [0-9]+\.2'"
check "condor_submit NAME=VALUE and -queue" bash -c \
	"cd '$W' && printf 'universe = vanilla\nexecutable = /bin/echo\narguments = \$(N) \$(Item)\n' >nq.sub &&
	 CONDOR_CONFIG=$POOL/cm/condor_config condor_submit nq.sub N=7 -queue in '(a b)' | grep -q '2 job(s) submitted'"
cm condor_rm "$B1.1" >/dev/null 2>&1
one_gone() { test -z "$(cm condor_q -af ProcId "$B1.1")"; }
wait_for 20 one_gone
cm condor_q -batch >batch.out
check "condor_q -batch: -batch-name, one done of three, the ids" grep -Eq \
	"^root +nightly +[0-9/]+ [0-9:]+ +1 +_ +2 +_ +3 $B1\\.0-2\$" batch.out
check "... a file's batch_name wins over -batch-name" \
	grep -Eq "^root +own .* 1 $B2\\.0\$" batch.out
check "... a cluster without a name is its own batch" \
	grep -Eq "^root +ID: $B3 .* 3 $B3\\.0-2\$" batch.out
check "condor_q -nobatch: the table, a line a job" \
	test "$(cm condor_q -nobatch | grep -Ec "^ +($B1|$B2|$B3)\\.")" = 6
check "... and the jobs of -queue have their arguments" \
	test "$(cm condor_q -af Args -constraint 'Cmd == "/bin/echo"' | sort | tr '\n' ' ')" = "7 a 7 b "
cm condor_rm root >/dev/null 2>&1
wait_for 20 queue_empty

# --- every command answers -h ---------------------------------------
for c in condor_submit condor_q condor_rm condor_hold condor_release \
    condor_prio condor_history condor_reschedule condor_wait; do
	check "$c -h" bash -c "$c -h | grep -q usage"
done

cd /
[ "$POOL_FAILS" -eq 0 ]
