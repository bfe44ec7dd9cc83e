/*
 * negotiator_match_test.c: matchmaking and the negotiation cycle
 * (src/negotiator/negotiator_matchmaker.c), with ads built in code and
 * schedds and startds played by callbacks that record what they were
 * told.
 *
 * checks: 92
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "buf.h"
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

/* match_ads, match_rank */

static const struct {
	const char	*name;
	const char	*job;
	const char	*machine;
	int		 want;
} match_cases[] = {
	{ "both accept", "Requirements = Arch == \"X86_64\"",
	    "Arch = \"X86_64\";Requirements = TRUE", 1 },
	{ "job refuses", "Requirements = Arch == \"SUN4\"",
	    "Arch = \"X86_64\";Requirements = TRUE", 0 },
	{ "machine refuses", "Requirements = TRUE;Owner = \"bob\"",
	    "Requirements = TARGET.Owner == \"alice\"", 0 },
	{ "machine accepts the owner", "Owner = \"alice\"",
	    "Requirements = TARGET.Owner == \"alice\"", 1 },
	{ "no requirements at all", "Owner = \"alice\"", "Name = \"m\"", 1 },
	{ "START when no Requirements", "Owner = \"alice\"",
	    "START = KeyboardIdle > 60;KeyboardIdle = 10", 0 },
	{ "START true", "Owner = \"alice\"",
	    "START = KeyboardIdle > 60;KeyboardIdle = 600", 1 },
	{ "Requirements win over START", "Owner = \"alice\"",
	    "START = FALSE;Requirements = TRUE", 1 },
	{ "undefined refuses", "Requirements = TARGET.NoSuch > 3",
	    "Memory = 10", 0 },
	{ "error refuses", "Requirements = Memory + \"x\"", "Memory = 10",
	    0 },
	{ "string refuses", "Requirements = \"yes\"", "Memory = 10", 0 },
	{ "Condor 4 number true", "Requirements = 1", "Memory = 10", 1 },
	{ "MY and TARGET", "Memory = 1;Requirements = TARGET.Memory > "
	    "MY.Memory", "Memory = 64", 1 },
	{ "job attribute seen from the machine", "ImageSize = 5000",
	    "Memory = 4;Requirements = TARGET.ImageSize <= Memory * 1024",
	    0 },
	{ "undefined && false is false on the job",
	    "Requirements = NoSuch || Memory > 4", "Memory = 8", 1 },
	{ "a request as an expression of the machine",
	    "RequestMemory = ifThenElse(MemoryUsage =!= undefined, "
	    "MemoryUsage * 3 / 2, 1024);Requirements = TARGET.Memory >= "
	    "RequestMemory", "Memory = 2048", 1 },
	{ "... more than the machine has",
	    "RequestMemory = ifThenElse(MemoryUsage =!= undefined, "
	    "MemoryUsage * 3 / 2, 1024);Requirements = TARGET.Memory >= "
	    "RequestMemory", "Memory = 512", 0 },
	{ "a request that is no number refuses, whatever Requirements say",
	    "RequestMemory = \"lots\";Requirements = TRUE", "Memory = 8", 0 },
};

static const struct {
	const char	*name;
	const char	*job;
	const char	*machine;
	double		 want;
} rank_cases[] = {
	{ "rank integer", "Rank = Memory", "Memory = 64", 64 },
	{ "rank real", "Rank = Memory / 4.0", "Memory = 2", 0.5 },
	{ "rank boolean", "Rank = Arch == \"X86_64\"", "Arch = \"X86_64\"",
	    1 },
	{ "rank missing", "Owner = \"a\"", "Memory = 64", 0 },
	{ "rank undefined", "Rank = NoSuch", "Memory = 64", 0 },
	{ "rank string", "Rank = \"high\"", "Memory = 64", 0 },
	{ "rank error", "Rank = 1 / 0", "Memory = 64", 0 },
	{ "rank negative", "Rank = 0 - Memory", "Memory = 64", -64 },
};

static void
test_match_ads(void)
{
	struct ad *j, *m;
	char label[256];
	size_t i;

	for (i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++) {
		j = mkad(match_cases[i].job);
		m = mkad(match_cases[i].machine);
		snprintf(label, sizeof(label), "match: %s",
		    match_cases[i].name);
		CHECK(label, match_ads(j, m) == match_cases[i].want);
		ad_free(j);
		ad_free(m);
	}
	for (i = 0; i < sizeof(rank_cases) / sizeof(rank_cases[0]); i++) {
		j = mkad(rank_cases[i].job);
		m = mkad(rank_cases[i].machine);
		snprintf(label, sizeof(label), "match: %s",
		    rank_cases[i].name);
		CHECK(label, match_rank(j, m) == rank_cases[i].want);
		ad_free(j);
		ad_free(m);
	}
}

