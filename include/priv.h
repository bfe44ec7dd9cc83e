/*
 * priv.h: acting as a job's owner.
 *
 * Daemons that run as root (the schedd, the startd, the starter) open a
 * user's files with that user's rights by switching their effective ids
 * around the access, and child processes give up root for good before
 * running anything on a user's behalf.  When the daemon is not root, all
 * of these are no-ops: a personal pool runs everything as its user.
 */
#ifndef CONDOR_PRIV_H
#define CONDOR_PRIV_H

#include <sys/types.h>

/* user_lookup: NAME's uid and gid; -1 if there is no such user. */
int	 user_lookup(const char *name, uid_t *uid, gid_t *gid);
/* user_name: the login name of UID into BUF ("#UID" if unknown). */
char	*user_name(uid_t uid, char *buf, size_t len);

/*
 * priv_as_user: from now on, file access is checked as UID/GID
 * (effective ids and supplementary groups).  priv_restore: back to the
 * daemon's own ids.  They do not nest.  Return 0 or -1 with errno set.
 */
int	 priv_as_user(uid_t uid, gid_t gid);
int	 priv_restore(void);

/*
 * priv_become_user: give up root for good (real, effective and saved
 * ids, supplementary groups of the user).  For a child about to run a
 * shadow or a job.  0 or -1 with errno set.
 */
int	 priv_become_user(uid_t uid, gid_t gid);
/* priv_become_id: the same for an id with no user database entry (a
 * job's dynamic account): its one group is GID, nothing is looked up. */
int	 priv_become_id(uid_t uid, gid_t gid);

#endif
