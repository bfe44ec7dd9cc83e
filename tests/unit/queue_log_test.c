/*
 * queue_log_test.c: the job queue's transaction log.  A log of several
 * transactions is cut at every byte offset and replayed: each committed
 * transaction is there entirely or (its commit line cut) not at all.
 * Garbage and flipped bytes stop replay at the last good commit; random
 * files never crash it; compaction keeps the state; a failed write
 * leaves nothing behind; 10000 jobs go in and come back.  Group commit:
 * N durable commits made in group mode are synced by one qlog_sync.
 *
 * checks: 74
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "log.h"
#include "queue_log.h"
#include "test.h"
#include "xalloc.h"

#define MAX_TX	32

static char	 dir[256];
static char	 path[512];

/* The committed state as text: counter, then every ad in order. */
static char *
dump(const struct qlog *q)
{
	const struct qlog_entry *e;
	struct buf b;

	buf_init(&b);
	buf_printf(&b, "counter %d\n", qlog_counter(q));
	for (e = qlog_first(q); e != NULL; e = qlog_next(e)) {
		buf_printf(&b, "[%d.%d]\n", qlog_entry_cluster(e),
		    qlog_entry_proc(e));
		ad_print(qlog_entry_ad(e), &b);
	}
	return b.data;
}

static char *
read_file(const char *p, long long *len)
{
	struct stat st;
	char *data;
	int fd;

	if ((fd = open(p, O_RDONLY)) == -1 || fstat(fd, &st) == -1)
		return NULL;
	data = xmalloc((size_t)st.st_size + 1);
	if (read(fd, data, (size_t)st.st_size) != st.st_size) {
		close(fd);
		free(data);
		return NULL;
	}
	close(fd);
	data[st.st_size] = '\0';
	*len = st.st_size;
	return data;
}

static void
write_file(const char *p, const char *data, long long len)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd == -1 || write(fd, data, (size_t)len) != len) {
		perror(p);
		exit(1);
	}
	close(fd);
}

static long long
file_size(const char *p)
{
	struct stat st;

	return stat(p, &st) == -1 ? -1 : (long long)st.st_size;
}

static struct qlog *
open_log(const char *p)
{
	char err[256];
	struct qlog *q = qlog_open(p, err, sizeof(err));

	if (q == NULL) {
		printf("FAIL open %s: %s\n", p, err);
		exit(1);
	}
	return q;
}

/*
 * Build a log of several transactions of every kind; record the state
 * and the file size after each commit.  Returns how many.
 */
static int
build_log(const char *p, char **states, long long *ends)
{
	struct qlog *q;
	struct ad *ad;
	char err[256];
	int n = 0, ok = 1;

	unlink(p);
	q = open_log(p);
	states[n] = dump(q);
	ends[n++] = qlog_file_size(q);

	/* A cluster of three procs, shared ad and strange text. */
	qlog_begin(q);
	qlog_set_counter(q, 2);
	ad = ad_new();
	ad_set_string(ad, "Owner", "alice");
	ad_set_string(ad, "Args", "a \"quoted\"\nline\\with\ttabs\r\x01");
	ad_set_int(ad, "JobStatus", 0);
	qlog_new_ad_from(q, 1, -1, ad);
	qlog_new_ad(q, 1, 0);
	qlog_set_int(q, 1, 0, "ProcId", 0);
	qlog_new_ad(q, 1, 1);
	qlog_set_int(q, 1, 1, "ProcId", 1);
	qlog_new_ad(q, 1, 2);
	qlog_set_int(q, 1, 2, "ProcId", 2);
	ok &= qlog_set(q, 1, 2, "Requirements",
	    "Memory > 10 && Arch == \"X86_64\"", err, sizeof(err)) == 0;
	ok &= qlog_commit(q, 1) == 0;
	states[n] = dump(q);
	ends[n++] = qlog_file_size(q);

	/* Status changes, lazily. */
	qlog_begin(q);
	qlog_set_int(q, 1, 0, "JobStatus", 2);
	qlog_set_string(q, 1, 0, "RemoteHost", "exec1");
	qlog_set_real(q, 1, 0, "RemoteUserCpu", 1.5);
	ok &= qlog_commit(q, 0) == 0;
	states[n] = dump(q);
	ends[n++] = qlog_file_size(q);

	/* Delete and destroy. */
	qlog_begin(q);
	qlog_delete(q, 1, 0, "RemoteHost");
	qlog_set_string(q, 1, 0, "LastRemoteHost", "exec1");
	qlog_destroy(q, 1, 1);
	ok &= qlog_commit(q, 1) == 0;
	states[n] = dump(q);
	ends[n++] = qlog_file_size(q);

	/* A second cluster. */
	qlog_begin(q);
	qlog_set_counter(q, 3);
	qlog_new_ad(q, 2, -1);
	qlog_set_string(q, 2, -1, "Owner", "bob");
	qlog_set_string(q, 2, -1, "Cmd", "/bin/\xc3\xa9t\xc3\xa9");
	qlog_new_ad(q, 2, 0);
	qlog_set_int(q, 2, 0, "ProcId", 0);
	ok &= qlog_commit(q, 1) == 0;
	states[n] = dump(q);
	ends[n++] = qlog_file_size(q);

	/* An empty transaction writes nothing. */
	qlog_begin(q);
	ok &= qlog_commit(q, 1) == 0;
	ok &= qlog_file_size(q) == ends[n - 1];

	/* The first cluster goes away entirely. */
	qlog_begin(q);
	qlog_destroy(q, 1, 0);
	qlog_destroy(q, 1, 2);
	qlog_destroy(q, 1, -1);
	ok &= qlog_commit(q, 1) == 0;
	states[n] = dump(q);
	ends[n++] = qlog_file_size(q);

	/* An attribute replaced by a different kind of value. */
	qlog_begin(q);
	ok &= qlog_set(q, 2, 0, "JobStatus", "5", err, sizeof(err)) == 0;
	qlog_set_string(q, 2, 0, "HoldReason", "via condor_hold (by user "
	    "bob)");
	ok &= qlog_commit(q, 1) == 0;
	states[n] = dump(q);
	ends[n++] = qlog_file_size(q);

	CHECK("build: every commit succeeded", ok);
	CHECK("build: file size matches", file_size(p) == ends[n - 1]);
	qlog_close(q);
	return n;
}

