/*
 * starter_owner_test.c: who a job runs as and whether it uses the
 * shared file system (src/starter/starter_owner.c): the list of
 * SHARED_FILESYSTEM_DIRS, the shared file system's conditions (its
 * domain, should_transfer_files, its Iwd below a listed directory, a
 * vanilla job run as its owner), and, as root, the owner's account
 * (UID_DOMAIN set in a file, the owner a user here, never root, never a
 * slot account; the submitting host's name when TRUST_UID_DOMAIN is
 * false).
 *
 * checks: 34
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <netdb.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "config.h"
#include "starter.h"
#include "test.h"
#include "xalloc.h"

/* starter_job.c's, which the module uses: the ad's string or "". */
char *
job_string(const struct starter_job *job, const char *name)
{
	char *s;

	if (ad_get_string(job->ad, name, &s) == -1)
		return xstrdup("");
	return s;
}

static char	tmpdir[] = "/tmp/starter_owner_test.XXXXXX";

/* A configuration file of TEXT, read as the whole configuration. */
static void
config_from(const char *text)
{
	char path[256], err[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/condor_config", tmpdir);
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) == EOF ||
	    fclose(f) == EOF) {
		printf("FAIL cannot write %s\n", path);
		exit(1);
	}
	setenv("CONDOR_CONFIG", path, 1);
	if (config_init(err, sizeof(err)) == -1) {
		printf("FAIL config: %s\n", err);
		exit(1);
	}
}

/* A job of UNIVERSE whose ad has the attributes of TEXT ("A = v;..."). */
static void
job_make(struct starter_job *job, const char *universe, const char *text)
{
	struct ad *ads[1];
	char err[256], *t = xstrdup(text), *p;

	for (p = t; *p != '\0'; p++)
		if (*p == ';')
			*p = '\n';
	memset(job, 0, sizeof(*job));
	job->account_fd = -1;
	job->cluster = 1;
	job->universe = xstrdup(universe);
	if (ad_parse_text(t, ads, 1, err, sizeof(err)) != 1) {
		printf("FAIL job ad %s: %s\n", text, err);
		exit(1);
	}
	job->ad = ads[0];
	free(t);
}

static void
job_free(struct starter_job *job)
{
	ad_free(job->ad);
	free(job->universe);
	free(job->iwd);
	free(job->groups);
}

static void
test_dir_list(void)
{
	char list[] = "/data, /stash:ro  relative,/a/../etc\t/b/:ro ,, /x:rw";
	char *cur = list, buf[256];
	int ro, n;

	n = owner_shared_dir_next(&cur, buf, sizeof(buf), &ro);
	CHECK("dirs: the first, read-write", n == 1 &&
	    strcmp(buf, "/data") == 0 && !ro);
	n = owner_shared_dir_next(&cur, buf, sizeof(buf), &ro);
	CHECK("dirs: :ro is read-only", n == 1 && strcmp(buf, "/stash") == 0
	    && ro);
	n = owner_shared_dir_next(&cur, buf, sizeof(buf), &ro);
	CHECK("dirs: relative and .. names passed over", n == 1 &&
	    strcmp(buf, "/b/") == 0 && ro);
	n = owner_shared_dir_next(&cur, buf, sizeof(buf), &ro);
	CHECK("dirs: any other suffix is part of the name", n == 1 &&
	    strcmp(buf, "/x:rw") == 0 && !ro);
	CHECK("dirs: the end", owner_shared_dir_next(&cur, buf, sizeof(buf),
	    &ro) == 0);
}

/* "@" in the cases is the test's directory. */
static const struct {
	const char	*name;
	const char	*universe;
	int		 as_owner;
	const char	*fsd, *should, *iwd;
	int		 shared;
} fs_cases[] = {
	{ "fs: same domain, IF_NEEDED, Iwd below a listed directory",
	    "vanilla", 1, "fs.test", "IF_NEEDED", "@/data/u/run", 1 },
	{ "fs: NO, Iwd a read-only directory itself", "vanilla", 1,
	    "FS.Test", "NO", "@/stash", 1 },
	{ "fs: YES always transfers", "vanilla", 1, "fs.test", "YES",
	    "@/data/u", 0 },
	{ "fs: another domain transfers", "vanilla", 1, "other.test",
	    "IF_NEEDED", "@/data/u", 0 },
	{ "fs: no domain in the ad transfers", "vanilla", 1, NULL,
	    "IF_NEEDED", "@/data/u", 0 },
	{ "fs: /database is not below /data", "vanilla", 1, "fs.test",
	    "IF_NEEDED", "@/database/u", 0 },
	{ "fs: an Iwd in no listed directory", "vanilla", 1, "fs.test",
	    "IF_NEEDED", "@/home/u", 0 },
	{ "fs: an Iwd with .. in it", "vanilla", 1, "fs.test", "IF_NEEDED",
	    "@/data/../home/u", 0 },
	{ "fs: an Iwd whose link leads out of the listed directories",
	    "vanilla", 1, "fs.test", "IF_NEEDED", "@/data/link", 0 },
	{ "fs: an Iwd that is not here", "vanilla", 1, "fs.test",
	    "IF_NEEDED", "@/data/missing", 0 },
	{ "fs: a relative Iwd", "vanilla", 1, "fs.test", "IF_NEEDED",
	    "data/u", 0 },
	{ "fs: not run as its owner", "vanilla", 0, "fs.test", "IF_NEEDED",
	    "@/data/u", 0 },
	{ "fs: a standard job never", "standard", 1, "fs.test", "IF_NEEDED",
	    "@/data/u", 0 },
};

