/*
 * negotiator_pslot_test.c: partitionable slots in the negotiation cycle
 * (src/negotiator/negotiator_matchmaker.c): the claim ids handed out
 * one by one, each match's requests taken from the cycle's copy of the
 * slot's ad, a cycle that gives one slot as many jobs as fit, and
 * concurrency limits and accounting group quotas counted across a
 * cycle.
 *
 * checks: 29
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "auth.h"
#include "config.h"
#include "log.h"
#include "negotiator_matchmaker.h"
#include "test.h"
#include "xalloc.h"

/* An ad from "Name = value" lines separated by ';'. */
static struct ad *
mkad(const char *text)
{
	struct ad *ads[1];
	char err[256], *t = xstrdup(text), *p;

	for (p = t; *p != '\0'; p++)
		if (*p == ';')
			*p = '\n';
	if (ad_parse_text(t, ads, 1, err, sizeof(err)) != 1) {
		printf("FAIL mkad: %s: %s\n", text, err);
		exit(1);
	}
	free(t);
	return ads[0];
}

#define PSLOT	"Name = \"slot1@h\";State = \"Idle\";" \
	"PartitionableSlot = TRUE;Cpus = 4;Memory = 8192;Disk = 100000;" \
	"Requirements = TRUE;ClaimId = \"idA idB idC idD\""

static void
test_take(void)
{
	struct match_machine m;
	struct ad *ad = mkad(PSLOT), *job;
	long long v;
	char *id;

	CHECK("a partitionable slot is seen as one", match_machine_init(&m,
	    ad) == 0 && m.partitionable && m.ad != ad);
	id = match_claim_id(&m);
	CHECK_STR("the first job gets the first claim id", id, "idA");
	free(id);
	job = mkad("RequestCpus = 3;RequestMemory = 1000;RequestDisk = 10");
	CHECK("after 3 of 4 cores it may take more", match_pslot_take(&m,
	    job) == 1);
	CHECK("the copy has 1 core and 7192 MiB left",
	    ad_get_int(m.ad, "Cpus", &v) == 0 && v == 1 &&
	    ad_get_int(m.ad, "Memory", &v) == 0 && v == 7192);
	CHECK("the collector's ad is untouched",
	    ad_get_int(ad, "Cpus", &v) == 0 && v == 4);
	id = match_claim_id(&m);
	CHECK_STR("the next job gets the next claim id", id, "idB");
	free(id);
	ad_free(job);
	job = mkad("RequestCpus = 1");
	CHECK("after the last core it is done", match_pslot_take(&m,
	    job) == 0);
	ad_free(job);
	match_machine_free(&m);
	ad_free(ad);

	ad = mkad("Name = \"h\";State = \"Idle\";Cpus = 1;ClaimId = \"x1\"");
	CHECK("a whole machine is not partitionable",
	    match_machine_init(&m, ad) == 0 && !m.partitionable &&
	    m.ad == ad);
	job = mkad("RequestCpus = 1");
	CHECK("... and takes one job", match_pslot_take(&m, job) == 0);
	ad_free(job);
	match_machine_free(&m);
	ad_free(ad);
}

/* A station with NJOBS jobs of REQUEST; the matches are recorded. */
static int	njobs, nextjob;
static const char *request;
static char	 given[16][64];
static int	 ngiven;

static int
fake_next_job(struct match_station *s, struct ad **job, void *arg)
{
	char text[256];

	if (nextjob >= njobs)
		return 0;
	snprintf(text, sizeof(text), "ClusterId = 1;ProcId = %d;%s;"
	    "Requirements = TARGET.Cpus >= RequestCpus && "
	    "TARGET.Memory >= RequestMemory", nextjob++, request);
	*job = mkad(text);
	return 1;
}

static int
fake_match(struct match_station *s, const struct ad *job,
    const struct match_machine *m, void *arg)
{
	char *id = match_claim_id(m);

	if (ngiven < 16)
		snprintf(given[ngiven++], sizeof(given[0]), "%s", id ? id :
		    "none");
	free(id);
	return 0;
}

static struct match_limits *cycle_limits;

static int
cycle(const char *req, int n)
{
	struct match_station *st = xcalloc(1, sizeof(*st));
	struct match_machine m;
	struct match_cycle c;
	struct match_ops ops;
	struct ad *ad = mkad(PSLOT);

	st->name = xstrdup("schedd");
	st->addr = xstrdup("<127.0.0.1:1>");
	match_machine_init(&m, ad);
	memset(&c, 0, sizeof(c));
	c.stations = &st;
	c.nstations = 1;
	c.machines = &m;
	c.nmachines = 1;
	c.limits = cycle_limits;
	memset(&ops, 0, sizeof(ops));
	ops.next_job = fake_next_job;
	ops.match = fake_match;
	request = req;
	njobs = n;
	nextjob = ngiven = 0;
	match_negotiate(&c, &ops);
	match_machine_free(&m);
	match_station_free(st);
	ad_free(ad);
	return c.matches;
}

