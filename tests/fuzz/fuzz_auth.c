/*
 * fuzz_auth.c: libFuzzer target for the signed call (src/common/auth.c),
 * as a daemon receives one in a datagram, before and after
 * authentication.
 *
 * The first byte chooses:
 *   0	garbage before authentication: the rest is a credential (its
 *	first byte its length) and the wrapped arguments, checked with
 *	the pool key as rpc_dgram_recv does.  It must be refused (nobody
 *	here knows the key but us, and the fuzzer does not sign).
 *   1	garbage after authentication: the rest, as opaque arguments, is
 *	signed properly, then damaged as the next bytes say (a byte
 *	flipped at an offset, or the message cut short).  Undamaged, it
 *	is taken once and refused as a replay the second time; damaged, it
 *	is refused, or (a flip in XDR padding, which carries nothing) taken
 *	with exactly the arguments signed.
 *   2	a token's text: parsed without a crash; one that parses is
 *	written back the same, and its secret is the key's only if it was
 *	made with it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include "auth.h"
#include "config.h"
#include "rpcutil.h"

int	LLVMFuzzerInitialize(int *argc, char ***argv);
int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char	dir[] = "/tmp/fuzz_auth.XXXXXX";

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[512], path[64];

	if (config_init(err, sizeof(err)) == -1 || mkdtemp(dir) == NULL)
		abort();
	snprintf(path, sizeof(path), "%s/pool_key", dir);
	config_set("SEC_POOL_KEY_FILE", path, 0);
	if (auth_pool_key_load(1, err, sizeof(err)) == -1)
		abort();
	unlink(path);
	rmdir(dir);
	return 0;
}

/* The datagram's credential and wrapped arguments, checked. */
static int
verify(const char *msg, u_int len, char **args, u_int *argslen)
{
	uint32_t flavor, clen;
	char cred[MAX_AUTH_BYTES];
	XDR x;
	int r = -1;

	xdrmem_create(&x, (char *)msg, len, XDR_DECODE);
	if (xdr_u_int32_t(&x, &flavor) && xdr_u_int32_t(&x, &clen) &&
	    clen <= MAX_AUTH_BYTES && xdr_opaque(&x, cred, clen) &&
	    xdr_u_int32_t(&x, &flavor) && xdr_u_int32_t(&x, &flavor))
		r = auth_dgram_verify(cred, clen, 1, 2, 3, &x, args, argslen);
	xdr_destroy(&x);
	return r;
}

static bool_t
xdr_fuzz_args(XDR *x, void *p)
{
	struct { char *b; u_int n; } *a = p;

	return xdr_bytes(x, &a->b, &a->n, 4096);
}

static void
signed_call(const uint8_t *data, size_t size)
{
	char msg[RPC_MAX_DATAGRAM], *args = NULL, *again = NULL;
	struct { char *b; u_int n; } a;
	u_int len, alen, alen2, pos;
	size_t body;
	uint8_t how, at;
	XDR x;

	if (size < 2)
		return;
	how = data[0];
	at = data[1];
	data += 2;
	size -= 2;
	body = size > 4096 ? 4096 : size;
	a.b = (char *)data;
	a.n = (u_int)body;
	xdrmem_create(&x, msg, sizeof(msg), XDR_ENCODE);
	if (!auth_dgram_encode(&x, 1, 2, 3, (xdrproc_t)xdr_fuzz_args, &a))
		abort();	/* it fits: 4096 bytes and a credential */
	len = xdr_getpos(&x);
	xdr_destroy(&x);
	switch (how % 3) {
	case 0:		/* as sent: taken once, then a replay */
		if (verify(msg, len, &args, &alen) == -1)
			abort();
		if (verify(msg, len, &again, &alen2) != -1)
			abort();
		break;
	case 1:		/* one byte flipped */
		pos = (u_int)(((size_t)at * len) / 256);
		msg[pos] ^= (char)(1 << (how % 8));
		if (verify(msg, len, &args, &alen) == 0) {
			/* Only padding may change without notice. */
			XDR m;
			struct { char *b; u_int n; } got = { NULL, 0 };

			xdrmem_create(&m, args, alen, XDR_DECODE);
			if (!xdr_fuzz_args(&m, &got) || got.n != body ||
			    (body > 0 && memcmp(got.b, data, body) != 0))
				abort();
			xdr_destroy(&m);
			free(got.b);
		}
		break;
	case 2:		/* cut short */
		pos = (u_int)(((size_t)at * len) / 256);
		if (verify(msg, pos, &args, &alen) != -1)
			abort();
		break;
	}
	free(args);
	free(again);
}

static void
token(const uint8_t *data, size_t size)
{
	char text[AUTH_TOKEN_MAX + 1], err[256];
	struct auth_token t;
	uint8_t secret[AUTH_KEY_LEN];

	if (size > AUTH_TOKEN_MAX)
		size = AUTH_TOKEN_MAX;
	memcpy(text, data, size);
	text[size] = '\0';
	if (auth_token_parse(text, &t, err, sizeof(err)) == -1)
		return;
	auth_token_secret(auth_pool_key(), &t, secret);
	/* A token the fuzzer wrote cannot carry this run's key's secret. */
	if (memcmp(secret, t.secret, AUTH_KEY_LEN) == 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *args = NULL;
	u_int alen;

	if (size == 0)
		return 0;
	switch (data[0] % 3) {
	case 0:
		if (verify((const char *)data + 1, (u_int)(size - 1), &args,
		    &alen) == 0)
			abort();
		free(args);
		break;
	case 1:
		signed_call(data + 1, size - 1);
		break;
	case 2:
		token(data + 1, size - 1);
		break;
	}
	return 0;
}
