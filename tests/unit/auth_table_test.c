/*
 * auth_table_test: the authorization table (src/common/auth_table.c)
 * and the RPC programs (the .x files of include) agree: every procedure of every
 * program has a level, every row of the table names a procedure that
 * exists, no procedure has two rows; and the check itself catches a
 * procedure put in without a level.  Run from the top of the tree.
 * checks: 5
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "test.h"

#define MAXP	512

static char	*procs[MAXP];
static int	 nprocs;

/* "TYPE NAME(ARGS) = N;" inside a version block: NAME. */
static void
scan_line(const char *line)
{
	const char *p = line, *open, *name;
	size_t n;

	while (isspace((unsigned char)*p))
		p++;
	if ((open = strchr(p, '(')) == NULL || strstr(p, ") =") == NULL ||
	    strchr(open, ';') == NULL || strncmp(p, "program", 7) == 0 ||
	    strncmp(p, "version", 7) == 0)
		return;
	for (name = open; name > p && (isupper((unsigned char)name[-1]) ||
	    isdigit((unsigned char)name[-1]) || name[-1] == '_'); name--)
		;
	n = (size_t)(open - name);
	if (n == 0 || nprocs == MAXP)
		return;
	procs[nprocs++] = strndup(name, n);
}

static int
scan_x(const char *dir)
{
	struct dirent *d;
	char path[1024], line[1024];
	DIR *dp = opendir(dir);
	FILE *fp;
	int files = 0;

	if (dp == NULL)
		return 0;
	while ((d = readdir(dp)) != NULL) {
		size_t l = strlen(d->d_name);

		if (l < 3 || strcmp(d->d_name + l - 2, ".x") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		files++;
		while (fgets(line, sizeof(line), fp) != NULL)
			if (line[0] != '%' && strstr(line, "//") != line)
				scan_line(line);
		fclose(fp);
	}
	closedir(dp);
	return files;
}

/* Procedures of PROCS (N of them) the table lacks, as one string. */
static char *
missing(char **list, int n)
{
	static char out[4096];
	int i;

	out[0] = '\0';
	for (i = 0; i < n; i++)
		if (auth_level_of(list[i]) == 0) {
			strncat(out, " ", sizeof(out) - strlen(out) - 1);
			strncat(out, list[i], sizeof(out) - strlen(out) - 1);
		}
	return out;
}

int
main(void)
{
	char *extra[] = { "SCHEDD_SUBMIT", "SCHEDD_NEW_PROCEDURE" };
	char stale[4096] = "", dup[4096] = "";
	int files, i, j, found;

	files = scan_x("include");
	CHECK("the RPC programs are read (the .x files of include)", files >= 6 &&
	    nprocs >= 30);
	CHECK_STR("every procedure of the .x files of include has a level",
	    missing(procs, nprocs), "");
	for (i = 0; i < auth_table_len; i++) {
		for (found = 0, j = 0; j < nprocs && !found; j++)
			found = strcmp(procs[j], auth_table[i].proc) == 0;
		if (!found) {
			strncat(stale, " ", sizeof(stale) - strlen(stale) - 1);
			strncat(stale, auth_table[i].proc,
			    sizeof(stale) - strlen(stale) - 1);
		}
		for (j = 0; j < i; j++)
			if (strcmp(auth_table[i].proc, auth_table[j].proc) == 0) {
				strncat(dup, " ", sizeof(dup) - strlen(dup) - 1);
				strncat(dup, auth_table[i].proc,
				    sizeof(dup) - strlen(dup) - 1);
			}
		if (auth_level_name(auth_table[i].level)[0] == '?')
			strncat(stale, " (bad level)", sizeof(stale) -
			    strlen(stale) - 1);
	}
	CHECK_STR("every row of the table names a procedure of the .x files of include",
	    stale, "");
	CHECK_STR("no procedure has two rows", dup, "");
	CHECK_STR("a procedure added without a level is caught",
	    missing(extra, 2), " SCHEDD_NEW_PROCEDURE");
	TEST_EXIT();
}