/* The station order */

static struct match_station *
mkstation(const char *name, double prio, long long running, int served)
{
	struct match_station *s = xcalloc(1, sizeof(*s));

	s->name = xstrdup(name);
	s->prio = prio;
	s->running = running;
	if (served)
		s->addr = xasprintf("<127.0.0.1:%d>", 1000 + (int)strlen(name));
	return s;
}

static void
test_order(void)
{
	struct match_station *v[5];
	size_t i;

	v[0] = mkstation("b", 0, 3, 1);
	v[1] = mkstation("a", 0, 3, 1);
	v[2] = mkstation("c", 5, 9, 1);
	v[3] = mkstation("d", 0, 1, 1);
	v[4] = mkstation("e", -2, 0, 1);
	qsort(v, 5, sizeof(v[0]), match_station_cmp);
	CHECK_STR("order: highest priority first", v[0]->name, "c");
	CHECK_STR("order: then fewer running", v[1]->name, "d");
	CHECK_STR("order: then by name", v[2]->name, "a");
	CHECK_STR("order: then by name (2)", v[3]->name, "b");
	CHECK_STR("order: lowest last", v[4]->name, "e");
	for (i = 0; i < 5; i++)
		match_station_free(v[i]);
}

/* A pool: machines built from specs, the cycle's fake peers. */

struct pool {
	struct ad		*ads[64];
	struct match_machine	 machines[64];
	size_t			 nmachines;
	struct match_station	*stations[16];
	struct ad		**jobs[16];	/* per station, NULL-ended */
	size_t			 next[16];	/* next job to offer */
	int			 fail_at[16];	/* offer that fails; 0: none */
	int			 refuse[16];	/* refuse matches */
	size_t			 nstations;
	struct buf		 log;		/* what the peers were told */
	int			 vacate_fails;
	int			 retire;	/* ops.retire set */
	struct match_pendings	 pendings;
	double			 now;
};

static void
pool_init(struct pool *p)
{
	memset(p, 0, sizeof(*p));
	buf_init(&p->log);
}

/* A machine: "name state [remote-schedd] [extra attributes]". */
static void
pool_machine(struct pool *p, const char *name, const char *state,
    const char *remote, const char *extra)
{
	char *text;

	text = xasprintf("Name = \"%s\";State = \"%s\";Arch = \"X86_64\";"
	    "Memory = 64;Requirements = TRUE%s%s%s%s%s", name, state,
	    remote ? ";RemoteSchedd = \"" : "", remote ? remote : "",
	    remote ? "\"" : "", extra ? ";" : "", extra ? extra : "");
	p->ads[p->nmachines] = mkad(text);
	free(text);
	p->nmachines++;
}

/* A station with N jobs; job k's ad is "ClusterId = 1; ProcId = k; JOB". */
static struct match_station *
pool_station(struct pool *p, const char *name, double prio,
    long long running, int njobs, const char *job)
{
	struct match_station *s = mkstation(name, prio, running, 1);
	size_t k = p->nstations;
	char *text;
	int i;

	s->cookie = (void *)k;
	p->stations[k] = s;
	p->jobs[k] = xcalloc((size_t)njobs + 1, sizeof(struct ad *));
	for (i = 0; i < njobs; i++) {
		text = xasprintf("ClusterId = 1;ProcId = %d;Owner = \"%s\"%s%s",
		    i, name, job ? ";" : "", job ? job : "");
		p->jobs[k][i] = mkad(text);
		free(text);
	}
	p->nstations++;
	return s;
}

static int
fake_next_job(struct match_station *s, struct ad **job, void *arg)
{
	struct pool *p = arg;
	size_t k = (size_t)s->cookie;

	if (p->fail_at[k] && (int)p->next[k] + 1 == p->fail_at[k])
		return -1;
	if (p->jobs[k][p->next[k]] == NULL)
		return 0;
	*job = ad_copy(p->jobs[k][p->next[k]++]);
	return 1;
}

static int
fake_match(struct match_station *s, const struct ad *job,
    const struct match_machine *m, void *arg)
{
	struct pool *p = arg;
	size_t k = (size_t)s->cookie;
	long long proc = -1;

	ad_get_int(job, "ProcId", &proc);
	if (p->refuse[k]) {
		p->refuse[k]--;
		buf_printf(&p->log, "refused %s.%lld@%s ", s->name, proc,
		    m->name);
		return 1;
	}
	buf_printf(&p->log, "%s.%lld@%s ", s->name, proc, m->name);
	return 0;
}

