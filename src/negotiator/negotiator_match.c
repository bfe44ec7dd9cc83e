/*
 * negotiator_match.c: one negotiation cycle.  The decisions are in
 * negotiator_matchmaker.c; this file feeds them the collector's ads
 * and carries them out over RPC: SCHEDD_NEXT_JOB and SCHEDD_MATCH to
 * the schedds, STARTD_VACATE to the startds.
 *
 * Every call has RPC_TIMEOUT.  A schedd that does not answer, or answers
 * with garbage, is skipped for the rest of the cycle, and in later
 * cycles until its ad in the collector is refreshed (LastHeardFrom
 * changes): a dead schedd's ad lingers for CLASSAD_LIFETIME, and a call
 * that times out each cycle would stall every cycle.
 *
 * A machine given out stays Idle in the collector until its startd is
 * claimed and says so; until its ad shows that claim (NumClaims beyond
 * what it was at the match, or a restarted startd), the machine is not
 * offered again, or the next cycle would give it to a second job.  A
 * startd too old to count claims is waited for as before: until it has
 * advertised in a later second than the match.  A match whose claim
 * never comes (its shadow failed) frees the machine once its startd has
 * advertised MATCH_CLAIM_GRACE seconds after the match without it, and
 * after MATCH_TIMEOUT seconds in any case (the startd knows nothing of
 * a match until its claim comes: the machine is held for one here, and
 * here alone, and never longer than that).  A partitionable slot
 * given N jobs in one cycle waits until its NumClaims has moved by N.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ad.h"
#include "auth.h"
#include "buf.h"
#include "collector_client.h"
#include "config.h"
#include "event.h"
#include "log.h"
#include "negotiator_matchmaker.h"
#include "negotiator.h"
#include "rpcutil.h"
#include "schedd_rpc.h"
#include "startd_rpc.h"
#include "negotiator_updown.h"
#include "xalloc.h"

/* A schedd that failed, and the LastHeardFrom of its ad then. */
struct failed_station {
	char		*name;
	long long	 heard;
};

static struct failed_station	*failed;
static size_t			 nfailed;
static struct match_pendings	 pendings;

/* A machine given out, when (time(NULL)), and its claim count then. */
struct recent_match {
	char		*name;
	time_t		 when;
	long long	 claims;	/* NumClaims at the match; -1: none */
	long long	 started;	/* its DaemonStartTime then */
	char		*limits;	/* what the job holds (match_uses) */
};

static const char *const match_machine_attrs[] = { "Name", "StartdIpAddr",
    AUTH_CLAIM_ID_ATTR };

static struct recent_match	*recent;
static size_t			 nrecent, caprecent;

/* How long a match may keep its machine out of reach at most: a
 * safeguard against clocks that disagree (seconds). */
#define RECENT_MATCH_MAX	600
#define MATCH_CLAIM_GRACE	5	/* ... when its startd speaks meanwhile */

struct cycle_ctx {
	int	cycle;
	int	timeout;	/* seconds */
};

void
negotiate_init(void)
{
#ifndef STARTD_VACATE
	log_warnx("priority preemption is not available: this build's "
	    "startd protocol has no STARTD_VACATE");
#endif
}

static long long
heard_from(const struct ad *ad)
{
	long long t;

	return ad_get_int(ad, "LastHeardFrom", &t) == 0 ? t : -1;
}

static struct failed_station *
failed_find(const char *name)
{
	size_t i;

	for (i = 0; i < nfailed; i++)
		if (strcmp(failed[i].name, name) == 0)
			return &failed[i];
	return NULL;
}

static void
failed_forget(const char *name)
{
	struct failed_station *f = failed_find(name);

	if (f == NULL)
		return;
	free(f->name);
	*f = failed[--nfailed];
}

static void
failed_note(const char *name, long long heard)
{
	struct failed_station *f = failed_find(name);

	if (f == NULL) {
		failed = xreallocarray(failed, nfailed + 1, sizeof(*failed));
		f = &failed[nfailed++];
		f->name = xstrdup(name);
	}
	f->heard = heard;
}

static long long
ad_int_or(const struct ad *ad, const char *name, long long dflt)
{
	long long v;

	return ad != NULL && ad_get_int(ad, name, &v) == 0 ? v : dflt;
}

