/*
 * machine_test.c: the startd's look at its machine (src/common/machine.c),
 * fed good and garbage files.
 *
 * checks: 70
 */
#include <sys/stat.h>

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <utmpx.h>

#include "buf.h"
#include "machine.h"
#include "test.h"
#include "xalloc.h"

static char dir[] = "/tmp/machine_test.XXXXXX";

static char *
path_of(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static char *
write_file(const char *name, const char *text, size_t len)
{
	char *path = path_of(name);
	FILE *f = fopen(path, "w");

	if (f == NULL || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	return path;
}

static const struct {
	const char	*name;
	const char	*text;
	int		 ok;
	double		 want;
} loadavg_cases[] = {
	{ "loadavg proc format", "0.52 0.58 0.59 1/467 12345\n", 1, 0.52 },
	{ "loadavg leading blanks", "  2.50\n", 1, 2.5 },
	{ "loadavg integer", "3", 1, 3.0 },
	{ "loadavg zero", "0.00 0.00 0.00 1/100 1\n", 1, 0.0 },
	{ "loadavg empty", "", 0, 0 },
	{ "loadavg blank", "  \n\n", 0, 0 },
	{ "loadavg words", "high load\n", 0, 0 },
	{ "loadavg negative", "-1.0 0 0\n", 0, 0 },
	{ "loadavg nan", "nan 0 0\n", 0, 0 },
	{ "loadavg inf", "inf\n", 0, 0 },
	{ "loadavg huge", "1e999\n", 0, 0 },
	{ "loadavg beyond bound", "2000000 0 0\n", 0, 0 },
	{ "loadavg trailing junk", "1.5abc 0 0\n", 0, 0 },
	{ "loadavg hex", "0x10\n", 0, 0 },
	{ "loadavg lone dot", ". 1 2\n", 0, 0 },
};

static void
test_loadavg(void)
{
	char err[512], *path, *big;
	double load;
	size_t i;
	int r;

	for (i = 0; i < sizeof(loadavg_cases) / sizeof(loadavg_cases[0]);
	    i++) {
		path = write_file("loadavg", loadavg_cases[i].text,
		    strlen(loadavg_cases[i].text));
		load = -42;
		r = machine_read_loadavg(path, &load, err, sizeof(err));
		if (loadavg_cases[i].ok)
			CHECK(loadavg_cases[i].name, r == 0 &&
			    load == loadavg_cases[i].want);
		else
			CHECK(loadavg_cases[i].name, r == -1 &&
			    load == -42 && err[0] != '\0');
		free(path);
	}

	path = write_file("nul", "0.5\0 1 2\n", 9);
	CHECK("loadavg with a NUL byte is refused",
	    machine_read_loadavg(path, &load, err, sizeof(err)) == -1);
	free(path);

	path = path_of("missing");
	CHECK("loadavg missing file", machine_read_loadavg(path, &load, err,
	    sizeof(err)) == -1 && strstr(err, "missing") != NULL);
	free(path);
	CHECK("loadavg no file named", machine_read_loadavg(NULL, &load, err,
	    sizeof(err)) == -1);
	CHECK("loadavg of a directory", machine_read_loadavg(dir, &load, err,
	    sizeof(err)) == -1);

	/* A FIFO with no writer must not block. */
	path = path_of("fifo");
	if (mkfifo(path, 0600) == 0)
		CHECK("loadavg of a FIFO does not block",
		    machine_read_loadavg(path, &load, err,
		    sizeof(err)) == -1);
	free(path);

	/* A file far larger than any /proc file: bounded, and refused. */
	big = xmalloc(200000);
	memset(big, '7', 200000);
	path = write_file("big", big, 200000);
	CHECK("loadavg of a huge number",
	    machine_read_loadavg(path, &load, err, sizeof(err)) == -1);
	free(path);
	free(big);
	CHECK("loadavg of /proc/loadavg",
	    machine_read_loadavg("/proc/loadavg", &load, err,
	    sizeof(err)) == 0 && load >= 0);
}

static void
test_meminfo(void)
{
	char err[512], *path;
	long long total = -1, virt = -1;

	path = write_file("meminfo",
	    "MemTotal:       16303428 kB\n"
	    "MemFree:         1000000 kB\n"
	    "MemAvailable:    8000000 kB\n"
	    "Buffers:          123456 kB\n"
	    "SwapTotal:       2097148 kB\n"
	    "SwapFree:        2000000 kB\n", 168);
	CHECK("meminfo parses", machine_read_meminfo(path, &total, &virt,
	    err, sizeof(err)) == 0 && total == 16303428 &&
	    virt == 10000000);
	free(path);

	path = write_file("meminfo", "MemTotal: 4096 kB\nMemFree: 1024 kB\n",
	    34);
	CHECK("meminfo without MemAvailable or swap",
	    machine_read_meminfo(path, &total, &virt, err,
	    sizeof(err)) == 0 && total == 4096 && virt == 1024);
	free(path);

	path = write_file("meminfo", "MemTotal: lots\nMemFree: 1024 kB\n",
	    32);
	total = virt = -1;
	CHECK("meminfo garbled MemTotal", machine_read_meminfo(path, &total,
	    &virt, err, sizeof(err)) == -1 && total == -1 && virt == -1);
	free(path);

	path = write_file("meminfo", "MemTotal: 4096 kB\n", 18);
	CHECK("meminfo without free memory", machine_read_meminfo(path,
	    &total, &virt, err, sizeof(err)) == -1);
	free(path);

	path = write_file("meminfo",
	    "MemTotal: 99999999999999999999999 kB\nMemFree: 1 kB\n", 51);
	CHECK("meminfo overflowing number", machine_read_meminfo(path,
	    &total, &virt, err, sizeof(err)) == -1);
	free(path);

	path = write_file("meminfo",
	    "MemTotal: 4096 kB\nMemFree: 1024 kB\nSwapFree: -5 kB\n", 51);
	CHECK("meminfo garbled SwapFree", machine_read_meminfo(path,
	    &total, &virt, err, sizeof(err)) == -1);
	free(path);

	CHECK("meminfo of /proc/meminfo", machine_read_meminfo(
	    "/proc/meminfo", &total, &virt, err, sizeof(err)) == 0 &&
	    total > 0 && virt >= 0);
}

static void
test_uptime(void)
{
	char err[512], *path;
	double up = -1;

	path = write_file("uptime", "12345.67 40000.00\n", 18);
	CHECK("uptime parses", machine_read_uptime(path, &up, err,
	    sizeof(err)) == 0 && up > 12345 && up < 12346);
	free(path);
	path = write_file("uptime", "soon\n", 5);
	CHECK("uptime garbled", machine_read_uptime(path, &up, err,
	    sizeof(err)) == -1);
	free(path);
	CHECK("uptime of /proc/uptime", machine_read_uptime("/proc/uptime",
	    &up, err, sizeof(err)) == 0 && up >= 0);
}

static void
test_devices(void)
{
	char **paths;
	size_t n;

	n = machine_parse_devices("tty1, /tmp/x  ,,pts/3\ttty1", &paths);
	CHECK("devices: three distinct", n == 3);
	if (n == 3) {
		CHECK_STR("devices: name under /dev", paths[0], "/dev/tty1");
		CHECK_STR("devices: absolute path kept", paths[1], "/tmp/x");
		CHECK_STR("devices: pts", paths[2], "/dev/pts/3");
	}
	machine_free_list(paths, n);
	n = machine_parse_devices("", &paths);
	CHECK("devices: empty value", n == 0);
	machine_free_list(paths, n);
	n = machine_parse_devices(" , ,\n", &paths);
	CHECK("devices: only separators", n == 0);
	machine_free_list(paths, n);
	n = machine_parse_devices(NULL, &paths);
	CHECK("devices: undefined", n == 0 && paths == NULL);
}

static void
set_times(const char *path, time_t atime, time_t mtime)
{
	struct timespec ts[2];

	ts[0].tv_sec = atime;
	ts[0].tv_nsec = 0;
	ts[1].tv_sec = mtime;
	ts[1].tv_nsec = 0;
	if (utimensat(AT_FDCWD, path, ts, 0) == -1) {
		perror(path);
		exit(1);
	}
}

static void
test_console_idle(void)
{
	struct buf missing;
	char *paths[4];
	time_t now = time(NULL), t;
	long long idle;

	paths[0] = write_file("tty1", "", 0);
	paths[1] = write_file("tty2", "", 0);
	paths[2] = path_of("gone");
	paths[3] = write_file("tty3", "", 0);
	set_times(paths[0], now - 100, now - 200);
	set_times(paths[1], now - 300, now - 50);
	set_times(paths[3], now - 1000, now - 1000);

	CHECK("device time is the later of atime and mtime",
	    machine_device_time(paths[1], &t) == 0 && t == now - 50);
	CHECK("device time of a missing file",
	    machine_device_time(paths[2], &t) == -1);

	buf_init(&missing);
	idle = machine_console_idle(paths, 4, now, &missing);
	CHECK("console idle: the most recent use counts", idle == 50);
	CHECK_STR("console idle: missing devices named", missing.data,
	    paths[2]);
	buf_free(&missing);

	CHECK("console idle: one device", machine_console_idle(paths + 3, 1,
	    now, NULL) == 1000);
	CHECK("console idle: no device examined",
	    machine_console_idle(paths + 2, 1, now, NULL) == -1);
	CHECK("console idle: no device at all",
	    machine_console_idle(NULL, 0, now, NULL) == -1);

	/* A clock set back, or a touch into the future: idle 0, not < 0. */
	set_times(paths[0], now + 500, now + 500);
	CHECK("console idle: future times count as now",
	    machine_console_idle(paths, 2, now, NULL) == 0);

	/* Touching the console makes the machine busy again. */
	set_times(paths[3], now - 1000, now - 2);
	CHECK("console idle: a touch resets it",
	    machine_console_idle(paths + 3, 1, now, NULL) == 2);

	free(paths[0]);
	free(paths[1]);
	free(paths[2]);
	free(paths[3]);
}

static void
add_utmp(short type, const char *line)
{
	struct utmpx u;

	memset(&u, 0, sizeof(u));
	u.ut_type = type;
	u.ut_pid = getpid();
	strncpy(u.ut_line, line, sizeof(u.ut_line));
	strncpy(u.ut_id, line + (strlen(line) > 4 ? strlen(line) - 4 : 0),
	    sizeof(u.ut_id));
	strncpy(u.ut_user, "owner", sizeof(u.ut_user));
	if (pututxline(&u) == NULL)
		perror("pututxline");
}

static void
test_utmp(void)
{
	char *path = write_file("utmp", "", 0), **paths;
	size_t n;

	if (utmpxname(path) != 0) {
		perror("utmpxname");
		exit(1);
	}
	setutxent();
	add_utmp(USER_PROCESS, "pts/7");
	add_utmp(DEAD_PROCESS, "pts/8");
	add_utmp(LOGIN_PROCESS, "tty2");
	add_utmp(USER_PROCESS, "../etc/x");
	add_utmp(USER_PROCESS, "tty1");
	endutxent();

	n = machine_utmp_devices(path, &paths);
	CHECK("utmp: the users' terminals only", n == 2);
	if (n == 2) {
		CHECK_STR("utmp: pseudo-terminal", paths[0], "/dev/pts/7");
		CHECK_STR("utmp: terminal", paths[1], "/dev/tty1");
	}
	machine_free_list(paths, n);
	free(path);

	path = write_file("utmp", "garbage that is not a utmp file", 31);
	n = machine_utmp_devices(path, &paths);
	CHECK("utmp: a garbage file gives no crash", n <= MACHINE_MAX_DEVICES);
	machine_free_list(paths, n);
	free(path);

	path = path_of("no-utmp");
	n = machine_utmp_devices(path, &paths);
	CHECK("utmp: a missing file gives nothing", n == 0);
	machine_free_list(paths, n);
	free(path);
}

static const struct {
	long long	 secs;
	const char	*want;
} idle_cases[] = {
	{ 0, "00:00" },
	{ 59, "00:00" },
	{ 60, "00:01" },
	{ 3661, "01:01" },
	{ 86399, "23:59" },
	{ 86400, "1d+00:00" },
	{ 86400 * 3 + 3600 * 2 + 60 * 3, "3d+02:03" },
	{ -1, "?" },
};

static void
test_format_idle(void)
{
	char buf[64], name[64];
	size_t i;

	for (i = 0; i < sizeof(idle_cases) / sizeof(idle_cases[0]); i++) {
		machine_format_idle(idle_cases[i].secs, buf, sizeof(buf));
		snprintf(name, sizeof(name), "format idle %lld",
		    idle_cases[i].secs);
		CHECK_STR(name, buf, idle_cases[i].want);
	}
	machine_format_idle(1000000000000LL, buf, 4);
	CHECK("format idle truncates safely", strlen(buf) == 3);
}

static void
test_uname(void)
{
	char arch[32], opsys[32], tiny[3];
	size_t i;
	int upper = 1;

	machine_arch(arch, sizeof(arch));
	machine_opsys(opsys, sizeof(opsys));
	for (i = 0; arch[i] != '\0'; i++)
		if (islower((unsigned char)arch[i]))
			upper = 0;
	CHECK("arch is upper case", upper && arch[0] != '\0');
#if defined(__x86_64__)
	CHECK_STR("arch on x86_64", arch, "X86_64");
#endif
#if defined(__linux__)
	CHECK_STR("opsys on Linux", opsys, "LINUX");
#endif
	machine_arch(tiny, sizeof(tiny));
	CHECK("arch truncates safely", strlen(tiny) == 2);
	CHECK("cpus", machine_ncpus() >= 1);
}

static void
test_disk(void)
{
	long long kib = -1;
	char *path = path_of("nowhere");

	CHECK("disk free of a directory", machine_disk_free(dir, &kib) == 0 &&
	    kib >= 0);
	CHECK("disk free of a missing directory",
	    machine_disk_free(path, &kib) == -1);
	CHECK("disk free of nothing", machine_disk_free(NULL, &kib) == -1);
	free(path);
}

static void
cleanup(void)
{
	static const char *names[] = {
		"loadavg", "nul", "fifo", "big", "meminfo", "uptime", "tty1",
		"tty2", "tty3", "utmp",
	};
	char *path;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		path = path_of(names[i]);
		unlink(path);
		free(path);
	}
	rmdir(dir);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_loadavg();
	test_meminfo();
	test_uptime();
	test_devices();
	test_console_idle();
	test_utmp();
	test_format_idle();
	test_uname();
	test_disk();
	cleanup();
	TEST_EXIT();
}