static int
state_index(const char *got, char **states, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--)
		if (strcmp(got, states[i]) == 0)
			return i;
	return -1;
}

static void
test_basic(void)
{
	char *states[MAX_TX], *s, err[256];
	long long ends[MAX_TX];
	struct qlog *q;
	int n, i;

	n = build_log(path, states, ends);
	q = open_log(path);
	s = dump(q);
	CHECK_STR("reopen gives the final state", s, states[n - 1]);
	CHECK("replay counted the transactions",
	    qlog_replay_stats(q)->transactions == n - 1);
	CHECK("nothing dropped", qlog_replay_stats(q)->dropped_bytes == 0);
	CHECK("counter", qlog_counter(q) == 3);
	CHECK("lookup", qlog_ad(q, 2, 0) != NULL && qlog_ad(q, 1, 0) == NULL);
	CHECK("count", qlog_count(q) == 2);
	free(s);

	/* Bad input to qlog_set leaves the transaction usable. */
	qlog_begin(q);
	CHECK("bad name refused",
	    qlog_set(q, 2, 0, "1bad", "1", err, sizeof(err)) == -1);
	CHECK("bad expression refused",
	    qlog_set(q, 2, 0, "Good", "1 +", err, sizeof(err)) == -1);
	CHECK("good one accepted",
	    qlog_set(q, 2, 0, "Good", "1 + 2", err, sizeof(err)) == 0);
	CHECK("pending", qlog_pending(q) == 1);
	qlog_abort(q);
	CHECK("abort leaves nothing", qlog_pending(q) == 0 &&
	    ad_lookup(qlog_ad(q, 2, 0), "Good") == NULL);
	qlog_close(q);
	for (i = 0; i < n; i++)
		free(states[i]);
}

/*
 * Cut the log at every byte offset: the state must be exactly the one
 * after the last transaction whose commit line is complete, the file
 * must be cut back to it, and a new commit must replay after it.
 */
