/*
 * submit_keywords.c: the keywords of the language, the names they are
 * stored under, and the checks of their values that do not build
 * attributes: amounts, booleans, numbers, expressions, names, and the
 * files the executable and initialdir name.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "submit_int.h"
#include "xfer.h"
#include "xalloc.h"

static const struct keyword keywords[] = {
	{ "executable",			KW_EXECUTABLE },
	{ "arguments",			KW_ARGUMENTS },
	{ "initialdir",			KW_INITIALDIR },
	{ "initial_dir",		KW_INITIALDIR },	/* HTCondor's */
	{ "input",			KW_INPUT },
	{ "output",			KW_OUTPUT },
	{ "error",			KW_ERROR },
	{ "log",			KW_LOG },
	{ "rootdir",			KW_ROOTDIR },
	{ "environment",		KW_ENVIRONMENT },
	{ "getenv",			KW_GETENV },
	{ "universe",			KW_UNIVERSE },
	{ "requirements",		KW_REQUIREMENTS },
	{ "rank",			KW_RANK },
	{ "preferences",		KW_RANK },
	{ "priority",			KW_PRIORITY },
	{ "notification",		KW_NOTIFICATION },
	{ "notify_user",		KW_NOTIFY_USER },
	{ "image_size",			KW_IMAGE_SIZE },
	{ "allowed_job_duration",	KW_ALLOWED_JOB_DURATION },
	{ "request_memory",		KW_REQUEST_MEMORY },
	{ "request_cpus",		KW_REQUEST_CPUS },
	{ "request_disk",		KW_REQUEST_DISK },
	{ "batch_name",			KW_BATCH_NAME },
	{ "periodic_hold",		KW_PERIODIC_HOLD },
	{ "periodic_remove",		KW_PERIODIC_REMOVE },
	{ "periodic_release",		KW_PERIODIC_RELEASE },
	{ "on_exit_hold",		KW_ON_EXIT_HOLD },
	{ "on_exit_remove",		KW_ON_EXIT_REMOVE },
	{ "max_retries",		KW_MAX_RETRIES },
	{ "should_transfer_files",	KW_SHOULD_TRANSFER_FILES },
	{ "when_to_transfer_output",	KW_WHEN_TO_TRANSFER_OUTPUT },
	{ "transfer_input_files",	KW_TRANSFER_INPUT_FILES },
	{ "transfer_output_files",	KW_TRANSFER_OUTPUT_FILES },
	{ "transfer_output_remaps",	KW_TRANSFER_OUTPUT_REMAPS },
	{ "transfer_executable",	KW_TRANSFER_EXECUTABLE },
	{ "retry_until",		KW_RETRY_UNTIL },
	{ "success_exit_code",		KW_SUCCESS_EXIT_CODE },
	{ "job_max_vacate_time",	KW_JOB_MAX_VACATE_TIME },
	{ "job_lease_duration",		KW_JOB_LEASE_DURATION },
	{ "request_gpus",		KW_REQUEST_GPUS },
	{ "concurrency_limits",		KW_CONCURRENCY_LIMITS },
	{ "nice_user",			KW_NICE_USER },
	{ "accounting_group",		KW_ACCOUNTING_GROUP },
	{ "accounting_group_user",	KW_ACCOUNTING_GROUP_USER },
	{ "hold",			KW_HOLD },
	{ "stream_output",		KW_STREAM_OUTPUT },
	{ "stream_error",		KW_STREAM_ERROR },
	{ "max_materialize",		KW_MAX_MATERIALIZE },
	{ "max_idle",			KW_MAX_IDLE },
	{ "description",		KW_DESCRIPTION },
	/* HTCondor takes a keyword's attribute name for it too. */
	{ "requestmemory",		KW_REQUEST_MEMORY },
	{ "requestcpus",		KW_REQUEST_CPUS },
	{ "requestdisk",		KW_REQUEST_DISK },
	{ "shouldtransferfiles",	KW_SHOULD_TRANSFER_FILES },
	{ "whentotransferoutput",	KW_WHEN_TO_TRANSFER_OUTPUT },
	{ "periodichold",		KW_PERIODIC_HOLD },
	{ "periodicremove",		KW_PERIODIC_REMOVE },
	{ "periodicrelease",		KW_PERIODIC_RELEASE },
	{ "onexithold",			KW_ON_EXIT_HOLD },
	{ "onexitremove",		KW_ON_EXIT_REMOVE },
	{ "jobbatchname",		KW_BATCH_NAME },
	{ "notifyuser",			KW_NOTIFY_USER },
	{ "jobleaseduration",		KW_JOB_LEASE_DURATION },
	{ "jobmaxvacatetime",		KW_JOB_MAX_VACATE_TIME },
	{ NULL,				0 }
};