static int
fake_vacate(const struct match_machine *m, const struct match_station *v,
    const struct match_station *forst, void *arg)
{
	struct pool *p = arg;

	if (p->vacate_fails) {
		buf_printf(&p->log, "vacate-failed %s ", m->name);
		return -1;
	}
	buf_printf(&p->log, "vacate %s(%s)for(%s) ", m->name,
	    v ? v->name : "?", forst->name);
	return 0;
}

static int
fake_retire(const struct match_machine *m, const struct match_station *v,
    const struct match_station *forst, void *arg)
{
	struct pool *p = arg;

	buf_printf(&p->log, "retire %s(%s)for(%s) ", m->name,
	    v ? v->name : "?", forst->name);
	return 0;
}

/*
 * Run one cycle; returns the peers' log.  Machines are re-made from the
 * ads each time, as the negotiator does.
 */
static const char *
pool_cycle(struct pool *p, int preempt, struct match_cycle *out)
{
	struct match_ops ops = { fake_next_job, fake_match, fake_vacate,
	    NULL, NULL };
	struct match_cycle c;
	size_t i, k;

	ops.arg = p;
	if (p->retire)
		ops.retire = fake_retire;
	for (i = 0; i < p->nmachines; i++) {
		match_machine_free(&p->machines[i]);
		match_machine_init(&p->machines[i], p->ads[i]);
	}
	for (k = 0; k < p->nstations; k++)
		p->next[k] = 0;
	buf_reset(&p->log);
	memset(&c, 0, sizeof(c));
	c.stations = p->stations;
	c.nstations = p->nstations;
	c.machines = p->machines;
	c.nmachines = p->nmachines;
	c.preempt = preempt;
	c.margin = 1;
	c.now = p->now;
	c.pending_timeout = 10;
	c.pendings = &p->pendings;
	match_negotiate(&c, &ops);
	if (out != NULL)
		*out = c;
	/* Trim the trailing blank for comparisons. */
	if (p->log.len > 0 && p->log.data[p->log.len - 1] == ' ')
		p->log.data[--p->log.len] = '\0';
	return p->log.data;
}

/* Change machine NAME's state (and remote schedd) in its ad. */
static void
pool_set(struct pool *p, const char *name, const char *state,
    const char *remote)
{
	char *n;
	size_t i;

	for (i = 0; i < p->nmachines; i++) {
		ad_get_string(p->ads[i], "Name", &n);
		if (strcmp(n, name) == 0) {
			ad_set_string(p->ads[i], "State", state);
			if (remote != NULL)
				ad_set_string(p->ads[i], "RemoteSchedd",
				    remote);
			else
				ad_delete(p->ads[i], "RemoteSchedd");
		}
		free(n);
	}
}

static void
pool_free(struct pool *p)
{
	size_t i, k;

	for (i = 0; i < p->nmachines; i++) {
		match_machine_free(&p->machines[i]);
		ad_free(p->ads[i]);
	}
	for (k = 0; k < p->nstations; k++) {
		for (i = 0; p->jobs[k][i] != NULL; i++)
			ad_free(p->jobs[k][i]);
		free(p->jobs[k]);
		p->stations[k]->cookie = NULL;
		match_station_free(p->stations[k]);
	}
	match_pendings_clear(&p->pendings);
	buf_free(&p->log);
}

