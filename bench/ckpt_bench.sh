#!/usr/bin/env bash
# bench/ckpt_bench.sh: checkpoint and restart timings of a relinked
# program that fills N MiB of heap and then counts, for N = 16, 256 and
# 1024 (or the sizes given), and the cost of the system-call trap.
#
#   bench/ckpt_bench.sh [MiB...]
#
# Columns, each the median of REPEAT runs (default 3):
#   frozen     how long a periodic checkpoint (SIGUSR2) stops the program:
#              the stall of the counting loop the signal fell into (CKPT()
#              taking the state and forking the writer); under 0.1 ms
#              shows as 0.0001
#   durable    SIGUSR2 to the new checkpoint renamed into place (written,
#              fsynced, read back, checked, renamed, directory fsynced)
#   vacate     SIGTSTP to exit 85 (the checkpoint durable first)
#   core       ckpt_and_exit() to exit with CONDOR_CKPT_CORE (an ELF core
#              written instead, not fsynced)
#   merge      condor_ckpt merge EXE CORE -o CKPT (fsynced, verified)
#   resumed    exec of the checkpoint to the program running again
#              (checksums of the executable part and of every extent
#              read so far verified); by default the heap comes back on
#              demand (userfaultfd) while the program runs
#   all back   exec to every page of the image rewritten by the program
#              (each read, then written), all its memory back
#   eager      the same two with CONDOR_RESTORE=eager: every page read
#              and verified before the program runs
#   ckpt MiB   the checkpoint file's size
#
# The checkpoint's page cache is warm for the restarts.
#
# CRIU, when installed (Debian's criu), is measured in the same run on
# the same sizes, a native program filling the same memory: "criu
# frozen" is the longest stall the program saw while `criu dump
# --leave-running` ran, "criu dump" the dump's wall time (no fsync),
# "criu restore" the wall time of `criu restore -d`.  When criu is
# missing or fails (Debian's 3.17 does not know the vDSO layout of
# kernels since 6.13) its rows say "not measured" and why, and the
# frozen goal (CRIU's / 10) has no figure.
#
# The table goes to standard error; standard output gets one
# "what|measured|goal" row per figure, which bench/run (make bench)
# collects, with the goals of the checkpointing issue.
set -u
exec 3>&1 1>&2
row() { echo "$1|$2|$3" >&3; }
top=$(cd "$(dirname "$0")/.." && pwd)
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(16 256 1024)
REPEAT=${REPEAT:-3}
work=$(mktemp -d /tmp/ckpt-bench.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT

if [ ! -x "$top/bin/condor_cc" ] || [ ! -x "$top/bin/condor_ckpt" ]; then
	echo "ckpt_bench: build first (make)" >&2
	exit 1
fi

# The program: fill N MiB, then either count (measuring its own longest
# stall) until SIGINT, or checkpoint itself and, once resumed, report
# when it runs again and when all its memory has been read back.
cat >"$work/prog.c" <<'EOF'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "condor_ckpt.h"

static volatile sig_atomic_t stop;
static void on_int(int s) { stop = 1; }

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	size_t n = (size_t)atol(argv[1]) << 20, i;
	unsigned char *p = malloc(n);
	unsigned long sum = 0, count = 0;
	long long last, t, gs[512], ge[512];
	int ngaps = 0, k;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 2654435761u >> 13);
	signal(SIGINT, on_int);
	if (strcmp(argv[2], "self") == 0) {
		ckpt_and_exit();
		printf("resumed %lld\n", now_ns());
		fflush(stdout);
		/* Rewrite the memory: every page read and written. */
		for (i = 0; i < n; i += 4096) {
			sum += p[i];
			p[i] = (unsigned char)(p[i] + 1);
		}
		printf("allback %lld %lu\n", now_ns(), sum & 1);
		return 0;
	}
	printf("ready\n");
	fflush(stdout);
	/* Every stall over 100 us, to find the one the checkpoint caused. */
	last = now_ns();
	while (!stop) {
		if ((++count & 1023) == 0) {
			t = now_ns();
			if (t - last > 100000 && ngaps < 512) {
				gs[ngaps] = last;
				ge[ngaps++] = t;
			}
			last = t;
		}
	}
	for (k = 0; k < ngaps; k++)
		printf("gap %lld %lld\n", gs[k], ge[k]);
	return 0;
}
EOF

