/*
 * submit_ad.c: the cluster ad and the proc ads from what the queue
 * statements built, and turning them into ads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ad.h"
#include "buf.h"
#include "submit_int.h"
#include "xalloc.h"

/*
 * Whether attribute A of a statement's first proc belongs in the cluster
 * ad: no proc's value depends on $(Process), and every statement that
 * queues procs has it with the same text.  Statements usually build
 * their attributes in the same order, so position I is tried first.
 * A job's status is its own (hold = true): the schedd changes it job by
 * job, and a job released must not keep its cluster's.
 */
static int
in_cluster(struct parser *p, const struct jattr *a, size_t i)
{
	static const char *const own[] = { "JobStatus", "HoldReason",
	    "HoldReasonCode", "HoldReasonSubCode", NULL };
	const struct jattrs *b;
	size_t s, k;

	if (a->deps & DEP_PROCESS)
		return 0;
	for (k = 0; own[k] != NULL; k++)
		if (strcasecmp(a->name, own[k]) == 0)
			return 0;
	for (s = 0; s < p->nstmts; s++) {
		b = &p->stmts[s].base;
		if (p->stmts[s].count == 0)
			continue;
		k = i;
		if (k >= b->n || strcasecmp(b->a[k].name, a->name) != 0)
			for (k = 0; k < b->n; k++)
				if (strcasecmp(b->a[k].name, a->name) == 0)
					break;
		if (k == b->n || (b->a[k].deps & DEP_PROCESS) ||
		    strcmp(b->a[k].text, a->text) != 0)
			return 0;
	}
	return 1;
}

static void
sad_add(struct submit_ad *sa, const char *name, const char *text)
{
	sa->attrs = xreallocarray(sa->attrs, sa->n + 1, sizeof(*sa->attrs));
	sa->attrs[sa->n].name = xstrdup(name);
	sa->attrs[sa->n].text = xstrdup(text);
	sa->n++;
}

static int
sad_has(const struct submit_ad *sa, const char *name)
{
	size_t i;

	for (i = 0; i < sa->n; i++)
		if (strcasecmp(sa->attrs[i].name, name) == 0)
			return 1;
	return 0;
}

/* Split what the statements built into the cluster ad and proc ads. */
void
sub_assemble(struct parser *p)
{
	struct submit_result *r = p->res;
	const struct stmt *st;
	const struct jattrs *b;
	size_t s, i, k, proc = 0;
	char *own;

	for (s = 0; s < p->nstmts; s++)
		if (p->stmts[s].count > 0)
			break;
	if (s < p->nstmts) {
		b = &p->stmts[s].base;
		for (i = 0; i < b->n; i++)
			if (in_cluster(p, &b->a[i], i))
				sad_add(&r->cluster, b->a[i].name,
				    b->a[i].text);
	}
	/* How many were submitted: condor_q -batch counts those done. */
	own = xasprintf("%zu", p->nprocs);
	sad_add(&r->cluster, "TotalSubmitProcs", own);
	free(own);
	r->procs = xcalloc(p->nprocs + 1, sizeof(*r->procs));
	r->nprocs = p->nprocs;
	for (s = 0; s < p->nstmts; s++) {
		st = &p->stmts[s];
		b = &st->base;
		/* Which of the statement's attributes each proc carries. */
		own = xcalloc(b->n + 1, 1);
		for (i = 0, k = 0; i < b->n; i++) {
			if (b->a[i].deps & DEP_PROCESS)
				own[i] = 2;
			else if (k < r->cluster.n && strcasecmp(b->a[i].name,
			    r->cluster.attrs[k].name) == 0) {
				/* Usually in the same order: no search. */
				own[i] = 0;
				k++;
			} else
				own[i] = !sad_has(&r->cluster, b->a[i].name);
		}
		for (k = 0; k < st->count; k++, proc++) {
			struct submit_ad *pa = &r->procs[proc];

			for (i = 0; i < b->n; i++)
				if (own[i] == 1 || (own[i] == 2 && k == 0))
					sad_add(pa, b->a[i].name,
					    b->a[i].text);
			if (k == 0 || st->more == NULL)
				continue;
			for (i = 0; i < st->more[k - 1].n; i++)
				sad_add(pa, st->more[k - 1].a[i].name,
				    st->more[k - 1].a[i].text);
		}
		free(own);
	}
}

void
submit_result_free(struct submit_result *res)
{
	size_t i, k;

	for (i = 0; i < res->cluster.n; i++) {
		free(res->cluster.attrs[i].name);
		free(res->cluster.attrs[i].text);
	}
	free(res->cluster.attrs);
	for (k = 0; k < res->nprocs; k++) {
		for (i = 0; i < res->procs[k].n; i++) {
			free(res->procs[k].attrs[i].name);
			free(res->procs[k].attrs[i].text);
		}
		free(res->procs[k].attrs);
	}
	free(res->procs);
	free(res->executable);
	for (i = 0; i < res->nwarnings; i++)
		free(res->warnings[i]);
	free(res->warnings);
	for (i = 0; i < res->nnotices; i++)
		free(res->notices[i]);
	free(res->notices);
	memset(res, 0, sizeof(*res));
}

static int
ad_add_submit(struct ad *ad, const struct submit_ad *sa, int cluster,
    char *err, size_t errlen)
{
	char *t;
	size_t i;
	int rc;

	for (i = 0; i < sa->n; i++) {
		t = submit_expand_cluster(sa->attrs[i].text, cluster);
		rc = ad_set_expr(ad, sa->attrs[i].name,
		    t ? t : sa->attrs[i].text, err, errlen);
		free(t);
		if (rc == -1)
			return -1;
	}
	return 0;
}

struct ad *
submit_proc_ad(const struct submit_result *res, size_t i, int cluster,
    char *err, size_t errlen)
{
	struct ad *ad;

	if (i >= res->nprocs) {
		snprintf(err, errlen, "no proc %zu", i);
		return NULL;
	}
	ad = ad_new();
	if (ad_add_submit(ad, &res->cluster, cluster, err, errlen) == -1 ||
	    ad_add_submit(ad, &res->procs[i], cluster, err, errlen) == -1) {
		ad_free(ad);
		return NULL;
	}
	ad_set_int(ad, "ClusterId", cluster);
	ad_set_int(ad, "ProcId", (long long)i);
	return ad;
}

char *
submit_expand_cluster(const char *text, int cluster)
{
	static const char macro[] = SUBMIT_CLUSTER_MACRO;
	const char *s, *hit;
	struct buf b;

	if (strstr(text, macro) == NULL)
		return NULL;
	buf_init(&b);
	for (s = text; (hit = strstr(s, macro)) != NULL;
	    s = hit + sizeof(macro) - 1) {
		buf_add(&b, s, (size_t)(hit - s));
		buf_printf(&b, "%d", cluster);
	}
	buf_adds(&b, s);
	return buf_take(&b);
}
