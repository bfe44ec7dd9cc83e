/*
 * starter.h: private to condor_starter.
 */
#ifndef STARTER_PRIVATE_H
#define STARTER_PRIVATE_H

#include <sys/types.h>

#include <limits.h>

#include "shadow_rpc.h"

struct ad;

/* Names inside the execute directory. */
#define STARTER_EXE	"condor_exec.exe"
#define STARTER_STDIN	"_condor_stdin"
#define STARTER_STDOUT	"_condor_stdout"
#define STARTER_STDERR	"_condor_stderr"

/* Bytes of output shipped per tick before the loop gets a turn. */
#define STARTER_SHIP_PER_TICK	(4 * 1024 * 1024)

/* Why the job is leaving before its end, if it is. */
enum leave_reason {
	LEAVE_NONE,
	LEAVE_VACATE,		/* SIGTERM from the startd, or it died */
	LEAVE_KILL,		/* SIGQUIT from the startd */
};

struct starter_job {
	int		 cluster, proc;
	struct ad	*ad;		/* from the shadow's HELLO */
	char		*universe;	/* "vanilla", "standard" */
	const struct universe *u;
	long long	 exe_size;	/* bytes, from HELLO */

	char		 dir[PATH_MAX];	/* the execute directory */
	uid_t		 uid;		/* the job's account */
	gid_t		 gid;
	char		 user[64];
	int		 dedicated;	/* no other job runs as uid */
	int		 as_owner;	/* uid is the job's Owner's
					   (starter_owner.c) */
	int		 shared_fs;	/* no transfer: it runs in iwd, the
					   shared directories in its box */
	char		*iwd;		/* (shared_fs) its Iwd */
	gid_t		*groups;	/* (as_owner) the owner's groups */
	int		 ngroups;
	int		 no_pw;		/* uid has no user database entry */
	int		 account_fd;	/* its lock (starter_box.c); -1 */
	int		 account_clean;	/* no process of it is left */
	char		 cgroup[PATH_MAX + 320];	/* the job's, or "" */
	int		 cg_fd;		/* its directory; -1 */
	int		 in_cgroup;	/* (the child) born there */
	int		 pidns;		/* no cgroup: a PID namespace of its
					   own, pid is its init */
	int		 status_fd;	/* (pidns) the job's wait status, from
					   its init; -1 */
	int		 status_wfd;	/* (pidns) the init's end; -1 */
	/* Its memory limit, imposed by the kernel where it can be: in
	 * its cgroup v2 (memory.max), else in a cgroup of the v1 memory
	 * controller (memcg, memcg_fd). */
	long long	 mem_limit;	/* MB, 0: none */
	char		 mem_whose[64];	/* whose limit it is */
	int		 mem_v2;	/* set in job->cgroup */
	char		 memcg[PATH_MAX + 320];	/* v1: its directory, or "" */
	int		 memcg_fd;	/* v1: that directory; -1 */
	int		 exec_fd;	/* exec the job through it; -1 */
	int		 exec_errno;	/* why its program could not be
					   executed (execve's errno); 0 */

	pid_t		 pid;		/* the job, its process group */
	double		 started;	/* monotime of the spawn */
	double		 disk_checked;	/* monotime of the last measure */
	char		 over[256];	/* the limit it passed, or "" */
	int		 over_code;	/* HTCondor's HoldReasonCode for it */
	int		 running;
	int		 suspended;
	enum leave_reason leave;
	long		 kill_timer;	/* SIGKILL after VACATE_GRACE */

	/* The job's standard files: the child's ends, the starter's. */
	int		 stdin_fd, stdout_fd, stderr_fd;	/* child */
	int		 out_rfd, err_rfd;	/* starter */
	int		 ship_out, ship_err;	/* the job has Out, Err */
	int		 err_is_out;		/* Err is Out's file */
	long long	 out_sent, err_sent;	/* bytes shipped */

	/* The standard universe. */
	char		*capability;	/* the claim's, from the startd */
	char		*syscall_addr;	/* the shadow's system calls, or "" */
	int		 syscall_fd;	/* connected; the job's until spawned;
					   0: none */
	int		 chrooted;	/* the child entered job->dir as / */
	int		 dir_is_root;	/* it will: its paths are "/" */
	int		 resuming;	/* its executable is a checkpoint */
	char		**extra_env;	/* NAME=VALUE for the job, or NULL */
	char		*assigned_gpus;	/* the slot's AssignedGPUs, or NULL */
	/* Descriptors the job inherits that the starter closes once it
	 * is spawned; -1 for none. */
	int		 give_fds[4];

