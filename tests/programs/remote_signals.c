/*
 * remote_signals.c: signals a standard-universe job sends, for
 * tests/pool/remote_libs_test.sh.  raise() and kill(getpid()) reach the
 * program's own handler, as natively; signals to another process, to the
 * process group or to everyone are refused (EPERM) under Condor; then
 * abort() kills the program with SIGABRT, as natively.
 *
 * Output lines that are the same natively and under Condor start with
 * "same"; the others with "condor".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void
on_usr1(int sig)
{
	(void)sig;
	got++;
}

static void
show(const char *what, int r)
{
	printf("condor %-16s %s\n", what, r == 0 ? "allowed" : strerror(errno));
}

int
main(void)
{
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	printf("same raise: handler ran %d time(s)\n", (int)got);
	kill(getpid(), SIGUSR1);
	printf("same kill(getpid()): handler ran %d time(s)\n", (int)got);
	syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
	printf("same tgkill(self): handler ran %d time(s)\n", (int)got);
	signal(SIGTERM, SIG_IGN);
	raise(SIGTERM);
	printf("same raise(SIGTERM) ignored\n");
	show("kill 1", kill(1, 0));
	show("kill group", kill(0, 0));
	show("kill all", kill(-1, 0));
	show("tgkill other", (int)syscall(SYS_tgkill, 1, 1, 0));
	printf("same aborting\n");
	fflush(stdout);
	abort();
	printf("same abort returned\n");
	return 0;
}
