/*
 * negotiator_matchmaker.c: matchmaking and the negotiation cycle (see
 * negotiator_matchmaker.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acctgroup.h"
#include "ad.h"
#include "auth.h"
#include "buf.h"
#include "expr.h"
#include "log.h"
#include "negotiator_matchmaker.h"
#include "slot.h"
#include "xalloc.h"

/*
 * Whether attribute ATTR of MY is TRUE against TARGET; MISSING if MY
 * does not have it.
 */
static int
attr_true(const struct ad *my, const struct ad *target, const char *attr,
    int missing)
{
	const struct expr *e = ad_lookup(my, attr);
	struct value v;
	int yes;

	if (e == NULL)
		return missing;
	expr_eval(e, my, target, &v);
	yes = value_is_true(&v);
	value_free(&v);
	return yes;
}

/*
 * The job's Requirements, and its requests (RequestCpus, RequestMemory,
 * RequestDisk, RequestGpus), which may be expressions of the machine's
 * attributes: evaluated against this machine now, each must give a
 * number, or the job does not match it (as in HTCondor).
 */
int
match_job_accepts(const struct ad *job, const struct ad *machine)
{
	struct slot_res want;
	char why[256];

	return attr_true(job, machine, "Requirements", 1) &&
	    slot_request(job, machine, &want, why, sizeof(why)) == 0;
}

int
match_machine_accepts(const struct ad *machine, const struct ad *job)
{
	if (ad_lookup(machine, "Requirements") != NULL)
		return attr_true(machine, job, "Requirements", 1);
	return attr_true(machine, job, "START", 1);
}

int
match_ads(const struct ad *job, const struct ad *machine)
{
	return match_job_accepts(job, machine) &&
	    match_machine_accepts(machine, job);
}

double
match_rank(const struct ad *job, const struct ad *machine)
{
	struct value v;
	double r = 0;

	ad_eval(job, machine, "Rank", &v);
	switch (v.type) {
	case VAL_INT:
		r = (double)v.u.i;
		break;
	case VAL_REAL:
		r = v.u.r;
		break;
	case VAL_BOOL:
		r = v.u.b;
		break;
	default:
		break;
	}
	value_free(&v);
	return r == r ? r : 0;		/* NaN counts as 0 too */
}

/*
 * Whether JOB's Rank can differ between machines: it refers to some
 * attribute.  When it does not, the first acceptable machine (by Name)
 * is the best, and a cycle over many machines need not look further.
 */
static int
rank_varies(const struct ad *job)
{
	const struct expr *e = ad_lookup(job, "Rank");
	struct buf refs;
	int varies;

	if (e == NULL)
		return 0;
	buf_init(&refs);
	expr_references(e, &refs);
	varies = refs.len > 0;
	buf_free(&refs);
	return varies;
}

int
match_station_cmp(const void *a, const void *b)
{
	const struct match_station *x = *(struct match_station *const *)a;
	const struct match_station *y = *(struct match_station *const *)b;

	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	if (x->running != y->running)
		return x->running < y->running ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int
machine_cmp(const void *a, const void *b)
{
	const struct match_machine *x = a, *y = b;

	return strcmp(x->name, y->name);
}

int
match_machine_init(struct match_machine *m, const struct ad *ad)
{
	int part = 0;

	memset(m, 0, sizeof(*m));
	if (ad_get_string(ad, "Name", &m->name) == -1)
		return -1;
	m->ad = ad;
	if (ad_get_bool(ad, "PartitionableSlot", &part) == 0 && part) {
		/* Each match of this cycle takes from this copy. */
		m->partitionable = 1;
		m->own = ad_copy(ad);
		m->ad = m->own;
	}
	if (ad_get_string(ad, "State", &m->state) == -1)
		m->state = xstrdup("Unknown");
	if (ad_get_string(ad, "RemoteSchedd", &m->remote_schedd) == -1)
		m->remote_schedd = NULL;
	return 0;
}

void
match_machine_free(struct match_machine *m)
{
	free(m->name);
	free(m->state);
	free(m->remote_schedd);
	ad_free(m->own);
	memset(m, 0, sizeof(*m));
}

void
match_station_free(struct match_station *s)
{
	if (s == NULL)
		return;
	free(s->name);
	free(s->addr);
	ad_free(s->waiting_job);
	ad_free(s->nice_job);
	free(s);
}

void
match_pendings_clear(struct match_pendings *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->v[i].machine);
		free(p->v[i].station);
	}
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

