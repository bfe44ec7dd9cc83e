/*
 * summary_test.c: condor_summary's arithmetic (summary.c: leverage, wait
 * ratio, utilization, buckets) and the collector's pool history file
 * (poolhist.c: records, torn lines, garbage, the size cap).
 *
 * checks: 79
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "poolhist.h"
#include "summary.h"
#include "test.h"
#include "xalloc.h"

static int
near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static struct ad *
job(const char *owner, int status, double ruser, double rsys, double luser,
    double lsys, long long qdate, long long completion, double wall)
{
	struct ad *ad = ad_new();

	if (owner != NULL)
		ad_set_string(ad, "Owner", owner);
	ad_set_int(ad, "JobStatus", status);
	ad_set_real(ad, "RemoteUserCpu", ruser);
	ad_set_real(ad, "RemoteSysCpu", rsys);
	ad_set_real(ad, "LocalUserCpu", luser);
	ad_set_real(ad, "LocalSysCpu", lsys);
	ad_set_int(ad, "QDate", qdate);
	if (completion > 0)
		ad_set_int(ad, "CompletionDate", completion);
	ad_set_real(ad, "RemoteWallClockTime", wall);
	return ad;
}

static void
test_accounting(void)
{
	struct summary sum;
	struct ad *a;

	summary_init(&sum);
	/* ann: 100 s remote for 1 s local; waited 50 s for 100 s. */
	a = job("ann", 4, 90, 10, 0.5, 0.5, 1000, 1150, 100);
	ad_set_int(a, "NumCkpts", 3);
	ad_set_int(a, "NumRemoteSyscalls", 1234);
	summary_add_job(&sum, a);
	ad_free(a);
	/* ann again: 300 s remote, 2 s local, no wait. */
	a = job("ann", 4, 300, 0, 2, 0, 2000, 2300, 300);
	summary_add_job(&sum, a);
	ad_free(a);
	/* bob: removed before it ran, no CompletionDate. */
	a = job("bob", 3, 0, 0, 0, 0, 1500, 0, 0);
	ad_set_int(a, "EnteredCurrentStatus", 1600);
	summary_add_job(&sum, a);
	ad_free(a);
	/* al: garbage in every number, and no Owner at all. */
	a = job(NULL, 4, -5, NAN, INFINITY, -1, -3, 10, -2);
	ad_set_string(a, "NumCkpts", "many");
	summary_add_job(&sum, a);
	ad_free(a);
	summary_sort(&sum);

	CHECK("acct: three owners", sum.nusers == 3);
	CHECK_STR("acct: sorted by name", sum.users[0].owner, "?");
	CHECK_STR("acct: ann second", sum.users[1].owner, "ann");
	CHECK("acct: ann has 2 jobs", sum.users[1].jobs == 2 &&
	    sum.users[1].completed == 2 && sum.users[1].removed == 0);
	CHECK("acct: ann remote CPU is user + sys",
	    near(sum.users[1].remote_cpu, 400));
	CHECK("acct: ann local CPU is the shadows'",
	    near(sum.users[1].local_cpu, 3));
	CHECK("acct: leverage is remote over local (400 / 3)",
	    near(summary_leverage(&sum.users[1]), 400.0 / 3));
	CHECK("acct: ann waited 50 s in all", near(sum.users[1].wait, 50));
	CHECK("acct: ann was served 400 s", near(sum.users[1].service, 400));
	CHECK("acct: wait ratio is wait over service (50 / 400)",
	    near(summary_wait_ratio(&sum.users[1]), 50.0 / 400));
	CHECK("acct: checkpoints and calls summed", sum.users[1].ckpts == 3 &&
	    sum.users[1].syscalls == 1234);
	CHECK("acct: bob's job is removed", sum.users[2].removed == 1 &&
	    sum.users[2].served == 0);
	CHECK("acct: bob's leverage undefined (no local CPU)",
	    summary_leverage(&sum.users[2]) == -1);
	CHECK("acct: bob's wait ratio undefined (never served)",
	    summary_wait_ratio(&sum.users[2]) == -1);
	CHECK("acct: garbage numbers count as zero",
	    near(sum.users[0].remote_cpu, 0) &&
	    near(sum.users[0].local_cpu, 0) && sum.users[0].ckpts == 0 &&
	    sum.users[0].served == 0);
	CHECK("acct: total jobs", sum.total.jobs == 4);
	CHECK_STR("acct: total's name", sum.total.owner, "TOTAL");
	CHECK("acct: total remote CPU", near(sum.total.remote_cpu, 400));
	CHECK("acct: total wait ratio", near(summary_wait_ratio(&sum.total),
	    50.0 / 400));
	CHECK("acct: first submission", sum.first == 1000);
	CHECK("acct: last end (EnteredCurrentStatus of a removed job counts)",
	    sum.last == 2300);
	summary_free(&sum);

	/* A finish a second before the wall clock says: no negative wait. */
	summary_init(&sum);
	a = job("cy", 4, 10, 0, 1, 0, 100, 109, 10);
	summary_add_job(&sum, a);
	ad_free(a);
	CHECK("acct: wait is never negative", near(sum.total.wait, 0) &&
	    near(summary_wait_ratio(&sum.total), 0));
	summary_free(&sum);
}

