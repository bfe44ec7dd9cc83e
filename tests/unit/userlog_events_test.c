/*
 * userlog_events_test.c: the events that say why, as HTCondor writes them: 004
 * with its reason on a line of its own after the byte counts, 007
 * ("Shadow exception!", the reason, the byte counts) and 012 with
 * "Code N Subcode M"; a reason with a newline stays one line; each
 * event still reads back.
 *
 * checks: 9
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "userlog.h"

/* The body of the last event in PATH: from its second line to "...". */
static char *
last_body(const char *path)
{
	static char body[4096];
	char line[1024];
	FILE *f = fopen(path, "r");
	size_t len = 0;

	body[0] = '\0';
	if (f == NULL)
		return body;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (line[0] >= '0' && line[0] <= '9' && line[3] == ' ') {
			len = 0;	/* a new event's header */
			body[0] = '\0';
			continue;
		}
		if (strcmp(line, "...\n") == 0)
			continue;
		if (len + strlen(line) < sizeof(body)) {
			memcpy(body + len, line, strlen(line) + 1);
			len += strlen(line);
		}
	}
	fclose(f);
	return body;
}

static int events[4];

static void
count(const struct ulog_event *e, void *arg)
{
	if (e->event == ULOG_EVICTED)
		events[0]++;
	else if (e->event == ULOG_SHADOW_EXCEPTION)
		events[1]++;
	else if (e->event == ULOG_HELD)
		events[2]++;
	else
		events[3]++;
}

int
main(void)
{
	char path[] = "/tmp/userlog_test.XXXXXX";
	struct ulog_usage u;
	int fd;

	if ((fd = mkstemp(path)) == -1) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	memset(&u, 0, sizeof(u));
	u.bytes_sent = 29;
	u.bytes_received = 144;

	CHECK("004 is written", userlog_evicted(path, 7, 0, 0, &u,
	    "the execute machine vacated the job") == 0);
	CHECK_STR("004: the reason after the byte counts", last_body(path),
	    "\t(0) Job was not checkpointed.\n"
	    "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Remote Usage\n"
	    "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n"
	    "\t29  -  Run Bytes Sent By Job\n"
	    "\t144  -  Run Bytes Received By Job\n"
	    "\tthe execute machine vacated the job\n");
	CHECK("004 without a reason", userlog_evicted(path, 7, 0, 1, &u,
	    NULL) == 0 && strstr(last_body(path), "Received By Job\n") !=
	    NULL && strstr(last_body(path), "Received By Job\n")[16] ==
	    '\0');
	CHECK("007 is written", userlog_shadow_exception(path, 7, 0,
	    "Error from exec1: Failed to execute '/a/b': Exec format error",
	    &u) == 0);
	CHECK_STR("007: the reason, then the byte counts", last_body(path),
	    "\tError from exec1: Failed to execute '/a/b': Exec format "
	    "error\n"
	    "\t29  -  Run Bytes Sent By Job\n"
	    "\t144  -  Run Bytes Received By Job\n");
	CHECK("012 is written", userlog_held(path, 7, 0,
	    "Failed to execute '/a/b': No such file or directory", 6,
	    2) == 0);
	CHECK_STR("012: the reason, then Code and Subcode", last_body(path),
	    "\tFailed to execute '/a/b': No such file or directory\n"
	    "\tCode 6 Subcode 2\n");
	userlog_evicted(path, 7, 0, 0, &u, "two\nlines\r");
	CHECK_STR("a reason with a newline stays one line",
	    strstr(last_body(path), "Received By Job\n") + 16,
	    "\ttwo lines \n");
	userlog_read(path, 0, count, NULL);
	CHECK("every event reads back (3 004, 1 007, 1 012)",
	    events[0] == 3 && events[1] == 1 && events[2] == 1 &&
	    events[3] == 0);
	unlink(path);
	TEST_EXIT();
}
