# tests/lib/schedd.sh: the schedd on its own, for the schedd tests
# (a collector but no negotiator and no machines; tests/programs/
# schedd_peer plays the negotiator).  Source it after tests/lib/pool.sh
# and pool_init; the test writes its own fake shadow.

PEER=$POOL/schedd_peer
SPOOL=$POOL/cm/spool
SCHEDD_PID=

# schedd_peer_build: build tests/programs/schedd_peer as $PEER; a test
# that cannot build it fails and stops.
schedd_peer_build() {
	if ! cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP/include" -I"$TOP/obj/gen" \
	    -I/usr/include/tirpc -o "$PEER" "$TOP/tests/programs/schedd_peer.c" \
	    -Wl,--start-group "$TOP/obj/libcondor_submit.a" \
	    "$TOP/obj/libcondor_common.a" "$TOP/obj/libcondor_classad.a" \
	    -Wl,--end-group "$TOP/obj/libcondor_util.a" -ltirpc -lm; then
		fail "build schedd_peer"
		exit 1
	fi
}

q() { on cm condor_q "$@" 2>/dev/null; }
peer() { on cm "$PEER" "$@"; }
addr() { cat "$POOL/cm/log/.schedd_address"; }

# start_schedd: a schedd on cm (SCHEDD_BIN, if set, instead of the
# release's), up once condor_q answers.
start_schedd() {
	CONDOR_CONFIG="$POOL/cm/condor_config" CONDOR_TEST_POOL="$POOL" \
	    "${SCHEDD_BIN:-$RELEASE/sbin/condor_schedd}" -f \
	    >>"$POOL/schedd.out" 2>&1 &
	SCHEDD_PID=$!
	wait_for 30 on cm condor_q -af ClusterId
}
stop_schedd() {	# SIGNAL
	kill -"$1" "$SCHEDD_PID" 2>/dev/null
	wait "$SCHEDD_PID" 2>/dev/null
	SCHEDD_PID=
}
# job_attr C.P ATTR: one attribute of one queued job.
job_attr() { q "$1" -af "$2"; }
hist_attr() { on cm condor_history "$1" -af "$2" 2>/dev/null; }
# Removed jobs leave the queue a batch at a time, after the answer.
queue_empty() { [ -z "$(q -af ClusterId)" ]; }
rm_all() {
	on cm condor_rm -a >/dev/null 2>&1
	wait_for 30 queue_empty
}
