/*
 * classad_eval: evaluate ClassAd expressions, one a line on standard
 * input, and print each value as HTCondor's unparser writes an
 * attribute's value (condor_q -l), one line each; a line that does not
 * parse prints PARSE-ERROR.  The table test (tests/classad) compares
 * these lines with HTCondor's values.
 *
 *	classad_eval [-my FILE] [-target FILE]
 *
 * MY is the first ad of FILE, TARGET the first ad of the -target file
 * (or, without one, the second ad of the -my file); ads are written as
 * condor_q -l prints them, "Name = value" a line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "xalloc.h"

static char *
read_file(const char *path)
{
	struct buf b;
	char chunk[65536];
	size_t n;
	FILE *fp;

	if ((fp = fopen(path, "r")) == NULL) {
		perror(path);
		exit(2);
	}
	buf_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		buf_add(&b, chunk, n);
	(void)fclose(fp);
	return buf_take(&b);
}

/* The ads of PATH into ADS (at most 2); how many. */
static int
read_ads(const char *path, struct ad **ads)
{
	char err[512], *text;
	int n;

	text = read_file(path);
	n = ad_parse_text(text, ads, 2, err, sizeof(err));
	free(text);
	if (n < 0) {
		fprintf(stderr, "classad_eval: %s: %s\n", path, err);
		exit(2);
	}
	return n;
}

int
main(int argc, char **argv)
{
	struct ad *mine[2] = { NULL, NULL }, *theirs[2] = { NULL, NULL };
	struct ad *my = NULL, *target = NULL;
	struct expr *e;
	struct value v;
	struct buf out;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int i, n;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-my") == 0 && i + 1 < argc) {
			n = read_ads(argv[++i], mine);
			my = n > 0 ? mine[0] : NULL;
			if (target == NULL && n > 1)
				target = mine[1];
		} else if (strcmp(argv[i], "-target") == 0 && i + 1 < argc) {
			n = read_ads(argv[++i], theirs);
			target = n > 0 ? theirs[0] : NULL;
		} else {
			fprintf(stderr, "usage: classad_eval [-my FILE] "
			    "[-target FILE] < expressions\n");
			return 2;
		}
	}
	buf_init(&out);
	while ((len = getline(&line, &cap, stdin)) >= 0) {
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		buf_reset(&out);
		if ((e = expr_parse(line, NULL, 0)) == NULL)
			buf_adds(&out, "PARSE-ERROR");
		else {
			expr_eval(e, my, target, &v);
			value_unparse(&v, &out);
			value_free(&v);
			expr_free(e);
		}
		/* A string may hold a newline; the line stays one line. */
		for (i = 0; i < (int)out.len; i++)
			if (out.data[i] == '\n')
				out.data[i] = ' ';
		fwrite(out.data, 1, out.len, stdout);
		putchar('\n');
	}
	free(line);
	buf_free(&out);
	for (i = 0; i < 2; i++) {
		ad_free(mine[i]);
		ad_free(theirs[i]);
	}
	return 0;
}
