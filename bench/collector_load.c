/*
 * collector_load: a crowd of simulated startds for the collector
 * benchmark.  Each update is one COLLECTOR_UPDATE call carrying one
 * machine ad, as a real startd sends it.
 *
 *   collector_load N RATE SECONDS [BURST]
 *
 * sends the ads of N machines round-robin, RATE updates a second (0: as
 * fast as possible) for SECONDS seconds (0: one round of N), BURST
 * updates back to back at a time (1 by default; the same average rate,
 * for what a wake-up of the collector costs against an update), and prints
 * "updates seconds rate".  Each machine's UpdateSequenceNumber goes up
 * by one with each of its updates, as a startd's does, so the collector
 * can count the updates lost on the way.  Over UDP or TCP as the
 * configuration says (UPDATE_COLLECTOR_WITH_TCP).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "collector_client.h"
#include "daemon.h"
#include "event.h"
#include "log.h"
#include "xalloc.h"

static struct ad *
machine_ad(int i)
{
	struct ad *ad = ad_new();
	char name[64];

	snprintf(name, sizeof(name), "sim%05d.example.org", i);
	ad_set_string(ad, "Name", name);
	ad_set_string(ad, "Machine", name);
	ad_set_string(ad, "Arch", "X86_64");
	ad_set_string(ad, "OpSys", "LINUX");
	ad_set_int(ad, "Memory", 2048 + i % 8 * 1024);
	ad_set_int(ad, "VirtualMemory", 4194304);
	ad_set_int(ad, "Disk", 50000000 + i);
	ad_set_real(ad, "LoadAvg", (i % 100) / 100.0);
	ad_set_real(ad, "CondorLoadAvg", 0.0);
	ad_set_real(ad, "NonCondorLoadAvg", (i % 100) / 100.0);
	ad_set_int(ad, "KeyboardIdle", 60 * (i % 120));
	ad_set_int(ad, "ConsoleIdle", 60 * (i % 120));
	ad_set_string(ad, "State", i % 3 ? "Idle" : "Owner");
	ad_set_string(ad, "Activity", "Idle");
	ad_set_int(ad, "EnteredCurrentState", 1700000000);
	ad_set_string(ad, "StartdIpAddr", "<10.0.0.1:40000>");
	ad_set_expr(ad, "START", "(NonCondorLoadAvg <= 0.3) && "
	    "KeyboardIdle > 15 * 60", NULL, 0);
	ad_set_expr(ad, "Requirements", "START", NULL, 0);
	ad_set_int(ad, "Rank", 0);
	ad_set_int(ad, "Cpus", 1);
	ad_set_int(ad, "TotalCpus", 2);
	ad_set_int(ad, "UpdateSequenceNumber", 1);
	ad_set_int(ad, "DaemonStartTime", 1700000000);
	return ad;
}

int
main(int argc, char **argv)
{
	struct ad **ads;
	double rate, secs, t0, now, next;
	long sent = 0, burst = 1;
	char err[256];
	int i, n;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: collector_load N RATE SECONDS [BURST]\n");
		return 2;
	}
	common_init(argv[0]);
	n = atoi(argv[1]);
	rate = atof(argv[2]);
	secs = atof(argv[3]);
	if (argc == 5)
		burst = atol(argv[4]);
	if (n <= 0 || burst <= 0)
		return 2;
	ads = xcalloc((size_t)n, sizeof(*ads));
	for (i = 0; i < n; i++)
		ads[i] = machine_ad(i);
	t0 = next = monotime();
	for (;;) {
		ad_set_int(ads[sent % n], "UpdateSequenceNumber",
		    1 + sent / n);
		if (collector_update(ADTYPE_STARTD, ads[sent % n], err,
		    sizeof(err)) == -1)
			fatalx("update: %s", err);
		/* The first ad is repeated until the collector answers;
		 * the rest go as periodic updates, not answered. */
		for (i = 0; sent == 0 && i < 100 &&
		    !collector_update_acked(ADTYPE_STARTD); i++)
			event_run_once(0.1);
		sent++;
		now = monotime();
		if (secs == 0 && sent == n)
			break;
		if (secs > 0 && now - t0 >= secs)
			break;
		if (rate > 0 && sent % burst == 0) {
			next += burst / rate;
			if (next > now)
				usleep((useconds_t)((next - now) * 1e6));
		}
	}
	now = monotime();
	printf("%ld %.3f %.0f\n", sent, now - t0, sent / (now - t0));
	return 0;
}
