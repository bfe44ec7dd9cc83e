/*
 * condor_userprio: the negotiator's priorities, and an administrator's
 * way to change one.  See condor_userprio(1).
 *
 * Fair share here is Condor 4's Up-Down algorithm: the negotiator keeps
 * one index per submitting station (a schedd, by its Name), not per
 * user, which rises while the station waits and sinks while it runs;
 * the highest is served first.  So the rows are stations, and the
 * priority shown is that index: there is no priority factor (it is
 * always 1, effective and real priorities are the same) and no
 * accumulated usage, only what runs and waits now.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ad.h"
#include "collector_client.h"
#include "config.h"
#include "daemon.h"
#include "log.h"
#include "negotiator_client.h"

#define RULE_NAME	"------------------------------"
#define NAME_WIDTH	30

static int
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: condor_userprio [-all | -allusers] [-pool HOST:PORT]\n"
	    "       condor_userprio -setprio STATION VALUE\n"
	    "  the negotiator's Up-Down priority of each submitting station\n"
	    "  (a schedd), highest first: it is served first\n"
	    "  -all             every station remembered, with more "
	    "columns\n"
	    "  -allusers        every station remembered\n"
	    "  -setprio S V     set station S's priority to V "
	    "(administrators)\n"
	    "  -pool HOST:PORT  ask this collector's pool\n");
	return fp == stdout ? 0 : 1;
}

static long long
int_attr(const struct ad *ad, const char *name)
{
	long long v;

	return ad_get_int(ad, name, &v) == 0 ? v : 0;
}

/* A station name fit for the terminal: control characters as '?'. */
static void
print_name(const char *name, int width)
{
	char shown[256];
	size_t i;

	snprintf(shown, sizeof(shown), "%s", name);
	for (i = 0; shown[i] != '\0'; i++)
		if ((unsigned char)shown[i] < 0x20 || shown[i] == 0x7f)
			shown[i] = '?';
	printf("%-*s", width, shown);
}

static int
show(int all, int every)
{
	struct ad **ads;
	char err[512], when[64], *name;
	long long running, idle, users, tot_run = 0, tot_idle = 0, last = 0;
	double prio;
	int i, n, shown = 0, adv;
	time_t t;

	if ((n = negotiator_priorities(&ads, err, sizeof(err))) == -1) {
		log_warnx("cannot read the priorities: %s", err);
		return 1;
	}
	signal(SIGPIPE, SIG_DFL);
	for (i = 0; i < n; i++)
		if (int_attr(ads[i], "LastUpdate") > last)
			last = int_attr(ads[i], "LastUpdate");
	if (last > 0) {
		t = (time_t)last;
		strftime(when, sizeof(when), "%m/%d %H:%M", localtime(&t));
	} else
		snprintf(when, sizeof(when), "never");
	printf("Last Priority Update: %s\n", when);
	if (all) {
		printf("%-*s %10s %10s %9s %6s %6s %6s\n", NAME_WIDTH, "",
		    "Effective", "Real", "Priority", "Res", "Idle", "");
		printf("%-*s %10s %10s %9s %6s %6s %6s\n", NAME_WIDTH,
		    "Station (schedd)", "Priority", "Priority", "Factor",
		    "In Use", "Jobs", "Users");
		printf("%s %10.10s %10.10s %9.9s %6.6s %6.6s %6.6s\n",
		    RULE_NAME, RULE_NAME, RULE_NAME, RULE_NAME, RULE_NAME,
		    RULE_NAME, RULE_NAME);
	} else {
		printf("%-*s %10s %9s %6s %6s\n", NAME_WIDTH, "", "Effective",
		    "Priority", "Res", "Idle");
		printf("%-*s %10s %9s %6s %6s\n", NAME_WIDTH,
		    "Station (schedd)", "Priority", "Factor", "In Use", "Jobs");
		printf("%s %10.10s %9.9s %6.6s %6.6s\n", RULE_NAME, RULE_NAME,
		    RULE_NAME, RULE_NAME, RULE_NAME);
	}
	for (i = 0; i < n; i++) {
		if (ad_get_string(ads[i], "Name", &name) == -1)
			continue;
		adv = 1;
		(void)ad_get_bool(ads[i], "Advertising", &adv);
		/* A station gone quiet keeps its index; shown on request. */
		if (!adv && !every) {
			free(name);
			continue;
		}
		if (ad_get_real(ads[i], "Priority", &prio) == -1 ||
		    !isfinite(prio))
			prio = 0;
		running = int_attr(ads[i], "Running");
		idle = int_attr(ads[i], "Idle");
		users = int_attr(ads[i], "Users");
		tot_run += running;
		tot_idle += idle;
		print_name(name, NAME_WIDTH);
		if (all)
			printf(" %10.2f %10.2f %9.2f %6lld %6lld %6lld\n", prio,
			    prio, 1.0, running, idle, users);
		else
			printf(" %10.2f %9.2f %6lld %6lld\n", prio, 1.0,
			    running, idle);
		free(name);
		shown++;
	}
	if (all)
		printf("%s %10.10s %10.10s %9.9s %6.6s %6.6s %6.6s\n",
		    RULE_NAME, RULE_NAME, RULE_NAME, RULE_NAME, RULE_NAME,
		    RULE_NAME, RULE_NAME);
	else
		printf("%s %10.10s %9.9s %6.6s %6.6s\n", RULE_NAME, RULE_NAME,
		    RULE_NAME, RULE_NAME, RULE_NAME);
	printf("Number of stations: %-*d", NAME_WIDTH - 20, shown);
	if (all)
		printf(" %10s %10s %9s %6lld %6lld\n", "", "", "", tot_run,
		    tot_idle);
	else
		printf(" %10s %9s %6lld %6lld\n", "", "", tot_run, tot_idle);
	collector_free_ads(ads, n);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		log_warnx("cannot write the output");
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const char *station = NULL, *value = NULL;
	char err[512], *end;
	double prio;
	int i, all = 0, every = 0;

	common_init(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "-help") == 0)
			return usage(stdout);
		if (strcmp(argv[i], "-all") == 0) {
			all = every = 1;
		} else if (strcmp(argv[i], "-allusers") == 0) {
			every = 1;
		} else if (strcmp(argv[i], "-setprio") == 0) {
			if (i + 2 >= argc) {
				log_warnx("-setprio needs a station and a "
				    "value");
				return usage(stderr);
			}
			station = argv[++i];
			value = argv[++i];
		} else if (strcmp(argv[i], "-setfactor") == 0) {
			log_warnx("-setfactor: stations have no priority "
			    "factor under Up-Down (their priority is one "
			    "index); use -setprio");
			return 1;
		} else if (strcmp(argv[i], "-pool") == 0) {
			if (++i == argc) {
				log_warnx("-pool needs HOST:PORT");
				return usage(stderr);
			}
			config_set("COLLECTOR_HOST", argv[i], 0);
		} else {
			log_warnx("unknown option %s", argv[i]);
			return usage(stderr);
		}
	}
	if (station == NULL)
		return show(all, every);
	prio = strtod(value, &end);
	if (*value == '\0' || *end != '\0' || !isfinite(prio)) {
		log_warnx("-setprio: \"%s\" is not a number", value);
		return 1;
	}
	if (negotiator_set_priority(station, prio, err, sizeof(err)) == -1) {
		log_warnx("cannot set the priority of %s: %s", station, err);
		return 1;
	}
	printf("The priority of %s was set to %g\n", station, prio);
	return 0;
}
