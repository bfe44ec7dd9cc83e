#!/usr/bin/env bash
# The manual pages and the code say the same thing:
#  1. every setting the code reads by name (param("NAME"), param_int,
#     param_bool, param_double, param_is_expr, timeout_param,
#     rpc_host_allowed) is in the settings table, src/common/config_table.c;
#  2. every setting of the table is described in condor_config(5) (the
#     check of tests/unit/config_test.c, whose verdict is read here);
#  3. every option a command's -h prints is in its page man/man1/NAME.1;
#  4. every daemon's opening page (src/D/D.c, STYLE.md rule 2) names the
#     RPC procedures of include/D_rpc.x, and no procedure of its program
#     that the file lacks;
#  5. every page under man/ renders with `man -l` from the top of the
#     tree (groff when man-db is missing) with no warning at all.
# One line per check; a FAIL lists what disagrees.  Then each check is
# shown to catch a discrepancy put in on purpose, on a copy of the pages
# and sources (DOCS_TOP names the tree examined; DOCS_SELFTEST=1 runs
# the five checks alone).
# checks: 11
TOP=${DOCS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP" || exit 1
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }
verdict() {	# verdict NAME LIST-OF-DISCREPANCIES
	if [ -z "$2" ]; then pass "$1"; else fail "$1" "$(echo $2)"; fi
}

# The table's names: the rows '{ "NAME", ...' of config_table.c.
table_names() {
	sed -nE 's/^[[:space:]]*\{ "([A-Za-z0-9_]+)",.*/\1/p' \
	    src/common/config_table.c | sort -u
}

# 1. Names the code reads, as string literals of the getters.
read_names() {
	grep -rhoE '\b(param|param_int|param_bool|param_double|param_is_expr|timeout_param)\("[A-Za-z][A-Za-z0-9_]*"' \
	    src --include='*.c' | sed -E 's/.*\("//; s/"$//'
	grep -rhoE 'rpc_host_allowed\([^,()]*, *"[A-Za-z0-9_]+"' src \
	    --include='*.c' | sed -E 's/.*"([A-Za-z0-9_]+)"$/\1/'
}
missing=$(comm -23 <(read_names | sort -u) <(table_names))
verdict "every setting the code reads is in the settings table" "$missing"

# 2. config_test's own check, reused.
if [ -x obj/tests/config_test ]; then
	out=$(obj/tests/config_test 2>&1)
	undoc=$(sed -nE 's/^FAIL man: condor_config\(5\) [a-z ]*([A-Za-z0-9_]+).*/\1/p' <<<"$out")
	nman=$(grep -c '^PASS man: condor_config(5)' <<<"$out")
	if [ "$nman" -eq 0 ] && [ -z "$undoc" ]; then
		fail "every table entry is in condor_config(5)" \
		    "config_test made no man-page check"
	else
		verdict "every table entry is in condor_config(5)" "$undoc"
	fi
else
	echo "SKIP every table entry is in condor_config(5): obj/tests/config_test is not built"
fi

# A page as plain text: "\-" as "-", font changes dropped; a page that
# is only ".so man1/other.1" is the other page.
man_text() {
	local f=$1 so
	so=$(sed -nE '1s/^\.so[[:space:]]+//p' "$f")
	[ -n "$so" ] && [ -f "man/$so" ] && f=man/$so
	sed -E 's/\\-/-/g; s/\\f[BIRP]//g; s/\\\(.{2}//g' "$f"
}

