/*
 * sqlite_cache: SQLite (Debian's libsqlite3.a) with a large page cache:
 * 128 MiB of cache, a table of 60,000 rows of 600-byte text filled in
 * one transaction (the whole database stays in the cache), an index,
 * then rounds of queries, updates and deletes that move the cache's
 * pages around, and a VACUUM.  Prints the results; deterministic.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

static sqlite3 *db;
static unsigned long long rng = 88172645463325252ULL;

static unsigned
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)rng;
}

static void
exec(const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "sqlite_cache: %s: %s\n", sql, err);
		exit(1);
	}
}

static void
query(const char *what, const char *sql)
{
	sqlite3_stmt *st;
	int i;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "sqlite_cache: %s: %s\n", sql,
		    sqlite3_errmsg(db));
		exit(1);
	}
	printf("%s:", what);
	while (sqlite3_step(st) == SQLITE_ROW)
		for (i = 0; i < sqlite3_column_count(st); i++)
			printf(" %s", (const char *)sqlite3_column_text(st, i));
	printf("\n");
	sqlite3_finalize(st);
}

int
main(void)
{
	sqlite3_stmt *ins;
	char text[601], sql[256];
	int i, j, round;

	remove("cache.db");
	if (sqlite3_open("cache.db", &db) != SQLITE_OK)
		return 1;
	exec("PRAGMA cache_size = -131072");
	exec("CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER, v TEXT)");
	exec("BEGIN");
	if (sqlite3_prepare_v2(db, "INSERT INTO t (k, v) VALUES (?, ?)", -1,
	    &ins, NULL) != SQLITE_OK)
		return 1;
	for (i = 0; i < 60000; i++) {
		for (j = 0; j < 600; j++)
			text[j] = (char)('a' + next() % 26);
		text[600] = '\0';
		sqlite3_bind_int(ins, 1, (int)(next() % 1000));
		sqlite3_bind_text(ins, 2, text, 600, SQLITE_TRANSIENT);
		if (sqlite3_step(ins) != SQLITE_DONE)
			return 1;
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	exec("COMMIT");
	exec("CREATE INDEX tk ON t (k)");
	query("rows", "SELECT count(*), sum(k) FROM t");
	for (round = 0; round < 12; round++) {
		snprintf(sql, sizeof(sql), "SELECT count(*), sum(length(v)), "
		    "min(substr(v, 1, 8)) FROM t WHERE k %% 12 = %d", round);
		query("select", sql);
		snprintf(sql, sizeof(sql), "UPDATE t SET v = substr(v, 301) || "
		    "substr(v, 1, 300), k = (k * 7 + %d) %% 1000 WHERE id %% 12 "
		    "= %d", round, round);
		exec(sql);
		snprintf(sql, sizeof(sql), "DELETE FROM t WHERE k = %d",
		    round * 83 % 1000);
		exec(sql);
		query("after", "SELECT count(*), sum(k), max(substr(v, 100, 6)) "
		    "FROM t");
	}
	exec("VACUUM");
	query("vacuumed", "SELECT count(*), sum(k), min(v) < max(v) FROM t");
	query("pages", "PRAGMA page_count");
	sqlite3_close(db);
	remove("cache.db");
	return 0;
}
