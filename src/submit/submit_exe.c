/*
 * submit_exe.c: a queue statement's universe and executable.
 *
 * A file with no universe line gets the standard universe when its
 * executable is relinked for Condor (condor_cc), and vanilla otherwise,
 * as Condor always chose; condor_submit says which (a notice).  The
 * executable may name the machine's attributes in its file name
 * ("prog.$$(OpSys).$$(Arch)", HTCondor's way to submit to a pool of
 * several platforms): Cmd keeps the text, which the shadow fills in
 * from the machine the job is matched with; here only its directory,
 * and the programs that match it now, can be looked at.
 */
#include <sys/stat.h>

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "buf.h"
#include "submit_int.h"
#include "xalloc.h"

/* Whether the program at PATH is relinked for Condor; 0 when it cannot
 * be read (the executable's own check says why).  The last answer is
 * kept: every proc of a statement asks about the same program. */
static int
exe_relinked(struct parser *p, const char *path)
{
	struct stat st;
	char err[256];

	if (p->relinked_path != NULL && strcmp(p->relinked_path, path) == 0)
		return p->relinked;
	free(p->relinked_path);
	p->relinked_path = xstrdup(path);
	/* Only a regular file is opened (a FIFO would block). */
	p->relinked = stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    submit_elf_relinked(path, err, sizeof(err)) == 1;
	return p->relinked;
}

/* Look at the executable: it exists, may run, is relinked when it must
 * be; *KIB its size. */