static pool_sample_x
sample(long long t, int owner, int idle, int claimed, int suspended)
{
	pool_sample_x s;
	int i;

	memset(&s, 0, sizeof(s));
	s.time = t;
	for (i = 0; i < owner; i++)
		poolhist_count_machine(&s, "Owner", NULL);
	for (i = 0; i < idle; i++)
		poolhist_count_machine(&s, "Idle", NULL);
	for (i = 0; i < claimed; i++)
		poolhist_count_machine(&s, "Claimed", "ann@cm");
	for (i = 0; i < suspended; i++)
		poolhist_count_machine(&s, "Suspended", "bob");
	return s;
}

static void
test_utilization(void)
{
	pool_sample_x s[4], empty;
	struct summary_bucket *b = NULL;
	size_t nb;

	s[0] = sample(100, 1, 1, 2, 0);		/* 4 machines */
	s[1] = sample(104, 2, 0, 1, 1);
	s[2] = sample(130, 0, 0, 0, 0);		/* none at all */
	s[3] = sample(131, 4, 0, 0, 0);		/* owners everywhere */
	CHECK("util: condor share of all", near(summary_util_condor(&s[0]),
	    0.5));
	CHECK("util: local is Owner + Suspended",
	    near(summary_util_local(&s[1]), 0.75));
	CHECK("util: of available is Claimed / (Idle + Claimed + ...)",
	    near(summary_util_avail(&s[0]), 2.0 / 3));
	CHECK("util: suspended is not available",
	    near(summary_util_avail(&s[1]), 1.0));
	CHECK("util: no machines, undefined", summary_util_condor(&s[2]) == -1
	    && summary_util_local(&s[2]) == -1 &&
	    summary_util_avail(&s[2]) == -1);
	CHECK("util: none available, undefined",
	    summary_util_avail(&s[3]) == -1 &&
	    near(summary_util_local(&s[3]), 1));

	CHECK("bucket: 1 s for a short span",
	    summary_bucket_width(10, 24) == 1);
	CHECK("bucket: 5 s for a minute", summary_bucket_width(60, 24) == 5);
	CHECK("bucket: 2 h for a day (25 aligned hours are too many)",
	    summary_bucket_width(86400, 24) == 7200);
	CHECK("bucket: 1 h for most of a day",
	    summary_bucket_width(80000, 24) == 3600);
	CHECK("bucket: at most 24 for a week",
	    604800 / summary_bucket_width(604800, 24) < 24);
	CHECK("bucket: whole weeks for years",
	    summary_bucket_width(3LL * 365 * 86400, 24) % 604800 == 0 &&
	    3LL * 365 * 86400 / summary_bucket_width(3LL * 365 * 86400, 24) <
	    24);
	CHECK("bucket: a silly span still gives a width",
	    summary_bucket_width(-5, 0) >= 1);

	nb = summary_buckets(s, 4, 30, &b);
	CHECK("bucket: empty buckets left out (2 of 30 s)", nb == 2);
	CHECK("bucket: aligned on the width", b[0].start == 90 &&
	    b[1].start == 120);
	CHECK("bucket: samples counted", b[0].samples == 2 &&
	    b[1].samples == 2);
	CHECK("bucket: mean machines", near(b[0].machines, 4) &&
	    near(b[1].machines, 2));
	CHECK("bucket: mean claimed", near(b[0].states[POOLHIST_CLAIMED], 1.5));
	CHECK("bucket: mean condor fraction", near(b[0].condor, 0.375));
	CHECK("bucket: a sample with no machines is not averaged in",
	    near(b[1].condor, 0) && near(b[1].local, 1));
	CHECK("bucket: undefined when no sample defines it", b[1].avail == -1);
	free(b);
	memset(&empty, 0, sizeof(empty));
	CHECK("bucket: no samples, no buckets",
	    summary_buckets(&empty, 0, 10, &b) == 0);
	free(b);
	for (nb = 0; nb < 4; nb++)
		poolhist_sample_free(&s[nb]);
}

