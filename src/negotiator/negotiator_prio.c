/*
 * negotiator_prio.c: station priorities (the Up-Down index), their
 * update once per NEGOTIATOR_INTERVAL, and their file,
 * $(SPOOL)/negotiator_priorities, so that a restart keeps fair share.
 *
 * The update happens at most once per NEGOTIATOR_INTERVAL however many
 * cycles condor_reschedule asks for: a station that pokes the
 * negotiator often must not climb faster than one that does not.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ad.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "expr.h"
#include "log.h"
#include "negotiator.h"
#include "negotiator_updown.h"
#include "xalloc.h"

static struct updown	 prios;
static char		*prio_path;
static double		 last_update = -1;	/* monotime(); -1: never */
static time_t		 last_update_wall;	/* the same, by the clock */
static int		 save_failing;		/* log once per outage */
static char		*bad_update_prio;	/* text we already warned of */

static void
prio_set_path(void)
{
	const char *spool = param("SPOOL");

	free(prio_path);
	prio_path = xasprintf("%s/negotiator_priorities",
	    spool != NULL && *spool != '\0' ? spool : ".");
	if (spool != NULL && *spool != '\0' && daemon_mkdir(spool, 0755) == -1)
		log_warn("cannot create SPOOL %s", spool);
}

void
prio_init(void)
{
	char err[512];
	int bad;

	updown_init(&prios);
	prio_set_path();
	if (updown_load(&prios, prio_path, &bad, err, sizeof(err)) == -1) {
		log_warnx("cannot read the priorities: %s; starting with "
		    "none", err);
		return;
	}
	if (bad > 0)
		log_warnx("%s: %d line(s) ignored (not \"PRIO NAME\")",
		    prio_path, bad);
	log_info("%zu station priorities read from %s", prios.n, prio_path);
}

void
prio_reconfig(void)
{
	prio_set_path();
	save_failing = 0;
}

struct updown *
prio_table(void)
{
	return &prios;
}

static long long
ad_count_attr(const struct ad *ad, const char *name)
{
	long long v;

	if (ad_get_int(ad, name, &v) == -1 || v < 0)
		return 0;
	return v;
}

void
prio_observe(struct ad **schedds, int n)
{
	struct updown_station *s;
	char *name;
	size_t i;
	int k;

	for (i = 0; i < prios.n; i++)
		prios.v[i]->seen = 0;
	for (k = 0; k < n; k++) {
		if (ad_get_string(schedds[k], "Name", &name) == -1)
			continue;
		if ((s = updown_add(&prios, name)) == NULL) {
			log_warnx("station \"%s\" not tracked: %s", name,
			    errno == ENOSPC ? "too many stations" :
			    "bad name");
			free(name);
			continue;
		}
		free(name);
		s->seen = 1;
		s->users = ad_count_attr(schedds[k], "NumUsers");
		s->running = ad_count_attr(schedds[k], "TotalRunningJobs");
		s->idle = ad_count_attr(schedds[k], "TotalIdleJobs");
	}
}

/* UPDATE_PRIO, parsed; NULL (logged once per text) if it does not parse. */
static struct expr *
update_prio_expr(void)
{
	const char *text = param("UPDATE_PRIO");
	struct expr *e;
	char err[256];

	if (text == NULL || *text == '\0') {
		if (bad_update_prio == NULL || *bad_update_prio != '\0') {
			log_warnx("UPDATE_PRIO is not defined: priorities "
			    "stay as they are");
			free(bad_update_prio);
			bad_update_prio = xstrdup("");
		}
		return NULL;
	}
	if ((e = expr_parse(text, err, sizeof(err))) != NULL) {
		free(bad_update_prio);
		bad_update_prio = NULL;
		return e;
	}
	if (bad_update_prio == NULL || strcmp(bad_update_prio, text) != 0) {
		log_warnx("UPDATE_PRIO \"%s\": %s; priorities stay as they "
		    "are", text, err);
		free(bad_update_prio);
		bad_update_prio = xstrdup(text);
	}
	return NULL;
}

static void
prio_save(void)
{
	char err[512];

	if (updown_save(&prios, prio_path, err, sizeof(err)) == -1) {
		if (!save_failing)
			log_warnx("cannot save the priorities: %s", err);
		save_failing = 1;
		return;
	}
	if (save_failing)
		log_info("priorities saved in %s again", prio_path);
	save_failing = 0;
}

int
prio_update(void)
{
	long interval = param_int("NEGOTIATOR_INTERVAL", 60);
	struct updown_station *s;
	struct expr *e;
	char err[512];
	double now = monotime(), next;
	size_t i;

	/* A little slack: the periodic timer fires after the interval,
	 * counted from the end of the previous cycle. */
	if (last_update >= 0 && now - last_update < 0.9 * (double)interval)
		return 0;
	last_update = now;
	last_update_wall = time(NULL);
	e = update_prio_expr();
	for (i = 0; i < prios.n; i++) {
		s = prios.v[i];
		if (!s->seen)
			continue;	/* a silent station keeps its index */
		if (updown_step(e, s->prio, s->users, s->running, &next, err,
		    sizeof(err)) == -1) {
			if (e != NULL)
				log_warnx("station %s: %s; its priority stays "
				    "%g", s->name, err, s->prio);
			continue;
		}
		if (next != s->prio)
			log_debug("station %s: priority %g -> %g (users %lld, "
			    "running %lld)", s->name, s->prio, next, s->users,
			    s->running);
		s->prio = next;
	}
	expr_free(e);
	prio_save();
	return 1;
}

static int
station_order(const void *a, const void *b)
{
	const struct updown_station *x = *(struct updown_station *const *)a;
	const struct updown_station *y = *(struct updown_station *const *)b;

	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	if (x->running != y->running)
		return x->running < y->running ? -1 : 1;
	return strcmp(x->name, y->name);
}

void
prio_reply(prio_res_x *res)
{
	struct updown_station **order;
	struct ad *ad;
	size_t i, n = prios.n;

	if (n > 10000)		/* the protocol's bound on stations */
		n = 10000;
	order = xreallocarray(NULL, prios.n ? prios.n : 1, sizeof(*order));
	memcpy(order, prios.v, prios.n * sizeof(*order));
	qsort(order, prios.n, sizeof(*order), station_order);
	res->stations.stations_val = xcalloc(n ? n : 1, sizeof(ad_x));
	res->stations.stations_len = (u_int)n;
	for (i = 0; i < n; i++) {
		ad = ad_new();
		ad_set_string(ad, "Name", order[i]->name);
		ad_set_real(ad, "Priority", order[i]->prio);
		ad_set_int(ad, "Running", order[i]->running);
		ad_set_int(ad, "Idle", order[i]->idle);
		ad_set_int(ad, "Users", order[i]->users);
		ad_set_bool(ad, "Advertising", order[i]->seen);
		ad_set_int(ad, "LastUpdate", (long long)last_update_wall);
		ad_to_xdr(ad, &res->stations.stations_val[i]);
		ad_free(ad);
	}
	free(order);
}

int
prio_set(const char *name, double prio, char *err, size_t errlen)
{
	struct updown_station *s;

	if (!isfinite(prio)) {
		snprintf(err, errlen, "a priority is a finite number");
		return -1;
	}
	if ((s = updown_add(&prios, name)) == NULL) {
		snprintf(err, errlen, "%s", errno == ENOSPC ?
		    "too many stations" : "not a station name");
		return -1;
	}
	log_info("station %s: priority %g -> %g (condor_userprio -setprio)",
	    s->name, s->prio, updown_clamp(prio));
	s->prio = updown_clamp(prio);
	prio_save();
	return 0;
}
