/*
 * userlog_test: a DAG node job's events go to its own user log and to
 * its DAG's node log (userlog_also), once to a file that is both.
 *
 * checks: 7
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "userlog.h"
#include "xalloc.h"

/* How many events (lines "NNN (") file PATH holds; -1 if unreadable. */
static int
events_in(const char *path)
{
	FILE *fp;
	char line[512];
	int n = 0;

	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strlen(line) > 4 && line[3] == ' ' && line[4] == '(')
			n++;
	fclose(fp);
	return n;
}

int
main(void)
{
	char dir[] = "/tmp/userlog_test.XXXXXX", *own, *nodes, *alias, *gone;
	struct ulog_usage u;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	own = xasprintf("%s/own.log", dir);
	nodes = xasprintf("%s/nodes.log", dir);
	alias = xasprintf("%s/./nodes.log", dir);
	gone = xasprintf("%s/no/such/dir/nodes.log", dir);
	memset(&u, 0, sizeof(u));

	CHECK("an event goes to the log named",
	    userlog_submit(own, 1, 0, "<127.0.0.1:1>", NULL) == 0 &&
	    events_in(own) == 1 && events_in(nodes) == -1);

	userlog_also(nodes);
	CHECK("with a node log: to both",
	    userlog_execute(own, 1, 0, "<127.0.0.1:2>", "host") == 0 &&
	    events_in(own) == 2 && events_in(nodes) == 1);
	CHECK("a job with no log of its own: to the node log alone",
	    userlog_terminated(NULL, 2, 0, 0, 0, &u) == 0 &&
	    events_in(own) == 2 && events_in(nodes) == 2);
	CHECK("its own log is the node log (same name): written once",
	    userlog_submit(nodes, 3, 0, "<127.0.0.1:1>", "A") == 0 &&
	    events_in(nodes) == 3);
	CHECK("its own log is the node log (another name): written once",
	    userlog_submit(alias, 4, 0, "<127.0.0.1:1>", "B") == 0 &&
	    events_in(nodes) == 4);
	userlog_also(NULL);
	CHECK("without it again: the log named alone",
	    userlog_aborted(own, 1, 0, "removed") == 0 &&
	    events_in(own) == 3 && events_in(nodes) == 4);
	userlog_also(gone);
	CHECK("a node log that cannot be written is an error",
	    userlog_aborted(own, 5, 0, "x") == -1 && events_in(own) == 4);
	userlog_also(NULL);
	unlink(own);
	unlink(nodes);
	rmdir(dir);
	free(own);
	free(nodes);
	free(alias);
	free(gone);
	TEST_EXIT();
}
