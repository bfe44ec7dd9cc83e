/*
 * schedd_peer.c: plays the schedd's peers in tests: the negotiator
 * (SCHEDD_NEXT_JOB, SCHEDD_MATCH over TCP) and a shadow (SCHEDD_QUERY,
 * SCHEDD_JOB_UPDATE over the Unix-domain socket), and sends hostile
 * requests.  Built by tests/pool/schedd_test.sh against the common
 * library.
 *
 *   schedd_peer next ADDR CYCLE              print the offered job's id
 *   schedd_peer negotiate ADDR CYCLE N MACHINE STARTD_ADDR
 *                                            offer/match up to N jobs
 *   schedd_peer match ADDR CYCLE C.P MACHINE STARTD_ADDR
 *   schedd_peer update C.P NAME=TEXT...      as a shadow, local socket
 *   schedd_peer submit-remote ADDR           must be refused over TCP
 *   schedd_peer garbage ADDR                 bytes that are not RPC
 *   schedd_peer bad-constraint               a query that does not parse
 *   schedd_peer submit-bad PATH              a submit the schedd must refuse
 *                                            (PATH: a missing executable,
 *                                            a directory, a FIFO...)
 *   schedd_peer burst C N GO                 N clients, each on a connection
 *                                            of its own, accepted (a ping)
 *                                            before it prints "ready"; once
 *                                            file GO exists each sets Burst
 *                                            = P in job C.P (P < N) with
 *                                            SCHEDD_EDIT; "sent" once every
 *                                            call is in the schedd's socket,
 *                                            then "answered C.P CODE" per
 *                                            answer
 *   schedd_peer burst-fresh C N GO           the same, each client connecting
 *                                            only once GO exists (the schedd
 *                                            has yet to accept them all)
 *   schedd_peer edits C N M                  N clients at once, each on a
 *                                            connection of its own, each
 *                                            setting Edits in job C.P (P <
 *                                            N) M times (bench/)
 *
 * Exit status 0 on the expected outcome; messages on stdout.
 */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <linux/sockios.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad.h"
#include "config.h"
#include "daemon.h"
#include "log.h"
#include "rpcutil.h"
#include "schedd_rpc.h"
#include "xalloc.h"

static CLIENT *
tcp(const char *addr)
{
	char err[256];
	CLIENT *cl = rpc_connect(addr, PROG_SCHEDD, SCHEDD_V1, 10, err,
	    sizeof(err));

	if (cl == NULL) {
		fprintf(stderr, "schedd_peer: %s\n", err);
		exit(2);
	}
	return cl;
}

static CLIENT *
local(void)
{
	char err[256], *path;
	CLIENT *cl;

	path = xasprintf("%s/.schedd_socket", param("SPOOL"));
	cl = rpc_connect_unix(path, PROG_SCHEDD, SCHEDD_V1, 10, err,
	    sizeof(err));
	if (cl == NULL) {
		fprintf(stderr, "schedd_peer: %s\n", err);
		exit(2);
	}
	free(path);
	return cl;
}

static int
next_job(CLIENT *cl, int cycle, int *c, int *p)
{
	next_job_x arg;
	next_job_res_x res;
	struct ad *ad;
	char err[256];
	long long v;

	arg.cycle = cycle;
	memset(&res, 0, sizeof(res));
	if (rpc_invoke(cl, SCHEDD_NEXT_JOB, (xdrproc_t)xdr_next_job_x, &arg,
	    (xdrproc_t)xdr_next_job_res_x, &res, err, sizeof(err)) == -1) {
		fprintf(stderr, "schedd_peer: next: %s\n", err);
		exit(2);
	}
	if (!res.have) {
		xdr_free((xdrproc_t)xdr_next_job_res_x, (char *)&res);
		return 0;
	}
	ad = ad_from_xdr(&res.job, err, sizeof(err));
	xdr_free((xdrproc_t)xdr_next_job_res_x, (char *)&res);
	if (ad == NULL) {
		fprintf(stderr, "schedd_peer: bad job ad: %s\n", err);
		exit(2);
	}
	ad_get_int(ad, "ClusterId", &v);
	*c = (int)v;
	ad_get_int(ad, "ProcId", &v);
	*p = (int)v;
	ad_free(ad);
	return 1;
}

