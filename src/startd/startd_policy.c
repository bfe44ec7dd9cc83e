/*
 * startd_policy.c: the owner's policy, the control expressions of
 * condor_config: START (may a job start), SUSPEND, CONTINUE, VACATE and
 * KILL (while a job is here).
 *
 * An expression an administrator got wrong must never stop the startd or
 * give the machine away.  One that does not parse, or whose value is not
 * a boolean (a misspelt attribute makes it UNDEFINED, a type error
 * ERROR), counts as the owner's side says (policy_bad_means: START
 * FALSE, SUSPEND TRUE, CONTINUE FALSE, VACATE TRUE, KILL FALSE) and is
 * logged once per change, not at every look.  START alone, evaluated
 * without a job, may be UNDEFINED and still fine: it may refer to the
 * job, which only a match tells; the matchmaker and the claim then
 * require it TRUE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ad.h"
#include "buf.h"
#include "config.h"
#include "expr.h"
#include "log.h"
#include "startd_owner.h"
#include "startd.h"
#include "xalloc.h"

struct policy_expr_state {
	struct expr	*tree;		/* NULL: does not parse */
	char		*text;		/* canonical, or as configured */
	char		 complaint[512]; /* last logged; "" when fine */
};

static struct policy_expr_state exprs[POLICY_NEXPR];
static char	*start_text;	/* canonical START; "FALSE" if bad */
static char	*rank_text;	/* canonical STARTD_RANK; "0" if bad */

static const char *
bad_outcome(enum policy_expr x)
{
	switch (x) {
	case POLICY_START:
		return "treated as FALSE: no job starts";
	case POLICY_SUSPEND:
		return "treated as TRUE: a running job is suspended";
	case POLICY_CONTINUE:
		return "treated as FALSE: a suspended job stays suspended";
	case POLICY_VACATE:
		return "treated as TRUE: a suspended job is vacated";
	case POLICY_KILL:
		return "treated as FALSE: a vacate runs to its own deadline";
	default:
		return "ignored";
	}
}

/* Log COMPLAINT for X unless it was the last thing said about it. */
static void
complain(enum policy_expr x, const char *complaint)
{
	struct policy_expr_state *e = &exprs[x];

	if (strcmp(e->complaint, complaint) == 0)
		return;
	snprintf(e->complaint, sizeof(e->complaint), "%s", complaint);
	log_warnx("%s %s; %s", policy_expr_name(x), complaint,
	    bad_outcome(x));
}

static void
content(enum policy_expr x)
{
	struct policy_expr_state *e = &exprs[x];

	if (e->complaint[0] == '\0')
		return;
	e->complaint[0] = '\0';
	log_info("%s evaluates again", policy_expr_name(x));
}

/*
 * Load expression X from the configuration.  One that is not there
 * (removed by hand: the table has them all) or does not parse is bad.
 */
static void
load_one(enum policy_expr x)
{
	struct policy_expr_state *e = &exprs[x];
	const char *text = param(policy_expr_name(x));
	char err[256], msg[512];

	expr_free(e->tree);
	free(e->text);
	e->tree = NULL;
	e->complaint[0] = '\0';
	if (text == NULL || *text == '\0') {
		e->text = xstrdup("");
		complain(x, "is not defined");
		return;
	}
	if ((e->tree = expr_parse(text, err, sizeof(err))) == NULL) {
		e->text = xstrdup(text);
		snprintf(msg, sizeof(msg), "does not parse (%s): \"%.200s\"",
		    err, text);
		complain(x, msg);
		return;
	}
	e->text = expr_to_string(e->tree);
}

/*
 * The canonical text of the expression NAME, or DFLT (logged) if it does
 * not parse.  An undefined NAME gives DFLT silently.
 */
static char *
load_text(const char *name, const char *dflt)
{
	const char *text = param(name);
	struct expr *e;
	char err[512], *s;

	if (text == NULL)
		return xstrdup(dflt);
	if ((e = expr_parse(text, err, sizeof(err))) == NULL) {
		log_warnx("%s does not parse (%s): \"%s\"; using %s", name,
		    err, text, dflt);
		return xstrdup(dflt);
	}
	s = expr_to_string(e);
	expr_free(e);
	return s;
}

void
policy_load(void)
{
	int x;

	for (x = 0; x < POLICY_NEXPR; x++)
		load_one((enum policy_expr)x);
	free(start_text);
	free(rank_text);
	start_text = xstrdup(exprs[POLICY_START].tree != NULL ?
	    exprs[POLICY_START].text : "FALSE");
	rank_text = load_text("STARTD_RANK", "0");
	for (x = 0; x < POLICY_NEXPR; x++)
		if (exprs[x].tree != NULL)
			log_info("%s is %s", policy_expr_name(
			    (enum policy_expr)x), exprs[x].text);
}

