/*
 * auth_test: the pieces of src/common/auth.c that need no daemon: the
 * pool key file's checks, tokens (made, read back, refused when
 * damaged, their secret bound to every field and to the key), the
 * replay cache, ALLOW/DENY lists by identity and host, and which
 * callers each level admits.  The wire protocol is tried against real
 * daemons by tests/security/security_test.sh.
 * checks: 54
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "config.h"
#include "test.h"

static char dir[] = "/tmp/auth_test.XXXXXX";

static int
write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	if (fd == -1)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return -1;
	}
	fchmod(fd, mode);
	return close(fd);
}

static void
key_file(void)
{
	char path[128], err[512];
	struct stat st;
	uint8_t first[AUTH_KEY_LEN];

	snprintf(path, sizeof(path), "%s/pool_key", dir);
	config_set("SEC_POOL_KEY_FILE", path, 0);
	CHECK("no key file and no creating: refused",
	    auth_pool_key_load(0, err, sizeof(err)) == -1 &&
	    strstr(err, "cannot read the pool key") != NULL);
	CHECK("a key is made when there is none",
	    auth_pool_key_load(1, err, sizeof(err)) == 0 &&
	    auth_have_pool_key());
	CHECK("the new key file is 0600",
	    stat(path, &st) == 0 && (st.st_mode & 07777) == 0600);
	memcpy(first, auth_pool_key(), AUTH_KEY_LEN);
	auth_forget_pool_key();
	CHECK("a forgotten key is gone", !auth_have_pool_key() &&
	    auth_pool_key() == NULL);
	CHECK("an existing key is read, not replaced",
	    auth_pool_key_load(1, err, sizeof(err)) == 0 &&
	    memcmp(first, auth_pool_key(), AUTH_KEY_LEN) == 0);
	chmod(path, 0640);
	auth_forget_pool_key();
	CHECK("a key others may read is refused, with the reason",
	    auth_pool_key_load(0, err, sizeof(err)) == -1 &&
	    strstr(err, "read by others") != NULL);
	write_file(path, "not a key\n", 0600);
	CHECK("a file without a key in it is refused",
	    auth_pool_key_load(0, err, sizeof(err)) == -1 &&
	    strstr(err, "does not hold a pool key") != NULL);
	unlink(path);
	if (symlink("/etc/passwd", path) == 0)
		CHECK("a symbolic link is not followed",
		    auth_pool_key_load(1, err, sizeof(err)) == -1);
	else
		SKIP("a symbolic link is not followed", "cannot symlink");
	unlink(path);
	CHECK("a fresh key again", auth_pool_key_load(1, err,
	    sizeof(err)) == 0);
}

static void
tokens(void)
{
	char text[AUTH_TOKEN_MAX], bad[AUTH_TOKEN_MAX], err[256];
	struct auth_token t, u;
	uint8_t secret[AUTH_KEY_LEN], other[AUTH_KEY_LEN];
	const uint8_t *key = auth_pool_key();
	char *p;

	CHECK("a token is made", auth_token_make(key, "alice", 3600, text,
	    sizeof(text), err, sizeof(err)) == 0);
	CHECK("a token is read back", auth_token_parse(text, &t, err,
	    sizeof(err)) == 0 && strcmp(t.identity, "alice") == 0 &&
	    t.expiry - t.issued == 3600);
	auth_token_secret(key, &t, secret);
	CHECK("its secret is what the key gives for its fields",
	    memcmp(secret, t.secret, AUTH_KEY_LEN) == 0);
	u = t;
	snprintf(u.identity, sizeof(u.identity), "root");
	auth_token_secret(key, &u, other);
	CHECK("another identity has another secret",
	    memcmp(other, t.secret, AUTH_KEY_LEN) != 0);
	u = t;
	u.expiry += 1;
	auth_token_secret(key, &u, other);
	CHECK("a longer life has another secret",
	    memcmp(other, t.secret, AUTH_KEY_LEN) != 0);
	u = t;
	u.id[0] ^= 1;
	auth_token_secret(key, &u, other);
	CHECK("another id has another secret",
	    memcmp(other, t.secret, AUTH_KEY_LEN) != 0);
	{
		uint8_t k2[AUTH_KEY_LEN];

		memcpy(k2, key, sizeof(k2));
		k2[5] ^= 0x80;
		auth_token_secret(k2, &t, other);
		CHECK("another pool's key gives another secret",
		    memcmp(other, t.secret, AUTH_KEY_LEN) != 0);
	}
	CHECK("a bad identity makes no token", auth_token_make(key,
	    "al ice", 0, bad, sizeof(bad), err, sizeof(err)) == -1 &&
	    auth_token_make(key, "", 0, bad, sizeof(bad), err,
	    sizeof(err)) == -1 && auth_token_make(key, "a/b", 0, bad,
	    sizeof(bad), err, sizeof(err)) == -1);
	CHECK("a negative lifetime makes no token", auth_token_make(key,
	    "alice", -1, bad, sizeof(bad), err, sizeof(err)) == -1);
	CHECK("a token too big for its buffer is refused",
	    auth_token_make(key, "alice", 0, bad, 40, err,
	    sizeof(err)) == -1);
	snprintf(bad, sizeof(bad), "%s", text);
	bad[strlen(bad) - 3] = 'g';
	CHECK("a damaged secret is refused", auth_token_parse(bad, &u, err,
	    sizeof(err)) == -1);
	snprintf(bad, sizeof(bad), "%.400s", text);
	bad[strcspn(bad, "\n")] = '\0';
	strcat(bad, " trailing");
	CHECK("a token with more after it is refused",
	    auth_token_parse(bad, &u, err, sizeof(err)) == -1);
	CHECK("garbage is no token", auth_token_parse("", &u, err,
	    sizeof(err)) == -1 && auth_token_parse("CONDOR-TOKEN-1", &u,
	    err, sizeof(err)) == -1 && auth_token_parse("CONDOR-TOKEN-1 a "
	    "5 4 0000000000000000 00", &u, err, sizeof(err)) == -1);
	snprintf(bad, sizeof(bad), "%s", text);
	p = strchr(bad, ' ');
	memcpy(p - 1, "2", 1);
	CHECK("another format's token is refused", auth_token_parse(bad, &u,
	    err, sizeof(err)) == -1);
}

static void
replays(void)
{
	uint8_t a[AUTH_NONCE_LEN] = { 1 }, b[AUTH_NONCE_LEN] = { 2 };
	int64_t now = 1000000;
	int i, all = 1;

	config_set("SEC_MAX_CLOCK_SKEW", "60", 0);
	CHECK("a new nonce is fresh", auth_nonce_fresh(a, now, now));
	CHECK("the same nonce again is a replay",
	    !auth_nonce_fresh(a, now, now + 10));
	CHECK("another nonce is fresh", auth_nonce_fresh(b, now, now));
	CHECK("a nonce is remembered as long as its time passes the skew "
	    "check", !auth_nonce_fresh(a, now, now + 60));
	/* Many more: the table grows and still knows the first ones. */
	for (i = 0; i < 20000; i++) {
		uint8_t n[AUTH_NONCE_LEN] = { 0 };

		memcpy(n + 2, &i, sizeof(i));
		n[0] = 9;
		all &= auth_nonce_fresh(n, now, now);
	}
	CHECK("20,000 different nonces are all fresh", all);
	CHECK("the first is still a replay after them",
	    !auth_nonce_fresh(b, now, now + 1));
	CHECK("an expired entry may come back (its time is stale anyway)",
	    auth_nonce_fresh(a, now, now + 62));
}