static int
match(CLIENT *cl, int cycle, int c, int p, const char *machine,
    const char *startd)
{
	match_x arg;
	status_x res;
	struct ad *m = ad_new();
	char err[256];
	int code;

	ad_set_string(m, "Name", machine);
	ad_set_string(m, "StartdIpAddr", startd);
	memset(&arg, 0, sizeof(arg));
	arg.cycle = cycle;
	arg.id.cluster = c;
	arg.id.proc = p;
	ad_to_xdr(m, &arg.machine);
	ad_free(m);
	memset(&res, 0, sizeof(res));
	if (rpc_invoke(cl, SCHEDD_MATCH, (xdrproc_t)xdr_match_x, &arg,
	    (xdrproc_t)xdr_status_x, &res, err, sizeof(err)) == -1) {
		fprintf(stderr, "schedd_peer: match: %s\n", err);
		exit(2);
	}
	ad_x_free(&arg.machine);
	code = res.code;
	if (code != 0)
		printf("match %d.%d: %s\n", c, p, res.message);
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	return code;
}

static int
update(int argc, char **argv)
{
	job_update_x arg;
	status_x res;
	struct ad *ad = ad_new();
	char err[256], *eq;
	CLIENT *cl = local();
	int i, code;

	memset(&arg, 0, sizeof(arg));
	if (sscanf(argv[0], "%d.%d", &arg.id.cluster, &arg.id.proc) != 2)
		return 2;
	for (i = 1; i < argc; i++) {
		if ((eq = strchr(argv[i], '=')) == NULL)
			return 2;
		*eq = '\0';
		if (ad_set_expr(ad, argv[i], eq + 1, err, sizeof(err)) == -1) {
			fprintf(stderr, "schedd_peer: %s\n", err);
			return 2;
		}
	}
	ad_to_xdr(ad, &arg.attrs);
	memset(&res, 0, sizeof(res));
	if (rpc_invoke(cl, SCHEDD_JOB_UPDATE, (xdrproc_t)xdr_job_update_x,
	    &arg, (xdrproc_t)xdr_status_x, &res, err, sizeof(err)) == -1) {
		fprintf(stderr, "schedd_peer: update: %s\n", err);
		return 2;
	}
	printf("update: %d %s\n", res.code, res.message);
	code = res.code;
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	ad_x_free(&arg.attrs);
	rpc_close(cl);
	ad_free(ad);
	return code == 0 ? 0 : 1;
}

static int
submit_remote(const char *addr)
{
	CLIENT *cl = tcp(addr);
	submit_x arg;
	submit_res_x res;
	char err[256];

	memset(&arg, 0, sizeof(arg));
	arg.executable = "/bin/true";
	memset(&res, 0, sizeof(res));
	if (rpc_invoke(cl, SCHEDD_SUBMIT, (xdrproc_t)xdr_submit_x, &arg,
	    (xdrproc_t)xdr_submit_res_x, &res, err, sizeof(err)) == -1) {
		fprintf(stderr, "schedd_peer: %s\n", err);
		return 2;
	}
	printf("remote submit: %d %s\n", res.code, res.message);
	rpc_close(cl);
	return res.code == EPERM ? 0 : 1;
}

/* Bytes that are no RPC at all, then half a record: the schedd must go
 * on serving. */
static int
garbage(const char *addr)
{
	struct sockaddr_in sin;
	char junk[4096];
	int fd, i;

	if (addr_parse(addr, &sin) == -1)
		return 2;
	for (i = 0; i < 3; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
			return 2;
		if (i == 0)
			memset(junk, 'A', sizeof(junk));
		else if (i == 1) {
			/* A record mark claiming a huge fragment. */
			memset(junk, 0, sizeof(junk));
			junk[0] = (char)0xff;
			junk[1] = (char)0xff;
			junk[2] = (char)0xff;
			junk[3] = (char)0xff;
		} else {
			size_t k;

			for (k = 0; k < sizeof(junk); k++)
				junk[k] = (char)random();
		}
		(void)write(fd, junk, sizeof(junk));
		usleep(100000);
		close(fd);
	}
	printf("garbage sent\n");
	return 0;
}

static int
bad_constraint(void)
{
	CLIENT *cl = local();
	job_query_x arg;
	job_query_res_x res;
	char err[256];

	arg.constraint = "ClusterId == == 3";
	arg.history = 0;
	memset(&res, 0, sizeof(res));
	if (rpc_invoke(cl, SCHEDD_QUERY, (xdrproc_t)xdr_job_query_x, &arg,
	    (xdrproc_t)xdr_job_query_res_x, &res, err, sizeof(err)) == -1) {
		fprintf(stderr, "schedd_peer: %s\n", err);
		return 2;
	}
	printf("bad constraint: %d %s\n", res.code, res.message);
	rpc_close(cl);
	return res.code == EINVAL ? 0 : 1;
}

