/*
 * startd_policy.c: the owner's policy, the control expressions of
 * condor_config (START now; SUSPEND, CONTINUE, VACATE and KILL come with
 * running jobs).
 *
 * An expression an administrator got wrong must never stop the startd or
 * give the machine away: one that does not parse is logged and treated as
 * FALSE, and one that evaluates to ERROR keeps the machine to its owner.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "buf.h"
#include "config.h"
#include "expr.h"
#include "log.h"
#include "startd.h"
#include "xalloc.h"

static char	*start_text;	/* canonical START; "FALSE" if bad */
static char	*rank_text;	/* canonical STARTD_RANK; "0" if bad */
static int	 start_in_error;	/* the last evaluation was ERROR */

/*
 * The canonical text of the expression NAME, or DFLT (logged) if it does
 * not parse.  An undefined NAME gives DFLT silently.
 */
static char *
load_expr(const char *name, const char *dflt)
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
	free(start_text);
	free(rank_text);
	start_text = load_expr("START", "FALSE");
	rank_text = load_expr("STARTD_RANK", "0");
	start_in_error = 0;
	log_info("START is %s", start_text);
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

enum startd_state
policy_owner_state(const struct ad *machine)
{
	struct value v;
	enum startd_state state;

	ad_eval(machine, NULL, "START", &v);
	switch (v.type) {
	case VAL_UNDEFINED:
		/* It needs the job's attributes: the matchmaker decides. */
		state = STATE_IDLE;
		break;
	case VAL_ERROR:
		state = STATE_OWNER;
		break;
	default:
		state = value_is_true(&v) ? STATE_IDLE : STATE_OWNER;
		break;
	}
	if (v.type == VAL_ERROR && !start_in_error)
		log_warnx("START does not evaluate: %s is ERROR on this "
		    "machine; keeping it to its owner", policy_start_text());
	else if (v.type != VAL_ERROR && start_in_error)
		log_info("START evaluates again");
	start_in_error = v.type == VAL_ERROR;
	value_free(&v);
	return state;
}