# The driver's clock, signals and waiting, to the microsecond.
cat >"$work/drive.c" <<'EOF'
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static pid_t
start(char **argv, FILE **out)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds) == -1)
		exit(1);
	if ((pid = fork()) == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	*out = fdopen(fds[0], "r");
	return pid;
}

/* Wait for PATH to be replaced (a new inode); the time it happened. */
static long long
wait_replaced(const char *path, ino_t old)
{
	struct stat st;

	for (;;) {
		if (stat(path, &st) == 0 && st.st_ino != old)
			return now_ns();
		usleep(200);
	}
}

int
main(int argc, char **argv)
{
	char line[256];
	FILE *out;
	struct stat st;
	long long t0, t1, gap = -1, a, b, gs, ge;
	int status;
	pid_t pid;

	if (strcmp(argv[1], "periodic") == 0 || strcmp(argv[1], "vacate") == 0) {
		/* drive periodic|vacate CKPTFILE PROG MIB */
		char *av[] = { argv[3], argv[4], "loop", NULL };
		ino_t old;

		pid = start(av, &out);
		if (fgets(line, sizeof(line), out) == NULL)
			return 1;
		usleep(200000);
		old = stat(argv[2], &st) == 0 ? st.st_ino : 0;
		t0 = now_ns();
		if (argv[1][0] == 'v') {
			kill(pid, SIGTSTP);
			waitpid(pid, &status, 0);
			t1 = now_ns();
			printf("%.3f %d\n", (t1 - t0) / 1e9,
			    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			return 0;
		}
		kill(pid, SIGUSR2);
		t1 = wait_replaced(argv[2], old);
		usleep(100000);
		kill(pid, SIGINT);
		/* The stall the signal fell into, or the first after it. */
		while (fgets(line, sizeof(line), out) != NULL)
			if (sscanf(line, "gap %lld %lld", &gs, &ge) == 2 &&
			    gap < 0 && ge > t0 && gs < t0 + 2000000)
				gap = ge - gs;
		waitpid(pid, &status, 0);
		printf("%.4f %.3f\n", gap < 0 ? 0.0001 : gap / 1e9,
		    (t1 - t0) / 1e9);
		return 0;
	}
	if (strcmp(argv[1], "self") == 0) {
		/* drive self PROG MIB: run to its own checkpoint */
		char *av[] = { argv[2], argv[3], "self", NULL };

		t0 = now_ns();
		pid = start(av, &out);
		while (fgets(line, sizeof(line), out) != NULL)
			;
		waitpid(pid, &status, 0);
		t1 = now_ns();
		printf("%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 0;
	}
	if (strcmp(argv[1], "restart") == 0) {
		/* drive restart CKPTFILE */
		char *av[] = { argv[2], NULL };

		a = b = 0;
		t0 = now_ns();
		pid = start(av, &out);
		while (fgets(line, sizeof(line), out) != NULL) {
			sscanf(line, "resumed %lld", &a);
			sscanf(line, "allback %lld", &b);
		}
		waitpid(pid, &status, 0);
		printf("%.4f %.4f\n", (a - t0) / 1e9, (b - t0) / 1e9);
		return 0;
	}
	if (strcmp(argv[1], "floor") == 0) {
		/* drive floor FILE: the file read into fresh memory, 2 MiB
		 * reads, every page first touched by the read: the least a
		 * restart that brings all memory back can take. */
		int fd = open(argv[2], O_RDONLY);
		struct stat st;
		char *mem;
		size_t off = 0;
		ssize_t r;

		if (fd == -1 || fstat(fd, &st) == -1)
			return 1;
		t0 = now_ns();
		mem = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			return 1;
		while (off < (size_t)st.st_size &&
		    (r = read(fd, mem + off, 2 << 20)) > 0)
			off += (size_t)r;
		printf("%.4f\n", (now_ns() - t0) / 1e9);
		return 0;
	}
	if (strcmp(argv[1], "time") == 0) {
		/* drive time CMD...: wall time of a command */
		t0 = now_ns();
		if ((pid = fork()) == 0) {
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		waitpid(pid, &status, 0);
		printf("%.3f %d\n", (now_ns() - t0) / 1e9,
		    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 0;
	}
	return 2;
}
EOF

# The trap's cost: small reads and writes (never trapped outside
# Condor), and open/close pairs (trapped: the file table keeps them).
cat >"$work/sys.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(void)
{
	char c;
	double t;
	int i, fd = open("/dev/zero", O_RDONLY), nul = open("/dev/null", O_WRONLY);

	t = now();
	for (i = 0; i < 1000000; i++)
		if (read(fd, &c, 1) != 1 || write(nul, &c, 1) != 1)
			return 1;
	printf("%.3f ", (now() - t) * 1e6 / 2e6);
	t = now();
	for (i = 0; i < 100000; i++)
		close(open("/dev/null", O_RDONLY));
	printf("%.3f\n", (now() - t) * 1e6 / 2e5);
	return 0;
}
EOF

# CRIU's subject: the same filling, then counting with its stalls noted
# until SIGINT, written to a file (its descriptors are /dev/null, so
# that criu dumps and restores it without a terminal).
cat >"$work/crprog.c" <<'EOF'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_int(int s) { stop = 1; }

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	size_t n = (size_t)atol(argv[1]) << 20, i;
	unsigned char *p = malloc(n);
	unsigned long count = 0;
	long long last, t, gap = 0;
	FILE *f;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 2654435761u >> 13);
	signal(SIGINT, on_int);
	if ((f = fopen(argv[2], "w")) == NULL)
		return 1;
	fprintf(f, "ready\n");
	fclose(f);
	last = now_ns();
	while (!stop) {
		if ((++count & 1023) == 0) {
			t = now_ns();
			if (t - last > gap)
				gap = t - last;
			last = t;
		}
	}
	if ((f = fopen(argv[3], "w")) == NULL)
		return 1;
	fprintf(f, "%.4f %d\n", gap / 1e9, p[n / 2]);
	fclose(f);
	return 0;
}
EOF

CRIU_WHY=
if ! command -v criu >/dev/null 2>&1; then
	CRIU_WHY="criu not installed (apt-get install criu)"
fi
# criu_measure MIB: one dump with --leave-running and one restore of a
# MIB MiB program; appends seconds to c.frozen, c.dump and c.restore.
# On failure sets CRIU_WHY (the first error criu logged), returns 1.
criu_measure() {
	local mib=$1 pid t0 t1 d=$work/criu.d rpid
	rm -rf "$d" cr.ready cr.gap
	mkdir -p "$d"
	setsid ./crprog "$mib" "$work/cr.ready" "$work/cr.gap" \
	    </dev/null >/dev/null 2>&1 &
	pid=$!
	pids+=("$pid")
	while [ ! -s cr.ready ]; do
		kill -0 "$pid" 2>/dev/null || { CRIU_WHY="crprog did not start"; return 1; }
		sleep 0.05
	done
	sleep 0.2
	t0=$(date +%s%N)
	if ! criu dump -t "$pid" -D "$d" --leave-running -o dump.log \
	    >/dev/null 2>&1; then
		CRIU_WHY="criu $(criu --version | awk '/Version/ { print $2 }'): dump failed: $(grep Error "$d/dump.log" | grep -v "exited, status" | head -n 1 | sed 's/^Error ([^)]*): //')"
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 1
	fi
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }' >>c.dump
	sleep 0.1
	kill -INT "$pid"
	wait "$pid" 2>/dev/null
	awk '{ print $1 }' cr.gap >>c.frozen
	# The program's pid is free again: restore it, detached, and stop it.
	t0=$(date +%s%N)
	if ! criu restore -D "$d" -d --pidfile "$d/restored.pid" \
	    -o restore.log >/dev/null 2>&1; then
		CRIU_WHY="criu: restore failed: $(grep Error "$d/restore.log" | grep -v "exited, status" | head -n 1 | sed 's/^Error ([^)]*): //')"
		return 1
	fi
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }' >>c.restore
	rpid=$(cat "$d/restored.pid")
	pids+=("$rpid")
	kill -KILL "$rpid" 2>/dev/null
	rm -rf "$d"
	return 0
}

