#!/usr/bin/env bash
# make install PREFIX=DIR installs everything the tree built and every
# manual page:
#  1. it succeeds;
#  2. every program of bin/ is in DIR/bin, executable (condor_fc too);
#  3. every daemon of sbin/ is in DIR/sbin, executable;
#  4. every file of lib/ (the start-up object, the libraries, the
#     header) is in DIR/lib;
#  5. every page of man/manN (each section: 1, 5, 7, 8) is in
#     DIR/share/man/manN, and man finds condor_security(7) there;
#  6. etc/condor_config is in DIR/etc;
#  7. each program's page is in its directory's section: bin's in man1,
#     sbin's in man8.
# checks: 7
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }
verdict() {	# verdict NAME LIST-OF-DISCREPANCIES
	if [ -z "$2" ]; then pass "$1"; else fail "$1" "$(echo $2)"; fi
}

dir=$(mktemp -d /tmp/condor-install.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
if make -s install PREFIX="$dir/tmp" >"$dir/log" 2>&1; then
	pass "make install PREFIX=DIR"
else
	fail "make install PREFIX=DIR" "$(tail -n 5 "$dir/log")"
fi
inst=$dir/tmp

# missing FROM TO: the files under FROM (relative names) that are not
# under TO, or not executable there when FROM's is.
missing() {
	local f
	(cd "$1" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort) |
	    while read -r f; do
		if [ ! -e "$2/$f" ]; then
			echo "$f"
		elif [ -x "$1/$f" ] && [ ! -x "$2/$f" ]; then
			echo "$f(not executable)"
		fi
	done
}

n=$(ls bin | wc -l)
verdict "the $n programs of bin/ are installed" "$(missing bin "$inst/bin")"
n=$(ls sbin | wc -l)
verdict "the $n daemons of sbin/ are installed" "$(missing sbin "$inst/sbin")"
n=$(find lib -type f | wc -l)
verdict "the $n files of lib/ are installed" "$(missing lib "$inst/lib")"

bad=$(missing man "$inst/share/man")
sections=$(ls -d man/man* | sed 's|man/man||' | paste -sd, -)
if [ -z "$bad" ] && command -v man >/dev/null; then
	MANPATH=$inst/share/man man -w 7 condor_security >/dev/null 2>&1 ||
		bad="man -w 7 condor_security"
fi
verdict "the $(find man -type f | wc -l) pages of sections $sections are installed" "$bad"

[ -f "$inst/etc/condor_config" ] && cmp -s etc/condor_config "$inst/etc/condor_config"
verdict "etc/condor_config is installed" "$([ $? -eq 0 ] || echo missing or different)"

bad=
for p in bin/*; do
	[ -f "man/man1/${p#bin/}.1" ] || bad="$bad ${p#bin/}(no man1 page)"
done
for p in sbin/*; do
	[ -f "man/man8/${p#sbin/}.8" ] || bad="$bad ${p#sbin/}(no man8 page)"
done
for page in man/man1/*.1; do
	p=$(basename "$page" .1)
	[ -e "bin/$p" ] || bad="$bad $p(man1 page, not in bin)"
done
for page in man/man8/*.8; do
	p=$(basename "$page" .8)
	[ -e "sbin/$p" ] || bad="$bad $p(man8 page, not in sbin)"
done
verdict "bin's programs have man1 pages, sbin's man8 pages" "$bad"
