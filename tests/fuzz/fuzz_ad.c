/*
 * fuzz_ad.c: libFuzzer target for reading ads as text (condor_advertise)
 * and printing them back.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ad.h"
#include "buf.h"
#include "xalloc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ad *ads[16];
	struct buf b;
	char err[256], *text;
	int i, n;

	text = xstrndup((const char *)data, size);
	n = ad_parse_text(text, ads, 16, err, sizeof(err));
	buf_init(&b);
	for (i = 0; i < n; i++) {
		ad_print(ads[i], &b);
		ad_free(ads[i]);
	}
	buf_free(&b);
	free(text);
	return 0;
}
