/*
 * queue_log.h: the schedd's durable job queue, an append-only transaction
 * log ($(SPOOL)/job_queue.log) and the live state it describes.
 *
 * The state is a table of ads keyed by (cluster, proc); proc -1 is a
 * cluster's shared ad, which the schedd merges under each proc's own ad.
 * A counter (the next cluster id) lives beside them.  Every change is
 * made inside a transaction: qlog_begin, then any number of qlog_new_ad,
 * qlog_set, qlog_delete, qlog_destroy and qlog_set_counter, then
 * qlog_commit, which appends the whole transaction to the file, fsyncs
 * it (when asked to) and only then applies it to the table.  Readers see
 * committed state only.
 *
 * The file is text, one record per line:
 *
 *	B				begin
 *	C <n>				the next cluster id is n
 *	N <cluster> <proc>		a new, empty ad
 *	S <cluster> <proc> <name> <text> set an attribute (expression text,
 *					with \\ \n \r \t \xHH escapes)
 *	D <cluster> <proc> <name>	delete an attribute
 *	X <cluster> <proc>		destroy an ad
 *	E <crc32>			commit: CRC-32 (IEEE, 8 hex digits)
 *					of every byte from B to here
 *	# ...				a comment (between transactions)
 *
 * Replay applies each transaction whose E line is complete and whose
 * checksum holds; it stops at the first line that is torn, malformed or
 * out of place, drops the open transaction and everything after it (with
 * a warning naming the line), and truncates the file there so that new
 * transactions follow the last good one.  Nothing in the file can crash
 * it: lines are bounded, numbers range-checked, names validated.
 *
 * Compaction writes the live state to <path>.tmp, fsyncs it, renames it
 * over the log and fsyncs the directory: a crash at any moment leaves
 * either the old log or the new one, both complete.
 */
#ifndef CONDOR_QUEUE_LOG_H
#define CONDOR_QUEUE_LOG_H

#include <stddef.h>

struct ad;
struct qlog;
struct qlog_entry;

#define QLOG_MAX_LINE	(256 * 1024)	/* bytes in one record */

/* What replay found: for the caller's log and for the tests. */
struct qlog_stats {
	long long	transactions;	/* committed ones applied */
	long long	dropped_bytes;	/* cut from the tail */
	long long	bad_line;	/* the first bad line, or 0 */
	long long	skipped_ops;	/* records that did not apply */
};

/*
 * qlog_open: open (creating if needed, mode 0600) the log at PATH and
 * replay it.  Returns the queue, or NULL with a message in ERR when the
 * file cannot be opened, read or repaired; a damaged tail is not an
 * error (it is cut, and the stats and the log say so).
 */
struct qlog	*qlog_open(const char *path, char *err, size_t errlen);
void		 qlog_close(struct qlog *);
const struct qlog_stats *qlog_replay_stats(const struct qlog *);

/*
 * Transactions.  qlog_begin starts one (a transaction already open is
 * aborted first).  The calls that take text validate it at once: -1 with
 * a message in ERR if NAME is not an attribute name or TEXT does not
 * parse; the transaction stays open and the bad change is not recorded.
 * qlog_new_ad_from takes AD over (NULL: an empty ad); its attributes are
 * recorded as if set one by one, without being parsed again.
 * Changes to an ad that does not exist when the transaction is applied
 * are ignored (with a warning).
 */
void	 qlog_begin(struct qlog *);
void	 qlog_new_ad(struct qlog *, int cluster, int proc);
void	 qlog_new_ad_from(struct qlog *, int cluster, int proc,
	    struct ad *ad);
int	 qlog_set(struct qlog *, int cluster, int proc, const char *name,
	    const char *text, char *err, size_t errlen);
void	 qlog_set_int(struct qlog *, int cluster, int proc,
	    const char *name, long long value);
void	 qlog_set_real(struct qlog *, int cluster, int proc,
	    const char *name, double value);
void	 qlog_set_string(struct qlog *, int cluster, int proc,
	    const char *name, const char *value);
void	 qlog_delete(struct qlog *, int cluster, int proc,
	    const char *name);
void	 qlog_destroy(struct qlog *, int cluster, int proc);
void	 qlog_set_counter(struct qlog *, int next_cluster);
/* Changes recorded in the open transaction (0: nothing to commit). */
size_t	 qlog_pending(const struct qlog *);

/*
 * qlog_commit: write the open transaction, fsync the log if DURABLE
 * (otherwise a later durable commit covers it; a crash of the process
 * alone loses nothing written), then apply it.  Returns 0, or -1 with
 * errno set when it could not be written: then nothing was applied, the
 * file was cut back to where it was, and the transaction is closed.
 * Committing an empty transaction writes nothing.
 * qlog_abort: forget the open transaction.
 */
int	 qlog_commit(struct qlog *, int durable);
void	 qlog_abort(struct qlog *);
/* qlog_sync: fsync whatever non-durable commits wrote.  0 or -1. */
int	 qlog_sync(struct qlog *);
/*
 * Group commit.  With qlog_set_group on, a durable commit is written
 * and applied as before but not synced: qlog_sync_wanted says one
 * waits, and the caller's one qlog_sync covers every commit written
 * since, however many (the schedd syncs once per turn of its loop and
 * answers the requests only then).  A crash of the process alone still
 * loses nothing written; a crash of the machine loses at most what was
 * never answered.  qlog_syncs, qlog_commits: fdatasyncs done and
 * transactions written since the log was opened.
 */
void	 qlog_set_group(struct qlog *, int on);
int	 qlog_sync_wanted(const struct qlog *);
long long qlog_syncs(const struct qlog *);
long long qlog_commits(const struct qlog *);

/* Reading the committed state. */
const struct ad	*qlog_ad(const struct qlog *, int cluster, int proc);
int		 qlog_counter(const struct qlog *);
/* Ads in the queue, cluster ads included. */
size_t		 qlog_count(const struct qlog *);
/*
 * qlog_first, qlog_next: every ad in creation order (which is cluster,
 * proc order for the schedd); NULL at the end.  Do not commit while
 * walking.
 */
const struct qlog_entry *qlog_first(const struct qlog *);
/* qlog_entry_find: the entry of ad CLUSTER.PROC, or NULL. */
const struct qlog_entry *qlog_entry_find(const struct qlog *, int cluster,
	    int proc);
const struct qlog_entry *qlog_next(const struct qlog_entry *);
int		 qlog_entry_cluster(const struct qlog_entry *);
int		 qlog_entry_proc(const struct qlog_entry *);
const struct ad	*qlog_entry_ad(const struct qlog_entry *);

/*
 * Compaction.  qlog_should_compact: whether the file has grown past
 * RATIO times the estimated size of the live state (and past a small
 * floor).  qlog_compact: rewrite it now; 0, or -1 with errno set, the
 * old log intact.  qlog_file_size: bytes in the log file now.
 */
int		 qlog_should_compact(const struct qlog *, double ratio);
int		 qlog_compact(struct qlog *);
long long	 qlog_file_size(const struct qlog *);

/* qlog_crc32: CRC-32 (IEEE 802.3) of N bytes, continuing from CRC. */
unsigned	 qlog_crc32(unsigned crc, const void *data, size_t n);

#endif
