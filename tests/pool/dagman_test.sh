#!/usr/bin/env bash
# tests/pool/dagman_test.sh: DAGs of real jobs through a whole pool.
#  1. a diamond (A -> B, C -> D) of programs passing files to one
#     another: A's PRE script makes its input, D's POST script sees its
#     return value, the order holds in the node log, one 000 (naming its
#     node) and one 005 per node, the DAG job's DAG_* attributes, the
#     node status file and the DOT file;
#  2. RETRY (a node that fails twice, then succeeds), a POST script
#     turning a zero exit into failure, VARS reaching the submit file,
#     CATEGORY/MAXJOBS never exceeded (from the node log's order), the
#     failed DAG's rescue001, and the resubmission running only what was
#     left;
#  3. ABORT-DAG-ON stopping the DAG with its RETURN value, the node job
#     still running removed, and the FINAL node running after it;
#  4. a SUBDAG EXTERNAL and a SPLICE composed into one workflow;
#  5. condor_rm of a DAG job removes its node jobs and leaves a rescue
#     DAG; condor_q -dag shows node jobs under their DAG job;
#  6. SCHEDD_SUBMIT_MANY queues all of its clusters or none, and the
#     manager queues ready nodes with it.
#
# checks: 53
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'SUSPEND : FALSE' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTER_TIMEOUT = 30' 'MAX_JOB_STARTS = 40' 'DAGMAN_UPDATE_INTERVAL = 1'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD" 'NUM_CPUS = 4' 'MEMORY = 4096'
pool_host exec2 "MASTER, STARTD" 'NUM_CPUS = 4' 'MEMORY = 4096'
pool_start
check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "two machines advertise" pool_wait_machines 2 60

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
pool_owner "$W"
cd "$W" || exit 1
# The DAG jobs inherit this (getenv): pool_stop finds them by it.
export CONDOR_TEST_POOL=$POOL
cm() { on cm "$@"; }
submit_dag() {
	CONDOR_CONFIG=$POOL/cm/condor_config as_owner \
	    "$RELEASE/bin/condor_submit_dag" "$@" 2>&1 | tee -a submit_dag.out |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
hist() { cm condor_history "$1" -af "$2" 2>/dev/null; }
# events LOG CODE: how many events CODE the log holds.
events() { grep -c "^$2 (" "$1" 2>/dev/null; }
# node_events LOG: "NODE CODE" per event of the node log, in order
# (cluster -> node from the 000 events).
node_events() {
	awk '/^[0-9][0-9][0-9] \(/ { code = $1; c = substr($2, 2) + 0; cur = c; pending = code; if (code != "000") print node[c], code; next }
	     /^    DAG Node: / { if (pending == "000") { node[cur] = $3; print $3, "000" } }' "$1"
}

# The node programs (shell scripts, sent with their jobs).
cat >gen.sh <<'EOF'
#!/bin/sh
n=$(cat seed.txt) || exit 2
seq 1 "$n" >a.txt
EOF
cat >sum.sh <<'EOF'
#!/bin/sh
awk '{ s += $1 } END { print s }' a.txt >b.txt
EOF
cat >count.sh <<'EOF'
#!/bin/sh
wc -l <a.txt | tr -d ' ' >c.txt
EOF
cat >join.sh <<'EOF'
#!/bin/sh
echo "$(cat b.txt) $(cat c.txt)" >d.txt
EOF
cat >mkseed.sh <<'EOF'
#!/bin/sh
echo 1000 >seed.txt
echo "pre $1" >pre.txt
EOF
cat >post.sh <<'EOF'
#!/bin/sh
echo "$1 returned $2" >"post_$1.txt"
exit 0
EOF
chmod 755 ./*.sh
cat >step.sub <<'EOF'
# One step of the diamond: which program and files come from VARS.
universe                = vanilla
executable              = $(prog)
should_transfer_files   = YES
when_to_transfer_output = ON_EXIT
transfer_input_files    = $(inputs)
transfer_output_files   = $(outputs)
output                  = $(JOB).out
error                   = $(JOB).err
log                     = $(JOB).log
queue
EOF
cat >diamond.dag <<'EOF'
# A diamond: A makes numbers, B sums them, C counts them, D joins both.
JOB A step.sub
JOB B step.sub
JOB C step.sub
JOB D step.sub
VARS A prog="gen.sh" inputs="seed.txt" outputs="a.txt"
VARS B prog="sum.sh" inputs="a.txt" outputs="b.txt"
VARS C prog="count.sh" inputs="a.txt" outputs="c.txt"
VARS D prog="join.sh" inputs="b.txt,c.txt" outputs="d.txt"
SCRIPT PRE A mkseed.sh $JOB
SCRIPT POST D post.sh $JOB $RETURN
PARENT A CHILD B C
PARENT B C CHILD D
NODE_STATUS_FILE diamond.status 1
DOT diamond.dot
EOF
chmod -R a+rwX "$W"

# --- 1. the diamond ---------------------------------------------------
D1=$(submit_dag diamond.dag)
check "condor_submit_dag queues the diamond" test -n "$D1"
check "condor_submit_dag said where the logs are, then the cluster" \
	awk -v c="1 job(s) submitted to cluster $D1." '
	    /^Log of DAGMan debugging messages +: diamond\.dag\.dagman\.out$/ { o = NR }
	    /^Log of the life of condor_dagman itself +: diamond\.dag\.dagman\.log$/ { l = NR }
	    $0 == c { s = NR }
	    END { exit !(o && l && s > o && s > l) }' submit_dag.out
check "the diamond's DAG job completes" wait_for 240 in_history "$D1.0"
check "it exited 0" test "$(hist "$D1.0" ExitCode)" = 0
check "the files went from node to node (d.txt: 500500 1000)" \
	test "$(cat d.txt 2>/dev/null)" = "500500 1000"
check "A's PRE script ran before A (its seed was A's input)" \
	test "$(cat pre.txt 2>/dev/null)" = "pre A"
check "D's POST script saw \$JOB and \$RETURN" \
	test "$(cat post_D.txt 2>/dev/null)" = "D returned 0"
ev=$(node_events diamond.dag.nodes.log)
order_ok() {
	local a5 b0 c0 b5 c5 d0
	a5=$(grep -n '^A 005$' <<<"$ev" | cut -d: -f1)
	b0=$(grep -n '^B 000$' <<<"$ev" | cut -d: -f1)
	c0=$(grep -n '^C 000$' <<<"$ev" | cut -d: -f1)
	b5=$(grep -n '^B 005$' <<<"$ev" | cut -d: -f1)
	c5=$(grep -n '^C 005$' <<<"$ev" | cut -d: -f1)
	d0=$(grep -n '^D 000$' <<<"$ev" | cut -d: -f1)
	[ -n "$a5" ] && [ -n "$d0" ] && [ "$a5" -lt "$b0" ] && [ "$a5" -lt "$c0" ] &&
	    [ "$b5" -lt "$d0" ] && [ "$c5" -lt "$d0" ]
}
check "the node log shows the order A < B, C < D" order_ok
check "one 000 naming its node and one 005 per node" \
	test "$(grep -c ' 000$' <<<"$ev") $(grep -c ' 005$' <<<"$ev") $(grep -c '^000 ' diamond.dag.nodes.log)" = "4 4 4"
check "D's POST script is event 016 in the node log" \
	grep -q '^D 016$' <<<"$ev"
# Each node job's own log (log = $(JOB).log) gets its events too, as in
# HTCondor: the node log does not replace it.
own_logs() {	# each N.log: one 000, 001s, one 005 of N's cluster, as the node log
	local n c
	for n in A B C D; do
		c=$(awk -v n="$n" '/^000 \(/ { c = $2 } /^    DAG Node: / && $3 == n { print c; exit }' diamond.dag.nodes.log)
		[ -n "$c" ] || return 1
		[ "$(grep -c "^000 $c" $n.log) $(grep -c "^005 $c" $n.log)" = "1 1" ] || return 1
		[ "$(grep -c "^001 $c" $n.log)" -ge 1 ] || return 1
		[ "$(grep -c "^001 $c" $n.log)" = "$(grep -c "^001 $c" diamond.dag.nodes.log)" ] || return 1
		grep -qx "    DAG Node: $n" $n.log || return 1
	done
}
check "each node's own log has its 000, 001 and 005, as the node log" own_logs
check "the DAG job's ad: DAG_NodesTotal 4, DAG_NodesDone 4, DAG_Status 0" \
	test "$(hist "$D1.0" DAG_NodesTotal) $(hist "$D1.0" DAG_NodesDone) $(hist "$D1.0" DAG_Status)" = "4 4 0"
check "the node status file: four nodes done" \
	test "$(grep -c 'NodeStatus = 5;' diamond.status 2>/dev/null)" = 4
check "the DOT file has the diamond's four edges" \
	test "$(grep -c -- '->' diamond.dot 2>/dev/null)" = 4
check "the DAG job's log ends with its 005" \
	test "$(events diamond.dag.dagman.log 005)" = 1
check "the manager's log says what it did" \
	grep -q 'Node D: submitted as job' diamond.dag.dagman.out

# --- 2. retries, POST failure, VARS, categories, rescue --------------
cat >flaky.sh <<'EOF'
#!/bin/sh
# Fails on its first two tries.
[ "$1" -ge 2 ] || exit 7
echo "try $1 worked"
EOF
cat >say.sh <<'EOF'
#!/bin/sh
printf '%s|' "$@"
echo
EOF
cat >nap.sh <<'EOF'
#!/bin/sh
sleep 3
EOF
cat >strict.sh <<'EOF'
#!/bin/sh
# A POST script that fails its node unless allowed.flag exists.
[ -e allowed.flag ] || exit 1
exit 0
EOF
chmod 755 flaky.sh say.sh nap.sh strict.sh
cat >plain.sub <<'EOF'
universe   = vanilla
executable = $(prog)
arguments  = "$(args)"
output     = $(JOB).out
error      = $(JOB).err
queue
EOF
{
	echo "JOB R plain.sub"
	echo "VARS R prog=\"flaky.sh\" args=\"\$(RETRY)\""
	echo "RETRY R 3"
	echo "JOB P plain.sub"
	echo "VARS P prog=\"say.sh\" args=\"p\""
	echo "SCRIPT POST P strict.sh"
	echo "JOB Q plain.sub"
	echo "VARS Q prog=\"say.sh\" args=\"after P\""
	echo "PARENT P CHILD Q"
	echo "JOB V plain.sub"
	echo "VARS V prog=\"say.sh\" args=\"'hello world' 'it''s' \\\\back\""
	for k in 1 2 3 4 5 6; do
		echo "JOB K$k plain.sub"
		echo "VARS K$k prog=\"nap.sh\" args=\"$k\""
		echo "CATEGORY K$k slow"
	done
	echo "MAXJOBS slow 2"
} >mixed.dag
chmod -R a+rwX "$W"
D2=$(submit_dag mixed.dag)
check "the mixed DAG is queued" test -n "$D2"
check "it ends" wait_for 300 in_history "$D2.0"
check "it failed (exit 1: P's POST script failed it)" test "$(hist "$D2.0" ExitCode)" = 1
ev=$(node_events mixed.dag.nodes.log)
check "R failed twice and succeeded on its third try" \
	test "$(grep -c '^R 000$' <<<"$ev")" = 3 -a "$(cat R.out 2>/dev/null)" = "try 2 worked"
check "P's job ran once, its POST once, and Q never" \
	test "$(grep -c '^P 000$' <<<"$ev") $(grep -c '^P 016$' <<<"$ev") $(grep -c '^Q 000$' <<<"$ev")" = "1 1 0"
check "VARS reached V's arguments" \
	test "$(cat V.out 2>/dev/null)" = "hello world|it's|\\back|"
maxcat() {
	awk '$1 ~ /^K/ && $2 == "000" { n++; if (n > m) m = n }
	     $1 ~ /^K/ && ($2 == "005" || $2 == "009") { n-- }
	     END { print m + 0 }' <<<"$ev"
}
check "CATEGORY slow never had more than MAXJOBS 2 jobs queued (max $(maxcat))" \
	test "$(maxcat)" = 2
check "the six K nodes all ran once" \
	test "$(grep -c '^K[1-6] 005$' <<<"$ev")" = 6
check "a rescue DAG was written" test -f mixed.dag.rescue001
check "it names P as failed and R as done" \
	sh -c 'grep -q "^#.*P" mixed.dag.rescue001 && grep -q "^DONE R$" mixed.dag.rescue001 && ! grep -q "^DONE P$" mixed.dag.rescue001'
touch allowed.flag
chmod a+rw allowed.flag
D2b=$(submit_dag mixed.dag)
check "the resubmission runs from the rescue DAG" \
	sh -c "test -n '$D2b' && grep -q 'rescue' submit_dag.out"
check "it completes" wait_for 240 in_history "$D2b.0"
check "with exit 0" test "$(hist "$D2b.0" ExitCode)" = 0
ev=$(node_events mixed.dag.nodes.log)
check "only P and Q ran the second time" \
	test "$(awk '$2 == "000" { print $1 }' <<<"$ev" | sort | tr '\n' ' ')" = "P Q "

# --- 3. ABORT-DAG-ON, FINAL ------------------------------------------
cat >quit.sh <<'EOF'
#!/bin/sh
sleep 2
exit 3
EOF
cat >long.sh <<'EOF'
#!/bin/sh
sleep 300
EOF
chmod 755 quit.sh long.sh
cat >abort.dag <<'EOF'
JOB X plain.sub
VARS X prog="quit.sh" args="x"
ABORT-DAG-ON X 3 RETURN 4
JOB Y plain.sub
VARS Y prog="long.sh" args="y"
JOB Z plain.sub
VARS Z prog="say.sh" args="z"
PARENT X CHILD Z
FINAL F plain.sub
VARS F prog="say.sh" args="final $(DAG_STATUS)"
EOF
chmod -R a+rwX "$W"
D3=$(submit_dag abort.dag)
check "the aborting DAG is queued" test -n "$D3"
check "it ends" wait_for 240 in_history "$D3.0"
check "with ABORT-DAG-ON's RETURN value 4" test "$(hist "$D3.0" ExitCode)" = 4
ev=$(node_events abort.dag.nodes.log)
check "Y's running job was removed, Z never ran" \
	test "$(grep -c '^Y 009$' <<<"$ev") $(grep -c '^Z 000$' <<<"$ev")" = "1 0"
check "the FINAL node ran after the abort (DAG_STATUS 3)" \
	test "$(cat F.out 2>/dev/null)" = "final|3|"
check "the abort left a rescue DAG" test -f abort.dag.rescue001

# --- 4. SUBDAG EXTERNAL and SPLICE ----------------------------------
mkdir -p inner spl
cat >inner/inner.dag <<'EOF'
JOB i1 ../plain.sub
VARS i1 prog="../say.sh" args="i1"
JOB i2 ../plain.sub
VARS i2 prog="../say.sh" args="i2"
PARENT i1 CHILD i2
EOF
cat >spl/part.dag <<'EOF'
JOB s1 plain.sub
VARS s1 prog="say.sh" args="s1"
JOB s2 plain.sub
VARS s2 prog="say.sh" args="s2"
PARENT s1 CHILD s2
EOF
cp plain.sub say.sh spl/
cat >top.dag <<'EOF'
JOB start plain.sub
VARS start prog="say.sh" args="start"
SUBDAG EXTERNAL sub inner.dag DIR inner
SPLICE sp part.dag DIR spl
JOB end plain.sub
VARS end prog="say.sh" args="end"
PARENT start CHILD sub sp
PARENT sub sp CHILD end
EOF
chmod -R a+rwX "$W"
D4=$(submit_dag top.dag)
check "the composed DAG is queued" test -n "$D4"
check "it completes" wait_for 300 in_history "$D4.0"
check "with exit 0" test "$(hist "$D4.0" ExitCode)" = 0
ev=$(node_events top.dag.nodes.log)
composed_ok() {
	local e0 sub5 sp5 st5 sub0 sp0
	st5=$(grep -n '^start 005$' <<<"$ev" | cut -d: -f1)
	sub0=$(grep -n '^sub 000$' <<<"$ev" | cut -d: -f1)
	sp0=$(grep -n '^sp+s1 000$' <<<"$ev" | cut -d: -f1)
	sub5=$(grep -n '^sub 005$' <<<"$ev" | cut -d: -f1)
	sp5=$(grep -n '^sp+s2 005$' <<<"$ev" | cut -d: -f1)
	e0=$(grep -n '^end 000$' <<<"$ev" | cut -d: -f1)
	[ -n "$st5" ] && [ -n "$e0" ] && [ "$st5" -lt "$sub0" ] &&
	    [ "$st5" -lt "$sp0" ] && [ "$sub5" -lt "$e0" ] && [ "$sp5" -lt "$e0" ]
}
check "start, then the sub-DAG and the splice, then end" composed_ok
check "the sub-DAG ran its own two nodes in order" \
	test "$(cat inner/i1.out inner/i2.out 2>/dev/null | tr -d '\n')" = "i1|i2|"
check "the splice's nodes ran in their directory" \
	test "$(cat spl/sp+s1.out spl/sp+s2.out 2>/dev/null | tr -d '\n')" = "s1|s2|"

# --- 5. condor_rm of a DAG job; condor_q -dag ------------------------
cat >rm.dag <<'EOF'
JOB L1 plain.sub
VARS L1 prog="long.sh" args="1"
JOB L2 plain.sub
VARS L2 prog="long.sh" args="2"
EOF
chmod -R a+rwX "$W"
D5=$(submit_dag rm.dag)
two_running() { [ "$(grep -c '^001 ' rm.dag.nodes.log 2>/dev/null)" = 2 ]; }
check "a DAG of two long nodes runs both" wait_for 120 two_running
tree=$(cm condor_q -dag 2>/dev/null)
dag_tree_ok() {
	# The DAG job's line, then its two nodes right under it.
	awk -v d="$D5.0" '$1 == d { at = NR } at && NR == at + 1 && /\|-L[12] / { n++ }
	    at && NR == at + 2 && /\|-L[12] / { n++ } END { exit n != 2 }' <<<"$tree"
}
check "condor_q -dag shows them under their DAG job" dag_tree_ok
CONDOR_CONFIG=$POOL/cm/condor_config as_owner "$RELEASE/bin/condor_rm" "$D5" >/dev/null 2>&1
check "condor_rm of the DAG job ends it" wait_for 120 in_history "$D5.0"
removed_both() { [ "$(grep -c '^009 ' rm.dag.nodes.log 2>/dev/null)" = 2 ]; }
check "its two node jobs were removed" wait_for 60 removed_both
check "and it left a rescue DAG" test -f rm.dag.rescue001

# --- 6. SCHEDD_SUBMIT_MANY: all the clusters or none -----------------
sock=$POOL/cm/spool/.schedd_socket
# The owner may not reach this tree (a clone only root may enter).
cp "$TOP/tests/lib/rpccall.py" "$W/rpccall.py"
chmod 644 "$W/rpccall.py"
# many EXE...: one SUBMIT_MANY of a one-proc vanilla cluster per EXE,
# as the owner; prints "accept code message failed".
many() {
	local a=(i:$#) e
	for e in "$@"; do
		a+=(i:1 s:JobUniverse s:5 i:1 i:0 "s:$e")
	done
	as_owner /usr/bin/python3 "$W/rpccall.py" "$sock" 0x2c0d0004 1 12 "${a[@]}" 2>&1 | tr '\n' ' '
}
nq() { cm condor_q -af ClusterId 2>/dev/null | wc -l; }
before=$(nq)
out=$(many /bin/true /no/such/program /bin/true)
check "a batch with a missing executable is refused, naming the second ($out)" \
	sh -c "echo '$out' | grep -q 'such' && echo '$out' | grep -Eq ' 1 *$'"
check "and none of the batch was queued" test "$(nq)" = "$before"
out=$(many /bin/true /bin/echo /bin/true)
check "a good batch of three is queued in one request ($out)" \
	test "$(nq)" = $((before + 3))
check "the manager queued B and C, ready together, in one transaction" \
	grep -q '2 node jobs queued in one transaction' diamond.dag.dagman.out
pool_stop
