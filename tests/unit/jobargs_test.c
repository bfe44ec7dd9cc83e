/*
 * jobargs_test.c: splitting a job's Args and Env
 * (src/common/jobargs.c).
 *
 * checks: 34
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jobargs.h"
#include "test.h"
#include "xalloc.h"

/* The words joined with '|', or "ERROR". */
static char *
joined(char **w, int n)
{
	struct buf b;
	int i;

	if (n < 0)
		return xstrdup("ERROR");
	buf_init(&b);
	for (i = 0; i < n; i++) {
		if (i > 0)
			buf_addc(&b, '|');
		buf_adds(&b, w[i]);
	}
	if (w[n] != NULL)
		buf_adds(&b, "(not NULL-terminated)");
	return buf_release(&b);
}

static const struct {
	const char	*args;
	const char	*want;
} args_cases[] = {
	{ "", "" },
	{ "   \t ", "" },
	{ "a", "a" },
	{ "a b  c", "a|b|c" },
	{ "  lead trail  ", "lead|trail" },
	{ "\"a b\" c", "a b|c" },
	{ "x\"y z\"w", "xy zw" },
	{ "\"\"", "" },			/* one empty word */
	{ "\"\" x", "|x" },
	{ "\"say \\\"hi\\\"\"", "say \"hi\"" },
	{ "\"back\\\\slash\"", "back\\slash" },
	{ "plain\\word", "plain\\word" },	/* no escapes outside */
	{ "\"unterminated", "ERROR" },
	{ "a \"b", "ERROR" },
};

static void
test_args(void)
{
	char label[128], err[256], **w, *got;
	size_t i;
	int n;

	for (i = 0; i < sizeof(args_cases) / sizeof(args_cases[0]); i++) {
		n = jobargs_split(args_cases[i].args, &w, err, sizeof(err));
		got = n < 0 ? xstrdup("ERROR") : joined(w, n);
		snprintf(label, sizeof(label), "args: [%s]",
		    args_cases[i].args);
		CHECK_STR(label, got, args_cases[i].want);
		free(got);
		jobargs_free(w);
	}
	/* The "" case is one empty word, not none. */
	n = jobargs_split("\"\"", &w, err, sizeof(err));
	CHECK("args: a quoted empty word counts", n == 1);
	jobargs_free(w);
	n = jobargs_split(NULL, &w, err, sizeof(err));
	CHECK("args: NULL gives no words", n == 0 && w != NULL &&
	    w[0] == NULL);
	jobargs_free(w);
}

static void
test_args_limit(void)
{
	struct buf b;
	char err[256], **w;
	int i, n;

	buf_init(&b);
	for (i = 0; i < JOBARGS_MAX_WORDS + 1; i++)
		buf_adds(&b, "x ");
	n = jobargs_split(b.data, &w, err, sizeof(err));
	CHECK("args: too many words is an error", n == -1 && w == NULL);
	buf_free(&b);
}

static const struct {
	const char	*env;
	const char	*want;
} env_cases[] = {
	{ "", "" },
	{ "A=1", "A=1" },
	{ "A=1;B=2", "A=1|B=2" },
	{ "A=1;;B=2;", "A=1|B=2" },
	{ " A=1; B=x y", "A=1|B=x y" },
	{ "EMPTY=", "EMPTY=" },
	{ "EQ=a=b", "EQ=a=b" },
	{ "_U9=z", "_U9=z" },
	{ "noequals", "ERROR" },
	{ "9A=1", "ERROR" },
	{ "A-B=1", "ERROR" },
	{ "=1", "ERROR" },
};

static void
test_env(void)
{
	char label[128], err[256], **v, *got;
	size_t i;
	int n;

	for (i = 0; i < sizeof(env_cases) / sizeof(env_cases[0]); i++) {
		n = jobenv_parse(env_cases[i].env, &v, err, sizeof(err));
		got = n < 0 ? xstrdup("ERROR") : joined(v, n);
		snprintf(label, sizeof(label), "env: [%s]", env_cases[i].env);
		CHECK_STR(label, got, env_cases[i].want);
		free(got);
		jobargs_free(v);
	}
}

static void
test_env_set(void)
{
	char err[256], **v;
	int n;

	n = jobenv_parse("A=1;B=2", &v, err, sizeof(err));
	n = jobenv_set(&v, n, "B", "3");
	CHECK("env: set replaces", n == 2);
	CHECK_STR("env: replaced value", jobenv_get(v, "B"), "3");
	n = jobenv_set(&v, n, "C", "x");
	CHECK("env: set appends", n == 3 && v[3] == NULL);
	CHECK_STR("env: appended value", jobenv_get(v, "C"), "x");
	CHECK("env: a prefix is not a name", jobenv_get(v, "") == NULL &&
	    jobenv_get(v, "AB") == NULL);
	jobargs_free(v);
}

int
main(void)
{
	test_args();
	test_args_limit();
	test_env();
	test_env_set();
	TEST_EXIT();
}