static void
test_best_machine(void)
{
	struct pool p;
	struct ad *job;
	size_t ff = 0;
	long i;

	pool_init(&p);
	pool_machine(&p, "m3", "Idle", NULL, "Memory = 128");
	pool_machine(&p, "m1", "Idle", NULL, NULL);
	pool_machine(&p, "m2", "Claimed", "x", "Memory = 512");
	pool_machine(&p, "m4", "Owner", NULL, "Memory = 1024");
	pool_machine(&p, "m0", "Idle", NULL, "Memory = 128");
	pool_cycle(&p, 0, NULL);	/* sorts the machines by Name */
	CHECK_STR("best: sorted", p.machines[0].name, "m0");

	job = mkad("Rank = Memory");
	i = match_best_machine(job, p.machines, p.nmachines, NULL, &ff);
	CHECK("best: highest rank, ties by name", i >= 0 &&
	    strcmp(p.machines[i].name, "m0") == 0);
	p.machines[i].used = 1;
	i = match_best_machine(job, p.machines, p.nmachines, NULL, &ff);
	CHECK("best: used skipped", i >= 0 &&
	    strcmp(p.machines[i].name, "m3") == 0);
	p.machines[i].used = 1;
	i = match_best_machine(job, p.machines, p.nmachines, NULL, &ff);
	CHECK("best: then the lower rank", i >= 0 &&
	    strcmp(p.machines[i].name, "m1") == 0);
	p.machines[i].used = 1;
	i = match_best_machine(job, p.machines, p.nmachines, NULL, &ff);
	CHECK("best: Claimed and Owner never", i == -1);
	ad_free(job);

	job = mkad("Requirements = Memory > 100");
	p.machines[0].used = p.machines[1].used = p.machines[3].used = 0;
	ff = 0;
	i = match_best_machine(job, p.machines, p.nmachines, NULL, &ff);
	CHECK("best: constant rank takes the first by name", i >= 0 &&
	    strcmp(p.machines[i].name, "m0") == 0);
	p.machines[0].reserved = p.stations[0];	/* nobody: NULL */
	{
		struct match_station *other = mkstation("other", 0, 0, 1);

		p.machines[0].reserved = other;
		i = match_best_machine(job, p.machines, p.nmachines, NULL,
		    NULL);
		CHECK("best: kept for another station", i >= 0 &&
		    strcmp(p.machines[i].name, "m3") == 0);
		i = match_best_machine(job, p.machines, p.nmachines, other,
		    NULL);
		CHECK("best: kept for this station", i >= 0 &&
		    strcmp(p.machines[i].name, "m0") == 0);
		other->done = 1;
		i = match_best_machine(job, p.machines, p.nmachines, NULL,
		    NULL);
		CHECK("best: free again once it is done", i >= 0 &&
		    strcmp(p.machines[i].name, "m0") == 0);
		p.machines[0].reserved = NULL;
		match_station_free(other);
	}
	ad_free(job);
	pool_free(&p);
}

static void
test_cycle_basic(void)
{
	struct pool p;
	struct match_cycle c;
	const char *log;

	pool_init(&p);
	pool_machine(&p, "m1", "Idle", NULL, NULL);
	pool_machine(&p, "m2", "Idle", NULL, NULL);
	pool_machine(&p, "m3", "Owner", NULL, NULL);
	pool_station(&p, "s", 0, 0, 3, NULL);
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("cycle: one station gets the idle machines", log,
	    "s.0@m1 s.1@m2");
	CHECK("cycle: two matches", c.matches == 2 && c.preemptions == 0);
	CHECK("cycle: no third job asked once machines are gone",
	    p.next[0] == 2);
	pool_free(&p);

	pool_init(&p);
	pool_machine(&p, "m1", "Idle", NULL, NULL);
	pool_station(&p, "s", 0, 0, 0, NULL);
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("cycle: nothing to run", log, "");
	CHECK("cycle: no matches", c.matches == 0);
	pool_free(&p);
}

/* Equal priorities: one machine per station per pass. */
static void
test_cycle_round_robin(void)
{
	struct pool p;
	const char *log;

	pool_init(&p);
	pool_machine(&p, "m1", "Idle", NULL, NULL);
	pool_machine(&p, "m2", "Idle", NULL, NULL);
	pool_machine(&p, "m3", "Idle", NULL, NULL);
	pool_machine(&p, "m4", "Idle", NULL, NULL);
	pool_station(&p, "heavy", 0, 0, 40, NULL);
	pool_station(&p, "light", 0, 0, 4, NULL);
	log = pool_cycle(&p, 1, NULL);
	CHECK_STR("round robin: equal priorities share", log,
	    "heavy.0@m1 light.0@m2 heavy.1@m3 light.1@m4");
	pool_free(&p);

	pool_init(&p);
	pool_machine(&p, "m1", "Idle", NULL, NULL);
	pool_machine(&p, "m2", "Idle", NULL, NULL);
	pool_machine(&p, "m3", "Idle", NULL, NULL);
	pool_station(&p, "heavy", -3, 4, 40, NULL);
	pool_station(&p, "light", 1, 0, 1, NULL);
	log = pool_cycle(&p, 1, NULL);
	CHECK_STR("round robin: priority first, then the rest", log,
	    "light.0@m1 heavy.0@m2 heavy.1@m3");
	pool_free(&p);

	pool_init(&p);
	pool_machine(&p, "m1", "Idle", NULL, NULL);
	pool_station(&p, "heavy", 0, 4, 40, NULL);
	pool_station(&p, "light", 0, 0, 4, NULL);
	log = pool_cycle(&p, 0, NULL);
	CHECK_STR("round robin: ties go to fewer running", log,
	    "light.0@m1");
	pool_free(&p);
}