static void
lists(void)
{
	CHECK("a bare identity matches from anywhere",
	    auth_list_match("alice, bob", "bob", "10.0.0.1"));
	CHECK("an identity not listed does not match",
	    !auth_list_match("alice, bob", "eve", "127.0.0.1"));
	CHECK("a pattern matches", auth_list_match("condor_*", "condor_pool",
	    "127.0.0.1"));
	CHECK("identity/host matches only from that host",
	    auth_list_match("alice/127.0.0.1", "alice", "127.0.0.1") &&
	    !auth_list_match("alice/127.0.0.1", "alice", "127.0.0.2"));
	CHECK("*/host admits anyone from that host",
	    auth_list_match("*/127.0.0.*", "eve", "127.0.0.9") &&
	    !auth_list_match("*/127.0.0.*", "eve", "10.0.0.9"));
	CHECK("an empty or missing list matches nobody",
	    !auth_list_match("", "alice", "local") &&
	    !auth_list_match(NULL, "alice", "local"));
}

static struct auth_caller
caller(int method, const char *id, uid_t uid, const char *host)
{
	struct auth_caller c;

	memset(&c, 0, sizeof(c));
	c.method = method;
	snprintf(c.identity, sizeof(c.identity), "%s", id);
	c.uid = uid;
	snprintf(c.host, sizeof(c.host), "%s", host);
	return c;
}