static void
test_truncation(void)
{
	char *states[MAX_TX], *data, *s, cut[600], name[64];
	long long ends[MAX_TX], len, k;
	struct qlog *q;
	int n, j, bad = 0, badsize = 0, badnext = 0;

	n = build_log(path, states, ends);
	data = read_file(path, &len);
	snprintf(cut, sizeof(cut), "%s/cut.log", dir);
	for (k = 0; k <= len; k++) {
		write_file(cut, data, k);
		q = open_log(cut);
		for (j = n - 1; j > 0 && ends[j] > k; j--)
			;
		s = dump(q);
		if (strcmp(s, states[j]) != 0) {
			if (bad++ < 3)
				printf("FAIL cut at %lld: got\n%s\nwant\n%s\n",
				    k, s, states[j]);
		}
		free(s);
		if (file_size(cut) != ends[j])
			badsize++;
		/* Life goes on after the cut. */
		snprintf(name, sizeof(name), "After%lld", k);
		qlog_begin(q);
		qlog_new_ad(q, 99, 0);
		qlog_set_int(q, 99, 0, name, k);
		qlog_commit(q, 0);
		qlog_close(q);
		q = open_log(cut);
		if (qlog_ad(q, 99, 0) == NULL ||
		    ad_lookup(qlog_ad(q, 99, 0), name) == NULL ||
		    qlog_replay_stats(q)->dropped_bytes != 0)
			badnext++;
		qlog_close(q);
	}
	printf("%s every one of %lld cut points\n", bad ? "FAIL" : "PASS",
	    len + 1);
	if (bad)
		test_failures++;
	CHECK("every cut file is cut back to the last commit", badsize == 0);
	CHECK("a commit after a cut replays", badnext == 0);
	free(data);
	for (j = 0; j < n; j++)
		free(states[j]);
}

/* Insert LINE (LLEN bytes) at offset AT of the log and replay. */
static char *
replay_with(const char *data, long long len, long long at, const char *line,
    size_t llen, long long *dropped)
{
	char cut[600], *s;
	struct buf b;
	struct qlog *q;

	snprintf(cut, sizeof(cut), "%s/garbage.log", dir);
	buf_init(&b);
	buf_add(&b, data, (size_t)at);
	buf_add(&b, line, llen);
	buf_add(&b, data + at, (size_t)(len - at));
	write_file(cut, b.data, (long long)b.len);
	buf_free(&b);
	q = open_log(cut);
	s = dump(q);
	*dropped = qlog_replay_stats(q)->dropped_bytes;
	qlog_close(q);
	return s;
}

#define LINE(s)	{ s, sizeof(s) - 1 }

static void
test_garbage(void)
{
	static const struct {
		const char	*text;
		size_t		 len;
	} lines[] = {
		LINE("garbage\n"),
		LINE("B\n"),
		LINE("E 00000000\n"),
		LINE("S 1 0 Foo 1\n"),
		LINE("Q what\n"),
		LINE("N 1\n"),
		LINE("N 0 0\n"),
		LINE("N 1 -2\n"),
		LINE("N 99999999999 0\n"),
		LINE("\x01\x02\x03\n"),
		LINE("\0\0\0\n"),
		LINE("S 1 0 Bad\\q 1\n"),
		LINE("#comment is fine\n"),
		LINE("\n"),
	};
	char *states[MAX_TX], *data, *s, name[80], huge_path[600];
	long long ends[MAX_TX], len, dropped;
	struct qlog *q;
	struct buf b;
	size_t i;
	int n, j, bad;

	n = build_log(path, states, ends);
	data = read_file(path, &len);
	/* Garbage between transactions 2 and 3: 0..2 survive. */
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		s = replay_with(data, len, ends[2], lines[i].text,
		    lines[i].len, &dropped);
		snprintf(name, sizeof(name), "garbage line %zu", i);
		if (lines[i].text[0] == '#' || lines[i].text[0] == '\n')
			CHECK_STR(name, s, states[n - 1]);
		else
			CHECK(name, strcmp(s, states[2]) == 0 && dropped > 0);
		free(s);
	}
	/* A record the right shape for a transaction, inside one. */
	s = replay_with(data, len, ends[2] + 2, "S 1 0 Injected 1\n", 17,
	    &dropped);
	CHECK("an injected record breaks the checksum",
	    strcmp(s, states[2]) == 0);
	free(s);

	/* Every single flipped byte: replay gives some earlier state. */
	bad = 0;
	for (j = 0; j < len; j++) {
		char cut[600];

		data[j] ^= 0x20;
		snprintf(cut, sizeof(cut), "%s/flip.log", dir);
		write_file(cut, data, len);
		q = open_log(cut);
		s = dump(q);
		if (state_index(s, states, n) < 0 ||
		    (strcmp(s, states[n - 1]) == 0 &&
		    qlog_replay_stats(q)->dropped_bytes == 0 &&
		    data[j] != '#'))
			bad++;
		free(s);
		qlog_close(q);
		data[j] ^= 0x20;
	}
	CHECK("every flipped byte is caught", bad == 0);

	/* A huge line. */
	snprintf(huge_path, sizeof(huge_path), "%s/huge.log", dir);
	buf_init(&b);
	buf_add(&b, data, (size_t)ends[1]);
	for (i = 0; i < QLOG_MAX_LINE + 10; i++)
		buf_addc(&b, 'S');
	buf_addc(&b, '\n');
	write_file(huge_path, b.data, (long long)b.len);
	buf_free(&b);
	q = open_log(huge_path);
	s = dump(q);
	CHECK_STR("a huge line stops replay", s, states[1]);
	free(s);
	qlog_close(q);
	snprintf(huge_path + strlen(huge_path), sizeof(huge_path) -
	    strlen(huge_path), ".bad");
	CHECK("the dropped tail is saved",
	    file_size(huge_path) > QLOG_MAX_LINE);
	free(data);
	for (j = 0; j < n; j++)
		free(states[j]);
}

