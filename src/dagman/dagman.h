/*
 * dagman.h: what the parts of condor_dagman share.
 *
 * dagman.c		start-up, the files beside the DAG, the loop, the end
 * dagman_node.c	the nodes' states, throttles, submitting node jobs
 * dagman_log.c		the node log: live events, and recovery from it
 * dagman_script.c	PRE and POST scripts
 * dagman_status.c	what the DAG shows: its job's ad, the node status
 *			file, DOT
 */
#ifndef CONDOR_DAGMAN_H
#define CONDOR_DAGMAN_H

#include <sys/types.h>

#include "dagfile.h"

/* A node as it runs (the DAG file's node is dag.nodes[i]). */
struct node_run {
	unsigned char	 state;		/* enum dag_state */
	unsigned char	 pre_done;	/* its PRE ran: submit next */
	unsigned char	 queued;	/* NODE_Q_*: in the ready heap, or
					   waiting for a script slot */
	unsigned char	 script;	/* a script of it runs now */
	unsigned char	 job_failed;	/* a proc failed or was removed */
	unsigned char	 unsure;	/* a submit whose answer was lost */
	unsigned char	 idle;		/* counted idle (-maxidle) */
	int		 retries;	/* runs after the first, so far */
	int		 cluster;	/* its current job; 0 none */
	int		 nprocs;	/* procs of that job */
	int		 nended;	/* ...that terminated or were aborted */
	int		 nexec;		/* ...that run now */
	int		 nheld;
	int		 job_code;	/* $RETURN */
	int		 pre_code;	/* $PRE_SCRIPT_RETURN; -1 none */
	int		 submit_tries;	/* failed submits in a row */
	size_t		 waiting;	/* parents not yet done */
};

#define NODE_Q_READY	0x1
#define NODE_Q_PRE	0x2
#define NODE_Q_POST	0x4

/* dagman.c */
extern struct dag	 dag;
extern struct node_run	*run;
extern int		 dag_cluster, dag_proc;	/* the DAG job: CONDOR_ID */
extern char		*nodes_log;		/* absolute */
extern char		*dag_cwd;		/* where we run */
extern int		 recovering;		/* reading the log back */
extern long		 max_jobs, max_idle, max_pre, max_post;
/* The DAG cannot go on: remove its jobs, write a rescue DAG, run FINAL,
 * exit with STATUS. */
void	 dagman_abort(int status, const char *why);
/* Something changed: look at what can run, soon. */
void	 dagman_poke(void);

/* dagman_node.c */
struct dag_counts {
	size_t	done, failed, futile, pre, queued, post, ready, unready;
	size_t	idle, held;
};
void	 node_init(void);
/* Run what may run now (submits, scripts); 1 if more is waiting for a
 * throttle only. */
void	 node_schedule(void);
/* The node's job ended (every proc): POST, or the node's end. */
void	 node_job_done(size_t i);
/* The node's PRE (or POST) script ended with wait status STATUS. */
void	 node_pre_done(size_t i, int by_signal, int code);
void	 node_post_done(size_t i, int by_signal, int code);
/* A new job of node I (cluster C, NPROCS procs or 0 unknown). */
void	 node_job_submitted(size_t i, int cluster, int nprocs);
/* DELTA procs of node I's job started (001) or stopped (004) running,
 * or were held (node_job_held). */
void	 node_job_event_exec(size_t i, int delta);
void	 node_job_held(size_t i, int delta);
/* The node for a job, or -1. */
long	 node_of_cluster(int cluster);
/* Are all nodes but FINAL at an end (nothing runs or can run)? */
int	 node_all_ended(void);
void	 node_counts(struct dag_counts *);
/* Start FINAL (if there is one and it has not run); 1 if it runs. */
int	 node_start_final(void);
int	 node_final_ended(void);
int	 node_final_ok(void);
/* Remove every node job in the queue (condor_rm of the DAG, an abort). */
void	 node_remove_jobs(void);
/* Is node I between READY and the end of its POST script? */
int	 node_under_way(size_t i);

/* dagman_log.c */
/* Read what is new in the node log; 0, or -1 (logged) if it cannot be
 * read. */
int	 nodelog_poll(void);
/* Recovery: the whole log again, then carry on from its end; then
 * nodelog_recover_queue: the jobs the schedd holds for this DAG whose
 * 000 event is not in the log yet.  0, or -1 (said) if the log cannot be
 * read or the schedd asked. */
int	 nodelog_recover(void);
int	 nodelog_recover_queue(void);

/* dagman_script.c */
/* Queue node I's PRE or POST script; started as throttles allow. */
void	 script_queue(size_t i, int post);
void	 script_schedule(void);
/* A child ended: 1 if it was a script. */
int	 script_reaped(pid_t pid, int status);
int	 script_running(void);
void	 script_kill_all(void);

/* dagman_status.c */
void	 status_update(int force);
/* Write the DOT file (if the DAG names one) with the nodes' states. */
void	 dot_write(void);
/* DAG_Status for the job ad and node status file: 0 ok so far, 1 error,
 * 2 a node failed, 3 aborted, 4 removed, 5 cycle, 6 halted. */
extern int dag_status;

#endif
