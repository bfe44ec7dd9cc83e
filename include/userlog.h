/*
 * userlog.h: the job's user log (submit file "log = FILE"), in the format
 * HTCondor uses so that tools reading HTCondor user logs read ours.
 *
 * Each event is one write(2) of
 *	NNN (CCC.PPP.000) MM/DD HH:MM:SS text
 *	<more lines, each starting with a tab>
 *	...
 * appended with O_APPEND, so events from the schedd and the shadow never
 * interleave.  The caller writes with the job owner's identity.
 */
#ifndef CONDOR_USERLOG_H
#define CONDOR_USERLOG_H

#include <stddef.h>
#include <time.h>

#define ULOG_SUBMIT		0
#define ULOG_EXECUTE		1
#define ULOG_CHECKPOINTED	3
#define ULOG_EVICTED		4
#define ULOG_SHADOW_EXCEPTION	7
#define ULOG_TERMINATED		5
#define ULOG_ABORTED		9
#define ULOG_SUSPENDED		10
#define ULOG_UNSUSPENDED	11
#define ULOG_HELD		12
#define ULOG_RELEASED		13
#define ULOG_POST_SCRIPT	16
#define ULOG_DISCONNECTED	22
#define ULOG_RECONNECTED	24
#define ULOG_RECONNECT_FAILED	25

/* The line naming a DAG node in a node job's 000 event and in 016. */
#define ULOG_DAG_NODE		"    DAG Node: "

/* CPU usage for the usage lines: seconds. */
struct ulog_usage {
	double	remote_user, remote_sys;	/* this run, on the host */
	double	local_user, local_sys;		/* this run, the shadow */
	double	total_remote_user, total_remote_sys;	/* all runs */
	double	total_local_user, total_local_sys;
	long long bytes_sent, bytes_received;		/* this run */
	long long total_bytes_sent, total_bytes_received;
};

/*
 * userlog_write: append event EVENT of job CLUSTER.PROC to PATH.  TEXT is
 * the rest of the first line; BODY (may be NULL) the following lines,
 * each already starting with a tab and ending with a newline.  Returns 0,
 * or -1 with errno set.
 */
int	userlog_write(const char *path, int event, int cluster, int proc,
	    const char *text, const char *body);

/*
 * userlog_also: every event written from now on is also appended to
 * PATH (a copy is kept), the node log of the DAG the job belongs to
 * (its DAGManNodesLog): HTCondor writes a DAG node job's events both to
 * its own log (UserLog) and to its DAG's node log.  An event is written
 * once to a file that is both.  With PATH NULL (or empty) events go to
 * the named log alone again.  A writer that writes for several jobs sets
 * it around each job's events; the path given to a writer may then be
 * NULL, for a job with no log of its own.
 */
void	userlog_also(const char *path);

/* The standard events, formatted as HTCondor formats them.  A DAG node
 * job's submit event (DAG_NODE not NULL) carries "    DAG Node: NAME". */
int	userlog_submit(const char *path, int cluster, int proc,
	    const char *schedd_addr, const char *dag_node);
int	userlog_execute(const char *path, int cluster, int proc,
	    const char *startd_addr, const char *machine_name);
int	userlog_checkpointed(const char *path, int cluster, int proc,
	    const struct ulog_usage *);
/* 004: REASON (may be NULL) on a line of its own after the byte
 * counts, as HTCondor writes it. */
int	userlog_evicted(const char *path, int cluster, int proc,
	    int checkpointed, const struct ulog_usage *, const char *reason);
/* 007: the shadow could not go on with the job, for REASON. */
int	userlog_shadow_exception(const char *path, int cluster, int proc,
	    const char *reason, const struct ulog_usage *);
int	userlog_terminated(const char *path, int cluster, int proc,
	    int by_signal, int code, const struct ulog_usage *);
int	userlog_aborted(const char *path, int cluster, int proc,
	    const char *reason);
int	userlog_suspended(const char *path, int cluster, int proc);
int	userlog_unsuspended(const char *path, int cluster, int proc);
/* 022, 024, 025: the job's shadow and starter lost each other (the job
 * runs on while its lease lasts), found each other again, or did not
 * before the lease (SECONDS) ran out.  MACHINE is the slot's Name. */
int	userlog_disconnected(const char *path, int cluster, int proc,
	    const char *machine, const char *reason);
int	userlog_reconnected(const char *path, int cluster, int proc,
	    const char *machine, const char *startd_addr);
int	userlog_reconnect_failed(const char *path, int cluster, int proc,
	    const char *machine, long seconds);
/* 012: the HoldReason, then "Code N Subcode M" (HoldReasonCode,
 * HoldReasonSubCode). */
int	userlog_held(const char *path, int cluster, int proc,
	    const char *reason, int code, int subcode);
int	userlog_released(const char *path, int cluster, int proc,
	    const char *reason);

/*
 * 016: a DAG node's POST script (of the node whose job was
 * CLUSTER.PROC) ended: with return value CODE, or killed by signal CODE.
 * condor_dagman writes it to the DAG's node log.
 */
int	userlog_post_script(const char *path, int cluster, int proc,
	    int by_signal, int code, const char *node);

/* One event read back from a log. */
struct ulog_event {
	int	event;
	int	cluster, proc;
	int	by_signal;	/* 005, 016: terminated by a signal */
	int	code;		/* 005, 016: return value or signal */
	char	text[256];	/* the rest of the first line */
	const char *dag_node;	/* "DAG Node: NAME": NAME, valid during
				   the callback; NULL: none */
};

/*
 * userlog_read: parse the events in PATH from byte OFFSET on, calling FN
 * for each complete one (an event whose "..." line has not been written
 * yet is left for the next call).  Returns the offset after the last
 * complete event, or -1 with errno set.  Garbage lines are skipped.
 */
long	userlog_read(const char *path, long offset,
	    void (*fn)(const struct ulog_event *, void *), void *arg);

#endif