/* A machine is matched again only once its record is gone: append. */
static void
recent_note(const char *name, const struct ad *machine, const struct ad *job)
{
	long long claims, extra = 0;
	size_t i;

	if (nrecent == caprecent) {
		caprecent = caprecent ? caprecent * 2 : 64;
		recent = xreallocarray(recent, caprecent, sizeof(*recent));
	}
	/* A partitionable slot matched N times this cycle is settled
	 * once its ad shows all N claims. */
	for (i = 0; i < nrecent; i++)
		if (strcmp(recent[i].name, name) == 0)
			extra++;
	claims = ad_int_or(machine, "NumClaims", -1);
	recent[nrecent].name = xstrdup(name);
	recent[nrecent].when = time(NULL);
	recent[nrecent].claims = claims >= 0 ? claims + extra : -1;
	recent[nrecent].started = ad_int_or(machine, "DaemonStartTime", -1);
	recent[nrecent].limits = match_uses(job, "RequestCpus");
	nrecent++;
}

static int
machine_name_cmp(const void *a, const void *b)
{
	const struct match_machine *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* Seconds a machine given out waits for its claim: MATCH_TIMEOUT. */
static long
match_timeout(void)
{
	long t = param_int("MATCH_TIMEOUT", 20);

	return t > 0 ? t : 20;
}

/*
 * Does AD show the outcome of match R?  *EXPIRED is set when R is
 * given up only because its claim did not come within MATCH_TIMEOUT.
 */
static int
recent_settled(const struct recent_match *r, const struct ad *ad, time_t now,
    int *expired)
{
	long long claims = ad_int_or(ad, "NumClaims", -1);

	*expired = 0;
	if (now - r->when >= RECENT_MATCH_MAX)
		return 1;
	if (r->claims >= 0 && claims >= 0) {
		if (claims > r->claims ||
		    ad_int_or(ad, "DaemonStartTime", -1) != r->started)
			return 1;
		/* A startd that has spoken MATCH_CLAIM_GRACE seconds after
		 * the match without the claim will not see it (the shadow
		 * failed, the claim was refused): the machine is free
		 * again; a refused claim costs a match, never a double
		 * booking (the startd counts what is free). */
		if (heard_from(ad) >= (long long)r->when + MATCH_CLAIM_GRACE)
			return 1;
		return *expired = now - r->when >= match_timeout();
	}
	return heard_from(ad) > (long long)r->when;
}

/*
 * Keep machines matched lately out of this cycle (their state becomes
 * "Matched": neither Idle nor Claimed) until their startd has spoken
 * since; forget the matches whose machine did, or left.  Sorts
 * MACHINES by name.
 */
static void
recent_apply(struct match_machine *machines, size_t n)
{
	struct match_machine key, *m;
	time_t now = time(NULL);
	size_t i = 0;
	int keep, expired;

	qsort(machines, n, sizeof(*machines), machine_name_cmp);
	memset(&key, 0, sizeof(key));
	while (i < nrecent) {
		keep = 0;
		key.name = recent[i].name;
		m = bsearch(&key, machines, n, sizeof(*machines),
		    machine_name_cmp);
		if (m != NULL && !recent_settled(&recent[i], m->ad, now,
		    &expired)) {
			free(m->state);
			m->state = xstrdup("Matched");
			keep = 1;
		} else if (m != NULL && expired)
			log_info("%s: no claim came for its match of %ld s ago "
			    "(MATCH_TIMEOUT %ld): it is offered again",
			    recent[i].name, (long)(now - recent[i].when),
			    match_timeout());
		if (keep) {
			i++;
			continue;
		}
		free(recent[i].name);
		free(recent[i].limits);
		recent[i] = recent[--nrecent];
	}
}

static CLIENT *
station_client(struct match_station *s, const struct cycle_ctx *x)
{
	char err[512];

	if (s->cookie == NULL) {
		s->cookie = rpc_connect(s->addr, PROG_SCHEDD, 1, x->timeout,
		    err, sizeof(err));
		if (s->cookie == NULL)
			log_warnx("station %s: %s; skipped this cycle",
			    s->name, err);
	}
	return s->cookie;
}

static int
op_next_job(struct match_station *s, struct ad **job, void *arg)
{
	struct cycle_ctx *x = arg;
	next_job_x a;
	next_job_res_x r;
	long long cl, pr;
	char err[512];
	CLIENT *c;

	if ((c = station_client(s, x)) == NULL)
		return -1;
	a.cycle = x->cycle;
	memset(&r, 0, sizeof(r));
	if (rpc_invoke(c, SCHEDD_NEXT_JOB, (xdrproc_t)xdr_next_job_x, &a,
	    (xdrproc_t)xdr_next_job_res_x, &r, err, sizeof(err)) == -1) {
		log_warnx("station %s: SCHEDD_NEXT_JOB: %s; skipped this "
		    "cycle", s->name, err);
		return -1;
	}
	if (!r.have) {
		xdr_free((xdrproc_t)xdr_next_job_res_x, (char *)&r);
		return 0;
	}
	*job = ad_from_xdr(&r.job, err, sizeof(err));
	xdr_free((xdrproc_t)xdr_next_job_res_x, (char *)&r);
	if (*job == NULL) {
		log_warnx("station %s: bad job ad (%s); skipped this cycle",
		    s->name, err);
		return -1;
	}
	if (ad_get_int(*job, "ClusterId", &cl) == -1 ||
	    ad_get_int(*job, "ProcId", &pr) == -1) {
		log_warnx("station %s: a job ad without ClusterId and "
		    "ProcId; skipped this cycle", s->name);
		ad_free(*job);
		*job = NULL;
		return -1;
	}
	return 1;
}

static int
op_match(struct match_station *s, const struct ad *job,
    const struct match_machine *m, void *arg)
{
	struct cycle_ctx *x = arg;
	struct ad *view = NULL;
	match_x a;
	status_x st;
	long long cl = -1, pr = -1;
	char err[512], *id = NULL;
	CLIENT *c;
	int rc;

	if ((c = station_client(s, x)) == NULL)
		return -1;
	(void)ad_get_int(job, "ClusterId", &cl);
	(void)ad_get_int(job, "ProcId", &pr);
	memset(&a, 0, sizeof(a));
	memset(&st, 0, sizeof(st));
	a.cycle = x->cycle;
	a.id.cluster = (int)cl;
	a.id.proc = (int)pr;
	/* The schedd needs only where the machine is, its name, and the
	 * claim id its shadow will present. */
	if (m->partitionable) {
		/* This job's own claim id of the slot's. */
		view = ad_copy(m->ad);
		id = match_claim_id(m);
		if (id != NULL)
			ad_set_string(view, AUTH_CLAIM_ID_ATTR, id);
		else
			ad_delete(view, AUTH_CLAIM_ID_ATTR);
	}
	ad_to_xdr_view(view != NULL ? view : m->ad, match_machine_attrs, 3,
	    &a.machine);
	rc = rpc_invoke(c, SCHEDD_MATCH, (xdrproc_t)xdr_match_x, &a,
	    (xdrproc_t)xdr_status_x, &st, err, sizeof(err));
	ad_x_free_view(&a.machine);
	ad_free(view);
	if (id != NULL) {
		explicit_bzero(id, strlen(id));
		free(id);
	}
	if (rc == -1) {
		log_warnx("station %s: SCHEDD_MATCH: %s; skipped this cycle",
		    s->name, err);
		return -1;
	}
	if (st.code != 0) {
		log_info("station %s: job %lld.%lld on %s refused: %s",
		    s->name, cl, pr, m->name,
		    st.message && *st.message ? st.message :
		    strerror(st.code));
		rc = 1;
	} else
		recent_note(m->name, m->ad, job);
	xdr_free((xdrproc_t)xdr_status_x, (char *)&st);
	return rc;
}

#ifdef STARTD_VACATE
static int
op_vacate(const struct match_machine *m, const struct match_station *victim,
    const struct match_station *forst, void *arg)
{
	struct cycle_ctx *x = arg;
	status_x st;
	char err[512], *addr, *type = NULL;
	CLIENT *c;
	int r, rc = -1;

	if (ad_get_string(m->ad, "StartdIpAddr", &addr) == -1) {
		log_warnx("cannot vacate %s: its ad has no StartdIpAddr",
		    m->name);
		return -1;
	}
	c = rpc_connect(addr, PROG_STARTD, 1, x->timeout, err, sizeof(err));
	free(addr);
	if (c == NULL) {
		log_warnx("cannot vacate %s: %s", m->name, err);
		return -1;
	}
	memset(&st, 0, sizeof(st));
	/* A dynamic slot is vacated alone, not its whole machine. */
	if (ad_get_string(m->ad, "SlotType", &type) == 0 &&
	    strcmp(type, "Dynamic") == 0)
		r = rpc_invoke(c, STARTD_VACATE_SLOT,
		    (xdrproc_t)xdr_wrapstring, (char *)&m->name,
		    (xdrproc_t)xdr_status_x, &st, err, sizeof(err));
	else
		r = rpc_invoke(c, STARTD_VACATE, (xdrproc_t)rpc_xdr_nothing,
		    NULL, (xdrproc_t)xdr_status_x, &st, err, sizeof(err));
	free(type);
	if (r == -1)
		log_warnx("cannot vacate %s: %s", m->name, err);
	else if (st.code != 0)
		log_warnx("%s refused to vacate: %s", m->name,
		    st.message && *st.message ? st.message :
		    strerror(st.code));
	else
		rc = 0;
	xdr_free((xdrproc_t)xdr_status_x, (char *)&st);
	rpc_close(c);
	return rc;
}
#endif

#ifdef STARTD_RETIRE_SLOT
static int
op_retire(const struct match_machine *m, const struct match_station *victim,
    const struct match_station *forst, void *arg)
{
	struct cycle_ctx *x = arg;
	status_x st;
	char err[512], *addr;
	CLIENT *c;
	int rc = -1;

	if (ad_get_string(m->ad, "StartdIpAddr", &addr) == -1)
		return -1;
	c = rpc_connect(addr, PROG_STARTD, 1, x->timeout, err, sizeof(err));
	free(addr);
	if (c == NULL) {
		log_warnx("cannot retire the claim of %s: %s", m->name, err);
		return -1;
	}
	memset(&st, 0, sizeof(st));
	if (rpc_invoke(c, STARTD_RETIRE_SLOT, (xdrproc_t)xdr_wrapstring,
	    (char *)&m->name, (xdrproc_t)xdr_status_x, &st, err,
	    sizeof(err)) == -1)
		log_warnx("cannot retire the claim of %s: %s", m->name, err);
	else if (st.code != 0)
		log_warnx("%s refused to retire its claim: %s", m->name,
		    st.message && *st.message ? st.message :
		    strerror(st.code));
	else
		rc = 0;
	xdr_free((xdrproc_t)xdr_status_x, (char *)&st);
	rpc_close(c);
	return rc;
}
#endif

static int
station_name_cmp(const void *key, const void *elem)
{
	const struct match_station *s = *(struct match_station *const *)elem;

	return strcmp(key, s->name);
}

/*
 * The stations of this cycle: every station of the priority table, with
 * the address of those whose schedd advertises and is not being skipped.
 */
static struct match_station **
build_stations(struct ad **sads, int ns, size_t *np, int *nserved)
{
	struct updown *t = prio_table();
	struct match_station **v, **hit, *s;
	struct updown_station *u;
	struct failed_station *f;
	char *name, *addr;
	size_t i;
	int k;

	*nserved = 0;
	v = xcalloc(t->n ? t->n : 1, sizeof(*v));
	for (i = 0; i < t->n; i++) {
		u = t->v[i];
		s = xcalloc(1, sizeof(*s));
		s->name = xstrdup(u->name);
		s->prio = u->prio;
		s->running = u->running;
		s->idle = u->idle;
		v[i] = s;
	}
	*np = t->n;
	for (k = 0; k < ns; k++) {
		if (ad_get_string(sads[k], "Name", &name) == -1)
			continue;
		/* The table is sorted by name, and so is V. */
		hit = bsearch(name, v, t->n, sizeof(*v), station_name_cmp);
		if (hit == NULL || ad_get_string(sads[k], "ScheddIpAddr",
		    &addr) == -1) {
			free(name);
			continue;
		}
		f = failed_find(name);
		if (f != NULL && f->heard == heard_from(sads[k])) {
			log_debug("station %s: skipped until it advertises "
			    "again", name);
			free(addr);
		} else {
			if (f != NULL)
				failed_forget(name);
			(*hit)->addr = addr;
			(*nserved)++;
		}
		free(name);
	}
	return v;
}

static void
log_order(int cycle, struct match_station **v, size_t n)
{
	struct buf b;
	size_t i;
	int shown = 0;

	buf_init(&b);
	for (i = 0; i < n; i++) {
		if (v[i]->addr == NULL)
			continue;
		if (shown++ == 20) {
			buf_adds(&b, " ...");
			break;
		}
		buf_printf(&b, "%s%s (%g, %lld idle, %lld running)",
		    shown > 1 ? ", " : "", v[i]->name, v[i]->prio,
		    v[i]->idle, v[i]->running);
	}
	log_info("cycle %d: stations by priority: %s", cycle,
	    b.len ? b.data : "none");
	buf_free(&b);
}

/* NAME_LIMIT from the configuration, else DFLT; for "@GROUP" its
 * GROUP_QUOTA_GROUP, else no bound. */
static double
limit_of(const char *name, double dflt)
{
	char *var = name[0] == '@' ? xasprintf("GROUP_QUOTA_%s", name + 1) :
	    xasprintf("%s_LIMIT", name);
	double v = param_double(var, name[0] == '@' ? 1e18 : dflt);

	free(var);
	return v;
}

/*
 * What the pool's jobs hold of the concurrency limits and group quotas:
 * those running (their slots advertise the job's ConcurrencyLimits and
 * AcctGroup) and those matched whose slots do not show their claim yet.
 */
static void
limits_tally(struct match_limits *l, struct ad **mads, int nm)
{
	char *text;
	size_t i;
	int k;

	memset(l, 0, sizeof(*l));
	l->dflt = param_double("CONCURRENCY_LIMIT_DEFAULT", 2308032);
	l->limit_of = limit_of;
	for (k = 0; k < nm; k++)
		if ((text = match_uses(mads[k], "Cpus")) != NULL) {
			match_limits_add(l, text, 1);
			free(text);
		}
	for (i = 0; i < nrecent; i++)
		if (recent[i].limits != NULL)
			match_limits_add(l, recent[i].limits, 1);
}

void
negotiate_cycle(int cycle, struct cycle_report *rep)
{
	struct match_ops ops;
	struct match_cycle c;
	struct match_limits limits;
	struct cycle_ctx x;
	struct ad **mads = NULL, **sads = NULL;
	struct match_station **stations;
	struct match_machine *machines;
	size_t i, nst, nmach = 0;
	char err[512];
	double t0 = monotime();
	long interval;
	int nm, ns, nserved, k;

	memset(rep, 0, sizeof(*rep));
	nm = collector_query(ADTYPE_STARTD, NULL, &mads, err, sizeof(err));
	if (nm == -1) {
		log_warnx("cycle %d: cannot query the collector for "
		    "machines: %s", cycle, err);
		return;
	}
	ns = collector_query(ADTYPE_SCHEDD, NULL, &sads, err, sizeof(err));
	if (ns == -1) {
		log_warnx("cycle %d: cannot query the collector for "
		    "schedds: %s", cycle, err);
		collector_free_ads(mads, nm);
		return;
	}
	rep->ok = 1;
	rep->machines = nm;
	prio_observe(sads, ns);
	rep->updated = prio_update();

	stations = build_stations(sads, ns, &nst, &nserved);
	rep->stations = nserved;
	machines = xcalloc(nm ? (size_t)nm : 1, sizeof(*machines));
	for (k = 0; k < nm; k++)
		if (match_machine_init(&machines[nmach], mads[k]) == 0)
			nmach++;
	recent_apply(machines, nmach);
	limits_tally(&limits, mads, nm);

	x.cycle = cycle;
	x.timeout = (int)param_int("RPC_TIMEOUT", 20);
	if (x.timeout < 1)
		x.timeout = 1;
	memset(&ops, 0, sizeof(ops));
	ops.next_job = op_next_job;
	ops.match = op_match;
#ifdef STARTD_VACATE
	ops.vacate = op_vacate;
#endif
#ifdef STARTD_RETIRE_SLOT
	if (param_int("CLAIM_WORKLIFE", 1200) != 0)
		ops.retire = op_retire;
#endif
	ops.arg = &x;

	memset(&c, 0, sizeof(c));
	c.stations = stations;
	c.nstations = nst;
	c.machines = machines;
	c.nmachines = nmach;
	c.preempt = param_bool("PREEMPTION_ENABLED", 1);
	c.margin = param_double("PREEMPTION_PRIO_MARGIN", 1.0);
	c.now = monotime();
	/* A vacate with a checkpoint may take a while; not forever. */
	interval = param_int("NEGOTIATOR_INTERVAL", 60);
	c.pending_timeout = 5.0 * (double)(interval > 2 ? interval : 2);
	c.pendings = &pendings;
	c.limits = &limits;

	qsort(stations, nst, sizeof(*stations), match_station_cmp);
	log_order(cycle, stations, nst);
	match_negotiate(&c, &ops);
	match_limits_free(&limits);
	rep->matches = c.matches;
	rep->preemptions = c.preemptions;

	for (i = 0; i < nst; i++) {
		struct match_station *s = stations[i];

		if (s->failed) {
			for (k = 0; k < ns; k++) {
				char *name;

				if (ad_get_string(sads[k], "Name", &name) == -1)
					continue;
				if (strcmp(name, s->name) == 0)
					failed_note(s->name,
					    heard_from(sads[k]));
				free(name);
			}
		}
		if (s->cookie != NULL)
			rpc_close(s->cookie);
		match_station_free(s);
	}
	free(stations);
	for (i = 0; i < nmach; i++)
		match_machine_free(&machines[i]);
	free(machines);
	collector_free_ads(mads, nm);
	collector_free_ads(sads, ns);
	rep->duration = monotime() - t0;
	log_info("cycle %d: %d match(es), %d preemption(s), %d job(s) "
	    "offered, %d machine(s), %.3f s", cycle, rep->matches,
	    rep->preemptions, c.jobs_offered, rep->machines, rep->duration);
}
