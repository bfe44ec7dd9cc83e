/*
 * auth.c: proving who calls, and deciding what they may do (auth.h,
 * condor_security(7)).
 *
 * A credential of flavor AUTH_CONDOR is, in XDR:
 *
 *	u_int	version (1)
 *	u_int	method (AUTH_BY_POOL or AUTH_BY_TOKEN)
 *	hyper	time of the call, seconds since 1970 by the caller's clock
 *	opaque	nonce[AUTH_NONCE_LEN], random
 *	string	identity<AUTH_IDENTITY_MAX>
 *	hyper	token issued, hyper token expiry, opaque token id[8]
 *		(zeros for the pool key)
 *
 * and the call's arguments travel wrapped: opaque args<> then opaque
 * mac[32], the HMAC-SHA-256, under the pool key or the token's secret,
 * of "condor-rpc-1", the credential's bytes, the program, version and
 * procedure (4 bytes each, big-endian) and the arguments' bytes.  A
 * token's secret is the HMAC, under the pool key, of "condor-token-1" and
 * the token's fields: the server recomputes it, the client has it in its
 * token file, neither sends it.
 */
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>
#include <rpc/svc_auth.h>

#include "ad.h"
#include "auth.h"
#include "condor_types.h"
#include "config.h"
#include "hmac.h"
#include "log.h"
#include "rpcutil.h"
#include "xalloc.h"

#define CRED_VERSION	1
#define MAC_LABEL	"condor-rpc-1"
#define TOKEN_LABEL	"condor-token-1"
#define TOKEN_MAGIC	"CONDOR-TOKEN-1"
#define CLAIM_LABEL	"condor-claim-1"
#define SKEW_DEFAULT	300

static uint8_t	pool_key[AUTH_KEY_LEN];
static int	have_pool_key;
static int	acts_for_user;	/* auth_client_acts_for_user was called */

static long
clock_skew(void)
{
	long s = param_int("SEC_MAX_CLOCK_SKEW", SKEW_DEFAULT);

	return s > 0 && s <= 86400 ? s : SKEW_DEFAULT;
}

static void
random_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len > 0) {
		n = getrandom(p, len, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			fatal("getrandom");
		p += n;
		len -= (size_t)n;
	}
}

static void
hex(const uint8_t *b, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

static int
unhex(const char *s, uint8_t *b, size_t n)
{
	size_t i;
	int hi, lo;

	if (strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)s[2 * i]) ||
		    !isxdigit((unsigned char)s[2 * i + 1]))
			return -1;
		hi = isdigit((unsigned char)s[2 * i]) ? s[2 * i] - '0' :
		    tolower((unsigned char)s[2 * i]) - 'a' + 10;
		lo = isdigit((unsigned char)s[2 * i + 1]) ?
		    s[2 * i + 1] - '0' :
		    tolower((unsigned char)s[2 * i + 1]) - 'a' + 10;
		b[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

/* The pool key. */

static int
read_key(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;
	char text[2 * AUTH_KEY_LEN + 8];
	ssize_t n;

	if (fstat(fd, &st) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is not a regular file", path);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s belongs to uid %u, not to uid %u "
		    "which reads it", path, (unsigned)st.st_uid,
		    (unsigned)geteuid());
		return -1;
	}
	if (st.st_mode & 077) {
		snprintf(err, errlen, "%s may be read by others (mode %04o): "
		    "chmod 600 it, and make a new key if others read it",
		    path, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	n = pread(fd, text, sizeof(text) - 1, 0);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	text[n] = '\0';
	text[strcspn(text, " \t\r\n")] = '\0';
	if (unhex(text, pool_key, AUTH_KEY_LEN) == -1) {
		snprintf(err, errlen, "%s does not hold a pool key (%d "
		    "hexadecimal digits)", path, 2 * AUTH_KEY_LEN);
		return -1;
	}
	have_pool_key = 1;
	return 0;
}

/* Make a key at PATH, whole or not at all: written aside, then linked. */
static int
create_key(const char *path, char *err, size_t errlen)
{
	uint8_t key[AUTH_KEY_LEN];
	char text[2 * AUTH_KEY_LEN + 2], *tmp;
	int fd, rc = -1;

	random_bytes(key, sizeof(key));
	hex(key, sizeof(key), text);
	strcat(text, "\n");
	tmp = xasprintf("%s.new.%d", path, (int)getpid());
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd == -1) {
		snprintf(err, errlen, "cannot create %s: %s", tmp,
		    strerror(errno));
		goto out;
	}
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    fsync(fd) == -1) {
		snprintf(err, errlen, "cannot write %s: %s", tmp,
		    strerror(errno));
		close(fd);
		(void)unlink(tmp);
		goto out;
	}
	close(fd);
	if (link(tmp, path) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", path,
		    strerror(errno));
		(void)unlink(tmp);
		goto out;
	}
	(void)unlink(tmp);
	rc = 0;
out:
	explicit_bzero(key, sizeof(key));
	explicit_bzero(text, sizeof(text));
	free(tmp);
	return rc;
}

