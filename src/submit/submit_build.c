/*
 * submit_build.c: a proc's job attributes, built from its keywords'
 * expanded values: universe, executable, files, environment,
 * requirements, policies, requests, and the custom attributes.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "machine.h"
#include "submit_int.h"
#include "xalloc.h"

#define PRIO_MIN	(-20)
#define PRIO_MAX	20

void
sub_jattrs_free(struct jattrs *j)
{
	size_t i;

	for (i = 0; i < j->n; i++) {
		free(j->a[i].name);
		free(j->a[i].text);
	}
	free(j->a);
	memset(j, 0, sizeof(*j));
}

/*
 * Set NAME to TEXT (taken over).  Custom attributes (CUSTOM) may replace
 * an earlier NAME; the built-in ones are set once each.
 */
static int
jattrs_set(struct parser *p, struct jattrs *j, const char *name, char *text,
    int deps, int line, int custom)
{
	size_t i;

	if (strlen(text) > AD_MAX_TEXT) {
		sub_perr(p, line, "the value of %s is longer than %d bytes",
		    name, AD_MAX_TEXT);
		free(text);
		return -1;
	}
	for (i = 0; custom && i < j->n; i++)
		if (strcasecmp(j->a[i].name, name) == 0) {
			free(j->a[i].text);
			j->a[i].text = text;
			j->a[i].deps = deps;
			return 0;
		}
	if (j->n == j->cap) {
		j->cap = j->cap ? j->cap * 2 : 32;
		j->a = xreallocarray(j->a, j->cap, sizeof(*j->a));
	}
	j->a[j->n].name = xstrdup(name);
	j->a[j->n].text = text;
	j->a[j->n].deps = deps;
	j->n++;
	return 0;
}

int
sub_jattrs_put(struct parser *p, struct jattrs *j, const char *name, char *text,
    int deps, int line)
{
	return jattrs_set(p, j, name, text, deps, line, 0);
}

static char *
quote(const char *s)
{
	struct value v;
	struct buf b;

	v.type = VAL_STRING;
	v.u.s = (char *)s;
	buf_init(&b);
	value_print(&v, &b);
	return buf_take(&b);
}

int
sub_put_string(struct parser *p, struct jattrs *j, const char *name,
    const char *s, int deps, int line)
{
	return sub_jattrs_put(p, j, name, quote(s), deps, line);
}

int
sub_put_int(struct parser *p, struct jattrs *j, const char *name, long long v,
    int deps, int line)
{
	return sub_jattrs_put(p, j, name, xasprintf("%lld", v), deps, line);
}

/*
 * build: the attributes of proc PROC from the expanded keyword values KV
 * and custom values CV (NCV of them, named CNAMES) into J.  FIRST: the
 * statement's first proc, build everything; otherwise only what depends
 * on $(Process).  QLINE is the queue statement's line.
 */
