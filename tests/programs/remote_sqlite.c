/*
 * remote_sqlite.c: a job using SQLite (Debian's libsqlite3.a), for
 * tests/pool/remote_libs_test.sh.  Creates test.db in the current
 * directory, inserts 10,000 rows in 100 transactions, queries them and
 * prints the results and a dump of the table, so that a native run and a
 * run under Condor can be compared line for line.  The database file
 * itself is deterministic too (same statements, same page images).
 *
 * If held.db exists (the test holds an exclusive lock on it from another
 * process), it tries to read and to write it and prints what SQLite says:
 * the locks are taken where the file is, so the job must see them.
 *
 * Usage: remote_sqlite [rows [per-transaction]]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

static sqlite3 *db;

static void
die(const char *what)
{
	printf("%s: %s\n", what, sqlite3_errmsg(db));
	exit(1);
}

static void
exec(const char *sql)
{
	char *err = 0;

	if (sqlite3_exec(db, sql, 0, 0, &err) != SQLITE_OK) {
		printf("%s: %s\n", sql, err ? err : "?");
		exit(1);
	}
}

/* Print every row of SQL, columns separated by '|'. */
static void
query(const char *sql)
{
	sqlite3_stmt *st;
	int i, n;

	if (sqlite3_prepare_v2(db, sql, -1, &st, 0) != SQLITE_OK)
		die(sql);
	n = sqlite3_column_count(st);
	while (sqlite3_step(st) == SQLITE_ROW)
		for (i = 0; i < n; i++)
			printf("%s%s", sqlite3_column_text(st, i) ?
			    (const char *)sqlite3_column_text(st, i) : "NULL",
			    i + 1 < n ? "|" : "\n");
	if (sqlite3_finalize(st) != SQLITE_OK)
		die(sql);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* held.db is locked by someone else: reading and writing it must fail. */
static void
try_held(void)
{
	const char *sql[] = { "SELECT count(*) FROM h",
	    "INSERT INTO h VALUES (2)" };
	sqlite3 *h;
	size_t i;
	int rc;

	if (sqlite3_open("held.db", &h) != SQLITE_OK) {
		printf("held.db: %s\n", sqlite3_errmsg(h));
		return;
	}
	sqlite3_busy_timeout(h, 0);
	for (i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		rc = sqlite3_exec(h, sql[i], 0, 0, 0);
		printf("held.db: %s: %d %s\n", sql[i], rc, sqlite3_errmsg(h));
	}
	sqlite3_close(h);
}

int
main(int argc, char **argv)
{
	int rows = argc > 1 ? atoi(argv[1]) : 10000;
	int per = argc > 2 ? atoi(argv[2]) : 100;
	sqlite3_stmt *ins;
	char name[64];
	double t0, t1;
	int i;

	if (unlink("test.db") == -1 && errno != ENOENT)
		perror("unlink test.db");
	if (sqlite3_open("test.db", &db) != SQLITE_OK)
		die("open test.db");
	exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, "
	    "value INTEGER, score REAL)");
	exec("CREATE INDEX t_value ON t (value)");
	if (sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?, ?, ?, ?)", -1,
	    &ins, 0) != SQLITE_OK)
		die("prepare insert");
	t0 = now();
	for (i = 1; i <= rows; i++) {
		if ((i - 1) % per == 0)
			exec("BEGIN");
		snprintf(name, sizeof(name), "row-%05d-%x", i, i * 2654435761u);
		sqlite3_bind_int(ins, 1, i);
		sqlite3_bind_text(ins, 2, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(ins, 3, (i * 7919) % 1000);
		sqlite3_bind_double(ins, 4, i / 8.0);
		if (sqlite3_step(ins) != SQLITE_DONE)
			die("insert");
		sqlite3_reset(ins);
		if (i % per == 0 || i == rows)
			exec("COMMIT");
	}
	t1 = now();
	sqlite3_finalize(ins);
	fprintf(stderr, "inserts: %d rows, %d per transaction, %.3f s\n",
	    rows, per, t1 - t0);
	exec("UPDATE t SET score = score * 2 WHERE value < 10");
	exec("DELETE FROM t WHERE id % 97 = 0");
	query("SELECT count(*), sum(value), total(score), min(id), max(id) "
	    "FROM t");
	query("SELECT value, count(*) FROM t GROUP BY value "
	    "ORDER BY count(*) DESC, value LIMIT 5");
	query("SELECT * FROM t WHERE id IN (1, 2, 500, 9999) ORDER BY id");
	query("SELECT * FROM t WHERE value = 123 ORDER BY id LIMIT 3");
	query("PRAGMA integrity_check");
	/* The dump, as `sqlite3 test.db .dump` would show the rows. */
	query("SELECT 'INSERT INTO t VALUES(' || id || ',''' || name || ''',' "
	    "|| value || ',' || score || ');' FROM t ORDER BY id");
	if (sqlite3_close(db) != SQLITE_OK)
		die("close");
	if (access("held.db", F_OK) == 0)
		try_held();
	if (access("test.db-journal", F_OK) == 0)
		printf("journal left behind\n");
	printf("done\n");
	return 0;
}