int
auth_pool_key_load(int create, char *err, size_t errlen)
{
	const char *path = param("SEC_POOL_KEY_FILE");
	int fd, rc, created = 0;

	if (path == NULL || *path == '\0') {
		snprintf(err, errlen, "SEC_POOL_KEY_FILE is not set");
		return -1;
	}
	for (;;) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd != -1 || errno != ENOENT || !create || created)
			break;
		if (create_key(path, err, errlen) == -1)
			return -1;
		created = 1;
	}
	if (fd == -1) {
		snprintf(err, errlen, "cannot read the pool key %s: %s", path,
		    strerror(errno));
		return -1;
	}
	rc = read_key(fd, path, err, errlen);
	close(fd);
	if (rc == 0 && created)
		log_info("made a new pool key in %s; every host of the pool "
		    "needs a copy of it (mode 0600)", path);
	return rc;
}

int
auth_have_pool_key(void)
{
	return have_pool_key;
}

const uint8_t *
auth_pool_key(void)
{
	return have_pool_key ? pool_key : NULL;
}

void
auth_forget_pool_key(void)
{
	explicit_bzero(pool_key, sizeof(pool_key));
	have_pool_key = 0;
}

void
auth_client_acts_for_user(void)
{
	auth_forget_pool_key();
	acts_for_user = 1;
}

int
auth_client_pool_key_refused(void)
{
	return acts_for_user;
}

int
auth_claim_key(const char *claim_id, int cluster, int proc, char *out,
    size_t outlen)
{
	struct hmac_sha256 h;
	uint8_t mac[SHA256_LEN];
	char job[32];

	if (!have_pool_key || outlen < 2 * SHA256_LEN + 1 ||
	    claim_id == NULL || *claim_id == '\0') {
		errno = EINVAL;
		return -1;
	}
	snprintf(job, sizeof(job), " %d.%d", cluster, proc);
	hmac_sha256_init(&h, pool_key, AUTH_KEY_LEN);
	hmac_sha256_update(&h, CLAIM_LABEL, sizeof(CLAIM_LABEL));
	hmac_sha256_update(&h, claim_id, strlen(claim_id));
	hmac_sha256_update(&h, job, strlen(job));
	hmac_sha256_final(&h, mac);
	hex(mac, sizeof(mac), out);
	explicit_bzero(mac, sizeof(mac));
	return 0;
}

/* Tokens. */

static int
identity_valid(const char *id)
{
	size_t n = strlen(id), i;

	if (n == 0 || n > AUTH_IDENTITY_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)id[i]) && id[i] != '_' &&
		    id[i] != '-' && id[i] != '.' && id[i] != '@')
			return 0;
	return 1;
}

void
auth_token_secret(const uint8_t key[AUTH_KEY_LEN], const struct auth_token *t,
    uint8_t out[AUTH_KEY_LEN])
{
	struct hmac_sha256 h;
	char fields[160];

	snprintf(fields, sizeof(fields), "%s %lld %lld ", t->identity,
	    (long long)t->issued, (long long)t->expiry);
	hmac_sha256_init(&h, key, AUTH_KEY_LEN);
	hmac_sha256_update(&h, TOKEN_LABEL, sizeof(TOKEN_LABEL));
	hmac_sha256_update(&h, fields, strlen(fields));
	hmac_sha256_update(&h, t->id, sizeof(t->id));
	hmac_sha256_final(&h, out);
}

int
auth_token_make(const uint8_t key[AUTH_KEY_LEN], const char *identity,
    long lifetime, char *out, size_t outlen, char *err, size_t errlen)
{
	struct auth_token t;
	char idhex[2 * sizeof(t.id) + 1], sechex[2 * AUTH_KEY_LEN + 1];
	int n;

	if (!identity_valid(identity)) {
		snprintf(err, errlen, "\"%s\" is not an identity (1 to %d "
		    "letters, digits, _ - . @)", identity, AUTH_IDENTITY_MAX);
		return -1;
	}
	if (lifetime < 0) {
		snprintf(err, errlen, "a negative lifetime");
		return -1;
	}
	memset(&t, 0, sizeof(t));
	snprintf(t.identity, sizeof(t.identity), "%s", identity);
	t.issued = time(NULL);
	t.expiry = t.issued + (lifetime > 0 ? lifetime : 10L * 365 * 86400);
	random_bytes(t.id, sizeof(t.id));
	auth_token_secret(key, &t, t.secret);
	hex(t.id, sizeof(t.id), idhex);
	hex(t.secret, sizeof(t.secret), sechex);
	n = snprintf(out, outlen, "%s %s %lld %lld %s %s\n", TOKEN_MAGIC,
	    t.identity, (long long)t.issued, (long long)t.expiry, idhex,
	    sechex);
	explicit_bzero(&t, sizeof(t));
	explicit_bzero(sechex, sizeof(sechex));
	if (n < 0 || (size_t)n >= outlen) {
		snprintf(err, errlen, "the token does not fit");
		return -1;
	}
	return 0;
}

