/*
 * submit_attrs.c: the keywords whose attributes take more than a few
 * lines to build: amounts, accounting, file transfer, requests, and
 * HTCondor's flags and limits.
 */
#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "buf.h"
#include "expr.h"
#include "submit_int.h"
#include "xfer.h"
#include "xalloc.h"

/*
 * Keyword KW of KV, if given, as the integer attribute NAME: its text
 * converted by CONV (-1 for a bad one, which is an error naming WHAT it
 * must be).  0, or -1.
 */
int
sub_put_amount(struct parser *p, struct jattrs *j, const struct kval *kv,
    int kw, const char *name, long long (*conv)(const char *), const char *what)
{
	const struct kval *k = &kv[kw];
	char buf[80];
	long long v;

	if (k->text == NULL || *k->text == '\0')
		return 0;
	if ((v = conv(k->text)) <= 0) {
		sub_perr(p, k->line, "%s must be %s, not \"%s\"",
		    sub_kw_names[kw],
		    what, sub_shown(k->text, buf, sizeof(buf)));
		return -1;
	}
	return sub_put_int(p, j, name, v, k->deps, k->line);
}

/*
 * Who waits and who is counted: nice_user (NiceUser: the job runs only
 * on machines no other job wants, and leaves for any), accounting_group
 * and accounting_group_user (AcctGroup, AcctGroupUser and
 * AccountingGroup "GROUP.USER", which the negotiator's GROUP_QUOTA_
 * settings count; the user is the submitter unless named).
 */
int
sub_put_accounting(struct parser *p, struct kval *kv, struct jattrs *j,
    int first)
{
	struct kval *k = &kv[KW_NICE_USER], *g = &kv[KW_ACCOUNTING_GROUP];
	struct kval *u = &kv[KW_ACCOUNTING_GROUP_USER];
	struct passwd *pw;
	const char *user;
	char *both;
	int on;

	if (k->text != NULL && WANT(k->deps)) {
		if (sub_parse_bool(k->text, &on) == -1) {
			sub_perr(p, k->line,
			    "nice_user must be true or false, not "
			    "\"%.40s\"", k->text);
			return -1;
		}
		if (sub_jattrs_put(p, j, "NiceUser", xstrdup(on ? "true" :
		    "false"), k->deps, k->line) == -1)
			return -1;
	}
	if (u->text != NULL && g->text == NULL) {
		sub_perr(p, u->line, "accounting_group_user needs an "
		    "accounting_group");
		return -1;
	}
	if (g->text == NULL || !(WANT(g->deps) || (u->text != NULL &&
	    WANT(u->deps))))
		return 0;
	if (!sub_acct_name_ok(g->text, 1)) {
		sub_perr(p, g->line,
		    "accounting_group \"%.40s\" is not a group "
		    "name (letters, digits, '_', '-', parts joined by '.')",
		    g->text);
		return -1;
	}
	if (u->text != NULL) {
		if (!sub_acct_name_ok(u->text, 0)) {
			sub_perr(p, u->line,
			    "accounting_group_user \"%.40s\" is "
			    "not a user name", u->text);
			return -1;
		}
		user = u->text;
	} else if ((pw = getpwuid(getuid())) != NULL &&
	    sub_acct_name_ok(pw->pw_name, 0))
		user = pw->pw_name;
	else
		user = "unknown";
	if (sub_put_string(p, j, "AcctGroup", g->text, g->deps | u->deps,
	    g->line) == -1 || sub_put_string(p, j, "AcctGroupUser", user,
	    g->deps | u->deps, g->line) == -1)
		return -1;
	both = xasprintf("%s.%s", g->text, user);
	on = sub_put_string(p, j, "AccountingGroup", both, g->deps | u->deps,
	    g->line);
	free(both);
	return on;
}

