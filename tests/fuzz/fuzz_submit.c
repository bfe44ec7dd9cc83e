/*
 * fuzz_submit.c: libFuzzer target for the job description language: the
 * input is parsed as a submit file (relative names start in a directory
 * that does not exist, so only absolute includes and item files are
 * read); an accepted file's first and last proc ads are built, and an
 * error must name the file or an included one and a line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "submit.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *env[] = { "HOME=/home/fuzz", "PATH=/bin", "A=x;y",
	    NULL };
	struct submit_env senv = { "/nonexistent-condor-fuzz", env, 0, NULL,
	    NULL, NULL, 2400 };
	struct submit_result res;
	struct ad *ad;
	char err[1024];

	if (submit_parse((const char *)data, size, "f", &senv, &res, err,
	    sizeof(err)) == 0) {
		if (res.nprocs == 0)
			abort();
		ad = submit_proc_ad(&res, 0, 1, err, sizeof(err));
		ad_free(ad);
		ad = submit_proc_ad(&res, res.nprocs - 1, 1, err, sizeof(err));
		ad_free(ad);
	} else if (res.nprocs != 0 || strstr(err, ":") == NULL)
		abort();
	submit_result_free(&res);
	return 0;
}