int
auth_token_parse(const char *text, struct auth_token *t, char *err,
    size_t errlen)
{
	char magic[32], id[AUTH_IDENTITY_MAX + 2], idhex[40], sechex[80];
	long long issued, expiry;
	char extra;

	memset(t, 0, sizeof(*t));
	if (sscanf(text, "%31s %65s %lld %lld %39s %79s %c", magic, id,
	    &issued, &expiry, idhex, sechex, &extra) != 6 ||
	    strcmp(magic, TOKEN_MAGIC) != 0) {
		snprintf(err, errlen, "not a token (%s IDENTITY ISSUED EXPIRY "
		    "ID SECRET)", TOKEN_MAGIC);
		return -1;
	}
	if (!identity_valid(id) || issued < 0 || expiry < issued ||
	    unhex(idhex, t->id, sizeof(t->id)) == -1 ||
	    unhex(sechex, t->secret, sizeof(t->secret)) == -1) {
		snprintf(err, errlen, "a damaged token");
		explicit_bzero(t, sizeof(*t));
		explicit_bzero(sechex, sizeof(sechex));
		return -1;
	}
	explicit_bzero(sechex, sizeof(sechex));
	memcpy(t->identity, id, strlen(id) + 1);	/* identity_valid: fits */
	t->issued = issued;
	t->expiry = expiry;
	return 0;
}

/* The credential's bytes. */

struct cred {
	u_int	 version, method;
	int64_t	 when;
	uint8_t	 nonce[AUTH_NONCE_LEN];
	char	 identity[AUTH_IDENTITY_MAX + 1];
	int64_t	 issued, expiry;
	uint8_t	 token_id[8];
};

static bool_t
xdr_cred(XDR *x, struct cred *c)
{
	char *id = c->identity;

	return xdr_u_int(x, &c->version) && xdr_u_int(x, &c->method) &&
	    xdr_int64_t(x, &c->when) &&
	    xdr_opaque(x, (char *)c->nonce, AUTH_NONCE_LEN) &&
	    xdr_string(x, &id, AUTH_IDENTITY_MAX) &&
	    xdr_int64_t(x, &c->issued) && xdr_int64_t(x, &c->expiry) &&
	    xdr_opaque(x, (char *)c->token_id, sizeof(c->token_id));
}

static void
call_mac(const uint8_t key[AUTH_KEY_LEN], const void *cred, size_t credlen,
    unsigned long prog, unsigned long vers, unsigned long proc,
    const void *args, size_t argslen, uint8_t out[SHA256_LEN])
{
	struct hmac_sha256 h;
	uint8_t w[12];
	int i;

	for (i = 0; i < 4; i++) {
		w[i] = (uint8_t)(prog >> (24 - 8 * i));
		w[4 + i] = (uint8_t)(vers >> (24 - 8 * i));
		w[8 + i] = (uint8_t)(proc >> (24 - 8 * i));
	}
	hmac_sha256_init(&h, key, AUTH_KEY_LEN);
	hmac_sha256_update(&h, MAC_LABEL, sizeof(MAC_LABEL));
	hmac_sha256_update(&h, cred, credlen);
	hmac_sha256_update(&h, w, sizeof(w));
	hmac_sha256_update(&h, args, argslen);
	hmac_sha256_final(&h, out);
}

/* Client side. */

static struct {
	int		 looked;	/* for a token or a readable key */
	int		 method;
	struct auth_token token;
} client;

static void
client_credential(void)
{
	const char *dir;
	char err[256], *path, *home;
	DIR *d;
	struct dirent *e;

	if (have_pool_key) {
		client.method = AUTH_BY_POOL;
		return;
	}
	if (client.looked)
		return;
	client.looked = 1;
	/* A command run by whoever may read the key (root, the pool's
	 * administrator) calls as the pool; a process acting for a user
	 * never does, even as root. */
	if (!acts_for_user && param("SEC_POOL_KEY_FILE") != NULL &&
	    access(param("SEC_POOL_KEY_FILE"), R_OK) == 0 &&
	    auth_pool_key_load(0, err, sizeof(err)) == 0) {
		client.method = AUTH_BY_POOL;
		return;
	}
	if ((dir = param("SEC_TOKEN_DIRECTORY")) != NULL && *dir != '\0')
		path = xstrdup(dir);
	else if ((home = getenv("HOME")) != NULL && *home == '/')
		path = xasprintf("%s/.condor/tokens.d", home);
	else
		return;
	if ((d = opendir(path)) == NULL) {
		free(path);
		return;
	}
	while (client.method == AUTH_BY_NONE && (e = readdir(d)) != NULL) {
		char text[AUTH_TOKEN_MAX + 1], *f;
		struct stat st;
		ssize_t n;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		f = xasprintf("%s/%s", path, e->d_name);
		fd = open(f, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		free(f);
		if (fd == -1)
			continue;
		n = -1;
		/* A token others may read is no secret: not used. */
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & 077) == 0)
			n = read(fd, text, sizeof(text) - 1);
		close(fd);
		if (n <= 0)
			continue;
		text[n] = '\0';
		if (auth_token_parse(text, &client.token, err,
		    sizeof(err)) == 0 && client.token.expiry > time(NULL))
			client.method = AUTH_BY_TOKEN;
		explicit_bzero(text, sizeof(text));
	}
	closedir(d);
	free(path);
}

