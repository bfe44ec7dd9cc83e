/*
 * xfer_test.c: the file lists of jobs that transfer files
 * (src/common/xfer.c): names inside a job's directory, lists, remaps;
 * and qlog_crc32, which checks every transferred file, against known
 * values.
 *
 * checks: 27
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc.h"
#include "queue_log.h"
#include "test.h"
#include "xfer.h"

int
main(void)
{
	struct xfer_remap *r;
	char **items, err[256], big[XFER_NAME_LEN + 10];
	unsigned char bytes[771];
	size_t n, i;

	CHECK("a plain name", xfer_name_ok("out.txt"));
	CHECK("a name in a subdirectory", xfer_name_ok("a/b/c.txt"));
	CHECK("a dot file", xfer_name_ok(".hidden") && xfer_name_ok("a/..b"));
	CHECK("not absolute", !xfer_name_ok("/etc/passwd"));
	CHECK("no '..' anywhere", !xfer_name_ok("..") &&
	    !xfer_name_ok("../x") && !xfer_name_ok("a/../../x") &&
	    !xfer_name_ok("a/.."));
	CHECK("no '.' or empty component", !xfer_name_ok(".") &&
	    !xfer_name_ok("a/./b") && !xfer_name_ok("a//b") &&
	    !xfer_name_ok("a/") && !xfer_name_ok(""));
	CHECK("no control character", !xfer_name_ok("a\nb") &&
	    !xfer_name_ok("a\033b"));
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK("not too long", !xfer_name_ok(big));

	items = xfer_list_split(" a.txt,b.txt , dir/\tc ,, ", &n);
	CHECK("a list: commas and white space", n == 4 &&
	    strcmp(items[0], "a.txt") == 0 && strcmp(items[1], "b.txt") == 0 &&
	    strcmp(items[2], "dir/") == 0 && strcmp(items[3], "c") == 0);
	xfer_list_free(items, n);
	items = xfer_list_split(" , ", &n);
	CHECK("an empty list", n == 0 && items == NULL);

	CHECK("remaps: two rules, quoted",
	    xfer_remaps_parse("\"out.txt = results/o.txt; b=/abs/b \"", &r,
	    &n, err, sizeof(err)) == 0 && n == 2);
	CHECK_STR("... first name", n == 2 ? r[0].name : NULL, "out.txt");
	CHECK_STR("... first destination", n == 2 ? r[0].to : NULL,
	    "results/o.txt");
	CHECK_STR("... second destination", n == 2 ? r[1].to : NULL,
	    "/abs/b");
	xfer_remaps_free(r, n);
	CHECK("remaps: a trailing ';'", xfer_remaps_parse("a=b;", &r, &n,
	    err, sizeof(err)) == 0 && n == 1);
	xfer_remaps_free(r, n);
	CHECK("remaps: no '=' is an error", xfer_remaps_parse("a b", &r, &n,
	    err, sizeof(err)) == -1 && strstr(err, "no '='") != NULL);
	CHECK("remaps: a name outside the directory is an error",
	    xfer_remaps_parse("../a = b", &r, &n, err, sizeof(err)) == -1);
	CHECK("remaps: an empty destination is an error",
	    xfer_remaps_parse("a = ", &r, &n, err, sizeof(err)) == -1);
	CHECK("remaps: empty text is no rule",
	    xfer_remaps_parse("\"\"", &r, &n, err, sizeof(err)) == 0 &&
	    n == 0);

	CHECK("CRC-32 of \"123456789\"",
	    qlog_crc32(0, "123456789", 9) == 0xcbf43926u);
	for (i = 0; i < 768; i++)
		bytes[i] = (unsigned char)i;
	memcpy(bytes + 768, "abc", 3);
	CHECK("CRC-32 of 771 bytes", qlog_crc32(0, bytes, 771) ==
	    0x9d3a9924u);
	CHECK("CRC-32 in pieces of odd sizes",
	    qlog_crc32(qlog_crc32(qlog_crc32(0, bytes, 5), bytes + 5, 13),
	    bytes + 18, 753) == 0x9d3a9924u);
	{
		static unsigned char big[200000];
		uint32_t x = 12345, a, b;
		size_t len, ok = 1, pieces = 1;

		for (i = 0; i < sizeof(big); i++) {
			x = x * 1103515245u + 12345u;
			big[i] = (unsigned char)(x >> 16);
		}
		CHECK("CRC-32C of \"123456789\"",
		    crc32c(0, "123456789", 9) == 0xe3069283u);
		CHECK("CRC-32C without the instruction, the same",
		    crc32c_portable(0, "123456789", 9) == 0xe3069283u);
		/* Lengths around the lanes (3 x 8192 bytes) and odd ones. */
		for (len = 0; len < sizeof(big); len = len * 3 + 7)
			if (crc32c(0, big, len) != crc32c_portable(0, big, len))
				ok = 0;
		CHECK("CRC-32C: both ways agree on lengths 0 to 200000", ok);
		a = crc32c(0, big, 24576 * 3 + 5);
		b = crc32c(crc32c(crc32c(0, big, 100), big + 100, 30000),
		    big + 30100, 24576 * 3 + 5 - 30100);
		CHECK("CRC-32C in pieces across lanes", a == b);
		for (i = 0; i < 1000; i++)
			if (crc32c(0, big + i, 24576 + i) !=
			    crc32c_portable(0, big + i, 24576 + i))
				pieces = 0;
		CHECK("CRC-32C: any alignment", pieces);
	}
	return test_failures != 0;
}
