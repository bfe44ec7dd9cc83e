/*
 * fuzz_xdr.c: libFuzzer target for the wire decoders: bytes are decoded
 * as the argument of a collector update and of a schedd submit (one
 * cluster, or several: SUBMIT_MANY, and its reply), exactly
 * as a daemon would after reading a request, then turned into ads; and
 * as a pool history query and its reply (condor_summary decodes what
 * the collector sends), whose samples are then formatted and parsed
 * back as the history file's records; and as a condor_qedit request,
 * whose value is parsed as the schedd parses it; and as a
 * condor_userprio -setprio request (NEGOTIATOR_SET_PRIORITY), and as
 * condor_tail's request to the schedd and the startd and their reply.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpc/rpc.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "collector_rpc.h"
#include "negotiator_rpc.h"
#include "poolhist.h"
#include "schedd_rpc.h"
#include "startd_rpc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	collector_update_x up;
	submit_x sub;
	collector_history_query_x hq;
	collector_history_res_x hr;
	job_edit_x ed;
	setprio_x sp;
	tail_x tq;
	startd_tail_x stq;
	tail_res_x tr;
	struct expr *e;
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

	/* Several clusters at once (SCHEDD_SUBMIT_MANY), and the reply
	 * condor_dagman decodes. */
	{
		submit_many_x many;
		submit_many_res_x mres;

		memset(&many, 0, sizeof(many));
		xdrmem_create(&xdr, (char *)data, (u_int)size, XDR_DECODE);
		if (xdr_submit_many_x(&xdr, &many)) {
			for (i = 0; i < many.clusters.clusters_len; i++)
				if ((ad = ad_from_xdr(
				    &many.clusters.clusters_val[i].cluster_ad,
				    err, sizeof(err))) != NULL)
					ad_free(ad);
		}
		xdr_free((xdrproc_t)xdr_submit_many_x, (char *)&many);
		xdr_destroy(&xdr);
		memset(&mres, 0, sizeof(mres));
		xdrmem_create(&xdr, (char *)data, (u_int)size, XDR_DECODE);
		(void)xdr_submit_many_res_x(&xdr, &mres);
		xdr_free((xdrproc_t)xdr_submit_many_res_x, (char *)&mres);
		xdr_destroy(&xdr);
	}

	memset(&hq, 0, sizeof(hq));
	xdrmem_create(&xdr, (char *)data, (u_int)size, XDR_DECODE);
	(void)xdr_collector_history_query_x(&xdr, &hq);
	xdr_destroy(&xdr);

	memset(&hr, 0, sizeof(hr));
	xdrmem_create(&xdr, (char *)data, (u_int)size, XDR_DECODE);
	if (xdr_collector_history_res_x(&xdr, &hr)) {
		for (i = 0; i < hr.samples.samples_len; i++) {
			pool_sample_x back;
			struct buf line;

			buf_init(&line);
			poolhist_format(&hr.samples.samples_val[i], &line);
			if (line.len > 0 && poolhist_parse_line(line.data,
			    line.len - 1, &back) == 0)
				poolhist_sample_free(&back);
			buf_free(&line);
		}
	}
	xdr_free((xdrproc_t)xdr_collector_history_res_x, (char *)&hr);
	xdr_destroy(&xdr);

	memset(&ed, 0, sizeof(ed));
	xdrmem_create(&xdr, (char *)data, (u_int)size, XDR_DECODE);
	if (xdr_job_edit_x(&xdr, &ed) &&
	    (e = expr_parse(ed.value, err, sizeof(err))) != NULL)
		expr_free(e);
	xdr_free((xdrproc_t)xdr_job_edit_x, (char *)&ed);
	xdr_destroy(&xdr);

	memset(&sp, 0, sizeof(sp));
	xdrmem_create(&xdr, (char *)data, (u_int)size, XDR_DECODE);
	if (xdr_setprio_x(&xdr, &sp) && strlen(sp.name) > 255)
		abort();	/* the decoder's bound did not hold */
	xdr_free((xdrproc_t)xdr_setprio_x, (char *)&sp);
	xdr_destroy(&xdr);

	memset(&tq, 0, sizeof(tq));
	xdrmem_create(&xdr, (char *)data, (u_int)size, XDR_DECODE);
	(void)xdr_tail_x(&xdr, &tq);
	xdr_destroy(&xdr);
	memset(&stq, 0, sizeof(stq));
	xdrmem_create(&xdr, (char *)data, (u_int)size, XDR_DECODE);
	(void)xdr_startd_tail_x(&xdr, &stq);
	xdr_free((xdrproc_t)xdr_startd_tail_x, (char *)&stq);
	xdr_destroy(&xdr);
	memset(&tr, 0, sizeof(tr));
	xdrmem_create(&xdr, (char *)data, (u_int)size, XDR_DECODE);
	if (xdr_tail_res_x(&xdr, &tr) && tr.data.data_len > TAIL_MAX)
		abort();	/* the decoder's bound did not hold */
	xdr_free((xdrproc_t)xdr_tail_res_x, (char *)&tr);
	xdr_destroy(&xdr);
	return 0;
}
