#!/usr/bin/env bash
# tests/pool/classad_pool_test.sh: expressions as real users write them,
# evaluated by the pool's matchmaker, startds and schedd with HTCondor's
# meaning.  A request_memory of the form real submit files use,
# ifThenElse(MemoryUsage =!= undefined, MAX({2048, MemoryUsage*3/2}), 1024),
# is 1024 for a job that never ran: it matches and is carved so from a
# partitionable slot.  Requirements with regexp() on TARGET.Machine,
# stringListsIntersect() and toUpper() run each job on the machines they
# name and on no other.
#
# checks: 12
set -u
. "$(dirname "$0")/../lib/pool.sh"

pool_init
chmod 755 "$POOL"
pool_config 'START : TRUE' 'STARTER_UPDATE_INTERVAL = 1' \
	'STARTD_ATTRS = Features, Site'
pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
pool_host blade1 "MASTER, STARTD" 'Features = "avx2, sse4"' 'Site = "wisc"'
pool_host blade2 "MASTER, STARTD" 'Features = "sse4"' 'Site = "Wisc"'
pool_host node7 "MASTER, STARTD" 'Features = "gpu, avx2"' 'Site = "unl"' \
	'NUM_CPUS = 2' 'MEMORY = 4096'
pool_start

check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
check "three machines advertise" pool_wait_machines 3 60

W="$POOL/work"
mkdir -p "$W"
chmod 755 "$W"
cd "$W" || exit 1
pool_owner "$W"
cm() { on cm "$@"; }
submit() {
	(cd "$W" && as_owner "$RELEASE/bin/condor_submit" "$1" 2>&1) |
	    sed -n 's/.* submitted to cluster \([0-9]*\)\./\1/p'
}
in_history() { test -n "$(cm condor_history "$1" -af ProcId 2>/dev/null)"; }
all_done() {
	local c=$1 n=$2
	test "$(cm condor_history "$c" -af ProcId 2>/dev/null | wc -l)" -ge "$n"
}
# hosts C: the machines cluster C's jobs ran on, sorted, unique.
hosts() {
	cm condor_history "$1" -af LastRemoteHost 2>/dev/null |
	    sed 's/.*@//' | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# --- request_memory as real files write it -------------------------------
# The job waits in its scratch directory for "go", so that its slot can
# be seen while it runs.
cat >wait.sh <<'EOF'
#!/bin/sh
d=${_CONDOR_SCRATCH_DIR:-.}
touch "$d/started"
while [ ! -e "$d/go" ]; do sleep 0.2; done
EOF
chmod 755 wait.sh
cat >mem.sub <<EOF
universe       = vanilla
executable     = wait.sh
request_memory = ifThenElse(MemoryUsage =!= undefined, MAX({2048, MemoryUsage*3/2}), 1024)
requirements   = TARGET.Machine == "node7"
queue
EOF
chmod 644 mem.sub
M=$(submit mem.sub)
check "the MAX({...}) request is accepted by condor_submit" test -n "$M"
dslot() {
	test "$(cm condor_status -constraint 'Name == "slot1_1@node7"' \
	    -af Memory 2>/dev/null)" = 1024
}
check "... matches and runs in a dynamic slot of 1024 MiB, HTCondor's value" \
	wait_for 90 dslot
# The slot can be advertised before the job has started: wait for it.
let_go() {
	local d
	for d in "$POOL"/node7/execute/dir_*; do
		[ -e "$d/started" ] && touch "$d/go" && return 0
	done
	return 1
}
wait_for 60 let_go
check "... and completes" wait_for 60 in_history "$M.0"

# --- regexp() on TARGET.Machine -------------------------------------------
cat >regexp.sub <<'EOF'
universe     = vanilla
executable   = /bin/true
requirements = regexp("blade.*", TARGET.Machine)
queue 6
EOF
chmod 644 regexp.sub
R=$(submit regexp.sub)
check "regexp(\"blade.*\", TARGET.Machine): all six complete" \
	wait_for 120 all_done "$R" 6
check "... on the blades only ($(hosts "$R"))" \
	bash -c "[ -n '$(hosts "$R")' ] && ! echo '$(hosts "$R")' | grep -q node7"

# A PCRE class, which POSIX regular expressions do not have.
cat >digit.sub <<'EOF'
universe     = vanilla
executable   = /bin/true
requirements = regexp("^node\\d+$", TARGET.Machine)
queue 2
EOF
chmod 644 digit.sub
D=$(submit digit.sub)
check "regexp(\"^node\\\\d+\$\", TARGET.Machine): both complete" \
	wait_for 120 all_done "$D" 2
check "... on node7 only ($(hosts "$D"))" test "$(hosts "$D")" = node7

# --- stringListsIntersect() -------------------------------------------------
cat >features.sub <<'EOF'
universe     = vanilla
executable   = /bin/true
requirements = stringListsIntersect("avx2,avx512", TARGET.Features)
queue 4
EOF
chmod 644 features.sub
F=$(submit features.sub)
check "stringListsIntersect(\"avx2,avx512\", Features): all four complete" \
	wait_for 120 all_done "$F" 4
check "... never on blade2, which has no avx2 ($(hosts "$F"))" \
	bash -c "[ -n '$(hosts "$F")' ] && ! echo '$(hosts "$F")' | grep -q blade2"

# --- toUpper() ----------------------------------------------------------
cat >site.sub <<'EOF'
universe     = vanilla
executable   = /bin/true
requirements = toUpper(TARGET.Site) =?= "WISC"
queue 4
EOF
chmod 644 site.sub
S=$(submit site.sub)
check "toUpper(Site) =?= \"WISC\": all four complete" \
	wait_for 120 all_done "$S" 4
check "... never on node7, whose site is unl ($(hosts "$S"))" \
	bash -c "[ -n '$(hosts "$S")' ] && ! echo '$(hosts "$S")' | grep -q node7"

[ "$POOL_FAILS" = 0 ]