const char *
auth_client_identity(void)
{
	client_credential();
	switch (client.method) {
	case AUTH_BY_POOL:
		return AUTH_POOL_IDENTITY;
	case AUTH_BY_TOKEN:
		return client.token.identity;
	}
	return NULL;
}

/* The key and the credential of a new call. */
static int
client_fill(struct cred *c, const uint8_t **key)
{
	client_credential();
	memset(c, 0, sizeof(*c));
	c->version = CRED_VERSION;
	c->method = (u_int)client.method;
	c->when = time(NULL);
	random_bytes(c->nonce, sizeof(c->nonce));
	switch (client.method) {
	case AUTH_BY_POOL:
		snprintf(c->identity, sizeof(c->identity), "%s",
		    AUTH_POOL_IDENTITY);
		*key = pool_key;
		return 0;
	case AUTH_BY_TOKEN:
		snprintf(c->identity, sizeof(c->identity), "%s",
		    client.token.identity);
		c->issued = client.token.issued;
		c->expiry = client.token.expiry;
		memcpy(c->token_id, client.token.id, sizeof(c->token_id));
		*key = client.token.secret;
		return 0;
	}
	return -1;
}

struct client_auth {
	AUTH		 auth;		/* first: libtirpc's handle */
	unsigned long	 prog, vers, proc;
	char		 cred[MAX_AUTH_BYTES];
	u_int		 credlen;
	const uint8_t	*key;
};

static void
ca_nextverf(AUTH *a)
{
}

/* A fresh credential (time and nonce) for every call. */
static int
ca_marshal(AUTH *a, XDR *x)
{
	struct client_auth *ca = (struct client_auth *)a;
	struct opaque_auth cred;
	struct cred c;
	XDR m;

	if (client_fill(&c, &ca->key) == -1)
		return FALSE;
	xdrmem_create(&m, ca->cred, sizeof(ca->cred), XDR_ENCODE);
	if (!xdr_cred(&m, &c)) {
		xdr_destroy(&m);
		return FALSE;
	}
	ca->credlen = xdr_getpos(&m);
	xdr_destroy(&m);
	cred.oa_flavor = AUTH_CONDOR;
	cred.oa_base = ca->cred;
	cred.oa_length = ca->credlen;
	return xdr_opaque_auth(x, &cred) &&
	    xdr_opaque_auth(x, &_null_auth);
}

/* ARGS as opaque bytes, then their MAC. */
static bool_t
wrap_args(XDR *x, const uint8_t *key, const char *cred, u_int credlen,
    unsigned long prog, unsigned long vers, unsigned long proc,
    xdrproc_t xargs, void *args, u_int max)
{
	uint8_t mac[SHA256_LEN];
	char *buf = xmalloc(max);
	bool_t ok;
	u_int len;
	XDR m;

	xdrmem_create(&m, buf, max, XDR_ENCODE);
	ok = xargs(&m, args);
	len = xdr_getpos(&m);
	xdr_destroy(&m);
	if (ok) {
		call_mac(key, cred, credlen, prog, vers, proc, buf, len, mac);
		ok = xdr_bytes(x, &buf, &len, max) &&
		    xdr_opaque(x, (char *)mac, sizeof(mac));
	}
	free(buf);
	return ok;
}

static int
ca_wrap(AUTH *a, XDR *x, xdrproc_t xargs, caddr_t args)
{
	struct client_auth *ca = (struct client_auth *)a;

	return wrap_args(x, ca->key, ca->cred, ca->credlen, ca->prog,
	    ca->vers, ca->proc, xargs, args, RPC_MAX_FRAGMENT);
}

static int
ca_unwrap(AUTH *a, XDR *x, xdrproc_t xres, caddr_t res)
{
	return xres(x, res);
}

static int
ca_validate(AUTH *a, struct opaque_auth *verf)
{
	return TRUE;
}

static int
ca_refresh(AUTH *a, void *msg)
{
	return FALSE;
}

static void
ca_destroy(AUTH *a)
{
	explicit_bzero(a, sizeof(struct client_auth));
	free(a);
}

static struct auth_ops client_ops = {
	ca_nextverf, ca_marshal, ca_validate, ca_refresh, ca_destroy,
	ca_wrap, ca_unwrap,
};

void
auth_client_attach(CLIENT *cl, unsigned long prog, unsigned long vers)
{
	struct client_auth *ca;

	client_credential();
	if (client.method == AUTH_BY_NONE)
		return;
	ca = xcalloc(1, sizeof(*ca));
	ca->auth.ah_ops = &client_ops;
	ca->auth.ah_cred.oa_flavor = AUTH_CONDOR;
	ca->auth.ah_verf = _null_auth;
	ca->prog = prog;
	ca->vers = vers;
	if (cl->cl_auth != NULL)
		auth_destroy(cl->cl_auth);
	cl->cl_auth = &ca->auth;
}

