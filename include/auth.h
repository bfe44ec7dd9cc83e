/*
 * auth.h: who may call what, and how a caller proves who it is.
 *
 * Every procedure of every RPC program in the .x files of include needs
 * one authorization level, named in one table (src/common/auth_table.c);
 * tests/unit/auth_table_test.c keeps the table and the .x files in step,
 * so a procedure cannot be added without a level.
 *
 *	AUTH_READ	anyone ALLOW_READ lets in: queries, pings
 *	AUTH_WRITE	an authenticated user: submit, act on one's own jobs
 *			(the schedd checks the jobs are the caller's,
 *			QUEUE_SUPER_USERS excepted)
 *	AUTH_OWNER	the execute machine's owner: vacate it
 *	AUTH_ADMINISTRATOR  the pool's administrators: daemons off and on,
 *			reconfiguration
 *	AUTH_DAEMON	a daemon of the pool, proven with the pool key: ads,
 *			kbdd reports
 *	AUTH_NEGOTIATOR	the negotiator the schedd trusts: matches
 *	AUTH_CLAIM	whoever proves it holds the claim the call is about
 *			(the procedure checks the claim itself)
 *
 * A caller is one of (src/common/auth.c, condor_security(7)):
 *   - a local process on a daemon's Unix-domain socket: its uid, from the
 *     kernel (SO_PEERCRED);
 *   - a holder of the pool key (SEC_POOL_KEY_FILE): the identity
 *     "condor_pool", which the daemons are;
 *   - a holder of a token made with condor_token_create: the token's
 *     identity;
 *   - anyone else: "unauthenticated", which only ALLOW_READ may admit.
 * Key and token holders send, with every call, a credential (flavor
 * AUTH_CONDOR: identity, time, a random nonce) and an HMAC-SHA-256 over
 * the credential, the procedure and the encoded arguments; the server
 * refuses a bad MAC, a time outside SEC_MAX_CLOCK_SKEW and a nonce it
 * has seen.  The key or token never travels.
 */
#ifndef CONDOR_AUTH_H
#define CONDOR_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include <rpc/rpc.h>

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
	unsigned long	 prog;		/* its program and number */
	unsigned long	 num;
	enum auth_level	 level;
};

extern const struct auth_rule	auth_table[];
extern const int		auth_table_len;

/* The level PROC needs, or 0 if the table lacks it (refuse the call). */
enum auth_level	auth_level_of(const char *proc);
/* The rule of procedure NUM of PROG, NULL if there is none. */
const struct auth_rule *auth_rule_of(unsigned long prog, unsigned long num);
const char	*auth_level_name(enum auth_level);

/* The credential flavor of a key or token holder's calls. */
#define AUTH_CONDOR	0x2c0d
#define AUTH_POOL_IDENTITY "condor_pool"
#define AUTH_KEY_LEN	32
#define AUTH_NONCE_LEN	16
#define AUTH_IDENTITY_MAX 64
#define AUTH_TOKEN_MAX	512		/* a token's text */

/*
 * The pool key.  auth_pool_key_load reads SEC_POOL_KEY_FILE, which must
 * belong to this process's user and be readable by nobody else; with
 * CREATE it makes one (AUTH_KEY_LEN random bytes, mode 0600) when there
 * is none, atomically, so that daemons starting together agree.  0, or
 * -1 with a message in ERR.  A process holding the key calls as
 * "condor_pool"; auth_forget_pool_key drops it (before running as a
 * user).
 */
int	 auth_pool_key_load(int create, char *err, size_t errlen);
int	 auth_have_pool_key(void);
void	 auth_forget_pool_key(void);
/*
 * auth_client_acts_for_user: this process acts for a user (a shadow,
 * condor_dagman): it forgets the key if it has it and never loads it,
 * even as root, so that nothing it forks for the user (the system-call
 * server) can hold it; it calls as itself.
 * auth_client_pool_key_refused: whether that was called.
 */
void	 auth_client_acts_for_user(void);
int	 auth_client_pool_key_refused(void);
/* The key itself, for tests and condor_token_create: NULL if none. */
const uint8_t *auth_pool_key(void);

/*
 * Tokens.  auth_token_make writes into OUT (AUTH_TOKEN_MAX bytes) a token
 * for IDENTITY valid LIFETIME seconds from now (0: ten years), signed
 * with KEY.  auth_token_secret checks a token's text against KEY and
 * gives its identity, expiry and the secret a client signs with: 0, or
 * -1 with why in ERR.  auth_token_parse takes a token's text apart
 * without a key (what a client does): identity, issued, expiry, id and
 * the secret.
 */
struct auth_token {
	char	 identity[AUTH_IDENTITY_MAX + 1];
	int64_t	 issued, expiry;
	uint8_t	 id[8];
	uint8_t	 secret[AUTH_KEY_LEN];
};
int	 auth_token_make(const uint8_t key[AUTH_KEY_LEN], const char *identity,
	    long lifetime, char *out, size_t outlen, char *err, size_t errlen);
int	 auth_token_parse(const char *text, struct auth_token *,
	    char *err, size_t errlen);
/* The secret a token with these fields has under KEY. */
void	 auth_token_secret(const uint8_t key[AUTH_KEY_LEN],
	    const struct auth_token *, uint8_t out[AUTH_KEY_LEN]);