static void
test_cycle_requirements(void)
{
	struct pool p;
	struct match_cycle c;
	const char *log;
	struct match_station *s;

	pool_init(&p);
	pool_machine(&p, "small", "Idle", NULL, "Memory = 16");
	pool_machine(&p, "big", "Idle", NULL, "Memory = 4096");
	s = pool_station(&p, "s", 0, 0, 3, "Requirements = Memory > 1000 "
	    "&& ProcId != 0");
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("requirements: unmatched job passed over", log,
	    "s.1@big");
	CHECK("requirements: the unmatched job waits",
	    s->waiting_job != NULL);
	CHECK("requirements: every job offered", c.jobs_offered == 3);
	pool_free(&p);

	pool_init(&p);
	pool_machine(&p, "m1", "Idle", NULL,
	    "Requirements = TARGET.Owner == \"b\"");
	pool_machine(&p, "m2", "Idle", NULL, "Requirements = FALSE");
	pool_station(&p, "a", 5, 0, 2, NULL);
	pool_station(&p, "b", 0, 0, 2, NULL);
	log = pool_cycle(&p, 1, NULL);
	CHECK_STR("requirements: the machine's side counts", log, "b.0@m1");
	pool_free(&p);

	pool_init(&p);
	pool_machine(&p, "m1", "Idle", NULL, "Memory = 64");
	pool_machine(&p, "m2", "Idle", NULL, "Memory = 512");
	pool_machine(&p, "m3", "Idle", NULL, "Memory = 256");
	pool_station(&p, "s", 0, 0, 3, "Rank = Memory");
	log = pool_cycle(&p, 1, NULL);
	CHECK_STR("requirements: best rank first", log,
	    "s.0@m2 s.1@m3 s.2@m1");
	pool_free(&p);
}

static void
test_cycle_failures(void)
{
	struct pool p;
	struct match_cycle c;
	const char *log;

	pool_init(&p);
	pool_machine(&p, "m1", "Idle", NULL, NULL);
	pool_machine(&p, "m2", "Idle", NULL, NULL);
	pool_machine(&p, "m3", "Idle", NULL, NULL);
	pool_station(&p, "bad", 5, 0, 5, NULL);
	pool_station(&p, "good", 0, 0, 5, NULL);
	p.fail_at[0] = 2;		/* fails at its second job */
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("failure: the others are served", log,
	    "bad.0@m1 good.0@m2 good.1@m3");
	CHECK("failure: marked", p.stations[0]->failed &&
	    !p.stations[1]->failed);
	pool_free(&p);

	pool_init(&p);
	pool_machine(&p, "m1", "Idle", NULL, NULL);
	pool_machine(&p, "m2", "Idle", NULL, NULL);
	pool_station(&p, "a", 5, 0, 3, NULL);
	pool_station(&p, "b", 0, 0, 3, NULL);
	p.refuse[0] = 1;
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("refusal: the machine stays free", log,
	    "refused a.0@m1 a.1@m1 b.0@m2");
	CHECK("refusal: two matches", c.matches == 2);
	pool_free(&p);

	pool_init(&p);
	pool_machine(&p, "m1", "Idle", NULL, NULL);
	pool_station(&p, "a", 0, 0, 3, NULL);
	p.stations[0]->addr[0] = '\0';
	free(p.stations[0]->addr);
	p.stations[0]->addr = NULL;
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("unserved: a station without address is not asked", log,
	    "");
	pool_free(&p);
}