static unsigned long long rng = 88172645463325252ULL;

static unsigned
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 11);
}

/*
 * Random files, and valid logs with random damage, never crash replay.
 * The logs are replayed in a child, so that a crash is a failed check
 * rather than the end of the test; the child's exit status is how many
 * damaged logs replayed to a state that was never committed (at most
 * 100).
 */
static void
test_fuzz(void)
{
	char *states[MAX_TX], *data, *s, cut[600];
	static const char alphabet[] = "BCNSDXE# 0123456789-\\xn\n\"abc";
	long long ends[MAX_TX], len;
	struct qlog *q;
	int n, i, j, bad = 0, status;
	pid_t pid;

	n = build_log(path, states, ends);
	data = read_file(path, &len);
	snprintf(cut, sizeof(cut), "%s/fuzz.log", dir);
	fflush(stdout);
	if ((pid = fork()) == -1) {
		CHECK("fuzz: a child to replay in", 0);
		return;
	}
	if (pid > 0) {
		status = 0;
		CHECK("fuzz: 3000 random logs replayed without a crash",
		    waitpid(pid, &status, 0) == pid && WIFEXITED(status));
		CHECK("fuzz: damaged logs give an earlier state",
		    WIFEXITED(status) && WEXITSTATUS(status) == 0);
		free(data);
		for (j = 0; j < n; j++)
			free(states[j]);
		return;
	}
	for (i = 0; i < 3000; i++) {
		struct buf b;
		int kind = i % 3, m;

		buf_init(&b);
		if (kind == 0) {
			m = (int)(rnd() % 400);
			for (j = 0; j < m; j++)
				buf_addc(&b, (int)(rnd() & 0xff));
		} else if (kind == 1) {
			m = (int)(rnd() % 400);
			for (j = 0; j < m; j++)
				buf_addc(&b, alphabet[rnd() %
				    (sizeof(alphabet) - 1)]);
		} else {
			buf_add(&b, data, (size_t)len);
			m = 1 + (int)(rnd() % 4);
			for (j = 0; j < m; j++)
				b.data[rnd() % b.len] = (char)rnd();
		}
		write_file(cut, b.data, (long long)b.len);
		q = open_log(cut);
		s = dump(q);
		if (kind == 2 && state_index(s, states, n) < 0)
			bad++;
		free(s);
		qlog_close(q);
		buf_free(&b);
	}
	_exit(bad < 100 ? bad : 100);
}

