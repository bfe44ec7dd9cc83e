/*
 * fuzz_config.c: libFuzzer target for the configuration reader: the input
 * is written to a file and read over the defaults, then every setting is
 * expanded.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "config.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	char err[1024];
	FILE *f, *null;

	if (path[0] == '\0')
		snprintf(path, sizeof(path), "/tmp/condor-fuzz-config.%d",
		    (int)getpid());
	if ((f = fopen(path, "w")) == NULL)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	setenv("CONDOR_CONFIG", path, 1);
	if (config_init(err, sizeof(err)) == 0) {
		if ((null = fopen("/dev/null", "w")) != NULL) {
			config_dump(null);
			fclose(null);
		}
		param_int("MINUTE", 60);
		param_bool("START", 0);
	}
	unlink(path);
	return 0;
}
