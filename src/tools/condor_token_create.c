/*
 * condor_token_create: make a token that lets IDENTITY call the pool's
 * daemons from any host, signed with the pool key (so only whoever may
 * read SEC_POOL_KEY_FILE, the pool's administrator, can make one).  See
 * condor_token_create(1) and condor_security(7).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "config.h"
#include "daemon.h"
#include "log.h"
#include "xalloc.h"

static int
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: condor_token_create -identity NAME [-lifetime SECONDS]\n"
	    "                           [-token FILE]\n"
	    "  Makes a token for NAME, signed with the pool key, and prints\n"
	    "  it, or writes it to FILE (mode 0600; a FILE without a slash\n"
	    "  goes into ~/.condor/tokens.d, where the commands look).\n"
	    "  -lifetime  seconds it stays valid (default ten years)\n");
	return fp == stdout ? 0 : 1;
}

/* Write TEXT to FILE (or the token directory's FILE), mode 0600. */
static int
write_token(const char *file, const char *text)
{
	char *path, *dir = NULL;
	const char *home = getenv("HOME"), *set;
	int fd, rc = 0;

	if (strchr(file, '/') != NULL)
		path = xstrdup(file);
	else {
		if ((set = param("SEC_TOKEN_DIRECTORY")) != NULL && *set)
			dir = xstrdup(set);
		else if (home != NULL && *home == '/')
			dir = xasprintf("%s/.condor/tokens.d", home);
		else {
			log_warnx("no token directory: HOME is not set");
			return -1;
		}
		if (daemon_mkdir(dir, 0700) == -1) {
			log_warn("cannot create %s", dir);
			free(dir);
			return -1;
		}
		path = xasprintf("%s/%s", dir, file);
	}
	(void)unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1 || write(fd, text, strlen(text)) !=
	    (ssize_t)strlen(text) || fsync(fd) == -1) {
		log_warn("cannot write %s", path);
		rc = -1;
	}
	if (fd != -1 && close(fd) == -1 && rc == 0) {
		log_warn("cannot write %s", path);
		rc = -1;
	}
	if (rc == 0)
		fprintf(stderr, "token for the pool written to %s\n", path);
	free(path);
	free(dir);
	return rc;
}

int
main(int argc, char **argv)
{
	const char *identity = NULL, *file = NULL;
	char token[AUTH_TOKEN_MAX], err[512], *end;
	long lifetime = 0;
	int i, rc;

	common_init(argv[0]);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "-help") == 0 ||
		    strcmp(argv[i], "--help") == 0)
			return usage(stdout);
		if (i + 1 >= argc) {
			log_warnx("%s needs a value", argv[i]);
			return usage(stderr);
		}
		if (strcmp(argv[i], "-identity") == 0)
			identity = argv[++i];
		else if (strcmp(argv[i], "-token") == 0)
			file = argv[++i];
		else if (strcmp(argv[i], "-lifetime") == 0) {
			errno = 0;
			lifetime = strtol(argv[++i], &end, 10);
			if (errno != 0 || *end != '\0' || lifetime <= 0) {
				log_warnx("-lifetime: a number of seconds, "
				    "not \"%s\"", argv[i]);
				return 1;
			}
		} else {
			log_warnx("unknown argument %s", argv[i]);
			return usage(stderr);
		}
	}
	if (identity == NULL) {
		log_warnx("-identity is needed");
		return usage(stderr);
	}
	if (strcmp(identity, AUTH_POOL_IDENTITY) == 0) {
		log_warnx("%s is the pool's own identity: it is proven with "
		    "the key, never with a token", AUTH_POOL_IDENTITY);
		return 1;
	}
	if (auth_pool_key_load(0, err, sizeof(err)) == -1) {
		log_warnx("%s (only whoever may read the pool key makes "
		    "tokens)", err);
		return 1;
	}
	rc = auth_token_make(auth_pool_key(), identity, lifetime, token,
	    sizeof(token), err, sizeof(err));
	auth_forget_pool_key();
	if (rc == -1) {
		log_warnx("%s", err);
		return 1;
	}
	if (file != NULL)
		rc = write_token(file, token);
	else
		rc = fputs(token, stdout) == EOF || fflush(stdout) == EOF ?
		    -1 : 0;
	explicit_bzero(token, sizeof(token));
	return rc == -1 ? 1 : 0;
}