static void
test_records(void)
{
	pool_sample_x s, back;
	struct buf line;
	char name[200];
	int i, ok;

	memset(&s, 0, sizeof(s));
	s.time = 1795312968;
	poolhist_count_machine(&s, "Claimed", "ann@cm");
	poolhist_count_machine(&s, "claimed", "ann@cm");
	poolhist_count_machine(&s, "Suspended", "b<o>b x");
	poolhist_count_machine(&s, "Idle", "ghost");	/* not claimed */
	poolhist_count_machine(&s, "Owner", NULL);
	poolhist_count_machine(&s, "Matched", NULL);
	poolhist_count_machine(&s, NULL, NULL);
	buf_init(&line);
	poolhist_format(&s, &line);
	CHECK_STR("record: formatted",
	    line.data, "1 1795312968 7 1 1 2 1 0 0 2 ann@cm=2 b_o_b_x=1\n");
	CHECK("record: parses back", poolhist_parse_line(line.data,
	    line.len - 1, &back) == 0);
	CHECK("record: same counts", back.time == s.time &&
	    back.total == 7 && back.states[POOLHIST_CLAIMED] == 2 &&
	    back.states[POOLHIST_OTHER] == 2 && back.users.users_len == 2 &&
	    strcmp(back.users.users_val[1].name, "b_o_b_x") == 0 &&
	    back.users.users_val[0].claimed == 2);
	poolhist_sample_free(&back);
	poolhist_sample_free(&s);
	buf_free(&line);

	/* More submitters than a sample names: counted, not named. */
	memset(&s, 0, sizeof(s));
	s.time = 5;
	for (i = 0; i < COLLECTOR_SAMPLE_USERS + 5; i++) {
		snprintf(name, sizeof(name), "user%d", i);
		poolhist_count_machine(&s, "Claimed", name);
	}
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	poolhist_count_machine(&s, "Claimed", name);
	CHECK("record: users capped", s.users.users_len ==
	    COLLECTOR_SAMPLE_USERS && s.states[POOLHIST_CLAIMED] ==
	    COLLECTOR_SAMPLE_USERS + 6);
	poolhist_sample_free(&s);
	memset(&s, 0, sizeof(s));
	s.time = 5;
	poolhist_count_machine(&s, "Claimed", name);
	CHECK("record: long names cut", strlen(s.users.users_val[0].name) ==
	    COLLECTOR_USER_NAME - 1);
	buf_init(&line);
	poolhist_format(&s, &line);
	CHECK("record: a cut name parses back", poolhist_parse_line(line.data,
	    line.len - 1, &back) == 0);
	poolhist_sample_free(&back);
	poolhist_sample_free(&s);
	buf_free(&line);

	/* Garbage and inconsistent records are refused. */
	{
		static const char *const bad[] = {
			"",
			"1",
			"2 100 1 1 0 0 0 0 0 0",	/* unknown version */
			"1 100 2 1 0 0 0 0 0 0",	/* states sum to 1 */
			"1 0 1 1 0 0 0 0 0 0",		/* no time */
			"1 100 1 1 0 0 0 0 0",		/* short */
			"1 100 1 -1 2 0 0 0 0 0",	/* negative */
			"1 100 1 1 0 0 0 0 0 0 ann=1",	/* none claimed */
			"1 100 1 0 0 1 0 0 0 0 ann",	/* no count */
			"1 100 1 0 0 1 0 0 0 0 =1",	/* no name */
			"1 100 1 0 0 1 0 0 0 0 a<b=1",	/* a '<' */
			"1 100 1 0 0 1 0 0 0 0 ann=1x",
			"1 1e3 1 1 0 0 0 0 0 0",
			"1 100 99999999999999999999 0 0 0 0 0 0 0",
			"1 100 20000000 20000000 0 0 0 0 0 0",
			"garbage",
			NULL
		};
		ok = 1;
		for (i = 0; bad[i] != NULL; i++)
			if (poolhist_parse_line(bad[i], strlen(bad[i]),
			    &back) == 0) {
				printf("  accepted: %s\n", bad[i]);
				poolhist_sample_free(&back);
				ok = 0;
			} else if (back.users.users_val != NULL || back.total)
				ok = 0;
		CHECK("record: garbage refused and nothing kept", ok);
	}
	CHECK("record: a NUL inside refused",
	    poolhist_parse_line("1 100 1\0 1 0 0 0 0 0 0", 21, &back) == -1);
	{
		char big[POOLHIST_LINE_MAX + 10];

		memset(big, ' ', sizeof(big));
		memcpy(big, "1 100 1 1 0 0 0 0 0 0", 21);
		CHECK("record: too long refused", poolhist_parse_line(big,
		    sizeof(big), &back) == -1);
		CHECK("record: trailing blanks are fine",
		    poolhist_parse_line(big, 60, &back) == 0);
		poolhist_sample_free(&back);
	}
}

