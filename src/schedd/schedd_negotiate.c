/*
 * schedd_negotiate.c: the schedd's side of negotiation.
 *
 * In each negotiation cycle the negotiator asks for the best idle job
 * again and again (SCHEDD_NEXT_JOB) and, when it found a machine for
 * one, says "run it there" (SCHEDD_MATCH).  At the first question of a
 * cycle the idle jobs are ranked once by PRIO (evaluated with the job
 * as MY), a nice user's jobs (NiceUser) after all the others; each
 * question then takes the next one still idle, so a cycle
 * offers every job at most once and costs one sort, however many
 * questions it asks.  MAX_JOB_STARTS matches per cycle and
 * MAX_JOBS_RUNNING shadows at once bound what the schedd accepts.
 *
 * A match is answered at once and its shadow started a moment later:
 * when the negotiator has nothing more to ask this schedd in the cycle
 * (NEXT_JOB finds no job) or START_DELAY seconds after the first
 * waiting match, whichever comes first.  The negotiator's cycle then
 * costs two round trips per match, not a process start each.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ad.h"
#include "auth.h"
#include "config.h"
#include "event.h"
#include "expr.h"
#include "log.h"
#include "negotiator_client.h"
#include "rpcutil.h"
#include "schedd.h"
#include "slot.h"
#include "xalloc.h"

#define CYCLE_STALE	300	/* seconds: an unfinished cycle is over */
#define POKE_SPACING	0.02	/* seconds between pokes */
#define START_DELAY	0.02	/* seconds a match may wait for its shadow */

/* A match answered whose shadow is not started yet. */
struct pending {
	int	 cluster;
	int	 proc;
	char	*addr;		/* the startd's "<ip:port>" */
	char	*name;		/* the machine's Name */
	char	*claim_id;	/* its ClaimId, NULL if none */
};

static struct pending	*pend;
static size_t		 npend, cappend;
static long		 pend_timer;

struct candidate {
	int	cluster;
	int	proc;
	int	nice;		/* NiceUser: after every other job */
	double	prio;
};

static struct candidate	*cands;
static size_t		 ncands, capcands, next_cand;
static int		 cycle_valid;	/* CANDS belong to CUR_CYCLE */
static int		 cur_cycle;
static double		 cycle_touched;
static int		 starts;	/* matches in CUR_CYCLE */

static double		 last_poke = -1e9;
static long		 poke_timer;

static int
pending_has(int cluster, int proc)
{
	size_t i;

	for (i = 0; i < npend; i++)
		if (pend[i].cluster == cluster && pend[i].proc == proc)
			return 1;
	return 0;
}

/* A job the negotiator may not be offered: running or about to. */
static int
job_busy(int cluster, int proc)
{
	return shadow_job_busy(cluster, proc) || pending_has(cluster, proc);
}

/* Start the shadows of the matches answered so far. */
static void
starts_flush(void)
{
	struct claim_info ci;
	struct pending *p;
	struct job j;
	size_t i;
	pid_t pid;

	event_timer_cancel(pend_timer);
	pend_timer = 0;
	for (i = 0; i < npend; i++) {
		p = &pend[i];
		/* removed or held in the meantime: nothing to start */
		if (job_find(p->cluster, p->proc, &j) == 0 &&
		    job_status(&j) == JOB_IDLE && !job_local_universe(&j) &&
		    !shadow_job_busy(p->cluster, p->proc)) {
			submit_flush_events(p->cluster);
			ci.addr = p->addr;
			ci.machine = p->name;
			ci.claim_id = p->claim_id;
			ci.begun = time(NULL);
			ci.jobs = 0;
			if ((pid = shadow_spawn(p->cluster, p->proc, &ci)) ==
			    -1)
				log_warn("job %d.%d: cannot start a shadow",
				    p->cluster, p->proc);
			else {
				log_info("job %d.%d matched with %s %s; "
				    "shadow %d", p->cluster, p->proc, p->name,
				    p->addr, (int)pid);
				queue_job_started(p->cluster, p->proc, p->name,
				    pid);
			}
		}
		free(p->addr);
		free(p->name);
		if (p->claim_id != NULL)
			explicit_bzero(p->claim_id, strlen(p->claim_id));
		free(p->claim_id);
	}
	npend = 0;
}

static void
starts_tick(void *arg)
{
	pend_timer = 0;
	starts_flush();
}