cc -O2 -o "$work/drive" "$work/drive.c" || exit 1
cc -O2 -o "$work/crprog" "$work/crprog.c" || exit 1
"$top/bin/condor_cc" -O2 -o "$work/prog" "$work/prog.c" 2>/dev/null || exit 1
cc -O2 -static -o "$work/sys.native" "$work/sys.c" 2>/dev/null || exit 1
"$top/bin/condor_cc" -O2 -o "$work/sys" "$work/sys.c" 2>/dev/null || exit 1
cd "$work" || exit 1

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%8s %9s %9s %9s %9s %9s %9s %9s %9s %9s %5s\n' "image" "frozen" \
    "durable" "vacate" "core" "merge" "resumed" "all back" "eager" "eag.back" \
    "ckpt"
for mib in "${sizes[@]}"; do
	: >f.frozen; : >f.durable; : >f.vacate; : >f.core; : >f.merge
	: >f.resumed; : >f.allback; : >f.floor; : >f.eresumed; : >f.eallback
	: >c.frozen; : >c.dump; : >c.restore
	for ((r = 0; r < REPEAT; r++)); do
		# The file system is mounted with online discard here: freeing
		# the previous 1 GiB checkpoint would be charged to the next
		# write.  Start each measurement from a clean slate.
		rm -f prog.ckpt core.prog
		sync
		read -r fz du < <(./drive periodic prog.ckpt ./prog "$mib")
		echo "$fz" >>f.frozen
		echo "$du" >>f.durable
		rm -f prog.ckpt
		sync
		read -r va st < <(./drive vacate prog.ckpt ./prog "$mib")
		[ "$st" = 85 ] && echo "$va" >>f.vacate
		# The program checkpoints itself, then resumes from the file.
		rm -f prog.ckpt
		sync
		./drive self ./prog "$mib" >/dev/null
		read -r rs ab < <(./drive restart ./prog.ckpt)
		echo "$rs" >>f.resumed
		echo "$ab" >>f.allback
		read -r rs ab < <(CONDOR_RESTORE=eager ./drive restart ./prog.ckpt)
		echo "$rs" >>f.eresumed
		echo "$ab" >>f.eallback
		./drive floor ./prog.ckpt >>f.floor
		ckpt_size=$(stat -c %s prog.ckpt)
		rm -f prog.ckpt
		sync
		read -r co st < <(CONDOR_CKPT_CORE=core.prog ./drive time ./prog "$mib" self)
		echo "$co" >>f.core
		read -r me st < <(./drive time "$top/bin/condor_ckpt" merge ./prog core.prog -o merged.ckpt)
		echo "$me" >>f.merge
		rm -f core.prog merged.ckpt
		if [ -z "$CRIU_WHY" ]; then
			sync
			criu_measure "$mib"
		fi
	done
	printf '%5s MiB %8ss %8ss %8ss %8ss %8ss %8ss %8ss %8ss %8ss %5s MiB\n' \
	    "$mib" "$(median <f.frozen)" "$(median <f.durable)" \
	    "$(median <f.vacate)" "$(median <f.core)" "$(median <f.merge)" \
	    "$(median <f.resumed)" "$(median <f.allback)" \
	    "$(median <f.eresumed)" "$(median <f.eallback)" "$((ckpt_size >> 20))"
	if [ -s c.frozen ] && [ -s c.restore ]; then
		cf=$(median <c.frozen)
		printf '%5s MiB criu: frozen %ss, dump %ss (no fsync), restore %ss\n' \
		    "$mib" "$cf" "$(median <c.dump)" "$(median <c.restore)"
		fgoal="<= $(awk -v c="$cf" 'BEGIN { printf "%.4f", c / 10 }') s (CRIU's / 10)"
		row "criu $mib MiB: frozen by criu dump --leave-running" "$cf s" ""
		row "criu $mib MiB: criu dump (no fsync)" "$(median <c.dump) s" ""
		row "criu $mib MiB: criu restore -d" "$(median <c.restore) s" ""
	else
		fgoal="CRIU's / 10 (CRIU not measured)"
		row "criu $mib MiB: dump and restore" "not measured" "${CRIU_WHY:-?}"
	fi
	row "checkpoint $mib MiB: job frozen by a periodic checkpoint" \
	    "$(median <f.frozen) s" "$fgoal"
	row "checkpoint $mib MiB: signal to durable (fsynced)" \
	    "$(median <f.durable) s" "$([ "$mib" = 1024 ] && echo '<= 1.0 s')"
	row "checkpoint $mib MiB: vacate (signal to exit 85, durable)" \
	    "$(median <f.vacate) s" ""
	row "checkpoint $mib MiB: condor_ckpt merge" "$(median <f.merge) s" ""
	row "restart $mib MiB: exec to running (memory on demand)" \
	    "$(median <f.resumed) s" "$([ "$mib" = 1024 ] && echo '< 0.15 s')"
	fl=$(median <f.floor)
	row "restart $mib MiB: exec to all memory back and rewritten" \
	    "$(median <f.allback) s" \
	    "<= $(awk -v f="$fl" 'BEGIN { printf "%.4f", f * 1.2 }') s (1.2 x floor)"
	row "restart $mib MiB: floor, the file read into fresh memory" "$fl s" ""
	row "restart $mib MiB, eager: exec to running, all memory back" \
	    "$(median <f.eresumed) s" ""
	row "restart $mib MiB, eager: exec to all memory rewritten" \
	    "$(median <f.eallback) s" ""
