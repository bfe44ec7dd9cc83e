/*
 * submit_int.h: the insides of the submit language (src/submit), shared
 * by its files only; include/submit.h is what other programs see.
 *
 *   submit.c		the entry (submit_parse), messages, small helpers
 *   submit_read.c	lines, continuations, if/elif/else/endif, include,
 *			"NAME = value" and the command line's settings
 *   submit_macro.c	definitions and $(...) expansion
 *   submit_queue.c	queue statements and their items
 *   submit_keywords.c	the keywords and the checks of their values
 *   submit_args.c	arguments and environment, old and new syntax
 *   submit_build.c	a proc's job attributes from its keywords
 *   submit_exe.c	the universe and the executable
 *   submit_attrs.c	the attributes that take more than a few lines
 *   submit_ad.c	the cluster ad and the proc ads
 *   submit_elf.c	whether a program is relinked for Condor
 *
 * Names shared between these files start with "sub_".
 */
#ifndef CONDOR_SUBMIT_INT_H
#define CONDOR_SUBMIT_INT_H

#include <stddef.h>

#include "ad.h"
#include "submit.h"

struct buf;
struct expr;

#define DEP_PROCESS	0x1	/* the value uses $(Process) */
#define DEP_CLUSTER	0x2	/* the value uses $(Cluster) */

#define INCL_SHIFT		24	/* see sub_where_file */
#define SUBMIT_MAX_INCLUDED	100	/* files included in all */

/* The keywords, in the order their attributes appear in a job ad. */
enum kw {
	KW_EXECUTABLE,
	KW_ARGUMENTS,
	KW_INITIALDIR,
	KW_INPUT,
	KW_OUTPUT,
	KW_ERROR,
	KW_LOG,
	KW_ROOTDIR,
	KW_ENVIRONMENT,
	KW_GETENV,
	KW_UNIVERSE,
	KW_REQUIREMENTS,
	KW_RANK,
	KW_PRIORITY,
	KW_NOTIFICATION,
	KW_NOTIFY_USER,
	KW_IMAGE_SIZE,
	KW_ALLOWED_JOB_DURATION,
	KW_REQUEST_MEMORY,
	KW_REQUEST_CPUS,
	KW_REQUEST_DISK,
	KW_BATCH_NAME,
	KW_PERIODIC_HOLD,
	KW_PERIODIC_REMOVE,
	KW_PERIODIC_RELEASE,
	KW_ON_EXIT_HOLD,
	KW_ON_EXIT_REMOVE,
	KW_MAX_RETRIES,
	KW_SHOULD_TRANSFER_FILES,
	KW_WHEN_TO_TRANSFER_OUTPUT,
	KW_TRANSFER_INPUT_FILES,
	KW_TRANSFER_OUTPUT_FILES,
	KW_TRANSFER_OUTPUT_REMAPS,
	KW_TRANSFER_EXECUTABLE,
	KW_RETRY_UNTIL,
	KW_SUCCESS_EXIT_CODE,
	KW_JOB_MAX_VACATE_TIME,
	KW_JOB_LEASE_DURATION,
	KW_REQUEST_GPUS,
	KW_CONCURRENCY_LIMITS,
	KW_NICE_USER,
	KW_ACCOUNTING_GROUP,
	KW_ACCOUNTING_GROUP_USER,
	KW_HOLD,
	KW_STREAM_OUTPUT,
	KW_STREAM_ERROR,
	KW_MAX_MATERIALIZE,
	KW_MAX_IDLE,
	KW_DESCRIPTION,
	NKW
};

/*
 * One "NAME = value" line.  A later line with the same name replaces the
 * value in place: a custom attribute keeps its first place in the ad,
 * and a macro counts as used if any of its definitions was.
 */
struct def {
	char	*name;		/* macros and keywords: lower case */
	char	*value;
	int	 line;
	int	 kind;		/* DEF_* */
	int	 used;		/* a $(NAME) expanded it */
	int	 seq;		/* (parser's seq) when last defined */
};
#define DEF_MACRO	0
#define DEF_KEYWORD	1
#define DEF_CUSTOM	2	/* +Name: NAME keeps its case */
#define DEF_IGNORED	3

/* A keyword or custom value expanded for one proc. */
struct kval {
	char	*text;		/* NULL: not set */
	int	 deps;
	int	 line;
};

/* A job attribute being built. */
struct jattr {
	char	*name;
	char	*text;
	int	 deps;
};

struct jattrs {
	struct jattr	*a;
	size_t		 n, cap;
};

/* One queue statement: its first proc's attributes, and the others'. */
struct stmt {
	struct jattrs	 base;
	size_t		 first;		/* the proc number of the first */
	size_t		 count;
	struct jattrs	*more;		/* COUNT - 1, only when some depend */
	int		 line;
	int		 seq;		/* (parser's seq) */
};