/*
 * The files that travel with a vanilla job: ShouldTransferFiles (YES,
 * NO or IF_NEEDED; a job here never shares a file system with its
 * machine, so IF_NEEDED transfers), WhenToTransferOutput (ON_EXIT or
 * ON_EXIT_OR_EVICT), TransferInput, TransferOutput and
 * TransferOutputRemaps, each list checked here so that a bad one is
 * refused at its line rather than when the job runs.  A standard job's
 * files stay on this host (remote system calls): it may not name any.
 */
int
sub_put_transfer(struct parser *p, struct jattrs *j, struct kval *kv,
    int first, int standard, const char *iwd, int deps_iwd)
{
	static const char *should[] = { "YES", "NO", "IF_NEEDED", NULL };
	static const char *when[] = { "ON_EXIT", "ON_EXIT_OR_EVICT", NULL };
	struct xfer_remap *rm;
	struct kval *k;
	char **items, *path, shownbuf[64], why[256];
	const char *sv = "IF_NEEDED", *wv = "ON_EXIT";
	size_t n, i, nrm;
	int d, on = 1, rc = -1;

	/* HTCondor runs a program of the execute machine's under
	 * transfer_executable = false; here the program always travels
	 * (the same program, wherever it lives on both). */
	k = &kv[KW_TRANSFER_EXECUTABLE];
	if (k->text != NULL && WANT(k->deps)) {
		if (sub_parse_bool(k->text, &on) == -1) {
			sub_perr(p, k->line, "transfer_executable must be true "
			    "or false, not \"%.40s\"", k->text);
			return -1;
		}
		if (!on)
			sub_pwarn(p, k->line, "transfer_executable = false is "
			    "not honoured here: the executable is sent with "
			    "the job, not looked for on the execute machine");
	}
	k = &kv[KW_SHOULD_TRANSFER_FILES];
	if (k->text != NULL) {
		for (i = 0; should[i] != NULL; i++)
			if (strcasecmp(k->text, should[i]) == 0)
				break;
		if (should[i] == NULL) {
			sub_perr(p, k->line,
			    "should_transfer_files must be YES, "
			    "NO or IF_NEEDED, not \"%s\"",
			    sub_shown(k->text, shownbuf, sizeof(shownbuf)));
			return -1;
		}
		sv = should[i];
	}
	k = &kv[KW_WHEN_TO_TRANSFER_OUTPUT];
	if (k->text != NULL) {
		for (i = 0; when[i] != NULL; i++)
			if (strcasecmp(k->text, when[i]) == 0)
				break;
		if (when[i] == NULL) {
			sub_perr(p, k->line, "when_to_transfer_output must be "
			    "ON_EXIT or ON_EXIT_OR_EVICT, not \"%s\"",
			    sub_shown(k->text, shownbuf, sizeof(shownbuf)));
			return -1;
		}
		wv = when[i];
	}
	for (i = KW_TRANSFER_INPUT_FILES; i <= KW_TRANSFER_OUTPUT_REMAPS;
	    i++) {
		k = &kv[i];
		if (k->text == NULL || *k->text == '\0')
			continue;
		if (standard) {
			sub_perr(p, k->line,
			    "%s is for vanilla jobs: a standard "
			    "job reads and writes its files on this host",
			    sub_kw_names[i]);
			return -1;
		}
		if (strcmp(sv, "NO") == 0) {
			sub_perr(p, k->line,
			    "%s with should_transfer_files = NO",
			    sub_kw_names[i]);
			return -1;
		}
	}
	if (standard)
		return 0;
	if (strcmp(sv, "NO") == 0 && strcmp(wv, "ON_EXIT_OR_EVICT") == 0) {
		sub_perr(p, kv[KW_WHEN_TO_TRANSFER_OUTPUT].line,
		    "when_to_transfer_output = ON_EXIT_OR_EVICT with "
		    "should_transfer_files = NO");
		return -1;
	}
	k = &kv[KW_SHOULD_TRANSFER_FILES];
	if (WANT(k->deps) && sub_put_string(p, j, "ShouldTransferFiles", sv,
	    k->deps, k->text ? k->line : 0) == -1)
		return -1;
	k = &kv[KW_WHEN_TO_TRANSFER_OUTPUT];
	if (WANT(k->deps) && sub_put_string(p, j, "WhenToTransferOutput", wv,
	    k->deps, k->text ? k->line : 0) == -1)
		return -1;

	/* Inputs: relative to Iwd; one missing now is a warning, as for
	 * input (the job is held if it is still missing when it starts). */
	k = &kv[KW_TRANSFER_INPUT_FILES];
	d = k->deps | deps_iwd;
	if (k->text != NULL && *k->text != '\0' && WANT(d)) {
		struct buf b;

		items = xfer_list_split(k->text, &n);
		buf_init(&b);
		for (i = 0; i < n; i++) {
			const char *item = items[i];

			/* A file: URL is a file of this host; another URL
			 * cannot be fetched here (HTCondor's plugins do), and
			 * a job without its input would fail where it runs:
			 * refused now, naming it. */
			if (strncasecmp(item, "file://", 7) == 0 &&
			    item[7] == '/')
				item += 7;
			else if (strstr(item, "://") != NULL) {
				sub_perr(p, k->line, "transfer_input_files: "
				    "%s cannot be fetched: only files of this "
				    "host are transferred here, not URLs",
				    sub_shown(item, shownbuf,
				    sizeof(shownbuf)));
				buf_free(&b);
				xfer_list_free(items, n);
				return -1;
			}
			path = sub_path_join(iwd, item);
			if (p->env->check_files &&
			    strstr(path, SUBMIT_CLUSTER_MACRO) == NULL &&
			    strstr(path, "$$(") == NULL &&
			    access(path, R_OK) == -1)
				sub_pwarn(p, k->line,
				    "transfer input file %s: %s "
				    "(the job is held if it is still missing "
				    "when it starts)", path, strerror(errno));
			free(path);
			buf_printf(&b, "%s%s", b.len ? "," : "", item);
		}
		rc = sub_put_string(p, j, "TransferInput", b.data ? b.data : "",
		    d, k->line);
		buf_free(&b);
		xfer_list_free(items, n);
		if (rc == -1)
			return -1;
		rc = -1;
	}
	k = &kv[KW_TRANSFER_OUTPUT_FILES];
	if (k->text != NULL && *k->text != '\0' && WANT(k->deps)) {
		struct buf b;
		char *name;

		items = xfer_list_split(k->text, &n);
		buf_init(&b);
		for (i = 0; i < n; i++) {
			name = items[i];
			while (name[0] == '.' && name[1] == '/')
				name += 2;
			if (!xfer_name_ok(name)) {
				sub_perr(p, k->line, "transfer_output_files: "
				    "\"%s\" is not a relative path inside the "
				    "job's directory", sub_shown(items[i],
				    shownbuf, sizeof(shownbuf)));
				goto out_out;
			}
			buf_printf(&b, "%s%s", i ? "," : "", name);
		}
		rc = sub_put_string(p, j, "TransferOutput",
		    b.data ? b.data : "", k->deps, k->line);
out_out:
		buf_free(&b);
		xfer_list_free(items, n);
		if (rc == -1)
			return -1;
		rc = -1;
	}
	k = &kv[KW_TRANSFER_OUTPUT_REMAPS];
	if (k->text != NULL && *k->text != '\0' && WANT(k->deps)) {
		struct buf b;

		if (xfer_remaps_parse(k->text, &rm, &nrm, why,
		    sizeof(why)) == -1) {
			sub_perr(p, k->line, "transfer_output_remaps: %s", why);
			return -1;
		}
		buf_init(&b);
		for (i = 0; i < nrm; i++)
			buf_printf(&b, "%s%s=%s", i ? ";" : "", rm[i].name,
			    rm[i].to);
		xfer_remaps_free(rm, nrm);
		rc = sub_put_string(p, j, "TransferOutputRemaps", b.data ?
		    b.data : "", k->deps, k->line);
		buf_free(&b);
		if (rc == -1)
			return -1;
	}
	return 0;
}

