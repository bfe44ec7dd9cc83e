/*
 * condor_cc: relink a program for Condor.  A drop-in for cc.
 *
 *	condor_cc [cc arguments]
 *	condor_cc -fortran [gfortran arguments]    (or run as condor_fc)
 *	condor_compile CMD [ARGS...]               (run under that name)
 *
 * Runs the system compiler ($CONDOR_CC or cc; $CONDOR_FC or gfortran;
 * for condor_compile, CMD itself: gcc, g++, gfortran, clang, cc ...)
 * with the user's arguments and, when it links, adds
 *
 *	-static -no-pie -fcf-protection=none -Wl,--wrap=main
 *	LIB/condor_rt0.o and, whole, LIB/libcondor_ckpt.a and
 *	LIB/libcondor_remote.a
 *
 * so that the program is static, not position-independent (the same
 * layout at every run, which checkpoints need), carries the
 * .condor_relinked section condor_submit looks for, and starts through
 * the checkpoint library.  A C compiler driver (cc, gcc, clang) does not
 * link the C++ library: when the inputs include C++ sources, -lstdc++
 * and -lm are added after them.  Compiling adds -fcf-protection=none,
 * -DCONDOR_RELINKED and the directory of condor_ckpt.h.  `condor_cc -c`
 * only compiles; condor_compile passes a command that does not link
 * (-c, -S, -E ...) through unchanged.  The compiler's exit status is
 * ours.
 *
 * LIB is $CONDOR_LIB_DIR, else ../lib beside this command (the build
 * tree, an installation), else the configuration's LIB.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "xalloc.h"

static void
usage(FILE *fp, int compile)
{
	if (compile) {
		fprintf(fp,
		    "usage: condor_compile CMD [ARGS...]\n"
		    "Runs the compiler or link command CMD (gcc, g++, "
		    "gfortran, clang, cc ...)\n"
		    "with ARGS; a command that links relinks the program "
		    "for Condor.\n");
		return;
	}
	fprintf(fp,
	    "usage: condor_cc [cc arguments]\n"
	    "       condor_cc -fortran [gfortran arguments]\n"
	    "Compiles and links like cc, relinking the program for Condor:\n"
	    "static, not PIE, with the checkpoint and system-call libraries.\n"
	    "  -fortran    drive gfortran ($CONDOR_FC) instead of cc "
	    "($CONDOR_CC)\n"
	    "  -condor-lib print the library directory and exit\n"
	    "  -h          print this help (cc's own is `cc --help`)\n");
}

static int
has_rt0(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/condor_rt0.o", dir) >=
	    (int)sizeof(path))
		return 0;
	return stat(path, &st) == 0;
}

/* Where condor_rt0.o and the libraries are; NULL if nowhere. */
static char *
find_lib_dir(void)
{
	char exe[PATH_MAX], err[512], *slash, *dir;
	const char *v;
	ssize_t n;

	if ((v = getenv("CONDOR_LIB_DIR")) != NULL && *v != '\0')
		return xstrdup(v);
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL) {
			*slash = '\0';
			dir = xasprintf("%s/../lib", exe);
			if (has_rt0(dir))
				return dir;
			free(dir);
		}
	}
	if (config_init(err, sizeof(err)) == 0 && (v = param("LIB")) != NULL &&
	    has_rt0(v))
		return xstrdup(v);
	return NULL;
}

/* Options of cc that take their value in the next argument. */
static int
takes_value(const char *a)
{
	static const char *const opts[] = {
		"-o", "-I", "-L", "-D", "-U", "-x", "-MF", "-MT", "-MQ",
		"-include", "-imacros", "-idirafter", "-isystem", "-iquote",
		"-iprefix", "-iwithprefix", "-isysroot", "-Xlinker",
		"-Xassembler", "-Xpreprocessor", "-T", "-u", "-e", "-z",
		"-aux-info", "--param", "-wrapper", "-J", NULL,
	};
	int i;

	for (i = 0; opts[i] != NULL; i++)
		if (strcmp(a, opts[i]) == 0)
			return 1;
	return 0;
}

/* A C++ source file, by the names g++ takes for one. */
static int
is_cxx_source(const char *a)
{
	static const char *const ext[] = {
		".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C", ".ii",
		NULL,
	};
	const char *dot = strrchr(a, '.');
	int i;

	if (dot == NULL || a[0] == '-')
		return 0;
	for (i = 0; ext[i] != NULL; i++)
		if (strcmp(dot, ext[i]) == 0)
			return 1;
	return 0;
}

/* A driver that links the C++ library itself (g++, clang++, c++). */
static int
driver_is_cxx(const char *driver)
{
	const char *b = strrchr(driver, '/') ? strrchr(driver, '/') + 1 :
	    driver;

	return strstr(b, "++") != NULL;
}