static void
test_compaction(void)
{
	struct qlog *q;
	char *before, *after, *again;
	long long big, small;
	int i;

	unlink(path);
	q = open_log(path);
	qlog_begin(q);
	qlog_set_counter(q, 2);
	qlog_new_ad(q, 1, -1);
	qlog_set_string(q, 1, -1, "Owner", "carol");
	for (i = 0; i < 200; i++) {
		qlog_new_ad(q, 1, i);
		qlog_set_int(q, 1, i, "ProcId", i);
	}
	qlog_commit(q, 1);
	/* Churn: many updates to the same attributes. */
	for (i = 0; i < 5000; i++) {
		qlog_begin(q);
		qlog_set_int(q, 1, i % 200, "JobStatus", i % 5);
		qlog_set_string(q, 1, i % 200, "RemoteHost",
		    "some.long.host.name.example.org");
		qlog_commit(q, 0);
	}
	for (i = 0; i < 150; i++) {
		qlog_begin(q);
		qlog_destroy(q, 1, i);
		qlog_commit(q, 0);
	}
	CHECK("churn makes compaction due", qlog_should_compact(q, 4));
	before = dump(q);
	big = qlog_file_size(q);
	CHECK("compaction succeeds", qlog_compact(q) == 0);
	small = qlog_file_size(q);
	after = dump(q);
	CHECK_STR("compaction keeps the state", after, before);
	CHECK("compaction shrinks the log", small < big / 4);
	CHECK("the file is what was written", file_size(path) == small);
	CHECK("compaction no longer due", !qlog_should_compact(q, 4));
	qlog_begin(q);
	qlog_set_int(q, 1, 199, "AfterCompaction", 1);
	CHECK("commit after compaction", qlog_commit(q, 1) == 0);
	free(after);
	after = dump(q);
	qlog_close(q);
	q = open_log(path);
	again = dump(q);
	CHECK_STR("compacted log replays", again, after);
	{
		char tmp[600];

		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		CHECK("no tmp file left", file_size(tmp) == -1);
	}
	qlog_close(q);
	free(before);
	free(after);
	free(again);

	/* An empty queue compacts to a valid log. */
	unlink(path);
	q = open_log(path);
	qlog_begin(q);
	qlog_set_counter(q, 7);
	qlog_commit(q, 1);
	CHECK("empty compaction", qlog_compact(q) == 0);
	qlog_close(q);
	q = open_log(path);
	CHECK("empty compaction keeps the counter", qlog_counter(q) == 7 &&
	    qlog_count(q) == 0 && qlog_replay_stats(q)->dropped_bytes == 0);
	qlog_close(q);
}

/* A write that fails (file size limit) leaves nothing behind. */
static void
test_failed_write(void)
{
	struct rlimit old, lim;
	struct qlog *q;
	char *before, *s;
	int i, rc;

	unlink(path);
	q = open_log(path);
	qlog_begin(q);
	qlog_new_ad(q, 1, 0);
	qlog_set_int(q, 1, 0, "Small", 1);
	qlog_commit(q, 1);
	before = dump(q);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = (rlim_t)qlog_file_size(q) + 100;
	setrlimit(RLIMIT_FSIZE, &lim);
	qlog_begin(q);
	for (i = 0; i < 100; i++)
		qlog_set_int(q, 1, 0, "Big", i);
	rc = qlog_commit(q, 1);
	setrlimit(RLIMIT_FSIZE, &old);
	CHECK("a write past the limit fails", rc == -1 && errno == EFBIG);
	s = dump(q);
	CHECK_STR("nothing of it is applied", s, before);
	free(s);
	CHECK("the file is cut back", file_size(path) == qlog_file_size(q));
	qlog_begin(q);
	qlog_set_int(q, 1, 0, "Later", 2);
	CHECK("the next commit works", qlog_commit(q, 1) == 0);
	free(before);
	before = dump(q);
	qlog_close(q);
	q = open_log(path);
	s = dump(q);
	CHECK_STR("and replays cleanly", s, before);
	CHECK("with nothing dropped",
	    qlog_replay_stats(q)->dropped_bytes == 0);
	free(s);
	free(before);
	qlog_close(q);
}

static double
now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Job 1.PROC carries the last update test_performance gave it. */
static int
updated(const struct qlog *q, int proc)
{
	const struct ad *ad = qlog_ad(q, 1, proc);
	long long status = 0, id = -1;
	char *host = NULL;
	int ok;

	ok = ad != NULL && ad_get_int(ad, "JobStatus", &status) == 0 &&
	    ad_get_int(ad, "ProcId", &id) == 0 &&
	    ad_get_string(ad, "RemoteHost", &host) == 0 &&
	    status == 2 && id == proc && strcmp(host, "exec1") == 0;
	free(host);
	return ok;
}

/*
 * 10000 jobs submitted in one durable transaction, updated lazily,
 * replayed and compacted.  The times are printed for the benchmark.
 */
/*
 * Group commit: durable commits in group mode are written and applied
 * at once but synced only by qlog_sync, once for all of them, however
 * many; out of group mode each durable commit syncs.
 */
