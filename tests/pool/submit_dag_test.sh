#!/usr/bin/env bash
# condor_submit_dag without a pool: -no_submit on the DAGs of tests/dag
# in a temporary copy.  Bad DAGs must be refused with "FILE:LINE: what"
# and leave no DAGFILE.condor.sub; a good one's DAGFILE.condor.sub must
# hold the DAG job (arguments, logs, batch name), with -Rescue when a
# rescue DAG lies beside the DAG, without it under -f; an existing
# DAGFILE.condor.sub is not overwritten without -f.  condor_dagman is a
# stand-in named by DAGMAN, so this runs before condor_dagman is built.
#
# checks: 56
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/lib/pool.sh"
SD=$TOP/bin/condor_submit_dag
if [ ! -x "$SD" ]; then
	echo "SKIP submit_dag: $SD is not built"
	exit 0
fi
work=$(mktemp -d /tmp/condor-submit-dag.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -r "$TOP/tests/dag" "$work/dag"
cd "$work/dag" || exit 1
printf '#!/bin/sh\nexit 0\n' >"$work/dagman"
chmod 755 "$work/dagman"
printf 'DAGMAN = %s/dagman\n' "$work" >"$work/condor_config"
export CONDOR_CONFIG=$work/condor_config

# sd ARG...: condor_submit_dag; stdout to $work/out, stderr to
# $work/err, the status in $rc.
sd() {
	"$SD" "$@" >"$work/out" 2>"$work/err" </dev/null
	rc=$?
}

# The bad DAGs: file, and the message condor_submit_dag must print.
while IFS='|' read -r file want; do
	sd -no_submit "$file"
	check "$file refused" test "$rc" = 1
	check "$file: $want" grep -qxF "condor_submit_dag: $want" "$work/err"
	check "$file: nothing written" test ! -e "$file.condor.sub"
done <<'EOT'
cycle.dag|cycle.dag:4: cycle: A -> B -> A
twice.dag|twice.dag:3: node A already defined at twice.dag:1
nosubmit.dag|nosubmit.dag:2: JOB B: submit file nosuch.sub: No such file or directory
unknown.dag|unknown.dag:2: CHILD: unknown node Ghost
badnumber.dag|badnumber.dag:2: RETRY: "many" is not a number
keyword.dag|keyword.dag:2: unknown command "WHATEVER"
include_loop.dag|include_loop.dag:2: INCLUDE include_loop.dag: a loop (the file includes or splices itself)
twofinal.dag|twofinal.dag:2: FINAL G: a second FINAL node (F at twofinal.dag:1)
EOT

# A good DAG.
sd -no_submit -maxjobs 5 -maxidle 7 -batch-name nightly good.dag
check "good.dag accepted" test "$rc" = 0
check "good.dag: what it says" grep -qxF \
    "Written good.dag.condor.sub; submit it with condor_submit." "$work/out"
# Where the run's files are, each on its line, before the last word.
# said_before WHAT FILE: "WHAT : good.dag.FILE" comes before "Written".
said_before() {
	local at last
	at=$(grep -nxF "$(printf '%-40s : good.dag.%s' "$1" "$2")" "$work/out" |
	    cut -d: -f1)
	last=$(grep -n '^Written' "$work/out" | cut -d: -f1)
	[ -n "$at" ] && [ -n "$last" ] && [ "$at" -lt "$last" ]
}
while IFS='|' read -r what file; do
	check "good.dag: says $file" said_before "$what" "$file"
done <<'EOT'
File for submitting this DAG to Condor|condor.sub
Log of DAGMan debugging messages|dagman.out
Log of Condor library output|lib.out
Log of Condor library error messages|lib.err
Log of the life of condor_dagman itself|dagman.log
Log of the node jobs' events|nodes.log
EOT
sub=good.dag.condor.sub
check "universe" grep -qxF "universe	= scheduler" "$sub"
check "executable" grep -qxF "executable	= $work/dagman" "$sub"
check "arguments" grep -qxF \
    "arguments	= \"-Dag 'good.dag' -maxjobs 5 -maxidle 7 -maxpre 0 -maxpost 0\"" "$sub"
check "logs" grep -qxF "log		= good.dag.dagman.log" "$sub"
check "output" grep -qxF "output		= good.dag.lib.out" "$sub"
check "batch name" grep -qxF "batch_name	= nightly" "$sub"
check "DAGManDagFile" grep -qxF "+DAGManDagFile	= \"good.dag\"" "$sub"
check "on_exit_remove" grep -qF "on_exit_remove	= (ExitBySignal =?= false || ExitSignal =?= 11)" "$sub"

# Not twice without -f.
sd -no_submit good.dag
check "existing .condor.sub refused" test "$rc" = 1
check "existing .condor.sub: message" grep -qF \
    "good.dag.condor.sub exists (a DAG already submitted?); use -f to overwrite" \
    "$work/err"
check "existing .condor.sub kept" grep -qxF "batch_name	= nightly" "$sub"
echo old >good.dag.dagman.out
echo keep >good.dag.nodes.log
sd -no_submit -f good.dag
check "-f overwrites" test "$rc" = 0
check "-f: default batch name" grep -qxF "batch_name	= good.dag" "$sub"
check "-f: old dagman.out removed" test ! -e good.dag.dagman.out
check "-f: nodes.log kept" test -e good.dag.nodes.log

# Rescue DAGs: the newest is run, -f ignores them.
printf '# rescue\nDONE A\n' >good.dag.rescue001
printf '# rescue\nDONE A\nDONE B\nRETRY C 1\n' >good.dag.rescue002
sd -no_submit good.dag
check "rescue run over an existing .condor.sub" test "$rc" = 0
check "rescue announced" grep -qxF "Running rescue DAG 2" "$work/out"
check "-Rescue argument" grep -qxF \
    "arguments	= \"-Dag 'good.dag' -maxjobs 0 -maxidle 0 -maxpre 0 -maxpost 0 -Rescue 'good.dag.rescue002'\"" \
    "$sub"
sd -no_submit -f good.dag
check "-f ignores rescue" bash -c "! grep -q Rescue $sub"
check "-f leaves rescue files" test -e good.dag.rescue002
printf 'DONE Nobody\n' >good.dag.rescue003
sd -no_submit good.dag
check "bad rescue refused" grep -qxF \
    "condor_submit_dag: good.dag.rescue003:1: DONE: unknown node Nobody" \
    "$work/err"
rm -f good.dag.rescue00*

# Quoting: a DAG file name with a space and a quote.
cp good.dag "it's a dag.dag"
sd -no_submit "it's a dag.dag"
check "odd name accepted" test "$rc" = 0
check "odd name quoted" grep -qxF \
    "arguments	= \"-Dag 'it''s a dag.dag' -maxjobs 0 -maxidle 0 -maxpre 0 -maxpost 0\"" \
    "it's a dag.dag.condor.sub"
# What the job gets, through condor_submit (vanilla standing in for the
# scheduler universe, which only the schedd treats differently).
sed 's/^universe	= scheduler$/universe	= vanilla/' "it's a dag.dag.condor.sub" >v.sub
"$TOP/bin/condor_submit" -dry-run v.sub >"$work/out" 2>"$work/err"
check "arguments as the job sees them" grep -qxF \
    "Args = \"-Dag \\\"it's a dag.dag\\\" -maxjobs 0 -maxidle 0 -maxpre 0 -maxpost 0\"" \
    "$work/out"
