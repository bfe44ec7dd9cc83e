/*
 * machine.h: looking at this machine, for the startd's ad.
 *
 * Each function reads one source (uname, a /proc file, utmp, a device's
 * times) and treats whatever it finds there as untrusted: a missing,
 * empty, truncated or garbled file gives an error, never a crash or an
 * absurd value.  None of them logs; the caller decides what to say.
 */
#ifndef CONDOR_MACHINE_H
#define CONDOR_MACHINE_H

#include <stddef.h>
#include <time.h>

struct buf;

#define MACHINE_MAX_FILE	65536	/* bytes read of one /proc file */
#define MACHINE_MAX_DEVICES	1024	/* console devices examined */
#define MACHINE_MAX_LOAD	1e6	/* a larger load is garbage */

/*
 * machine_arch: the architecture as Condor names it ("X86_64" for
 * x86_64, "INTEL" for i386..i686, otherwise uname's machine in upper
 * case).  machine_opsys: the system ("LINUX"), uname's sysname in upper
 * case.  Both write at most LEN bytes, NUL included, and give "UNKNOWN"
 * if uname fails.
 */
void	machine_arch(char *buf, size_t len);
void	machine_opsys(char *buf, size_t len);

/* machine_ncpus: processors online, at least 1. */
int	machine_ncpus(void);

/*
 * machine_read_file: read at most MACHINE_MAX_FILE - 1 bytes of PATH into
 * a fresh NUL-terminated string (caller frees).  Never blocks on a FIFO
 * or device.  NULL with errno set on failure; a file holding a NUL byte
 * gives EINVAL.
 */
char	*machine_read_file(const char *path);

/*
 * machine_read_loadavg: the first field of PATH (the format of
 * /proc/loadavg: "0.52 0.58 0.59 1/467 12345").  0, or -1 with a message
 * in ERR if the file cannot be read or its first field is not a number
 * in [0, MACHINE_MAX_LOAD].
 */
int	machine_read_loadavg(const char *path, double *load, char *err,
	    size_t errlen);

/*
 * machine_read_meminfo: from PATH in the format of /proc/meminfo,
 * TOTAL_KIB = MemTotal, and VIRTUAL_KIB = the free memory (MemAvailable,
 * or MemFree on kernels without it) plus SwapFree (0 if absent), in KiB.
 * 0, or -1 with a message in ERR.
 */
int	machine_read_meminfo(const char *path, long long *total_kib,
	    long long *virtual_kib, char *err, size_t errlen);

/*
 * machine_read_uptime: seconds since boot, the first field of PATH in
 * the format of /proc/uptime.  0, or -1 with a message in ERR.
 */
int	machine_read_uptime(const char *path, double *secs, char *err,
	    size_t errlen);

/*
 * machine_disk_free: KiB available to unprivileged users in the file
 * system holding DIR.  0, or -1 with errno set.
 */
int	machine_disk_free(const char *dir, long long *kib);

/*
 * machine_parse_devices: split a CONSOLE_DEVICES value (names separated
 * by commas or white space) into paths; a name not starting with '/' is
 * taken under /dev ("tty1" is /dev/tty1).  At most MACHINE_MAX_DEVICES
 * are kept.  *PATHS is allocated (free with machine_free_list); returns
 * how many.
 */
size_t	machine_parse_devices(const char *value, char ***paths);

/*
 * machine_utmp_devices: /dev/<line> of every USER_PROCESS entry in the
 * utmp file UTMP (NULL: the system's), each once: the terminals and
 * pseudo-terminals in use.  Lines that are empty or would leave /dev
 * ("..") are skipped.  Returns how many; *PATHS as above.
 */
size_t	machine_utmp_devices(const char *utmp, char ***paths);

void	machine_free_list(char **paths, size_t n);

/*
 * machine_device_time: the later of PATH's access and modification
 * times.  0, or -1 with errno set.
 */
int	machine_device_time(const char *path, time_t *when);

/*
 * machine_console_idle: seconds from the latest use (access or
 * modification) of any of the N PATHS to NOW, never negative (a time in
 * the future counts as now).  -1 if no path could be examined.  When
 * MISSING is not NULL, the paths that could not be examined are appended
 * to it, separated by spaces.
 */
long long machine_console_idle(char *const *paths, size_t n, time_t now,
	    struct buf *missing);

/*
 * machine_format_idle: SECS as "HH:MM", or "Dd+HH:MM" from a day on
 * (condor_status's Idle column); "?" if SECS is negative.
 */
void	machine_format_idle(long long secs, char *buf, size_t len);

#endif