static void
test_text(void)
{
	static const char text[] =
	    "1 100 1 1 0 0 0 0 0 0\n"
	    "garbage line\n"
	    "\n"
	    "1 200 2 0 1 1 0 0 0 0 ann=1\n"
	    "1 300 2 0 0 2 0 0 0 0 ann=2\n"
	    "1 400 2 0 0 2 0 0 0 0 ann=1 bob=1\n"
	    "1 500 2 0 0 2 0 0 0 0 an";		/* torn */
	pool_sample_x *s = NULL;
	size_t n = 0, skipped = 0;

	poolhist_parse_text(text, strlen(text), 0, 0, &s, &n, &skipped);
	CHECK("text: four records", n == 4);
	CHECK("text: garbage and the torn line skipped", skipped == 2);
	CHECK("text: in order", n == 4 && s[0].time == 100 &&
	    s[3].time == 400);
	n = poolhist_thin(s, n, 2);
	CHECK("thin: first and last kept", n == 2 && s[0].time == 100 &&
	    s[1].time == 400);
	poolhist_samples_free(s, n);

	s = NULL;
	n = skipped = 0;
	poolhist_parse_text(text, strlen(text), 200, 300, &s, &n, &skipped);
	CHECK("text: a window", n == 2 && s[0].time == 200 &&
	    s[1].time == 300);
	poolhist_samples_free(s, n);

	s = NULL;
	n = 0;
	poolhist_parse_text("\0\0\n\xff\xfe\n1 1 1 1 0 0 0 0 0 0", 25, 0, 0,
	    &s, &n, NULL);
	CHECK("text: binary garbage holds nothing", n == 0);
	poolhist_samples_free(s, n);
}

static void
test_thin(void)
{
	pool_sample_x *s = xcalloc(1000, sizeof(*s));
	size_t i, n;
	int even = 1;

	for (i = 0; i < 1000; i++) {
		s[i].time = (long long)i + 1;
		s[i].total = 0;
	}
	n = poolhist_thin(s, 1000, 10);
	CHECK("thin: to the maximum", n == 10);
	for (i = 1; i < n; i++)
		if (s[i].time - s[i - 1].time < 100 ||
		    s[i].time - s[i - 1].time > 112)
			even = 0;
	CHECK("thin: evenly", even && s[0].time == 1 && s[9].time == 1000);
	CHECK("thin: under the maximum, untouched",
	    poolhist_thin(s, n, 4096) == 10);
	CHECK("thin: to one", poolhist_thin(s, n, 1) == 1 && s[0].time == 1);
	poolhist_samples_free(s, 1);
}

static off_t
file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