/* A submission of PATH, one vanilla proc: the schedd must refuse it. */
static int
submit_bad(const char *path)
{
	CLIENT *cl = local();
	struct ad *cad = ad_new();
	submit_x arg;
	submit_res_x res;
	ad_x proc;
	char err[256];

	ad_set_string(cad, "Universe", "vanilla");
	memset(&arg, 0, sizeof(arg));
	memset(&proc, 0, sizeof(proc));
	ad_to_xdr(cad, &arg.cluster_ad);
	arg.proc_ads.proc_ads_len = 1;
	arg.proc_ads.proc_ads_val = &proc;
	arg.executable = (char *)path;
	memset(&res, 0, sizeof(res));
	if (rpc_invoke(cl, SCHEDD_SUBMIT, (xdrproc_t)xdr_submit_x, &arg,
	    (xdrproc_t)xdr_submit_res_x, &res, err, sizeof(err)) == -1) {
		fprintf(stderr, "schedd_peer: %s\n", err);
		return 2;
	}
	printf("submit %s: %d %s\n", path, res.code, res.message);
	ad_x_free(&arg.cluster_ad);
	ad_free(cad);
	rpc_close(cl);
	return res.code != 0 ? 0 : 1;
}

/*
 * burst: the calls of N clients in the schedd's sockets together, so
 * that (with the schedd stopped meanwhile by the test) it reads them
 * all in one turn of its loop.
 */
