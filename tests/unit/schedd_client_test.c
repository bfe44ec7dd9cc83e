/*
 * schedd_client_test: the pieces of the job commands that need no
 * schedd: job names on the command line and their constraints, and the
 * formatting condor_q and condor_history share.
 *
 * checks: 44
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "expr.h"
#include "schedd_client.h"
#include "test.h"
#include "xalloc.h"

static const struct {
	const char	*arg;
	int		 ok;
	const char	*constraint;
	const char	*name;
} specs[] = {
	{ "3.1",	1, "ClusterId == 3 && ProcId == 1", "job 3.1" },
	{ "3",		1, "ClusterId == 3",		"cluster 3" },
	{ "0.0",	1, "ClusterId == 0 && ProcId == 0", "job 0.0" },
	{ "ann",	1, "Owner == \"ann\"",		"user ann" },
	{ "a.b-c_d",	1, "Owner == \"a.b-c_d\"",	"user a.b-c_d" },
	{ "3.",		0, NULL, NULL },
	{ "3.x",	0, NULL, NULL },
	{ ".1",		0, NULL, NULL },
	{ "3.1.2",	0, NULL, NULL },
	{ "-a",		0, NULL, NULL },
	{ "",		0, NULL, NULL },
	{ "ann\"",	0, NULL, NULL },
	{ "a b",	0, NULL, NULL },
	{ "9999999999",	0, NULL, NULL },
};

static const struct {
	double		 secs;
	const char	*want;
} cpus[] = {
	{ 0,		"0+00:00:00" },
	{ 59.9,		"0+00:00:59" },
	{ 3661,		"0+01:01:01" },
	{ 90061,	"1+01:01:01" },
	{ -5,		"0+00:00:00" },
};

/* An ad from "Name = value" lines. */
static struct ad *
ad_of(const char *text)
{
	struct ad *ads[1];
	char err[256];

	if (ad_parse_text(text, ads, 1, err, sizeof(err)) != 1) {
		printf("FAIL parsing test ad: %s\n", err);
		return ad_new();
	}
	return ads[0];
}

int
main(void)
{
	struct job_spec spec;
	struct ad *ad, *jobs[4];
	char buf[128], *s, name[128];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		rc = job_spec_parse(specs[i].arg, &spec);
		snprintf(name, sizeof(name), "spec \"%s\" %s", specs[i].arg,
		    specs[i].ok ? "parses" : "is refused");
		CHECK(name, (rc == 0) == specs[i].ok);
		if (rc != 0 || !specs[i].ok)
			continue;
		s = job_spec_constraint(&spec);
		snprintf(name, sizeof(name), "spec \"%s\" constraint",
		    specs[i].arg);
		CHECK_STR(name, s, specs[i].constraint);
		free(s);
		job_spec_name(&spec, buf, sizeof(buf));
		snprintf(name, sizeof(name), "spec \"%s\" name", specs[i].arg);
		CHECK_STR(name, buf, specs[i].name);
	}
	spec.kind = JOB_SPEC_ALL;
	s = job_spec_constraint(&spec);
	CHECK_STR("spec all constraint", s, "TRUE");
	free(s);

	for (i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		job_format_cpu(cpus[i].secs, buf, sizeof(buf));
		snprintf(name, sizeof(name), "cpu %g", cpus[i].secs);
		CHECK_STR(name, buf, cpus[i].want);
	}
	CHECK_STR("status 0", job_status_letter(0), "U");
	CHECK_STR("status 2", job_status_letter(2), "R");
	CHECK_STR("status 5", job_status_letter(5), "H");
	CHECK_STR("status 7", job_status_letter(7), "S");
	CHECK_STR("status 6", job_status_letter(6), "?");
	CHECK_STR("status -1", job_status_letter(-1), "?");

	ad = ad_of("Cmd = \"/usr/bin/sim\"\nArgs = \"-n 3\"\n"
	    "Owner = \"a\\tb\"\nRequirements = Memory > 64\nX = true\n"
	    "QDate = 0\n");
	s = job_command(ad);
	CHECK_STR("command", s, "sim -n 3");
	free(s);
	s = job_value_text(ad, "Owner");
	CHECK_STR("value: control characters hidden", s, "a?b");
	free(s);
	s = job_value_text(ad, "Requirements");
	CHECK_STR("value: an expression as written", s, "Memory > 64");
	free(s);
	s = job_value_text(ad, "X");
	CHECK_STR("value: boolean", s, "true");
	free(s);
	s = job_value_text(ad, "Nope");
	CHECK_STR("value: missing", s, "undefined");
	free(s);
	job_format_time(ad, "QDate", buf, sizeof(buf));
	CHECK_STR("time: missing", buf, "?\?/?\? ?\?:?\?");
	ad_free(ad);
	ad = ad_of("Cmd = \"plain\"\n");
	s = job_command(ad);
	CHECK_STR("command without args", s, "plain");
	free(s);
	ad_free(ad);

	jobs[0] = ad_of("ClusterId = 10\nProcId = 1\n");
	jobs[1] = ad_of("ClusterId = 2\nProcId = 5\n");
	jobs[2] = ad_of("ClusterId = 10\nProcId = 0\n");
	jobs[3] = ad_of("ClusterId = 2\nProcId = 4\n");
	job_sort(jobs, 4);
	buf[0] = '\0';
	for (i = 0; i < 4; i++) {
		long long c = 0, p = 0;

		ad_get_int(jobs[i], "ClusterId", &c);
		ad_get_int(jobs[i], "ProcId", &p);
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
		    "%lld.%lld ", c, p);
		ad_free(jobs[i]);
	}
	CHECK_STR("sort by cluster then proc", buf, "2.4 2.5 10.0 10.1 ");
	TEST_EXIT();
}