static int
candidate_cmp(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->nice != y->nice)
		return x->nice - y->nice;
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	if (x->cluster != y->cluster)
		return x->cluster < y->cluster ? -1 : 1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

/* Is J's string attribute NAME VALUE (NULL: J has none)? */
static int
string_is(const struct job *j, const char *name, const char *value)
{
	char *x = job_string(j, name);
	int same = (x == NULL && value == NULL) || (x != NULL &&
	    value != NULL && strcmp(x, value) == 0);

	free(x);
	return same;
}

void
claim_user_of(const struct job *j, struct claim_user *u)
{
	u->owner = job_string(j, "Owner");
	u->group = job_string(j, "AcctGroup");
	u->nice = job_int(j, "NiceUser", 0) != 0;
}

void
claim_user_free(struct claim_user *u)
{
	free(u->owner);
	free(u->group);
	u->owner = u->group = NULL;
}

int
negotiate_claim_next(const struct ad *slot, const struct claim_user *u,
    struct job *next)
{
	struct slot_res room, want;
	struct job j;
	struct ad *full;
	struct value v;
	char why[256];
	long long dslot = 0;
	int ok, fits;

	if (u->owner == NULL)
		return -1;
	/* A dynamic slot stays as it was carved: the job must fit. */
	if (slot != NULL)
		(void)ad_get_int(slot, "DSlotID", &dslot);
	if (slot != NULL)
		slot_ad_res(slot, &room);
	for (ok = job_next(&j, 1); ok; ok = job_next(&j, 0)) {
		if (job_status(&j) != JOB_IDLE || job_local_universe(&j) ||
		    job_busy(j.cluster, j.proc) ||
		    !string_is(&j, "Owner", u->owner) ||
		    !string_is(&j, "AcctGroup", u->group) ||
		    (job_int(&j, "NiceUser", 0) != 0) != u->nice)
			continue;
		/* Without the slot's ad: is any job of the user left? */
		if (slot == NULL) {
			*next = j;
			return 0;
		}
		full = job_full_ad(&j);
		ad_eval(full, slot, "Requirements", &v);
		fits = ad_lookup(full, "Requirements") == NULL ||
		    value_is_true(&v);
		value_free(&v);
		/* Its requests must be numbers against this slot, as at
		 * a match; a dynamic slot must hold them too. */
		if (fits)
			fits = slot_request(full, slot, &want, why,
			    sizeof(why)) == 0 && (dslot <= 0 ||
			    slot_fits(&room, &want, NULL, 0));
		ad_free(full);
		if (fits) {
			*next = j;
			return 0;
		}
	}
	return -1;
}

/* Rank every idle job that may start by PRIO, best first. */
static void
candidates_build(void)
{
	const char *text = param("PRIO");
	struct expr *prio = NULL;
	struct value v;
	struct job j;
	char err[256];
	int ok, st, merged;

	ncands = next_cand = 0;
	if (text != NULL && (prio = expr_parse(text, err, sizeof(err))) ==
	    NULL)
		log_warnx("PRIO does not parse (%s); jobs go in queue order",
		    err);
	merged = expr_needs_merge(text);
	for (ok = job_next(&j, 1); ok; ok = job_next(&j, 0)) {
		st = job_status(&j);
		if (st != JOB_IDLE)
			continue;
		/* The schedd runs these itself (schedd_local.c). */
		if (job_local_universe(&j))
			continue;
		if (job_busy(j.cluster, j.proc))
			continue;
		if (ncands == capcands) {
			capcands = capcands ? capcands * 2 : 256;
			cands = xreallocarray(cands, capcands, sizeof(*cands));
		}
		cands[ncands].cluster = j.cluster;
		cands[ncands].proc = j.proc;
		cands[ncands].prio = 0;
		cands[ncands].nice = job_int(&j, "NiceUser", 0) != 0;
		if (prio != NULL) {
			job_eval(&j, prio, merged, &v);
			if (v.type == VAL_INT)
				cands[ncands].prio = (double)v.u.i;
			else if (v.type == VAL_REAL && !isnan(v.u.r))
				cands[ncands].prio = v.u.r;
			else if (v.type == VAL_BOOL)
				cands[ncands].prio = v.u.b;
			else	/* UNDEFINED, ERROR: after any number */
				cands[ncands].prio = -HUGE_VAL;
			value_free(&v);
		}
		ncands++;
	}
	expr_free(prio);
	qsort(cands, ncands, sizeof(*cands), candidate_cmp);
	cycle_valid = 1;
}

