/*
 * auth_table.c: the level each RPC procedure needs (include/auth.h).
 * One row per procedure of the .x files of include, in the files' order.
 */
#include <string.h>

#include "auth.h"

const struct auth_rule auth_table[] = {
	/* collector_rpc.x */
	{ "COLLECTOR_NULL", AUTH_READ },
	{ "COLLECTOR_UPDATE", AUTH_DAEMON },
	{ "COLLECTOR_QUERY", AUTH_READ },
	{ "COLLECTOR_INVALIDATE", AUTH_DAEMON },
	{ "COLLECTOR_UPDATE_MANY", AUTH_DAEMON },
	{ "COLLECTOR_HISTORY", AUTH_READ },
	{ "COLLECTOR_UPDATE_ACKED", AUTH_DAEMON },
	{ "COLLECTOR_PEER_READVERTISE", AUTH_DAEMON },
	/* master_rpc.x */
	{ "MASTER_NULL", AUTH_READ },
	{ "MASTER_OFF", AUTH_ADMINISTRATOR },
	{ "MASTER_ON", AUTH_ADMINISTRATOR },
	{ "MASTER_RECONFIG", AUTH_ADMINISTRATOR },
	{ "MASTER_SHUTDOWN", AUTH_ADMINISTRATOR },
	/* negotiator_rpc.x */
	{ "NEGOTIATOR_NULL", AUTH_READ },
	{ "NEGOTIATOR_RESCHEDULE", AUTH_WRITE },
	{ "NEGOTIATOR_PRIORITIES", AUTH_READ },
	/* schedd_rpc.x */
	{ "SCHEDD_NULL", AUTH_READ },
	{ "SCHEDD_SUBMIT", AUTH_WRITE },
	{ "SCHEDD_QUERY", AUTH_READ },
	{ "SCHEDD_ACTION", AUTH_WRITE },
	{ "SCHEDD_RESCHEDULE", AUTH_WRITE },
	{ "SCHEDD_NEXT_JOB", AUTH_DAEMON },
	{ "SCHEDD_MATCH", AUTH_NEGOTIATOR },
	{ "SCHEDD_JOB_UPDATE", AUTH_DAEMON },
	{ "SCHEDD_SUBMIT_BEGIN", AUTH_WRITE },
	{ "SCHEDD_SUBMIT_MORE", AUTH_WRITE },
	{ "SCHEDD_QUERY_ATTRS", AUTH_READ },
	/* shadow_rpc.x: only the starter of the shadow's own claim */
	{ "SHADOW_NULL", AUTH_CLAIM },
	{ "SHADOW_HELLO", AUTH_CLAIM },
	{ "SHADOW_GET", AUTH_CLAIM },
	{ "SHADOW_PUT", AUTH_CLAIM },
	{ "SHADOW_CKPT_COMMIT", AUTH_CLAIM },
	{ "SHADOW_EVENT", AUTH_CLAIM },
	{ "SHADOW_EXIT", AUTH_CLAIM },
	/* startd_rpc.x */
	{ "STARTD_NULL", AUTH_READ },
	{ "STARTD_QUERY", AUTH_READ },
	{ "STARTD_REQUEST_CLAIM", AUTH_DAEMON },
	{ "STARTD_VACATE", AUTH_OWNER },
	{ "STARTD_RELEASE_CLAIM", AUTH_DAEMON },
	{ "STARTD_KBDD_ACTIVITY", AUTH_DAEMON },
};

const int auth_table_len = sizeof(auth_table) / sizeof(auth_table[0]);

enum auth_level
auth_level_of(const char *proc)
{
	int i;

	for (i = 0; i < auth_table_len; i++)
		if (strcmp(auth_table[i].proc, proc) == 0)
			return auth_table[i].level;
	return 0;
}

const char *
auth_level_name(enum auth_level l)
{
	static const char *const names[] = { "?", "READ", "WRITE", "OWNER",
	    "ADMINISTRATOR", "DAEMON", "NEGOTIATOR", "CLAIM" };

	return (unsigned)l < sizeof(names) / sizeof(names[0]) ? names[l] :
	    "?";
}
