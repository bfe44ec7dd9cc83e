/*
 * dagfile.h: the DAG file language of condor_submit_dag(1) (HTCondor's),
 * read into one graph of nodes, shared by condor_submit_dag (which
 * checks a DAG before anything is submitted) and condor_dagman (which
 * runs it).
 *
 * A DAG file is a sequence of lines, '#' comments and blank lines:
 *
 *	JOB name submitfile [DIR dir] [NOOP] [DONE]
 *	FINAL name submitfile [DIR dir] [NOOP]
 *	SUBDAG EXTERNAL name dagfile [DIR dir] [NOOP] [DONE]
 *	SPLICE name dagfile [DIR dir]
 *	PARENT p... CHILD c...
 *	SCRIPT [DEFER status seconds] PRE|POST name program args...
 *	RETRY name N [UNLESS-EXIT value]
 *	VARS name key="value"...
 *	ABORT-DAG-ON name value [RETURN n]
 *	PRIORITY name value
 *	CATEGORY name category
 *	MAXJOBS category N
 *	PRE_SKIP name value
 *	DONE name
 *	INCLUDE file
 *	DOT file [UPDATE|DONT-UPDATE] [OVERWRITE|DONT-OVERWRITE]
 *	NODE_STATUS_FILE file [seconds]
 *	CONFIG file
 *
 * Keywords are case-insensitive, node names case-sensitive.  A node of
 * splice S is named "S+name" (splices nest: "S+T+name"); a splice's own
 * name in PARENT stands for its nodes without children, in CHILD for its
 * nodes without parents.  Commands that take a node name (SCRIPT,
 * RETRY, VARS, ABORT-DAG-ON, PRIORITY, CATEGORY, PRE_SKIP) also take
 * ALL_NODES: every node of that file (splices included, FINAL not).
 * Paths are as written: relative ones are from the directory
 * condor_dagman runs in (the one condor_submit_dag was run from), a
 * node's submit file and scripts from the node's directory (its DIR,
 * under its splice's DIR).
 *
 * The whole file is read and checked before a caller acts: a cycle, a
 * node named twice, a name that names no node, a missing submit file
 * (when asked to look) or a line that does not parse is an error
 * "FILE:LINE: what".
 */
#ifndef CONDOR_DAGFILE_H
#define CONDOR_DAGFILE_H

#include <stddef.h>
#include <stdio.h>

#define DAG_MAX_FILE		(1024L * 1024 * 1024)	/* bytes of a file */
#define DAG_MAX_LINE		(64L * 1024 * 1024)	/* bytes of a line */
#define DAG_MAX_NODES		(16 * 1024 * 1024)
#define DAG_MAX_EDGES		(256L * 1024 * 1024)
#define DAG_MAX_DEPTH		32	/* INCLUDE and SPLICE nested */
#define DAG_MAX_WARNINGS	20

/* A node's flags. */
#define DAG_NOOP	0x01	/* no job: the node succeeds when it runs */
#define DAG_DONE	0x02	/* done before the DAG starts */
#define DAG_FINAL	0x04	/* FINAL: runs last, after success or not */
#define DAG_SUBDAG	0x08	/* SUBDAG EXTERNAL: FILE is a DAG file */

/* SCRIPT PRE|POST: the command line as written ($JOB and the other
 * words are expanded when it runs). */
struct dag_script {
	char	*cmd;
	int	 defer_status;	/* DEFER: a script exiting with this... */
	long	 defer_time;	/* ...runs again this many seconds later;
				   defer_time 0: no DEFER */
};

struct dag_var {
	char	*name;
	char	*value;		/* unquoted: \" and \\ undone */
};

struct dag_node {
	char		*name;		/* "S+name" inside splice S */
	char		*file;		/* submit file, or DAG file (SUBDAG) */
	char		*dir;		/* where it runs: DIR under the splices'
					   DIRs; NULL: the DAG's directory */
	int		 flags;		/* DAG_NOOP ... */
	struct dag_script *pre;		/* NULL: none */
	struct dag_script *post;
	int		 retry;		/* RETRY N: runs again up to N times */
	int		 has_unless_exit;
	int		 unless_exit;	/* ...unless the job exits with this */
	int		 has_abort;	/* ABORT-DAG-ON */
	int		 abort_value;	/* the job's or PRE script's exit value */
	int		 has_abort_return;
	int		 abort_return;	/* the DAG's exit status (else
					   abort_value) */
	int		 priority;	/* PRIORITY; 0 */
	int		 category;	/* index into dag.categories; -1 */
	int		 has_pre_skip;
	int		 pre_skip;	/* PRE exiting so: done, no job, no POST */
	struct dag_var	*vars;
	size_t		 nvars;
	size_t		*children;	/* indices into dag.nodes, in dag.edges */
	size_t		 nchildren;
	size_t		 nparents;
	const char	*src;		/* the file and line defining it */
	int		 line;
};

