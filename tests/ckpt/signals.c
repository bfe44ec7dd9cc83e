/*
 * signals: handlers (SA_ONSTACK|SA_RESETHAND on an alternate stack),
 * signals blocked and left pending until the end, SIGPIPE ignored, an
 * alarm and interval timers that fire after the checkpoint, the
 * environment set by the program, and the clocks after a restart.
 * Everything printed is a yes/no or a count that does not depend on
 * timing.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static char altstack[1 << 16];
static volatile sig_atomic_t usr1_count, usr1_onstack, hup_count, int_count,
    rt_count, alarm_count, vt_count, prof_count;

static void
on_usr1(int sig)
{
	char here;

	usr1_count++;
	usr1_onstack = &here >= altstack && &here < altstack + sizeof(altstack);
}

static void on_hup(int s) { hup_count++; }
static void on_int(int s) { int_count++; }
static void on_rt(int s) { rt_count++; }
static void on_alarm(int s) { alarm_count++; }
static void on_vt(int s) { vt_count++; }
static void on_prof(int s) { prof_count++; }

static void
handle(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static double
now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(void)
{
	struct itimerval it;
	struct sigaction sa;
	struct timeval tv;
	sigset_t block, pend;
	stack_t ss;
	double t, last;
	volatile unsigned long x = 1;
	int i, time_ok = 1;
	long k;

	ss.ss_sp = altstack;
	ss.ss_size = sizeof(altstack);
	ss.ss_flags = 0;
	sigaltstack(&ss, NULL);
	handle(SIGUSR1, on_usr1, SA_ONSTACK | SA_RESETHAND);
	handle(SIGHUP, on_hup, 0);
	handle(SIGINT, on_int, 0);
	handle(SIGRTMIN + 1, on_rt, 0);
	handle(SIGALRM, on_alarm, 0);
	handle(SIGVTALRM, on_vt, SA_RESTART);
	handle(SIGPROF, on_prof, SA_RESTART);
	signal(SIGPIPE, SIG_IGN);
	setenv("CONDOR_TEST_VAR", "set by the program", 1);

	/* Most signals blocked (the timers' excepted), four of them raised:
	 * pending through the whole run. */
	sigfillset(&block);
	sigdelset(&block, SIGALRM);
	sigdelset(&block, SIGVTALRM);
	sigdelset(&block, SIGPROF);
	sigprocmask(SIG_BLOCK, &block, NULL);
	{
		sigset_t cur;

		sigprocmask(SIG_BLOCK, NULL, &cur);
		printf("blocked as asked (SIGTERM, SIGUSR2, SIGTSTP): %s\n",
		    sigismember(&cur, SIGTERM) && sigismember(&cur, SIGUSR2) &&
		    sigismember(&cur, SIGTSTP) ? "yes" : "no");
	}
	raise(SIGHUP);
	raise(SIGINT);
	raise(SIGRTMIN + 1);
	raise(SIGUSR1);

	alarm(2);
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = 20000;
	it.it_value.tv_usec = 20000;
	setitimer(ITIMER_VIRTUAL, &it, NULL);
	setitimer(ITIMER_PROF, &it, NULL);

	last = now(CLOCK_MONOTONIC);
	for (i = 0; i < 40; i++) {
		for (k = 0; k < 4000000; k++)
			x = x * 6364136223846793005UL + 1;
		t = now(CLOCK_MONOTONIC);
		if (t < last)
			time_ok = 0;
		last = t;
		printf("step %d %016lx\n", i, (unsigned long)x);
	}
	/* Make sure the alarm has come (it is 2 s of CPU-time away at
	 * most; it survives restarts). */
	while (alarm_count == 0)
		for (k = 0; k < 1000000; k++)
			x = x * 6364136223846793005UL + 1;
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_VIRTUAL, &it, NULL);
	setitimer(ITIMER_PROF, &it, NULL);

	sigpending(&pend);
	printf("pending before unblocking: HUP %d INT %d RT1 %d USR1 %d\n",
	    sigismember(&pend, SIGHUP), sigismember(&pend, SIGINT),
	    sigismember(&pend, SIGRTMIN + 1), sigismember(&pend, SIGUSR1));
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	printf("handlers ran: HUP %d INT %d RT1 %d USR1 %d (on the alternate "
	    "stack: %s)\n", hup_count, int_count, rt_count, usr1_count,
	    usr1_onstack ? "yes" : "no");
	sigaction(SIGUSR1, NULL, &sa);
	printf("SIGUSR1 reset to default by SA_RESETHAND: %s\n",
	    sa.sa_handler == SIG_DFL ? "yes" : "no");
	sigaction(SIGPIPE, NULL, &sa);
	printf("SIGPIPE still ignored: %s\n",
	    sa.sa_handler == SIG_IGN ? "yes" : "no");
	sigaltstack(NULL, &ss);
	printf("alternate stack kept: %s\n",
	    ss.ss_sp == altstack && ss.ss_size == sizeof(altstack) ? "yes" : "no");
	printf("alarm fired once: %s\n", alarm_count == 1 ? "yes" : "no");
	printf("interval timers kept ticking: %s\n",
	    vt_count > 5 && prof_count > 5 ? "yes" : "no");
	printf("environment: CONDOR_TEST_VAR=%s\n", getenv("CONDOR_TEST_VAR"));
	gettimeofday(&tv, NULL);
	printf("clocks sane: %s\n", time_ok && tv.tv_sec > 1600000000 &&
	    now(CLOCK_REALTIME) > 1600000000 ? "yes" : "no");
	return 0;
}