/*
 * HTCondor's keywords this pool cannot honour: accepted, with a note
 * saying what happens instead, so that a file written for HTCondor
 * still runs and its author knows what is left out.
 */
static const struct {
	const char	*name;
	const char	*note;
} unhonoured[] = {
	{ "transfer_output",		"the job's output file always "
	    "comes back to this host" },
	{ "transfer_error",		"the job's error file always "
	    "comes back to this host" },
	{ "transfer_input",		"the job's input file always "
	    "travels with it" },
	{ "stream_input",		"the input file is sent before the "
	    "job starts, not streamed" },
	{ "copy_to_spool",		"the executable is always copied to "
	    "the spool" },
	{ "x509userproxy",		"no grid credentials are sent with "
	    "jobs here" },
	{ "use_x509userproxy",		"no grid credentials are sent with "
	    "jobs here" },
	{ "delegate_job_gsi_credentials_lifetime", "no grid credentials "
	    "are sent with jobs here" },
	{ "use_oauth_services",		"no OAuth credentials are sent with "
	    "jobs here" },
	{ "use_scitokens",		"no tokens are sent with jobs here" },
	{ "docker_image",		"jobs do not run in containers here" },
	{ "container_image",		"jobs do not run in containers here" },
	{ "docker_network_type",	"jobs do not run in containers here" },
	{ "docker_pull_policy",		"jobs do not run in containers here" },
	{ "transfer_container",		"jobs do not run in containers here" },
	{ "checkpoint_exit_code",	"a job that exits with it ends as "
	    "with any other code (relink with condor_cc for checkpoints)" },
	{ "transfer_checkpoint_files",	"only relinked programs are "
	    "checkpointed here (condor_cc)" },
	{ "output_destination",		"output files come back to the "
	    "job's directory on this host" },
	{ "load_profile",		"the job does not start from the "
	    "owner's login profile" },
	{ "machine_count",		"one machine a job: the parallel "
	    "universe is not run here" },
	{ "leave_in_queue",		"a job leaves the queue when it "
	    "completes (condor_history keeps it)" },
	{ "on_exit_hold_reason",	"the hold reason names the "
	    "on_exit_hold expression" },
	{ "on_exit_hold_subcode",	"the hold reason names the "
	    "on_exit_hold expression" },
	{ "periodic_hold_reason",	"the hold reason names the "
	    "periodic_hold expression" },
	{ "periodic_hold_subcode",	"the hold reason names the "
	    "periodic_hold expression" },
	{ "job_machine_attrs",		"the machine's attributes are not "
	    "copied into the job's ad" },
	{ "max_job_retirement_time",	"a job is vacated at once "
	    "(job_max_vacate_time gives it time to finish)" },
	{ "deferral_time",		"jobs are not deferred: it may run "
	    "at once" },
	{ "encrypt_input_files",	"files travel as the pool's "
	    "transfers do" },
	{ "encrypt_output_files",	"files travel as the pool's "
	    "transfers do" },
	{ "preserve_relative_paths",	"transferred files land in the "
	    "job's directory by their base names" },
	{ "max_transfer_input_mb",	"transfers are not limited in "
	    "size" },
	{ "max_transfer_output_mb",	"transfers are not limited in "
	    "size" },
	{ "want_graceful_removal",	"condor_rm stops a job at once" },
	{ "keep_claim_idle",		"a machine is released when its job "
	    "ends" },
	{ "grid_resource",		"jobs are not sent to other batch "
	    "systems" },
	{ "coresize",			"the job's core file size is the "
	    "execute host's limit" },
	{ "kill_sig",			"a job is stopped with SIGTERM, then "
	    "SIGKILL" },
	{ "remove_kill_sig",		"a job is stopped with SIGTERM, then "
	    "SIGKILL" },
	{ "hold_kill_sig",		"a job is stopped with SIGTERM, then "
	    "SIGKILL" },
	{ "cron_minute",		"jobs are not run on a schedule" },
	{ "cron_hour",			"jobs are not run on a schedule" },
	{ "cron_day_of_month",		"jobs are not run on a schedule" },
	{ "cron_day_of_the_month",	"jobs are not run on a schedule" },
	{ "cron_month",			"jobs are not run on a schedule" },
	{ "cron_day_of_week",		"jobs are not run on a schedule" },
	{ "cron_day_of_the_week",	"jobs are not run on a schedule" },
	{ "cron_prep_time",		"jobs are not run on a schedule" },
	{ "cron_window",		"jobs are not run on a schedule" },
	{ "deferral_window",		"jobs are not deferred" },
	{ "deferral_prep_time",		"jobs are not deferred" },
	{ "dagman_log",			"condor_dagman keeps its own log of "
	    "its nodes" },
	{ "dont_encrypt_input_files",	"files travel as the pool's "
	    "transfers do" },
	{ "dont_encrypt_output_files",	"files travel as the pool's "
	    "transfers do" },
	{ "log_xml",			"the user log is written as text" },
	{ "match_list_length",		"the machines a job ran on are not "
	    "listed in its ad" },
	{ "submit_event_notes",		"the submit event has no notes" },
	{ "stack_size",			"the stack is the execute host's" },
	{ "require_gpus",		"GPUs are asked for by number only "
	    "(request_gpus)" },
	{ "gpus_minimum_capability",	"GPUs are asked for by number only "
	    "(request_gpus)" },
	{ "gpus_maximum_capability",	"GPUs are asked for by number only "
	    "(request_gpus)" },
	{ "gpus_minimum_memory",	"GPUs are asked for by number only "
	    "(request_gpus)" },
	{ NULL,				NULL }
};

