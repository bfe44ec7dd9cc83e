#!/usr/bin/env bash
# The submit corpus: every tests/submit/*.sub, written as HTCondor users
# write them, through condor_submit -dry-run; each file's NAME.expect
# says what its jobs' ads hold, or which error it must give (format in
# tests/submit/README).  No daemons: -dry-run queues nothing.
#
# The files run in a copy of tests/submit (so that "matching" sees only
# what the corpus holds), where @DIR@ stands for that copy; a relinked
# program "sim" is made there with bin/condor_cc for the standard
# universe files.  The environment is fixed (see below) so that getenv
# and $ENV() give the same ads everywhere.
#
# One check per file (its jobs, or its refusal) and one per expected
# attribute or error text.
# checks: >=315
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SUBMIT=$TOP/bin/condor_submit
if [ ! -x "$SUBMIT" ]; then
	echo "SKIP submit corpus: $SUBMIT is not built"
	exit 0
fi
work=$(mktemp -d /tmp/condor-corpus.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -r "$TOP/tests/submit" "$work/submit"
dir=$work/submit
cd "$dir" || exit 1
printf 'int main(void) { return 0; }\n' >"$work/sim.c"
have_sim=0
if "$TOP/bin/condor_cc" -o "$dir/sim" "$work/sim.c" >"$work/cc.log" 2>&1; then
	have_sim=1
elif cp /bin/true "$dir/sim" && objcopy --add-section \
    .condor_relinked="$work/sim.c" "$dir/sim" >>"$work/cc.log" 2>&1; then
	have_sim=1
fi

# @OPSYS@ and @ARCH@: this machine's, as condor_submit names them.
printf 'universe = vanilla\nexecutable = /bin/sh\narguments = $(OPSYS) $(ARCH)\nqueue\n' >"$work/sys.sub"
read -r OPSYS ARCH < <("$SUBMIT" -dry-run "$work/sys.sub" 2>/dev/null |
    sed -n 's/^Args = "\(.*\)"$/\1/p')

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }

# run [ARG...] FILE: condor_submit -dry-run in a fixed environment; stdout to
# $work/out, stderr to $work/err, the exit status in $rc.
run() {
	env -i PATH=/usr/bin:/bin HOME=/home/corpus USER=corpus LANG=C \
	    CORPUS_PROJECT=genomics CORPUS_SCRATCH=/scratch/corpus \
	    "$SUBMIT" -dry-run "$@" >"$work/out" 2>"$work/err" </dev/null
	rc=$?
}

# load: the ads of $work/out into ads["PROC|Attr"] (lower-case Attr),
# the number of jobs into $njobs.
declare -A ads
load() {
	local line proc attr val
	ads=()
	njobs=0
	local -a cur=()
	while IFS= read -r line || [ -n "$line" ]; do
		if [ -z "$line" ]; then
			continue
		fi
		attr=${line%% = *}
		val=${line#* = }
		cur+=("$attr" "$val")
		if [ "$attr" = ProcId ]; then
			proc=$val
			local i
			for ((i = 0; i < ${#cur[@]}; i += 2)); do
				ads["$proc|${cur[i],,}"]=${cur[i + 1]}
			done
			cur=()
			njobs=$((njobs + 1))
		fi
	done <"$work/out"
}

for sub in "$dir"/*.sub; do
	name=$(basename "$sub" .sub)
	exp=$dir/$name.expect
	if [ ! -f "$exp" ]; then
		fail "$name" "no $name.expect"
		continue
	fi
	if [ "$have_sim" = 0 ] && grep -qiE '^[[:space:]]*executable[[:space:]]*=[[:space:]]*sim[[:space:]]*$' "$sub"; then
		echo "SKIP $name: no relinked program (condor_cc and objcopy failed)"
		continue
	fi
	# "args ..." in the .expect: more of condor_submit's command line.
	read -r -a extra < <(sed -n 's/^args //p' "$exp")
	run "${extra[@]}" "$name.sub"
	if grep -q '^error ' "$exp"; then
		# A bad file: refused, nothing printed, the message names
		# the line (NAME.sub:N, or FILE:N for an included file).
		read -r _ loc text < <(grep -m1 '^error ' "$exp")
		loc=${loc//@DIR@/$dir}
		case "$loc" in *:*) ;; *) loc=$name.sub:$loc ;; esac
		if [ "$rc" -ne 0 ] && ! grep -q 'ProcId' "$work/out"; then
			pass "$name: refused, nothing queued"
		else
			fail "$name: refused, nothing queued" "exit $rc, $(grep -c ProcId "$work/out") ads"
		fi
		if grep -qF -- "$loc: " "$work/err" && grep -qF -- "$text" "$work/err"; then
			pass "$name: the message names $loc and says \"$text\""
		else
			fail "$name: the message names $loc and says \"$text\"" "$(head -c 300 "$work/err")"
		fi
		continue
	fi
	load
	# "warning LINE text": accepted, with a warning naming the line.
	while read -r _ loc text; do
		case "$loc" in *:*) ;; *) loc=$name.sub:$loc ;; esac
		if grep -qF -- "$loc: warning: " "$work/err" &&
		    grep -qF -- "$text" "$work/err"; then
			pass "$name: a warning names $loc and says \"$text\""
		else
			fail "$name: a warning names $loc and says \"$text\"" "$(head -c 300 "$work/err")"
		fi
	done < <(grep '^warning ' "$exp")
	# "notice text": what condor_submit chose, said on stderr.
	while read -r _ text; do
		if grep -qF -- "condor_submit: $text" "$work/err"; then
			pass "$name: condor_submit says \"$text\""
		else
			fail "$name: condor_submit says \"$text\"" "$(head -c 300 "$work/err")"
		fi
	done < <(grep '^notice ' "$exp")
	want=$(sed -n 's/^jobs \([0-9]*\).*/\1/p' "$exp")
	if [ "$rc" -eq 0 ] && [ "$njobs" = "$want" ]; then
		pass "$name: $want job(s)"
	else
		fail "$name: $want job(s)" "exit $rc, $njobs ads; $(head -c 300 "$work/err")"
	fi
	# "P Attr = value" (P a ProcId or * for every job), "P Attr ~ text"
	# (the value holds text), "P Attr !" (not in the ad).
	while IFS= read -r line; do
		line=${line%$'\r'}
		case "$line" in ''|'#'*|jobs*|args*|warning*|notice*) continue ;; esac
		read -r p attr op val <<<"$line"
		val=${line#*" $attr $op"}
		val=${val# }
		val=${val//@DIR@/$dir}
		val=${val//@OPSYS@/$OPSYS}
		val=${val//@ARCH@/$ARCH}
		if [ "$p" = '*' ]; then
			procs=$(seq 0 $((njobs - 1)))
		else
			procs=$p
		fi
		bad=""
		for q in $procs; do
			key="$q|${attr,,}"
			case "$op" in
			'=') [ "${ads[$key]+set}" = set ] && [ "${ads[$key]}" = "$val" ] ||
				bad="job $q: ${ads[$key]-(none)}" ;;
			'~') [ "${ads[$key]+set}" = set ] && [[ "${ads[$key]}" == *"$val"* ]] ||
				bad="job $q: ${ads[$key]-(none)}" ;;
			'!') [ "${ads[$key]+set}" != set ] || bad="job $q: ${ads[$key]}" ;;
			*) bad="bad line in $name.expect" ;;
			esac
			[ -n "$bad" ] && break
		done
		if [ -z "$bad" ]; then
			pass "$name: $p $attr $op $val"
		else
			fail "$name: $p $attr $op $val" "$bad"
		fi
	done <"$exp"
done
exit 0