static void
test_preemption(void)
{
	struct pool p;
	struct match_cycle c;
	const char *log;
	struct match_station *light, *heavy;

	pool_init(&p);
	pool_machine(&p, "m1", "Claimed", "heavy", NULL);
	pool_machine(&p, "m2", "Claimed", "heavy", NULL);
	pool_machine(&p, "m3", "Claimed", "mid", NULL);
	pool_machine(&p, "m4", "Suspended", "heavy", NULL);
	heavy = pool_station(&p, "heavy", -10, 3, 40, NULL);
	pool_station(&p, "mid", -2, 1, 0, NULL);
	light = pool_station(&p, "light", 1, 0, 2, NULL);

	log = pool_cycle(&p, 0, &c);
	CHECK_STR("preemption: off means none", log, "");
	CHECK("preemption: off, nobody is asked for a job to no end",
	    light->waiting_job == NULL && p.next[2] == 0);

	log = pool_cycle(&p, 1, &c);
	CHECK_STR("preemption: lowest station's machine, first by name",
	    log, "vacate m1(heavy)for(light)");
	CHECK("preemption: counted", c.preemptions == 1 &&
	    p.pendings.n == 1);
	CHECK("preemption: the heavy station does not preempt",
	    heavy->waiting_job != NULL && heavy->prio < light->prio);

	/* The vacate is under way: m1 still Claimed.  No second one. */
	p.now = 2;
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("preemption: one at a time per station", log, "");
	CHECK("preemption: still pending", p.pendings.n == 1 &&
	    light->pending);

	/* m1 is Idle now; heavy has (artificially) the higher priority
	 * this time and is served first, yet m1 is kept for light; heavy
	 * then preempts mid, now far below it. */
	pool_set(&p, "m1", "Idle", NULL);
	heavy->prio = 50;
	p.now = 4;
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("preemption: the freed machine goes to the waiting "
	    "station", log, "light.0@m1 vacate m3(mid)for(heavy)");
	CHECK("preemption: light's is done, heavy's under way",
	    p.pendings.n == 1 && !light->pending && heavy->pending);

	/* Margin: mid is lower than light by 3 > 1, heavy is now higher. */
	heavy->prio = -10;
	pool_set(&p, "m1", "Claimed", "light");
	pool_set(&p, "m2", "Claimed", "mid");
	pool_set(&p, "m3", "Claimed", "mid");
	light->prio = -1.5;		/* mid at -2: within the margin */
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("preemption: not within the margin", log, "");
	light->prio = -0.5;		/* mid at -2: 1.5 lower */
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("preemption: beyond the margin", log,
	    "vacate m2(mid)for(light)");

	/* The vacated machine leaves the pool: forgotten. */
	pool_set(&p, "m2", "Claimed", "mid");
	p.now = 5;
	p.nmachines = 1;	/* only m1 left, owned by light */
	match_machine_free(&p.machines[1]);
	match_machine_free(&p.machines[2]);
	match_machine_free(&p.machines[3]);
	log = pool_cycle(&p, 1, &c);
	CHECK("preemption: a vanished machine is forgotten",
	    p.pendings.n == 0);
	p.nmachines = 4;
	pool_free(&p);
}

/*
 * Claim reuse with preemption off: a waiting station of higher priority
 * has one lower station's claim retired (no job is killed), and gets
 * the machine when it comes back Idle.
 */
static void
test_retire(void)
{
	struct match_station *light;
	struct pool p;
	struct match_cycle c;
	const char *log;

	pool_init(&p);
	p.retire = 1;
	pool_machine(&p, "m1", "Claimed", "heavy", NULL);
	pool_machine(&p, "m2", "Claimed", "heavy", NULL);
	pool_station(&p, "heavy", -10, 2, 40, NULL);
	light = pool_station(&p, "light", 1, 0, 2, NULL);

	log = pool_cycle(&p, 1, &c);
	CHECK_STR("retire: preemption on vacates instead", log,
	    "vacate m1(heavy)for(light)");
	match_pendings_clear(&p.pendings);
	light->idle = 1;
	log = pool_cycle(&p, 0, &c);
	CHECK_STR("retire: preemption off retires one claim", log,
	    "retire m1(heavy)for(light)");
	CHECK("retire: not counted as a preemption", c.preemptions == 0 &&
	    p.pendings.n == 1);
	match_pendings_clear(&p.pendings);
	light->idle = 2;
	log = pool_cycle(&p, 0, &c);
	CHECK_STR("retire: as many claims as the station has idle jobs", log,
	    "retire m1(heavy)for(light) retire m2(heavy)for(light)");
	match_pendings_clear(&p.pendings);
	pool_set(&p, "m2", "Claimed", "light");
	log = pool_cycle(&p, 0, &c);
	CHECK_STR("retire: its own claims are not retired", log,
	    "retire m1(heavy)for(light)");
	p.now = 2;
	log = pool_cycle(&p, 0, &c);
	CHECK_STR("retire: one at a time per station", log, "");
	pool_set(&p, "m1", "Idle", NULL);
	p.now = 3;
	log = pool_cycle(&p, 0, &c);
	CHECK_STR("retire: the freed machine goes to the waiting station",
	    log, "light.0@m1");
	p.retire = 0;
	pool_set(&p, "m1", "Claimed", "heavy");
	match_pendings_clear(&p.pendings);
	log = pool_cycle(&p, 0, &c);
	CHECK_STR("retire: none without claim reuse", log, "");
	pool_free(&p);
}