void
auth_client_proc(CLIENT *cl, unsigned long proc)
{
	if (cl->cl_auth != NULL && cl->cl_auth->ah_ops == &client_ops)
		((struct client_auth *)cl->cl_auth)->proc = proc;
}

bool_t
auth_dgram_encode(XDR *x, unsigned long prog, unsigned long vers,
    unsigned long proc, xdrproc_t xargs, void *args)
{
	struct opaque_auth oa;
	const uint8_t *key;
	char buf[MAX_AUTH_BYTES];
	struct cred c;
	XDR m;

	if (client_fill(&c, &key) == -1)
		return xdr_opaque_auth(x, &_null_auth) &&
		    xdr_opaque_auth(x, &_null_auth) && xargs(x, args);
	xdrmem_create(&m, buf, sizeof(buf), XDR_ENCODE);
	if (!xdr_cred(&m, &c)) {
		xdr_destroy(&m);
		return FALSE;
	}
	oa.oa_flavor = AUTH_CONDOR;
	oa.oa_base = buf;
	oa.oa_length = xdr_getpos(&m);
	xdr_destroy(&m);
	return xdr_opaque_auth(x, &oa) && xdr_opaque_auth(x, &_null_auth) &&
	    wrap_args(x, key, buf, oa.oa_length, prog, vers, proc, xargs,
	    args, RPC_MAX_DATAGRAM);
}

/* The replay cache: nonces seen within the clock skew, twice over. */

struct seen {
	uint8_t	 nonce[AUTH_NONCE_LEN];
	int64_t	 until;			/* 0: empty */
};
static struct seen *seen;
static size_t	nseen, seen_cap;

static size_t
nonce_slot(const uint8_t *nonce, size_t cap)
{
	uint64_t h;

	memcpy(&h, nonce, sizeof(h));
	return (size_t)(h & (cap - 1));
}

static void
seen_insert(struct seen *tab, size_t cap, const uint8_t *nonce,
    int64_t until)
{
	size_t i = nonce_slot(nonce, cap);

	while (tab[i].until != 0)
		i = (i + 1) & (cap - 1);
	memcpy(tab[i].nonce, nonce, AUTH_NONCE_LEN);
	tab[i].until = until;
}

/* Keep what has not expired, in a table of room for twice as many. */
static void
seen_rebuild(int64_t now)
{
	size_t cap = seen_cap ? seen_cap : 1024, live = 0, i;
	struct seen *tab;

	for (i = 0; i < seen_cap; i++)
		if (seen[i].until > now)
			live++;
	while (live * 4 >= cap)
		cap *= 2;
	tab = xcalloc(cap, sizeof(*tab));
	for (i = 0; i < seen_cap; i++)
		if (seen[i].until > now)
			seen_insert(tab, cap, seen[i].nonce, seen[i].until);
	free(seen);
	seen = tab;
	seen_cap = cap;
	nseen = live;
}

int
auth_nonce_fresh(const uint8_t nonce[AUTH_NONCE_LEN], int64_t when,
    int64_t now)
{
	size_t i;

	if (seen_cap == 0 || (nseen + 1) * 2 > seen_cap)
		seen_rebuild(now);
	for (i = nonce_slot(nonce, seen_cap); seen[i].until != 0;
	    i = (i + 1) & (seen_cap - 1))
		if (memcmp(seen[i].nonce, nonce, AUTH_NONCE_LEN) == 0 &&
		    seen[i].until > now)
			return 0;
	/* Kept until its time can no longer pass the skew check. */
	seen_insert(seen, seen_cap, nonce, when + clock_skew() + 1);
	nseen++;
	return 1;
}

/* Server side. */

static struct {
	int		 active;	/* a credential for this request */
	int		 verified;	/* its MAC checked: args below */
	int		 unverifiable;	/* no key here: args below, unchecked */
	struct cred	 cred;
	uint8_t		 key[AUTH_KEY_LEN];
	char		 credbytes[MAX_AUTH_BYTES];
	u_int		 credlen;
	enum auth_stat	 failure;	/* why the credential was refused */
	char		 why[160];
	char		*args;		/* the verified arguments */
	u_int		 argslen;
} req_state;

static struct auth_caller current;

