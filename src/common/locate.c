/*
 * locate.c: finding a daemon's RPC address (see locate.h).
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "buf.h"
#include "collector_client.h"
#include "config.h"
#include "daemon.h"
#include "locate.h"
#include "rpcutil.h"
#include "xalloc.h"

struct kind {
	const char	*kind;
	int		 adtype;
	const char	*attr;		/* the address attribute in its ad */
};

static const struct kind kinds[] = {
	{ "master",	ADTYPE_MASTER,		"MasterIpAddr" },
	{ "startd",	ADTYPE_STARTD,		"StartdIpAddr" },
	{ "schedd",	ADTYPE_SCHEDD,		"ScheddIpAddr" },
	{ "negotiator",	ADTYPE_NEGOTIATOR,	"NegotiatorIpAddr" },
	{ NULL,		0,			NULL },
};

char *
daemon_locate(const char *kind, const char *host, char *err, size_t errlen)
{
	const struct kind *k;
	struct ad **ads;
	struct buf c;
	char *addr = NULL;
	const char *p;
	int n;

	/* COLLECTOR_HOST, or the address file of a collector on any
	 * port (a personal pool). */
	if (strcmp(kind, "collector") == 0)
		return collector_address(err, errlen);
	for (k = kinds; k->kind != NULL; k++)
		if (strcmp(k->kind, kind) == 0)
			break;
	if (k->kind == NULL) {
		snprintf(err, errlen, "unknown daemon kind %s", kind);
		return NULL;
	}
	if (host == NULL) {
		if ((addr = daemon_read_address(kind)) != NULL)
			return addr;
		host = param("HOST");
	}
	/* Name == "host", with the name quoted and escaped; a startd
	 * also by Machine, since a partitionable machine's slots are
	 * named slot1@host, slot1_1@host... */
	buf_init(&c);
	buf_adds(&c, "Name == \"");
	for (p = host; *p; p++) {
		if (*p == '"' || *p == '\\')
			buf_addc(&c, '\\');
		buf_addc(&c, *p);
	}
	buf_adds(&c, "\"");
	if (k->adtype == ADTYPE_STARTD) {
		buf_adds(&c, " || Machine == \"");
		for (p = host; *p; p++) {
			if (*p == '"' || *p == '\\')
				buf_addc(&c, '\\');
			buf_addc(&c, *p);
		}
		buf_adds(&c, "\"");
	}
	n = collector_query(k->adtype, c.data, &ads, err, errlen);
	buf_free(&c);
	if (n < 0)
		return NULL;
	if (n == 0 || ad_get_string(ads[0], k->attr, &addr) == -1) {
		snprintf(err, errlen, "no %s is known on host %s", kind, host);
		addr = NULL;
	}
	collector_free_ads(ads, n);
	return addr;
}

CLIENT *
daemon_connect(const char *kind, const char *host, unsigned long prog,
    unsigned long vers, char *err, size_t errlen)
{
	int timeout = (int)param_int("RPC_TIMEOUT", 20);
	const char *me = param("HOST");
	char *path, *addr;
	struct stat st;
	CLIENT *cl;

	if (timeout <= 0 || timeout > 3600)
		timeout = 20;
	if (host == NULL || (me != NULL && strcmp(host, me) == 0)) {
		path = xasprintf("%s/.%s_socket", param("LOG"), kind);
		cl = NULL;
		if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode))
			cl = rpc_connect_unix(path, prog, vers, timeout, err,
			    errlen);
		free(path);
		if (cl != NULL)
			return cl;
	}
	if ((addr = daemon_locate(kind, host, err, errlen)) == NULL)
		return NULL;
	cl = rpc_connect(addr, prog, vers, timeout, err, errlen);
	free(addr);
	return cl;
}