static void
test_preemption_more(void)
{
	struct pool p;
	struct match_cycle c;
	const char *log;

	/* Two waiting stations, one victim each; and timeouts. */
	pool_init(&p);
	pool_machine(&p, "m1", "Claimed", "heavy", NULL);
	pool_machine(&p, "m2", "Claimed", "heavy", NULL);
	pool_machine(&p, "m3", "Claimed", "heavy", NULL);
	pool_station(&p, "heavy", -10, 3, 40, NULL);
	pool_station(&p, "a", 3, 0, 5, NULL);
	pool_station(&p, "b", 2, 0, 5, NULL);
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("preemption: one per waiting station", log,
	    "vacate m1(heavy)for(a) vacate m2(heavy)for(b)");
	p.now = 20;		/* past the timeout; still Claimed */
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("preemption: given up after the timeout, tried again",
	    log, "vacate m1(heavy)for(a) vacate m2(heavy)for(b)");
	pool_free(&p);

	/* The waiting job must suit the victim machine. */
	pool_init(&p);
	pool_machine(&p, "m1", "Claimed", "heavy", "Memory = 16");
	pool_machine(&p, "m2", "Claimed", "heavy", "Memory = 4096");
	pool_station(&p, "heavy", -10, 2, 40, NULL);
	pool_station(&p, "light", 3, 0, 1, "Requirements = Memory > 1000");
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("preemption: only a machine the job can use", log,
	    "vacate m2(heavy)for(light)");
	pool_free(&p);

	/* A station that got a machine does not preempt. */
	pool_init(&p);
	pool_machine(&p, "m1", "Idle", NULL, NULL);
	pool_machine(&p, "m2", "Claimed", "heavy", NULL);
	pool_station(&p, "heavy", -10, 1, 40, NULL);
	pool_station(&p, "light", 3, 0, 3, NULL);
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("preemption: not for a station that got a machine", log,
	    "light.0@m1");
	pool_free(&p);

	/* Unknown owner, no owner, own machines: never victims. */
	pool_init(&p);
	pool_machine(&p, "m1", "Claimed", "stranger", NULL);
	pool_machine(&p, "m2", "Claimed", NULL, NULL);
	pool_machine(&p, "m3", "Claimed", "light", NULL);
	pool_station(&p, "light", 3, 1, 3, NULL);
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("preemption: only known, lower stations", log, "");
	pool_free(&p);

	/* A vacate that fails is logged and not counted. */
	pool_init(&p);
	pool_machine(&p, "m1", "Claimed", "heavy", NULL);
	pool_machine(&p, "m2", "Claimed", "heavy", NULL);
	pool_station(&p, "heavy", -10, 2, 40, NULL);
	pool_station(&p, "light", 3, 0, 1, NULL);
	p.vacate_fails = 1;
	log = pool_cycle(&p, 1, &c);
	CHECK_STR("preemption: a failed vacate", log, "vacate-failed m1");
	CHECK("preemption: not counted", c.preemptions == 0 &&
	    p.pendings.n == 0);
	pool_free(&p);
}

/* A broken schedd: the same job that suits no machine, forever. */
static int
broken_next_job(struct match_station *s, struct ad **job, void *arg)
{
	*job = ad_new();
	ad_set_int(*job, "ClusterId", 1);
	ad_set_int(*job, "ProcId", 0);
	ad_set_bool(*job, "Requirements", 0);
	return 1;
}

static int
never_match(struct match_station *s, const struct ad *job,
    const struct match_machine *m, void *arg)
{
	return -1;
}

static void
test_broken_station(void)
{
	struct match_station *st[1];
	struct match_machine m;
	struct match_cycle c;
	struct match_ops ops;
	struct ad *ad = mkad("Name = \"m1\";State = \"Idle\"");

	match_machine_init(&m, ad);
	st[0] = mkstation("broken", 0, 0, 1);
	memset(&ops, 0, sizeof(ops));
	ops.next_job = broken_next_job;
	ops.match = never_match;
	memset(&c, 0, sizeof(c));
	c.stations = st;
	c.nstations = 1;
	c.machines = &m;
	c.nmachines = 1;
	match_negotiate(&c, &ops);
	CHECK("broken: a cycle ends however many jobs are offered",
	    st[0]->offers == MATCH_MAX_OFFERS && c.matches == 0 &&
	    st[0]->done);
	match_station_free(st[0]);
	match_machine_free(&m);
	ad_free(ad);
}

/* Every station has endless jobs of 50 KiB. */
static int
scale_next_job(struct match_station *s, struct ad **job, void *arg)
{
	*job = ad_new();
	ad_set_int(*job, "ClusterId", 1);
	ad_set_int(*job, "ProcId", s->matches);
	ad_set_int(*job, "ImageSize", 50);
	return 1;
}