static void
test_cycle(void)
{
	CHECK("five 1-core jobs: four match one 4-core slot",
	    cycle("RequestCpus = 1;RequestMemory = 1024", 5) == 4);
	CHECK("... each with its own claim id", ngiven == 4 &&
	    strcmp(given[0], "idA") == 0 && strcmp(given[1], "idB") == 0 &&
	    strcmp(given[2], "idC") == 0 && strcmp(given[3], "idD") == 0);
	CHECK("3000 MiB jobs: memory stops it at two",
	    cycle("RequestCpus = 1;RequestMemory = 3000", 4) == 2);
	CHECK("a 4-core job takes it whole",
	    cycle("RequestCpus = 4;RequestMemory = 1", 2) == 1);
	CHECK("a job bigger than the slot gets nothing",
	    cycle("RequestCpus = 1;RequestMemory = 100000", 1) == 0);
}

static double
fake_limit_of(const char *name, double dflt)
{
	if (strcmp(name, "lic") == 0)
		return 2;
	if (strcmp(name, "db") == 0)
		return 0.5;
	if (strcmp(name, "@physics") == 0)
		return 2;
	if (name[0] == '@')
		return 1e18;
	return dflt;
}

static void
test_limits(void)
{
	struct match_limits l;
	struct ad *job;
	char why[256], name[16], *uses;
	int i;

	memset(&l, 0, sizeof(l));
	l.dflt = 100;
	l.limit_of = fake_limit_of;
	CHECK("a limit of 2 takes a first job", match_limits_fit(&l, "LIC",
	    why, sizeof(why)));
	match_limits_add(&l, "lic", 1);
	match_limits_add(&l, "Lic", 1);
	CHECK("... names in any case, and not a third",
	    !match_limits_fit(&l, "LIC", why, sizeof(why)) &&
	    strcmp(why, "concurrency limit lic: 2 of 2 in use") == 0);
	match_limits_add(&l, "LIC", -1);
	CHECK("one gone, one fits again", match_limits_fit(&l, " lic ",
	    why, sizeof(why)));
	CHECK("weights count: db:0.25 fits under 0.5, db:0.75 does not",
	    match_limits_fit(&l, "db:0.25", why, sizeof(why)) &&
	    !match_limits_fit(&l, "db:0.75", why, sizeof(why)));
	CHECK("every name of a list must fit", !match_limits_fit(&l,
	    "other, db:0.6", why, sizeof(why)) &&
	    strstr(why, "limit db") != NULL);
	CHECK("an unknown name has the default", match_limits_fit(&l,
	    "other:100", why, sizeof(why)) && !match_limits_fit(&l,
	    "other:100.5", why, sizeof(why)));
	CHECK("garbage never counts as more than its names",
	    match_limits_fit(&l, ",,: ,x:abc,", why, sizeof(why)));
	match_limits_free(&l);

	memset(&l, 0, sizeof(l));
	l.dflt = 1;
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		match_limits_add(&l, name, 1);
	}
	CHECK("300 names, each counted once: all full", l.n == 300 &&
	    !match_limits_fit(&l, "n0", why, sizeof(why)) &&
	    !match_limits_fit(&l, "n299", why, sizeof(why)) &&
	    match_limits_fit(&l, "n300", why, sizeof(why)));
	match_limits_free(&l);

	memset(&l, 0, sizeof(l));
	l.dflt = 100;
	l.limit_of = fake_limit_of;
	cycle_limits = &l;
	CHECK("a cycle gives a limit of 2 two of four jobs",
	    cycle("RequestCpus = 1;RequestMemory = 1;"
	    "ConcurrencyLimits = \"lic\"", 4) == 2);
	cycle_limits = NULL;
	match_limits_free(&l);

	job = mkad("RequestCpus = 3;ConcurrencyLimits = \"x\";"
	    "AcctGroup = \"a.b.c\"");
	uses = match_uses(job, "RequestCpus");
	CHECK_STR("a job of group a.b.c holds its cores of a.b.c, a.b and a",
	    uses, "x, @a.b.c:3, @a.b:3, @a:3");
	free(uses);
	ad_free(job);
	job = mkad("Cpus = 2;AcctGroup = \"solo\"");
	uses = match_uses(job, "Cpus");
	CHECK_STR("a slot counts its cores", uses, "@solo:2");
	free(uses);
	ad_free(job);
	job = mkad("Cpus = 2");
	CHECK("nothing held: NULL", match_uses(job, "Cpus") == NULL);
	ad_free(job);
	/* A group counts only the jobs of its members (acctgroup.h). */
	config_set("GROUP_MEMBERS_members", "alice", 0);
	job = mkad("RequestCpus = 1;Owner = \"alice\";"
	    "AcctGroup = \"members\"");
	uses = match_uses(job, "RequestCpus");
	CHECK_STR("a member's job holds its group's cores", uses,
	    "@members:1");
	free(uses);
	ad_free(job);
	job = mkad("Cpus = 1;RemoteUser = \"mallory\";"
	    "AcctGroup = \"members\"");
	CHECK("a slot running a non-member's job holds none of the group's",
	    match_uses(job, "Cpus") == NULL);
	ad_free(job);

	memset(&l, 0, sizeof(l));
	l.dflt = 100;
	l.limit_of = fake_limit_of;
	cycle_limits = &l;
	CHECK("GROUP_QUOTA_physics = 2 bounds physics.theory's 1-core jobs "
	    "to two", cycle("RequestCpus = 1;RequestMemory = 1;"
	    "AcctGroup = \"physics.theory\"", 4) == 2);
	cycle_limits = NULL;
	match_limits_free(&l);
}

int
main(void)
{
	log_init("negotiator_pslot_test");
	test_take();
	test_cycle();
	test_limits();
	TEST_EXIT();
}
