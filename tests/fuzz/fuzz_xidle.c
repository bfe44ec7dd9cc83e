/*
 * fuzz_xidle.c: libFuzzer target for the X idle-time client's parsers
 * (src/kbdd/kbdd_xidle.c): the bytes are read as an Xauthority file,
 * as the rest of a setup reply, and (up to a NUL) as a DISPLAY name.
 * A cookie found must lie inside the input; a root window needs the
 * reply to reach it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kbdd_xidle.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char cookie[XIDLE_COOKIE_MAX];
	char path[128], why[256], *name;
	uint32_t root;
	int n, number;

	n = xidle_auth_find(data, size, "fuzzhost", size % 3, cookie);
	if (n < -1 || n > XIDLE_COOKIE_MAX || (n > 0 &&
	    memmem(data, size, cookie, (size_t)n) == NULL))
		abort();
	if (xidle_setup_parse(data, size, &root, why, sizeof(why)) == 0 &&
	    size < 36)
		abort();
	name = strndup((const char *)data, size);
	if (xidle_display_parse(name, &number, path, sizeof(path), why,
	    sizeof(why)) == 0 && (number < 0 || number > 65535))
		abort();
	free(name);
	return 0;
}