/*
 * A request (request_memory, request_disk, request_cpus) that is not an
 * amount: HTCondor's requests may be expressions, evaluated against the
 * machine when the job is matched ("ifThenElse(MemoryUsage =!=
 * undefined, MemoryUsage * 3 / 2, 1024)"), stored as written.  TEXT must
 * parse; one that names no attribute must still come to a positive
 * number (stored as one), and a lone word is taken for a mistyped
 * amount.  Into J as NAME; -1 (the error recorded, saying WHAT the
 * request must be, CONV converting an amount) if neither.
 */
static int
put_request_expr(struct parser *p, struct jattrs *j, const struct kval *k,
    int kw, const char *name, long long (*conv)(const char *),
    const char *what)
{
	char err[256], shownbuf[80];
	struct expr *e;
	struct value v;
	struct buf refs;
	const char *s;
	int lone = 1;

	for (s = k->text; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			lone = 0;
	if (lone || (e = expr_parse(k->text, err, sizeof(err))) == NULL) {
		sub_perr(p, k->line, "%s must be %s, or an expression, not "
		    "\"%s\"", sub_kw_names[kw], what, sub_shown(k->text,
		    shownbuf, sizeof(shownbuf)));
		return -1;
	}
	buf_init(&refs);
	expr_references(e, &refs);
	if (refs.len > 0) {
		buf_free(&refs);
		expr_free(e);
		return sub_jattrs_put(p, j, name, xstrdup(k->text), k->deps,
		    k->line);
	}
	buf_free(&refs);
	expr_eval(e, NULL, NULL, &v);
	expr_free(e);
	/* A constant: what it comes to must be an amount. */
	if (v.type == VAL_INT || v.type == VAL_REAL) {
		char num[64];
		long long n;

		if (v.type == VAL_INT)
			snprintf(num, sizeof(num), "%lld", v.u.i);
		else
			snprintf(num, sizeof(num), "%.17g", v.u.r);
		if ((n = conv(num)) > 0) {
			value_free(&v);
			return sub_put_int(p, j, name, n, k->deps, k->line);
		}
	}
	value_free(&v);
	sub_perr(p, k->line, "%s must be %s, or an expression giving one, not "
	    "\"%s\"", sub_kw_names[kw], what, sub_shown(k->text, shownbuf,
	    sizeof(shownbuf)));
	return -1;
}

/*
 * The requests: RequestMemory (MB), RequestDisk (KB) and RequestCpus,
 * each an amount with its units, or an expression (put_request_expr).
 */
int
sub_put_requests(struct parser *p, struct jattrs *j, struct kval *kv,
    int first)
{
	static const struct {
		int		 kw;
		const char	*attr;
		long long	(*conv)(const char *);
		const char	*what;
	} req[] = {
		{ KW_REQUEST_MEMORY, "RequestMemory", sub_memory_mb,
		  "a positive amount of memory (MB, or with KB, MB, GB "
		  "or TB)" },
		{ KW_REQUEST_CPUS, "RequestCpus", sub_cpus,
		  "a whole number of cores, 1 or more" },
		{ KW_REQUEST_DISK, "RequestDisk", sub_disk_kb,
		  "a positive amount of disk (KB, or with KB, MB, GB or TB)" },
	};
	const struct kval *k;
	long long v;
	size_t i;

	for (i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
		k = &kv[req[i].kw];
		if (k->text == NULL || *k->text == '\0' || !WANT(k->deps))
			continue;
		if ((v = req[i].conv(k->text)) > 0) {
			if (sub_put_int(p, j, req[i].attr, v, k->deps,
			    k->line) == -1)
				return -1;
		} else if (put_request_expr(p, j, k, req[i].kw, req[i].attr,
		    req[i].conv, req[i].what) == -1)
			return -1;
	}
	return 0;
}

/* A boolean keyword, if given, as the attribute NAME. */
static int
put_bool(struct parser *p, struct jattrs *j, const struct kval *k, int kw,
    const char *name, int *on)
{
	*on = 0;
	if (k->text == NULL)
		return 0;
	if (sub_parse_bool(k->text, on) == -1) {
		sub_perr(p, k->line, "%s must be true or false, not \"%.40s\"",
		    sub_kw_names[kw], k->text);
		return -1;
	}
	return sub_jattrs_put(p, j, name, xstrdup(*on ? "true" : "false"),
	    k->deps, k->line);
}

/* A whole number of jobs, 1 or more; -1 if TEXT is not one. */
static long long
jobs(const char *text)
{
	long long v;

	return sub_parse_long(text, &v) == -1 || v < 1 ||
	    v > SUBMIT_MAX_PROCS ? -1 : v;
}

/*
 * HTCondor's keywords that set a flag or a limit: hold (the job is
 * queued held: JobStatus 5, with HTCondor's code and reason for it),
 * stream_output and stream_error (StreamOut, StreamErr: the job's
 * output comes back while it runs), max_materialize and max_idle (how
 * many of the cluster's jobs are in the queue at once, or idle at
 * once: JobMaterializeLimit, JobMaterializeMaxIdle), description
 * (JobDescription).
 */
int
sub_put_extras(struct parser *p, struct jattrs *j, struct kval *kv,
    int first)
{
	struct kval *k = &kv[KW_HOLD];
	int on;

	if (k->text != NULL && WANT(k->deps)) {
		if (sub_parse_bool(k->text, &on) == -1) {
			sub_perr(p, k->line, "hold must be true or false, not "
			    "\"%.40s\"", k->text);
			return -1;
		}
		if (on && (sub_put_int(p, j, "JobStatus", 5, k->deps,
		    k->line) == -1 || sub_put_int(p, j, "HoldReasonCode", 15,
		    k->deps, k->line) == -1 || sub_put_int(p, j,
		    "HoldReasonSubCode", 0, k->deps, k->line) == -1 ||
		    sub_put_string(p, j, "HoldReason", "submitted on hold at "
		    "user's request", k->deps, k->line) == -1))
			return -1;
	}
	k = &kv[KW_STREAM_OUTPUT];
	if (WANT(k->deps) && put_bool(p, j, k, KW_STREAM_OUTPUT, "StreamOut",
	    &on) == -1)
		return -1;
	k = &kv[KW_STREAM_ERROR];
	if (WANT(k->deps) && put_bool(p, j, k, KW_STREAM_ERROR, "StreamErr",
	    &on) == -1)
		return -1;
	/* What the job is, in words (HTCondor's JobDescription). */
	k = &kv[KW_DESCRIPTION];
	if (k->text != NULL && WANT(k->deps)) {
		size_t n = strlen(k->text);
		char *d = n >= 2 && k->text[0] == '"' && k->text[n - 1] == '"' ?
		    xstrndup(k->text + 1, n - 2) : xstrdup(k->text);

		on = sub_put_string(p, j, "JobDescription", d, k->deps,
		    k->line);
		free(d);
		if (on == -1)
			return -1;
	}
	if (WANT(kv[KW_MAX_MATERIALIZE].deps) && sub_put_amount(p, j, kv,
	    KW_MAX_MATERIALIZE, "JobMaterializeLimit", jobs,
	    "a whole number of jobs, 1 or more") == -1)
		return -1;
	if (WANT(kv[KW_MAX_IDLE].deps) && sub_put_amount(p, j, kv,
	    KW_MAX_IDLE, "JobMaterializeMaxIdle", jobs,
	    "a whole number of jobs, 1 or more") == -1)
		return -1;
	return 0;
}