static int
machine_idle(const struct match_machine *m)
{
	return strcmp(m->state, "Idle") == 0;
}

/* Whether S may be given M now (M Idle, unused, not kept for another). */
static int
machine_free_for(const struct match_machine *m,
    const struct match_station *s)
{
	if (m->used || !machine_idle(m))
		return 0;
	return m->reserved == NULL || m->reserved == s || m->reserved->done;
}

long
match_best_machine(const struct ad *job, struct match_machine *machines,
    size_t n, const struct match_station *s, size_t *first_free)
{
	size_t i, start = 0;
	long best = -1;
	double rank, best_rank = 0;
	int varies = rank_varies(job);

	if (first_free != NULL) {
		while (*first_free < n && (machines[*first_free].used ||
		    !machine_idle(&machines[*first_free])))
			(*first_free)++;
		start = *first_free;
	}
	for (i = start; i < n; i++) {
		struct match_machine *m = &machines[i];

		if (!machine_free_for(m, s) || !match_ads(job, m->ad))
			continue;
		if (!varies)
			return (long)i;
		rank = match_rank(job, m->ad);
		if (best == -1 || rank > best_rank) {
			best = (long)i;
			best_rank = rank;
		}
	}
	return best;
}

char *
match_claim_id(const struct match_machine *m)
{
	char *ids, *p, *id;
	size_t n;

	if (ad_get_string(m->ad, AUTH_CLAIM_ID_ATTR, &ids) == -1)
		return NULL;
	for (p = ids; *p == ' '; p++)
		;
	n = strcspn(p, " ");
	id = n > 0 ? xstrndup(p, n) : NULL;
	explicit_bzero(ids, strlen(ids));
	free(ids);
	return id;
}

int
match_pslot_take(struct match_machine *m, const struct ad *job)
{
	struct slot_res room, want;
	char why[256], *ids, *p;
	int more;

	if (!m->partitionable || m->own == NULL)
		return 0;
	slot_ad_res(m->own, &room);
	if (slot_request(job, m->own, &want, why, sizeof(why)) == -1)
		return 0;
	slot_take(&room, &want);
	slot_ad_set_res(m->own, &room);
	more = room.cpus >= 1 && room.memory >= 1;
	if (ad_get_string(m->own, AUTH_CLAIM_ID_ATTR, &ids) == -1)
		return 0;
	for (p = ids; *p == ' '; p++)
		;
	p += strcspn(p, " ");
	while (*p == ' ')
		p++;
	if (*p == '\0')
		more = 0;
	ad_set_string(m->own, AUTH_CLAIM_ID_ATTR, p);
	explicit_bzero(ids, strlen(ids));
	free(ids);
	return more;
}

/* "C.P" of a job ad, for the log. */
static void
job_id_text(const struct ad *job, char *buf, size_t len)
{
	long long c = -1, p = -1;

	(void)ad_get_int(job, "ClusterId", &c);
	(void)ad_get_int(job, "ProcId", &p);
	snprintf(buf, len, "%lld.%lld", c, p);
}

static struct match_machine *
machine_by_name(struct match_cycle *c, const char *name)
{
	struct match_machine key;

	memset(&key, 0, sizeof(key));
	key.name = (char *)name;
	return bsearch(&key, c->machines, c->nmachines, sizeof(key),
	    machine_cmp);
}

static struct match_station *
station_by_name(struct match_cycle *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nstations; i++)
		if (strcmp(c->stations[i]->name, name) == 0)
			return c->stations[i];
	return NULL;
}

