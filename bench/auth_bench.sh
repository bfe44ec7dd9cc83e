#!/usr/bin/env bash
# bench/auth_bench.sh (bench/run auth): what authentication costs a call
# by itself (bench/auth_cost.c); the collector's CPU with every update
# signed is in bench/collector_bench.sh, whose simulated machines sign
# as daemons do.  Prints rows for bench/run's table.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d /tmp/condor-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP/include" -I"$TOP/obj/gen" \
	-I/usr/include/tirpc -o "$dir/auth_cost" "$TOP/bench/auth_cost.c" \
	-Wl,--start-group "$TOP/obj/libcondor_submit.a" "$TOP/obj/libcondor_common.a" "$TOP/obj/libcondor_classad.a" -Wl,--end-group "$TOP/obj/libcondor_util.a" -ltirpc -lm || exit 1
printf 'LOCAL_DIR = %s\n' "$dir" >"$dir/condor_config"
CONDOR_CONFIG=$dir/condor_config "$dir/auth_cost" "$dir/pool_key" 2>/dev/null
