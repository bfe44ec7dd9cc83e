/*
 * submit.h: the job description language of condor_submit(1) and
 * condor_submit(5), parsed into the ads of one cluster.
 *
 * A file is a sequence of "NAME = value" lines (keywords, custom
 * "+Attr = expression" lines, and macros: any other name), "queue [N]"
 * statements, '#' comment lines, blank lines, and lines continued by a
 * trailing '\'.  Each queue statement snapshots the settings in force
 * for N more procs of the one cluster.  $(NAME) expands a macro or a
 * keyword's value, $ENV(VAR) a variable of the submitter's environment,
 * $(Process) the proc's number in the cluster.  $(Cluster) cannot be
 * known before the schedd answers: it stays in the text as "$(Cluster)"
 * until schedd_submit has the number (submit_expand_cluster).
 *
 * The parser reads the whole file before anything is sent: an error
 * anywhere means nothing is queued.  Error messages start with
 * "FILE:LINE: ".
 */
#ifndef CONDOR_SUBMIT_H
#define CONDOR_SUBMIT_H

#include <stddef.h>

struct ad;

#define SUBMIT_MAX_PROCS	100000	/* procs in a cluster (schedd_rpc.x) */
#define SUBMIT_MAX_FILE		(16 * 1024 * 1024)	/* bytes of a file */
#define SUBMIT_MAX_VALUE	(1024 * 1024)	/* bytes of an expanded value */
#define SUBMIT_MAX_DEPTH	32	/* macros nested in macros */
#define SUBMIT_MAX_SUBST	10000	/* macros expanded in one value */
#define SUBMIT_MAX_WARNINGS	20	/* kept; later ones are counted */
#define SUBMIT_CLUSTER_MACRO	"$(Cluster)"

/* One attribute: its name and its expression as text. */
struct submit_attr {
	char	*name;
	char	*text;
};

struct submit_ad {
	struct submit_attr	*attrs;
	size_t			 n;
};

/*
 * The cluster: what every proc shares, and what each proc adds or
 * overrides.  A proc's full ad is CLUSTER merged with PROCS[i].
 */
struct submit_result {
	struct submit_ad	 cluster;
	struct submit_ad	*procs;
	size_t			 nprocs;
	char			*executable;	/* absolute path */
	char			**warnings;	/* "FILE:LINE: what" */
	size_t			 nwarnings;
	size_t			 warnings_dropped;	/* past the limit */
	char			**notices;	/* what was chosen for the
						   user: "no universe given:
						   ..." */
	size_t			 nnotices;
};

/* How the parser sees the submitter's world. */
struct submit_env {
	const char	*cwd;		/* relative paths start here */
	char *const	*environ;	/* for getenv and $ENV(); NULL: none */
	int		 check_files;	/* look at the executable, input... */
	const char	*batch_name;	/* JobBatchName unless the file has
					   batch_name; NULL: none */
	char *const	*append;	/* "NAME = value" lines set before each
					   queue statement; NULL: none */
	const char	*queue;		/* the queue statement's arguments for
					   a file with none; NULL: none */
	long		 default_lease;	/* JobLeaseDuration of a vanilla job
					   that names none; 0: none */
};

/*
 * submit_parse: parse LEN bytes of TEXT, read from FILENAME (used in
 * messages only), into RES (which the caller frees with
 * submit_result_free, even after an error).  Returns 0, or -1 with
 * "FILENAME:LINE: what went wrong" in ERR.  Any input is safe: bounded
 * by SUBMIT_MAX_FILE, SUBMIT_MAX_PROCS and the expansion limits above.
 */
int	 submit_parse(const char *text, size_t len, const char *filename,
	    const struct submit_env *env, struct submit_result *res,
	    char *err, size_t errlen);
void	 submit_result_free(struct submit_result *res);

/*
 * submit_proc_ad: the full ad of proc I (cluster attributes, then the
 * proc's own), with $(Cluster) replaced by CLUSTER and ProcId set; NULL
 * with a message in ERR if a text does not parse.  For tests and tools.
 */
struct ad *submit_proc_ad(const struct submit_result *res, size_t i,
	    int cluster, char *err, size_t errlen);

/*
 * submit_expand_cluster: TEXT with every "$(Cluster)" replaced by
 * CLUSTER, as a fresh string, or NULL if TEXT holds none.
 */
char	*submit_expand_cluster(const char *text, int cluster);

/*
 * submit_elf_relinked: whether the ELF file PATH has a section named
 * ".condor_relinked" (condor_cc marks relinked programs so).  Returns 1
 * or 0, or -1 with a message in ERR if PATH cannot be read or is not a
 * well-formed 64-bit ELF file.
 */
int	 submit_elf_relinked(const char *path, char *err, size_t errlen);

#endif