static int
scale_match(struct match_station *s, const struct ad *job,
    const struct match_machine *m, void *arg)
{
	return 0;
}

/* A nice user's jobs: after everyone's, and first to leave. */
static void
test_nice(void)
{
	struct pool p;
	const char *log;

	pool_init(&p);
	pool_machine(&p, "m1", "Idle", NULL, NULL);
	pool_station(&p, "high", 5, 0, 2, "NiceUser = true");
	pool_station(&p, "low", -5, 0, 1, NULL);
	log = pool_cycle(&p, 0, NULL);
	CHECK_STR("nice: a higher station's nice job waits for the others",
	    log, "low.0@m1");
	pool_free(&p);

	pool_init(&p);
	pool_machine(&p, "m1", "Idle", NULL, NULL);
	pool_machine(&p, "m2", "Idle", NULL, NULL);
	pool_machine(&p, "m3", "Idle", NULL, NULL);
	pool_station(&p, "high", 5, 0, 2, "NiceUser = true");
	pool_station(&p, "low", -5, 0, 1, NULL);
	log = pool_cycle(&p, 0, NULL);
	CHECK_STR("nice: then takes what is left", log,
	    "low.0@m1 high.0@m2 high.1@m3");
	pool_free(&p);

	pool_init(&p);
	pool_machine(&p, "m1", "Claimed", "low", "NiceUser = true");
	pool_machine(&p, "m2", "Claimed", "mid", NULL);
	pool_station(&p, "low", -5, 1, 1, NULL);
	pool_station(&p, "mid", -10, 1, 0, NULL);
	log = pool_cycle(&p, 1, NULL);
	CHECK_STR("nice: its machine is vacated for any job, its own "
	    "station's first, whatever the priorities", log,
	    "vacate m1(low)for(low)");
	pool_free(&p);

	pool_init(&p);
	pool_machine(&p, "m1", "Claimed", "heavy", NULL);
	pool_station(&p, "light", 5, 0, 1, "NiceUser = true");
	pool_station(&p, "heavy", -10, 1, 0, NULL);
	log = pool_cycle(&p, 1, NULL);
	CHECK_STR("nice: a nice job never preempts", log, "");
	pool_free(&p);
}

/* Many machines and jobs: the common case must stay linear. */
static void
test_scale(void)
{
	struct match_machine *ms;
	struct ad **ads;
	struct match_station *st[10];
	struct match_cycle c;
	struct match_ops ops;
	size_t i, n = 5000;
	char name[32];
	int k;

	ms = xcalloc(n, sizeof(*ms));
	ads = xcalloc(n, sizeof(*ads));
	for (i = 0; i < n; i++) {
		ads[i] = ad_new();
		snprintf(name, sizeof(name), "m%05zu", n - i);
		ad_set_string(ads[i], "Name", name);
		ad_set_string(ads[i], "State", "Idle");
		ad_set_expr(ads[i], "Requirements", "TARGET.ImageSize < 100",
		    NULL, 0);
		match_machine_init(&ms[i], ads[i]);
	}
	for (k = 0; k < 10; k++) {
		snprintf(name, sizeof(name), "s%d", k);
		st[k] = mkstation(name, 0, 0, 1);
	}
	memset(&ops, 0, sizeof(ops));
	ops.next_job = scale_next_job;
	ops.match = scale_match;
	memset(&c, 0, sizeof(c));
	c.stations = st;
	c.nstations = 10;
	c.machines = ms;
	c.nmachines = n;
	c.preempt = 1;
	match_negotiate(&c, &ops);
	CHECK("scale: every machine given out", c.matches == (int)n);
	CHECK("scale: shared evenly", st[0]->matches == (int)n / 10 &&
	    st[9]->matches == (int)n / 10);
	for (i = 0; i < n; i++) {
		match_machine_free(&ms[i]);
		ad_free(ads[i]);
	}
	for (k = 0; k < 10; k++)
		match_station_free(st[k]);
	free(ms);
	free(ads);
}

int
main(void)
{
	log_set_level(LOG_LEVEL_WARN);	/* every match is logged */
	test_match_ads();
	test_nice();
	test_order();
	test_best_machine();
	test_cycle_basic();
	test_cycle_round_robin();
	test_cycle_requirements();
	test_cycle_failures();
	test_preemption();
	test_preemption_more();
	test_retire();
	test_scale();
	test_broken_station();
	TEST_EXIT();
}