const char *
policy_start_text(void)
{
	return start_text ? start_text : "FALSE";
}

const char *
policy_rank_text(void)
{
	return rank_text ? rank_text : "0";
}

/*
 * The names X refers to that neither ad nor the configuration defines,
 * for telling a typo from a mistake of type.
 */
static void
undefined_names(enum policy_expr x, const struct ad *my,
    const struct ad *target, struct buf *out)
{
	struct buf refs;
	char *copy, *name, *save = NULL;
	const char *bare;

	buf_init(&refs);
	expr_references(exprs[x].tree, &refs);
	if (refs.len == 0) {
		buf_free(&refs);
		return;
	}
	copy = xstrdup(refs.data);
	for (name = strtok_r(copy, " ", &save); name != NULL;
	    name = strtok_r(NULL, " ", &save)) {
		bare = name;
		if (strncasecmp(bare, "MY.", 3) == 0)
			bare += 3;
		else if (strncasecmp(bare, "TARGET.", 7) == 0)
			bare += 7;
		if (strcasecmp(bare, "CurrentTime") == 0 ||
		    (my != NULL && ad_lookup(my, bare) != NULL) ||
		    (target != NULL && ad_lookup(target, bare) != NULL) ||
		    param(bare) != NULL)
			continue;
		buf_printf(out, "%s%s", out->len ? ", " : "", bare);
	}
	free(copy);
	buf_free(&refs);
}

/*
 * Evaluate X with MY and TARGET.  A bad outcome is logged (once per
 * change); a good one after a bad one says so.
 */
static enum policy_truth
evaluate(enum policy_expr x, const struct ad *my, const struct ad *target)
{
	struct policy_expr_state *e = &exprs[x];
	enum policy_truth t;
	struct value v;
	struct buf names;
	const char *what;
	char msg[512];

	if (e->tree == NULL)
		return POLICY_BAD;	/* said when loaded */
	expr_eval(e->tree, my, target, &v);
	t = policy_truth_of(&v, &what);
	value_free(&v);
	/* START without a job may be UNDEFINED: the job decides. */
	if (x == POLICY_START && target == NULL && t == POLICY_BAD &&
	    strcmp(what, "UNDEFINED") == 0) {
		content(x);
		return t;
	}
	if (t != POLICY_BAD) {
		content(x);
		return t;
	}
	buf_init(&names);
	if (strcmp(what, "UNDEFINED") == 0)
		undefined_names(x, my, target, &names);
	snprintf(msg, sizeof(msg), "is %s, not a boolean%s%s%s: %s", what,
	    names.len ? " (" : "", names.len ? names.data : "",
	    names.len ? " defined nowhere: a misspelling?)" : "", e->text);
	buf_free(&names);
	complain(x, msg);
	return t;
}

enum startd_state
policy_owner_state(const struct ad *machine)
{
	struct policy_expr_state *e = &exprs[POLICY_START];
	struct value v;
	enum policy_truth t;

	if (e->tree == NULL)
		return STATE_OWNER;
	t = evaluate(POLICY_START, machine, NULL);
	if (t == POLICY_TRUE)
		return STATE_IDLE;
	if (t == POLICY_FALSE)
		return STATE_OWNER;
	/* Bad: Idle only if it is UNDEFINED for want of a job. */
	expr_eval(e->tree, machine, NULL, &v);
	t = v.type == VAL_UNDEFINED ? POLICY_TRUE : POLICY_FALSE;
	value_free(&v);
	return t == POLICY_TRUE ? STATE_IDLE : STATE_OWNER;
}

struct claim_eval {
	const struct ad	*machine;
	const struct ad	*job;
	enum policy_truth truth[POLICY_NEXPR];
	int		 done[POLICY_NEXPR];
};

static enum policy_truth
claim_eval(enum policy_expr x, void *arg)
{
	struct claim_eval *ce = arg;

	if (!ce->done[x]) {
		ce->truth[x] = evaluate(x, ce->machine, ce->job);
		ce->done[x] = 1;
	}
	return ce->truth[x];
}

enum policy_action
policy_claim_action(enum startd_state state, const struct ad *machine,
    const struct ad *job, char *why, size_t whylen)
{
	struct claim_eval ce;
	enum policy_action a;
	enum policy_expr x;

	memset(&ce, 0, sizeof(ce));
	ce.machine = machine;
	ce.job = job;
	a = policy_decide(state, claim_eval, &ce, &x);
	if (a != POLICY_NONE)
		snprintf(why, whylen, "%s is %s", policy_expr_name(x),
		    ce.truth[x] == POLICY_BAD ? (policy_bad_means(x) ?
		    "bad, taken as TRUE" : "bad, taken as FALSE") : "TRUE");
	else if (whylen > 0)
		why[0] = '\0';
	return a;
}