int
main(int argc, char **argv)
{
	const char *base, *driver = NULL;
	char **av, *lib;
	int i, n, fortran = 0, link = 1, inputs = 0, cxx = 0, compile = 0;

	base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	if (strcmp(base, "condor_compile") == 0) {
		compile = 1;
		log_init("condor_compile");
		if (argc < 2 || strcmp(argv[1], "-h") == 0 ||
		    strcmp(argv[1], "--help") == 0) {
			usage(argc < 2 ? stderr : stdout, 1);
			return argc < 2 ? 1 : 0;
		}
		/* CMD is the driver; ARGS are its arguments. */
		driver = argv[1];
		argv++, argc--;
	} else
		log_init("condor_cc");
	if (strcmp(base, "condor_fc") == 0)
		fortran = 1;
	if (!compile && argc > 1 && strcmp(argv[1], "-fortran") == 0) {
		fortran = 1;
		argv++, argc--;
	}
	if (!compile && argc > 1 && (strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--condor-help") == 0)) {
		usage(stdout, 0);
		return 0;
	}
	if ((lib = find_lib_dir()) == NULL) {
		fprintf(stderr, "condor_cc: cannot find condor_rt0.o (set "
		    "CONDOR_LIB_DIR, or LIB in the configuration)\n");
		return 1;
	}
	if (!compile && argc > 1 && strcmp(argv[1], "-condor-lib") == 0) {
		printf("%s\n", lib);
		return 0;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-c") == 0 || strcmp(a, "-S") == 0 ||
		    strcmp(a, "-E") == 0 || strcmp(a, "-M") == 0 ||
		    strcmp(a, "-MM") == 0 || strncmp(a, "-print-", 7) == 0 ||
		    strncmp(a, "-dump", 5) == 0 || strcmp(a, "--version") == 0 ||
		    strcmp(a, "--help") == 0)
			link = 0;
		if (strcmp(a, "-shared") == 0 || strcmp(a, "-r") == 0) {
			fprintf(stderr, "condor_cc: %s: a relinked program is "
			    "a static executable\n", a);
			return 1;
		}
		if (strcmp(a, "-x") == 0 && i + 1 < argc &&
		    strncmp(argv[i + 1], "c++", 3) == 0)
			cxx = 1;
		if (takes_value(a)) {
			i++;
			continue;
		}
		if (a[0] != '-' || strncmp(a, "-l", 2) == 0)
			inputs++;
		if (is_cxx_source(a))
			cxx = 1;
	}
	if (inputs == 0)
		link = 0;
	if (!compile) {
		driver = fortran ? getenv("CONDOR_FC") : getenv("CONDOR_CC");
		if (driver == NULL || *driver == '\0')
			driver = fortran ? "gfortran" : "cc";
	} else if (!link) {
		/* Compiling only, or asking the compiler something: the
		 * command as it was given. */
		execvp(driver, argv);
		fprintf(stderr, "condor_compile: %s: %s\n", driver,
		    strerror(errno));
		return 127;
	}

	av = xreallocarray(NULL, (size_t)argc + 16, sizeof(*av));
	n = 0;
	av[n++] = (char *)driver;
	for (i = 1; i < argc; i++)
		av[n++] = argv[i];
	av[n++] = "-fcf-protection=none";
	if (inputs > 0) {
		av[n++] = "-DCONDOR_RELINKED";
		av[n++] = xasprintf("-I%s/include", lib);
	}
	if (link) {
		av[n++] = "-static";
		av[n++] = "-no-pie";
		av[n++] = "-Wl,--wrap=main";	/* condor_rt0.o's */
		av[n++] = xasprintf("%s/condor_rt0.o", lib);
		av[n++] = "-Wl,--whole-archive";
		av[n++] = xasprintf("%s/libcondor_ckpt.a", lib);
		av[n++] = xasprintf("%s/libcondor_remote.a", lib);
		av[n++] = "-Wl,--no-whole-archive";
		if (cxx && !fortran && !driver_is_cxx(driver)) {
			av[n++] = "-lstdc++";
			av[n++] = "-lm";
		}
	}
	av[n] = NULL;
	if (getenv("CONDOR_CC_VERBOSE") != NULL) {
		for (i = 0; i < n; i++)
			fprintf(stderr, "%s%s", i ? " " : "", av[i]);
		fprintf(stderr, "\n");
	}
	execvp(driver, av);
	fprintf(stderr, "%s: %s: %s\n", compile ? "condor_compile" :
	    "condor_cc", driver, strerror(errno));
	return 127;
}