/*
 * Client side.  auth_client_attach gives CL the credential this process
 * has: the pool key if it holds it (or can read SEC_POOL_KEY_FILE), else
 * its first valid token (SEC_TOKEN_DIRECTORY, default
 * ~/.condor/tokens.d), else none (the call goes as AUTH_NONE).
 * auth_client_proc tells CL's credential which procedure the next call
 * is (the MAC covers it); rpc_invoke calls it.
 */
void	 auth_client_attach(CLIENT *cl, unsigned long prog,
	    unsigned long vers);
void	 auth_client_proc(CLIENT *cl, unsigned long proc);
/* What this process would call as: "condor_pool", a token's identity,
 * or NULL. */
const char *auth_client_identity(void);
/*
 * auth_dgram_encode: the credential, then the arguments wrapped with
 * their MAC, for a datagram call whose header (up to the credential)
 * is already in X.  Without a credential: AUTH_NONE and the plain
 * arguments.  FALSE if they do not fit.
 */
bool_t	 auth_dgram_encode(XDR *x, unsigned long prog, unsigned long vers,
	    unsigned long proc, xdrproc_t xargs, void *args);
/*
 * auth_dgram_verify: a datagram call's credential (CRED, LEN bytes of
 * flavor AUTH_CONDOR) and the wrapped arguments at X's position, checked
 * with the pool key (only the pool's daemons call daemons this way); the
 * arguments' bytes in *ARGS (allocated) and *ARGSLEN.  0, or -1.
 */
int	 auth_dgram_verify(const char *cred, u_int len, unsigned long prog,
	    unsigned long vers, unsigned long proc, XDR *x, char **args,
	    u_int *argslen);

/*
 * Server side.  auth_server_init registers the AUTH_CONDOR flavor with
 * libtirpc (once).  auth_check decides a request before its dispatcher
 * runs: the caller proven (a credential's MAC read and checked with the
 * arguments, which getargs then decodes from that copy) and allowed the
 * level its procedure needs.  0 to dispatch; -1 when it refused: the
 * error reply is sent and the refusal logged with the peer.
 * auth_request_done forgets the request.
 */
void	 auth_server_init(void);
int	 auth_check(struct svc_req *, SVCXPRT *);
void	 auth_request_done(void);
/*
 * For the transport's getargs: 1 and the arguments decoded into WHERE
 * (0 if they do not decode) when the request's arguments were read with
 * its MAC; -1 when the transport should decode them itself.
 */
int	 auth_getargs(SVCXPRT *, xdrproc_t, void *where);

/* Who made the request being served. */
struct auth_caller {
	int	 method;		/* AUTH_BY_* */
	char	 identity[AUTH_IDENTITY_MAX + 1];
	uid_t	 uid;			/* AUTH_BY_LOCAL */
	char	 host[64];		/* address, or "local" */
};
#define AUTH_BY_NONE	0
#define AUTH_BY_LOCAL	1
#define AUTH_BY_POOL	2
#define AUTH_BY_TOKEN	3
/*
 * auth_allowed: may CALLER act at LEVEL here (ALLOW_<LEVEL>, DENY_<LEVEL>,
 * and the implied levels)?  1 or 0, with why in WHY when 0.
 */
int	 auth_allowed(const struct auth_caller *, enum auth_level,
	    char *why, size_t whylen);
/* auth_list_match: does an ALLOW/DENY list hold IDENTITY from HOST? */
int	 auth_list_match(const char *list, const char *identity,
	    const char *host);

/*
 * A machine's claim id: made by its startd (AUTH_CLAIM_ID_BYTES random
 * bytes, in hexadecimal), in its ad as AUTH_CLAIM_ID_ATTR for the
 * negotiator, who gives it to the matched schedd, whose shadow must
 * present it to claim the machine.  auth_strip_private removes it from
 * an ad going to a caller that is not a daemon of the pool (OWNED: the
 * ad's strings are its own, and freed); auth_caller_is_daemon says
 * whether the caller of the request being served is one.
 */
#define AUTH_CLAIM_ID_ATTR	"ClaimId"
/* auth_random_hex: NBYTES from getrandom, as hexadecimal, into OUT
 * (2 * NBYTES + 1 bytes). */
void	 auth_random_hex(char *out, size_t nbytes);
#define AUTH_CLAIM_ID_BYTES	16
/*
 * auth_claim_key: the key of job CLUSTER.PROC's claim, made with machine
 * claim id CLAIM_ID: the HMAC-SHA-256, under the pool key, of
 * "condor-claim-1", the id and " CLUSTER.PROC", in hexadecimal into OUT
 * (at least AUTH_CLAIM_KEY_LEN + 1 bytes).  Only the pool's daemons can
 * make it: the schedd, which gives it to the job's shadow, and the
 * startd, which checks it and gives it to the job's starter.  It, not
 * the claim id, is what the shadow presents to claim, reconnect and
 * release, and what the starter and the shadow prove to each other; a
 * claim id alone claims nothing.  0, or -1 (EINVAL: no pool key).
 */
#define AUTH_CLAIM_KEY_LEN	64
int	 auth_claim_key(const char *claim_id, int cluster, int proc,
	    char *out, size_t outlen);
struct ad_x;
void	 auth_strip_private(struct ad_x *x, int owned);
int	 auth_caller_is_daemon(void);

/* The replay cache, exposed for its unit test: 1 if new (and kept). */
int	 auth_nonce_fresh(const uint8_t nonce[AUTH_NONCE_LEN], int64_t when,
	    int64_t now);

#endif
