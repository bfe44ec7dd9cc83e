#!/usr/bin/env bash
# tests/pool/syscalls_man_test.sh: the committed manual page of the
# remote system calls, man/man7/condor_syscalls.7, is the one printed
# from their table (include/syscall_table.h) by mk/syscall_man.c, built
# here afresh.  `make syscalls-man` refreshes the committed copy.
#
# checks: 2
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/syscalls_man.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if ! ${CC:-cc} -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror \
    -I"$TOP/include" -o "$tmp/syscall_man" "$TOP/mk/syscall_man.c"; then
	echo "FAIL syscalls_man: mk/syscall_man.c does not build"
	exit 0
fi
"$tmp/syscall_man" >"$tmp/condor_syscalls.7"
if diff -u "$TOP/man/man7/condor_syscalls.7" "$tmp/condor_syscalls.7"; then
	echo "PASS syscalls_man: man/man7/condor_syscalls.7 is the table's"
else
	echo "FAIL syscalls_man: man/man7/condor_syscalls.7 differs from" \
	    "what include/syscall_table.h gives (make syscalls-man)"
fi
if ! command -v man >/dev/null; then
	echo "SKIP syscalls_man formatting: no man command"
elif MANWIDTH=80 man -l "$TOP/man/man7/condor_syscalls.7" 2>&1 >/dev/null |
    grep -q .; then
	echo "FAIL syscalls_man: man reports problems with the page"
else
	echo "PASS syscalls_man: the page formats cleanly"
fi
