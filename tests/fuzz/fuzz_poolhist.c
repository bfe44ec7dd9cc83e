/*
 * fuzz_poolhist.c: libFuzzer target for the pool history file's reader
 * (poolhist.c): bytes are read as the file's text, as the collector
 * does for condor_summary; every sample that parses must format back to
 * a line that parses to the same counts, and thinning must keep the
 * first and last.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "poolhist.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pool_sample_x *s = NULL, back;
	size_t n = 0, skipped = 0, i;
	long long first = 0, last = 0;
	struct buf line;

	poolhist_parse_text((const char *)data, size, 0, 0, &s, &n, &skipped);
	for (i = 0; i < n; i++) {
		buf_init(&line);
		poolhist_format(&s[i], &line);
		if (poolhist_parse_line(line.data, line.len - 1, &back) != 0 ||
		    back.time != s[i].time || back.total != s[i].total ||
		    memcmp(back.states, s[i].states,
		    sizeof(back.states)) != 0 ||
		    back.users.users_len != s[i].users.users_len)
			abort();
		poolhist_sample_free(&back);
		buf_free(&line);
	}
	if (n > 0) {
		first = s[0].time;
		last = s[n - 1].time;
	}
	n = poolhist_thin(s, n, 3);
	if (n > 0 && (s[0].time != first || s[n - 1].time != last))
		abort();
	poolhist_samples_free(s, n);
	return 0;
}
