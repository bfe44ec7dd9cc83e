/*
 * jobfmt_test.c: -af[:OPTS] and -format as condor_q and condor_history
 * print them (src/common/jobfmt.c): the options, the conversions with
 * their flags, widths and types, what cannot be shown, formats that are
 * refused, and hostile values.
 *
 * checks: 37
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "jobfmt.h"
#include "test.h"
#include "xalloc.h"

static struct ad *job;

/* The output of F for JOB (the header first when HEADER). */
static char *
show(struct jobfmt *f, int header)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);

	if (header)
		jobfmt_header(f, fp);
	jobfmt_print(f, job, fp);
	fclose(fp);
	return out;
}

/* -af:OPTS NAMES (space separated). */
static char *
af(const char *opts, const char *names)
{
	struct jobfmt f;
	char err[256], *copy = xstrdup(names), *v[16], *p, *out;
	int n = 0;

	memset(&f, 0, sizeof(f));
	for (p = strtok(copy, " "); p != NULL && n < 16; p = strtok(NULL, " "))
		v[n++] = p;
	f.af = v;
	f.naf = n;
	if (jobfmt_af_opts(&f, opts, err, sizeof(err)) == -1) {
		free(copy);
		return xstrdup(err);
	}
	out = show(&f, 1);
	free(copy);
	return out;
}

/* One -format FMT ATTR. */
static char *
fmt(const char *format, const char *attr)
{
	struct jobfmt f;
	char err[256], *out;

	memset(&f, 0, sizeof(f));
	if (jobfmt_add_format(&f, format, attr, err, sizeof(err)) == -1)
		return xstrdup("refused");
	out = show(&f, 0);
	jobfmt_free(&f);
	return out;
}

#define AF(name, opts, names, want) do {				\
	char *o_ = af(opts, names);					\
	CHECK_STR(name, o_, want);					\
	free(o_);							\
} while (0)

#define FMT(name, format, attr, want) do {				\
	char *o_ = fmt(format, attr);					\
	CHECK_STR(name, o_, want);					\
	free(o_);							\
} while (0)

int
main(void)
{
	struct ad *ads[1];
	char err[256];
	const char **attrs;
	struct jobfmt f;

	if (ad_parse_text("ClusterId = 12\nProcId = 3\nOwner = \"ann\"\n"
	    "ImageSize = 1024\nLoad = 0.5\nDone = true\n"
	    "Requirements = TARGET.Memory > 2048\nCmd = \"/bin/a b\"\n"
	    "Evil = \"x\x1b[2Jy\"\n", ads, 1, err, sizeof(err)) != 1) {
		printf("FAIL ad: %s\n", err);
		return 1;
	}
	job = ads[0];

	AF("-af: values space separated", "", "Owner ImageSize Done",
	    "ann 1024 true\n");
	AF("-af:j: the job id first", "j", "Owner", "12.3 ann\n");
	AF("-af:h: a header of the names", "h", "Owner ImageSize",
	    "Owner ImageSize\nann 1024\n");
	AF("-af:jlh: id, labels and header", "jlh", "Owner ImageSize",
	    "ID Owner ImageSize\nID = 12.3 Owner = ann ImageSize = 1024\n");
	AF("-af:V: strings quoted", "V", "Owner Cmd",
	    "\"ann\" \"/bin/a b\"\n");
	AF("-af:r: expressions as written", "r", "Requirements ImageSize",
	    "TARGET.Memory > 2048 1024\n");
	AF("-af: an expression that needs a machine, as written", "",
	    "Requirements", "TARGET.Memory > 2048\n");
	AF("-af:, commas", ",", "Owner ImageSize", "ann, 1024\n");
	AF("-af:t tabs", "t", "Owner ImageSize", "ann\t1024\n");
	AF("-af:n a line each", "n", "Owner ImageSize", "ann\n1024\n");
	AF("-af:g a blank line after the job", "g", "Owner", "ann\n\n");
	AF("-af: a missing attribute is undefined", "", "Nope",
	    "undefined\n");
	AF("-af: control characters never reach the terminal", "", "Evil",
	    "x?[2Jy\n");
	AF("-af:q is not an option", "q", "Owner",
	    "-af:q: 'q' is not one of jlhVr,tng");

	FMT("-format %d.", "%d.", "ClusterId", "12.");
	FMT("-format %s\\n: the escape read", "%s\\n", "Owner", "ann\n");
	FMT("-format with flags and width", "[%-6s]", "Owner", "[ann   ]");
	FMT("-format %05d", "%05d", "ProcId", "00003");
	FMT("-format %x", "%x", "ImageSize", "400");
	FMT("-format %.2f of a real", "%.2f", "Load", "0.50");
	FMT("-format %f of an integer", "%.1f", "ImageSize", "1024.0");
	FMT("-format %d of a real truncates", "%d", "Load", "0");
	FMT("-format %V quotes", "%V", "Owner", "\"ann\"");
	FMT("-format %v of a boolean", "%v", "Done", "true");
	FMT("-format %% is a percent", "100%% %s", "Owner", "100% ann");
	FMT("-format: undefined prints nothing", "x=%d\\n", "Nope", "");
	FMT("-format %d of a string prints nothing", "%d", "Owner", "");
	FMT("-format with two conversions is refused", "%d %d", "ProcId",
	    "refused");
	FMT("-format %n is refused", "%n", "ProcId", "refused");
	FMT("-format with a huge width is refused", "%99999d", "ProcId",
	    "refused");

	AF("-af: an expression", "", "ImageSize*2 ProcId==3",
	    "2048 true\n");
	AF("-af:h: an expression's heading is its text", "h",
	    "ImageSize+1", "ImageSize+1\n1025\n");
	AF("-af:r: an expression as written", "r", "ImageSize*2",
	    "ImageSize*2\n");
	FMT("-format of an expression", "%d\n", "ImageSize / 2", "512\n");
	FMT("-format %s of a string expression", "<%s>",
	    "strcat(Owner, \"x\")", "<annx>");

	memset(&f, 0, sizeof(f));
	{
		char *v[] = { "ImageSize * ProcId", "Owner" };

		f.af = v;
		f.naf = 2;
		attrs = jobfmt_attrs(&f);
		CHECK("an expression's attributes are asked for",
		    attrs[0] != NULL && attrs[1] != NULL && attrs[2] != NULL &&
		    attrs[3] == NULL && strcmp(attrs[2], "Owner") == 0);
		free(attrs);
	}

	memset(&f, 0, sizeof(f));
	(void)jobfmt_af_opts(&f, "j", err, sizeof(err));
	(void)jobfmt_add_format(&f, "%s", "Owner", err, sizeof(err));
	attrs = jobfmt_attrs(&f);
	CHECK("the schedd is asked for the id and the -format attributes",
	    attrs[0] != NULL && strcmp(attrs[0], "ClusterId") == 0 &&
	    strcmp(attrs[1], "ProcId") == 0 && strcmp(attrs[2], "Owner") == 0 &&
	    attrs[3] == NULL);
	free(attrs);
	jobfmt_free(&f);
	ad_free(job);
	TEST_EXIT();
}
