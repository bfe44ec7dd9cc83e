/*
 * config_test.c: condor_config(5): syntax, search order, lazy expansion,
 * errors with file:line, typed getters, the defaults table, and the
 * documents that must agree with the table (etc/condor_config, the man
 * page, condor_config_val).  Run from the top of the tree.
 *
 * checks: 1569
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "test.h"
#include "xalloc.h"

static char	 tmpdir[PATH_MAX];
static char	**made;		/* files and directories to remove, in order */
static size_t	 nmade;

static const char *
remember(char *path)
{
	made = xreallocarray(made, nmade + 1, sizeof(*made));
	made[nmade++] = path;
	return path;
}

/* Write TEXT (LEN bytes, or all of it when LEN is 0) to tmpdir/NAME. */
static const char *
tmp_write(const char *name, const char *text, size_t len)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	size_t i;
	FILE *fp;

	if ((fp = fopen(path, "w")) == NULL) {
		perror(path);
		exit(2);
	}
	fwrite(text, 1, len ? len : strlen(text), fp);
	fclose(fp);
	for (i = 0; i < nmade; i++)
		if (strcmp(made[i], path) == 0) {
			free(path);
			return made[i];
		}
	return remember(path);
}

static const char *
tmp_mkdir(const char *name)
{
	char *path = xasprintf("%s/%s", tmpdir, name);

	if (mkdir(path, 0755) == -1 && errno != EEXIST) {
		perror(path);
		exit(2);
	}
	return remember(path);
}

static void
tmp_cleanup(void)
{
	struct stat st;
	size_t i;

	for (i = nmade; i > 0; i--) {
		if (lstat(made[i - 1], &st) == 0) {
			if (S_ISDIR(st.st_mode))
				rmdir(made[i - 1]);
			else
				unlink(made[i - 1]);
		}
		free(made[i - 1]);
	}
	free(made);
	if (rmdir(tmpdir) == -1)
		perror(tmpdir);
}

/* PATH's contents, NUL-terminated; *LENP (if not NULL) its length. */
static char *
slurp_len(const char *path, size_t *lenp)
{
	char chunk[8192], *text = NULL;
	size_t len = 0, n;
	FILE *fp;

	if ((fp = fopen(path, "r")) == NULL)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		text = xreallocarray(text, len + n + 1, 1);
		memcpy(text + len, chunk, n);
		len += n;
	}
	fclose(fp);
	if (text == NULL)
		text = xcalloc(1, 1);
	text[len] = '\0';
	if (lenp != NULL)
		*lenp = len;
	return text;
}

static char *
slurp(const char *path)
{
	return slurp_len(path, NULL);
}

static int
init_with(const char *path, char *err, size_t errlen)
{
	setenv("CONDOR_CONFIG", path, 1);
	return config_init(err, errlen);
}

/* Does NAME occur in TEXT as a whole word? */
static int
has_word(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = text; (p = strstr(p, name)) != NULL; p++) {
		int before = p > text && (isalnum((unsigned char)p[-1]) ||
		    p[-1] == '_');
		int after = isalnum((unsigned char)p[n]) || p[n] == '_';

		if (!before && !after)
			return 1;
	}
	return 0;
}

static const struct config_default *
table_find(const char *name)
{
	const struct config_default *d;

	for (d = config_defaults; d->name != NULL; d++)
		if (strcasecmp(d->name, name) == 0)
			return d;
	return NULL;
}

static const struct config_default *
personal_find(const char *name)
{
	const struct config_default *d;

	for (d = config_personal_defaults; d->name != NULL; d++)
		if (strcasecmp(d->name, name) == 0)
			return d;
	return NULL;
}

static char *
dump_defaults_text(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	fputc('\n', fp);	/* so every line starts after a newline */
	config_dump_defaults(fp);
	fclose(fp);
	return text;
}

/* The table itself: names valid and unique, meanings present. */
static void
test_table(void)
{
	static const char *exprs[] = { "START", "SUSPEND", "CONTINUE",
	    "VACATE", "KILL", "PRIO", "UPDATE_PRIO", "STARTD_RANK", NULL };
	const struct config_default *d, *e;
	char label[128];
	const char *p;
	int ok, n = 0, want;
	size_t i;

	for (d = config_defaults; d->name != NULL; d++, n++) {
		ok = d->name[0] != '\0';
		for (p = d->name; *p != '\0'; p++)
			if (!isalnum((unsigned char)*p) && *p != '_' &&
			    *p != '.')
				ok = 0;
		snprintf(label, sizeof(label), "table: %s is a valid name",
		    d->name);
		CHECK(label, ok);
		for (e = config_defaults; e < d; e++)
			if (strcasecmp(e->name, d->name) == 0)
				break;
		snprintf(label, sizeof(label), "table: %s appears once",
		    d->name);
		CHECK(label, e == d);
		snprintf(label, sizeof(label), "table: %s has a meaning",
		    d->name);
		CHECK(label, d->meaning != NULL && d->meaning[0] != '\0' &&
		    strchr(d->meaning, '\n') == NULL);
		want = 0;
		for (i = 0; exprs[i] != NULL; i++)
			if (strcmp(exprs[i], d->name) == 0)
				want = 1;
		snprintf(label, sizeof(label), "table: %s is_expr is %d",
		    d->name, want);
		CHECK(label, d->is_expr == want);
	}
	CHECK("table: has the settings", n >= 75);
}

/*
 * A control expression that does not parse is reported with its file
 * and line through config_warnings(), and does not stop the reading.
 */
static void
test_bad_expression(void)
{
	const char *path, *w;
	char err[512];

	path = tmp_write("badexpr.cf", "A = 1\nSTART : (KeyboardIdle > \n"
	    "SUSPEND : FALSE\n", 0);
	CHECK("bad expression: the configuration still loads",
	    init_with(path, err, sizeof(err)) == 0);
	w = config_warnings();
	CHECK("bad expression: reported", w != NULL);
	CHECK("bad expression: with file:line",
	    w != NULL && strstr(w, "badexpr.cf:2: START: bad expression") !=
	    NULL);
	CHECK("bad expression: the good one is not reported",
	    w != NULL && strstr(w, "SUSPEND") == NULL);
	path = tmp_write("goodexpr.cf", "START : TRUE\n", 0);
	CHECK("good expressions: no warning",
	    init_with(path, err, sizeof(err)) == 0 &&
	    config_warnings() == NULL);
	unsetenv("CONDOR_CONFIG");
}