/* The name a keyword is stored under ("preferences" is "rank"). */
const char *const sub_kw_names[NKW] = {
	"executable", "arguments", "initialdir", "input", "output", "error",
	"log", "rootdir", "environment", "getenv", "universe",
	"requirements", "rank", "priority", "notification", "notify_user",
	"image_size", "allowed_job_duration", "request_memory",
	"request_cpus", "request_disk", "batch_name", "periodic_hold",
	"periodic_remove", "periodic_release", "on_exit_hold",
	"on_exit_remove", "max_retries", "should_transfer_files",
	"when_to_transfer_output", "transfer_input_files",
	"transfer_output_files", "transfer_output_remaps",
	"transfer_executable", "retry_until", "success_exit_code",
	"job_max_vacate_time", "job_lease_duration", "request_gpus",
	"concurrency_limits", "nice_user", "accounting_group",
	"accounting_group_user", "hold", "stream_output", "stream_error",
	"max_materialize", "max_idle", "description",
};

const struct keyword *
sub_keyword_find(const char *lname)
{
	const struct keyword *k;

	for (k = keywords; k->name != NULL; k++)
		if (strcmp(k->name, lname) == 0)
			return k;
	return NULL;
}

/* What happens instead of HTCondor's keyword LNAME (lower case), if it
 * is one this pool cannot honour; NULL otherwise. */
const char *
sub_keyword_unhonoured(const char *lname)
{
	size_t i;

	for (i = 0; unhonoured[i].name != NULL; i++)
		if (strcmp(unhonoured[i].name, lname) == 0)
			return unhonoured[i].note;
	return NULL;
}

/* The name a macro reference or definition is stored under. */
const char *
sub_canonical(const char *lname)
{
	const struct keyword *k = sub_keyword_find(lname);

	if (k != NULL && k->kw >= 0)
		return sub_kw_names[k->kw];
	return lname;
}

/* TEXT, an amount with an optional unit (K, KB, M, MB, G, GB, T, TB,
 * any case), in units of BASE KB (1 for KB, 1024 for MB), rounded up;
 * a bare number is in those units already.  -1 if it is not one. */
static long long
amount_in(const char *text, double base)
{
	static const struct { const char *unit; double kb; } units[] = {
		{ "k", 1 }, { "kb", 1 }, { "m", 1024 }, { "mb", 1024 },
		{ "g", 1048576 }, { "gb", 1048576 },
		{ "t", 1073741824.0 }, { "tb", 1073741824.0 },
	};
	char *end;
	double v, n;
	size_t i;

	errno = 0;
	v = strtod(text, &end);
	if (errno != 0 || end == text || !(v > 0) || v > 1e12)
		return -1;
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end == '\0')
		n = v;
	else {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcasecmp(end, units[i].unit) == 0)
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		n = v * units[i].kb / base;
	}
	return n < 1 ? 1 : (long long)(n + 0.999999);
}

/* request_disk: KB. */
long long
sub_disk_kb(const char *text)
{
	return amount_in(text, 1);
}

/* TEXT as a whole number from LO to HI (blanks may follow); -1 if not. */
static long long
whole_in(const char *text, long long lo, long long hi)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(text, &end, 10);
	while (*end == ' ' || *end == '\t')
		end++;
	return errno != 0 || end == text || *end != '\0' || v < lo ||
	    v > hi ? -1 : v;
}

/* request_cpus: a whole number of cores, 1 or more. */
long long
sub_cpus(const char *text)
{
	return whole_in(text, 1, 4096);
}

/* request_gpus: a whole number of GPUs, 0 or more; -1 if not one. */
long long
sub_gpus(const char *text)
{
	return whole_in(text, 0, 4096);
}

