#!/usr/bin/env bash
# tests/pool/shared_fs_test.sh: a pool of workstations that share their
# users and a file system (UID_DOMAIN, FILESYSTEM_DOMAIN).  The hosts
# all say UID_DOMAIN = FILESYSTEM_DOMAIN = sfs.test; a directory of the
# pool stands for the shared file system, which exec1 lists in
# SHARED_FILESYSTEM_DIRS with a second one read-only.
#
#   exec1  same domains, TRUST_UID_DOMAIN: jobs run as their owners, in
#          their initialdir on the shared directory, nothing transferred
#   exec2  other domains: the anonymous account and box, files
#          transferred, the shared directory out of sight
#   exec3  same domains without TRUST_UID_DOMAIN (its submitting host,
#          127.0.0.1, is named localhost, not of sfs.test): anonymous
#   exec4  its domains left to their default, which a second schedd
#          (sub2) names: anonymous all the same, the default shares
#          nothing
#
# User nobody's job reads its input by absolute path in the shared
# directory and writes its output there, as nobody; user daemon's job
# cannot read nobody's 0600 file there, nor write into the read-only
# directory (whose mode would let anyone).  A standard job of nobody's
# runs on exec1 as nobody too, in its usual box.
#
# checks: 43
set -u
. "$(dirname "$0")/../lib/pool.sh"

USER1=nobody
USER2=daemon
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null ||
    ! id $USER1 >/dev/null 2>&1 || ! id $USER2 >/dev/null 2>&1; then
	for i in $(seq 43); do
		echo "SKIP shared file system check $i: needs root, setpriv and users $USER1 and $USER2"
	done
	exit 0
fi

pool_init
chmod 755 "$POOL"
# A supplementary group of USER2's, for this test alone.
GROUP=csfs$$
if groupadd -U $USER2 "$GROUP" 2>/dev/null; then
	trap 'groupdel "$GROUP" 2>/dev/null; pool_cleanup' EXIT
else
	GROUP=
fi
SHARED=$POOL/shared
RO=$POOL/readonly
mkdir -p "$SHARED/$USER1" "$SHARED/$USER2" "$RO"
chmod 755 "$SHARED"
chown $USER1 "$SHARED/$USER1"
chown $USER2 "$SHARED/$USER2"
chmod 755 "$SHARED/$USER1" "$SHARED/$USER2"
# Anyone may write it, but for the mount: only the ":ro" keeps jobs out.
chmod 1777 "$RO"
echo "read-only reference" >"$RO/readme"
chmod 644 "$RO/readme"

pool_config 'START : TRUE' 'STARTER_UPDATE_INTERVAL = 1' \
	'VACATE_GRACE = 2' 'MAX_JOB_STARTS = 10' \
	"SHARED_FILESYSTEM_DIRS = $SHARED, $RO:ro"
SFS="UID_DOMAIN = sfs.test"
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD" "$SFS" \
	'FILESYSTEM_DOMAIN = sfs.test'
pool_host exec1 "MASTER, STARTD" "$SFS" 'FILESYSTEM_DOMAIN = sfs.test' \
	'TRUST_UID_DOMAIN = True'
pool_host exec2 "MASTER, STARTD" 'TRUST_UID_DOMAIN = True' \
	'UID_DOMAIN = other.test' 'FILESYSTEM_DOMAIN = other.test'
pool_host exec3 "MASTER, STARTD" "$SFS" 'FILESYSTEM_DOMAIN = sfs.test'
# exec4 leaves its domains to their default, this machine's full name;
# sub2, a second submitting host, names that very name.
pool_host exec4 "MASTER, STARTD" 'TRUST_UID_DOMAIN = True'
DEFAULT_DOMAIN=$(on exec4 condor_config_val UID_DOMAIN)
pool_host sub2 "MASTER, SCHEDD" "UID_DOMAIN = $DEFAULT_DOMAIN" \
	"FILESYSTEM_DOMAIN = $DEFAULT_DOMAIN"
pool_start

. "$TOP/tests/lib/security.sh"
security_users $USER1 $USER2

check "four machines advertise" pool_wait_machines 4 60
check "a machine ad carries UidDomain and FileSystemDomain" \
	test "$(on cm condor_status -af UidDomain FileSystemDomain \
	    -constraint 'Name == "exec2"' 2>/dev/null)" = "other.test other.test"

