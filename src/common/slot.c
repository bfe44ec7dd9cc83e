/*
 * slot.c: partitionable slots' resources (see slot.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "slot.h"

/*
 * NAME of JOB against MACHINE as a whole number, rounded up: 0 with *V
 * set, 1 if JOB lacks it (*V untouched), -1 if it is not a number >= 0
 * (then what it gave is in SHOWN, if not NULL).  NAME may be an
 * expression of the machine's attributes, as HTCondor allows, evaluated
 * here at match time.
 */
static int
request_value(const struct ad *job, const struct ad *machine,
    const char *name, long long *v, struct buf *shown)
{
	struct value val;
	double d;
	int r = 0;

	if (ad_lookup(job, name) == NULL)
		return 1;
	ad_eval(job, machine, name, &val);
	switch (val.type) {
	case VAL_INT:
		d = (double)val.u.i;
		break;
	case VAL_REAL:
		d = val.u.r;
		break;
	default:
		d = -1;
		break;
	}
	if (!(d >= 0) || d > 1e15) {
		r = -1;
		if (shown != NULL)
			value_print(&val, shown);
	} else
		*v = (long long)ceil(d);
	value_free(&val);
	return r;
}

int
slot_request(const struct ad *job, const struct ad *machine,
    struct slot_res *r, char *why, size_t whylen)
{
	static const char *const names[] = { "RequestCpus",
	    "RequestMemory", "RequestDisk", "RequestGpus" };
	long long *dst[4], image = 0;
	struct buf shown;
	size_t i;

	if (request_value(job, machine, "ImageSize", &image, NULL) == -1)
		image = 0;
	r->cpus = 1;
	r->memory = (image + 1023) / 1024;
	r->disk = image;
	r->gpus = 0;
	dst[0] = &r->cpus;
	dst[1] = &r->memory;
	dst[2] = &r->disk;
	dst[3] = &r->gpus;
	for (i = 0; i < 4; i++) {
		buf_init(&shown);
		if (request_value(job, machine, names[i], dst[i],
		    &shown) == -1) {
			snprintf(why, whylen, "%s is %s, not a number of 0 "
			    "or more", names[i], shown.len ? shown.data : "?");
			buf_free(&shown);
			return -1;
		}
		buf_free(&shown);
	}
	if (r->cpus < 1)
		r->cpus = 1;
	if (r->memory < 1)
		r->memory = 1;
	return 0;
}

int
slot_fits(const struct slot_res *free, const struct slot_res *r, char *why,
    size_t whylen)
{
	const char *name = NULL, *unit = "";
	long long want = 0, have = 0;

	if (r->cpus > free->cpus) {
		name = "Cpus";
		want = r->cpus;
		have = free->cpus;
	} else if (r->memory > free->memory) {
		name = "Memory";
		unit = " MiB";
		want = r->memory;
		have = free->memory;
	} else if (r->disk > free->disk) {
		name = "Disk";
		unit = " KiB";
		want = r->disk;
		have = free->disk;
	} else if (r->gpus > free->gpus) {
		name = "GPUs";
		want = r->gpus;
		have = free->gpus;
	}
	if (name == NULL)
		return 1;
	if (why != NULL)
		snprintf(why, whylen, "%s: %lld%s asked, %lld free", name,
		    want, unit, have);
	return 0;
}

void
slot_take(struct slot_res *free, const struct slot_res *r)
{
	free->cpus -= r->cpus;
	free->memory -= r->memory;
	free->disk -= r->disk;
	free->gpus -= r->gpus;
}

void
slot_give(struct slot_res *free, const struct slot_res *r)
{
	free->cpus += r->cpus;
	free->memory += r->memory;
	free->disk += r->disk;
	free->gpus += r->gpus;
}

void
slot_ad_res(const struct ad *ad, struct slot_res *r)
{
	if (ad_get_int(ad, "Cpus", &r->cpus) == -1)
		r->cpus = 0;
	if (ad_get_int(ad, "Memory", &r->memory) == -1)
		r->memory = 0;
	if (ad_get_int(ad, "Disk", &r->disk) == -1)
		r->disk = 0;
	if (ad_get_int(ad, "GPUs", &r->gpus) == -1)
		r->gpus = 0;
}

void
slot_ad_set_res(struct ad *ad, const struct slot_res *r)
{
	ad_set_int(ad, "Cpus", r->cpus);
	ad_set_int(ad, "Memory", r->memory);
	ad_set_int(ad, "Disk", r->disk);
	ad_set_int(ad, "GPUs", r->gpus);
}

int
slot_gpus_take(unsigned char *used, long long total, long long n,
    char *text, size_t len)
{
	long long i, got = 0, pick[SLOT_GPUS_MAX];
	size_t off = 0;
	int w;

	if (total > SLOT_GPUS_MAX)
		total = SLOT_GPUS_MAX;
	if (len > 0)
		text[0] = '\0';
	for (i = 0; i < total && got < n; i++)
		if (!used[i])
			pick[got++] = i;
	if (got < n)
		return -1;
	for (i = 0; i < got; i++) {
		w = snprintf(text + off, len - off, "%sGPU-%lld",
		    i > 0 ? "," : "", pick[i]);
		if (w < 0 || (size_t)w >= len - off) {
			if (len > 0)
				text[0] = '\0';
			return -1;
		}
		off += (size_t)w;
	}
	for (i = 0; i < got; i++)
		used[pick[i]] = 1;
	return 0;
}

void
slot_gpus_give(unsigned char *used, long long total, const char *text)
{
	const char *p = text;
	char *end;
	long long id;

	while (p != NULL && (p = strstr(p, "GPU-")) != NULL) {
		errno = 0;
		id = strtoll(p + 4, &end, 10);
		if (errno == 0 && end != p + 4 && id >= 0 && id < total &&
		    id < SLOT_GPUS_MAX)
			used[id] = 0;
		p = end;
	}
}