int
sub_build(struct parser *p, struct kval *kv, struct kval *cv, char **cnames,
    size_t ncv, size_t proc, int first, int qline, struct jattrs *j)
{
	struct kval *k;
	struct expr *tree = NULL;
	struct buf b, refs;
	char *iwd = NULL, *path, shownbuf[64];
	const char *s;
	long long v, kib = 1, image_kib = 0;
	int d, standard, getenv_on = 0, i, rc = -1;
	int universe = 1;	/* JobUniverse: 1, 5, 7 or 12 */
	const char *uname;
	char *env = NULL;
	const char *only;
	size_t c;

	(void)proc;
	buf_init(&b);
	buf_init(&refs);

	/* Universe and executable first: the rest depends on them. */
	if (sub_build_program(p, kv, first, qline, j, &universe, &kib) == -1)
		goto out;
	standard = universe == 1;
	uname = universe == 1 ? "standard" : universe == 5 ? "vanilla" :
	    universe == 7 ? "scheduler" : "local";

	k = &kv[KW_ARGUMENTS];
	if (WANT(k->deps)) {
		char *args = k->text != NULL && sub_is_new_style(k->text) ?
		    sub_args_from_new_style(p, k->text, k->line) :
		    xstrdup(k->text ? k->text : "");

		if (args == NULL || sub_put_string(p, j, "Args", args, k->deps,
		    k->line) == -1) {
			free(args);
			goto out;
		}
		free(args);
	}

	/* Initialdir, and the files relative to it. */
	k = &kv[KW_INITIALDIR];
	d = k->deps;
	iwd = k->text && *k->text ? sub_path_join(p->cwd, k->text) :
	    xstrdup(p->cwd);
	if (WANT(d)) {
		if (sub_check_dir(p, iwd, k->line) == -1)
			goto out;
		if (sub_put_string(p, j, "Iwd", iwd, d, k->line) == -1)
			goto out;
	}
	for (i = KW_INPUT; i <= KW_LOG; i++) {
		static const char *attr[] = { "In", "Out", "Err", "UserLog" };
		int r;

		k = &kv[i];
		if (!WANT(k->deps | d))
			continue;
		if (k->text != NULL && *k->text != '\0')
			s = k->text;
		else if (i == KW_LOG)
			continue;	/* no log unless asked for */
		else
			s = "/dev/null";
		path = sub_path_join(iwd, s);
		if (i == KW_INPUT && p->env->check_files &&
		    strcmp(path, "/dev/null") != 0 &&
		    strstr(path, SUBMIT_CLUSTER_MACRO) == NULL &&
		    strstr(path, "$$(") == NULL && access(path, R_OK) == -1)
			sub_pwarn(p, k->line,
			    "input file %s: %s (the job is held "
			    "if it is still missing when it starts)", path,
			    strerror(errno));
		r = sub_put_string(p, j, attr[i - KW_INPUT], path, k->deps | d,
		    k->text ? k->line : qline);
		free(path);
		if (r == -1)
			goto out;
	}
	k = &kv[KW_ROOTDIR];
	if (WANT(k->deps)) {
		s = k->text && *k->text ? k->text : "/";
		if (s[0] != '/') {
			sub_perr(p, k->line,
			    "rootdir must be an absolute path");
			goto out;
		}
		if (sub_put_string(p, j, "RootDir", s, k->deps, k->line) == -1)
			goto out;
	}

	/* Environment, with the submitter's under getenv = true. */
	d = kv[KW_ENVIRONMENT].deps | kv[KW_GETENV].deps;
	if (WANT(d)) {
		k = &kv[KW_GETENV];
		only = NULL;
		if (k->text != NULL && sub_parse_bool(k->text,
		    &getenv_on) == -1) {
			/* HTCondor's list: the variables the patterns name. */
			getenv_on = 1;
			only = k->text;
		}
		buf_reset(&b);
		k = &kv[KW_ENVIRONMENT];
		if (k->text != NULL &&
		    (env = sub_env_canonical(p, k->text, k->line)) == NULL)
			goto out;
		if (getenv_on)
			sub_env_add_getenv(p, env, only, kv[KW_GETENV].line,
			    &b);
		if (env != NULL && sub_env_add_list(p, env, k->line, &b) == -1)
			goto out;
		if (sub_put_string(p, j, "Env", b.data, d, k->text ? k->line :
		    kv[KW_GETENV].line) == -1)
			goto out;
	}

	k = &kv[KW_UNIVERSE];
	if (WANT(k->deps)) {
		sub_put_string(p, j, "Universe", uname, k->deps, k->line);
		sub_put_int(p, j, "JobUniverse", universe, k->deps, k->line);
	}

	/*
	 * Requirements: the user's, plus what every job needs and the user
	 * did not say otherwise: the submitting machine's architecture and
	 * system, and room on the execute disk.
	 */
	k = &kv[KW_REQUIREMENTS];
	if (WANT(k->deps)) {
		buf_reset(&b);
		if (k->text != NULL && *k->text != '\0') {
			if (sub_check_expr(p, "requirements", k->text, k->line,
			    &tree) == -1)
				goto out;
			expr_references(tree, &refs);
			expr_free(tree);
			buf_printf(&b, "(%s)", k->text);
		}
		if (p->arch[0] == '\0') {
			machine_arch(p->arch, sizeof(p->arch));
			machine_opsys(p->opsys, sizeof(p->opsys));
		}
		if (!sub_refs_name(refs.data, "Arch"))
			buf_printf(&b, "%s(Arch == \"%s\")",
			    b.len ? " && " : "", p->arch);
		if (!sub_refs_name(refs.data, "OpSys"))
			buf_printf(&b, "%s(OpSys == \"%s\")",
			    b.len ? " && " : "", p->opsys);
		/* What the job requests, as HTCondor joins it. */
		if (!sub_refs_name(refs.data, "Disk"))
			buf_printf(&b, "%s(TARGET.Disk >= %s)",
			    b.len ? " && " : "", kv[KW_REQUEST_DISK].text ?
			    "RequestDisk" : "ImageSize");
		if ((kv[KW_REQUEST_MEMORY].text != NULL ||
		    kv[KW_IMAGE_SIZE].text != NULL) &&
		    !sub_refs_name(refs.data, "Memory"))
			buf_printf(&b, " && (TARGET.Memory >= RequestMemory)");
		if (kv[KW_REQUEST_CPUS].text != NULL &&
		    !sub_refs_name(refs.data, "Cpus"))
			buf_printf(&b, " && (TARGET.Cpus >= RequestCpus)");
		if (kv[KW_REQUEST_GPUS].text != NULL &&
		    sub_gpus(kv[KW_REQUEST_GPUS].text) > 0 &&
		    !sub_refs_name(refs.data, "GPUs"))
			buf_printf(&b, " && (TARGET.GPUs >= RequestGpus)");
		if (sub_jattrs_put(p, j, "Requirements", xstrdup(b.data),
		    k->deps, k->line) == -1)
			goto out;
	}
	k = &kv[KW_RANK];
	if (WANT(k->deps)) {
		s = k->text && *k->text ? k->text : "0.0";
		if (sub_check_expr(p, "rank", s, k->line, NULL) == -1)
			goto out;
		if (sub_jattrs_put(p, j, "Rank", xstrdup(s), k->deps,
		    k->line) == -1)
			goto out;
	}
	/* The job's own policies, evaluated by the schedd. */
	{
		static const struct { int kw; const char *attr; } pol[] = {
			{ KW_PERIODIC_HOLD, "PeriodicHold" },
			{ KW_PERIODIC_REMOVE, "PeriodicRemove" },
			{ KW_PERIODIC_RELEASE, "PeriodicRelease" },
			{ KW_ON_EXIT_HOLD, "OnExitHold" },
		};

		for (i = 0; i < (int)(sizeof(pol) / sizeof(pol[0])); i++) {
			k = &kv[pol[i].kw];
			if (k->text == NULL || !WANT(k->deps))
				continue;
			if (sub_check_expr(p, sub_kw_names[pol[i].kw], k->text,
			    k->line, NULL) == -1 || sub_jattrs_put(p, j,
			    pol[i].attr, xstrdup(k->text), k->deps,
			    k->line) == -1)
				goto out;
		}
	}
	/* max_retries N: run again, up to N more times, while it fails
	 * (exits other than success_exit_code, 0 by default) and its
	 * retry_until (an expression, or an exit code) is not TRUE; joined
	 * to on_exit_remove as HTCondor joins them.  retry_until alone
	 * allows HTCondor's default of 2 retries. */
	k = &kv[KW_MAX_RETRIES];
	d = k->deps | kv[KW_ON_EXIT_REMOVE].deps | kv[KW_RETRY_UNTIL].deps |
	    kv[KW_SUCCESS_EXIT_CODE].deps;
	if (WANT(d) && (k->text != NULL ||
	    kv[KW_ON_EXIT_REMOVE].text != NULL ||
	    kv[KW_RETRY_UNTIL].text != NULL)) {
		const struct kval *r = &kv[KW_ON_EXIT_REMOVE];
		const struct kval *u = &kv[KW_RETRY_UNTIL];
		const struct kval *x = &kv[KW_SUCCESS_EXIT_CODE];
		long long success = 0, code;

		v = u->text != NULL ? 2 : -1;
		if (k->text != NULL && (sub_parse_long(k->text, &v) == -1 ||
		    v < 0 || v > 1000000)) {
			sub_perr(p, k->line, "max_retries must be a number of "
			    "retries, 0 or more, not \"%s\"",
			    sub_shown(k->text, shownbuf, sizeof(shownbuf)));
			goto out;
		}
		if (x->text != NULL && (sub_parse_long(x->text,
		    &success) == -1 || success < -255 || success > 255)) {
			sub_perr(p, x->line,
			    "success_exit_code must be an exit "
			    "code, not \"%s\"", sub_shown(x->text, shownbuf,
			    sizeof(shownbuf)));
			goto out;
		}
		if (r->text != NULL && sub_check_expr(p, "on_exit_remove",
		    r->text, r->line, NULL) == -1)
			goto out;
		if (u->text != NULL && sub_parse_long(u->text, &code) == -1 &&
		    sub_check_expr(p, "retry_until", u->text, u->line,
		    NULL) == -1)
			goto out;
		buf_reset(&b);
		if (r->text != NULL)
			buf_printf(&b, v >= 0 ? "(%s) || " : "%s", r->text);
		if (v >= 0) {
			buf_printf(&b, "(NumJobCompletions > JobMaxRetries) || "
			    "(ExitCode =?= %lld)", success);
			if (u->text != NULL && sub_parse_long(u->text,
			    &code) == 0)
				buf_printf(&b, " || (ExitCode =?= %lld)", code);
			else if (u->text != NULL)
				buf_printf(&b, " || (%s)", u->text);
			if (sub_put_int(p, j, "JobMaxRetries", v, k->text ?
			    k->deps : u->deps, k->text ? k->line : u->line) ==
			    -1)
				goto out;
		}
		if (sub_jattrs_put(p, j, "OnExitRemove", xstrdup(b.data), d,
		    r->text != NULL ? r->line : k->line) == -1)
			goto out;
	}

	/* Seconds: between the soft kill and the hard one when the job is
	 * vacated; how long a running job survives losing its shadow. */
	if (WANT(kv[KW_JOB_MAX_VACATE_TIME].deps) && sub_put_amount(p, j, kv,
	    KW_JOB_MAX_VACATE_TIME, "JobMaxVacateTime", sub_seconds,
	    "a positive number of seconds") == -1)
		goto out;
	/* NAME[:WEIGHT], ...: what the negotiator counts against the
	 * pool's NAME_LIMIT settings. */
	k = &kv[KW_CONCURRENCY_LIMITS];
	if (k->text != NULL && WANT(k->deps)) {
		if (sub_limits_check(k->text, shownbuf,
		    sizeof(shownbuf)) == -1) {
			sub_perr(p, k->line,
			    "concurrency_limits: \"%s\" is not a "
			    "NAME or NAME:WEIGHT", shownbuf);
			goto out;
		}
		if (sub_put_string(p, j, "ConcurrencyLimits", k->text, k->deps,
		    k->line) == -1)
			goto out;
	}
	if (sub_put_accounting(p, kv, j, first) == -1)
		goto out;
	if (WANT(kv[KW_JOB_LEASE_DURATION].deps) && sub_put_amount(p, j, kv,
	    KW_JOB_LEASE_DURATION, "JobLeaseDuration", sub_seconds,
	    "a positive number of seconds") == -1)
		goto out;
	/* A job without one gets the pool's default lease; one the schedd
	 * runs itself (scheduler, local) has no starter to lease. */
	if (kv[KW_JOB_LEASE_DURATION].text == NULL &&
	    p->env->default_lease > 0 && WANT(kv[KW_UNIVERSE].deps) &&
	    universe != 7 && universe != 12 &&
	    sub_put_int(p, j, "JobLeaseDuration", p->env->default_lease,
	    kv[KW_UNIVERSE].deps, qline) == -1)
		goto out;

	k = &kv[KW_PRIORITY];
	if (WANT(k->deps)) {
		v = 0;
		if (k->text != NULL && (sub_parse_long(k->text, &v) == -1 ||
		    v < PRIO_MIN || v > PRIO_MAX)) {
			sub_perr(p, k->line,
			    "priority must be an integer from %d "
			    "to %d, not \"%s\"", PRIO_MIN, PRIO_MAX,
			    sub_shown(k->text, shownbuf, sizeof(shownbuf)));
			goto out;
		}
		sub_put_int(p, j, "UserPrio", v, k->deps, k->line);
	}
	k = &kv[KW_NOTIFICATION];
	if (WANT(k->deps)) {
		static const char *values[] = {
			"Never", "Complete", "Error", "Always", NULL
		};

		/* HTCondor's default: mail only when asked for. */
		s = "Never";
		if (k->text != NULL) {
			for (i = 0; values[i] != NULL; i++)
				if (strcasecmp(k->text, values[i]) == 0)
					break;
			if (values[i] == NULL) {
				sub_perr(p, k->line,
				    "notification must be Never, "
				    "Complete, Error or Always, not \"%s\"",
				    sub_shown(k->text, shownbuf,
				    sizeof(shownbuf)));
				goto out;
			}
			s = values[i];
		}
		sub_put_string(p, j, "Notification", s, k->deps, k->line);
	}
	k = &kv[KW_NOTIFY_USER];
	if (k->text != NULL && *k->text != '\0' && WANT(k->deps) &&
	    sub_put_string(p, j, "NotifyUser", k->text, k->deps, k->line) == -1)
		goto out;
	/* The batch condor_q -batch shows it in (condor_submit -batch-name
	 * gives one to a file that names none). */
	k = &kv[KW_BATCH_NAME];
	s = k->text != NULL && *k->text != '\0' ? k->text :
	    p->env->batch_name;
	if (s != NULL && *s != '\0' && WANT(k->deps)) {
		/* JobBatchName = "name", written as the attribute: the
		 * quotes are not part of the name. */
		size_t n = strlen(s);
		char *name = n >= 2 && s[0] == '"' && s[n - 1] == '"' ?
		    xstrndup(s + 1, n - 2) : xstrdup(s);

		i = sub_put_string(p, j, "JobBatchName", name, k->deps,
		    k->line);
		free(name);
		if (i == -1)
			goto out;
	}

	if (sub_put_transfer(p, j, kv, first, standard, iwd,
	    kv[KW_INITIALDIR].deps) == -1)
		goto out;

	/* ImageSize in KiB: what the user says, else the executable's size. */
	k = &kv[KW_IMAGE_SIZE];
	if (WANT(k->deps)) {
		v = kib;
		if (k->text != NULL) {
			char *end;

			errno = 0;
			v = strtoll(k->text, &end, 10);
			if (strcasecmp(end, "k") == 0 ||
			    strcasecmp(end, "kb") == 0)
				end += strlen(end);
			else if (strcasecmp(end, "m") == 0 ||
			    strcasecmp(end, "mb") == 0) {
				v = v > LLONG_MAX / 1024 ? -1 : v * 1024;
				end += strlen(end);
			} else if (strcasecmp(end, "g") == 0 ||
			    strcasecmp(end, "gb") == 0) {
				v = v > LLONG_MAX / 1048576 ? -1 : v * 1048576;
				end += strlen(end);
			}
			if (errno != 0 || end == k->text || *end != '\0' ||
			    v <= 0) {
				sub_perr(p, k->line, "image_size must be a "
				    "positive number of KiB (or with M or G), "
				    "not \"%s\"", sub_shown(k->text, shownbuf,
				    sizeof(shownbuf)));
				goto out;
			}
		}
		sub_put_int(p, j, "ImageSize", v, k->deps, k->line);
		image_kib = v;
	}

	/* RequestMemory in MB, RequestDisk in KB, RequestCpus. */
	if (sub_put_requests(p, j, kv, first) == -1)
		goto out;
	/* A job that declares its image_size and asks for no memory is
	 * bounded by that size: HTCondor derives RequestMemory from
	 * ImageSize (in MiB, rounded up), and the execute host holds a
	 * job that goes over it (condor_starter(8)). */
	k = &kv[KW_IMAGE_SIZE];
	if (WANT(k->deps) && k->text != NULL && image_kib > 0 &&
	    (kv[KW_REQUEST_MEMORY].text == NULL ||
	    *kv[KW_REQUEST_MEMORY].text == '\0') &&
	    sub_put_int(p, j, "RequestMemory", (image_kib + 1023) / 1024,
	    k->deps, k->line) == -1)
		goto out;
	/* RequestGpus only when some are asked for. */
	k = &kv[KW_REQUEST_GPUS];
	if (WANT(k->deps) && k->text != NULL && *k->text != '\0') {
		if ((v = sub_gpus(k->text)) < 0) {
			sub_perr(p, k->line,
			    "request_gpus must be a whole number "
			    "of GPUs, 0 or more, not \"%s\"", sub_shown(k->text,
			    shownbuf, sizeof(shownbuf)));
			goto out;
		}
		if (v > 0)
			sub_put_int(p, j, "RequestGpus", v, k->deps, k->line);
	}
	/* AllowedJobDuration in seconds. */
	if (WANT(kv[KW_ALLOWED_JOB_DURATION].deps) && sub_put_amount(p, j, kv,
	    KW_ALLOWED_JOB_DURATION, "AllowedJobDuration", sub_seconds,
	    "a positive number of seconds") == -1)
		goto out;

	if (sub_put_extras(p, j, kv, first) == -1)
		goto out;

	/* Accounting starts at zero. */
	if (first) {
		static const char *zero[] = {
			"RemoteUserCpu", "RemoteSysCpu", "LocalUserCpu",
			"LocalSysCpu", "RemoteWallClockTime", NULL
		};

		sub_put_int(p, j, "NumJobStarts", 0, 0, qline);
		sub_put_int(p, j, "NumCkpts", 0, 0, qline);
		for (i = 0; zero[i] != NULL; i++)
			sub_jattrs_put(p, j, zero[i], xstrdup("0.0"), 0, qline);
	}

	/* Custom attributes last: they may override anything above. */
	for (c = 0; c < ncv; c++) {
		k = &cv[c];
		if (!WANT(k->deps))
			continue;
		/* "+Name =" with nothing sets nothing (files made by
		 * tools have them). */
		if (k->text == NULL)
			continue;
		if (sub_check_expr(p, cnames[c], k->text, k->line, NULL) == -1)
			goto out;
		if (jattrs_set(p, j, cnames[c], xstrdup(k->text), k->deps,
		    k->line, 1) == -1)
			goto out;
	}
	rc = 0;
out:
	free(env);
	free(iwd);
	buf_free(&b);
	buf_free(&refs);
	return rc;
}
