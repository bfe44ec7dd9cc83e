#!/usr/bin/env bash
# tests/pool/remote_libs_test.sh: real libraries nobody here wrote,
# linked with condor_cc from Debian's static libraries, run as
# standard-universe jobs on a pool of a central manager and three
# execute hosts: SQLite (a database of 10,000 rows inserted in 100
# transactions: file locks, pread/pwrite, fsync, the journal's unlink),
# zlib (2 MB compressed with gzwrite and read back) and a gfortran
# program writing a formatted file.  Each runs natively (cc -static) in
# one directory and under Condor with initialdir another directory
# holding the same inputs; their output and every file they produce,
# the database included, must be byte-identical.
#
# When the tests run as root the jobs are submitted by user nobody.
#
# checks: 50
set -u
. "$(dirname "$0")/../lib/pool.sh"

for f in /usr/lib/x86_64-linux-gnu/libsqlite3.a \
    /usr/lib/x86_64-linux-gnu/libz.a /usr/include/sqlite3.h; do
	if [ ! -e "$f" ]; then
		echo "FAIL $f is missing (apt-get install libsqlite3-dev zlib1g-dev)"
		exit 1
	fi
done

pool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTER_TIMEOUT = 20' 'MAX_JOB_STARTS = 10'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host exec1 "MASTER, STARTD"
pool_host exec2 "MASTER, STARTD"
pool_host exec3 "MASTER, STARTD"
pool_start
trap pool_cleanup EXIT

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "three machines advertise" pool_wait_machines 3 60

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
cd "$W" || exit 1

P="$TOP/tests/programs"
check "remote_sqlite builds natively" cc -O2 -static -o remote_sqlite.native \
	"$P/remote_sqlite.c" -lsqlite3 -lm
check "remote_sqlite relinks with condor_cc" condor_cc -O2 -o remote_sqlite \
	"$P/remote_sqlite.c" -lsqlite3 -lm
check "remote_zlib builds natively" cc -O2 -static -o remote_zlib.native \
	"$P/remote_zlib.c" -lz
check "remote_zlib relinks with condor_cc" condor_cc -O2 -o remote_zlib \
	"$P/remote_zlib.c" -lz
check "remote_fortran builds natively" gfortran -O2 -static \
	-o remote_fortran.native "$P/remote_fortran.f90"
check "remote_fortran relinks with condor_cc -fortran" condor_cc -fortran \
	-O2 -o remote_fortran "$P/remote_fortran.f90"
check "remote_signals builds natively" cc -O2 -static \
	-o remote_signals.native "$P/remote_signals.c"
check "remote_signals relinks with condor_cc" condor_cc -O2 \
	-o remote_signals "$P/remote_signals.c"

pool_owner "$W"
submit() {
	(cd "$W" && as_owner "$RELEASE/bin/condor_submit" "$1" 2>&1) |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
cm() { on cm "$@"; }
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }

# The same inputs in fresh directories, owned by the job's owner.
setup_dir() {
	mkdir -p "$1"
	echo 2000 >"$1/params.txt"
	case $1 in
	*/remote_sqlite)
		python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE h (x)"); c.execute("INSERT INTO h VALUES (1)")
c.commit()' "$1/held.db" ;;
	esac
	[ "$OWNER" = nobody ] && chown -R nobody "$1"
	return 0
}

# hold_lock DIR: another process holds an exclusive lock on DIR/held.db
# (until killed, at most 300 s); sets HOLDER to its pid.
HOLDERS=()
hold_lock() {
	rm -f "$1/holding"
	python3 -c 'import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1] + "/held.db", isolation_level=None)
c.execute("BEGIN EXCLUSIVE"); open(sys.argv[1] + "/holding", "w").close()
time.sleep(300)' "$1" &
	HOLDER=$!
	HOLDERS+=("$HOLDER")
	wait_for 20 test -e "$1/holding"
	rm -f "$1/holding"
}
trap 'for p in ${HOLDERS[@]+"${HOLDERS[@]}"}; do kill "$p" 2>/dev/null; done; pool_cleanup' EXIT

PROGS="remote_sqlite remote_zlib remote_fortran remote_signals"
declare -A CLUSTER
for prog in $PROGS; do
	setup_dir "$W/native/$prog"
	setup_dir "$W/condor/$prog"
	if [ $prog = remote_sqlite ]; then
		hold_lock "$W/native/$prog"
		NATIVE_HOLDER=$HOLDER
		hold_lock "$W/condor/$prog"
		CONDOR_HOLDER=$HOLDER
	fi
	(cd "$W/native/$prog" && as_owner "$W/$prog.native" \
	    >stdout.txt 2>stderr.txt; echo $? >status.txt)
	[ $prog = remote_sqlite ] && kill "$NATIVE_HOLDER"
	cat >"$prog.sub" <<EOF2