/* libtirpc's hook for flavor AUTH_CONDOR: read and check the credential. */
static enum auth_stat
condor_flavor(struct svc_req *rq, struct rpc_msg *msg)
{
	struct opaque_auth *oa = &msg->rm_call.cb_cred;
	int64_t now = time(NULL);
	struct auth_token t;
	struct cred *c = &req_state.cred;
	XDR m;
	bool_t ok;

	auth_request_done();
	req_state.active = 1;
	req_state.failure = AUTH_OK;
	if (oa->oa_length > MAX_AUTH_BYTES)
		goto bad;
	memcpy(req_state.credbytes, oa->oa_base, oa->oa_length);
	req_state.credlen = oa->oa_length;
	memset(c, 0, sizeof(*c));
	xdrmem_create(&m, req_state.credbytes, req_state.credlen, XDR_DECODE);
	ok = xdr_cred(&m, c) && xdr_getpos(&m) == req_state.credlen;
	xdr_destroy(&m);
	if (!ok || c->version != CRED_VERSION || !identity_valid(c->identity))
		goto bad;
	if (!have_pool_key) {
		/* A process without the key (a shadow runs as its job's
		 * owner) cannot check it: the caller counts as
		 * unauthenticated, which the procedure may still admit. */
		req_state.unverifiable = 1;
		return AUTH_OK;
	}
	if (c->when < now - clock_skew() || c->when > now + clock_skew()) {
		req_state.failure = AUTH_REJECTEDCRED;
		snprintf(req_state.why, sizeof(req_state.why), "the call's "
		    "time is %lld s from ours (SEC_MAX_CLOCK_SKEW is %ld)",
		    (long long)(c->when - now), clock_skew());
		return AUTH_OK;
	}
	switch (c->method) {
	case AUTH_BY_POOL:
		if (strcmp(c->identity, AUTH_POOL_IDENTITY) != 0)
			goto bad;
		memcpy(req_state.key, pool_key, AUTH_KEY_LEN);
		break;
	case AUTH_BY_TOKEN:
		if (c->expiry <= now) {
			req_state.failure = AUTH_REJECTEDCRED;
			snprintf(req_state.why, sizeof(req_state.why), "the "
			    "token of %s has expired", c->identity);
			return AUTH_OK;
		}
		if (strcmp(c->identity, AUTH_POOL_IDENTITY) == 0)
			goto bad;
		memset(&t, 0, sizeof(t));
		snprintf(t.identity, sizeof(t.identity), "%s", c->identity);
		t.issued = c->issued;
		t.expiry = c->expiry;
		memcpy(t.id, c->token_id, sizeof(t.id));
		auth_token_secret(pool_key, &t, req_state.key);
		break;
	default:
		goto bad;
	}
	/* The caller's identity holds only once the MAC is checked. */
	return AUTH_OK;
bad:
	req_state.failure = AUTH_BADCRED;
	snprintf(req_state.why, sizeof(req_state.why), "a malformed "
	    "credential");
	return AUTH_OK;
}

void
auth_server_init(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	if (svc_auth_reg(AUTH_CONDOR, condor_flavor) == -1)
		log_warnx("cannot register the AUTH_CONDOR credential");
}

struct wrapped {
	char	*args;
	u_int	 len;
	uint8_t	 mac[SHA256_LEN];
};

static bool_t
xdr_wrapped(XDR *x, struct wrapped *w)
{
	return xdr_bytes(x, &w->args, &w->len, RPC_MAX_FRAGMENT) &&
	    xdr_opaque(x, (char *)w->mac, sizeof(w->mac));
}

int
auth_getargs(SVCXPRT *xprt, xdrproc_t xargs, void *where)
{
	XDR m;
	bool_t ok;

	if (!req_state.verified)
		return -1;
	xdrmem_create(&m, req_state.args, req_state.argslen, XDR_DECODE);
	ok = xargs(&m, where);
	xdr_destroy(&m);
	return ok ? 1 : 0;
}

/* UID's user name into BUF; the last one is remembered, as a daemon's
 * local callers are mostly the same few. */
static const char *
local_name(uid_t uid, char *buf, size_t len)
{
	static char last[AUTH_IDENTITY_MAX + 1];
	static uid_t last_uid;
	static int known;
	struct passwd *pw;

	if (!known || uid != last_uid) {
		pw = getpwuid(uid);
		if (pw != NULL && identity_valid(pw->pw_name))
			snprintf(last, sizeof(last), "%s", pw->pw_name);
		else
			snprintf(last, sizeof(last), "uid%u", (unsigned)uid);
		last_uid = uid;
		known = 1;
	}
	snprintf(buf, len, "%s", last);
	return buf;
}

/* The identities the daemons themselves run as. */
static int
is_pool_local(uid_t uid)
{
	return uid == 0 || uid == getuid() || uid == geteuid();
}

static const char *
level_setting(enum auth_level l, int deny)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "%s_%s", deny ? "DENY" : "ALLOW",
	    auth_level_name(l));
	return buf;
}

int
auth_list_match(const char *list, const char *identity, const char *host)
{
	char *copy, *tok, *save = NULL, *slash;
	int found = 0;

	if (list == NULL)
		return 0;
	copy = xstrdup(list);
	for (tok = strtok_r(copy, ", \t", &save); tok != NULL && !found;
	    tok = strtok_r(NULL, ", \t", &save)) {
		if ((slash = strchr(tok, '/')) != NULL)
			*slash++ = '\0';
		if (fnmatch(tok, identity, 0) != 0)
			continue;
		if (slash == NULL || strcmp(host, "local") == 0 ||
		    host_list_match(slash, host))
			found = 1;
	}
	free(copy);
	return found;
}