# 3. Options in -h against the command's page.  The options are those of
# the usage lines (and their continuations) and the first word of each
# line that describes an option; a mention in passing ("shown by
# condor_q -analyze") is not one.
help_options() {
	awk '/^usage:/ || /^[ \t]+(\[|condor_)/ { print; next }
	    /^[ \t]+-[a-z]/ { print $1 }' |
	    grep -oE '(^|[][ (|,])-[a-z][a-z0-9-]*' | sed -E 's/^[^-]//' |
	    sort -u
}
undoc=
ncmd=0
for cmd in bin/condor_*; do
	name=${cmd#bin/}
	page=man/man1/$name.1
	[ -x "$cmd" ] || continue
	ncmd=$((ncmd + 1))
	if [ ! -f "$page" ]; then
		undoc="$undoc $name(no page)"
		continue
	fi
	text=$(man_text "$page")
	for opt in $(timeout 10 "$cmd" -h 2>&1 | help_options); do
		grep -qE -- "(^|[^A-Za-z0-9-])$opt([^A-Za-z0-9-]|\$)" <<<"$text" ||
			undoc="$undoc $name:$opt"
	done
done
if [ "$ncmd" -eq 0 ]; then
	echo "SKIP every -h option is in the command's page: no command is built"
else
	verdict "every -h option of the $ncmd commands is in its page" "$undoc"
fi

# 4. The daemons' opening pages against their protocols.
procedures() {	# the procedure names of an .x file
	tr '\n' ' ' <"$1" | sed -E 's:/\*([^*]|\*+[^*/])*\*+/::g' |
	    grep -oE '\b[A-Z][A-Z0-9_]*[[:space:]]*\([^()]*\)[[:space:]]*=[[:space:]]*[0-9]+[[:space:]]*;' |
	    sed -E 's/[[:space:]]*\(.*//' | sort -u
}
other_names() {	# every other upper-case name an .x file defines
	grep -oE '\b[A-Z][A-Z0-9_]+\b' "$1" | sort -u
}
opening_page() {	# the first comment of a C file
	awk 'NR == 1 && !/^\/\*/ { exit } { print } /\*\// { exit }' "$1"
}
bad=
ndaemons=0
for x in include/*_rpc.x; do
	d=$(basename "$x" _rpc.x)
	c=src/$d/$d.c
	[ -f "$c" ] || continue
	ndaemons=$((ndaemons + 1))
	page=$(opening_page "$c")
	procs=$(procedures "$x")
	for p in $procs; do
		grep -qw "$p" <<<"$page" || bad="$bad $d:lacks:$p"
	done
	# Names in the page that look like this program's procedures
	# (its prefix) but are neither a procedure, another name of the
	# .x file, nor a setting.
	prefix=$(tr a-z A-Z <<<"$d")_
	for w in $(grep -oE "\b${prefix}[A-Z0-9_]+\b" <<<"$page" | sort -u); do
		grep -qx "$w" <<<"$procs" && continue
		grep -qx "$w" <(other_names "$x") && continue
		grep -qx "$w" <(table_names) && continue
		bad="$bad $d:names-unknown:$w"
	done
done
verdict "the $ndaemons daemons' pages name their RPC procedures" "$bad"

# 5. Every page as a user reads it from the tree: `man -l PAGE` (every
# groff warning on), which prints nothing on standard error and
# something on standard output.  A ".so" page must resolve from here.
render() {	# render PAGE: its text; groff's complaints on stderr
	if command -v man >/dev/null; then
		LC_ALL=C MANWIDTH=80 man --warnings=w -l "$1"
	else
		groff -man -Tascii -ww "$1"
	fi
}
if command -v man >/dev/null || command -v groff >/dev/null; then
	bad=
	npages=0
	for page in man/man[1-9]/*.[1-9]; do
		npages=$((npages + 1))
		err=$(render "$page" 2>&1 >/dev/null)
		[ -n "$err" ] && bad="$bad $page($(echo $err | cut -c1-120))"
		[ "$(render "$page" 2>/dev/null | grep -c .)" -gt 0 ] ||
			bad="$bad $page(empty)"
	done
	verdict "the $npages manual pages render with man -l without warnings" "$bad"
else
	echo "SKIP every manual page renders: neither man nor groff is installed"
fi

[ -n "${DOCS_SELFTEST:-}" ] && exit 0

# Each check fails on a copy with one discrepancy.
copy=$(mktemp -d /tmp/condor-docs.XXXXXX)
trap 'rm -rf "$copy"' EXIT
# caught NAME PATTERN: a copy of the tree is made and changed by the
# commands on standard input (run in the copy); the check whose line
# matches PATTERN must then FAIL.
caught() {
	local name=$1 pattern=$2 out
	rm -rf "$copy/t"
	mkdir -p "$copy/t/obj"
	cp -r src include man "$copy/t/"
	ln -s "$TOP/bin" "$copy/t/bin"
	[ -d obj/tests ] && ln -s "$TOP/obj/tests" "$copy/t/obj/tests"
	(cd "$copy/t" && bash -e) || { fail "$name" "could not change the copy"; return; }
	out=$(DOCS_TOP="$copy/t" DOCS_SELFTEST=1 bash "$0" 2>&1)
	if grep -q "^FAIL .*$pattern" <<<"$out"; then
		pass "$name"
	elif grep -q "^SKIP .*$pattern" <<<"$out"; then
		echo "SKIP $name: the check cannot run here"
	else
		fail "$name" "$(grep "$pattern" <<<"$out")"
	fi
}
caught "a setting read but not in the table is caught" "settings table" <<'EOS'
printf '%s\n' '#include "config.h"' \
    'const char *docs_probe(void) { return param("DOCS_PROBE_UNLISTED"); }' \
    >src/common/docs_probe.c
EOS
caught "a setting missing from condor_config(5) is caught" "condor_config(5)" <<'EOS'
sed -i 's/CLASSAD_LIFETIME/CLASSAD_LIFE/g' man/man5/condor_config.5
EOS
caught "an option missing from a command's page is caught" "-h option" <<'EOS'
sed -i 's/\\-avail/\\-xavail/g' man/man1/condor_status.1
EOS
caught "a procedure missing from a daemon's page is caught" "RPC procedures" <<'EOS'
sed -i '/^ \*/s/MASTER_RECONFIG/MASTER_RECONFIGURE/' src/master/master.c
EOS
caught "a page that does not render is caught" "manual pages render" <<'EOS'
printf '.so man1/condor_nothere.1\n' >man/man1/condor_fc.1
EOS
caught "a page with a groff warning is caught" "manual pages render" <<'EOS'
printf '.BOGUS_MACRO\n' >>man/man8/condor_master.8
EOS
