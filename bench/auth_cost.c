/*
 * auth_cost.c (bench/auth_bench.sh): what signing costs a call, alone:
 * a machine update of 712 bytes (the collector bench's ad) signed as a
 * daemon signs a datagram (credential, HMAC-SHA-256 over it and the
 * arguments) and checked as the collector checks it (MAC, time, replay
 * cache), against encoding it unsigned; and the replay cache holding a
 * day's worth of nonces at 10,000 machines.  Prints bench rows.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include "auth.h"
#include "config.h"
#include "rpcutil.h"

#define N	200000
#define BODY	712

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool_t
xdr_body(XDR *x, void *p)
{
	return xdr_opaque(x, p, BODY);
}

int
main(int argc, char **argv)
{
	char err[512], msg[RPC_MAX_DATAGRAM], body[BODY], cred[MAX_AUTH_BYTES];
	char *args;
	u_int len = 0, alen, clen;
	uint32_t w;
	double t0, plain, sign, check;
	int i;
	XDR x;

	if (argc != 2 || config_init(err, sizeof(err)) == -1) {
		fprintf(stderr, "usage: auth_cost KEYFILE (with CONDOR_CONFIG)\n");
		return 1;
	}
	config_set("SEC_POOL_KEY_FILE", argv[1], 0);
	if (auth_pool_key_load(1, err, sizeof(err)) == -1) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	memset(body, 'a', sizeof(body));
	t0 = now();
	for (i = 0; i < N; i++) {
		xdrmem_create(&x, msg, sizeof(msg), XDR_ENCODE);
		if (!xdr_opaque_auth(&x, &_null_auth) ||
		    !xdr_opaque_auth(&x, &_null_auth) || !xdr_body(&x, body))
			return 1;
		xdr_destroy(&x);
	}
	plain = (now() - t0) / N;
	t0 = now();
	for (i = 0; i < N; i++) {
		xdrmem_create(&x, msg, sizeof(msg), XDR_ENCODE);
		if (!auth_dgram_encode(&x, 1, 1, 1, (xdrproc_t)xdr_body, body))
			return 1;
		len = xdr_getpos(&x);
		xdr_destroy(&x);
	}
	sign = (now() - t0) / N;
	/* The checks, each of a freshly signed message (nonces differ). */
	check = 0;
	for (i = 0; i < N; i++) {
		xdrmem_create(&x, msg, sizeof(msg), XDR_ENCODE);
		auth_dgram_encode(&x, 1, 1, 1, (xdrproc_t)xdr_body, body);
		len = xdr_getpos(&x);
		xdr_destroy(&x);
		t0 = now();
		xdrmem_create(&x, msg, len, XDR_DECODE);
		if (!xdr_u_int32_t(&x, &w) || !xdr_u_int32_t(&x, &clen) ||
		    !xdr_opaque(&x, cred, clen) || !xdr_u_int32_t(&x, &w) ||
		    !xdr_u_int32_t(&x, &w) ||
		    auth_dgram_verify(cred, clen, 1, 1, 1, &x, &args,
		    &alen) == -1)
			return 1;
		xdr_destroy(&x);
		free(args);
		check += now() - t0;
	}
	check /= N;
	printf("auth: a 712-byte update encoded unsigned|%.2f us|\n",
	    plain * 1e6);
	printf("auth: the same signed (credential, HMAC-SHA-256), sender|%.2f us|\n",
	    sign * 1e6);
	printf("auth: checked (MAC, time, replay cache), receiver|%.2f us|\n",
	    check * 1e6);
	printf("auth: signed datagram size, unsigned -> signed|%u -> %u bytes|\n",
	    BODY + 16, len);
	return 0;
}