/* The test's directory, with the shared file system's directories. */
static void
fs_tree(void)
{
	static const char *const dirs[] = { "data", "data/u", "data/u/run",
	    "stash", "database", "database/u", "home", "home/u", NULL };
	char path[512], to[512];
	size_t i;

	for (i = 0; dirs[i] != NULL; i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, dirs[i]);
		if (mkdir(path, 0755) == -1) {
			printf("FAIL mkdir %s\n", path);
			exit(1);
		}
	}
	snprintf(path, sizeof(path), "%s/data/link", tmpdir);
	snprintf(to, sizeof(to), "%s/home/u", tmpdir);
	if (symlink(to, path) == -1) {
		printf("FAIL symlink %s\n", path);
		exit(1);
	}
}

/* TEXT with "@" as the test's directory. */
static char *
at_tmp(const char *text)
{
	struct buf b;
	const char *p;

	buf_init(&b);
	for (p = text; *p != '\0'; p++)
		if (*p == '@')
			buf_adds(&b, tmpdir);
		else
			buf_addc(&b, *p);
	return buf_take(&b);
}

static void
test_shared_fs(void)
{
	struct starter_job job;
	char *text, *iwd, *conf;
	size_t i;
	int r;

	fs_tree();
	conf = at_tmp("FILESYSTEM_DOMAIN = fs.test\n"
	    "SHARED_FILESYSTEM_DIRS = @/data, @/stash:ro, relative\n");
	config_from(conf);
	free(conf);
	for (i = 0; i < sizeof(fs_cases) / sizeof(fs_cases[0]); i++) {
		iwd = at_tmp(fs_cases[i].iwd);
		if (fs_cases[i].fsd != NULL)
			text = xasprintf("FileSystemDomain = \"%s\"; "
			    "ShouldTransferFiles = \"%s\"; Iwd = \"%s\"",
			    fs_cases[i].fsd, fs_cases[i].should, iwd);
		else
			text = xasprintf("ShouldTransferFiles = \"%s\"; "
			    "Iwd = \"%s\"", fs_cases[i].should, iwd);
		job_make(&job, fs_cases[i].universe, text);
		job.as_owner = fs_cases[i].as_owner;
		r = owner_shared_fs(&job);
		CHECK(fs_cases[i].name, r == fs_cases[i].shared &&
		    job.shared_fs == r && (r == 0 ? job.iwd == NULL :
		    job.iwd != NULL && strcmp(job.iwd, iwd) == 0));
		job_free(&job);
		free(text);
		free(iwd);
	}
}

/* owner_account for a job of OWNER from DOMAIN, shadow at ADDR: its
 * result, with JOB filled. */
static int
account(struct starter_job *job, const char *owner, const char *domain,
    const char *addr)
{
	char text[512];

	snprintf(text, sizeof(text), "Owner = \"%s\"; UidDomain = \"%s\"",
	    owner, domain);
	job_make(job, "vanilla", text);
	return owner_account(job, addr);
}