/* The state of one submit_parse. */
struct parser {
	const char		*file;
	const struct submit_env	*env;
	struct submit_result	*res;
	char			*err;
	size_t			 errlen;
	int			 failed;
	struct def		*defs;
	size_t			 ndefs, capdefs;
	size_t			*slots;		/* index of defs + 1; 0 free */
	size_t			 nslots;	/* a power of two */
	size_t			*customs;	/* indexes of DEF_CUSTOM defs */
	size_t			 ncustoms;
	struct stmt		*stmts;
	size_t			 nstmts, capstmts;
	size_t			 nprocs;
	char			*exe;		/* the cluster's executable */
	char			*relinked_path;	/* the program last looked */
	int			 relinked;	/* at: relinked? */
	char			**undefined;	/* "LINE NAME" warned of */
	size_t			 nundefined;
	size_t			 undefined_seen;	/* expanded, in all */
	char			 empty_match[256];	/* a "matching" pattern
							   that matched none */
	char			 undefined_last[AD_MAX_NAME + 1]; /* the last */
	char			*cwd;
	char			 arch[32];	/* this machine's, for */
	char			 opsys[32];	/* the default requirements */
	/* Bounds on one top-level expansion. */
	size_t			 nsubst;
	/* The queue statement being expanded: its variables (lower
	 * case) and the current item's values, $(Step) and $(Row). */
	char			**qvars;
	size_t			 nqvars;
	int			 seq;		/* logical lines read, all
						   files together */
	char			*incl[SUBMIT_MAX_INCLUDED];	/* included, in
								   order */
	int			 append_base;	/* lines of env->append */
	int			 nincl;
	char			**qvals;
	size_t			 qstep, qrow;
};

/* Whether an attribute must be built for this proc (in sub_build and
 * what it calls: FIRST is the statement's first proc). */
#define WANT(deps)	(first || ((deps) & DEP_PROCESS))

/* The keywords as written (lower case). */
struct keyword {
	const char	*name;
	int		 kw;
};

/* The name each keyword is stored under ("preferences" is "rank"). */
extern const char *const sub_kw_names[NKW];

/* submit.c */
const char *sub_where_file(const struct parser *, int);
int	 sub_where_line(int);
void	 sub_perr(struct parser *, int, const char *, ...)
	    __attribute__((format(printf, 3, 4)));
void	 sub_pwarn(struct parser *, int, const char *, ...)
	    __attribute__((format(printf, 3, 4)));
void	 sub_notice(struct parser *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
const char *sub_shown(const char *, char *, size_t);
char	*sub_trim(char *);
void	 sub_lower(char *);
int	 sub_macro_name_valid(const char *);
char	*sub_path_join(const char *, const char *);

/* submit_read.c */
int	 sub_parse_text(struct parser *, const char *, size_t, int, int *);
int	 sub_append_lines(struct parser *);
int	 sub_cmdline_base(struct parser *);

/* submit_macro.c */
struct def *sub_def_find(struct parser *, const char *);
void	 sub_def_add(struct parser *, const char *, const char *, int, int);
int	 sub_expand(struct parser *, const char *, int, size_t, int, int *,
	    struct buf *);
int	 sub_kval_expand(struct parser *, const struct def *, size_t,
	    struct kval *);

/* submit_queue.c */
int	 sub_queue_stmt(struct parser *, const char *, int);

/* submit_keywords.c */
const struct keyword *sub_keyword_find(const char *);
const char *sub_keyword_unhonoured(const char *);
const char *sub_canonical(const char *);
long long sub_disk_kb(const char *);
long long sub_cpus(const char *);
long long sub_gpus(const char *);
long long sub_memory_mb(const char *);
long long sub_seconds(const char *);
int	 sub_parse_bool(const char *, int *);
int	 sub_parse_long(const char *, long long *);
int	 sub_check_expr(struct parser *, const char *, const char *, int,
	    struct expr **);
int	 sub_refs_name(const char *, const char *);
int	 sub_limits_check(const char *, char *, size_t);
int	 sub_acct_name_ok(const char *, int);
int	 sub_check_dir(struct parser *, const char *, int);

/* submit_exe.c */
int	 sub_build_program(struct parser *, struct kval *, int, int,
	    struct jattrs *, int *, long long *);

/* submit_args.c */
int	 sub_is_new_style(const char *);
char	*sub_args_from_new_style(struct parser *, const char *, int);
char	*sub_env_canonical(struct parser *, const char *, int);
int	 sub_env_add_list(struct parser *, const char *, int, struct buf *);
void	 sub_env_add_getenv(struct parser *, const char *, const char *, int,
	    struct buf *);

/* submit_build.c */
void	 sub_jattrs_free(struct jattrs *);
int	 sub_jattrs_put(struct parser *, struct jattrs *, const char *, char *,
	    int, int);
int	 sub_put_string(struct parser *, struct jattrs *, const char *,
	    const char *, int, int);
int	 sub_put_int(struct parser *, struct jattrs *, const char *, long long,
	    int, int);
int	 sub_build(struct parser *, struct kval *, struct kval *, char **,
	    size_t, size_t, int, int, struct jattrs *);

/* submit_attrs.c */
int	 sub_put_amount(struct parser *, struct jattrs *, const struct kval *,
	    int, const char *, long long (*)(const char *), const char *);
int	 sub_put_accounting(struct parser *, struct kval *, struct jattrs *,
	    int);
int	 sub_put_transfer(struct parser *, struct jattrs *, struct kval *, int,
	    int, const char *, int);
int	 sub_put_requests(struct parser *, struct jattrs *, struct kval *, int);
int	 sub_put_extras(struct parser *, struct jattrs *, struct kval *, int);

/* submit_ad.c */
void	 sub_assemble(struct parser *);

#endif
