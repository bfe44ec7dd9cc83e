/*
 * shadow.h: private to condor_shadow.
 */
#ifndef SHADOW_PRIVATE_H
#define SHADOW_PRIVATE_H

#include <sys/types.h>

#include <limits.h>
#include <stdint.h>
#include <time.h>

#include "shadow_rpc.h"

struct ad;

/* The one job this shadow looks after. */
struct shadow_job {
	int		 cluster, proc;
	char		 id[32];		/* "C.P" */
	struct ad	*ad;			/* as the schedd gave it */
	char		*owner;
	uid_t		 uid;			/* the owner's ids */
	gid_t		 gid;
	char		*iwd;
	/* Absolute paths, or NULL when the job has none (or /dev/null). */
	char		*in, *out, *err, *userlog;
	char		*nodes_log;		/* DAGManNodesLog: a DAG's */
	char		 exe_path[PATH_MAX];	/* in SPOOL */
	long long	 exe_size;
	int		 exe_fd, in_fd, out_fd, err_fd;
	int		 resuming;		/* exe_path is a checkpoint */
	long long	 num_ckpts;		/* NumCkpts */

	char		*startd_addr;		/* from the schedd */
	char		*machine;		/* the machine's Name */
	char		 capability[CAPABILITY_MAX + 1];
	int		 claimed;		/* the startd said yes */
	time_t		 run_start;		/* this run's claim */

	/* This run's traffic, for the user log: the job's point of view. */
	long long	 bytes_sent;		/* output the job sent */
	long long	 bytes_received;	/* executable and input */

	/* From the job ad: totals over earlier runs. */
	double		 prev_remote_user, prev_remote_sys;
	double		 prev_local_user, prev_local_sys;
	double		 prev_wall;
	long long	 prev_image_size;
};

extern struct shadow_job sj;

/* How this run ended, as the starter (or the shadow) saw it. */
struct shadow_outcome {
	int		 how;		/* EXIT_NORMAL... */
	int		 code;
	int		 subcode;	/* EXIT_FAILED: HoldReasonSubCode */
	double		 user_cpu, sys_cpu;	/* the job, this run */
	long long	 image_size;		/* KiB */
	char		 message[ERRSTR_MAX];
};

/*
 * shadow.c: the lifecycle.  shadow_outcome records how the run ended
 * and finishes the shadow from the event loop (the caller's reply goes
 * out first).  shadow_starter_alive: a call came from the starter; push
 * the deadline after which it counts as lost.  shadow_watch_fd: the
 * starter's connection; its hang-up means the starter is gone (or,
 * with a lease, disconnected).  shadow_is_leaving: SIGTERM came (the
 * job is removed or held), and the starter's calls are answered
 * ESHUTDOWN; shadow_left: the starter heard it, the shadow exits.
 * transfer_starter_known: a starter said HELLO; transfer_leaving: fill
 * RES with the ESHUTDOWN answer and return 1 while leaving, else 0.
 */
void	shadow_outcome(const struct shadow_outcome *);
int	shadow_is_leaving(void);
void	shadow_left(void);
int	transfer_starter_known(void);
int	transfer_leaving(status_x *res);
void	shadow_starter_alive(void);
void	shadow_watch_fd(int fd);
/*
 * The job's lease (JobLeaseDuration; 0 none, and for standard jobs):
 * with one, a starter that hangs up or falls silent is waited for, its
 * job running on over there (022 in the user log), until it reconnects
 * (shadow_reconnected, from SHADOW_RECONNECT: 024) or the lease is
 * over (025, and the job goes back to idle).
 */
long	shadow_job_lease(void);
/* A new shadow (-reconnect) takes the SHADOW_RECONNECT of whichever
 * starter presents the claim's capability (shadow_transfer.c). */
void	shadow_await_reconnect(void);
/*
 * shadow_orphaned: the schedd that started us has died (we have another
 * parent now).  A schedd that comes back adopts a running job's shadow
 * (schedd_shadow.c); our updates then wait for it (up to ORPHAN_TRIES
 * seconds), and our exit status reaches it as the job's
 * ShadowExitCode, sent before we exit.
 */
#define ORPHAN_TRIES	3600
int	shadow_orphaned(void);
void	shadow_reconnected(const char *from);
/* Act as the owner around an access to the owner's files; no-ops when
 * the shadow is not root. */
int	shadow_as_owner(void);
void	shadow_as_self(void);

/* shadow_schedd.c: the schedd's Unix-domain socket. */
/*
 * schedd_get_job: the ad of CLUSTER.PROC, or NULL with a message in ERR
 * (*GONE set when the schedd answered but has no such job).
 */