/* With no file at all, the defaults describe a personal pool. */
static void
test_defaults(void)
{
	char err[512], exe[PATH_MAX], *rel, *s, label[256];
	ssize_t n;
	size_t i;
	struct {
		const char	*name;
		const char	*want;	/* "%H": $HOME, "%R": release dir */
	} cases[] = {
		{ "LOCAL_DIR", "%H/.condor" },
		{ "SPOOL", "%H/.condor/spool" },
		{ "EXECUTE", "%H/.condor/execute" },
		{ "LOG", "%H/.condor/log" },
		{ "LOCAL_CONFIG_FILE", "%H/.condor/condor_config.local" },
		{ "BIN", "%R/bin" },
		{ "SBIN", "%R/sbin" },
		{ "LIB", "%R/lib" },
		{ "RELEASE_DIR", "%R" },
		{ "MASTER", "%R/sbin/condor_master" },
		{ "STARTER", "%R/sbin/condor_starter" },
		{ "MASTER_LOG", "%H/.condor/log/MasterLog" },
		{ "COLLECTOR_LOG", "%H/.condor/log/CollectorLog" },
		{ "NEGOTIATOR_LOG", "%H/.condor/log/NegotiatorLog" },
		{ "SCHEDD_LOG", "%H/.condor/log/SchedLog" },
		{ "STARTD_LOG", "%H/.condor/log/StartLog" },
		{ "KBDD_LOG", "%H/.condor/log/KbdLog" },
		{ "SHADOW_LOG", "%H/.condor/log/ShadowLog" },
		{ "STARTER_LOG", "%H/.condor/log/StarterLog" },
		{ "CONDOR_HOST", "127.0.0.1" },
		{ "BIND_ADDRESS", "127.0.0.1" },
		{ "SCHEDD_PORT", "0" },
		{ "DAEMON_LIST",
		    "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD" },
		{ "MINUTE", "60" },
		{ "HOUR", "3600" },
		{ "PERIODIC_CHECKPOINT_INTERVAL", "3 * 3600" },
		{ "PRIO", "(UserPrio * 10) + (NumCkpts > 0) - "
		    "(QDate / 1000000000.0)" },
		{ "UPDATE_PRIO", "Prio + Users - Running" },
		{ "HOSTALLOW_WRITE", "127.0.0.1, 127.0.0.1" },
		{ "LOAD_AVERAGE_FILE", "/proc/loadavg" },
		{ "MAIL", "/usr/sbin/sendmail" },
		{ "REMOTE_IO_CHUNK", "65536" },
		{ "CLASSAD_LIFETIME", "900" },
		{ "RPC_TIMEOUT", "20" },
	};

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	*strrchr(exe, '/') = '\0';
	*strrchr(exe, '/') = '\0';
	rel = exe;

	CHECK("defaults: init with /dev/null",
	    init_with("/dev/null", err, sizeof(err)) == 0);
	CHECK_STR("defaults: main file", config_main_file(), "/dev/null");
	CHECK_STR("defaults: no local file", config_local_file(), "");
	CHECK_STR("defaults: release dir", config_release_dir(), rel);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = cases[i].want;
		char want[1024];
		size_t o = 0;

		for (; *p != '\0' && o < sizeof(want) - 1; p++) {
			if (p[0] == '%' && (p[1] == 'H' || p[1] == 'R')) {
				o += (size_t)snprintf(want + o,
				    sizeof(want) - o, "%s",
				    p[1] == 'H' ? tmpdir : rel);
				p++;
			} else
				want[o++] = *p;
		}
		want[o] = '\0';
		snprintf(label, sizeof(label), "defaults: %s", cases[i].name);
		CHECK_STR(label, param(cases[i].name), want);
	}
	CHECK("defaults: START is an expression", param_is_expr("START"));
	CHECK("defaults: PRIO is an expression", param_is_expr("PRIO"));
	CHECK("defaults: MINUTE is a macro", !param_is_expr("MINUTE"));
	CHECK("defaults: CONSOLE_DEVICES undefined",
	    param("CONSOLE_DEVICES") == NULL);
	CHECK("defaults: unknown name undefined", param("NO_SUCH_X") == NULL);
	s = (char *)param("HOST");
	CHECK("defaults: HOST is a short name", s != NULL && *s != '\0' &&
	    strchr(s, '.') == NULL);
	{
		const char *file = "x";
		int line = -1;
		char err[256], *x, want[300];

		CHECK("defaults: config_where finds a computed default, "
		    "the table's", config_where("EXECUTE_USER", &file, &line) &&
		    file == NULL && line == 0);
		CHECK("defaults: config_where of an undefined name",
		    !config_where("NO_SUCH_X", &file, &line));
		x = config_expand("u=$(EXECUTE_USER)", err, sizeof(err));
		snprintf(want, sizeof(want), "u=%s", param("EXECUTE_USER"));
		CHECK_STR("defaults: a computed default expands, computed "
		    "when first asked for", x, want);
		free(x);
		CHECK_STR("defaults: config_raw of a computed default is its "
		    "value", config_raw("EXECUTE_USER", NULL, NULL),
		    param("EXECUTE_USER"));
	}
	s = (char *)param("EXECUTE_USER");
	CHECK("defaults: EXECUTE_USER is not root", s != NULL && *s != '\0' &&
	    strcmp(s, "root") != 0);
	if (getuid() == 0)
		CHECK("defaults: EXECUTE_USER as root is condor or nobody",
		    s != NULL && (strcmp(s, "condor") == 0 ||
		    strcmp(s, "nobody") == 0));
	else
		SKIP("defaults: EXECUTE_USER as root is condor or nobody",
		    "not root");
	CHECK("defaults: param_int PERIODIC_CHECKPOINT_INTERVAL",
	    param_int("PERIODIC_CHECKPOINT_INTERVAL", 0) == 10800);
	CHECK("defaults: param_int StartIdleTime",
	    param_int("StartIdleTime", 0) == 900);
	CHECK("defaults: param_double BackgroundLoad",
	    fabs(param_double("BackgroundLoad", 0) - 0.3) < 1e-9);
	CHECK("defaults: param_int MAX_JOBS_RUNNING",
	    param_int("MAX_JOBS_RUNNING", 0) == 200);
}

