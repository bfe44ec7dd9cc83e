#!/usr/bin/env bash
# checks: 13
# tests/pool/ckpt_memory_test.sh: memory a restart gives back behaves as
# the program's own (realloc, mremap, madvise, munmap, mprotect, brk,
# MAP_FIXED, calloc, several generations, /proc/self/maps, a Lua
# interpreter stopped four times): tests/ckpt/memory_suite.sh, standalone
# (no daemons), one PASS, FAIL or SKIP line per check.
cd "$(dirname "$0")/../.." || exit 1
exec bash tests/ckpt/memory_suite.sh "$@"
