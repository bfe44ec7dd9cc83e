/*
 * slot_test.c: partitionable slots' resources (src/common/slot.c): a
 * job's requests with their defaults and rounding, fitting, carving and
 * giving back, the ad's attributes, and GPU ids.
 *
 * checks: 30
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "slot.h"
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

static const struct {
	const char	*name;
	const char	*job;
	int		 ok;
	long long	 cpus, memory, disk, gpus;
} request_cases[] = {
	{ "defaults: 1 core, ImageSize for memory and disk",
	    "ImageSize = 2048", 0, 1, 2, 2048, 0 },
	{ "no ImageSize: 1 core, 1 MiB, no disk", "Owner = \"a\"", 0,
	    1, 1, 0, 0 },
	{ "every request", "RequestCpus = 2;RequestMemory = 1024;"
	    "RequestDisk = 500;RequestGpus = 1", 0, 2, 1024, 500, 1 },
	{ "reals round up", "RequestCpus = 1.5;RequestMemory = 10.2", 0,
	    2, 11, 0, 0 },
	{ "an expression of the machine", "RequestMemory = MY.Want * 2;"
	    "Want = 300", 0, 1, 600, 0, 0 },
	{ "0 cores is 1", "RequestCpus = 0", 0, 1, 1, 0, 0 },
	{ "a negative request is refused", "RequestMemory = -5", -1,
	    0, 0, 0, 0 },
	{ "a string is refused", "RequestCpus = \"two\"", -1, 0, 0, 0, 0 },
};

static void
test_request(void)
{
	struct slot_res r;
	struct ad *job;
	char why[256];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(request_cases) / sizeof(request_cases[0]);
	    i++) {
		job = mkad(request_cases[i].job);
		memset(&r, 0, sizeof(r));
		rc = slot_request(job, NULL, &r, why, sizeof(why));
		if (request_cases[i].ok == 0)
			CHECK(request_cases[i].name, rc == 0 &&
			    r.cpus == request_cases[i].cpus &&
			    r.memory == request_cases[i].memory &&
			    r.disk == request_cases[i].disk &&
			    r.gpus == request_cases[i].gpus);
		else
			CHECK(request_cases[i].name, rc == -1 &&
			    strstr(why, "Request") != NULL);
		ad_free(job);
	}
}

static void
test_fit(void)
{
	struct slot_res room = { 4, 8192, 100000, 2 };
	struct slot_res one = { 1, 1024, 1000, 0 };
	struct slot_res big = { 1, 100000, 0, 0 };
	struct slot_res gpus = { 1, 1, 0, 3 };
	struct ad *ad;
	char why[256];
	int i, n = 0;

	CHECK("a 1-core job fits", slot_fits(&room, &one, why, sizeof(why)));
	CHECK("too much memory does not fit",
	    !slot_fits(&room, &big, why, sizeof(why)));
	CHECK_STR("... and says which", why,
	    "Memory: 100000 MiB asked, 8192 free");
	CHECK("too many GPUs does not fit",
	    !slot_fits(&room, &gpus, why, sizeof(why)) &&
	    strncmp(why, "GPUs", 4) == 0);
	while (slot_fits(&room, &one, NULL, 0)) {
		slot_take(&room, &one);
		n++;
	}
	CHECK("four 1-core jobs are carved from 4 cores", n == 4);
	CHECK("then no core is left", room.cpus == 0 &&
	    room.memory == 4096 && room.disk == 96000);
	for (i = 0; i < 4; i++)
		slot_give(&room, &one);
	CHECK("given back, the slot is whole", room.cpus == 4 &&
	    room.memory == 8192 && room.disk == 100000 && room.gpus == 2);
	ad = ad_new();
	slot_ad_set_res(ad, &room);
	memset(&room, 0, sizeof(room));
	slot_ad_res(ad, &room);
	CHECK("an ad's resources round-trip", room.cpus == 4 &&
	    room.memory == 8192 && room.disk == 100000 && room.gpus == 2);
	ad_free(ad);
	ad = mkad("Cpus = 2");
	slot_ad_res(ad, &room);
	CHECK("missing resources read as 0", room.cpus == 2 &&
	    room.memory == 0 && room.disk == 0 && room.gpus == 0);
	ad_free(ad);
}

static void
test_gpus(void)
{
	unsigned char used[SLOT_GPUS_MAX];
	char a[64], b[64], c[64], tiny[4];

	memset(used, 0, sizeof(used));
	CHECK("two GPUs of four", slot_gpus_take(used, 4, 2, a,
	    sizeof(a)) == 0);
	CHECK_STR("... are GPU-0 and GPU-1", a, "GPU-0,GPU-1");
	CHECK("one more", slot_gpus_take(used, 4, 1, b, sizeof(b)) == 0);
	CHECK_STR("... is GPU-2", b, "GPU-2");
	CHECK("two more are not free", slot_gpus_take(used, 4, 2, c,
	    sizeof(c)) == -1 && !used[3]);
	slot_gpus_give(used, 4, a);
	CHECK("given back, three are free", slot_gpus_take(used, 4, 3, c,
	    sizeof(c)) == 0);
	CHECK_STR("... the lowest first", c, "GPU-0,GPU-1,GPU-3");
	memset(used, 0, sizeof(used));
	CHECK("a name that does not fit takes nothing",
	    slot_gpus_take(used, 4, 2, tiny, sizeof(tiny)) == -1 &&
	    !used[0] && !used[1]);
}

/* Requests as expressions, evaluated against the machine at match time
 * (HTCondor's request_memory = ifThenElse(...)). */
