/*
 * schedd_client.h: talking to a schedd (schedd_rpc.x) from the user
 * commands: condor_submit, condor_q, condor_rm, condor_hold,
 * condor_release, condor_prio, condor_qedit, condor_history,
 * condor_reschedule.
 *
 * The local schedd is reached over the Unix-domain socket
 * $(SPOOL)/.schedd_socket, where it learns who the caller is from the
 * kernel; another host's schedd over TCP at its ScheddIpAddr, for
 * queries only.  Every call times out after RPC_TIMEOUT seconds (a
 * submit after five times that: the schedd copies the executable).
 */
#ifndef CONDOR_SCHEDD_CLIENT_H
#define CONDOR_SCHEDD_CLIENT_H

#include <stddef.h>
#include <stdio.h>
#include <rpc/rpc.h>

#include "jobfmt.h"

struct ad;
struct buf;
struct submit_result;

#define SCHEDD_SOCKET_NAME	".schedd_socket"	/* in SPOOL */

/*
 * schedd_connect: a client for the schedd at ADDR ("<ip:port>"), or for
 * this host's schedd when ADDR is NULL.  NULL with a message in ERR.
 * Close it with rpc_close.
 */
CLIENT	*schedd_connect(const char *addr, char *err, size_t errlen);

/*
 * schedd_submit: queue the cluster RES describes, in one transaction.
 * Returns 0 with *CLUSTER set, or -1 with a message in ERR (nothing was
 * queued, unless the message says the answer was lost).
 */
int	 schedd_submit(CLIENT *, const struct submit_result *res,
	    int *cluster, char *err, size_t errlen);

/*
 * schedd_submit_many: queue the N clusters RES[0..N) in one transaction:
 * all of them or none (condor_dagman's ready nodes).  Each must be
 * sendable whole in one request beside the others, and name no
 * $(Cluster): schedd_submit_size says, else the caller sends it with
 * schedd_submit.  Returns 0 with CLUSTERS[0..N) set; or -1 with a
 * message in ERR and *FAILED the index of the cluster the schedd
 * refused (-1: none in particular; then nothing was queued, unless the
 * message says the answer was lost).
 */
int	 schedd_submit_many(CLIENT *, const struct submit_result *const *res,
	    size_t n, int *clusters, long *failed, char *err, size_t errlen);
/* The bytes RES takes in a SUBMIT_MANY request, or 0 if it cannot go in
 * one (too large, or it names $(Cluster)). */
size_t	 schedd_submit_size(const struct submit_result *res);
/* The most bytes of clusters one SUBMIT_MANY request may carry (three
 * quarters of rpcutil.h's RPC_MAX_FRAGMENT). */
#define SCHEDD_SUBMIT_MANY_BYTES	(192 * 1024)

/*
 * schedd_query: the jobs for which CONSTRAINT ("" or NULL: all) is
 * TRUE; finished ones from the history when HISTORY.  When ATTRS (a
 * NULL-terminated list) is given, the schedd sends only those
 * attributes and the ones their values refer to, which makes large
 * queues quick to show.  Returns how many ads were stored in *JOBS (free with
 * schedd_free_jobs), or -1 with a message in ERR.
 */
int	 schedd_query(CLIENT *, const char *constraint, int history,
	    const char *const *attrs, struct ad ***jobs, char *err,
	    size_t errlen);
void	 schedd_free_jobs(struct ad **jobs, int n);

/*
 * schedd_tail: a piece of running job CLUSTER.PROC's output (WHICH 0)
 * or error (1) as its execute host holds it (SCHEDD_TAIL): the bytes
 * from OFFSET (-1: the last MAX), at most MAX (and 64 KiB).  0 with
 * *DATA (allocated, *LEN bytes, from *AT) and *SIZE, the file's size;
 * -1 with a message in ERR and *CODE the schedd's errno (ESRCH: the job
 * no longer runs), or 0 when it could not be asked.
 */
int	 schedd_tail(CLIENT *, int cluster, int proc, int which,
	    long long offset, int max, char **data, size_t *len,
	    long long *at, long long *size, int *code, char *err,
	    size_t errlen);

/*
 * schedd_action: apply ACTION (JOB_REMOVE, JOB_HOLD, JOB_RELEASE,
 * JOB_SET_PRIO, JOB_ADD_PRIO) with VALUE and REASON to the jobs
 * CONSTRAINT selects.  Returns 0 with *COUNT (changed) and *DENIED (not
 * the caller's) set, also when nothing matched; -1 with a message in
 * ERR if the schedd could not be asked or refused the request.
 */
int	 schedd_action(CLIENT *, int action, const char *constraint,
	    int value, const char *reason, int *count, int *denied,
	    char *err, size_t errlen);

/*
 * schedd_edit: set NAME to the expression VALUE in the caller's jobs
 * CONSTRAINT selects (condor_qedit).  Returns 0 with *COUNT (changed)
 * and *DENIED (not the caller's), also when nothing matched; -1 with a
 * message in ERR if the schedd could not be asked or refused (a name
 * or value that does not parse, an attribute users may not set).
 */