/* Syntax: one file per case, read as the main file. */
static void
test_syntax(void)
{
	static const struct {
		const char	*label;
		const char	*text;
		const char	*name;
		const char	*want;		/* NULL: undefined */
		int		 is_expr;
	} cases[] = {
		{ "simple macro", "A = 1\n", "A", "1", 0 },
		{ "no blanks", "A=1\n", "A", "1", 0 },
		{ "blanks kept inside", "A =  x   y  \n", "A", "x   y", 0 },
		{ "empty value", "A =\n", "A", "", 0 },
		{ "last line without newline", "A = 1", "A", "1", 0 },
		{ "CRLF", "A = 1\r\nB = 2\r\n", "B", "2", 0 },
		{ "later wins", "A = 1\nA = 2\n", "A", "2", 0 },
		{ "case-insensitive name",
		    "abc = 1\nABC = 2\n", "aBc", "2", 0 },
		{ "case-insensitive reference", "Minute = 7\nX = $(MINUTE)\n",
		    "X", "7", 0 },
		{ "dots in names", "a.b_c9 = v\n", "A.B_C9", "v", 0 },
		{ "value may hold '='", "A = b = c\n", "A", "b = c", 0 },
		{ "value may hold '#'", "A = x#y # z\n", "A", "x#y # z", 0 },
		{ "comment line", "# A = 1\nA = 2\n#A = 3\n", "A", "2", 0 },
		{ "indented comment", "   \t# A = 1\nB = 1\n", "A", NULL, 0 },
		{ "blank lines", "\n\n  \t\nA = 1\n\n", "A", "1", 0 },
		{ "expression", "A : x && y\n", "A", "x && y", 1 },
		{ "expression no blanks", "A:1\n", "A", "1", 1 },
		{ "expression replaces macro", "A = 1\nA : 2\n", "A", "2", 1 },
		{ "macro replaces expression", "A : 1\nA = 2\n", "A", "2", 0 },
		{ "expression expands macros", "M = 9\nA : x > $(M)\n", "A",
		    "x > 9", 1 },
		{ "continuation", "A = one \\\n  two\n", "A", "one   two", 0 },
		{ "continuation, three lines", "A = 1\\\n2\\\n3\nB = 4\n", "A",
		    "123", 0 },
		{ "continuation then next",
		    "A = 1\\\n2\nB = 4\n", "B", "4", 0 },
		{ "continuation at end of file", "A = x\\", "A", "x", 0 },
		{ "comment is not continued", "# c \\\nA = 1\n", "A", "1", 0 },
		{ "forward reference", "X = $(Y)!\nY = hi\n", "X", "hi!", 0 },
		{ "nested macros", "A = a$(B)\nB = b$(C)\nC = c\n", "A", "abc",
		    0 },
		{ "unknown macro is empty",
		    "X = <$(NO_SUCH)>\n", "X", "<>", 0 },
		{ "default when undefined", "X = $(NO_SUCH:dflt)\n", "X",
		    "dflt", 0 },
		{ "default unused when defined", "Y = 1\nX = $(Y:dflt)\n", "X",
		    "1", 0 },
		{ "default is expanded", "Y = 3\nX = $(NO:$(Y)$(Y))\n", "X",
		    "33", 0 },
		{ "nested defaults", "X = $(N1:$(N2:deep))\n", "X", "deep", 0 },
		{ "default with parens",
		    "X = $(N:(a)(b))\n", "X", "(a)(b)", 0 },
		{ "empty default", "X = [$(N:)]\n", "X", "[]", 0 },
		{ "table default referenced",
		    "X = $(MINUTE)s\n", "X", "60s", 0 },
		{ "table default replaced", "MINUTE = 1\n", "StartIdleTime",
		    "15 * 1", 0 },
		{ "lone dollar", "X = a$b$\n", "X", "a$b$", 0 },
		{ "dollar dollar", "Y = 1\nX = $$(Y)\n", "X", "$1", 0 },
		{ "empty reference", "X = $()\n", "X", "$()", 0 },
		{ "bad name in reference", "X = $(a-b)\n", "X", "$(a-b)", 0 },
		{ "env",
		    "X = <$ENV(CONFIG_TEST_VAR)>\n", "X", "<env value>", 0 },
		{ "env unset",
		    "X = <$ENV(CONFIG_TEST_UNSET)>\n", "X", "<>", 0 },
		{ "env not expanded further",
		    "X = $ENV(CONFIG_TEST_MACRO)\n", "X", "$(MINUTE)", 0 },
	};
	char err[512], label[256];
	const char *path;
	size_t i;

	setenv("CONFIG_TEST_VAR", "env value", 1);
	setenv("CONFIG_TEST_MACRO", "$(MINUTE)", 1);
	unsetenv("CONFIG_TEST_UNSET");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		path = tmp_write("syntax.cf", cases[i].text, 0);
		snprintf(label, sizeof(label), "syntax: %s: reads",
		    cases[i].label);
		err[0] = '\0';
		CHECK(label, init_with(path, err, sizeof(err)) == 0);
		if (err[0] != '\0')
			printf("  (%s)\n", err);
		snprintf(label, sizeof(label), "syntax: %s", cases[i].label);
		if (cases[i].want == NULL)
			CHECK(label, param(cases[i].name) == NULL);
		else
			CHECK_STR(label, param(cases[i].name), cases[i].want);
		snprintf(label, sizeof(label), "syntax: %s: kind",
		    cases[i].label);
		CHECK(label, param_is_expr(cases[i].name) == cases[i].is_expr);
	}
}