	/* Checkpoints (standard universe). */
	int		 ckpt_fd;	/* the file the job writes; -1 none */
	int		 notify_fd;	/* "ok PATH" / "failed WHY" lines */
	long		 ckpt_timer;	/* the next periodic checkpoint */
	int		 ckpt_pending;	/* asked, no answer yet */
	int		 ckpt_ready;	/* the file holds a good checkpoint */
	int		 ckpt_exiting;	/* it holds the job's own last one,
					 * taken as it exits: not shipped */
	int		 ckpt_held;	/* the job waits for SIGCONT until its
					 * own ckpt() is shipped */
	double		 ckpt_asked;	/* monotime of the signal */
	int		 ckpts;		/* committed from this host */
};

/*
 * What differs between universes.  The vanilla universe is here now; the
 * standard universe adds, in its own file: the system-call connection
 * handed to the job (hello_res_x.syscall_addr), the sandbox (chroot,
 * seccomp, personality) in child_setup, periodic checkpoint signals in
 * tick, a checkpoint instead of SIGTERM in vacate, and shipping the
 * checkpoint (PUT FILE_CHECKPOINT + CKPT_COMMIT) in finish.
 */
struct universe {
	const char	*name;
	/*
	 * Fetch what the job needs into the execute directory and open its
	 * standard files.  0, or -1 with a message in ERR and *JOBS_FAULT
	 * set when the job itself is to blame (it will be held) rather
	 * than this machine (it will run elsewhere).
	 */
	int	(*prepare)(struct starter_job *, char *err, size_t errlen,
		    int *jobs_fault);
	/*
	 * In the job's process, as EXECUTE_USER, in the execute directory,
	 * just before exec.  0, or -1 with errno set.
	 */
	int	(*child_setup)(struct starter_job *);
	/* Every STARTER_UPDATE_INTERVAL while the job runs: 0, or -1 if
	 * the shadow is gone. */
	int	(*tick)(struct starter_job *);
	/* The startd wants the machine back: make the job leave. */
	void	(*vacate)(struct starter_job *);
	/*
	 * The job's process ended with wait STATUS: ship what remains and
	 * fill HOW and CODE of X.  0, or -1 if the shadow is gone.
	 */
	int	(*finish)(struct starter_job *, int status, exit_x *x);
	/*
	 * In the job's process, still root when the starter is, before it
	 * becomes EXECUTE_USER (the chroot).  0, or -1 with errno set.
	 */
	int	(*root_setup)(struct starter_job *);
};

/* starter_universe.c */
const struct universe *universe_find(const char *name);

/* starter_shadow.c: the starter's calls to its shadow.  Each returns 0,
 * or -1 with the reason logged when the shadow did not answer (it is
 * then gone: the caller ends the job); a refusal returns its code > 0
 * with the message in ERR where there is one. */
int	shadow_connect(const char *addr);
int	shadow_hello(const char *capability, const char *host,
	    hello_res_x *res);
int	shadow_get_file(int which, int fd, long long limit, long long *got,
	    char *err, size_t errlen);
/* Transferred files (starter_xfer.c): the shadow's list, an output
 * begun and ended, the address of its transfer stream; each 0, an errno
 * from the shadow (ERR says why), or -1 if it is gone. */
int	shadow_input_list(int start, xfer_list_res_x *res);
int	shadow_xfer_open(char *addr, size_t addrlen, char *err,
	    size_t errlen);
/*
 * xfer_fetch_inputs: make the job's transferred inputs in its directory
 * (0, or -1 with ERR, *JOBS_FAULT as for prepare); xfer_send_outputs:
 * send its outputs back (EVICTED: it is leaving, and they are kept for
 * its next run if it asked for ON_EXIT_OR_EVICT); -1 if the shadow is
 * gone.
 */
int	xfer_fetch_inputs(struct starter_job *job, char *err, size_t errlen,
	    int *jobs_fault);
int	xfer_send_outputs(struct starter_job *job, int evicted);
int	shadow_output_begin(xfer_begin_x *b, char *err, size_t errlen);
int	shadow_output_end(long long size, unsigned crc, char *err,
	    size_t errlen);
int	shadow_put(int which, long long offset, const char *data,
	    size_t len);
int	shadow_event(int event, const char *text);
int	shadow_ckpt_commit(ckpt_commit_x *c, char *err, size_t errlen);
int	shadow_null(void);
int	shadow_exit(exit_x *x);
void	shadow_disconnect(void);
/* A call went unanswered: the shadow is gone for good. */
int	shadow_is_lost(void);
/* The shadow answered ESHUTDOWN: it is going away on purpose (the job
 * was removed or held); it is lost, and no lease keeps the job. */