universe   = standard
executable = $prog
initialdir = $W/condor/$prog
output     = stdout.txt
error      = stderr.txt
log        = $W/$prog.log
queue
EOF2
	chmod 644 "$prog.sub"
	CLUSTER[$prog]=$(submit "$prog.sub")
	check "the $prog job is submitted" test -n "${CLUSTER[$prog]}"
done

for prog in $PROGS; do
	C=${CLUSTER[$prog]}
	[ -n "$C" ] || continue
	check "$prog: job $C.0 completes" wait_for 120 in_history "$C.0"
	[ $prog = remote_sqlite ] && kill "$CONDOR_HOLDER"
	[ $prog = remote_signals ] && continue
	check "$prog: exit code as natively" test \
		"$(cm condor_history "$C.0" -af ExitCode 2>/dev/null)" = \
		"$(cat "$W/native/$prog/status.txt")"
	check "$prog: native run succeeded" test "$(cat "$W/native/$prog/status.txt")" = 0
	check "$prog: stdout identical to the native run's" \
		cmp "$W/native/$prog/stdout.txt" "$W/condor/$prog/stdout.txt"
	check "$prog: the job's output is complete" \
		grep -qx done "$W/condor/$prog/stdout.txt"
done

# raise() and abort() under Condor: signals to itself as natively, to
# anyone else refused.
S="$W/condor/remote_signals/stdout.txt"
C=${CLUSTER[remote_signals]}
check "signals: the native run died of SIGABRT" \
	test "$(cat "$W/native/remote_signals/status.txt")" = $((128 + 6))
check "signals: the job died of SIGABRT" test "$(cm condor_history "$C.0" \
	-af ExitBySignal ExitSignal 2>/dev/null)" = "true 6"
check "signals: raise, kill and tgkill to itself as natively" \
	cmp <(grep '^same' "$W/native/remote_signals/stdout.txt") <(grep '^same' "$S")
check "signals: the handler ran three times" \
	grep -q '^same tgkill(self): handler ran 3 time' "$S"
for what in "kill 1" "kill group" "kill all" "tgkill other"; do
	check "signals: $what refused" grep -q "^condor $what  *Operation not permitted" "$S"
done

d() { echo "$W/$1/remote_sqlite"; }
check "sqlite: test.db identical to the native run's" \
	cmp "$(d native)/test.db" "$(d condor)/test.db"
check "sqlite: the database holds 9,897 rows (sqlite3 reads it)" test \
	"$(sqlite3 "$(d condor)/test.db" 'SELECT count(*) FROM t' 2>&1)" = 9897
check "sqlite: integrity ok" grep -qx ok "$(d condor)/stdout.txt"
check "sqlite: the job sees another process's lock (SQLITE_BUSY)" test \
	"$(grep -c '^held.db: .*: 5 database is locked' "$(d condor)/stdout.txt")" = 2
check "sqlite: no journal left" test ! -e "$(d condor)/test.db-journal"
check "sqlite: the database belongs to the owner" \
	test "$(stat -c %U "$(d condor)/test.db")" = "$OWNER"
echo "native:  $(cat "$(d native)/stderr.txt")"
echo "condor:  $(cat "$(d condor)/stderr.txt")"
C=${CLUSTER[remote_sqlite]}
[ -n "$C" ] && echo "remote_sqlite: $(cm condor_history "$C.0" \
	-af NumRemoteSyscalls BytesSent BytesRecvd 2>/dev/null) (calls, bytes sent, received)"
for f in plain.txt plain.txt.gz back.txt; do
	check "zlib: $f identical to the native run's" \
		cmp "$W/native/remote_zlib/$f" "$W/condor/remote_zlib/$f"
done
check "fortran: table.txt identical to the native run's" \
	cmp "$W/native/remote_fortran/table.txt" "$W/condor/remote_fortran/table.txt"
check "fortran: 2000 rows read back" \
	grep -q 'rows read back: 2000' "$W/condor/remote_fortran/stdout.txt"
check "no file of the jobs in the execute directories" \
	bash -c "! find $POOL/exec*/execute \( -name test.db -o -name table.txt -o -name 'plain.txt*' \) 2>/dev/null | grep -q ."

echo "$POOL_FAILS failed"
[ "$POOL_FAILS" = 0 ]