static const struct {
	const char	*name;
	const char	*job;
	const char	*machine;
	int		 ok;
	long long	 memory;
	const char	*why;
} expr_cases[] = {
	{ "ifThenElse with no MemoryUsage gives its else",
	    "RequestMemory = ifThenElse(MemoryUsage =!= undefined, "
	    "MemoryUsage * 3 / 2, 1024)", "Memory = 4096", 0, 1024, NULL },
	{ "... and with MemoryUsage its then",
	    "MemoryUsage = 2000;RequestMemory = ifThenElse(MemoryUsage "
	    "=!= undefined, MemoryUsage * 3 / 2, 1024)", "Memory = 4096", 0,
	    3000, NULL },
	{ "half of the machine's memory",
	    "RequestMemory = TARGET.Memory / 2", "Memory = 4096", 0, 2048,
	    NULL },
	{ "undefined against this machine is refused, and says so",
	    "RequestMemory = TARGET.NoSuch * 2", "Memory = 4096", -1, 0,
	    "RequestMemory is undefined" },
	{ "a string is refused, and shown",
	    "RequestMemory = \"lots\"", "Memory = 4096", -1, 0,
	    "RequestMemory is \"lots\"" },
};

static void
test_request_expr(void)
{
	struct slot_res r;
	struct ad *job, *machine;
	char why[256];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(expr_cases) / sizeof(expr_cases[0]); i++) {
		job = mkad(expr_cases[i].job);
		machine = mkad(expr_cases[i].machine);
		why[0] = '\0';
		rc = slot_request(job, machine, &r, why, sizeof(why));
		if (expr_cases[i].ok == 0)
			CHECK(expr_cases[i].name, rc == 0 &&
			    r.memory == expr_cases[i].memory);
		else
			CHECK(expr_cases[i].name, rc == -1 &&
			    strstr(why, expr_cases[i].why) != NULL);
		if (rc == -1 && expr_cases[i].ok == 0)
			printf("  (%s)\n", why);
		ad_free(job);
		ad_free(machine);
	}
}

int
main(void)
{
	test_request();
	test_request_expr();
	test_fit();
	test_gpus();
	TEST_EXIT();
}
