#!/usr/bin/env bash
# Real users' submit files (the shared corpus, outside the tree: never
# copied into it) through condor_submit -dry-run.  Each must be
# accepted, or refused only for what this host lacks: a universe it
# does not run, a path outside the scratch directory (/afs/...,
# /home/...), or an input URL only a plugin could fetch, the message
# naming it.
#
# Each file runs in a scratch directory of its own, as its author ran
# it beside the files it names.  What it names relatively and this copy
# lacks (its executable, a "queue from" list, an initialdir, an include
# file) is made there, one refusal after another, so that the whole
# file is read, not only up to its first missing file; a macro it
# expects from its caller (a DAG's VARS, condor_submit NAME=VALUE) and
# that is reported undefined where it breaks the file is given the
# value 1 on the command line.
#
# The corpus is looked for in $CONDOR_SHARED/corpus/submit, else
# ../shared/corpus/submit beside the tree (or beside the tree's parent,
# for a worktree); SKIP when there is none.  One check per file.
# checks: >=1
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SUBMIT=$TOP/bin/condor_submit
corpus=""
for d in ${CONDOR_SHARED:+"$CONDOR_SHARED/corpus/submit"} \
    "$TOP/../shared/corpus/submit" "$TOP/../../shared/corpus/submit"; do
	if [ -d "$d" ] && ls "$d"/*.sub >/dev/null 2>&1; then
		corpus=$(cd "$d" && pwd)
		break
	fi
done
if [ -z "$corpus" ]; then
	echo "SKIP real users' submit files: no corpus (set CONDOR_SHARED)"
	exit 0
fi
if [ ! -x "$SUBMIT" ]; then
	echo "SKIP real users' submit files: $SUBMIT is not built"
	exit 0
fi
work=$(mktemp -d /tmp/condor-realworld.XXXXXX)
trap 'rm -rf "$work"' EXIT

# make_file PATH KIND: make what a refusal said is missing, when it is
# inside the scratch directory $run; 1 when it is not (a path this host
# lacks).
make_file() {
	local path=$1 kind=$2
	case "$path" in
	/*) ;;
	*) path=$run/$path ;;
	esac
	case "$path" in
	"$run"/*) ;;
	*) return 1 ;;
	esac
	case "$kind" in
	dir)
		mkdir -p "$path" ;;
	exe)
		mkdir -p "$(dirname "$path")" &&
		    printf '#!/bin/sh\nexit 0\n' >"$path" && chmod 755 "$path" ;;
	list)
		mkdir -p "$(dirname "$path")" && printf 'a1 b1 c1 d1\n' >"$path" ;;
	*)
		mkdir -p "$(dirname "$path")" && : >"$path" ;;
	esac
}

for sub in "$corpus"/*.sub; do
	name=$(basename "$sub" .sub)
	run=$work/$name
	mkdir -p "$run"
	vars=()
	verdict=""
	for _ in $(seq 1 12); do
		(cd "$run" && env -i PATH=/usr/bin:/bin HOME="$run" \
		    USER=corpus LANG=C "$SUBMIT" -dry-run "${vars[@]}" \
		    "$sub" >"$run/.out" 2>"$run/.err" </dev/null)
		rc=$?
		if [ "$rc" -eq 0 ]; then
			if grep -q '^ProcId = ' "$run/.out"; then
				verdict="pass:accepted ($(grep -c '^ProcId = ' "$run/.out") job(s))"
			else
				verdict="fail:accepted, but no job ad printed"
			fi
			break
		fi
		msg=$(grep -v ': warning: ' "$run/.err" | grep -v 'no universe given' | tail -n 1)
		msg=${msg#condor_submit: }
		msg=${msg#"$sub:"}
		case "$msg" in
		*'universe "'*'" is not supported'*)
			verdict="pass:refused: $msg"
			break ;;
		*': executable '*': directory '*)
			d=${msg##*: directory }
			d=${d%%: *}
			make_file "$d" dir && continue
			verdict="pass:refused for a path this host lacks: $msg"
			break ;;
		*': executable '*': No such file or directory')
			p=${msg#*: executable }
			p=${p%: No such file or directory}
			make_file "$p" exe && continue
			verdict="pass:refused for a path this host lacks: $msg"
			break ;;
		*': queue ... from '*': No such file or directory')
			p=${msg#*: queue ... from }
			p=${p%: No such file or directory}
			case "$p" in *...) verdict="pass:refused for a path this host lacks: $msg"; break ;; esac
			make_file "$p" list && continue
			verdict="pass:refused for a path this host lacks: $msg"
			break ;;
		*': initialdir '*': No such file or directory')
			p=${msg#*: initialdir }
			p=${p%: No such file or directory}
			make_file "$p" dir && continue
			verdict="pass:refused for a path this host lacks: $msg"
			break ;;
		*': include '*': No such file or directory')
			p=${msg#*: include }
			p=${p%: No such file or directory}
			make_file "$p" file && continue
			verdict="pass:refused for a path this host lacks: $msg"
			break ;;
		*'nothing to submit: no '*' matches '*' (queue ... matching)')
			# One file (or directory) the pattern matches.
			p=${msg#*nothing to submit: no * matches }
			p=${p% (queue ... matching)}
			p=$(printf '%s' "$p" | sed 's/\[[^]]*\]/x/g; s/[*?]/x/g')
			case "$msg" in
			*'no directory matches'*) make_file "$p" dir && continue ;;
			*) make_file "$p" file && continue ;;
			esac
			verdict="pass:refused for a path this host lacks: $msg"
			break ;;
		*': transfer_input_files: '*' cannot be fetched: only files of this host are transferred here, not URLs')
			# A URL its author's pool fetched with a plugin.
			verdict="pass:refused for what this host lacks (a URL fetched by a plugin): $msg"
			break ;;
		*'(undefined: $('*'))'*)
			v=${msg##*(undefined: \$(}
			v=${v%%)*}
			vars+=("$v=1")
			continue ;;
		esac
		verdict="fail:refused: $msg"
		break
	done
	[ -n "$verdict" ] || verdict="fail:still refused after making what it named: $msg"
	case "$verdict" in
	pass:*) echo "PASS $name: ${verdict#pass:}" ;;
	*) echo "FAIL $name: ${verdict#fail:}" ;;
	esac
done
exit 0