done
read -r dd st < <(./drive time dd if=/dev/zero of=dd.out bs=4M count=256 conv=fsync status=none)
rm -f dd.out
echo "(core: the whole run, filling included; the others from the signal"
echo " or the exec.  Reference in this run: dd of 1 GiB with fsync $dd s;"
echo " load average $(cut -d' ' -f1 /proc/loadavg).${CRIU_WHY:+  CRIU not measured: $CRIU_WHY.})"

echo
read -r rw oc < <(./sys.native)
read -r rw2 oc2 < <(./sys)
read -r rw3 oc3 < <(CONDOR_TRAP_ALL=1 ./sys)
printf '%-38s %10s %10s\n' "system calls (microseconds per call)" "read/write" "open+close"
printf '%-38s %10s %10s\n' "native (cc -static)" "$rw" "$oc"
printf '%-38s %10s %10s\n' "relinked, outside Condor" "$rw2" "$oc2"
printf '%-38s %10s %10s\n' "relinked, every call trapped" "$rw3" "$oc3"
row "trap: read/write of 1 byte, native vs relinked (outside Condor)" \
    "$rw / $rw2 us" "equal (not trapped)"
row "trap: open+close, native vs relinked (trapped: file table)" \
    "$oc / $oc2 us" ""
row "trap: read/write with every call trapped (CONDOR_TRAP_ALL)" "$rw3 us" ""
