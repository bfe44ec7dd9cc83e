/*
 * fuzz_xdr.c: libFuzzer target for the wire decoders: bytes are decoded
 * as the argument of a collector update and of a schedd submit, exactly
 * as a daemon would after reading a request, then turned into ads.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpc/rpc.h>

#include "ad.h"
#include "collector_rpc.h"
#include "schedd_rpc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	collector_update_x up;
	submit_x sub;
	char err[256];
	struct ad *ad;
	XDR xdr;
	u_int i;

	memset(&up, 0, sizeof(up));
	xdrmem_create(&xdr, (char *)data, (u_int)size, XDR_DECODE);
	if (xdr_collector_update_x(&xdr, &up)) {
		if ((ad = ad_from_xdr(&up.ad, err, sizeof(err))) != NULL)
			ad_free(ad);
	}
	xdr_free((xdrproc_t)xdr_collector_update_x, (char *)&up);
	xdr_destroy(&xdr);

	memset(&sub, 0, sizeof(sub));
	xdrmem_create(&xdr, (char *)data, (u_int)size, XDR_DECODE);
	if (xdr_submit_x(&xdr, &sub)) {
		if ((ad = ad_from_xdr(&sub.cluster_ad, err, sizeof(err))) !=
		    NULL)
			ad_free(ad);
		for (i = 0; i < sub.proc_ads.proc_ads_len; i++)
			if ((ad = ad_from_xdr(&sub.proc_ads.proc_ads_val[i],
			    err, sizeof(err))) != NULL)
				ad_free(ad);
	}
	xdr_free((xdrproc_t)xdr_submit_x, (char *)&sub);
	xdr_destroy(&xdr);
	return 0;
}
