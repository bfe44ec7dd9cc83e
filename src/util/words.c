/*
 * words.c: lists of words separated by commas and blanks (words.h).
 */
#include <stdlib.h>
#include <string.h>

#include "words.h"
#include "xalloc.h"

int
words_has(const char *list, const char *word)
{
	char *copy, *tok, *save = NULL;
	int found = 0;

	if (list == NULL)
		return 0;
	copy = xstrdup(list);
	for (tok = strtok_r(copy, ", \t", &save); tok != NULL && !found;
	    tok = strtok_r(NULL, ", \t", &save))
		found = strcmp(tok, word) == 0;
	free(copy);
	return found;
}