/* Errors: each names the file and line and says what was expected. */
static void
test_errors(void)
{
	static const struct {
		const char	*label;
		const char	*text;
		size_t		 len;	/* 0: strlen */
		int		 line;
		const char	*what;
	} cases[] = {
		{ "no name", "A = 1\n= 2\n", 0, 2, "expected a name" },
		{ "no operator", "A = 1\n\nFOO BAR\n", 0, 3,
		    "expected '=' (a macro) or ':' (an expression) after "
		    "\"FOO\"" },
		{ "name alone", "FOO\n", 0, 1, "expected '='" },
		{ "bad character in name", "FOO-BAR = 1\n", 0, 1,
		    "bad character '-' in name \"FOO\"" },
		{ "bad first character", "A = 1\n-X = 1\n", 0, 2,
		    "found '-'" },
		{ "non-ASCII name", "\xc3\xa9t\xc3\xa9 = 1\n", 0, 1,
		    "found byte 0xc3" },
		{ "line after continuation", "A = 1 \\\n 2\nB C\n", 0, 3,
		    "after \"B\"" },
		{ "continued bad line", "A = 1\n B \\\n C = 2\n", 0, 2,
		    "after \"B\"" },
		{ "NUL byte", "A = 1\nB = x\0y\n", 12, 2, "NUL byte" },
		{ "recursion", "A = $(B)\nB = $(A)\n", 0, 1,
		    "recursive macro: A -> B -> A" },
		{ "self reference", "X = 1\nA = a$(a)\n", 0, 2,
		    "recursive macro: A -> A" },
		{ "recursion through expression", "S : $(T)\nT = $(S)\n", 0, 1,
		    "recursive macro: S -> T -> S" },
		{ "recursion through default", "A = $(N:$(A))\n", 0, 1,
		    "recursive macro: A -> A" },
		{ "recursion through a table default",
		    "X = 1\nMINUTE = $(StartIdleTime)\n", 0, 2,
		    "recursive macro" },
		{ "unterminated macro", "A = 1\nB = x $(A\n", 0, 2,
		    "unterminated macro reference \"$(A\"" },
		{ "unterminated macro with default", "A = $(B:x\n", 0, 1,
		    "unterminated macro reference \"$(B\"" },
		{ "unterminated $ENV", "X = 1\n\nP = $ENV(HOME\n", 0, 3,
		    "unterminated \"$ENV(HOME\"" },
	};
	char err[512], label[256], *want;
	const char *path, *kept;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		path = tmp_write("error.cf", cases[i].text, cases[i].len);
		err[0] = '\0';
		snprintf(label, sizeof(label), "error: %s: fails",
		    cases[i].label);
		CHECK(label, init_with(path, err, sizeof(err)) == -1);
		want = xasprintf("%s:%d: ", path, cases[i].line);
		snprintf(label, sizeof(label), "error: %s: names file:line",
		    cases[i].label);
		CHECK(label, strncmp(err, want, strlen(want)) == 0);
		if (strncmp(err, want, strlen(want)) != 0)
			printf("  got: %s\n", err);
		snprintf(label, sizeof(label), "error: %s: says what",
		    cases[i].label);
		CHECK(label, strstr(err, cases[i].what) != NULL);
		if (strstr(err, cases[i].what) == NULL)
			printf("  got: %s\n", err);
		free(want);
	}

	/* A failed init keeps what was read before (a daemon's SIGHUP). */
	path = tmp_write("good.cf", "KEEP = me\n", 0);
	CHECK("error: good file reads", init_with(path, err, sizeof(err)) == 0);
	kept = param("KEEP");
	path = tmp_write("error.cf", "KEEP = you\nbroken\n", 0);
	CHECK("error: broken file fails",
	    init_with(path, err, sizeof(err)) == -1);
	CHECK_STR("error: old configuration kept", param("KEEP"), "me");
	CHECK("error: old values still valid", param("KEEP") == kept);
	CHECK("error: old main file kept",
	    strstr(config_main_file(), "good.cf") != NULL);

	/* config_read_file reports the same way. */
	CHECK("error: config_read_file fails",
	    config_read_file(path, err, sizeof(err)) == -1);
	want = xasprintf("%s:2: ", path);
	CHECK("error: config_read_file names file:line",
	    strncmp(err, want, strlen(want)) == 0);
	free(want);
	path = tmp_write("cycle.cf", "P = $(Q)\nQ = $(P)\n", 0);
	CHECK("error: config_read_file finds cycles",
	    config_read_file(path, err, sizeof(err)) == -1 &&
	    strstr(err, "recursive macro: P -> Q -> P") != NULL);
	CHECK("error: param of a cycle is NULL", param("P") == NULL);
	CHECK("error: config_read_file of a missing file",
	    config_read_file("/nonexistent/cf", err, sizeof(err)) == -1 &&
	    strstr(err, "/nonexistent/cf") != NULL);
}

/* The order files are found in, and LOCAL_CONFIG_FILE. */
static void
test_search(void)
{
	char err[1024], *text, *want;
	const char *main_cf, *l1, *l2, *lbad, *dir;

	/* $CONDOR_CONFIG naming a missing file is an error. */
	want = xasprintf("%s/missing.cf", tmpdir);
	CHECK("search: CONDOR_CONFIG missing fails",
	    init_with(want, err, sizeof(err)) == -1);
	CHECK("search: error names the file and CONDOR_CONFIG",
	    strstr(err, want) != NULL && strstr(err, "CONDOR_CONFIG") != NULL);
	free(want);
	dir = tmp_mkdir("adir");
	CHECK("search: CONDOR_CONFIG naming a directory fails",
	    init_with(dir, err, sizeof(err)) == -1 &&
	    strstr(err, dir) != NULL);

	/* Local files: a list, macros expanded, missing ones skipped. */
	l1 = tmp_write("local1", "A = local1\nB = local1\nLIST = $(L1)\n", 0);
	l2 = tmp_write("local2", "B = local2\nTMP_D = other\n", 0);
	text = xasprintf("TMP_D = %s\nA = main\nB = main\nC = main\n"
	    "L1 = set-in-main\n"
	    "LOCAL_CONFIG_FILE = $(TMP_D)/local1, $(TMP_D)/nonexistent "
	    "$(TMP_D)/local2\n", tmpdir);
	main_cf = tmp_write("main.cf", text, 0);
	free(text);
	CHECK("search: main with local files",
	    init_with(main_cf, err, sizeof(err)) == 0);
	CHECK_STR("search: main file", config_main_file(), main_cf);
	want = xasprintf("%s %s", l1, l2);
	CHECK_STR("search: local files read", config_local_file(), want);
	free(want);
	CHECK_STR("search: local overrides main", param("A"), "local1");
	CHECK_STR("search: later local overrides earlier", param("B"),
	    "local2");
	CHECK_STR("search: main kept where not overridden", param("C"),
	    "main");
	CHECK_STR("search: local refers to main's macros", param("LIST"),
	    "set-in-main");
	CHECK_STR("search: source 0", config_source(0), main_cf);
	CHECK_STR("search: source 1", config_source(1), l1);
	CHECK_STR("search: source 2", config_source(2), l2);
	CHECK("search: no source 3", config_source(3) == NULL);

	/* An error in a local file is reported with its file:line. */
	lbad = tmp_write("localbad", "OK = 1\nnot a definition\n", 0);
	text = xasprintf("LOCAL_CONFIG_FILE = %s\n", lbad);
	main_cf = tmp_write("main.cf", text, 0);
	free(text);
	CHECK("search: bad local file fails",
	    init_with(main_cf, err, sizeof(err)) == -1);
	want = xasprintf("%s:2: ", lbad);
	CHECK("search: bad local file names its line",
	    strncmp(err, want, strlen(want)) == 0);
	free(want);

	/* The default LOCAL_CONFIG_FILE: $(LOCAL_DIR)/condor_config.local. */
	tmp_mkdir(".condor");
	l1 = tmp_write(".condor/condor_config.local", "FROM_HOME = yes\n", 0);
	CHECK("search: default local file",
	    init_with("/dev/null", err, sizeof(err)) == 0);
	CHECK_STR("search: default local file read", param("FROM_HOME"),
	    "yes");
	CHECK_STR("search: default local file named", config_local_file(),
	    l1);
	unlink(l1);

	/* RELEASE_DIR set in a file moves BIN, SBIN, ... */
	main_cf = tmp_write("main.cf", "RELEASE_DIR = /opt/condor\n", 0);
	CHECK("search: RELEASE_DIR set",
	    init_with(main_cf, err, sizeof(err)) == 0);
	CHECK_STR("search: config_release_dir follows RELEASE_DIR",
	    config_release_dir(), "/opt/condor");
	CHECK_STR("search: SBIN follows RELEASE_DIR", param("SBIN"),
	    "/opt/condor/sbin");
}