/* The name of the user we run as. */
static const char *
own_name(void)
{
	static char me[AUTH_IDENTITY_MAX + 1];

	return local_name(getuid(), me, sizeof(me));
}

/* The list a level grants by default. */
static char *
default_allow(enum auth_level l)
{
	const char *me = own_name();

	switch (l) {
	case AUTH_READ:
		return xstrdup("*");
	case AUTH_WRITE:
		/* A personal pool is its user's alone. */
		return getuid() == 0 ? xstrdup("*") : xstrdup(me);
	case AUTH_OWNER:
	case AUTH_ADMINISTRATOR:
		/* The queue's super users administer the pool too. */
		return xasprintf("root %s %s %s", me, AUTH_POOL_IDENTITY,
		    param("QUEUE_SUPER_USERS") ? param("QUEUE_SUPER_USERS") :
		    "");
	case AUTH_DAEMON:
	case AUTH_NEGOTIATOR:
		return xstrdup(AUTH_POOL_IDENTITY);
	default:
		return xstrdup("");
	}
}

static int
level_grants(const struct auth_caller *c, enum auth_level l)
{
	const char *set = param(level_setting(l, 0));
	char *dflt = NULL;
	int ok;

	if (set == NULL)
		set = dflt = default_allow(l);
	ok = auth_list_match(set, c->identity, c->host) &&
	    !auth_list_match(param(level_setting(l, 1)), c->identity,
	    c->host);
	free(dflt);
	return ok;
}

int
auth_allowed(const struct auth_caller *c, enum auth_level l, char *why,
    size_t whylen)
{
	int authenticated = c->method != AUTH_BY_NONE;

	switch (l) {
	case AUTH_CLAIM:
		return 1;	/* the procedure checks the claim */
	case AUTH_READ:
		if (level_grants(c, AUTH_READ))
			return 1;
		break;
	case AUTH_WRITE:
		if (authenticated && (level_grants(c, AUTH_WRITE) ||
		    level_grants(c, AUTH_ADMINISTRATOR) ||
		    level_grants(c, AUTH_DAEMON)))
			return 1;
		break;
	case AUTH_OWNER:
		if (authenticated && (level_grants(c, AUTH_OWNER) ||
		    level_grants(c, AUTH_ADMINISTRATOR) ||
		    level_grants(c, AUTH_NEGOTIATOR)))
			return 1;
		break;
	case AUTH_ADMINISTRATOR:
		if (authenticated && level_grants(c, AUTH_ADMINISTRATOR))
			return 1;
		break;
	case AUTH_DAEMON:
		if (authenticated && (level_grants(c, AUTH_DAEMON) ||
		    (c->method == AUTH_BY_LOCAL && is_pool_local(c->uid))))
			return 1;
		break;
	case AUTH_NEGOTIATOR:
		if (authenticated && level_grants(c, AUTH_NEGOTIATOR))
			return 1;
		break;
	}
	if (!authenticated)
		snprintf(why, whylen, "%s needs an authenticated caller "
		    "(the pool key, a token, or this host's Unix socket)",
		    auth_level_name(l));
	else
		snprintf(why, whylen, "%s is not allowed %s (%s)",
		    c->identity, auth_level_name(l), level_setting(l, 0));
	return 0;
}

void
auth_request_done(void)
{
	free(req_state.args);
	explicit_bzero(&req_state, sizeof(req_state));
}

/* Read the wrapped arguments and check their MAC. */
static int
verify_call(struct svc_req *rq, SVCXPRT *xprt, char *why, size_t whylen)
{
	struct wrapped w;
	uint8_t mac[SHA256_LEN];
	int64_t now = time(NULL);
	bool_t ok;

	memset(&w, 0, sizeof(w));
	ok = rpc_xprt_getargs_raw(xprt, (xdrproc_t)xdr_wrapped, &w);
	if (!ok) {
		xdr_free((xdrproc_t)xdr_wrapped, (char *)&w);
		snprintf(why, whylen, "no MAC after the arguments");
		return -1;
	}
	if (req_state.unverifiable) {
		req_state.args = w.args;
		req_state.argslen = w.len;
		req_state.verified = 1;
		return 0;
	}
	call_mac(req_state.key, req_state.credbytes, req_state.credlen,
	    rq->rq_prog, rq->rq_vers, rq->rq_proc, w.args, w.len, mac);
	if (!ct_equal(mac, w.mac, sizeof(mac))) {
		xdr_free((xdrproc_t)xdr_wrapped, (char *)&w);
		snprintf(why, whylen, "a wrong MAC (%s)",
		    req_state.cred.method == AUTH_BY_TOKEN ? "a forged or "
		    "revoked token, or another pool's" : "not this pool's "
		    "key");
		return -1;
	}
	if (!auth_nonce_fresh(req_state.cred.nonce, req_state.cred.when,
	    now)) {
		xdr_free((xdrproc_t)xdr_wrapped, (char *)&w);
		snprintf(why, whylen, "a replayed call");
		return -1;
	}
	req_state.args = w.args;
	req_state.argslen = w.len;
	req_state.verified = 1;
	return 0;
}

