/*
 * fuzz_expr.c: libFuzzer target for the expression parser and evaluator.
 * Any input: parse it; if it parses, evaluate it against a small ad
 * (with a list, a nested ad and a cycle), print the value both ways
 * (lists and nested ads walk their elements), and check that its
 * canonical text parses back to the same canonical text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "xalloc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ad *my;
	char err[256], *text, *again1, *again2;
	struct expr *e, *e2;
	struct value v;

	if (my == NULL) {
		my = ad_new();
		ad_set_int(my, "Memory", 1024);
		ad_set_string(my, "Arch", "X86_64");
		ad_set_expr(my, "Loop", "Loop + 1", NULL, 0);
		ad_set_expr(my, "Requirements", "Memory > 10", NULL, 0);
		ad_set_expr(my, "Names", "{ \"a\", 1, [x = Memory] }", NULL,
		    0);
		ad_set_expr(my, "Nested", "[a = 1; b = a + Memory; c = b]",
		    NULL, 0);
	}
	text = xstrndup((const char *)data, size);
	e = expr_parse(text, err, sizeof(err));
	if (e != NULL) {
		struct buf b;
		size_t i;

		expr_eval(e, my, my, &v);
		buf_init(&b);
		value_unparse(&v, &b);
		value_print(&v, &b);
		for (i = 0; i < value_list_len(&v) && i < 8; i++) {
			struct value item;

			value_list_item(&v, i, &item);
			value_unparse(&item, &b);
			value_free(&item);
		}
		buf_free(&b);
		value_free(&v);
		again1 = expr_to_string(e);
		e2 = expr_parse(again1, err, sizeof(err));
		if (e2 == NULL)
			abort();	/* canonical text must parse */
		again2 = expr_to_string(e2);
		if (strcmp(again1, again2) != 0)
			abort();	/* and be a fixed point */
		free(again1);
		free(again2);
		expr_free(e2);
		expr_free(e);
	}
	free(text);
	return 0;
}