/* The probe: a copy of this program run from tmpdir/rel/sbin. */
static int
probe_main(void)
{
	char err[1024];
	const char *v;

	if (config_init(err, sizeof(err)) == -1) {
		printf("error %s\n", err);
		return 1;
	}
	printf("%s\n", config_main_file());
	printf("%s\n", config_local_file());
	printf("%s\n", (v = param("PROBE_MAIN")) ? v : "(null)");
	printf("%s\n", (v = param("PROBE")) ? v : "(null)");
	printf("%s\n", config_release_dir());
	return 0;
}

/* Without $CONDOR_CONFIG: /etc/condor, ~condor, $(RELEASE_DIR)/etc. */
static void
test_search_release(void)
{
	char *exe, *text, *want, out[4096], *lines[5], *save = NULL;
	const char *probe, *local, *expect;
	struct passwd *pw;
	size_t len, got = 0;
	int fds[2], status, i;
	ssize_t n;
	pid_t pid;

	tmp_mkdir("rel");
	tmp_mkdir("rel/sbin");
	tmp_mkdir("rel/etc");
	exe = slurp_len("/proc/self/exe", &len);
	CHECK("release: read own program", exe != NULL && len > 0);
	if (exe == NULL)
		return;
	probe = tmp_write("rel/sbin/probe", exe, len);
	free(exe);
	chmod(probe, 0755);
	tmp_write("rel/etc/condor_config",
	    "PROBE_MAIN = yes\nPROBE = from-main\n", 0);
	tmp_mkdir(".condor");
	local = tmp_write(".condor/condor_config.local",
	    "PROBE = from-local\n", 0);

	if (pipe(fds) == -1) {
		perror("pipe");
		exit(2);
	}
	if ((pid = fork()) == 0) {
		unsetenv("CONDOR_CONFIG");
		setenv("HOME", tmpdir, 1);
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execl(probe, probe, "--probe", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (got < sizeof(out) - 1 &&
	    (n = read(fds[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	unlink(local);
	CHECK("release: probe ran", WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0);
	for (i = 0; i < 5; i++)
		lines[i] = strtok_r(i == 0 ? out : NULL, "\n", &save);
	for (i = 0; i < 5; i++)
		if (lines[i] == NULL)
			lines[i] = "";

	want = xasprintf("%s/rel/etc/condor_config", tmpdir);
	expect = want;
	text = NULL;
	/* A machine that has a real installation finds it first. */
	if (access("/etc/condor/condor_config", F_OK) == 0)
		expect = "/etc/condor/condor_config";
	else if ((pw = getpwnam("condor")) != NULL) {
		text = xasprintf("%s/condor_config", pw->pw_dir);
		if (access(text, F_OK) == 0)
			expect = text;
	}
	CHECK_STR("release: main file found", lines[0], expect);
	CHECK_STR("release: local file found", lines[1], local);
	if (expect == want)
		CHECK_STR("release: main file read", lines[2], "yes");
	else
		SKIP("release: main file read", "this machine's own "
		    "installation is found first");
	CHECK_STR("release: local file wins", lines[3], "from-local");
	free(want);
	want = xasprintf("%s/rel", tmpdir);
	CHECK_STR("release: RELEASE_DIR is above sbin", lines[4], want);
	free(want);
	free(text);
}

/* Values are expanded when asked for, so later files change them. */
static void
test_lazy(void)
{
	char err[512], *text;
	const char *main_cf;

	tmp_write("lazy.local", "MINUTE = 1\nHOUR = 60\n", 0);
	text = xasprintf("START : $(CPU_Idle) && KeyboardIdle > "
	    "$(StartIdleTime)\nMINUTE = 60\n"
	    "LOCAL_CONFIG_FILE = %s/lazy.local\n", tmpdir);
	main_cf = tmp_write("lazy.cf", text, 0);
	free(text);
	CHECK("lazy: reads", init_with(main_cf, err, sizeof(err)) == 0);
	CHECK_STR("lazy: local MINUTE shortens START", param("START"),
	    "(NonCondorLoadAvg <= 0.3) && KeyboardIdle > 15 * 1");
	CHECK_STR("lazy: local HOUR shortens the checkpoint interval",
	    param("PERIODIC_CHECKPOINT_INTERVAL"), "3 * 60");
	CHECK("lazy: param_int sees it",
	    param_int("PERIODIC_CHECKPOINT_INTERVAL", 0) == 180);
	CHECK("lazy: START stays an expression", param_is_expr("START"));

	config_set("MINUTE", "2", 0);
	CHECK_STR("lazy: config_set MINUTE", param("StartIdleTime"),
	    "15 * 2");
	CHECK("lazy: param_int after config_set",
	    param_int("StartIdleTime", 0) == 30);
	config_set("NEW_EXPR", "x < $(MINUTE)", 1);
	CHECK_STR("lazy: config_set expression", param("NEW_EXPR"), "x < 2");
	CHECK("lazy: config_set expression kind", param_is_expr("NEW_EXPR"));
	/* A param() result may be passed back in. */
	config_set("COPY", param("NEW_EXPR"), 0);
	CHECK_STR("lazy: config_set from param", param("COPY"), "x < 2");
	config_set("COPY", NULL, 0);
	CHECK("lazy: config_set NULL undefines", param("COPY") == NULL);
	config_set("bad name!", "1", 0);
	CHECK("lazy: config_set refuses a bad name",
	    param("bad name!") == NULL);
}

/* Typed getters evaluate what is not a plain number. */
static void
test_typed(void)
{
	static const struct {
		const char	*value;
		long		 want;
	} ints[] = {
		{ "42", 42 }, { " 42 ", 42 }, { "-7", -7 },
		{ "30 * $(MINUTE)", 1800 }, { "(1 + 2) * 3", 9 },
		{ "10 / 4", 2 }, { "2.75", 2 }, { "$(HOUR) / 60 * 5", 300 },
		{ "MINUTE * 2", 120 },
	};
	static const struct {
		const char	*value;
		int		 want;
	} bools[] = {
		{ "TRUE", 1 }, { "true", 1 }, { "FALSE", 0 }, { "False", 0 },
		{ "yes", 1 }, { "YES", 1 }, { "no", 0 }, { "No", 0 },
		{ "1", 1 }, { "0", 0 }, { "on", 1 }, { "off", 0 },
		{ " true ", 1 }, { "2 > 1", 1 }, { "2 < 1", 0 }, { "3", 1 },
		{ "$(MINUTE) == 60", 1 },
	};
	static const struct {
		const char	*value;
		double		 want;
	} doubles[] = {
		{ "0.3", 0.3 }, { "1e3", 1000 }, { "7", 7 },
		{ "0.5 * 3", 1.5 }, { "$(MINUTE) * 0.5", 30 },
	};
	char err[512], label[256];
	size_t i;

	CHECK("typed: init", init_with("/dev/null", err, sizeof(err)) == 0);
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		config_set("T_INT", ints[i].value, 0);
		snprintf(label, sizeof(label), "typed: param_int \"%s\"",
		    ints[i].value);
		CHECK(label, param_int("T_INT", -999) == ints[i].want);
	}
	for (i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		config_set("T_BOOL", bools[i].value, 0);
		snprintf(label, sizeof(label), "typed: param_bool \"%s\"",
		    bools[i].value);
		CHECK(label, param_bool("T_BOOL", -1) == bools[i].want);
	}
	for (i = 0; i < sizeof(doubles) / sizeof(doubles[0]); i++) {
		config_set("T_DBL", doubles[i].value, 0);
		snprintf(label, sizeof(label), "typed: param_double \"%s\"",
		    doubles[i].value);
		CHECK(label, fabs(param_double("T_DBL", -999) -
		    doubles[i].want) < 1e-9);
	}
	/* Undefined or unparsable: the caller's default. */
	CHECK("typed: int undefined", param_int("T_NONE", 5) == 5);
	CHECK("typed: double undefined", param_double("T_NONE", 2.5) == 2.5);
	CHECK("typed: bool undefined", param_bool("T_NONE", 1) == 1);
	config_set("T_BAD", "not a number at all (", 0);
	CHECK("typed: int bad", param_int("T_BAD", 5) == 5);
	CHECK("typed: double bad", param_double("T_BAD", 2.5) == 2.5);
	CHECK("typed: bool bad", param_bool("T_BAD", 1) == 1);
	config_set("T_BAD", "\"a string\"", 0);
	CHECK("typed: int of a string", param_int("T_BAD", 5) == 5);
	CHECK("typed: bool of a string", param_bool("T_BAD", 0) == 0);
	config_set("T_BAD", "99999999999999999999999", 0);
	CHECK("typed: int overflow", param_int("T_BAD", 5) == 5);
}

/* config_expand, config_raw, config_dump. */
static void
test_expand_dump(void)
{
	char err[512], *s, *text = NULL, *p, *prev, *line;
	const char *file, *main_cf;
	size_t len = 0;
	int lineno, sorted = 1;
	FILE *fp;

	main_cf = tmp_write("dump.cf", "zz_last = $(MINUTE)\n"
	    "AA_FIRST : x > $(MINUTE)\n", 0);
	CHECK("expand: init", init_with(main_cf, err, sizeof(err)) == 0);
	s = config_expand("$(minute)s and $(NO_SUCH)$(NO:d)", err,
	    sizeof(err));
	CHECK_STR("expand: text", s, "60s and d");
	free(s);
	s = config_expand("", err, sizeof(err));
	CHECK_STR("expand: empty text", s, "");
	free(s);
	config_set("R1", "$(R2)", 0);
	config_set("R2", "$(R1)", 0);
	err[0] = '\0';
	s = config_expand("a $(R1) b", err, sizeof(err));
	CHECK("expand: recursion fails", s == NULL);
	CHECK("expand: recursion names the macros",
	    strstr(err, "recursive macro: R1 -> R2 -> R1") != NULL);
	free(s);
	CHECK("expand: param of recursion is NULL", param("R1") == NULL);
	config_set("R2", "fixed", 0);
	CHECK_STR("expand: fixed by redefinition", param("R1"), "fixed");

	CHECK_STR("raw: as written", config_raw("zz_last", &file, &lineno),
	    "$(MINUTE)");
	CHECK_STR("raw: file", file, main_cf);
	CHECK("raw: line", lineno == 1);
	CHECK_STR("raw: table default", config_raw("CPU_Idle", &file,
	    &lineno), "(NonCondorLoadAvg <= $(BackgroundLoad))");
	CHECK("raw: table default has no file", file == NULL);
	CHECK("raw: undefined", config_raw("NO_SUCH", NULL, NULL) == NULL);

	fp = open_memstream(&text, &len);
	config_dump(fp);
	fclose(fp);
	CHECK("dump: expanded macro", strstr(text, "\nzz_last = 60\n") != NULL);
	CHECK("dump: expression", strstr(text, "AA_FIRST : x > 60\n") != NULL);
	CHECK("dump: defaults", strstr(text, "\nMINUTE = 60\n") != NULL);
	CHECK("dump: undefined default left out",
	    strstr(text, "CONSOLE_DEVICES") == NULL);
	prev = NULL;
	for (line = text; line != NULL && *line != '\0'; line = p) {
		p = strchr(line, '\n');
		if (p != NULL)
			*p++ = '\0';
		*strchr(line, ' ') = '\0';
		if (prev != NULL && strcasecmp(prev, line) > 0)
			sorted = 0;
		prev = line;
	}
	CHECK("dump: sorted by name", sorted);
	free(text);
}

/*
 * A personal pool: no file sets CONDOR_HOST or COLLECTOR_HOST.  Its own
 * defaults apply where no file defines the setting; naming the central
 * manager, in the main file or a local one, gives the table's.
 */
static void
test_personal(void)
{
	static const struct {
		const char	*name, *configured, *personal;
	} cases[] = {
		{ "COLLECTOR_HOST", "127.0.0.1:9618", "127.0.0.1:0" },
		{ "START", "(NonCondorLoadAvg <= 0.3) && KeyboardIdle > "
		    "15 * 60", NULL },
		{ "SUSPEND", "(KeyboardIdle < 5) || (NonCondorLoadAvg >= 0.5)",
		    "FALSE" },
		{ "CONTINUE", "(NonCondorLoadAvg <= 0.3) && KeyboardIdle > "
		    "5 * 60", "TRUE" },
		{ "VACATE", "(CurrentTime - EnteredCurrentState) > 5 * 60",
		    "FALSE" },
		{ "KILL", "(CurrentTime - EnteredCurrentState) > 5 * 60",
		    "FALSE" },
	};
	const struct config_default *d;
	struct passwd *pw = getpwuid(getuid());
	char err[512], label[256], *start, *cpus, *local;
	const char *path;
	size_t i;

	start = xasprintf("TARGET.Owner == \"%s\"", pw ? pw->pw_name : "?");
	cpus = xasprintf("%ld", sysconf(_SC_NPROCESSORS_ONLN));
	CHECK("personal: a personal pool has defaults of its own",
	    config_personal_defaults[0].name != NULL);
	for (d = config_personal_defaults; d->name != NULL; d++) {
		snprintf(label, sizeof(label), "personal: %s is in the table "
		    "of the same kind", d->name);
		CHECK(label, table_find(d->name) != NULL &&
		    table_find(d->name)->is_expr == d->is_expr);
	}

	/* No setting at all: a personal pool. */
	CHECK("personal: an empty file", init_with("/dev/null", err,
	    sizeof(err)) == 0);
	CHECK("personal: is a personal pool", config_personal());
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(label, sizeof(label), "personal: %s", cases[i].name);
		CHECK_STR(label, param(cases[i].name), cases[i].personal ?
		    cases[i].personal : start);
		snprintf(label, sizeof(label), "personal: %s kind",
		    cases[i].name);
		CHECK(label, param_is_expr(cases[i].name) ==
		    table_find(cases[i].name)->is_expr);
	}
	CHECK_STR("personal: NUM_CPUS is the machine's cores",
	    param("NUM_CPUS"), cpus);

	/* The release's etc/condor_config keeps it one. */
	CHECK("personal: etc/condor_config", init_with("etc/condor_config",
	    err, sizeof(err)) == 0);
	CHECK("personal: etc/condor_config is a personal pool",
	    config_personal());
	CHECK_STR("personal: etc/condor_config: START", param("START"),
	    start);

	/* A file's own policy wins; the rest stays personal. */
	path = tmp_write("personal_start", "START : TRUE\nDAEMON_LIST = "
	    "MASTER, STARTD\n", 0);
	CHECK("personal: a file setting START", init_with(path, err,
	    sizeof(err)) == 0);
	CHECK("personal: ... is still a personal pool", config_personal());
	CHECK_STR("personal: ... its START", param("START"), "TRUE");
	CHECK_STR("personal: ... SUSPEND the personal one", param("SUSPEND"),
	    "FALSE");

	/* CONDOR_HOST, COLLECTOR_HOST, or either in a local file: a pool
	 * of hosts, with the table's defaults. */
	path = tmp_write("pool_local", "CONDOR_HOST = 127.0.0.1\n", 0);
	local = xasprintf("LOCAL_CONFIG_FILE = %s\n", path);
	{
		const char *files[3];
		size_t f;

		files[0] = tmp_write("pool_cm", "CONDOR_HOST = 127.0.0.1\n", 0);
		files[1] = tmp_write("pool_coll",
		    "COLLECTOR_HOST = 127.0.0.1:9618\n", 0);
		files[2] = tmp_write("pool_main", local, 0);
		for (f = 0; f < 3; f++) {
			snprintf(label, sizeof(label), "pool %zu: reads", f);
			CHECK(label, init_with(files[f], err,
			    sizeof(err)) == 0);
			snprintf(label, sizeof(label), "pool %zu: not a "
			    "personal pool", f);
			CHECK(label, !config_personal());
			for (i = 0; i < sizeof(cases) / sizeof(cases[0]);
			    i++) {
				snprintf(label, sizeof(label), "pool %zu: %s",
				    f, cases[i].name);
				CHECK_STR(label, param(cases[i].name),
				    cases[i].configured);
			}
		}
	}
	free(local);
	free(start);
	free(cpus);
}

/* etc/condor_config says exactly what the table says. */
static void
test_etc(void)
{
	const struct config_default *d;
	char err[512], label[256], *etc, *dump, *p, *q, *name;
	const char *raw, *file, **values;
	size_t i, n;
	int line;

	etc = slurp("etc/condor_config");
	CHECK("etc: etc/condor_config exists", etc != NULL);
	if (etc == NULL)
		return;
	CHECK("etc: reads without error",
	    init_with("etc/condor_config", err, sizeof(err)) == 0);
	for (n = 0; config_defaults[n].name != NULL; n++)
		continue;
	values = xcalloc(n, sizeof(*values));
	for (i = 0; i < n; i++) {
		d = &config_defaults[i];
		raw = config_raw(d->name, &file, &line);
		values[i] = param(d->name) ? xstrdup(param(d->name)) : NULL;
		snprintf(label, sizeof(label), "etc: documents %s", d->name);
		CHECK(label, has_word(etc, d->name));
		if (d->value == NULL || personal_find(d->name) != NULL ||
		    strcasecmp(d->name, "CONDOR_HOST") == 0) {
			/* Computed at run time, or a personal pool's own
			 * (which setting CONDOR_HOST would end): shown
			 * commented out. */
			snprintf(label, sizeof(label),
			    "etc: leaves %s to its computed default", d->name);
			CHECK(label, file == NULL);
			continue;
		}
		snprintf(label, sizeof(label), "etc: sets %s", d->name);
		CHECK(label, file != NULL);
		snprintf(label, sizeof(label), "etc: %s as in the table",
		    d->name);
		CHECK_STR(label, raw, d->value);
		snprintf(label, sizeof(label), "etc: %s kind as in the table",
		    d->name);
		CHECK(label, param_is_expr(d->name) == d->is_expr);
	}

	/* Every name etc/condor_config uses, set or commented out, is in
	 * the table and in -dump-defaults. */
	dump = dump_defaults_text();
	for (p = etc; p != NULL && *p != '\0'; p = q) {
		q = strchr(p, '\n');
		if (q != NULL)
			*q++ = '\0';
		if (*p == '#')
			p++;
		name = p;
		while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
			p++;
		if (p == name || (strncmp(p, " = ", 3) != 0 &&
		    strncmp(p, " : ", 3) != 0))
			continue;
		*p = '\0';
		snprintf(label, sizeof(label), "etc: %s is in the table", name);
		CHECK(label, table_find(name) != NULL);
		{
			char *needle = xasprintf("\n%s ", name);

			snprintf(label, sizeof(label),
			    "etc: %s is in -dump-defaults", name);
			CHECK(label, strstr(dump, needle) != NULL);
			free(needle);
		}
	}
	free(dump);
	free(etc);

	/* And loading it changes nothing. */
	CHECK("etc: defaults alone",
	    init_with("/dev/null", err, sizeof(err)) == 0);
	for (i = 0; i < n; i++) {
		const char *v = param(config_defaults[i].name);

		snprintf(label, sizeof(label), "etc: %s same as without it",
		    config_defaults[i].name);
		CHECK(label, (v == NULL && values[i] == NULL) ||
		    (v != NULL && values[i] != NULL &&
		    strcmp(v, values[i]) == 0));
		free((char *)values[i]);
	}
	free(values);
}

/* -dump-defaults prints every row. */
static void
test_dump_defaults(void)
{
	const struct config_default *d;
	char *dump, *needle, label[256];

	dump = dump_defaults_text();
	for (d = config_defaults; d->name != NULL; d++) {
		needle = xasprintf("\n%s %c ", d->name, d->is_expr ? ':' : '=');
		snprintf(label, sizeof(label), "dump-defaults: %s", d->name);
		CHECK(label, strstr(dump, needle) != NULL);
		free(needle);
	}
	CHECK("dump-defaults: shows meanings",
	    strstr(dump, "# may a foreign job start") != NULL);
	CHECK("dump-defaults: MINUTE", strstr(dump, "\nMINUTE = 60  # ") !=
	    NULL);
	CHECK("dump-defaults: a personal pool's own",
	    strstr(dump, "\n# A personal pool ") != NULL &&
	    strstr(dump, "\n#   SUSPEND : FALSE  # ") != NULL);
	free(dump);
}

/* condor_config(5) describes every setting; condor_config_val(1) exists. */
static void
test_man(void)
{
	const struct config_default *d;
	char *man, label[256];

	man = slurp("man/man5/condor_config.5");
	CHECK("man: man/man5/condor_config.5 exists", man != NULL);
	if (man != NULL) {
		for (d = config_defaults; d->name != NULL; d++) {
			snprintf(label, sizeof(label), "man: condor_config(5) "
			    "describes %s", d->name);
			CHECK(label, has_word(man, d->name));
		}
		CHECK("man: search order", strstr(man, "CONDOR_CONFIG") &&
		    strstr(man, "/etc/condor/condor_config"));
		CHECK("man: expressions", has_word(man, "UNDEFINED") &&
		    strstr(man, "TARGET.") != NULL);
		free(man);
	}
	man = slurp("man/man1/condor_config_val.1");
	CHECK("man: man/man1/condor_config_val.1 exists", man != NULL);
	if (man != NULL) {
		CHECK("man: condor_config_val options",
		    strstr(man, "dump\\-defaults") != NULL &&
		    strstr(man, "config") != NULL);
		free(man);
	}
}

/* Remove, in place, the line of TEXT that starts with PREFIX. */
static char *
skip_line(char *text, const char *prefix)
{
	char *p, *end;

	for (p = text; p != NULL && *p != '\0'; p = end) {
		end = strchr(p, '\n');
		end = end != NULL ? end + 1 : p + strlen(p);
		if (strncmp(p, prefix, strlen(prefix)) == 0) {
			memmove(p, end, strlen(end) + 1);
			break;
		}
	}
	return text;
}

/* The command, when it has been built (make check builds it first). */
static void
test_tool(void)
{
	char *cmd, *out, *errout, *want;
	const char *main_cf, *o, *e;
	int st;

	if (access("bin/condor_config_val", X_OK) != 0) {
		CHECK("tool: bin/condor_config_val is built", 0);
		return;
	}
	main_cf = tmp_write("tool.cf", "MINUTE = 2\nTOOL_X : a > $(MINUTE)\n",
	    0);
	o = tmp_write("tool.out", "", 0);
	e = tmp_write("tool.err", "", 0);
	cmd = xasprintf("CONDOR_CONFIG=%s bin/condor_config_val minute "
	    "TOOL_X StartIdleTime >%s 2>%s", main_cf, o, e);
	st = system(cmd);
	free(cmd);
	out = slurp(o);
	CHECK("tool: values exit 0", WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_STR("tool: values", out, "2\na > 2\n15 * 2\n");
	free(out);

	cmd = xasprintf("CONDOR_CONFIG=%s bin/condor_config_val MINUTE "
	    "NO_SUCH_NAME >%s 2>%s", main_cf, o, e);
	st = system(cmd);
	free(cmd);
	out = slurp(o);
	errout = slurp(e);
	CHECK("tool: undefined exits 1", WIFEXITED(st) &&
	    WEXITSTATUS(st) == 1);
	CHECK_STR("tool: defined one still printed", out, "2\n");
	CHECK_STR("tool: undefined message", errout,
	    "condor_config_val: NO_SUCH_NAME is not defined\n");
	free(out);
	free(errout);

	cmd = xasprintf("CONDOR_CONFIG=%s bin/condor_config_val -config "
	    ">%s 2>%s", main_cf, o, e);
	st = system(cmd);
	free(cmd);
	out = slurp(o);
	CHECK("tool: -config exits 0", WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK("tool: -config names the file", out && strstr(out, main_cf));
	free(out);

	cmd = xasprintf("CONDOR_CONFIG=%s bin/condor_config_val -dump "
	    ">%s 2>%s", main_cf, o, e);
	st = system(cmd);
	free(cmd);
	out = slurp(o);
	CHECK("tool: -dump exits 0", WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK("tool: -dump", out && strstr(out, "\nTOOL_X : a > 2\n"));
	free(out);

	cmd = xasprintf("bin/condor_config_val -dump-defaults >%s 2>%s", o, e);
	st = system(cmd);
	free(cmd);
	out = slurp(o);
	want = dump_defaults_text();
	CHECK("tool: -dump-defaults exits 0", WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0);
	/* The same table; only RELEASE_DIR, computed from the running
	 * program, may differ. */
	CHECK("tool: -dump-defaults prints the table",
	    out && strcmp(skip_line(out, "RELEASE_DIR "),
	    skip_line(want + 1, "RELEASE_DIR ")) == 0);
	free(out);
	free(want);

	cmd = xasprintf("CONDOR_CONFIG=%s/missing bin/condor_config_val "
	    "MINUTE >%s 2>%s", tmpdir, o, e);
	st = system(cmd);
	free(cmd);
	errout = slurp(e);
	CHECK("tool: bad configuration exits 1", WIFEXITED(st) &&
	    WEXITSTATUS(st) == 1);
	CHECK("tool: bad configuration message", errout &&
	    strncmp(errout, "condor_config_val: ", 19) == 0);
	free(errout);

	cmd = xasprintf("bin/condor_config_val >%s 2>%s", o, e);
	st = system(cmd);
	free(cmd);
	errout = slurp(e);
	CHECK("tool: no argument is a usage error", WIFEXITED(st) &&
	    WEXITSTATUS(st) == 1 && errout && strstr(errout, "usage"));
	free(errout);
}

int
main(int argc, char **argv)
{
	char tmpl[] = "/tmp/config_test.XXXXXX";

	if (argc > 1 && strcmp(argv[1], "--probe") == 0)
		return probe_main();
	log_init(argv[0]);
	if (mkdtemp(tmpl) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(tmpdir, sizeof(tmpdir), "%s", tmpl);
	/* LOCAL_DIR defaults to $(HOME)/.condor: keep the user's out. */
	setenv("HOME", tmpdir, 1);
	unsetenv("CONDOR_CONFIG");

	test_table();
	test_defaults();
	test_syntax();
	test_errors();
	test_bad_expression();
	test_search();
	test_search_release();
	test_lazy();
	test_typed();
	test_expand_dump();
	test_etc();
	test_personal();
	test_dump_defaults();
	test_man();
	test_tool();

	tmp_cleanup();
	TEST_EXIT();
}
