#!/usr/bin/env bash
# tests/pool/ckpt_test.sh: checkpoint and restart of relinked programs,
# standalone (no daemons): the suite in tests/ckpt/run_suite.sh, which
# prints one PASS or FAIL line per check.  tests/run counts them.
#
# checks: 43 (all of tests/ckpt/run_suite.sh)
cd "$(dirname "$0")/../.." || exit 1
exec bash tests/ckpt/run_suite.sh "$@"