struct dag_category {
	char	*name;		/* "S+cat" for a splice's own category;
				   a name written "+cat" is global: "cat" */
	int	 maxjobs;	/* MAXJOBS; 0: no limit */
};

struct dag {
	struct dag_node		*nodes;
	size_t			 nnodes;
	size_t			*edges;		/* every node's children */
	size_t			 nedges;
	struct dag_category	*categories;
	size_t			 ncategories;
	long			 final;		/* index of the FINAL node; -1 */
	char			*dot_file;	/* DOT; NULL: none */
	int			 dot_update;	/* UPDATE (rewritten as it runs) */
	int			 dot_overwrite;	/* default 1 */
	char			*status_file;	/* NODE_STATUS_FILE; NULL */
	long			 status_interval; /* seconds; default 60 */
	char			*config_file;	/* CONFIG; NULL */
	char			**files;	/* every file read (for src) */
	size_t			 nfiles;
	char			**warnings;	/* "FILE:LINE: what" */
	size_t			 nwarnings;
	void			*index;		/* name lookup (dagfile.c) */
};

/* How to read: CHECK_FILES looks for every node's submit file (or
 * DAG file) and every INCLUDEd and SPLICEd file. */
#define DAG_CHECK_FILES	0x1

/*
 * dag_parse: read PATH (and what it includes and splices) into DAG,
 * resolve every name, build the children lists, refuse cycles.  The
 * caller frees DAG with dag_free, also after an error.  Returns 0, or
 * -1 with "FILE:LINE: what" in ERR.  Any input is safe.
 */
int	 dag_parse(const char *path, int flags, struct dag *dag, char *err,
	    size_t errlen);
/* dag_parse_text: the same from LEN bytes of TEXT named NAME (INCLUDE
 * and SPLICE still read files): for tests and the fuzzer. */
int	 dag_parse_text(const char *text, size_t len, const char *name,
	    int flags, struct dag *dag, char *err, size_t errlen);
void	 dag_free(struct dag *dag);

/* dag_find: the index of the node NAME, or -1. */
long	 dag_find(const struct dag *dag, const char *name);

/*
 * A rescue DAG: comment lines, "DONE name" and "RETRY name N" (the
 * retries left).  dag_apply_rescue reads PATH over a parsed DAG: DONE
 * nodes get DAG_DONE, RETRY sets their retry.  0, or -1 with
 * "FILE:LINE: what" in ERR (a name that names no node, another
 * command).
 */
int	 dag_apply_rescue(struct dag *dag, const char *path, char *err,
	    size_t errlen);

/*
 * dag_write_rescue: write the rescue DAG to PATH atomically (a
 * temporary file renamed over it): a header of comments (REASON, the
 * DAG file DAGFILE, the failed nodes FAILED[0..nfailed)), then "DONE
 * name" for every node whose DONE[i] is set, and "RETRY name N" for
 * every node not done with RETRIES_LEFT[i] < its retry.  0, or -1 with
 * ERR.
 */
int	 dag_write_rescue(const struct dag *dag, const char *path,
	    const char *dagfile, const char *reason,
	    const unsigned char *done, const int *retries_left,
	    const size_t *failed, size_t nfailed, char *err, size_t errlen);

/* What a node is doing, as DOT and the node status file show it. */
enum dag_state {
	DAG_NOT_READY,
	DAG_READY,
	DAG_PRERUN,
	DAG_SUBMITTED,
	DAG_POSTRUN,
	DAG_SUCCESS,
	DAG_FAILURE,
	DAG_FUTILE,	/* an ancestor failed: it will not run */
};
/* "STATUS_NOT_READY" ... "STATUS_FUTILE" (HTCondor's node status
 * names). */
const char *dag_state_name(enum dag_state);

/*
 * dag_write_dot: the DAG as a Graphviz digraph on FP; STATES (may be
 * NULL) labels each node with its state.  0, or -1 with errno set.
 */
int	 dag_write_dot(const struct dag *dag, const unsigned char *states,
	    FILE *fp);

#endif