# The job: what it is, where it is, what it could reach.
# job.sh TAG OTHER_SECRET
cat >"$POOL/job.sh" <<EOF
#!/bin/sh
tag=\$1
echo "uid \$(id -u)"
echo "groups \$(id -G)"
echo "pwd \$(pwd)"
for f in "$SHARED"/*/input.\$tag; do
	[ -f "\$f" ] && cat "\$f" >/dev/null 2>&1 && echo "read input: \$(cat "\$f")"
done
ls "$SHARED" >/dev/null 2>&1 || echo "no shared directory"
[ -e "\$_CONDOR_SCRATCH_DIR/extra.txt" ] && echo "extra.txt transferred"
echo "result of \$tag by \$(id -u)" >"\$PWD/result.\$tag" 2>/dev/null &&
    echo "wrote result"
[ -n "\$2" ] && cat "\$2" >/dev/null 2>&1 && echo "read the other's secret"
[ -n "\$2" ] && echo x 2>/dev/null >"\$(dirname "\$2")/planted.\$tag" &&
    echo "wrote the other's directory"
echo x 2>/dev/null >"$RO/probe.\$tag" && echo "wrote the read-only directory"
cat "$RO/readme" >/dev/null 2>&1 && echo "read the read-only directory"
cat "$POOL/pool_key" >/dev/null 2>&1 && echo "read the pool key"
ls "$POOL/cm" >/dev/null 2>&1 && echo "saw the pool's directory"
echo done
EOF
chmod 755 "$POOL/job.sh"

# sub USER TAG HOST [OTHER_SECRET]: USER's job, initialdir its shared
# directory, on HOST; its cluster, or nothing.
sub() {
	local d=$SHARED/$1
	cp "$POOL/job.sh" "$d/job.sh"
	echo "input of $2" >"$d/input.$2"
	echo extra >"$d/extra.txt"
	chown $1 "$d/job.sh" "$d/input.$2" "$d/extra.txt"
	cat >"$d/$2.sub" <<EOF
universe              = vanilla
executable            = job.sh
arguments             = $2 ${4:-}
initialdir            = $d
requirements          = Name == "$3"
should_transfer_files = IF_NEEDED
transfer_input_files  = extra.txt
output                = $2.out
error                 = $2.err
log                   = $2.log
queue
EOF
	chown $1 "$d/$2.sub"
	(cd "$d" && CONDOR_CONFIG=$POOL/$SUBMIT_HOST/condor_config \
	    as $1 condor_submit "$2.sub" 2>&1) |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
SUBMIT_HOST=cm
gone() {
	test -z "$(on $SUBMIT_HOST condor_q "$1.0" -af JobStatus 2>/dev/null)"
}
out_has() { grep -qx "$2" "$SHARED/$1.out"; }
out_lacks() { ! grep -qx "$2" "$SHARED/$1.out"; }
U1=$(id -u $USER1)
U2=$(id -u $USER2)

# --- 1. user nobody's job on exec1: its owner, its initialdir ----------
C=$(sub $USER1 a exec1)
check "$USER1's job is submitted" test -n "$C"
check "its ad carries the submitting host's domains" \
	test "$(on cm condor_q "$C.0" -af UidDomain FileSystemDomain \
	    2>/dev/null)" = "sfs.test sfs.test"
check "it runs on exec1 and completes" wait_for 120 gone "$C"
check "... to its end" out_has $USER1/a done
check "it runs as its owner (uid $U1)" out_has $USER1/a "uid $U1"
check "... with its owner's groups ($(id -G $USER1))" \
	out_has $USER1/a "groups $(id -G $USER1)"
check "it runs in its initialdir on the shared directory" \
	out_has $USER1/a "pwd $SHARED/$USER1"
check "it reads its input by absolute path there" \
	out_has $USER1/a "read input: input of a"
check "its output file is written there, by its owner" \
	test "$(cat "$SHARED/$USER1/result.a" 2>/dev/null)" = "result of a by $U1" \
	-a "$(stat -c %u "$SHARED/$USER1/result.a" 2>/dev/null)" = "$U1"
check "should_transfer_files = IF_NEEDED transferred nothing" \
	out_lacks $USER1/a "extra.txt transferred"
check "the StarterLog says why" grep -q \
	"job $C.0: FILESYSTEM_DOMAIN sfs.test: no files transferred" \
	"$POOL/exec1/log/StarterLog"
check "it sees the read-only directory" \
	out_has $USER1/a "read the read-only directory"
check "... and cannot write it, whatever its mode" \
	out_lacks $USER1/a "wrote the read-only directory"
check "it sees neither the pool key nor the pool's directory" \
	test -z "$(grep -x -e 'read the pool key' -e "saw the pool's directory" \
	    "$SHARED/$USER1/a.out")"
check "it is never root" out_lacks $USER1/a "uid 0"

# --- 2. user daemon's job on exec1: another owner ----------------------
echo "$USER1's secret" >"$SHARED/$USER1/secret"
chown $USER1 "$SHARED/$USER1/secret"
chmod 600 "$SHARED/$USER1/secret"
C2=$(sub $USER2 b exec1 "$SHARED/$USER1/secret")
check "$USER2's job is submitted" test -n "$C2"
check "it completes" wait_for 120 gone "$C2"
check "... to its end" out_has $USER2/b done
check "it runs as its owner, $USER2 (uid $U2)" out_has $USER2/b "uid $U2"
if [ -n "$GROUP" ]; then
	GID=$(getent group "$GROUP" | cut -d: -f3)
	check "... with its supplementary group $GROUP ($GID)" \
		grep -qE "^groups( [0-9]+)* $GID( |\$)" "$SHARED/$USER2/b.out"
else
	skip "... with its supplementary group" "groupadd -U cannot make one"
fi
check "it reads its own input" out_has $USER2/b "read input: input of b"
check "it cannot read $USER1's 0600 file in the shared directory" \
	out_lacks $USER2/b "read the other's secret"
check "it cannot write into $USER1's directory" \
	test ! -e "$SHARED/$USER1/planted.b"
check "it cannot write into the read-only directory (mode 1777)" \
	test ! -e "$RO/probe.b"

# --- 3. other domains (exec2): the anonymous account and box ------------
C3=$(sub $USER1 c exec2)
check "on a host of other domains the job completes" wait_for 120 gone "$C3"
check "... as an account of its own, not $USER1" test -n \
	"$(sed -n 's/^uid \([0-9]*\)$/\1/p' "$SHARED/$USER1/c.out" |
	    grep -vx -e "$U1" -e 0)"
check "... in its execute directory, files transferred" \
	out_has $USER1/c "extra.txt transferred"
check "... without the shared directory in sight" \
	out_has $USER1/c "no shared directory"

# --- 4. TRUST_UID_DOMAIN false (exec3): the submitter's claim checked --
C4=$(sub $USER1 d exec3)
check "without TRUST_UID_DOMAIN the job completes" wait_for 120 gone "$C4"
check "... as an account of its own: localhost is not of sfs.test" \
	test -n "$(sed -n 's/^uid \([0-9]*\)$/\1/p' "$SHARED/$USER1/d.out" |
	    grep -vx -e "$U1" -e 0)" -a -n "$(grep "job $C4.0: its submitting host" \
	    "$POOL/exec3/log/StarterLog")"
check "... without the shared directory in sight" \
	out_has $USER1/d "no shared directory"

# --- 5. a standard job of the same domains (exec1): its owner too -------
# Its files are the shadow's in any case; it runs as its owner in its
# usual box (chroot, filter), and never on the shared file system.
cat >"$POOL/hello.c" <<'EOF2'
#include <stdio.h>
int main(void) { puts("standard ok"); return 0; }
EOF2
check "a standard job relinks with condor_cc" \
	condor_cc -O2 -o "$SHARED/$USER1/hello" "$POOL/hello.c"
cat >"$SHARED/$USER1/std.sub" <<EOF
universe     = standard
executable   = hello
initialdir   = $SHARED/$USER1
requirements = Name == "exec1"
output       = std.out
error        = std.err
queue
EOF
chown $USER1 "$SHARED/$USER1/std.sub" "$SHARED/$USER1/hello"
C5=$( (cd "$SHARED/$USER1" && as $USER1 condor_submit std.sub 2>&1) |
    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "it completes, its output written" wait_for 120 grep -qx "standard ok" \
	"$SHARED/$USER1/std.out"
check "... having run as its owner, boxed as before" test -n \
	"$(grep "job $C5.0 started: pid [0-9]* as $USER1 in $POOL/exec1/execute/dir_" \
	    "$POOL/exec1/log/StarterLog")"

# --- 6. the default domains (exec4): nothing shared ---------------------
# sub2's jobs carry exec4's own default UID_DOMAIN; exec4 trusts the
# claim, but only a UID_DOMAIN written in its configuration shares.
SUBMIT_HOST=sub2
check "sub2 has a schedd" wait_for 60 test -S "$POOL/sub2/spool/.schedd_socket"
C6=$(sub $USER1 e exec4)
check "a job whose UidDomain is exec4's default ($DEFAULT_DOMAIN) completes" \
	wait_for 120 gone "$C6"
check "... as an account of its own, the shared directory out of sight" \
	test -n "$(sed -n 's/^uid \([0-9]*\)$/\1/p' "$SHARED/$USER1/e.out" |
	    grep -vx -e "$U1" -e 0)" -a -n "$(grep -x 'no shared directory' \
	    "$SHARED/$USER1/e.out")"

# --- 7. initialdirs on exec1 that are not simply there ------------------
SUBMIT_HOST=cm
# A link out of the shared directories: the box would not have where it
# leads, so the files are transferred, the job still its owner's.
mkdir -p "$POOL/elsewhere"
chown $USER1 "$POOL/elsewhere"
chmod 755 "$POOL/elsewhere"
ln -s "$POOL/elsewhere" "$SHARED/$USER1/link"
cp "$POOL/job.sh" "$POOL/elsewhere/job.sh"
echo extra >"$POOL/elsewhere/extra.txt"
chown $USER1 "$POOL/elsewhere/job.sh" "$POOL/elsewhere/extra.txt"
cat >"$POOL/elsewhere/f.sub" <<EOF
universe              = vanilla
executable            = job.sh
arguments             = f
initialdir            = $SHARED/$USER1/link
requirements          = Name == "exec1"
should_transfer_files = IF_NEEDED
transfer_input_files  = extra.txt
output                = f.out
error                 = f.err
queue
EOF
chown $USER1 "$POOL/elsewhere/f.sub"
C7=$( (cd "$POOL/elsewhere" && as $USER1 condor_submit f.sub 2>&1) |
    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
check "a job whose initialdir links out of the shared directories completes" \
	wait_for 120 gone "$C7"
check "... as its owner, its files transferred" \
	test -n "$(grep -x "uid $U1" "$POOL/elsewhere/f.out")" -a \
	-n "$(grep -x 'extra.txt transferred' "$POOL/elsewhere/f.out")"

# An initialdir its owner cannot enter: held, saying so (it would fail
# on any host of the file system).  Queued for no machine first, so
# that the directory is closed before it runs.
mkdir -p "$SHARED/$USER1/closed"
cat >"$SHARED/$USER1/g.sub" <<EOF
universe              = vanilla
executable            = $SHARED/$USER1/job.sh
arguments             = g
initialdir            = $SHARED/$USER1/closed
requirements          = Name == "nowhere"
should_transfer_files = IF_NEEDED
output                = $SHARED/$USER1/g.out
error                 = $SHARED/$USER1/g.err
queue
EOF
chown $USER1 "$SHARED/$USER1/g.sub"
C8=$( (cd "$SHARED/$USER1" && as $USER1 condor_submit g.sub 2>&1) |
    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p')
chmod 700 "$SHARED/$USER1/closed"	# root's: closed to its owner
as $USER1 condor_qedit "$C8" Requirements '(Name == "exec1")' >/dev/null 2>&1
held() { test "$(on cm condor_q "$1.0" -af JobStatus 2>/dev/null)" = 5; }
check "a job whose initialdir its owner cannot enter is held" \
	wait_for 120 held "$C8"
hold_reason_has() {
	on cm condor_q "$1.0" -af HoldReason 2>/dev/null | grep -qF "$2"
}
check "... saying why" hold_reason_has "$C8" \
	"cannot enter its initialdir $SHARED/$USER1/closed as $USER1"