static void
pending_drop(struct match_pendings *p, size_t i)
{
	free(p->v[i].machine);
	free(p->v[i].station);
	memmove(&p->v[i], &p->v[i + 1], (p->n - i - 1) * sizeof(p->v[0]));
	p->n--;
}

/*
 * Look at the preemptions under way.  A vacated machine that is Idle
 * again is kept for its station this cycle; one still busy stays out of
 * reach of everyone and keeps its station from preempting again; one
 * that left the pool, whose station left, or that took too long is
 * forgotten.
 */
static void
pendings_review(struct match_cycle *c)
{
	struct match_pendings *p = c->pendings;
	struct match_machine *m;
	struct match_station *s;
	size_t i = 0;

	while (p != NULL && i < p->n) {
		m = machine_by_name(c, p->v[i].machine);
		s = station_by_name(c, p->v[i].station);
		if (m == NULL || s == NULL || c->now >= p->v[i].deadline) {
			log_info("preemption of %s for %s: %s",
			    p->v[i].machine, p->v[i].station,
			    m == NULL ? "the machine left the pool" :
			    s == NULL ? "the station left" :
			    "gave up waiting for the machine");
			pending_drop(p, i);
			continue;
		}
		if (machine_idle(m)) {
			log_info("%s, vacated for %s, is free: kept for it",
			    m->name, s->name);
			m->reserved = s;
			pending_drop(p, i);
			continue;
		}
		m->used = 1;
		s->pending = 1;
		i++;
	}
}

static void
pending_add(struct match_cycle *c, const struct match_machine *m,
    const struct match_station *s)
{
	struct match_pendings *p = c->pendings;

	if (p == NULL)
		return;
	p->v = xreallocarray(p->v, p->n + 1, sizeof(p->v[0]));
	p->v[p->n].machine = xstrdup(m->name);
	p->v[p->n].station = xstrdup(s->name);
	p->v[p->n].deadline = c->now + c->pending_timeout;
	p->n++;
}

/* ---- concurrency limits ---- */

/* The next "name[:weight]" of *TEXT: NAME (lower case) and WEIGHT;
 * 0 at the end. */
static int
limit_next(const char **text, char *name, size_t len, double *weight)
{
	const char *s = *text, *e;
	size_t n, i;
	char *end;

	while (*s == ',' || *s == ' ' || *s == '\t')
		s++;
	if (*s == '\0')
		return 0;
	for (e = s; *e != '\0' && *e != ',' && *e != ':' && *e != ' ' &&
	    *e != '\t'; e++)
		;
	n = (size_t)(e - s) < len - 1 ? (size_t)(e - s) : len - 1;
	for (i = 0; i < n; i++)
		name[i] = (char)tolower((unsigned char)s[i]);
	name[n] = '\0';
	*weight = 1;
	while (*e == ' ' || *e == '\t')
		e++;
	if (*e == ':') {
		*weight = strtod(e + 1, &end);
		if (end == e + 1 || !(*weight >= 0) || *weight > 1e9)
			*weight = 1;
		e = end;
	}
	while (*e != '\0' && *e != ',')
		e++;
	*text = e;
	return 1;
}

static size_t
limit_index(struct match_limits *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->names[i], name) == 0)
			return i;
	l->names = xreallocarray(l->names, l->n + 1, sizeof(*l->names));
	l->used = xreallocarray(l->used, l->n + 1, sizeof(*l->used));
	l->max = xreallocarray(l->max, l->n + 1, sizeof(*l->max));
	l->names[l->n] = xstrdup(name);
	l->used[l->n] = 0;
	l->max[l->n] = l->limit_of != NULL ? l->limit_of(name, l->dflt) :
	    l->dflt;
	return l->n++;
}

void
match_limits_add(struct match_limits *l, const char *text, int sign)
{
	char name[128];
	double w;
	size_t i;

	while (text != NULL && limit_next(&text, name, sizeof(name), &w))
		if (name[0] != '\0') {
			i = limit_index(l, name);	/* may move l->used */
			l->used[i] += sign * w;
		}
}

