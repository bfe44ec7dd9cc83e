/*
 * starter_owner.c: a job run as its owner, on a shared file system.
 *
 * Hosts of one UID_DOMAIN share a user database: a user is the same
 * person on each of them.  A job whose UidDomain (its submitting host's
 * UID_DOMAIN, which the schedd wrote in its ad) is this host's runs
 * here as its Owner, as HTCondor runs it, with the owner's groups, when
 * this host's UID_DOMAIN is set in a configuration file (its default,
 * the host's full name, shares nothing, not even with jobs this host
 * submits to itself: unlike HTCondor, whose default does) and a starter
 * running as root can be sure of it: the owner is a user of
 * this machine (the password database), is not root, and is no account
 * the starter hands to anonymous jobs (SLOT_USERS, SLOT_UID_RANGE),
 * whose every process is killed with their jobs.  Unless
 * TRUST_UID_DOMAIN is true, the domain the submitting host claims must
 * be its name, or end it: the name of its shadow's address in the host
 * database.  In every other case the job gets an account of its own as
 * before (starter_box.c).
 *
 * A job run as its owner is not alone in its account: the owner's own
 * processes (a login, other jobs) share it.  So nothing is swept by
 * account: its cgroup, or its PID namespace, is what finds every
 * process it made, and its memory is measured there or by its process
 * group.  It is never root: uid 0 is refused here, and again in the
 * child before exec.
 *
 * Hosts of one FILESYSTEM_DOMAIN share a file system at the same paths.
 * A vanilla job of this host's FILESYSTEM_DOMAIN that runs as its
 * owner, whose ShouldTransferFiles is IF_NEEDED or NO, and whose Iwd is
 * in one of the directories SHARED_FILESYSTEM_DIRS names (by its name and
 * by where it leads, symbolic links followed), transfers no
 * files and runs in its Iwd, as HTCondor runs such a job: those
 * directories are bound into its box (starter_box.c), read-only where
 * marked ":ro", and the kernel checks each access as the owner's.  Its
 * executable, standard input, output and error still travel through its
 * shadow.  Any other job neither sees them nor runs there.
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <pwd.h>
#include <stdio.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ad.h"
#include "config.h"
#include "log.h"
#include "priv.h"
#include "rpcutil.h"
#include "starter.h"
#include "xalloc.h"

/* Whether NAME is DOMAIN or ends in ".DOMAIN" (case aside). */
static int
name_in_domain(const char *name, const char *domain)
{
	size_t n = strlen(name), d = strlen(domain);

	if (d == 0 || n < d)
		return 0;
	if (n == d)
		return strcasecmp(name, domain) == 0;
	return name[n - d - 1] == '.' && strcasecmp(name + n - d, domain) == 0;
}

/*
 * Whether the submitting host, whose shadow is at SHADOW_ADDR, is of
 * DOMAIN: its address's name in the host database is, or ends in, it.
 * The name is asked for, never taken from the job: the shadow's
 * address is the one we reached it at.
 */
static int
submitter_in_domain(const char *shadow_addr, const char *domain,
    char *name, size_t namelen)
{
	struct sockaddr_in sa;

	snprintf(name, namelen, "(unknown)");
	if (shadow_addr == NULL || addr_parse(shadow_addr, &sa) == -1 ||
	    getnameinfo((struct sockaddr *)&sa, sizeof(sa), name,
	    (socklen_t)namelen, NULL, 0, NI_NAMEREQD) != 0)
		return 0;
	return name_in_domain(name, domain);
}

/*
 * OWNER's groups (GID and every group that lists OWNER) into JOB, read
 * here, before the job's box hides the user database's services (a
 * directory service's socket, say).  0, or -1 if they cannot be had.
 */
static int
owner_groups(struct starter_job *job, const char *owner, gid_t gid)
{
	long max = sysconf(_SC_NGROUPS_MAX);
	int n = 64, want;

	if (max <= 0 || max > 65536)
		max = 65536;
	for (;;) {
		job->groups = xreallocarray(job->groups, (size_t)n,
		    sizeof(*job->groups));
		want = n;
		if (getgrouplist(owner, gid, job->groups, &want) != -1) {
			job->ngroups = want;
			return 0;
		}
		if (want <= n || want > max)
			break;
		n = want;
	}
	free(job->groups);
	job->groups = NULL;
	job->ngroups = 0;
	return -1;
}

