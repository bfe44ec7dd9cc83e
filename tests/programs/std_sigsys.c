/*
 * std_sigsys: a program that handles SIGSYS itself, which a relinked
 * program's library also uses (its system-call trap).  It installs a
 * handler that makes system calls the library traps (open, close,
 * write), blocks SIGSYS, raises it (held: pending, not handled), makes
 * a trapped call, unblocks it (handled now), sends it again with kill,
 * and checks its mask and disposition read back as it set them; then
 * blocks it again, raises it and takes it with sigwaitinfo (not
 * handled), and finds nothing more with sigtimedwait.  Its
 * output is the same natively, relinked, and under Condor.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got, user_sent;

static void
on_sigsys(int sig, siginfo_t *si, void *uc)
{
	static const char msg[] = "in the SIGSYS handler\n";
	int fd;

	(void)sig;
	(void)uc;
	if ((fd = open(".", O_RDONLY | O_DIRECTORY)) >= 0)
		close(fd);
	(void)write(1, msg, sizeof(msg) - 1);
	got++;
	user_sent += si->si_code <= 0;
}

int
main(void)
{
	struct sigaction sa, back;
	sigset_t set, pend, now;
	siginfo_t si;
	struct timespec zero = { 0, 0 };
	int fd, r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
	sigaction(SIGSYS, NULL, &back);
	printf("handler reads back: %s\n",
	    back.sa_sigaction == on_sigsys ? "yes" : "no");
	sigemptyset(&set);
	sigaddset(&set, SIGSYS);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("blocked: %d\n", sigismember(&now, SIGSYS));
	fflush(stdout);
	raise(SIGSYS);
	sigpending(&pend);
	printf("raised while blocked: handled %d, pending %d\n", (int)got,
	    sigismember(&pend, SIGSYS));
	if ((fd = open(".", O_RDONLY | O_DIRECTORY)) >= 0)
		close(fd);
	printf("after a trapped call: handled %d\n", (int)got);
	fflush(stdout);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	printf("unblocked: handled %d\n", (int)got);
	fflush(stdout);
	kill(getpid(), SIGSYS);
	printf("sent again: handled %d, all sent by the program: %s\n",
	    (int)got, user_sent == got ? "yes" : "no");
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("blocked at the end: %d\n", sigismember(&now, SIGSYS));
	fflush(stdout);
	sigprocmask(SIG_BLOCK, &set, NULL);
	raise(SIGSYS);
	memset(&si, 0, sizeof(si));
	r = sigwaitinfo(&set, &si);
	printf("sigwaitinfo took %d (%s), sent by the program: %s, "
	    "handled %d\n", r, r == SIGSYS ? "SIGSYS" : "?",
	    si.si_signo == SIGSYS && si.si_code <= 0 ? "yes" : "no", (int)got);
	r = sigtimedwait(&set, &si, &zero);
	printf("then sigtimedwait: %d %s\n", r,
	    r == -1 && errno == EAGAIN ? "EAGAIN" : "?");
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	printf("done\n");
	return 0;
}
