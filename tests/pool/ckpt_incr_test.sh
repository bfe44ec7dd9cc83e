#!/usr/bin/env bash
# checks: 12
# tests/pool/ckpt_incr_test.sh: incremental checkpoints, standalone (no
# daemons): a 256 MiB program rewriting 1 % of its memory between
# checkpoints writes deltas of about 1 %, folded by condor_ckpt merge
# and resumed, every checksum verified; a corrupt delta is refused.
# tests/ckpt/incr_suite.sh, one PASS, FAIL or SKIP line per check.
cd "$(dirname "$0")/../.." || exit 1
exec bash tests/ckpt/incr_suite.sh "$@"
