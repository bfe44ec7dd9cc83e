# tests/lib/security.sh: what the attack tests (tests/security) share,
# sourced after tests/lib/pool.sh once the pool exists.
#
#   security_users USER...       a home ($POOL/home.USER, 0700) for each
#   as USER COMMAND...           run COMMAND as USER, with that home and
#                                the central manager's configuration
#                                (CONDOR_CONFIG when set)
#   verdict NAME COMMAND...      the attack NAME is blocked when COMMAND
#                                succeeds: prints "attack: NAME: blocked"
#                                (or SUCCEEDED) and counts as a check
#   proc_running CMDLINE         a process runs whose command line, its
#                                words joined by spaces, is CMDLINE

security_users() {
	local u
	for u in "$@"; do
		mkdir -p "$POOL/home.$u"
		chown "$u" "$POOL/home.$u"
		chmod 700 "$POOL/home.$u"
	done
}

as() {
	local u=$1
	shift
	HOME="$POOL/home.$u" CONDOR_CONFIG=${CONDOR_CONFIG:-$POOL/cm/condor_config} \
	    setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups "$@"
}

verdict() {
	local name=$1
	shift
	if "$@"; then
		echo "attack: $name: blocked"
		pass "attack blocked: $name"
	else
		echo "attack: $name: SUCCEEDED"
		fail "attack blocked: $name" "$*"
	fi
}

proc_running() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)" = "$1 " ] &&
			return 0
	done
	return 1
}