/* Enter negotiation cycle CYCLE (a new one starts afresh). */
static void
cycle_enter(int cycle)
{
	double now = monotime();

	if (cycle != cur_cycle || now - cycle_touched > CYCLE_STALE) {
		cur_cycle = cycle;
		cycle_valid = 0;
		starts = 0;
	}
	cycle_touched = now;
}

/* Why the schedd starts nothing more now; NULL if it may. */
static const char *
start_limit(void)
{
	long max_starts = param_int("MAX_JOB_STARTS", 5);
	long max_running = param_int("MAX_JOBS_RUNNING", 200);

	if (starts >= max_starts)
		return "MAX_JOB_STARTS reached for this cycle";
	if (shadow_count() + (long)npend >= max_running)
		return "MAX_JOBS_RUNNING reached";
	return NULL;
}

void
negotiate_next_job(next_job_x *arg, next_job_res_x *res)
{
	struct candidate *c;
	struct job j;
	int st;

	res->have = 0;
	cycle_enter(arg->cycle);
	if (start_limit() != NULL) {
		starts_flush();
		return;
	}
	if (!cycle_valid)
		candidates_build();
	while (next_cand < ncands) {
		c = &cands[next_cand++];
		if (job_find(c->cluster, c->proc, &j) == -1)
			continue;
		st = job_status(&j);
		if (st != JOB_IDLE ||
		    job_busy(j.cluster, j.proc))
			continue;
		job_to_xdr(&j, &res->job);
		res->have = 1;
		return;
	}
	/* The negotiator is done with us for this cycle. */
	starts_flush();
}


void
negotiate_match(match_x *arg, status_x *res)
{
	struct ad *machine;
	struct job j;
	char err[256], *addr = NULL, *name = NULL, *msg;
	const char *why;
	int st;

	cycle_enter(arg->cycle);
	if (job_find(arg->id.cluster, arg->id.proc, &j) == -1) {
		rpc_status(res, ENOENT, "no such job");
		return;
	}
	st = job_status(&j);
	if (st != JOB_IDLE ||
	    job_busy(j.cluster, j.proc)) {
		rpc_status(res, EBUSY, "the job is not idle");
		return;
	}
	if ((why = start_limit()) != NULL) {
		rpc_status(res, EAGAIN, "%s", why);
		return;
	}
	if ((machine = ad_from_xdr(&arg->machine, err, sizeof(err))) ==
	    NULL) {
		msg = xasprintf("machine ad: %s", err);
		rpc_status(res, EINVAL, "%s", msg);
		free(msg);
		return;
	}
	if (ad_get_string(machine, "StartdIpAddr", &addr) == -1 ||
	    ad_get_string(machine, "Name", &name) == -1) {
		rpc_status(res, EINVAL, "the machine ad lacks StartdIpAddr "
		    "or Name");
		goto out;
	}
	if (npend == cappend) {
		cappend = cappend ? cappend * 2 : 64;
		pend = xreallocarray(pend, cappend, sizeof(*pend));
	}
	pend[npend].cluster = j.cluster;
	pend[npend].proc = j.proc;
	pend[npend].addr = addr;
	pend[npend].name = name;
	pend[npend].claim_id = NULL;
	/* The negotiator's copy of the machine's ad carries its claim id. */
	(void)ad_get_string(machine, AUTH_CLAIM_ID_ATTR,
	    &pend[npend].claim_id);
	npend++;
	addr = name = NULL;
	starts++;
	if (pend_timer == 0)
		pend_timer = event_timer_add(START_DELAY, starts_tick, NULL);
	rpc_status_ok(res);
out:
	free(addr);
	free(name);
	ad_free(machine);
}

/* Poking the negotiator. */

/* negotiator_reschedule sends and never waits for an answer: the
 * negotiator may be in a cycle about to call us. */
static void
poke_now(void)
{
	char err[256];

	last_poke = monotime();
	if (negotiator_reschedule(err, sizeof(err)) == -1)
		log_debug("cannot poke the negotiator: %s", err);
}

static void
poke_tick(void *arg)
{
	poke_timer = 0;
	poke_now();
}

void
negotiate_poke(void)
{
	double wait = last_poke + POKE_SPACING - monotime();

	if (poke_timer != 0)
		return;
	if (wait <= 0)
		poke_now();
	else
		poke_timer = event_timer_add(wait, poke_tick, NULL);
}

void
negotiate_reconfig(void)
{
	last_poke = -1e9;
}