int	shadow_is_leaving(void);
/*
 * The job's lease (JobLeaseDuration), once the job runs:
 * from then on a call that goes unanswered leaves the starter
 * disconnected rather than lost (shadow_is_disconnected), the job
 * running on; shadow_reconnect tries once to come back to the shadow
 * (SHADOW_RECONNECT: CAPABILITY and our pid); shadow_lease_left: the
 * seconds until the lease, counted from the last answered call, is
 * over.
 */
void	shadow_set_lease(long seconds, const char *capability,
	    const char *host);
int	shadow_is_disconnected(void);
int	shadow_reconnect(void);
double	shadow_lease_left(void);
/* The job has a new shadow at ADDR (the startd says so): reconnect
 * there, within the lease. */
void	shadow_redirect(const char *addr);
/* Ship new bytes of FD from *SENT on, at most MAX; 0 or -1. */
int	shadow_ship(int which, int fd, long long *sent, long long max,
	    int *more);

/* starter_box.c: the job's account, cgroup and box; and what /proc
 * says of process PID (0, or -1 if it is gone). */
struct proc_stat {
	uid_t		 uid;		/* its /proc directory's: effective */
	char		 state;		/* R, S, Z... */
	long		 pgrp;
	long long	 rss;		/* resident bytes */
};
int	proc_stat_read(long pid, struct proc_stat *);
int	box_account(struct starter_job *, char *err, size_t errlen);
void	box_account_sweep(struct starter_job *);
void	box_account_release(struct starter_job *);
int	box_cgroup_make(struct starter_job *);
pid_t	box_fork(struct starter_job *);
int	box_cgroup_enter(struct starter_job *);
void	box_cgroup_end(struct starter_job *);
/* The kernel's hold on its memory (job->mem_limit): set up before the
 * spawn, entered by the child, and at the end whether the kernel killed
 * it for going over (1, 0); box_memory_end removes what was made. */
void	box_memory_make(struct starter_job *);
int	box_memory_enter(struct starter_job *);
int	box_memory_killed(struct starter_job *);
void	box_memory_end(struct starter_job *);
int	box_vanilla_root(struct starter_job *);
int	box_standard_filter(struct starter_job *, int exec_fd, int proc_fd);
int	box_proc_fd(int at);

/* starter_owner.c: whether the job runs as its owner (UID_DOMAIN; 1,
 * with job->uid, gid, user set; else 0: box_account gives it an
 * account), and then whether it uses the shared file system
 * (FILESYSTEM_DOMAIN; 1 with job->shared_fs and job->iwd set). */
int	owner_account(struct starter_job *, const char *shadow_addr);
int	owner_shared_fs(struct starter_job *);
/* The next directory of SHARED_FILESYSTEM_DIRS from *CURSOR into BUF,
 * *RO if marked ":ro": 1, or 0 at the end (bad names logged and passed
 * over). */
int	owner_shared_dir_next(char **cursor, char *buf, size_t len, int *ro);

/* starter_limits.c: kill a job over its time, memory or disk
 * (job->over); its memory limit (job->mem_limit, before the spawn); at
 * its end, whether the kernel killed it for its memory (job->over). */
void	limits_check(struct starter_job *);
void	limits_memory(struct starter_job *);
void	limits_ended(struct starter_job *, int status);

/* starter_job.c: the execute directory and the job's process. */
int	job_user(struct starter_job *, char *err, size_t errlen);
int	job_make_dir(struct starter_job *, char *err, size_t errlen);
void	job_clean_dir(struct starter_job *);
int	job_open_std(struct starter_job *, char *err, size_t errlen);
/* The job's executable as the job sees it (inside its chroot, if any),
 * into BUF; BUF. */
char	*job_exe_path(const struct starter_job *, char *buf, size_t len);
int	job_spawn(struct starter_job *, char *err, size_t errlen,
	    int *jobs_fault);
/* SIG to the job's process group; to its own process alone. */
void	job_signal(struct starter_job *, int sig);
void	job_signal_main(struct starter_job *, int sig);
/* On its end, the job's wait status from its init, if it has one. */
void	job_init_status(struct starter_job *, int *status);
/* Strings of the job ad; "" when missing (the caller frees). */
char	*job_string(const struct starter_job *, const char *name);
/* Whether a path attribute names a real file (not unset, not
 * /dev/null). */
int	job_wants_file(const struct starter_job *, const char *name);

#endif