static void
test_file(void)
{
	char dir[] = "/tmp/poolhist_test.XXXXXX", *path, *old;
	pool_sample_x s, *got = NULL;
	size_t n = 0, skipped = 0;
	int fd, i, ok;

	if (mkdtemp(dir) == NULL) {
		CHECK("file: a temporary directory", 0);
		return;
	}
	path = xasprintf("%s/pool_history", dir);
	old = xasprintf("%s.old", path);
	CHECK("file: a missing file repairs fine", poolhist_repair(path) == 0);
	CHECK("file: a missing file reads as empty", poolhist_read(path, 0, 0,
	    &got, &n, &skipped) == 0 && n == 0);
	poolhist_samples_free(got, n);

	ok = 1;
	for (i = 1; i <= 10; i++) {
		s = sample(1000 + i, 1, 1, 1, 0);
		if (poolhist_append(path, &s, 1 << 20) == -1)
			ok = 0;
		poolhist_sample_free(&s);
	}
	CHECK("file: ten appends", ok);
	CHECK("file: ten records read back", poolhist_read(path, 0, 0, &got,
	    &n, &skipped) == 0 && n == 10 && skipped == 0 &&
	    got[9].time == 1010);
	poolhist_samples_free(got, n);

	/* A crash mid-write: a torn record at the end. */
	fd = open(path, O_WRONLY | O_APPEND);
	CHECK("file: torn record written", fd != -1 &&
	    write(fd, "1 1011 3 1 1", 12) == 12);
	if (fd != -1)
		close(fd);
	CHECK("file: the torn record is skipped", poolhist_read(path, 0, 0,
	    &got, &n, &skipped) == 0 && n == 10 && skipped == 1);
	poolhist_samples_free(got, n);
	s = sample(1012, 0, 0, 3, 0);
	CHECK("file: appending after a torn record",
	    poolhist_append(path, &s, 1 << 20) == 0);
	poolhist_sample_free(&s);
	CHECK("file: the torn record was cut, the new one whole",
	    poolhist_read(path, 0, 0, &got, &n, &skipped) == 0 && n == 11 &&
	    skipped == 0 && got[10].time == 1012 &&
	    got[10].states[POOLHIST_CLAIMED] == 3);
	poolhist_samples_free(got, n);
	fd = open(path, O_WRONLY | O_APPEND);
	CHECK("file: torn again", fd != -1 && write(fd, "1 10", 4) == 4);
	if (fd != -1)
		close(fd);
	CHECK("file: repair cuts it", poolhist_repair(path) == 0 &&
	    poolhist_read(path, 0, 0, &got, &n, &skipped) == 0 && n == 11 &&
	    skipped == 0);
	poolhist_samples_free(got, n);

	/* The cap: past it the file moves to .old and a new one begins. */
	ok = 1;
	for (i = 0; i < 200; i++) {
		s = sample(2000 + i, 1, 1, 1, 0);
		if (poolhist_append(path, &s, 2000) == -1)
			ok = 0;
		poolhist_sample_free(&s);
		if (file_size(path) > 2000)
			ok = 0;
	}
	CHECK("file: capped appends", ok);
	CHECK("file: an old file kept", file_size(old) > 0 &&
	    file_size(old) <= 2000);
	CHECK("file: both files read, oldest first, no gap at the seam",
	    poolhist_read(path, 2000, 0, &got, &n, &skipped) == 0 &&
	    n > 50 && got[n - 1].time == 2199 && got[0].time ==
	    got[n - 1].time - (long long)n + 1);
	poolhist_samples_free(got, n);

	unlink(path);
	unlink(old);
	rmdir(dir);
	free(path);
	free(old);
}

/*
 * A collector running as CONDOR_IDS may write its two files but not the
 * directory: past the cap the file is copied to .old and emptied.  As
 * root, a child becomes nobody to try it.
 */
static void
test_rotate_unprivileged(void)
{
	char dir[] = "/tmp/poolhist_rot.XXXXXX", *path, *old;
	pool_sample_x *got = NULL;
	size_t n = 0, skipped = 0;
	int status, fd;
	pid_t pid;

	if (geteuid() != 0) {
		SKIP("rotate: appends as a user who cannot write the "
		    "directory", "not root");
		SKIP("rotate: capped, the old records copied aside",
		    "not root");
		return;
	}
	if (mkdtemp(dir) == NULL) {
		CHECK("rotate: unprivileged: a temporary directory", 0);
		return;
	}
	chmod(dir, 0755);
	path = xasprintf("%s/pool_history", dir);
	old = xasprintf("%s.old", path);
	if ((fd = open(path, O_WRONLY | O_CREAT, 0644)) != -1) {
		(void)fchown(fd, 65534, 65534);
		close(fd);
	}
	if ((fd = open(old, O_WRONLY | O_CREAT, 0644)) != -1) {
		(void)fchown(fd, 65534, 65534);
		close(fd);
	}
	if ((pid = fork()) == 0) {
		pool_sample_x s;
		int i, bad = 0;

		if (setgid(65534) == -1 || setuid(65534) == -1)
			_exit(2);
		for (i = 0; i < 200; i++) {
			s = sample(3000 + i, 1, 1, 1, 0);
			if (poolhist_append(path, &s, 2000) == -1)
				bad = 1;
			poolhist_sample_free(&s);
		}
		_exit(bad);
	}
	CHECK("rotate: appends as a user who cannot write the directory",
	    pid > 0 && waitpid(pid, &status, 0) == pid &&
	    WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK("rotate: capped, the old records copied aside",
	    file_size(path) <= 2000 && file_size(old) > 0 &&
	    poolhist_read(path, 0, 0, &got, &n, &skipped) == 0 && n > 50 &&
	    skipped == 0 && got[n - 1].time == 3199 &&
	    got[0].time == 3199 - (long long)n + 1);
	poolhist_samples_free(got, n);
	unlink(path);
	unlink(old);
	rmdir(dir);
	free(path);
	free(old);
}

int
main(void)
{
	test_accounting();
	test_utilization();
	test_records();
	test_text();
	test_thin();
	test_file();
	test_rotate_unprivileged();
	TEST_EXIT();
}