static void
test_group(void)
{
	struct qlog *q;
	long long syncs;
	int i, ok = 1;

	unlink(path);
	q = open_log(path);
	syncs = qlog_syncs(q);
	for (i = 0; i < 3; i++) {
		qlog_begin(q);
		qlog_new_ad(q, 1, i);
		ok &= qlog_commit(q, 1) == 0;
	}
	CHECK("without group commit each durable commit syncs",
	    ok && qlog_syncs(q) - syncs == 3 && !qlog_sync_wanted(q));
	qlog_set_group(q, 1);
	syncs = qlog_syncs(q);
	CHECK("nothing waits for a sync at first", !qlog_sync_wanted(q));
	for (i = 3; i < 103; i++) {
		qlog_begin(q);
		qlog_new_ad(q, 1, i);
		qlog_set_int(q, 1, i, "ProcId", i);
		ok &= qlog_commit(q, 1) == 0;
	}
	CHECK("100 durable commits in group mode: written and applied, "
	    "not synced", ok && qlog_count(q) == 103 &&
	    qlog_syncs(q) == syncs && qlog_commits(q) >= 103);
	CHECK("... a sync is wanted", qlog_sync_wanted(q));
	CHECK("... one qlog_sync covers them all",
	    qlog_sync(q) == 0 && qlog_syncs(q) - syncs == 1 &&
	    !qlog_sync_wanted(q));
	CHECK("... a second finds nothing to sync",
	    qlog_sync(q) == 0 && qlog_syncs(q) - syncs == 1);
	qlog_begin(q);
	qlog_new_ad(q, 1, 200);
	ok &= qlog_commit(q, 0) == 0;
	CHECK("a commit that need not be durable wants no sync",
	    ok && !qlog_sync_wanted(q));
	qlog_close(q);
	q = open_log(path);
	CHECK("the log replays every one of them", qlog_count(q) == 104 &&
	    qlog_ad(q, 1, 102) != NULL && qlog_ad(q, 1, 200) != NULL);
	qlog_close(q);
	unlink(path);
}

static void
test_performance(void)
{
	struct qlog *q;
	double t0, t_submit, t_updates, t_replay, t_compact;
	char args[64];
	int i;

	unlink(path);
	q = open_log(path);
	t0 = now();
	qlog_begin(q);
	qlog_set_counter(q, 2);
	qlog_new_ad(q, 1, -1);
	qlog_set_string(q, 1, -1, "Owner", "dave");
	qlog_set_string(q, 1, -1, "Cmd", "/home/dave/sim");
	qlog_set_int(q, 1, -1, "JobStatus", 0);
	for (i = 0; i < 10000; i++) {
		struct ad *ad = ad_new();

		snprintf(args, sizeof(args), "-seed %d -out run%d.dat", i, i);
		ad_set_int(ad, "ProcId", i);
		ad_set_string(ad, "Args", args);
		qlog_new_ad_from(q, 1, i, ad);
	}
	CHECK("10000 jobs in one transaction", qlog_commit(q, 1) == 0);
	t_submit = now() - t0;
	t0 = now();
	for (i = 0; i < 10000; i++) {
		qlog_begin(q);
		qlog_set_int(q, 1, i, "JobStatus", 2);
		qlog_set_string(q, 1, i, "RemoteHost", "exec1");
		qlog_commit(q, 0);
	}
	CHECK("10000 lazy updates synced", qlog_sync(q) == 0);
	t_updates = now() - t0;
	qlog_close(q);
	t0 = now();
	q = open_log(path);
	t_replay = now() - t0;
	CHECK("10000 jobs replayed", qlog_count(q) == 10001);
	CHECK("the lazy updates replayed", updated(q, 0) && updated(q, 9999));
	t0 = now();
	CHECK("10000 jobs compacted", qlog_compact(q) == 0);
	t_compact = now() - t0;
	qlog_close(q);
	q = open_log(path);
	CHECK("the compacted log replays the 10000 jobs",
	    qlog_count(q) == 10001 && updated(q, 0) && updated(q, 9999));
	qlog_close(q);
	/* How long it took is for bench/queue_log_bench.sh, not a check. */
	printf("# 10000 jobs: submit %.3fs, 10000 updates %.3fs, replay "
	    "%.3fs, compaction %.3fs\n", t_submit, t_updates, t_replay,
	    t_compact);
}

int
main(void)
{
	unsigned crc;

	log_init("queue_log_test");
	/* Thousands of logs are cut and replayed, each with an fsync: on a
	 * memory file system they cost nothing, whatever else the disk is
	 * doing. */
	snprintf(dir, sizeof(dir), "%s/qlog_test.XXXXXX",
	    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/job_queue.log", dir);
	crc = qlog_crc32(0, "123456789", 9);
	CHECK("crc32 check value", crc == 0xcbf43926u);

	/* Replay warnings are expected; keep them out of the output. */
	freopen("/dev/null", "w", stderr);
	test_basic();
	test_truncation();
	test_garbage();
	test_fuzz();
	test_compaction();
	test_failed_write();
	test_group();
	test_performance();

	if (test_failures == 0) {
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	} else
		printf("# files kept in %s\n", dir);
	TEST_EXIT();
}
