/*
 * acctgroup.c: who may charge an accounting group (acctgroup.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acctgroup.h"
#include "config.h"
#include "xalloc.h"

/* Whether the list TEXT ("a, b c") holds NAME (LEN bytes) or "*". */
static int
list_has(const char *text, const char *name, size_t len)
{
	const char *p = text, *w;
	size_t n;

	while (*p != '\0') {
		p += strspn(p, ", \t");
		w = p;
		n = strcspn(p, ", \t");
		p += n;
		if ((n == 1 && *w == '*') || (n == len && n > 0 &&
		    strncmp(w, name, len) == 0))
			return 1;
	}
	return 0;
}

int
acct_group_allows(const char *group, const char *user, char *why,
    size_t whylen)
{
	const char *end = group, *members;
	char *level, *var, *quota;
	size_t ulen = strcspn(user, "@");
	int ok = 1;

	/* "a.b": level "a", then "a.b". */
	for (;;) {
		end = strchr(end, '.');
		level = xasprintf("%.*s", (int)(end != NULL ?
		    (size_t)(end - group) : strlen(group)), group);
		var = xasprintf("GROUP_MEMBERS_%s", level);
		quota = xasprintf("GROUP_QUOTA_%s", level);
		if ((members = param(var)) != NULL) {
			if (!list_has(members, user, ulen)) {
				snprintf(why, whylen, "user %.*s is not a "
				    "member of accounting group %s (%s)",
				    (int)ulen, user, level, var);
				ok = 0;
			}
		} else if (param(quota) != NULL) {
			snprintf(why, whylen, "accounting group %s has a %s "
			    "but no %s: it admits nobody", level, quota, var);
			ok = 0;
		}
		free(level);
		free(var);
		free(quota);
		if (!ok || end == NULL)
			return ok;
		end++;
	}
}
