/*
 * shadow_mail.c: mailing job owners through MAIL (see shadow_mail.h).
 *
 * The mailer is an outside program that may hang or never read its
 * input; we give it RPC_TIMEOUT seconds for everything, writing without
 * blocking, and kill it if it overstays, so that a broken mail set-up
 * can only delay a shadow, never wedge it.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "event.h"
#include "log.h"
#include "shadow_mail.h"
#include "xalloc.h"

#define MAIL_MAX_ARGS	32	/* words in the MAIL setting */

int
mail_address_valid(const char *to)
{
	const unsigned char *p;
	size_t len;

	if (to == NULL || *to == '\0' || *to == '-')
		return 0;
	len = strlen(to);
	if (len >= MAIL_MAX_RECIPIENT)
		return 0;
	for (p = (const unsigned char *)to; *p; p++)
		if (isspace(*p) || iscntrl(*p) || *p == '"' || *p == '\'' ||
		    *p == '\\' || *p == ',' || *p == '<' || *p == '>')
			return 0;
	return 1;
}

/* The message: headers, a blank line, the body.  Header values are
 * cut at the first line break so nothing can add headers. */
static char *
mail_message(const char *to, const char *subject, const char *body)
{
	struct buf b;

	buf_init(&b);
	buf_printf(&b, "To: %s\n", to);
	buf_adds(&b, "Subject: ");
	buf_add(&b, subject, strcspn(subject, "\r\n"));
	buf_adds(&b, "\n\n");
	buf_adds(&b, body);
	if (b.len == 0 || b.data[b.len - 1] != '\n')
		buf_addc(&b, '\n');
	return buf_release(&b);
}

/* Wait for PID until DEADLINE (monotime), then kill it.  Its status. */
static int
mail_wait(pid_t pid, double deadline, int *status)
{
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r == -1 && errno != EINTR)
			return -1;	/* someone else reaped it */
		if (monotime() >= deadline) {
			kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) == -1 &&
			    errno == EINTR)
				;
			errno = ETIMEDOUT;
			return -1;
		}
		usleep(20000);
	}
}

/* Write LEN bytes of MSG to FD (non-blocking) until DEADLINE. */
static int
mail_write(int fd, const char *msg, size_t len, double deadline)
{
	struct pollfd pfd;
	size_t off = 0;
	ssize_t n;
	int left;

	while (off < len) {
		n = write(fd, msg + off, len - off);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n == -1 && errno != EAGAIN && errno != EINTR)
			return -1;
		left = (int)((deadline - monotime()) * 1000.0);
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, left) == -1 && errno != EINTR)
			return -1;
	}
	return 0;
}

int
mail_send(const char *to, const char *subject, const char *body)
{
	const char *mail = param("MAIL");
	char *copy, *argv[MAIL_MAX_ARGS + 2], *tok, *save = NULL, *msg;
	double deadline;
	long timeout;
	int p[2], argc = 0, status = 0, r;
	pid_t pid;

	if (mail == NULL || mail[strspn(mail, " \t")] == '\0')
		return 0;
	if (!mail_address_valid(to)) {
		log_warnx("not mailing \"%s\": not a plain address",
		    to ? to : "");
		return -1;
	}
	copy = xstrdup(mail);
	for (tok = strtok_r(copy, " \t", &save); tok != NULL &&
	    argc < MAIL_MAX_ARGS; tok = strtok_r(NULL, " \t", &save))
		argv[argc++] = tok;
	argv[argc++] = (char *)to;
	argv[argc] = NULL;
	if (pipe2(p, O_CLOEXEC) == -1) {
		log_warn("mail to %s: pipe", to);
		free(copy);
		return -1;
	}
	if ((pid = fork()) == -1) {
		log_warn("mail to %s: fork", to);
		close(p[0]);
		close(p[1]);
		free(copy);
		return -1;
	}
	if (pid == 0) {
		sigset_t none;
		int devnull = open("/dev/null", O_RDWR);

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		dup2(p[0], STDIN_FILENO);
		if (devnull != -1) {
			dup2(devnull, STDOUT_FILENO);
			dup2(devnull, STDERR_FILENO);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[0]);
	timeout = param_int("RPC_TIMEOUT", 20);
	deadline = monotime() + (double)(timeout > 0 ? timeout : 20);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	msg = mail_message(to, subject, body ? body : "");
	r = mail_write(p[1], msg, strlen(msg), deadline);
	if (r == -1)
		log_warn("mail to %s: cannot hand the message to %s", to,
		    argv[0]);
	close(p[1]);
	free(msg);
	if (mail_wait(pid, deadline, &status) == -1) {
		/* ECHILD: a SIGCHLD handler reaped it; trust the write. */
		int reaped = errno == ECHILD;

		if (errno == ETIMEDOUT)
			log_warnx("mail to %s: %s did not finish within %ld "
			    "seconds; killed", to, argv[0], timeout);
		free(copy);
		return reaped && r == 0 ? 0 : -1;
	}
	if (r == 0 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			log_warnx("mail to %s: cannot run %s", to, argv[0]);
		else
			log_warnx("mail to %s: %s failed (status %#x)", to,
			    argv[0], status);
		r = -1;
	}
	if (r == 0)
		log_info("mailed %s: %.*s", to, (int)strcspn(subject, "\r\n"),
		    subject);
	free(copy);
	return r;
}
