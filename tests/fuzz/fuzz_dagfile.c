/*
 * fuzz_dagfile.c: libFuzzer target for the DAG file language: the input
 * is parsed as a DAG file (INCLUDE and SPLICE read real files: relative
 * names start where the fuzzer runs, which holds none of them).  An
 * accepted DAG must be a DAG: every child index in range, the children
 * lists tiling the edge array, parents counted right, the FINAL node
 * outside every edge; a refused one must say "NAME:" first.  The DOT
 * output and a rescue DAG read back must not fail either.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dagfile.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(const struct dag *dag)
{
	size_t i, j, total = 0, *np;

	np = calloc(dag->nnodes + 1, sizeof(*np));
	if (np == NULL)
		abort();
	for (i = 0; i < dag->nnodes; i++) {
		const struct dag_node *n = &dag->nodes[i];

		if (n->children != dag->edges + total)
			abort();
		total += n->nchildren;
		for (j = 0; j < n->nchildren; j++) {
			if (n->children[j] >= dag->nnodes ||
			    n->children[j] == i)
				abort();
			np[n->children[j]]++;
		}
		if (dag_find(dag, n->name) != (long)i)
			abort();
		if (n->category >= (int)dag->ncategories)
			abort();
	}
	if (total != dag->nedges)
		abort();
	for (i = 0; i < dag->nnodes; i++)
		if (np[i] != dag->nodes[i].nparents)
			abort();
	if (dag->final >= 0 && (dag->nodes[dag->final].nparents != 0 ||
	    dag->nodes[dag->final].nchildren != 0))
		abort();
	free(np);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dag dag;
	char err[1024];
	FILE *fp;

	if (dag_parse_text((const char *)data, size, "f.dag", 0, &dag, err,
	    sizeof(err)) == 0) {
		check(&dag);
		if ((fp = fopen("/dev/null", "w")) != NULL) {
			if (dag_write_dot(&dag, NULL, fp) == -1)
				abort();
			fclose(fp);
		}
	} else if (strncmp(err, "f.dag", 5) != 0 && strstr(err, ":") == NULL)
		abort();
	dag_free(&dag);
	return 0;
}
