/*
 * sqlite_main: a SQLite workload (Debian's libsqlite3.a, nobody here
 * wrote it): create test.db in the working directory, insert 10,000 rows
 * in transactions of 100 (each commit journaled and fsynced), index,
 * update, and query.  Prints the query results.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sqlite3.h>

static sqlite3 *db;

static void
die(const char *what)
{
	fprintf(stderr, "sqlite: %s: %s\n", what, sqlite3_errmsg(db));
	exit(1);
}

static void
exec(const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "sqlite: %s: %s\n", sql, err);
		exit(1);
	}
}

static int
print_row(void *arg, int n, char **v, char **col)
{
	int i;

	printf("  %s:", (const char *)arg);
	for (i = 0; i < n; i++)
		printf(" %s=%s", col[i], v[i] ? v[i] : "NULL");
	printf("\n");
	return 0;
}

static void
query(const char *label, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, print_row, (void *)label, &err) != SQLITE_OK) {
		fprintf(stderr, "sqlite: %s: %s\n", sql, err);
		exit(1);
	}
}

int
main(void)
{
	sqlite3_stmt *ins;
	unsigned long x = 42;
	int tx, i, id = 0;

	unlink("test.db");
	if (sqlite3_open("test.db", &db) != SQLITE_OK)
		die("open");
	exec("PRAGMA temp_store=MEMORY");
	exec("PRAGMA journal_mode=DELETE");
	exec("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v REAL, "
	    "k INTEGER)");
	if (sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?, ?, ?, ?)", -1,
	    &ins, NULL) != SQLITE_OK)
		die("prepare");
	for (tx = 0; tx < 100; tx++) {
		exec("BEGIN");
		for (i = 0; i < 100; i++) {
			char name[32];
			long spin;

			for (spin = 0; spin < 60000; spin++)
				x = x * 6364136223846793005UL + 1442695040888963407UL;
			snprintf(name, sizeof(name), "n%08lx", x >> 32);
			sqlite3_bind_int(ins, 1, ++id);
			sqlite3_bind_text(ins, 2, name, -1, SQLITE_TRANSIENT);
			sqlite3_bind_double(ins, 3, (double)(x % 100000) / 7.0);
			sqlite3_bind_int(ins, 4, (int)(x % 1000));
			if (sqlite3_step(ins) != SQLITE_DONE)
				die("insert");
			sqlite3_reset(ins);
		}
		exec("COMMIT");
		if (tx % 10 == 9) {
			char label[32];

			snprintf(label, sizeof(label), "after tx %d", tx + 1);
			query(label, "SELECT count(*) AS n, sum(k) AS sk FROM t");
		}
	}
	sqlite3_finalize(ins);
	exec("CREATE INDEX tk ON t(k)");
	exec("UPDATE t SET v = v * 2 WHERE k % 7 = 0");
	query("totals", "SELECT count(*) AS n, sum(k) AS sk, round(avg(v), 4) "
	    "AS av, min(name) AS lo, max(name) AS hi FROM t");
	query("groups", "SELECT k % 10 AS g, count(*) AS n, round(sum(v), 2) "
	    "AS sv FROM t GROUP BY g ORDER BY g");
	query("like", "SELECT count(*) AS n FROM t WHERE name LIKE 'n0%'");
	query("range", "SELECT count(*) AS n FROM t WHERE k BETWEEN 100 AND "
	    "199");
	sqlite3_close(db);
	printf("sqlite done\n");
	return 0;
}
