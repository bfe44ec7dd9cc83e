/*
 * poolhist.h: the collector's pool history, a bounded file of samples
 * of the pool's machines by state (condor_collector writes it,
 * condor_summary shows it through COLLECTOR_HISTORY).
 *
 * A sample is one text line:
 *
 *	1 TIME TOTAL OWNER IDLE CLAIMED SUSPENDED VACATING KILLING OTHER
 *	    [USER=N ...]
 *
 * "1" is the format's version, TIME seconds since the epoch, the next
 * eight counts of machine ads (the states add up to TOTAL), then up to
 * COLLECTOR_SAMPLE_USERS submitters with the machines each had claimed.
 * A line is appended with one write(2); a line that does not end in a
 * newline (torn by a crash) or does not parse is skipped by readers.
 * When the file would grow past its cap it is renamed to FILE.old and
 * a new one begun (copied there and emptied, if the writer may not
 * write the directory), so the history takes at most twice the cap.
 */
#ifndef CONDOR_POOLHIST_H
#define CONDOR_POOLHIST_H

#include <stddef.h>
#include <sys/types.h>

#include "collector_rpc.h"

struct buf;

/* Indexes into pool_sample_x.states. */
enum poolhist_state {
	POOLHIST_OWNER,
	POOLHIST_IDLE,
	POOLHIST_CLAIMED,
	POOLHIST_SUSPENDED,
	POOLHIST_VACATING,
	POOLHIST_KILLING,
	POOLHIST_OTHER,
};

#define POOLHIST_VERSION	1
#define POOLHIST_LINE_MAX	1024		/* bytes in one record */
#define POOLHIST_MAX_BYTES	(4 * 1024 * 1024) /* default file cap */

/* poolhist_state_name: "Owner", ... "Other" for an index. */
const char *poolhist_state_name(int state);

/*
 * poolhist_count_machine: count one machine ad, in STATE (its State
 * attribute; NULL or unknown: other), claimed by USER (RemoteUser, NULL
 * if none), into S.  Users beyond COLLECTOR_SAMPLE_USERS are not
 * named; names are cut to fit and characters outside [A-Za-z0-9@._-]
 * become '_'.
 */
void	 poolhist_count_machine(pool_sample_x *s, const char *state,
	    const char *user);

/* poolhist_format: S as a record, with its newline, onto OUT. */
void	 poolhist_format(const pool_sample_x *s, struct buf *out);

/*
 * poolhist_parse_line: read the record LINE (LEN bytes, without the
 * newline) into S (free with poolhist_sample_free).  Returns 0, or -1
 * if it is not a whole, consistent record (S is then empty).
 */
int	 poolhist_parse_line(const char *line, size_t len, pool_sample_x *s);
void	 poolhist_sample_free(pool_sample_x *s);

/*
 * poolhist_parse_text: the records of TEXT (LEN bytes) whose time is in
 * [SINCE, UNTIL] (UNTIL 0: no end), appended to *SAMPLES / *N (an array
 * the caller frees with poolhist_samples_free).  A last line without a
 * newline, and lines that do not parse, are counted in *SKIPPED (if not
 * NULL) and left out.
 */
void	 poolhist_parse_text(const char *text, size_t len, long long since,
	    long long until, pool_sample_x **samples, size_t *n,
	    size_t *skipped);
void	 poolhist_samples_free(pool_sample_x *samples, size_t n);

/*
 * poolhist_thin: keep at most MAX of the N samples, chosen evenly
 * (the first and last always); the others are freed.  Returns the new
 * count.
 */
size_t	 poolhist_thin(pool_sample_x *samples, size_t n, size_t max);

/*
 * poolhist_append: append S to the file PATH, first cutting a torn
 * last record (poolhist_repair) and moving PATH to PATH.old if the
 * record would take it past MAXBYTES.  Returns 0, or -1 with errno set
 * (a short write is undone).
 */
int	 poolhist_append(const char *path, const pool_sample_x *s,
	    off_t maxbytes);

/*
 * poolhist_repair: cut a torn last record (a crash in a write) off
 * PATH, so that the next one starts on a clean line.  0, or -1 with
 * errno set; a missing file is fine.
 */
int	 poolhist_repair(const char *path);

/*
 * poolhist_read: the samples of PATH.old, then PATH, in [SINCE, UNTIL]
 * (see poolhist_parse_text).  Missing files hold nothing.  Returns 0,
 * or -1 with errno set if a file could not be read.
 */
int	 poolhist_read(const char *path, long long since, long long until,
	    pool_sample_x **samples, size_t *n, size_t *skipped);

/*
 * poolhist_fetch: ask the collector at COLLECTOR_HOST for its samples
 * in [SINCE, UNTIL] (UNTIL 0: up to now), at most MAX of them, into RES
 * (free it with xdr_free(xdr_collector_history_res_x)).  Returns 0, or
 * -1 with a message in ERR (also when the collector refused).
 */
int	 poolhist_fetch(long long since, long long until, int max,
	    collector_history_res_x *res, char *err, size_t errlen);

#endif