static int
burst(int cluster, int n, const char *go, int fresh)
{
	CLIENT **cl;
	pid_t *kids;
	int *fd, i, left, status, bad = 0, queued;
	struct timeval tv = { 30, 0 };

	if (n <= 0 || n > 1000)
		return 2;
	cl = xcalloc((size_t)n, sizeof(*cl));
	fd = xcalloc((size_t)n, sizeof(*fd));
	kids = xcalloc((size_t)n, sizeof(*kids));
	for (i = 0; i < n && !fresh; i++) {
		cl[i] = local();
		clnt_control(cl[i], CLSET_TIMEOUT, (char *)&tv);
		if (clnt_call(cl[i], SCHEDD_NULL, (xdrproc_t)rpc_xdr_nothing, NULL,
		    (xdrproc_t)rpc_xdr_nothing, NULL, tv) != RPC_SUCCESS) {
			fprintf(stderr, "schedd_peer: ping %d failed\n", i);
			return 2;
		}
		if (!clnt_control(cl[i], CLGET_FD, (char *)&fd[i]))
			return 2;
	}
	printf("ready\n");
	fflush(stdout);
	while (access(go, F_OK) == -1)
		usleep(20000);
	/* Fresh: connections the schedd has yet to accept when the calls
	 * are sent (it is stopped meanwhile). */
	for (i = 0; i < n && fresh; i++) {
		cl[i] = local();
		clnt_control(cl[i], CLSET_TIMEOUT, (char *)&tv);
		if (!clnt_control(cl[i], CLGET_FD, (char *)&fd[i]))
			return 2;
	}
	for (i = 0; i < n; i++) {
		if ((kids[i] = fork()) == -1)
			return 2;
		if (kids[i] == 0) {
			job_edit_x arg;
			job_action_res_x res;
			char con[64], val[16];

			snprintf(con, sizeof(con),
			    "ClusterId == %d && ProcId == %d", cluster, i);
			snprintf(val, sizeof(val), "%d", i);
			arg.constraint = con;
			arg.name = "Burst";
			arg.value = val;
			memset(&res, 0, sizeof(res));
			if (clnt_call(cl[i], SCHEDD_EDIT,
			    (xdrproc_t)xdr_job_edit_x, (char *)&arg,
			    (xdrproc_t)xdr_job_action_res_x, (char *)&res,
			    tv) != RPC_SUCCESS)
				_exit(3);
			printf("answered %d.%d %d\n", cluster, i, res.code);
			fflush(stdout);
			_exit(res.code == 0 ? 0 : 1);
		}
	}
	/* Every call written: nothing of it left unread in our sockets'
	 * queues is what the schedd has not read yet, so all of them are
	 * in its sockets once each queue holds something. */
	for (left = n; left > 0;) {
		left = 0;
		for (i = 0; i < n; i++)
			if (ioctl(fd[i], SIOCOUTQ, &queued) == -1 ||
			    queued <= 0)
				left++;
		if (left > 0)
			usleep(10000);
	}
	printf("sent\n");
	fflush(stdout);
	for (i = 0; i < n; i++)
		if (waitpid(kids[i], &status, 0) == -1 ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			bad++;
	return bad == 0 ? 0 : 1;
}

/* One client of edits: M edits of job C.P, one after the other. */
static void
edit_loop(int cluster, int proc, int m)
{
	CLIENT *cl = local();
	job_edit_x arg;
	job_action_res_x res;
	char con[64], val[16], err[256];
	int k;

	snprintf(con, sizeof(con), "ClusterId == %d && ProcId == %d",
	    cluster, proc);
	arg.constraint = con;
	arg.name = "Edits";
	arg.value = val;
	for (k = 0; k < m; k++) {
		snprintf(val, sizeof(val), "%d", k);
		memset(&res, 0, sizeof(res));
		if (rpc_invoke(cl, SCHEDD_EDIT, (xdrproc_t)xdr_job_edit_x,
		    &arg, (xdrproc_t)xdr_job_action_res_x, &res, err,
		    sizeof(err)) == -1 || res.code != 0)
			_exit(1);
		xdr_free((xdrproc_t)xdr_job_action_res_x, (char *)&res);
	}
	_exit(0);
}

/* edits: N clients changing the queue as fast as they are answered. */
static int
edits(int cluster, int n, int m)
{
	pid_t kid;
	int i, status, bad = 0;

	if (n <= 0 || n > 1000 || m <= 0)
		return 2;
	for (i = 0; i < n; i++) {
		if ((kid = fork()) == -1)
			return 2;
		if (kid == 0)
			edit_loop(cluster, i, m);
	}
	for (i = 0; i < n; i++)
		if (wait(&status) == -1 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			bad++;
	return bad == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	CLIENT *cl;
	int c, p, i, n, got = 0;

	common_init(argv[0]);
	if (argc < 2)
		return 2;
	if (strcmp(argv[1], "next") == 0 && argc == 4) {
		cl = tcp(argv[2]);
		if (next_job(cl, atoi(argv[3]), &c, &p))
			printf("%d.%d\n", c, p);
		else
			printf("none\n");
		return 0;
	}
	if (strcmp(argv[1], "match") == 0 && argc == 7) {
		cl = tcp(argv[2]);
		if (sscanf(argv[4], "%d.%d", &c, &p) != 2)
			return 2;
		return match(cl, atoi(argv[3]), c, p, argv[5], argv[6]) == 0 ?
		    0 : 1;
	}
	if (strcmp(argv[1], "negotiate") == 0 && argc == 7) {
		cl = tcp(argv[2]);
		n = atoi(argv[4]);
		for (i = 0; i < n; i++) {
			if (!next_job(cl, atoi(argv[3]), &c, &p))
				break;
			if (match(cl, atoi(argv[3]), c, p, argv[5],
			    argv[6]) == 0) {
				printf("%d.%d\n", c, p);
				got++;
			}
		}
		fprintf(stderr, "matched %d\n", got);
		return 0;
	}
	if (strcmp(argv[1], "update") == 0 && argc >= 3)
		return update(argc - 2, argv + 2);
	if (strcmp(argv[1], "submit-remote") == 0 && argc == 3)
		return submit_remote(argv[2]);
	if (strcmp(argv[1], "garbage") == 0 && argc == 3)
		return garbage(argv[2]);
	if (strcmp(argv[1], "bad-constraint") == 0)
		return bad_constraint();
	if (strcmp(argv[1], "submit-bad") == 0 && argc == 3)
		return submit_bad(argv[2]);
	if (strcmp(argv[1], "edits") == 0 && argc == 5)
		return edits(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (strcmp(argv[1], "burst") == 0 && argc == 5)
		return burst(atoi(argv[2]), atoi(argv[3]), argv[4], 0);
	if (strcmp(argv[1], "burst-fresh") == 0 && argc == 5)
		return burst(atoi(argv[2]), atoi(argv[3]), argv[4], 1);
	fprintf(stderr, "usage: see tests/programs/schedd_peer.c\n");
	return 2;
}
