/*
 * ad.h: attribute lists ("ads"): machine ads, job ads, schedd ads.
 *
 * An ad maps case-insensitive attribute names to expressions.  It prints
 * as "Name = value" lines and travels over the wire as (name, text) pairs
 * (struct ad_x in condor_types.x).
 */
#ifndef CONDOR_AD_H
#define CONDOR_AD_H

#include <stdio.h>

#include "expr.h"

struct ad;
struct ad_x;
struct buf;

#define AD_MAX_ATTRS	1024	/* attributes per ad on the wire */
#define AD_MAX_NAME	128	/* bytes in an attribute name */
#define AD_MAX_TEXT	16384	/* bytes in one attribute's expression */

/*
 * ad_name_valid: whether NAME is a legal attribute name: a letter or '_',
 * then letters, digits, '_' and '.', at most AD_MAX_NAME bytes.
 */
int		 ad_name_valid(const char *name);

struct ad	*ad_new(void);
void		 ad_free(struct ad *);
struct ad	*ad_copy(const struct ad *);

/*
 * ad_set_expr: set NAME to the expression TEXT.  Returns 0, or -1 with a
 * message in ERR (may be NULL) if NAME is not a valid attribute name or
 * TEXT does not parse.
 */
int		 ad_set_expr(struct ad *, const char *name, const char *text,
		    char *err, size_t errlen);
void		 ad_set_int(struct ad *, const char *name, long long);
void		 ad_set_real(struct ad *, const char *name, double);
void		 ad_set_bool(struct ad *, const char *name, int);
void		 ad_set_string(struct ad *, const char *name, const char *);
int		 ad_delete(struct ad *, const char *name);	/* 0 or -1 */
/* ad_merge: copy every attribute of FROM into TO, replacing. */
void		 ad_merge(struct ad *to, const struct ad *from);
/*
 * Private attributes: what the startd puts in its machine ad for the
 * pool's daemons alone (the claim id and its kin).  No reply to a caller
 * below the DAEMON level carries one, and no copy of a machine's
 * attributes into a job ($$() expansion) takes one.  ad_attr_private
 * says whether NAME is one (case-insensitive); ad_strip_private deletes
 * every one from AD.
 */
int		 ad_attr_private(const char *name);
void		 ad_strip_private(struct ad *);
/*
 * ad_match_expand: for each attribute X of JOB whose text holds
 * $$(Name) or $$(Name:default), MATCH_EXP_X into OUT: the text with
 * each reference replaced by MACHINE's Name (a string's characters) or
 * the default.  0, or -1 with ERR naming what MACHINE lacks (the
 * attributes it could expand are in OUT).  A private attribute of
 * MACHINE (ad_attr_private) is never expanded: naming one is an error,
 * and $$([expr]) sees the ad without them.
 * ad_match_apply: each X of JOB replaced by its MATCH_EXP_X.
 */
int		 ad_match_expand(const struct ad *job,
		    const struct ad *machine, struct ad *out, char *err,
		    size_t errlen);
void		 ad_match_apply(struct ad *job);

size_t		 ad_count(const struct ad *);
/* Attributes in insertion order; NULL past the end. */
const char	*ad_name_at(const struct ad *, size_t i);
const struct expr *ad_expr_at(const struct ad *, size_t i);
const struct expr *ad_lookup(const struct ad *, const char *name);

/*
 * ad_eval: evaluate attribute NAME of MY against TARGET.  UNDEFINED if
 * MY does not have it.
 */
void		 ad_eval(const struct ad *my, const struct ad *target,
		    const char *name, struct value *out);
/* Typed getters: 0 on success, -1 if missing or of another type (an
 * integer is accepted for a real, and a real is truncated for an int).
 * As Condor 4 wrote booleans as 0 and 1, a boolean is also accepted as
 * an integer or real, and an integer as a boolean (non-zero is true). */
int		 ad_get_int(const struct ad *, const char *name, long long *);
int		 ad_get_real(const struct ad *, const char *name, double *);
int		 ad_get_bool(const struct ad *, const char *name, int *);
/* The string is allocated; the caller frees it. */
int		 ad_get_string(const struct ad *, const char *name, char **);

/* ad_print: "Name = value\n" for every attribute, in order. */
void		 ad_print(const struct ad *, struct buf *);
void		 ad_fprint(const struct ad *, FILE *);
/* ad_print_json: AD as one JSON object, as HTCondor writes it: a
 * literal is its JSON value (UNDEFINED null), any other expression the
 * string "\/Expr(TEXT)\/". */
void		 ad_print_json(const struct ad *, struct buf *);
/* ad_json_next: AD as the next object of a JSON array on FP (*FIRST is
 * set until one is written); ad_json_end closes it ("[]" for none). */
void		 ad_json_next(const struct ad *, int *first, FILE *);
void		 ad_json_end(int first, FILE *);

/*
 * ad_parse_text: read ads from TEXT: "Name = value" lines, '#' comments,
 * ads separated by blank lines.  Returns how many ads were stored in ADS
 * (at most MAX), or -1 with "line N: what" in ERR.
 */
int		 ad_parse_text(const char *text, struct ad **ads, int max,
		    char *err, size_t errlen);

/*
 * ad_to_xdr / ad_from_xdr: convert to and from the wire form.  ad_to_xdr
 * allocates inside X (free with ad_x_free).  ad_from_xdr rejects more than
 * AD_MAX_ATTRS attributes, bad names and unparsable values: NULL with a
 * message in ERR.  ad_to_xdr leaves out, with a warning, attributes past
 * AD_MAX_ATTRS or whose text is longer than AD_MAX_TEXT.
 */
void		 ad_to_xdr(const struct ad *, struct ad_x *x);
struct ad	*ad_from_xdr(const struct ad_x *x, char *err, size_t errlen);
void		 ad_x_free(struct ad_x *x);

/*
 * ad_from_xdr_reuse: ad_from_xdr for an ad that replaces OLD (may be
 * NULL), such as a daemon's periodic update: attributes whose text is
 * the same as in OLD take OLD's parsed expression instead of being parsed
 * again (OLD must be freed, not used, afterwards).  The new ad keeps each
 * attribute's text for the next update to compare.
 */
struct ad	*ad_from_xdr_reuse(const struct ad_x *x, struct ad *old,
		    char *err, size_t errlen);

/*
 * ad_to_xdr_view: like ad_to_xdr, but X borrows the ad's names and (cached)
 * texts instead of copying them, and holds only the attributes NAMES lists
 * (all when NAMES is NULL; names the ad lacks are skipped).  X is valid
 * until the ad changes; release it with ad_x_free_view, never ad_x_free.
 * For replies sent many times over (queries of the collector and schedd).
 * It fills the ad's cache of attribute texts, which is invisible to every
 * other function: a const ad stays the same ad.
 */
void		 ad_to_xdr_view(const struct ad *, const char *const *names,
		    size_t nnames, struct ad_x *x);
void		 ad_x_free_view(struct ad_x *x);

#endif