/* "2 GB", "512", "1.5G", "100MB" in MB (rounded up); -1 if it is not one. */
long long
sub_memory_mb(const char *text)
{
	return amount_in(text, 1024);
}

int
sub_parse_bool(const char *s, int *out)
{
	static const char *yes[] = { "true", "yes", "t", "y", "1", NULL };
	static const char *no[] = { "false", "no", "f", "n", "0", NULL };
	int i;

	for (i = 0; yes[i] != NULL; i++)
		if (strcasecmp(s, yes[i]) == 0) {
			*out = 1;
			return 0;
		}
	for (i = 0; no[i] != NULL; i++)
		if (strcasecmp(s, no[i]) == 0) {
			*out = 0;
			return 0;
		}
	return -1;
}

/* A whole decimal integer; -1 if S is anything else. */
int
sub_parse_long(const char *s, long long *out)
{
	char *end;

	if (*s == '\0')
		return -1;
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	return 0;
}

/* Whether attribute NAME must be built for this proc. */
/* A whole number of seconds, above 0; -1 if TEXT is not one. */
long long
sub_seconds(const char *text)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	return errno != 0 || end == text || *end != '\0' || v <= 0 ? -1 : v;
}

/*
 * Parse TEXT (which may hold $(Cluster)) as an expression; -1 with the
 * error recorded at LINE if it does not parse.  *TREE, if not NULL,
 * receives the tree (with $(Cluster) read as 1).
 */
int
sub_check_expr(struct parser *p, const char *what, const char *text, int line,
    struct expr **tree)
{
	char err[256], *sub;
	struct expr *e;

	sub = submit_expand_cluster(text, 1);
	e = expr_parse(sub ? sub : text, err, sizeof(err));
	free(sub);
	if (e == NULL) {
		/* The machine's values are filled into strings only. */
		sub_perr(p, line, "%s: %s%s", what, err, strstr(text, "$$(") ?
		    " ($$() goes inside a string: \"$$(Name)\")" : "");
		return -1;
	}
	if (tree != NULL)
		*tree = e;
	else
		expr_free(e);
	return 0;
}

/* Does the space-separated list REFS name NAME (any case)? */
int
sub_refs_name(const char *refs, const char *name)
{
	size_t len = strlen(name), n;

	while (*refs != '\0') {
		while (*refs == ' ')
			refs++;
		n = strcspn(refs, " ");
		if (n == len && strncasecmp(refs, name, len) == 0)
			return 1;
		refs += n;
	}
	return 0;
}

/* Each item of a concurrency_limits list a NAME (letters, digits, '_',
 * '.') with an optional ":WEIGHT"; 0, or -1 with BAD the item. */
int
sub_limits_check(const char *text, char *bad, size_t badlen)
{
	char **items, *colon, *end;
	size_t n, i, k;
	double w;
	int rc = 0;

	items = xfer_list_split(text, &n);
	for (i = 0; i < n && rc == 0; i++) {
		colon = strchr(items[i], ':');
		for (k = 0; items[i][k] != '\0' && items[i] + k != colon; k++)
			if (!isalnum((unsigned char)items[i][k]) &&
			    items[i][k] != '_' && items[i][k] != '.')
				break;
		if (k == 0 || (items[i] + k != colon && items[i][k] != '\0'))
			rc = -1;
		else if (colon != NULL) {
			w = strtod(colon + 1, &end);
			if (end == colon + 1 || *end != '\0' || !(w >= 0) ||
			    w > 1e9)
				rc = -1;
		}
		if (rc == -1)
			snprintf(bad, badlen, "%.40s", items[i]);
	}
	xfer_list_free(items, n);
	return rc;
}

/* A group or user name: letters, digits, '_', '-', '.' (for a group,
 * dot-separated parts none empty), at most 64 bytes. */
int
sub_acct_name_ok(const char *s, int group)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 64 || (group && (s[0] == '.' || s[n - 1] == '.' ||
	    strstr(s, "..") != NULL)))
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '-' && s[i] != '.' && (group || s[i] != '@'))
			return 0;
	return 1;
}

int
sub_check_dir(struct parser *p, const char *dir, int line)
{
	struct stat st;

	/* $(Cluster) is known once queued, $$() on the machine. */
	if (!p->env->check_files || strstr(dir, SUBMIT_CLUSTER_MACRO) ||
	    strstr(dir, "$$(") != NULL)
		return 0;
	if (stat(dir, &st) == -1) {
		sub_perr(p, line, "initialdir %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		sub_perr(p, line, "initialdir %s is not a directory", dir);
		return -1;
	}
	return 0;
}