int
match_limits_fit(struct match_limits *l, const char *text, char *why,
    size_t whylen)
{
	char name[128];
	double w;
	size_t i;

	while (text != NULL && limit_next(&text, name, sizeof(name), &w)) {
		if (name[0] == '\0')
			continue;
		i = limit_index(l, name);
		if (l->used[i] + w > l->max[i] + 1e-9) {
			if (name[0] == '@')
				snprintf(why, whylen, "group quota of %s: %g of "
				    "%g cores in use", name + 1, l->used[i],
				    l->max[i]);
			else
				snprintf(why, whylen, "concurrency limit %s: "
				    "%g of %g in use", name, l->used[i],
				    l->max[i]);
			return 0;
		}
	}
	return 1;
}

/*
 * Whether the owner of AD (a job's Owner, a busy slot's RemoteUser) may
 * charge GROUP (acctgroup.h).  The schedd refuses such a job; one queued
 * before the rule, or by another schedd, is its owner's alone here, so
 * that it never uses up the quota of a group it is not in.
 */
static int
group_admits(const struct ad *ad, const char *group)
{
	char why[256], *user;
	int ok;

	if (ad_get_string(ad, "Owner", &user) == -1 &&
	    ad_get_string(ad, "RemoteUser", &user) == -1)
		return 1;	/* nobody to ask about: counted */
	ok = acct_group_allows(group, user, why, sizeof(why));
	if (!ok)
		log_debug("not counted against group %s: %s", group, why);
	free(user);
	return ok;
}

