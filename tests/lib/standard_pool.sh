# tests/lib/standard_pool.sh: the pool the standard-universe pool tests
# run their jobs in.  Source it after tests/lib/pool.sh.

# standard_pool N [LINE...]: start a pool of a central manager and N
# execute hosts (1 to 3) with START TRUE, a starter update every second,
# STARTER_TIMEOUT 20 and the config LINEs; two checks (the schedd
# listens, the machines advertise).  Sets W, a work directory every
# user can read.
standard_pool() {
	local n=$1 i
	local -a count=("" "the machine advertises" "two machines advertise"
	    "three machines advertise")
	shift
	pool_init
	chmod 755 "$POOL"
	pool_config 'START : TRUE' 'STARTER_UPDATE_INTERVAL = 1' \
		'STARTER_TIMEOUT = 20' "$@"
	pool_host cm "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD"
	for ((i = 1; i <= n; i++)); do
		pool_host "exec$i" "MASTER, STARTD"
	done
	pool_start
	trap pool_cleanup EXIT

	check "the schedd listens" wait_for 60 test -S "$POOL/cm/spool/.schedd_socket"
	check "${count[$n]}" pool_wait_machines "$n" 60

	W="$POOL/work"
	mkdir -p "$W"
	chmod 755 "$W"
}

# rootdir_sub FILE JAIL: a submit file for remote_rootdir confined to
# JAIL, starting in JAIL/home, into FILE (mode 0644).
rootdir_sub() {
	cat >"$1" <<EOF2
universe   = standard
executable = remote_rootdir
rootdir    = $2
initialdir = $2/home
output     = out.txt
error      = err.txt
queue
EOF2
	chmod 644 "$1"
}

# rootdir_want FILE WROTE: what tests/programs/remote_rootdir.c prints
# in a jail made as the rootdir tests make it, into FILE; WROTE is what
# its write at the jail's top gets (ok, or EACCES).
rootdir_want() {
	cat >"$1" <<EOF2
cwd                    /home
/marker.txt            [the jail's marker]
../../../marker.txt    [the jail's marker]
in.txt                 [input line 1]
/etc/hostname          ENOENT
escape link            ENOENT
/proc/self/status      ENOENT
../../../../.. is /    yes
write /written.txt     $2
done
EOF2
}

# rootup_ok OUT: remote_rootdir, started with an initialdir of
# rootdir/.., ran to its end at its jail's root (its output in OUT).
rootup_ok() {
	grep -q '^done' "$1" 2>/dev/null &&
	    grep -qx 'cwd                    /' "$1" &&
	    grep -qx "../../../marker.txt    \[the jail's marker\]" "$1"
}