/* Whether UID (named NAME) is an account anonymous jobs are given. */
static int
slot_account(const char *name, uid_t uid)
{
	const char *users = param("SLOT_USERS");
	const char *range = param("SLOT_UID_RANGE");
	unsigned long lo, hi;
	char *copy, *tok, *save;
	uid_t u;
	gid_t g;
	int found = 0;

	if (users != NULL && *users != '\0') {
		copy = xstrdup(users);
		for (tok = strtok_r(copy, ", \t", &save); tok != NULL &&
		    !found; tok = strtok_r(NULL, ", \t", &save))
			found = strcmp(tok, name) == 0 ||
			    (user_lookup(tok, &u, &g) == 0 && u == uid);
		free(copy);
	}
	if (!found && range != NULL && sscanf(range, " %lu - %lu", &lo,
	    &hi) == 2)
		found = (unsigned long)uid >= lo && (unsigned long)uid <= hi;
	return found;
}

int
owner_account(struct starter_job *job, const char *shadow_addr)
{
	const char *mine, *file;
	char *domain, *owner, host[256];
	struct passwd *pw;
	uid_t uid;
	gid_t gid;
	int line, r = 0;

	job->as_owner = 0;
	/* Only where the machine's owner named the domain: the default
	 * shares nothing, not even with this host's own submitters (as
	 * EXECUTE_USER, a wish to be written down). */
	if (geteuid() != 0 || !config_where("UID_DOMAIN", &file, &line) ||
	    file == NULL || (mine = param("UID_DOMAIN")) == NULL ||
	    *mine == '\0')
		return 0;
	domain = job_string(job, "UidDomain");
	owner = job_string(job, "Owner");
	if (*domain == '\0' || strcasecmp(domain, mine) != 0) {
		log_info("job %d.%d: its UidDomain \"%s\" is not this host's "
		    "(%s): it runs as an account of its own", job->cluster,
		    job->proc, domain, mine);
		goto out;
	}
	if (!param_bool("TRUST_UID_DOMAIN", 0) &&
	    !submitter_in_domain(shadow_addr, domain, host, sizeof(host))) {
		log_info("job %d.%d: its submitting host (%s, named %s) is "
		    "not of the UID_DOMAIN %s it claims (TRUST_UID_DOMAIN is "
		    "false): it runs as an account of its own", job->cluster,
		    job->proc, shadow_addr ? shadow_addr : "", host, domain);
		goto out;
	}
	if (*owner == '\0' || (pw = getpwnam(owner)) == NULL) {
		log_info("job %d.%d: its owner \"%s\" is not a user here: it "
		    "runs as an account of its own", job->cluster, job->proc,
		    owner);
		goto out;
	}
	/* Copied at once: the next lookup (slot_account's) reuses the
	 * entry getpwnam returned. */
	uid = pw->pw_uid;
	gid = pw->pw_gid;
	if (uid == 0) {
		log_info("job %d.%d: its owner %s is root; jobs never run as "
		    "root: it runs as an account of its own", job->cluster,
		    job->proc, owner);
		goto out;
	}
	if (slot_account(owner, uid)) {
		log_info("job %d.%d: its owner %s is an account of SLOT_USERS "
		    "or SLOT_UID_RANGE: it runs as an account of its own",
		    job->cluster, job->proc, owner);
		goto out;
	}
	if (strlen(owner) >= sizeof(job->user)) {
		log_info("job %d.%d: its owner's name is too long: it runs as "
		    "an account of its own", job->cluster, job->proc);
		goto out;
	}
	if (owner_groups(job, owner, gid) == -1) {
		log_info("job %d.%d: the groups of its owner %s cannot be "
		    "had: it runs as an account of its own", job->cluster,
		    job->proc, owner);
		goto out;
	}
	job->uid = uid;
	job->gid = gid;
	job->no_pw = 0;
	job->dedicated = 0;
	job->account_fd = -1;
	snprintf(job->user, sizeof(job->user), "%s", owner);
	job->as_owner = 1;
	log_info("job %d.%d runs as its owner %s (uid %u, %d groups): "
	    "UID_DOMAIN %s", job->cluster, job->proc, job->user,
	    (unsigned)job->uid, job->ngroups, domain);
	r = 1;
out:
	free(domain);
	free(owner);
	return r;
}

