/*
 * jobfmt.h: how condor_q, condor_history and condor_status print chosen attributes of
 * jobs, as HTCondor's tools do:
 *
 *   -af[:OPTS] ATTR...	the values, space separated, one job a line;
 *			each ATTR a name or an expression of the ad.
 *			OPTS letters: j the job id (C.P) first; l each as
 *			"ATTR = value"; h a header line of the names; V
 *			strings quoted (ClassAd form); r expressions as
 *			written, unevaluated; , a comma and a space
 *			between values; t a tab; n a newline after each
 *			value; g a blank line after each job.
 *   -format FMT ATTR	(repeatable) FMT with its one conversion
 *			(%d %i %u %x %X %o, %f %F %e %E %g %G, %s, %v
 *			the value as text, %V in ClassAd form; flags, width
 *			and precision allowed; %% a percent) filled with
 *			ATTR (a name or an expression), escapes \n \t \\ understood.  An attribute
 *			that is undefined, or of a type the conversion
 *			cannot show, prints nothing for that -format.
 *
 * The format is the user's own, but never reaches printf as a format:
 * only the one checked conversion does, with an argument of its type.
 * Values come from ads that other users and hosts wrote; control
 * characters in them never reach the terminal.
 */
#ifndef CONDOR_JOBFMT_H
#define CONDOR_JOBFMT_H

#include <stddef.h>
#include <stdio.h>

struct ad;

struct jobfmt_item {
	char	*pre;		/* literal text before the conversion */
	char	*spec;		/* "%-8.3" and the like, without the letter */
	char	 conv;		/* conversion letter; 0: none */
	char	*post;		/* literal text after it */
	char	*attr;
};

struct jobfmt {
	char			**af;		/* -af names (borrowed) */
	int			  naf;
	unsigned		  opts;		/* JOBFMT_* */
	struct jobfmt_item	 *items;	/* -format, in order */
	int			  nitems;
	const char		 *id_attr;	/* j: this, not C.P (NULL) */
};

#define JOBFMT_JOBID	0x01	/* j */
#define JOBFMT_LABEL	0x02	/* l */
#define JOBFMT_HEADER	0x04	/* h */
#define JOBFMT_QUOTE	0x08	/* V */
#define JOBFMT_RAW	0x10	/* r */
#define JOBFMT_COMMA	0x20	/* , */
#define JOBFMT_TAB	0x40	/* t */
#define JOBFMT_NEWLINE	0x80	/* n */
#define JOBFMT_GAP	0x100	/* g */

/* jobfmt_expr_valid: is TEXT an attribute name or an expression? */
int	 jobfmt_expr_valid(const char *text);
/* jobfmt_af_opts: take the letters after "-af:"; -1 with ERR if one is
 * not known. */
int	 jobfmt_af_opts(struct jobfmt *, const char *letters, char *err,
	    size_t errlen);
/* jobfmt_add_format: one -format FMT ATTR; -1 with ERR if FMT has more
 * than one conversion or one not listed above, or ATTR is no name. */
int	 jobfmt_add_format(struct jobfmt *, const char *fmt,
	    const char *attr, char *err, size_t errlen);
/* jobfmt_active: has -af or -format been given? */
int	 jobfmt_active(const struct jobfmt *);
/* jobfmt_attrs: the attributes to ask the schedd for (NULL-terminated;
 * caller frees the array, not the names). */
const char **jobfmt_attrs(const struct jobfmt *);
/* jobfmt_header: the 'h' line, if asked for. */
void	 jobfmt_header(const struct jobfmt *, FILE *);
/* jobfmt_print: one job. */
void	 jobfmt_print(const struct jobfmt *, const struct ad *, FILE *);
void	 jobfmt_free(struct jobfmt *);

#endif
