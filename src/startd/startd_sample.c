/*
 * startd_sample.c: the startd's periodic look at its machine.
 *
 * The reading and parsing is in src/common/machine.c; this file decides
 * which files to read (the configuration), keeps the last good values when
 * a source fails, and logs each failure once rather than every poll.
 */
#include <sys/stat.h>
#include <sys/time.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "config.h"
#include "log.h"
#include "machine.h"
#include "startd_owner.h"
#include "startd.h"

#define MEMINFO_FILE	"/proc/meminfo"
#define UPTIME_FILE	"/proc/uptime"

#define KEEP_LAST	"keeping the last good value"

/* The last complaint about one source; "" while it reads fine. */
struct source {
	const char	*what;
	const char	*consequence;
	char		 complaint[512];
};

static struct source src_load = { "LoadAvg", KEEP_LAST, "" };
static struct source src_mem = { "Memory", KEEP_LAST, "" };
static struct source src_disk = { "Disk", KEEP_LAST, "" };
static struct source src_console = { "KeyboardIdle",
    "ignoring it (with no device at all, the time since boot counts)", "" };
static struct source src_uptime = { "KeyboardIdle", KEEP_LAST, "" };

/* Log MSG if it is news for SRC. */
static void
source_failed(struct source *src, const char *msg)
{
	if (strcmp(src->complaint, msg) == 0)
		return;
	snprintf(src->complaint, sizeof(src->complaint), "%s", msg);
	log_warnx("%s: %s; %s", src->what, msg, src->consequence);
}

static void
source_ok(struct source *src)
{
	if (src->complaint[0] == '\0')
		return;
	src->complaint[0] = '\0';
	log_info("%s: reading again", src->what);
}

static void
sample_load(struct machine_sample *s)
{
	const char *path = param("LOAD_AVERAGE_FILE");
	char err[512];
	double load;

	if (path == NULL)
		path = "/proc/loadavg";
	if (machine_read_loadavg(path, &load, err, sizeof(err)) == -1) {
		source_failed(&src_load, err);
		return;
	}
	source_ok(&src_load);
	s->loadavg = load;
}

static void
sample_memory(struct machine_sample *s)
{
	char err[512];
	long long total, virt;

	if (machine_read_meminfo(MEMINFO_FILE, &total, &virt, err,
	    sizeof(err)) == -1) {
		source_failed(&src_mem, err);
		return;
	}
	source_ok(&src_mem);
	s->memory = param_int("MEMORY", 0) > 0 ? param_int("MEMORY", 0) :
	    total / 1024;
	s->virtual_memory = virt;
}

static void
sample_disk(struct machine_sample *s)
{
	const char *dir = param("EXECUTE");
	char err[512];
	long long kib;

	if (machine_disk_free(dir, &kib) == -1) {
		snprintf(err, sizeof(err), "EXECUTE %s: %s",
		    dir ? dir : "(undefined)", strerror(errno));
		source_failed(&src_disk, err);
		return;
	}
	source_ok(&src_disk);
	s->disk = kib;
}

/*
 * The console devices: CONSOLE_DEVICES when it is defined (even empty:
 * a host with no console), else the terminals in use from utmp.
 */
static size_t
console_devices(char ***paths)
{
	const char *value = param("CONSOLE_DEVICES");

	if (value != NULL)
		return machine_parse_devices(value, paths);
	return machine_utmp_devices(NULL, paths);
}

/*
 * The latest access or modification of any of the N PATHS, with its
 * fraction of a second; -1 if none could be examined.  Those that could
 * not are appended to MISSING.
 */
static double
devices_latest(char *const *paths, size_t n, struct buf *missing)
{
	struct stat st;
	double latest = -1, t, m;
	size_t i;

	for (i = 0; i < n; i++) {
		if (stat(paths[i], &st) == -1) {
			if (missing->len > 0)
				buf_addc(missing, ' ');
			buf_adds(missing, paths[i]);
			continue;
		}
		t = (double)st.st_atim.tv_sec + st.st_atim.tv_nsec / 1e9;
		m = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
		if (m > t)
			t = m;
		if (t > latest)
			latest = t;
	}
	return latest;
}

/*
 * KeyboardIdle is the least idle of the console devices (looked at now,
 * and watched between looks) and the kbdd's last report; ConsoleIdle
 * leaves the kbdd out.  Activity newer than the last look counts as 0
 * seconds (policy_idle_seconds).  With no device and no report at all,
 * nobody has touched the machine since boot.
 */
static void
sample_console(struct machine_sample *s)
{
	static double seen_console = -1, seen_keyboard = -1;
	struct buf missing;
	struct timeval tv;
	char err[512], **paths;
	double now, up, console, keyboard;
	size_t n;

	buf_init(&missing);
	n = console_devices(&paths);
	console_watch(paths, n);
	console = devices_latest(paths, n, &missing);
	machine_free_list(paths, n);
	/* Devices that vanish (a logout) are normal; a named one is not. */
	if (missing.len > 0 && param("CONSOLE_DEVICES") != NULL) {
		snprintf(err, sizeof(err), "cannot examine %s", missing.data);
		source_failed(&src_console, err);
	} else
		source_ok(&src_console);
	buf_free(&missing);
	gettimeofday(&tv, NULL);
	now = (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
	if (console_watch_latest() > console)
		console = console_watch_latest();
	if (console < 0) {
		/* No device at all: nobody has touched it since boot. */
		if (machine_read_uptime(UPTIME_FILE, &up, err,
		    sizeof(err)) == -1) {
			source_failed(&src_uptime, err);
			return;
		}
		source_ok(&src_uptime);
		/* Whole seconds: the boot time must not wobble. */
		console = (double)(long long)(now - up);
	}
	keyboard = kbdd_latest() > console ? kbdd_latest() : console;
	s->console_idle = policy_idle_seconds(now, console, &seen_console);
	s->keyboard_idle = policy_idle_seconds(now, keyboard,
	    &seen_keyboard);
}

void
sample_machine(struct machine_sample *s)
{
	pid_t starters[SLOTS_MAX + 1];

	machine_arch(s->arch, sizeof(s->arch));
	machine_opsys(s->opsys, sizeof(s->opsys));
	s->total_cpus = machine_ncpus();
	s->cpus = (int)startd_total_cpus();
	s->gpus = startd_total_gpus();
	sample_load(s);
	sample_memory(s);
	sample_disk(s);
	sample_console(s);
	load_sample(starters, claim_starter_pids(starters, SLOTS_MAX + 1));
	s->condor_loadavg = load_condor_avg();
}
