/*
 * userlog.c: writing and reading user logs (see userlog.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "fdio.h"
#include "userlog.h"
#include "xalloc.h"

/* The DAG node log events also go to (userlog_also), or NULL. */
static char	*also_path;

void
userlog_also(const char *path)
{
	free(also_path);
	also_path = path != NULL && *path != '\0' ? xstrdup(path) : NULL;
}

/* Append LEN bytes of DATA to the log PATH; its descriptor in *FD. */
static int
append_event(const char *path, const char *data, size_t len, int *fd)
{
	ssize_t n;

	/* Never through a link planted under the log's name (fdio.h). */
	*fd = fd_open_user(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (*fd == -1)
		return -1;
	n = write(*fd, data, len);
	if (n != (ssize_t)len) {
		if (n != -1)
			errno = EIO;
		return -1;
	}
	return 0;
}

int
userlog_write(const char *path, int event, int cluster, int proc,
    const char *text, const char *body)
{
	struct buf b;
	struct stat st1, st2;
	struct tm tm;
	time_t now = time(NULL);
	int fd1 = -1, fd2 = -1, rc = 0, saved = 0;

	if (path != NULL && *path == '\0')
		path = NULL;
	if (path == NULL && also_path == NULL)
		return 0;
	localtime_r(&now, &tm);
	buf_init(&b);
	buf_printf(&b, "%03d (%03d.%03d.000) %02d/%02d %02d:%02d:%02d %s\n",
	    event, cluster, proc, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, text);
	if (body != NULL)
		buf_adds(&b, body);
	buf_adds(&b, "...\n");
	if (path != NULL && append_event(path, b.data, b.len, &fd1) == -1) {
		saved = errno;
		rc = -1;
	}
	/* The node log, unless the job's own log is that very file. */
	if (also_path != NULL && (fd1 == -1 || fstat(fd1, &st1) == -1 ||
	    stat(also_path, &st2) == -1 || st1.st_dev != st2.st_dev ||
	    st1.st_ino != st2.st_ino) &&
	    (path == NULL || strcmp(path, also_path) != 0) &&
	    append_event(also_path, b.data, b.len, &fd2) == -1 && rc == 0) {
		saved = errno;
		rc = -1;
	}
	if (fd1 != -1)
		close(fd1);
	if (fd2 != -1)
		close(fd2);
	buf_free(&b);
	if (rc == -1)
		errno = saved;
	return rc;
}

/*
 * TEXT as one line of an event: a newline in a reason (from a starter,
 * from a policy expression) would end the line and start what a reader
 * takes for something else.  Returns a static buffer.
 */
static const char *
one_line(const char *text)
{
	static char line[1024];
	size_t i;

	snprintf(line, sizeof(line), "%s", text);
	for (i = 0; line[i] != '\0'; i++)
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	return line;
}

/* "Usr D HH:MM:SS, Sys D HH:MM:SS" */
static void
usage_pair(struct buf *b, double user, double sys)
{
	long u = (long)user, s = (long)sys;

	buf_printf(b, "Usr %ld %02ld:%02ld:%02ld, Sys %ld %02ld:%02ld:%02ld",
	    u / 86400, u % 86400 / 3600, u % 3600 / 60, u % 60,
	    s / 86400, s % 86400 / 3600, s % 3600 / 60, s % 60);
}

static void
usage_line(struct buf *b, const char *indent, double user, double sys,
    const char *what)
{
	buf_adds(b, indent);
	usage_pair(b, user, sys);
	buf_printf(b, "  -  %s\n", what);
}

/* The run's "Run Remote Usage" and "Run Local Usage" lines. */
static void
run_usage(struct buf *b, const char *indent, const struct ulog_usage *u)
{
	usage_line(b, indent, u->remote_user, u->remote_sys,
	    "Run Remote Usage");
	usage_line(b, indent, u->local_user, u->local_sys, "Run Local Usage");
}

/* The run's "Run Bytes Sent By Job" and "... Received ..." lines. */
static void
run_bytes(struct buf *b, const struct ulog_usage *u)
{
	buf_printf(b, "\t%lld  -  Run Bytes Sent By Job\n", u->bytes_sent);
	buf_printf(b, "\t%lld  -  Run Bytes Received By Job\n",
	    u->bytes_received);
}

/* userlog_write with the body B, which is freed. */
static int
write_body(const char *path, int event, int cluster, int proc,
    const char *text, struct buf *b)
{
	int r;

	r = userlog_write(path, event, cluster, proc, text, b->data);
	buf_free(b);
	return r;
}

int
userlog_submit(const char *path, int cluster, int proc,
    const char *schedd_addr, const char *dag_node)
{
	char text[256], body[320];

	snprintf(text, sizeof(text), "Job submitted from host: %s",
	    schedd_addr);
	/* HTCondor's indent here is four spaces, not a tab. */
	if (dag_node != NULL)
		snprintf(body, sizeof(body), "    DAG Node: %.256s\n",
		    dag_node);
	return userlog_write(path, ULOG_SUBMIT, cluster, proc, text,
	    dag_node != NULL ? body : NULL);
}

int
userlog_execute(const char *path, int cluster, int proc,
    const char *startd_addr, const char *machine_name)
{
	char text[256], body[256];

	snprintf(text, sizeof(text), "Job executing on host: %s",
	    startd_addr);
	snprintf(body, sizeof(body), "\tSlotName: %s\n", machine_name);
	return userlog_write(path, ULOG_EXECUTE, cluster, proc, text, body);
}

int
userlog_checkpointed(const char *path, int cluster, int proc,
    const struct ulog_usage *u)
{
	struct buf b;

	buf_init(&b);
	run_usage(&b, "\t", u);
	return write_body(path, ULOG_CHECKPOINTED, cluster, proc,
	    "Job was checkpointed.", &b);
}

int
userlog_evicted(const char *path, int cluster, int proc, int checkpointed,
    const struct ulog_usage *u, const char *reason)
{
	struct buf b;

	buf_init(&b);
	buf_adds(&b, checkpointed ? "\t(1) Job was checkpointed.\n" :
	    "\t(0) Job was not checkpointed.\n");
	run_usage(&b, "\t\t", u);
	run_bytes(&b, u);
	if (reason != NULL && *reason != '\0')
		buf_printf(&b, "\t%s\n", one_line(reason));
	return write_body(path, ULOG_EVICTED, cluster, proc,
	    "Job was evicted.", &b);
}

int
userlog_shadow_exception(const char *path, int cluster, int proc,
    const char *reason, const struct ulog_usage *u)
{
	struct buf b;

	buf_init(&b);
	buf_printf(&b, "\t%s\n", one_line(reason != NULL ? reason : ""));
	run_bytes(&b, u);
	return write_body(path, ULOG_SHADOW_EXCEPTION, cluster, proc,
	    "Shadow exception!", &b);
}

int
userlog_terminated(const char *path, int cluster, int proc, int by_signal,
    int code, const struct ulog_usage *u)
{
	struct buf b;

	buf_init(&b);
	if (by_signal) {
		buf_printf(&b, "\t(0) Abnormal termination (signal %d)\n",
		    code);
		buf_adds(&b, "\t(0) No core file\n");
	} else
		buf_printf(&b, "\t(1) Normal termination (return value %d)\n",
		    code);
	run_usage(&b, "\t\t", u);
	usage_line(&b, "\t\t", u->total_remote_user, u->total_remote_sys,
	    "Total Remote Usage");
	usage_line(&b, "\t\t", u->total_local_user, u->total_local_sys,
	    "Total Local Usage");
	run_bytes(&b, u);
	buf_printf(&b, "\t%lld  -  Total Bytes Sent By Job\n",
	    u->total_bytes_sent);
	buf_printf(&b, "\t%lld  -  Total Bytes Received By Job\n",
	    u->total_bytes_received);
	return write_body(path, ULOG_TERMINATED, cluster, proc,
	    "Job terminated.", &b);
}

static int
event_with_reason(const char *path, int event, int cluster, int proc,
    const char *text, const char *reason, const char *extra)
{
	struct buf b;

	buf_init(&b);
	if (reason != NULL && *reason != '\0')
		buf_printf(&b, "\t%s\n", reason);
	if (extra != NULL)
		buf_adds(&b, extra);
	return write_body(path, event, cluster, proc, text, &b);
}

int
userlog_aborted(const char *path, int cluster, int proc, const char *reason)
{
	return event_with_reason(path, ULOG_ABORTED, cluster, proc,
	    "Job was aborted by the user.", reason, NULL);
}

int
userlog_suspended(const char *path, int cluster, int proc)
{
	return userlog_write(path, ULOG_SUSPENDED, cluster, proc,
	    "Job was suspended.",
	    "\tNumber of processes actually suspended: 1\n");
}

int
userlog_unsuspended(const char *path, int cluster, int proc)
{
	return userlog_write(path, ULOG_UNSUSPENDED, cluster, proc,
	    "Job was unsuspended.", NULL);
}

int
userlog_disconnected(const char *path, int cluster, int proc,
    const char *machine, const char *reason)
{
	char tail[512];

	snprintf(tail, sizeof(tail), "\t%.200s\n\tTrying to reconnect to "
	    "%.200s\n", reason, machine);
	return userlog_write(path, ULOG_DISCONNECTED, cluster, proc,
	    "Job disconnected, attempting to reconnect", tail);
}

int
userlog_reconnected(const char *path, int cluster, int proc,
    const char *machine, const char *startd_addr)
{
	char text[256], tail[256];

	snprintf(text, sizeof(text), "Job reconnected to %.200s", machine);
	snprintf(tail, sizeof(tail), "\tstartd address: %.200s\n",
	    startd_addr);
	return userlog_write(path, ULOG_RECONNECTED, cluster, proc, text,
	    tail);
}

int
userlog_reconnect_failed(const char *path, int cluster, int proc,
    const char *machine, long seconds)
{
	char tail[512];

	snprintf(tail, sizeof(tail), "\tJob disconnected too long: "
	    "JobLeaseDuration (%ld seconds) expired\n\tCan not reconnect "
	    "to %.200s, rescheduling job\n", seconds, machine);
	return userlog_write(path, ULOG_RECONNECT_FAILED, cluster, proc,
	    "Job reconnection failed", tail);
}

int
userlog_held(const char *path, int cluster, int proc, const char *reason,
    int code, int subcode)
{
	char tail[64];

	snprintf(tail, sizeof(tail), "\tCode %d Subcode %d\n", code,
	    subcode);
	return event_with_reason(path, ULOG_HELD, cluster, proc,
	    "Job was held.", reason, tail);
}

int
userlog_released(const char *path, int cluster, int proc,
    const char *reason)
{
	return event_with_reason(path, ULOG_RELEASED, cluster, proc,
	    "Job was released.", reason, NULL);
}

int
userlog_post_script(const char *path, int cluster, int proc, int by_signal,
    int code, const char *node)
{
	struct buf b;
	int rc;

	buf_init(&b);
	if (by_signal)
		buf_printf(&b, "\t(0) Abnormal termination (signal %d)\n",
		    code);
	else
		buf_printf(&b, "\t(1) Normal termination (return value %d)\n",
		    code);
	buf_printf(&b, "%s%s\n", ULOG_DAG_NODE, node);
	rc = userlog_write(path, ULOG_POST_SCRIPT, cluster, proc,
	    "POST Script terminated.", b.data);
	buf_free(&b);
	return rc;
}

/* The termination line of 005 and 016 in REST. */
static void
parse_termination(const char *rest, struct ulog_event *ev)
{
	const char *p;

	if ((p = strstr(rest, "Normal termination (return value ")) != NULL)
		ev->code = atoi(p + strlen("Normal termination "
		    "(return value "));
	else if ((p = strstr(rest, "Abnormal termination (signal ")) !=
	    NULL) {
		ev->by_signal = 1;
		ev->code = atoi(p + strlen("Abnormal termination (signal "));
	}
}

/* Parse one complete event held in TEXT (its lines, "..." excluded). */
static int
parse_event(char *text, struct ulog_event *ev)
{
	char *nl, *rest, *p;
	int sub;

	memset(ev, 0, sizeof(*ev));
	if (sscanf(text, "%3d (%d.%d.%d)", &ev->event, &ev->cluster,
	    &ev->proc, &sub) != 4)
		return -1;
	if ((nl = strchr(text, '\n')) != NULL)
		*nl = '\0';
	/* skip "NNN (C.P.S) MM/DD HH:MM:SS " */
	rest = strchr(text, ')');
	if (rest != NULL && strlen(rest) > 17)
		snprintf(ev->text, sizeof(ev->text), "%s", rest + 17);
	if (nl == NULL)
		return 0;
	rest = nl + 1;
	if (ev->event == ULOG_TERMINATED || ev->event == ULOG_POST_SCRIPT)
		parse_termination(rest, ev);
	/* "    DAG Node: NAME", on a line of its own (000 and 016). */
	for (p = rest; p != NULL && *p != '\0'; p = nl) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl++ = '\0';
		if (strncmp(p, ULOG_DAG_NODE, strlen(ULOG_DAG_NODE)) == 0 &&
		    p[strlen(ULOG_DAG_NODE)] != '\0')
			ev->dag_node = p + strlen(ULOG_DAG_NODE);
	}
	return 0;
}

long
userlog_read(const char *path, long offset,
    void (*fn)(const struct ulog_event *, void *), void *arg)
{
	struct buf ev;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long pos = offset, done = offset;
	FILE *f;

	if ((f = fopen(path, "r")) == NULL)
		return -1;
	if (fseek(f, offset, SEEK_SET) == -1) {
		fclose(f);
		return -1;
	}
	buf_init(&ev);
	while ((len = getline(&line, &cap, f)) > 0) {
		pos += (long)len;
		if (line[len - 1] != '\n')
			break;	/* a line still being written */
		if (strcmp(line, "...\n") == 0) {
			struct ulog_event e;

			if (ev.len > 0 && parse_event(ev.data, &e) == 0)
				fn(&e, arg);
			buf_reset(&ev);
			done = pos;
			continue;
		}
		if (ev.len < 65536)
			buf_add(&ev, line, (size_t)len);
	}
	free(line);
	buf_free(&ev);
	fclose(f);
	return done;
}
