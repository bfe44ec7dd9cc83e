#!/usr/bin/env bash
# bench/ckpt_threads_bench.sh: what a periodic checkpoint (SIGUSR2) costs
# a relinked program that runs 1, 8 or 64 threads (or the counts given)
# with 256 MiB of heap filled by its main thread.  The other threads
# wait on a condition variable; the main thread counts and records the
# longest gap between two readings of the clock, which the checkpoint
# makes: every other thread stopped in its handler, the state taken, the
# writer forked, the threads let go.
#
#   bench/ckpt_threads_bench.sh [THREADS...]
#
# Columns, the median of REPEAT (3) runs: frozen (that gap), ckpt MiB
# (the checkpoint file's size).  The table goes to standard error; one
# "what|measured|goal" row per figure to standard output (bench/run).
set -u
exec 3>&1 1>&2
row() { echo "$1|$2|$3" >&3; }
top=$(cd "$(dirname "$0")/.." && pwd)
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1 8 64)
REPEAT=${REPEAT:-3}
MIB=256
work=$(mktemp -d /tmp/ckpt-threads-bench.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT
if [ ! -x "$top/bin/condor_cc" ]; then
	echo "ckpt_threads_bench: build first (make)" >&2
	exit 1
fi

cat >"$work/tprog.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int done;

static void *
idle(void *arg)
{
	pthread_mutex_lock(&m);
	while (!done)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	return arg;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* tprog THREADS MIB SECONDS: prints "ready", then the longest gap. */
int
main(int argc, char **argv)
{
	int n = atoi(argv[1]), i;
	size_t len = (size_t)atol(argv[2]) << 20;
	double secs = atof(argv[3]), t0, t, last, gap = 0;
	pthread_t *t_ = calloc((size_t)n, sizeof(*t_));
	char *p = malloc(len);

	for (size_t k = 0; k < len; k += 4096)
		p[k] = (char)(k >> 12 | 1);
	for (i = 1; i < n; i++)
		pthread_create(&t_[i], NULL, idle, NULL);
	printf("ready\n");
	fflush(stdout);
	t0 = last = now();
	while ((t = now()) - t0 < secs) {
		if (t - last > gap)
			gap = t - last;
		last = t;
	}
	pthread_mutex_lock(&m);
	done = 1;
	pthread_cond_broadcast(&c);
	pthread_mutex_unlock(&m);
	for (i = 1; i < n; i++)
		pthread_join(t_[i], NULL);
	printf("%.4f\n", gap);
	return p[4096] == 0;
}
EOF
"$top/bin/condor_cc" -O2 -pthread -o "$work/tprog" "$work/tprog.c" \
    2>/dev/null || exit 1
cd "$work" || exit 1
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%8s %9s %9s\n' "threads" "frozen" "ckpt"
for n in "${counts[@]}"; do
	: >frozen
	size=0
	for ((r = 0; r < REPEAT; r++)); do
		rm -f tprog.ckpt out
		./tprog "$n" "$MIB" 3 >out &
		pid=$!
		pids+=("$pid")
		for ((i = 0; i < 600; i++)); do
			grep -q ready out 2>/dev/null && break
			sleep 0.05
		done
		sleep 1
		kill -USR2 "$pid"
		wait "$pid"
		tail -1 out >>frozen
		[ -f tprog.ckpt ] && size=$(stat -c %s tprog.ckpt)
	done
	fz=$(median <frozen)
	printf '%8s %8ss %5s MiB\n' "$n" "$fz" "$((size >> 20))"
	row "checkpoint frozen, $n thread(s), $MIB MiB" "${fz}s" "-"
	row "checkpoint size, $n thread(s), $MIB MiB" "$((size >> 20)) MiB" "-"
done