static void
test_account(void)
{
	struct starter_job job;
	struct sockaddr_in sa;
	struct passwd *pw;
	char host[256], text[512];
	const char *name = "test_account";
	uid_t nobody;
	gid_t nobody_gid;
	int r, i;

	if (geteuid() != 0 || getpwnam("daemon") == NULL ||
	    (pw = getpwnam("nobody")) == NULL) {
		for (i = 0; i < 16; i++)
			SKIP(name, "needs root and users nobody and daemon");
		return;
	}
	nobody = pw->pw_uid;
	nobody_gid = pw->pw_gid;
	config_from("UID_DOMAIN = uid.test\nTRUST_UID_DOMAIN = True\n"
	    "SLOT_USERS = daemon\n");
	r = account(&job, "nobody", "uid.test", "<127.0.0.1:9>");
	CHECK("account: a user here, same domain: its owner", r == 1 &&
	    job.as_owner && job.uid == nobody && job.gid == nobody_gid &&
	    strcmp(job.user, "nobody") == 0 && job.ngroups >= 1 &&
	    job.groups[0] == nobody_gid);
	CHECK("account: ... shared with its owner: no lock, no sweep",
	    job.account_fd == -1 && !job.dedicated && !job.no_pw);
	job_free(&job);
	r = account(&job, "nobody", "UID.Test", "<127.0.0.1:9>");
	CHECK("account: the domain's case does not matter", r == 1);
	job_free(&job);
	r = account(&job, "root", "uid.test", "<127.0.0.1:9>");
	CHECK("account: never root", r == 0 && !job.as_owner && job.uid == 0);
	job_free(&job);
	r = account(&job, "no_such_user_sfs", "uid.test", "<127.0.0.1:9>");
	CHECK("account: an owner unknown here", r == 0 && !job.as_owner);
	job_free(&job);
	r = account(&job, "daemon", "uid.test", "<127.0.0.1:9>");
	CHECK("account: an owner that is a slot account", r == 0);
	job_free(&job);
	r = account(&job, "nobody", "other.test", "<127.0.0.1:9>");
	CHECK("account: another domain", r == 0);
	job_free(&job);
	r = account(&job, "nobody", "", "<127.0.0.1:9>");
	CHECK("account: no domain in the ad", r == 0);
	job_free(&job);

	/* The uid of a SLOT_UID_RANGE: nobody's own. */
	snprintf(text, sizeof(text), "UID_DOMAIN = uid.test\n"
	    "TRUST_UID_DOMAIN = True\nSLOT_UID_RANGE = %u-%u\n",
	    (unsigned)nobody, (unsigned)nobody);
	config_from(text);
	r = account(&job, "nobody", "uid.test", "<127.0.0.1:9>");
	CHECK("account: an owner whose uid is of SLOT_UID_RANGE", r == 0);
	job_free(&job);

	/* The default domain shares nothing, even when it is the job's. */
	config_from("TRUST_UID_DOMAIN = True\n");
	r = account(&job, "nobody", param("UID_DOMAIN"), "<127.0.0.1:9>");
	CHECK("account: UID_DOMAIN left to its default shares nothing",
	    r == 0);
	job_free(&job);

	/* Without TRUST_UID_DOMAIN: the name of the shadow's address. */
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (getnameinfo((struct sockaddr *)&sa, sizeof(sa), host,
	    sizeof(host), NULL, 0, NI_NAMEREQD) != 0) {
		for (i = 0; i < 6; i++)
			SKIP(name, "127.0.0.1 has no name here");
		return;
	}
	config_from("UID_DOMAIN = uid.test\n");
	r = account(&job, "nobody", "uid.test", "<127.0.0.1:9>");
	CHECK("account: untrusted, the submitter's name not of the domain",
	    r == 0);
	job_free(&job);
	r = account(&job, "nobody", "uid.test", "garbage");
	CHECK("account: untrusted, no address", r == 0);
	job_free(&job);
	snprintf(text, sizeof(text), "UID_DOMAIN = %s\n", host);
	config_from(text);
	r = account(&job, "nobody", host, "<127.0.0.1:9>");
	CHECK("account: untrusted, the submitter's name is the domain",
	    r == 1 && job.uid == nobody);
	job_free(&job);
	snprintf(text, sizeof(text), "UID_DOMAIN = cs.%s\n", host);
	config_from(text);
	snprintf(text, sizeof(text), "cs.%s", host);
	r = account(&job, "nobody", text, "<127.0.0.1:9>");
	CHECK("account: untrusted, a longer domain than the name", r == 0);
	job_free(&job);
	if (strchr(host, '.') != NULL) {
		snprintf(text, sizeof(text), "UID_DOMAIN = %s\n",
		    strchr(host, '.') + 1);
		config_from(text);
		r = account(&job, "nobody", strchr(host, '.') + 1,
		    "<127.0.0.1:9>");
		CHECK("account: untrusted, the name ends in .domain", r == 1);
		job_free(&job);
	} else
		SKIP("account: untrusted, the name ends in .domain",
		    "the name of 127.0.0.1 has no dot");
	/* The tail of the name but not at a dot. */
	if (strlen(host) > 1) {
		snprintf(text, sizeof(text), "UID_DOMAIN = %s\n", host + 1);
		config_from(text);
		r = account(&job, "nobody", host + 1, "<127.0.0.1:9>");
		CHECK("account: untrusted, a tail not at a dot is no domain",
		    r == 0);
		job_free(&job);
	} else
		SKIP("account: untrusted, a tail not at a dot is no domain",
		    "the name of 127.0.0.1 is one letter");
}

int
main(void)
{
	char cmd[128];
	int r;

	if (mkdtemp(tmpdir) == NULL) {
		printf("FAIL mkdtemp\n");
		return 1;
	}
	test_dir_list();
	test_shared_fs();
	test_account();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("(could not remove %s)\n", tmpdir);
	r = test_failures;
	return r ? 1 : 0;
}