char *
match_uses(const struct ad *ad, const char *cores_attr)
{
	struct buf b;
	char *text, *group = NULL, *dot;
	long long cores;

	buf_init(&b);
	if (ad_get_string(ad, "ConcurrencyLimits", &text) == 0) {
		buf_adds(&b, text);
		free(text);
	}
	if (ad_get_string(ad, "AcctGroup", &group) == 0 &&
	    !group_admits(ad, group)) {
		free(group);
		group = NULL;
	}
	if (group != NULL) {
		if (ad_get_int(ad, cores_attr, &cores) == -1 || cores < 1)
			cores = 1;
		/* "a.b" counts against a.b's quota and a's. */
		for (dot = group + strlen(group); dot != NULL;
		    dot = strrchr(group, '.')) {
			*dot = '\0';
			if (group[0] != '\0')
				buf_printf(&b, "%s@%s:%lld", b.len ? ", " : "",
				    group, cores);
			if (dot == group)
				break;
		}
		free(group);
	}
	if (b.len == 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_take(&b);
}

void
match_limits_free(struct match_limits *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	free(l->used);
	free(l->max);
	l->names = NULL;
	l->used = l->max = NULL;
	l->n = 0;
}

int
match_nice(const struct ad *ad)
{
	int nice;

	return ad != NULL && ad_get_bool(ad, "NiceUser", &nice) == 0 && nice;
}

/*
 * One turn of station S: ask for jobs until one gets a machine or S has
 * none left.  NFREE counts the Idle machines not yet given out.
 */
static void
serve_turn(struct match_cycle *c, const struct match_ops *ops,
    struct match_station *s, size_t *nfree, size_t *first_free)
{
	struct match_machine *m;
	struct ad *job;
	char id[64], why[256], *limits;
	long i;
	int r;

	for (;;) {
		if (*nfree == 0) {
			/*
			 * Nothing left to give.  A station that got nothing
			 * still says what it waits with, for preemption.
			 */
			if (((c->preempt && ops->vacate != NULL) ||
			    (!c->preempt && ops->retire != NULL)) &&
			    s->matches == 0 && s->waiting_job == NULL &&
			    !s->pending) {
				r = ops->next_job(s, &job, ops->arg);
				if (r < 0)
					s->failed = 1;
				else if (r > 0) {
					c->jobs_offered++;
					s->waiting_job = job;
				}
			}
			s->done = 1;
			return;
		}
		if (s->offers >= MATCH_MAX_OFFERS) {
			log_warnx("station %s offered %ld jobs this cycle; "
			    "no more", s->name, s->offers);
			s->done = 1;
			return;
		}
		if (s->nice_job != NULL) {
			/* Its turn in the nice pass begins with it. */
			job = s->nice_job;
			s->nice_job = NULL;
		} else {
			r = ops->next_job(s, &job, ops->arg);
			if (r <= 0) {
				s->failed = r < 0;
				s->done = 1;
				return;
			}
			s->offers++;
			c->jobs_offered++;
		}
		if (!c->nice_pass && match_nice(job)) {
			/* The rest are nice too: after every station. */
			s->nice_job = job;
			s->done = 1;
			return;
		}
		limits = match_uses(job, "RequestCpus");
		if (limits != NULL && c->limits != NULL &&
		    !match_limits_fit(c->limits, limits, why, sizeof(why))) {
			job_id_text(job, id, sizeof(id));
			log_info("%s job %s waits: %s", s->name, id, why);
			free(limits);
			ad_free(job);
			continue;
		}
		i = match_best_machine(job, c->machines, c->nmachines, s,
		    first_free);
		if (i < 0) {
			free(limits);
			if (s->waiting_job == NULL)
				s->waiting_job = job;
			else
				ad_free(job);
			continue;
		}
		m = &c->machines[i];
		r = ops->match(s, job, m, ops->arg);
		job_id_text(job, id, sizeof(id));
		if (r < 0) {
			free(limits);
			ad_free(job);
			s->failed = s->done = 1;
			return;
		}
		if (r > 0) {
			free(limits);
			ad_free(job);
			log_info("%s refused the match of job %s with %s",
			    s->name, id, m->name);
			continue;
		}
		if (limits != NULL && c->limits != NULL)
			match_limits_add(c->limits, limits, 1);
		free(limits);
		log_info("match: %s job %s -> %s", s->name, id, m->name);
		/* A partitionable slot stays on offer while it has room. */
		if (!m->partitionable || !match_pslot_take(m, job)) {
			m->used = 1;
			(*nfree)--;
		}
		ad_free(job);
		s->matches++;
		c->matches++;
		return;
	}
}

/*
 * The machine to vacate for S: Claimed, not touched this cycle, suiting
 * S's waiting job, running a job of a station whose priority is lower
 * than S's by more than the margin; the lowest such station first, then
 * by Name.  -1 if none.
 */
static long
find_victim(struct match_cycle *c, const struct match_station *s,
    struct match_station **victim)
{
	struct match_station *v;
	long best = -1;
	int nice, best_nice = 0;
	size_t i;

	*victim = NULL;
	for (i = 0; i < c->nmachines; i++) {
		struct match_machine *m = &c->machines[i];

		if (m->used || strcmp(m->state, "Claimed") != 0 ||
		    m->remote_schedd == NULL)
			continue;
		if ((v = station_by_name(c, m->remote_schedd)) == NULL)
			continue;
		nice = match_nice(m->ad);
		if (!nice && (v == s || !(v->prio < s->prio - c->margin)))
			continue;
		if (!match_job_accepts(s->waiting_job, m->ad))
			continue;
		/* A nice job's machine first, then the lowest station's. */
		if (best == -1 || (nice && !best_nice) || (nice == best_nice &&
		    v->prio < (*victim)->prio)) {
			best = (long)i;
			best_nice = nice;
			*victim = v;
		}
	}
	return best;
}

/*
 * Preemption off: a station that got nothing has claims of lower
 * stations, chosen as for preemption, retired (each takes no new job),
 * as many as it has idle jobs, so that claim reuse does not keep from
 * the station whose turn it is the machines it would have had as their
 * jobs ended; each is kept for it when it comes back Idle.
 */
static void
retire(struct match_cycle *c, const struct match_ops *ops)
{
	struct match_station *s, *v;
	struct match_machine *m;
	long long n, want;
	char id[64];
	size_t k;
	long i;

	for (k = 0; k < c->nstations; k++) {
		s = c->stations[k];
		if (s->failed || s->matches > 0 || s->waiting_job == NULL ||
		    s->pending || match_nice(s->waiting_job))
			continue;
		job_id_text(s->waiting_job, id, sizeof(id));
		want = s->idle > 1 ? s->idle : 1;
		for (n = 0; n < want && (i = find_victim(c, s, &v)) >= 0;) {
			m = &c->machines[i];
			m->used = 1;
			if (ops->retire(m, v, s, ops->arg) == -1) {
				log_warnx("could not retire the claim of %s "
				    "for %s", m->name, s->name);
				continue;
			}
			log_info("retire: the claim of %s (a job of %s, "
			    "priority %g) takes no new job, for %s (priority "
			    "%g, job %s waiting)", m->name, v->name, v->prio,
			    s->name, s->prio, id);
			s->pending = 1;
			pending_add(c, m, s);
			n++;
		}
	}
}

static void
preempt(struct match_cycle *c, const struct match_ops *ops)
{
	struct match_station *s, *v;
	struct match_machine *m;
	char id[64];
	size_t k;
	long i;

	for (k = 0; k < c->nstations; k++) {
		s = c->stations[k];
		if (s->failed || s->matches > 0 || s->waiting_job == NULL ||
		    s->pending || match_nice(s->waiting_job))
			continue;
		if ((i = find_victim(c, s, &v)) < 0)
			continue;
		m = &c->machines[i];
		job_id_text(s->waiting_job, id, sizeof(id));
		if (ops->vacate(m, v, s, ops->arg) == -1) {
			log_warnx("preemption: could not vacate %s for %s",
			    m->name, s->name);
			m->used = 1;	/* do not try it again this cycle */
			continue;
		}
		log_info("preempt: %s (running a job of %s, priority %g) "
		    "vacated for %s (priority %g, job %s waiting)", m->name,
		    v->name, v->prio, s->name, s->prio, id);
		m->used = 1;
		s->pending = 1;
		pending_add(c, m, s);
		c->preemptions++;
	}
}

void
match_negotiate(struct match_cycle *c, const struct match_ops *ops)
{
	struct match_station *s;
	size_t i, nfree = 0, first_free = 0;
	int active;

	c->matches = c->preemptions = c->jobs_offered = 0;
	qsort(c->stations, c->nstations, sizeof(c->stations[0]),
	    match_station_cmp);
	qsort(c->machines, c->nmachines, sizeof(c->machines[0]),
	    machine_cmp);
	for (i = 0; i < c->nstations; i++) {
		s = c->stations[i];
		s->done = s->addr == NULL;
		s->failed = s->matches = s->pending = 0;
		s->offers = 0;
		ad_free(s->waiting_job);
		s->waiting_job = NULL;
		ad_free(s->nice_job);
		s->nice_job = NULL;
	}
	for (i = 0; i < c->nmachines; i++) {
		c->machines[i].used = 0;
		c->machines[i].reserved = NULL;
	}
	pendings_review(c);
	for (i = 0; i < c->nmachines; i++)
		if (!c->machines[i].used && machine_idle(&c->machines[i]))
			nfree++;

	/*
	 * Passes in priority order, one machine per station per pass; then
	 * the same for the nice users' jobs put aside, on what is left.
	 */
	for (c->nice_pass = 0; c->nice_pass <= 1; c->nice_pass++) {
		for (i = 0; c->nice_pass && i < c->nstations; i++) {
			s = c->stations[i];
			if (s->nice_job != NULL && !s->failed)
				s->done = 0;
		}
		do {
			active = 0;
			for (i = 0; i < c->nstations; i++) {
				s = c->stations[i];
				if (s->done)
					continue;
				active = 1;
				serve_turn(c, ops, s, &nfree, &first_free);
			}
		} while (active);
	}
	c->nice_pass = 0;
	for (i = 0; i < c->nstations; i++) {
		ad_free(c->stations[i]->nice_job);
		c->stations[i]->nice_job = NULL;
	}

	if (c->preempt && ops->vacate != NULL)
		preempt(c, ops);
	else if (!c->preempt && ops->retire != NULL)
		retire(c, ops);
}
