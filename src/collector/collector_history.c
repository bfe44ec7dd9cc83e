/*
 * collector_history.c: the pool's history, for condor_summary.
 *
 * The collector is the one place that sees every machine, so it is the
 * one that can say how busy the pool was.  Every
 * COLLECTOR_HISTORY_INTERVAL seconds (0: never) it counts its machine
 * ads by State, and the claimed ones by RemoteUser, and appends the
 * counts as one line to $(SPOOL)/pool_history (format and bounds in
 * poolhist.h: at most POOLHIST_MAX_BYTES, then it moves to
 * pool_history.old).  COLLECTOR_HISTORY reads the file back for a time
 * window, thinned to what one reply may carry.
 */
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "collector.h"
#include "collector_rpc.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "log.h"
#include "poolhist.h"
#include "rpcutil.h"
#include "xalloc.h"

static char	*hist_path;
static long	 hist_timer = -1;
static long	 hist_interval;		/* seconds; 0: not sampling */
static int	 hist_failing;		/* the last append failed */

static void
count_one(struct ad *ad, void *arg)
{
	pool_sample_x *s = arg;
	char *state = NULL, *user = NULL;

	(void)ad_get_string(ad, "State", &state);
	(void)ad_get_string(ad, "RemoteUser", &user);
	poolhist_count_machine(s, state, user);
	free(state);
	free(user);
}

static void
history_tick(void *arg)
{
	pool_sample_x s;

	hist_timer = -1;
	if (hist_path == NULL)
		return;
	memset(&s, 0, sizeof(s));
	s.time = (long long)time(NULL);
	store_foreach(ADTYPE_STARTD, count_one, &s);
	if (poolhist_append(hist_path, &s, POOLHIST_MAX_BYTES) == -1) {
		if (!hist_failing)
			log_warn("cannot append to %s", hist_path);
		hist_failing = 1;
	} else {
		if (hist_failing)
			log_info("%s is written again", hist_path);
		hist_failing = 0;
	}
	poolhist_sample_free(&s);
	if (hist_interval > 0)
		hist_timer = event_timer_add((double)hist_interval,
		    history_tick, NULL);
}

/* (Re)arm the sampling timer from the configuration. */
static void
history_arm(void)
{
	long iv = param_int("COLLECTOR_HISTORY_INTERVAL", 300);

	if (iv < 0) {
		log_warnx("COLLECTOR_HISTORY_INTERVAL = %ld: not sampling", iv);
		iv = 0;
	}
	if (hist_timer != -1)
		event_timer_cancel(hist_timer);
	hist_timer = -1;
	hist_interval = iv;
	if (iv > 0)
		hist_timer = event_timer_add((double)iv, history_tick, NULL);
}

/*
 * Make FILE (if missing) and, when we are root about to become
 * CONDOR_IDS, hand it over: the collector then writes it after dropping
 * its privileges.
 */
static void
file_prepare(const char *file)
{
	const char *ids = param("CONDOR_IDS");
	unsigned uid, gid;
	int fd;

	if ((fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0644)) == -1) {
		log_warn("cannot create %s", file);
		return;
	}
	if (geteuid() == 0 && ids != NULL &&
	    sscanf(ids, "%u.%u", &uid, &gid) == 2 &&
	    fchown(fd, (uid_t)uid, (gid_t)gid) == -1)
		log_warn("cannot give %s to %u.%u", file, uid, gid);
	close(fd);
}

/*
 * A collector without its history still collects: a SPOOL that cannot
 * be made is logged, and queries of the history get an error.
 */
int
history_init(void)
{
	const char *spool = param("SPOOL");
	char *old;

	history_arm();
	if (spool == NULL || *spool == '\0' ||
	    daemon_mkdir(spool, 0755) == -1) {
		log_warn("cannot create SPOOL %s: no pool history",
		    spool ? spool : "");
		return 0;
	}
	free(hist_path);
	hist_path = xasprintf("%s/pool_history", spool);
	old = xasprintf("%s.old", hist_path);
	if (poolhist_repair(hist_path) == -1)
		log_warn("cannot repair %s", hist_path);
	file_prepare(hist_path);
	file_prepare(old);
	free(old);
	log_info("pool history in %s, a sample every %ld s", hist_path,
	    hist_interval);
	return 0;
}

void
history_reconfig(void)
{
	history_arm();
}

bool_t
collector_history_1_svc(collector_history_query_x *arg,
    collector_history_res_x *res, struct svc_req *req)
{
	pool_sample_x *samples = NULL;
	size_t n = 0, skipped = 0, max;
	char from[64];

	memset(res, 0, sizeof(*res));
	res->interval = (int)hist_interval;
	if (!rpc_host_allowed(req, "HOSTALLOW_READ")) {
		rpc_caller_ip(req, from, sizeof(from));
		log_warnx("history query from %s refused (HOSTALLOW_READ)",
		    from);
		res->code = EPERM;
		res->message = xstrdup("not allowed to query");
		return TRUE;
	}
	if (arg->max_samples <= 0 || arg->since < 0 || arg->until < 0 ||
	    (arg->until != 0 && arg->until < arg->since)) {
		res->code = EINVAL;
		res->message = xstrdup("bad time window or sample count");
		return TRUE;
	}
	max = arg->max_samples > COLLECTOR_MAX_SAMPLES ?
	    COLLECTOR_MAX_SAMPLES : (size_t)arg->max_samples;
	errno = 0;
	if (hist_path == NULL || poolhist_read(hist_path, arg->since,
	    arg->until, &samples, &n, &skipped) == -1) {
		res->code = errno ? errno : EIO;
		poolhist_samples_free(samples, n);
		res->message = xasprintf("cannot read the pool history: %s",
		    strerror(res->code));
		return TRUE;
	}
	res->message = xstrdup("");
	res->matched = n > INT_MAX ? INT_MAX : (int)n;
	res->skipped = skipped > INT_MAX ? INT_MAX : (int)skipped;
	n = poolhist_thin(samples, n, max);
	/* The reply owns the samples; xdr_free gives them back. */
	res->samples.samples_len = (u_int)n;
	res->samples.samples_val = samples;
	if (n == 0) {
		free(samples);
		res->samples.samples_val = NULL;
	}
	return TRUE;
}