int
auth_check(struct svc_req *rq, SVCXPRT *xprt)
{
	const struct auth_rule *rule;
	char why[256], procname[64];
	enum auth_stat stat = AUTH_TOOWEAK;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd = xprt->xp_fd;

	memset(&current, 0, sizeof(current));
	rpc_caller_ip(rq, current.host, sizeof(current.host));
	snprintf(current.identity, sizeof(current.identity),
	    "unauthenticated");
	if (rq->rq_cred.oa_flavor == AUTH_CONDOR) {
		if (!req_state.active) {
			snprintf(why, sizeof(why), "a credential not read");
			stat = AUTH_FAILED;
			goto refuse;
		}
		if (req_state.failure != AUTH_OK) {
			snprintf(why, sizeof(why), "%s", req_state.why);
			stat = req_state.failure;
			goto refuse;
		}
		if (verify_call(rq, xprt, why, sizeof(why)) == -1) {
			stat = AUTH_REJECTEDVERF;
			goto refuse;
		}
		if (!req_state.unverifiable) {
			current.method = req_state.cred.method;
			snprintf(current.identity, sizeof(current.identity),
			    "%s", req_state.cred.identity);
		}
	} else {
		req_state.active = 0;
		if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
		    ss.ss_family == AF_UNIX &&
		    rpc_caller_uid(rq, &current.uid) == 0) {
			current.method = AUTH_BY_LOCAL;
			local_name(current.uid, current.identity,
			    sizeof(current.identity));
		}
	}
	if (rq->rq_proc == NULLPROC)
		return 0;
	if ((rule = auth_rule_of(rq->rq_prog, rq->rq_proc)) == NULL)
		return 0;	/* the dispatcher says it has no such procedure */
	if (auth_allowed(&current, rule->level, why, sizeof(why)))
		return 0;
refuse:
	rule = auth_rule_of(rq->rq_prog, rq->rq_proc);
	if (rule != NULL)
		snprintf(procname, sizeof(procname), "%s", rule->proc);
	else
		snprintf(procname, sizeof(procname), "procedure %lu of "
		    "%#lx", (unsigned long)rq->rq_proc,
		    (unsigned long)rq->rq_prog);
	log_warnx("%s from %s (%s) refused: %s", procname, current.host,
	    current.identity, why);
	svcerr_auth(xprt, stat);
	auth_request_done();
	return -1;
}

int
auth_dgram_verify(const char *cred, u_int len, unsigned long prog,
    unsigned long vers, unsigned long proc, XDR *x, char **args,
    u_int *argslen)
{
	struct wrapped w;
	struct cred c;
	uint8_t mac[SHA256_LEN];
	int64_t now = time(NULL);
	XDR m;
	bool_t ok;

	*args = NULL;
	if (!have_pool_key || len > MAX_AUTH_BYTES)
		return -1;
	memset(&c, 0, sizeof(c));
	xdrmem_create(&m, (char *)cred, len, XDR_DECODE);
	ok = xdr_cred(&m, &c) && xdr_getpos(&m) == len;
	xdr_destroy(&m);
	if (!ok || c.version != CRED_VERSION || c.method != AUTH_BY_POOL ||
	    c.when < now - clock_skew() || c.when > now + clock_skew())
		return -1;
	memset(&w, 0, sizeof(w));
	if (!xdr_wrapped(x, &w)) {
		xdr_free((xdrproc_t)xdr_wrapped, (char *)&w);
		return -1;
	}
	call_mac(pool_key, cred, len, prog, vers, proc, w.args, w.len, mac);
	if (!ct_equal(mac, w.mac, sizeof(mac)) ||
	    !auth_nonce_fresh(c.nonce, c.when, now)) {
		xdr_free((xdrproc_t)xdr_wrapped, (char *)&w);
		return -1;
	}
	*args = w.args;
	*argslen = w.len;
	return 0;
}

void
auth_strip_private(struct ad_x *x, int owned)
{
	u_int i, j;

	for (i = j = 0; i < x->attrs.attrs_len; i++) {
		attr_x *a = &x->attrs.attrs_val[i];

		if (a->name != NULL && ad_attr_private(a->name)) {
			if (owned) {
				if (a->text != NULL)
					explicit_bzero(a->text,
					    strlen(a->text));
				free(a->name);
				free(a->text);
			}
			continue;
		}
		x->attrs.attrs_val[j++] = *a;
	}
	x->attrs.attrs_len = j;
}

int
auth_caller_is_daemon(void)
{
	char why[256];

	return auth_allowed(&current, AUTH_DAEMON, why, sizeof(why));
}

void
auth_random_hex(char *out, size_t nbytes)
{
	uint8_t raw[64];
	size_t n;

	while (nbytes > 0) {
		n = nbytes < sizeof(raw) ? nbytes : sizeof(raw);
		random_bytes(raw, n);
		hex(raw, n, out);
		out += 2 * n;
		nbytes -= n;
	}
	explicit_bzero(raw, sizeof(raw));
}
