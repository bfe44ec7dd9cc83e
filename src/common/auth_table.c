/*
 * auth_table.c: the level each RPC procedure needs (include/auth.h).
 * One row per procedure of the .x files of include, in the files' order.
 */
#include <string.h>

#include "auth.h"
#include "collector_rpc.h"
#include "master_rpc.h"
#include "negotiator_rpc.h"
#include "schedd_rpc.h"
#include "shadow_rpc.h"
#include "startd_rpc.h"

#define R(prog, proc, level)	{ #proc, prog, proc, level }

const struct auth_rule auth_table[] = {
	/* collector_rpc.x */
	R(COLLECTOR_PROG, COLLECTOR_NULL, AUTH_READ),
	R(COLLECTOR_PROG, COLLECTOR_UPDATE, AUTH_DAEMON),
	R(COLLECTOR_PROG, COLLECTOR_QUERY, AUTH_READ),
	R(COLLECTOR_PROG, COLLECTOR_INVALIDATE, AUTH_DAEMON),
	R(COLLECTOR_PROG, COLLECTOR_UPDATE_MANY, AUTH_DAEMON),
	R(COLLECTOR_PROG, COLLECTOR_HISTORY, AUTH_READ),
	R(COLLECTOR_PROG, COLLECTOR_UPDATE_ACKED, AUTH_DAEMON),
	R(COLLECTOR_PEER_PROG, COLLECTOR_PEER_READVERTISE, AUTH_DAEMON),
	/* master_rpc.x */
	R(MASTER_PROG, MASTER_NULL, AUTH_READ),
	R(MASTER_PROG, MASTER_OFF, AUTH_ADMINISTRATOR),
	R(MASTER_PROG, MASTER_ON, AUTH_ADMINISTRATOR),
	R(MASTER_PROG, MASTER_RECONFIG, AUTH_ADMINISTRATOR),
	R(MASTER_PROG, MASTER_SHUTDOWN, AUTH_ADMINISTRATOR),
	R(MASTER_PROG, MASTER_RESTART, AUTH_ADMINISTRATOR),
	/* negotiator_rpc.x */
	R(NEGOTIATOR_PROG, NEGOTIATOR_NULL, AUTH_READ),
	R(NEGOTIATOR_PROG, NEGOTIATOR_RESCHEDULE, AUTH_WRITE),
	R(NEGOTIATOR_PROG, NEGOTIATOR_PRIORITIES, AUTH_READ),
	R(NEGOTIATOR_PROG, NEGOTIATOR_SET_PRIORITY, AUTH_ADMINISTRATOR),
	/* schedd_rpc.x */
	R(SCHEDD_PROG, SCHEDD_NULL, AUTH_READ),
	R(SCHEDD_PROG, SCHEDD_SUBMIT, AUTH_WRITE),
	R(SCHEDD_PROG, SCHEDD_QUERY, AUTH_READ),
	R(SCHEDD_PROG, SCHEDD_ACTION, AUTH_WRITE),
	R(SCHEDD_PROG, SCHEDD_RESCHEDULE, AUTH_WRITE),
	R(SCHEDD_PROG, SCHEDD_NEXT_JOB, AUTH_NEGOTIATOR),
	R(SCHEDD_PROG, SCHEDD_MATCH, AUTH_NEGOTIATOR),
	/* from the shadow, which runs as the job's owner: its own jobs */
	R(SCHEDD_PROG, SCHEDD_JOB_UPDATE, AUTH_WRITE),
	R(SCHEDD_PROG, SCHEDD_SUBMIT_BEGIN, AUTH_WRITE),
	R(SCHEDD_PROG, SCHEDD_SUBMIT_MORE, AUTH_WRITE),
	R(SCHEDD_PROG, SCHEDD_SUBMIT_MANY, AUTH_WRITE),
	R(SCHEDD_PROG, SCHEDD_QUERY_ATTRS, AUTH_READ),
	R(SCHEDD_PROG, SCHEDD_EDIT, AUTH_WRITE),
	/* the schedd checks the job is the caller's */
	R(SCHEDD_PROG, SCHEDD_TAIL, AUTH_WRITE),
	/* shadow_rpc.x: only the starter of the shadow's own claim */
	R(SHADOW_PROG, SHADOW_NULL, AUTH_CLAIM),
	R(SHADOW_PROG, SHADOW_HELLO, AUTH_CLAIM),
	R(SHADOW_PROG, SHADOW_GET, AUTH_CLAIM),
	R(SHADOW_PROG, SHADOW_PUT, AUTH_CLAIM),
	R(SHADOW_PROG, SHADOW_CKPT_COMMIT, AUTH_CLAIM),
	R(SHADOW_PROG, SHADOW_EVENT, AUTH_CLAIM),
	R(SHADOW_PROG, SHADOW_EXIT, AUTH_CLAIM),
	R(SHADOW_PROG, SHADOW_INPUT_LIST, AUTH_CLAIM),
	R(SHADOW_PROG, SHADOW_OUTPUT_BEGIN, AUTH_CLAIM),
	R(SHADOW_PROG, SHADOW_OUTPUT_END, AUTH_CLAIM),
	R(SHADOW_PROG, SHADOW_XFER_OPEN, AUTH_CLAIM),
	R(SHADOW_PROG, SHADOW_RECONNECT, AUTH_CLAIM),
	/* startd_rpc.x */
	R(STARTD_PROG, STARTD_NULL, AUTH_READ),
	R(STARTD_PROG, STARTD_QUERY, AUTH_READ),
	/* from the shadow, with the claim it was given */
	R(STARTD_PROG, STARTD_REQUEST_CLAIM, AUTH_CLAIM),
	R(STARTD_PROG, STARTD_VACATE, AUTH_OWNER),
	R(STARTD_PROG, STARTD_VACATE_SLOT, AUTH_OWNER),
	R(STARTD_PROG, STARTD_CLAIM_ALIVE, AUTH_CLAIM),
	R(STARTD_PROG, STARTD_RECONNECT_JOB, AUTH_CLAIM),
	R(STARTD_PROG, STARTD_RELEASE_CLAIM, AUTH_CLAIM),
	R(STARTD_PROG, STARTD_KBDD_ACTIVITY, AUTH_DAEMON),
	/* from the schedd, with the claim's capability */
	R(STARTD_PROG, STARTD_TAIL, AUTH_CLAIM),
	/* from the schedd, for claim reuse */
	R(STARTD_PROG, STARTD_END_CLAIM, AUTH_CLAIM),
	R(STARTD_PROG, STARTD_CLAIM_AD, AUTH_CLAIM),
	/* from the negotiator: fair share with claim reuse */
	R(STARTD_PROG, STARTD_RETIRE_SLOT, AUTH_OWNER),
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

const struct auth_rule *
auth_rule_of(unsigned long prog, unsigned long num)
{
	int i;

	for (i = 0; i < auth_table_len; i++)
		if (auth_table[i].prog == prog && auth_table[i].num == num)
			return &auth_table[i];
	return NULL;
}

const char *
auth_level_name(enum auth_level l)
{
	static const char *const names[] = { "?", "READ", "WRITE", "OWNER",
	    "ADMINISTRATOR", "DAEMON", "NEGOTIATOR", "CLAIM" };

	return (unsigned)l < sizeof(names) / sizeof(names[0]) ? names[l] :
	    "?";
}