/* Whether PATH is DIR or below it (DIR without its trailing '/'s). */
static int
path_below(const char *path, const char *dir, size_t dlen)
{
	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;
	if (dlen == 1 && dir[0] == '/')
		return 1;
	return strncmp(path, dir, dlen) == 0 &&
	    (path[dlen] == '\0' || path[dlen] == '/');
}

int
owner_shared_dir_next(char **cursor, char *buf, size_t len, int *ro)
{
	char *p = *cursor, *end;
	size_t n;

	for (;;) {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		if (*p == '\0') {
			*cursor = p;
			return 0;
		}
		end = p + strcspn(p, ", \t\n");
		n = (size_t)(end - p);
		*ro = n > 3 && strncmp(end - 3, ":ro", 3) == 0;
		if (*ro)
			n -= 3;
		if (n > 0 && n < len && p[0] == '/') {
			memcpy(buf, p, n);
			buf[n] = '\0';
			if (strstr(buf, "..") == NULL) {
				*cursor = end;
				return 1;
			}
		}
		log_warnx("SHARED_FILESYSTEM_DIRS: \"%.*s\" is not an "
		    "absolute directory name; passed over", (int)(end - p),
		    p);
		p = end;
	}
}

int
owner_shared_fs(struct starter_job *job)
{
	const char *mine = param("FILESYSTEM_DOMAIN");
	const char *dirs = param("SHARED_FILESYSTEM_DIRS");
	char *domain, *should, *iwd, *copy, *cur, dir[PATH_MAX];
	char real[PATH_MAX];
	int ro, found = 0;

	job->shared_fs = 0;
	if (!job->as_owner || strcasecmp(job->universe, "vanilla") != 0 ||
	    mine == NULL || *mine == '\0')
		return 0;
	domain = job_string(job, "FileSystemDomain");
	should = job_string(job, "ShouldTransferFiles");
	iwd = job_string(job, "Iwd");
	if (*domain == '\0' || strcasecmp(domain, mine) != 0) {
		log_info("job %d.%d: its FileSystemDomain \"%s\" is not this "
		    "host's (%s): its files are transferred", job->cluster,
		    job->proc, domain, mine);
		goto out;
	}
	if (strcasecmp(should, "YES") == 0) {
		log_info("job %d.%d: should_transfer_files = YES: its files "
		    "are transferred", job->cluster, job->proc);
		goto out;
	}
	if (iwd[0] != '/' || strstr(iwd, "/..") != NULL) {
		log_info("job %d.%d: its Iwd \"%s\" is not an absolute name: "
		    "its files are transferred", job->cluster, job->proc, iwd);
		goto out;
	}
	/* Its name, and where it leads (a symbolic link on the way to a
	 * directory the box will not have would leave the job nowhere). */
	if (realpath(iwd, real) == NULL) {
		log_info("job %d.%d: its Iwd %s is not here (%s): its files "
		    "are transferred", job->cluster, job->proc, iwd,
		    strerror(errno));
		goto out;
	}
	cur = copy = xstrdup(dirs != NULL ? dirs : "");
	while (found != 3 && owner_shared_dir_next(&cur, dir, sizeof(dir),
	    &ro)) {
		if (path_below(iwd, dir, strlen(dir)))
			found |= 1;
		if (path_below(real, dir, strlen(dir)))
			found |= 2;
	}
	free(copy);
	if (found != 3) {
		log_info("job %d.%d: its Iwd %s%s%s is in none of "
		    "SHARED_FILESYSTEM_DIRS: its files are transferred",
		    job->cluster, job->proc, iwd, found == 1 ? ", which is " :
		    "", found == 1 ? real : "");
		goto out;
	}
	job->shared_fs = 1;
	job->iwd = iwd;
	iwd = NULL;
	log_info("job %d.%d: FILESYSTEM_DOMAIN %s: no files transferred; it "
	    "runs in its Iwd %s, SHARED_FILESYSTEM_DIRS in its box",
	    job->cluster, job->proc, domain, job->iwd);
out:
	free(domain);
	free(should);
	free(iwd);
	return job->shared_fs;
}