static int
check_executable(struct parser *p, const char *exe, int standard, int line,
    long long *kib)
{
	struct stat st;

	*kib = 1;
	if (!p->env->check_files)
		return 0;
	if (stat(exe, &st) == -1) {
		sub_perr(p, line, "executable %s: %s", exe, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		sub_perr(p, line, "executable %s is not a regular file", exe);
		return -1;
	}
	if (access(exe, X_OK) == -1) {
		sub_perr(p, line, "executable %s: not executable: %s", exe,
		    strerror(errno));
		return -1;
	}
	*kib = (st.st_size + 1023) / 1024;
	if (*kib < 1)
		*kib = 1;
	if (standard && !exe_relinked(p, exe)) {
		sub_perr(p, line, "executable %s is not relinked for Condor: "
		    "relink it with condor_cc, or use universe = vanilla", exe);
		return -1;
	}
	return 0;
}

/*
 * The executable EXE (absolute) names the machine's attributes, $$():
 * its directory must not, and must exist; the programs its name matches
 * now (each $$() read as any text) are looked at, as they would be at
 * the machine: a standard job's must all be relinked, and there must be
 * one.  For a vanilla job none is only a warning, since the programs
 * may be put in place before a machine takes the job.
 */
static int
check_machine_executable(struct parser *p, const char *exe, int standard,
    int line, long long *kib)
{
	const char *slash = strrchr(exe, '/'), *s, *close;
	struct buf pat;
	struct stat st;
	glob_t g;
	char *dir;
	size_t i;
	int rc = -1, found = 0;

	*kib = 1;
	dir = slash == exe ? xstrdup("/") : xstrndup(exe,
	    (size_t)(slash - exe));
	if (strstr(dir, "$$(") != NULL) {
		sub_perr(p, line, "executable %s: only its file name may name "
		    "the machine's attributes ($$()), not its directory", exe);
		free(dir);
		return -1;
	}
	if (slash[1] == '\0') {
		sub_perr(p, line, "executable %s names no file", exe);
		free(dir);
		return -1;
	}
	if (!p->env->check_files) {
		free(dir);
		return 0;
	}
	if (stat(dir, &st) == -1 || !S_ISDIR(st.st_mode)) {
		sub_perr(p, line, "executable %s: directory %s: %s", exe, dir,
		    S_ISDIR(st.st_mode) || errno != 0 ? strerror(errno) :
		    "not a directory");
		free(dir);
		return -1;
	}
	buf_init(&pat);
	for (s = exe; *s != '\0'; ) {
		if (strncmp(s, "$$(", 3) == 0 &&
		    (close = strchr(s, ')')) != NULL) {
			buf_addc(&pat, '*');
			s = close + 1;
		} else
			buf_addc(&pat, *s++);
	}
	memset(&g, 0, sizeof(g));
	if (glob(pat.data, 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++) {
			if (stat(g.gl_pathv[i], &st) == -1 ||
			    !S_ISREG(st.st_mode))
				continue;
			found++;
			if ((st.st_size + 1023) / 1024 > *kib)
				*kib = (st.st_size + 1023) / 1024;
			if (standard && !exe_relinked(p, g.gl_pathv[i])) {
				sub_perr(p, line, "executable %s: %s is not "
				    "relinked for Condor: relink it with "
				    "condor_cc, or use universe = vanilla", exe,
				    g.gl_pathv[i]);
				goto out;
			}
		}
	}
	if (found == 0 && standard) {
		sub_perr(p, line, "executable %s: no program matches it (a "
		    "standard job's are checked when it is submitted)", exe);
		goto out;
	}
	if (found == 0)
		sub_pwarn(p, line, "executable %s: no program matches it yet "
		    "(each machine's $$() values name the one it runs)", exe);
	rc = 0;
out:
	globfree(&g);
	buf_free(&pat);
	free(dir);
	return rc;
}

/*
 * sub_build_program: the universe (into *UNIVERSE: JobUniverse 1, 5, 7
 * or 12) and the executable (Cmd, and its size in KiB into *KIB) of a
 * proc, from KV; FIRST and QLINE as for sub_build.  0, or -1 with the
 * error recorded.
 */
int
sub_build_program(struct parser *p, struct kval *kv, int first, int qline,
    struct jattrs *j, int *universe, long long *kib)
{
	static const struct { const char *name; int num; } universes[] = {
		{ "standard", 1 }, { "vanilla", 5 }, { "scheduler", 7 },
		{ "local", 12 }, { NULL, 0 }
	};
	struct kval *u = &kv[KW_UNIVERSE], *k = &kv[KW_EXECUTABLE];
	char *path, shownbuf[64];
	int i, machine, rc;

	*kib = 1;
	if (u->text != NULL) {
		for (i = 0; universes[i].name != NULL; i++)
			if (strcasecmp(u->text, universes[i].name) == 0)
				break;
		if (universes[i].name == NULL) {
			sub_perr(p, u->line, "universe \"%s\" is not supported "
			    "(standard, vanilla, scheduler or local)",
			    sub_shown(u->text, shownbuf, sizeof(shownbuf)));
			return -1;
		}
		*universe = universes[i].num;
	}

	/* Relative to the current directory; a queue statement may name
	 * another than the one before (its jobs' Cmd). */
	if (k->text == NULL || *k->text == '\0') {
		sub_perr(p, qline, "no executable given before queue");
		return -1;
	}
	if (k->deps & (DEP_PROCESS | DEP_CLUSTER)) {
		sub_perr(p, k->line, "the executable cannot depend on "
		    "$(Process) or $(Cluster): each queue statement names one");
		return -1;
	}
	path = sub_path_join(p->cwd, k->text);
	machine = strstr(k->text, "$$(") != NULL;
	if (u->text == NULL) {
		/* No universe line: the program says which. */
		if (machine)
			*universe = 5;
		else
			*universe = exe_relinked(p, path) ? 1 : 5;
	}
	rc = 0;
	if (first || (u->deps & DEP_PROCESS))
		rc = machine ? check_machine_executable(p, path,
		    *universe == 1, k->line, kib) : check_executable(p, path,
		    *universe == 1, k->line, kib);
	/* Said once the program is known to be there. */
	if (rc == 0 && first && u->text == NULL)
		sub_notice(p, "no universe given: %s (%s %s)",
		    *universe == 1 ? "standard" : "vanilla", k->text,
		    machine ? "is chosen by each machine's $$() values, so it "
		    "cannot be checked for relinking" : *universe == 1 ?
		    "is relinked for Condor" : "is not relinked for Condor");
	if (rc == 0 && first) {
		if (p->exe == NULL)
			p->exe = xstrdup(path);
		rc = sub_put_string(p, j, "Cmd", path, 0, k->line);
	}
	free(path);
	return rc;
}