static void
levels(void)
{
	struct auth_caller anon = caller(AUTH_BY_NONE, "unauthenticated", 0,
	    "127.0.0.1");
	struct auth_caller pool = caller(AUTH_BY_POOL, AUTH_POOL_IDENTITY, 0,
	    "127.0.0.1");
	struct auth_caller nobody = caller(AUTH_BY_LOCAL, "nobody", 65534,
	    "local");
	struct auth_caller alice = caller(AUTH_BY_TOKEN, "alice", 0,
	    "127.0.0.2");
	char why[256];

	config_set("ALLOW_WRITE", "*", 0);
	CHECK("anyone may READ", auth_allowed(&anon, AUTH_READ, why,
	    sizeof(why)));
	CHECK("an unauthenticated caller may not WRITE, and is told why",
	    !auth_allowed(&anon, AUTH_WRITE, why, sizeof(why)) &&
	    strstr(why, "authenticated") != NULL);
	CHECK("a local user may WRITE under ALLOW_WRITE = *",
	    auth_allowed(&nobody, AUTH_WRITE, why, sizeof(why)));
	CHECK("a local user is not a DAEMON", !auth_allowed(&nobody,
	    AUTH_DAEMON, why, sizeof(why)));
	CHECK("nor an ADMINISTRATOR, nor a NEGOTIATOR, nor the OWNER",
	    !auth_allowed(&nobody, AUTH_ADMINISTRATOR, why, sizeof(why)) &&
	    !auth_allowed(&nobody, AUTH_NEGOTIATOR, why, sizeof(why)) &&
	    !auth_allowed(&nobody, AUTH_OWNER, why, sizeof(why)));
	CHECK("the pool key holder is DAEMON, NEGOTIATOR, ADMINISTRATOR",
	    auth_allowed(&pool, AUTH_DAEMON, why, sizeof(why)) &&
	    auth_allowed(&pool, AUTH_NEGOTIATOR, why, sizeof(why)) &&
	    auth_allowed(&pool, AUTH_ADMINISTRATOR, why, sizeof(why)));
	CHECK("a token's user is not a DAEMON", !auth_allowed(&alice,
	    AUTH_DAEMON, why, sizeof(why)));
	config_set("QUEUE_SUPER_USERS", "root, condor", 0);
	CHECK("nor an ADMINISTRATOR unless a queue super user",
	    !auth_allowed(&alice, AUTH_ADMINISTRATOR, why, sizeof(why)));
	config_set("QUEUE_SUPER_USERS", "root, alice", 0);
	CHECK("a QUEUE_SUPER_USERS user is an ADMINISTRATOR by default",
	    auth_allowed(&alice, AUTH_ADMINISTRATOR, why, sizeof(why)));
	config_set("QUEUE_SUPER_USERS", "root, condor", 0);
	config_set("ALLOW_OWNER", "alice", 0);
	CHECK("ALLOW_OWNER makes a token's user the OWNER",
	    auth_allowed(&alice, AUTH_OWNER, why, sizeof(why)));
	config_set("DENY_OWNER", "*/127.0.0.2", 0);
	CHECK("DENY_OWNER by host wins over ALLOW_OWNER",
	    !auth_allowed(&alice, AUTH_OWNER, why, sizeof(why)));
	config_set("DENY_WRITE", "nobody", 0);
	CHECK("DENY_WRITE refuses a user ALLOW_WRITE admits",
	    !auth_allowed(&nobody, AUTH_WRITE, why, sizeof(why)));
	config_set("ALLOW_READ", "condor_pool", 0);
	CHECK("ALLOW_READ can close queries to the unauthenticated",
	    !auth_allowed(&anon, AUTH_READ, why, sizeof(why)) &&
	    auth_allowed(&pool, AUTH_READ, why, sizeof(why)));
}

/* A claim's key: the pool's daemons alone make it, one per claim and
 * job; a process acting for a user has no pool key to make it with. */
static void
claim_keys(void)
{
	const char *id = "0123456789abcdef0123456789abcdef";
	const char *id2 = "fedcba9876543210fedcba9876543210";
	const char *who;
	char a[AUTH_CLAIM_KEY_LEN + 1], b[AUTH_CLAIM_KEY_LEN + 1];
	char c[AUTH_CLAIM_KEY_LEN + 1], err[256];

	CHECK("a claim's key, with the pool key",
	    auth_pool_key_load(0, err, sizeof(err)) == 0 &&
	    auth_claim_key(id, 1, 0, a, sizeof(a)) == 0 &&
	    strlen(a) == AUTH_CLAIM_KEY_LEN);
	CHECK("the same claim and job give the same key, another job or "
	    "claim another", auth_claim_key(id, 1, 0, b, sizeof(b)) == 0 &&
	    strcmp(a, b) == 0 && auth_claim_key(id, 1, 1, c, sizeof(c)) == 0 &&
	    strcmp(a, c) != 0 && auth_claim_key(id2, 1, 0, c, sizeof(c)) == 0 &&
	    strcmp(a, c) != 0);
	CHECK("the key does not hold the claim id", strstr(a, id) == NULL);
	auth_client_acts_for_user();
	CHECK("acting for a user, a process forgets the pool key and makes "
	    "no claim's key", !auth_have_pool_key() &&
	    auth_client_pool_key_refused() &&
	    auth_claim_key(id, 1, 0, b, sizeof(b)) == -1);
	who = auth_client_identity();
	CHECK("... nor calls as the pool, though it may read the key file",
	    who == NULL || strcmp(who, AUTH_POOL_IDENTITY) != 0);
}

int
main(void)
{
	char err[512];

	if (config_init(err, sizeof(err)) == -1) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	key_file();
	tokens();
	replays();
	lists();
	levels();
	claim_keys();	/* last: the process then acts for a user */
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/pool_key", dir);
		unlink(path);
		rmdir(dir);
	}
	TEST_EXIT();
}