struct ad *schedd_get_job(int cluster, int proc, int *gone, char *err,
	    size_t errlen);
/* schedd_update_job: set ATTRS in the job's queue entry; TRIES attempts a
 * second apart.  0, or -1 (logged). */
int	schedd_update_job(const struct ad *attrs, int tries);

/* shadow_format_address: "<ip:port>" of BOUND into OUT (ADDR_STRLEN),
 * HOST's address when BOUND is the wildcard. */
struct sockaddr_in;
void	shadow_format_address(struct sockaddr_in *bound, char *out);
/* shadow_capability_ok: is CAP the claim's capability (constant time)?
 * shadow_transfer.c. */
int	shadow_capability_ok(const char *cap);

/* Whether the shadow runs as root (and acts as the owner). */
int	shadow_is_root(void);

/* The job's system-call service died under it: this run is lost. */
void	shadow_syscalls_lost(void);

/*
 * shadow_syscall.c: the system-call service of a standard-universe job.
 * syscall_init: listen for the job's connection (0, or -1 logged);
 * syscall_address: "<ip:port>" for HELLO, "" when not listening.
 * syscall_collect: the service's counts and CPU, once it has ended,
 * waiting at most WAIT seconds; syscall_lost: 1 if it ended without
 * them (killed: the job lost its files, and this run is worth nothing).
 * syscall_cpu adds its CPU to USER and SYS; syscall_report_attrs puts
 * NumRemoteSyscalls, BytesSent and BytesRecvd in AD.
 */
int	syscall_init(void);
const char *syscall_address(void);
void	syscall_collect(double wait);
int	syscall_lost(void);
void	syscall_cpu(double *user, double *sys);
void	syscall_report_attrs(struct ad *);

/*
 * shadow_calls.c: the job's descriptor table and the handlers of the
 * calls it forwards (include/syscall_table.h).  calls_init: every job
 * descriptor closed; calls_set_fd: job descriptor FD is the server's
 * REAL (owned from then on); calls_close_all: close them all.
 * calls_serve: serve the request body REQ of LEN bytes (after its
 * record mark) into REP of REPLEN bytes (at least 8): the reply body's
 * length.  A malformed request gets -EIO, an unknown call -ENOSYS, a
 * chained piece after an incomplete request -ECANCELED
 * (include/syscall_proto.h); calls_break_chain: the last request was
 * not served (malformed), so a chained one after it is not either.
 * calls_limit_writes: the job may write BYTES more (-1: no limit);
 * beyond them its writes fail with EDQUOT.
 */
void	calls_init(void);
/* shadow.c: hold the job for REASON as soon as the loop has a turn. */
void	shadow_hold_soon(const char *reason);
void	calls_limit_writes(long long bytes);
void	calls_set_fd(int fd, int real);
void	calls_close_all(void);
void	calls_break_chain(void);
uint32_t calls_serve(const uint8_t *req, uint32_t len, uint8_t *rep,
	    uint32_t replen);

/* shadow_transfer.c: the SHADOW_PROG service for the starter. */
void	transfer_init(void);
/* transfer_from_starter: whether REQ comes from our starter (a refusal
 * of WHAT is logged). */
int	transfer_from_starter(struct svc_req *req, const char *what);

/*
 * shadow_xfer.c: the files a vanilla job transfers.  xfer_inputs_list
 * (acting as the owner): list them, 0 or -1 with ERR naming the file;
 * xfer_failure: why the outputs failed (the job is held), or NULL;
 * xfer_finish: the job has left (EVICTED) or ended: its spooled files
 * are kept or removed, nothing half written stays.
 */
int	xfer_inputs_list(char *err, size_t errlen);
const char *xfer_failure(void);
void	xfer_finish(int evicted);

/* shadow_report.c: the user log, mail and the accounting attributes. */
void	report_execute(void);
void	report_suspended(int suspended);
/* 022, 024, 025 in the user log (the job's lease, shadow.c). */
void	report_disconnected(const char *why);
void	report_reconnected(void);
void	report_reconnect_failed(long lease);
/* Usage of this run and the totals; for the log and the queue. */
void	report_usage_attrs(struct ad *, const struct shadow_outcome *);
void	report_evicted(const struct shadow_outcome *);
void	report_shadow_exception(const struct shadow_outcome *);
/* A new checkpoint is in SPOOL: NumCkpts, LastCkptTime, ImageSize and
 * event 003; O's CPU is this run's so far. */
void	report_checkpointed(const struct shadow_outcome *);
void	report_terminated(const struct shadow_outcome *);
void	report_mail(const struct shadow_outcome *);

#endif