int	 schedd_edit(CLIENT *, const char *constraint, const char *name,
	    const char *value, int *count, int *denied, char *err,
	    size_t errlen);

/* schedd_reschedule: ask for a negotiation cycle now.  0 or -1. */
int	 schedd_reschedule(CLIENT *, char *err, size_t errlen);

/*
 * A job named on a command line: "C.P", "C", a user name, or all jobs
 * ("-a").
 */
enum job_spec_kind {
	JOB_SPEC_PROC,
	JOB_SPEC_CLUSTER,
	JOB_SPEC_OWNER,
	JOB_SPEC_ALL,
};

struct job_spec {
	enum job_spec_kind	 kind;
	int			 cluster;
	int			 proc;
	const char		*owner;		/* borrowed from the argument */
};

/*
 * job_spec_parse: read ARG as "C.P", "C" or a user name into SPEC.
 * Returns 0, or -1 if ARG is none of them.
 */
int	 job_spec_parse(const char *arg, struct job_spec *spec);
/* job_spec_constraint: the constraint selecting SPEC's jobs (caller
 * frees). */
char	*job_spec_constraint(const struct job_spec *spec);
/* job_spec_name: "job 3.1", "cluster 3", "user ann", "all jobs". */
void	 job_spec_name(const struct job_spec *spec, char *buf, size_t len);

/*
 * Which jobs a listing command (condor_q, condor_history,
 * condor_summary) is about: "-constraint EXPR", "-name HOST" (another
 * host's schedd) and job arguments C.P, C or OWNER, any of which
 * selects; and how it shows them: "-l" (-long) every attribute, "-json",
 * and where the command offers them "-af[:OPTS] ATTR..." (-autoformat)
 * and "-format FMT ATTR" (jobfmt.h).
 *
 * job_select_init: nothing selected yet; USAGE prints the command's
 * usage on a stream and returns the exit status; JOB_SELECT_AF offers
 * -af.  job_select_arg: take ARGV[*I] (and the values after it,
 * advancing *I): 1 taken, -1 bad (said on stderr).  "-h" (-help,
 * --help) and an unknown option (the caller tries its own first) end
 * the command with its usage.  job_select_constraint: the constraint
 * for what was taken, ANDed with EXTRA if not NULL; "" selects every
 * job; NULL (said) if -constraint does not parse or the whole is too
 * long.  The caller frees it.
 */
#define JOB_SELECT_AF	0x1

struct job_select {
	char		*specs;		/* the named jobs, ORed; NULL none */
	const char	*constraint;	/* -constraint; NULL none */
	const char	*host;		/* -name; NULL the local schedd */
	int		 want_long;	/* -l */
	int		 want_json;	/* -json */
	struct jobfmt	 print;		/* -af[:OPTS] and -format (jobfmt.h) */
	int		 flags;		/* JOB_SELECT_AF */
	int		(*usage)(FILE *);
};

void	 job_select_init(struct job_select *, int (*usage)(FILE *),
	    int flags);
int	 job_select_arg(struct job_select *, int argc, char **argv, int *i);
char	*job_select_constraint(const struct job_select *,
	    const char *extra);
void	 job_select_free(struct job_select *);
/* job_select_connect: the schedd selected (-name, or this host's);
 * NULL (said) if it cannot be found or reached. */
CLIENT	*job_select_connect(const struct job_select *);

/*
 * job_tool_main: the whole of condor_rm (JOB_REMOVE), condor_hold
 * (JOB_HOLD), condor_release (JOB_RELEASE) and condor_prio
 * (JOB_SET_PRIO): arguments, one request per job named, messages, exit
 * status.
 */
int	 job_tool_main(int argc, char **argv, int action);

/*
 * Showing jobs (condor_q, condor_history).
 *
 * job_status_letter: "U", "I", "R", "X", "C", "H", "S" for a JobStatus,
 * "?" for anything else.  job_value_text: attribute NAME of AD as text
 * for -af: strings unquoted, booleans true/false, "undefined", "error";
 * control characters replaced (caller frees).  job_format_time: a time
 * as "MM/DD HH:MM" (local time), "??/?? ??:??" if missing.
 * job_format_cpu: seconds as "D+HH:MM:SS".  job_command: the base name
 * of Cmd and the Args (caller frees).  job_sort: order N ads by
 * ClusterId, then ProcId.
 */
const char *job_status_letter(long long status);
char	*job_value_text(const struct ad *ad, const char *name);
void	 job_format_time(const struct ad *ad, const char *name, char *buf,
	    size_t len);
void	 job_format_cpu(double secs, char *buf, size_t len);
char	*job_command(const struct ad *ad);
void	 job_sort(struct ad **jobs, size_t n);
/* job_print_long: every attribute, "Name = value", then a blank line. */
void	 job_print_long(const struct ad *ad, FILE *fp);

#endif
