#!/usr/bin/env bash
# tests/pool/ckpt_threads_test.sh: checkpoint and restart of relinked
# programs that run several threads (pthreads with 2, 8 and 64 threads,
# OpenMP), standalone (no daemons): tests/ckpt/threads_suite.sh, one
# PASS, FAIL or SKIP line per check.
#
# checks: 17
cd "$(dirname "$0")/../.." || exit 1
exec bash tests/ckpt/threads_suite.sh "$@"
