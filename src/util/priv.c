/*
 * priv.c: acting as a job's owner (see priv.h).
 */
#include <sys/types.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "priv.h"

int
user_lookup(const char *name, uid_t *uid, gid_t *gid)
{
	struct passwd *pw;

	if (name == NULL || (pw = getpwnam(name)) == NULL)
		return -1;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

char *
user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(uid);

	if (pw != NULL)
		snprintf(buf, len, "%s", pw->pw_name);
	else
		snprintf(buf, len, "#%u", (unsigned)uid);
	return buf;
}

/* The user's supplementary groups; best effort. */
static int
set_user_groups(uid_t uid, gid_t gid)
{
	struct passwd *pw = getpwuid(uid);

	if (pw != NULL)
		return initgroups(pw->pw_name, gid);
	return setgroups(1, &gid);
}

int
priv_as_user(uid_t uid, gid_t gid)
{
	if (getuid() != 0)
		return 0;
	if (set_user_groups(uid, gid) == -1 || setegid(gid) == -1 ||
	    seteuid(uid) == -1) {
		int saved = errno;

		priv_restore();
		errno = saved;
		return -1;
	}
	return 0;
}

int
priv_restore(void)
{
	if (getuid() != 0)
		return 0;
	if (seteuid(0) == -1 || setegid(0) == -1 || setgroups(0, NULL) == -1)
		panic("cannot return to root: %s", strerror(errno));
	return 0;
}

static int
become(uid_t uid, gid_t gid, int lookup)
{
	if (geteuid() != 0 && getuid() != 0)
		return 0;
	if (getuid() == 0 && geteuid() != 0 && seteuid(0) == -1)
		return -1;
	if ((lookup ? set_user_groups(uid, gid) : setgroups(1, &gid)) == -1 ||
	    setresgid(gid, gid, gid) == -1 || setresuid(uid, uid, uid) == -1)
		return -1;
	return 0;
}

int
priv_become_user(uid_t uid, gid_t gid)
{
	return become(uid, gid, 1);
}

int
priv_become_id(uid_t uid, gid_t gid)
{
	return become(uid, gid, 0);
}
