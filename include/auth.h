/*
 * auth.h: who may call what.  Every procedure of every RPC program in
 * the .x files of include needs one authorization level, named in one table
 * (src/common/auth_table.c); tests/unit/auth_table_test.c keeps the
 * table and the .x files in step, so a procedure cannot be added
 * without a level.
 *
 *	AUTH_READ	anyone the pool lets in: queries, pings
 *	AUTH_WRITE	an authenticated user: submit, act on one's own jobs
 *			(the schedd checks the jobs are the caller's,
 *			QUEUE_SUPER_USERS excepted)
 *	AUTH_OWNER	the execute machine's owner: vacate it
 *	AUTH_ADMINISTRATOR  the pool's administrators: daemons off and on,
 *			reconfiguration
 *	AUTH_DAEMON	a daemon of the pool, proven with the pool key: ads,
 *			claims, kbdd reports, job updates
 *	AUTH_NEGOTIATOR	the negotiator the schedd trusts: matches
 *	AUTH_CLAIM	whoever proves it holds the claim the call is about
 *			(the starter to its shadow)
 */
#ifndef CONDOR_AUTH_H
#define CONDOR_AUTH_H

enum auth_level {
	AUTH_READ = 1,
	AUTH_WRITE,
	AUTH_OWNER,
	AUTH_ADMINISTRATOR,
	AUTH_DAEMON,
	AUTH_NEGOTIATOR,
	AUTH_CLAIM,
};

struct auth_rule {
	const char	*proc;		/* the .x file's procedure name */
	enum auth_level	 level;
};

extern const struct auth_rule	auth_table[];
extern const int		auth_table_len;

/* The level PROC needs, or 0 if the table lacks it (refuse the call). */
enum auth_level	auth_level_of(const char *proc);
const char	*auth_level_name(enum auth_level);

#endif
