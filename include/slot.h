/*
 * slot.h: the resources of a partitionable slot and what a job asks of
 * them, shared by the startd (which carves dynamic slots) and the
 * negotiator (which gives one partitionable slot several jobs in one
 * cycle).
 */
#ifndef CONDOR_SLOT_H
#define CONDOR_SLOT_H

#include <stddef.h>

struct ad;

#define SLOT_GPUS_MAX	64	/* GPUs one machine may offer */

/* Cores, MiB of memory, KiB of disk, GPUs. */
struct slot_res {
	long long	cpus;
	long long	memory;
	long long	disk;
	long long	gpus;
};

/*
 * slot_request: what JOB asks for, evaluated against MACHINE (which may
 * be NULL): RequestCpus (default 1), RequestMemory (MiB; default its
 * ImageSize in MiB), RequestDisk (KiB; default its ImageSize), RequestGpus
 * (default 0).  A real is rounded up; cores and memory are at least 1.
 * Returns 0, or -1 with WHY set when a request is not a number >= 0.
 */
int	slot_request(const struct ad *job, const struct ad *machine,
	    struct slot_res *r, char *why, size_t whylen);

/*
 * slot_fits: 1 if the request R fits in FREE; else 0, and WHY (if not
 * NULL) names the first resource short ("Memory: 100 MiB asked, 50
 * free").
 */
int	slot_fits(const struct slot_res *free, const struct slot_res *r,
	    char *why, size_t whylen);

/* slot_take: FREE less R (which must fit).  slot_give: FREE plus R. */
void	slot_take(struct slot_res *free, const struct slot_res *r);
void	slot_give(struct slot_res *free, const struct slot_res *r);

/*
 * slot_ad_res: the resources an ad advertises (Cpus, Memory, Disk,
 * GPUs; a missing one is 0).  slot_ad_set_res: write R into AD as those
 * attributes.
 */
void	slot_ad_res(const struct ad *ad, struct slot_res *r);
void	slot_ad_set_res(struct ad *ad, const struct slot_res *r);

/*
 * slot_gpus_take: mark N of the TOTAL GPU ids free in USED (lowest
 * first) as used and write their names ("GPU-0,GPU-2") to TEXT.  0, or
 * -1 if fewer than N are free or TEXT is too short (nothing marked).
 * slot_gpus_give: mark the ids named in TEXT free again.
 */
int	slot_gpus_take(unsigned char *used, long long total, long long n,
	    char *text, size_t len);
void	slot_gpus_give(unsigned char *used, long long total,
	    const char *text);

#endif
