#!/usr/bin/env bash
# tests/pool/chaos_test.sh: the short chaos run of make check
# (tests/chaos/chaos.sh): 24 jobs, vanilla and relinked standard ones,
# on a central manager and two execute hosts in network namespaces,
# while 30 SIGKILLs fall on random daemons, three hosts are cut off for
# a while and owners come back to their machines; then every job must
# have completed exactly once, never run twice at once, with its native
# run's output, one 005 each, and nothing of the pool left behind.
# The seed is fixed (CHAOS_SEED, default 7), so that every run makes
# the same choices (the daemons' timing still varies); a failure prints
# the command that repeats the run.  make bench runs the long one
# (bench/chaos_bench.sh) with a random seed.
#
# checks: 12
set -u
export CHAOS_SEED=${CHAOS_SEED:-7}
export CHAOS_JOBS=${CHAOS_JOBS:-24} CHAOS_KILLS=${CHAOS_KILLS:-30}
export CHAOS_CUTS=${CHAOS_CUTS:-3} CHAOS_HOSTS=${CHAOS_HOSTS:-2}
export CHAOS_SECONDS=${CHAOS_SECONDS:-75} CHAOS_DRAIN=${CHAOS_DRAIN:-300}
exec bash "$(dirname "$0")/../chaos/chaos.sh"
