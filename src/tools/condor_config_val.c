/*
 * condor_config_val: print configuration values as the daemons see them.
 *
 *	condor_config_val [-v] NAME...
 *	condor_config_val -dump | -dump-defaults | -config | -h
 *
 * Reads the configuration the way every daemon does (condor_config(5))
 * and prints each NAME's value with its macros expanded, one per line.
 * A NAME defined nowhere is reported on stderr and makes the exit status
 * 1, after the other names have been printed.  -v adds where each value
 * was defined.  -dump prints every setting, -dump-defaults the built-in
 * table with each setting's meaning, -config the files that were read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "daemon.h"
#include "log.h"

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: condor_config_val [-v] NAME...\n"
	    "       condor_config_val -dump | -dump-defaults | -config | -h\n"
	    "  NAME            print NAME's value, macros expanded\n"
	    "  -v              also say where each NAME was defined\n"
	    "  -dump           print every setting\n"
	    "  -dump-defaults  print the built-in defaults and their meanings\n"
	    "  -config         print the configuration files read\n"
	    "  -h              print this help\n");
}

static void
print_config_files(void)
{
	const char *f;
	size_t i;

	printf("Configuration source:\n\t%s\n",
	    *config_main_file() != '\0' ? config_main_file() :
	    "(none: built-in defaults)");
	printf("Local configuration sources:\n");
	for (i = 1; (f = config_source(i)) != NULL; i++)
		printf("\t%s\n", f);
	if (i == 1)
		printf("\t(none)\n");
}

static int
print_value(const char *name, int verbose)
{
	const char *v, *file;
	int line;

	if ((v = param(name)) == NULL) {
		if (config_raw(name, NULL, NULL) != NULL)
			fprintf(stderr, "condor_config_val: %s cannot be "
			    "expanded\n", name);
		else
			fprintf(stderr, "condor_config_val: %s is not "
			    "defined\n", name);
		return -1;
	}
	if (!verbose) {
		printf("%s\n", v);
		return 0;
	}
	printf("%s %c %s\n", name, param_is_expr(name) ? ':' : '=', v);
	(void)config_raw(name, &file, &line);
	if (file != NULL)
		printf("  # defined at %s:%d\n", file, line);
	else
		printf("  # built-in default\n");
	return 0;
}

int
main(int argc, char **argv)
{
	char err[1024];
	int i, verbose = 0, status = 0, names = 0;

	log_init(argv[0]);
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "-help") == 0 ||
		    strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		}
		if (strcmp(argv[i], "-dump-defaults") == 0) {
			config_dump_defaults(stdout);
			return 0;
		}
		if (strcmp(argv[i], "-v") != 0 &&
		    strcmp(argv[i], "-dump") != 0 &&
		    strcmp(argv[i], "-config") != 0) {
			fprintf(stderr, "condor_config_val: unknown option "
			    "%s\n", argv[i]);
			usage(stderr);
			return 1;
		}
		if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
	}
	if (config_init(err, sizeof(err)) == -1) {
		fprintf(stderr, "condor_config_val: %s\n", err);
		return 1;
	}
	/* A control expression that does not parse is an error here, where
	 * someone checks a configuration; the daemons only log it. */
	if (config_warnings() != NULL) {
		config_report_warnings();
		status = 1;
	}
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-dump") == 0) {
			config_dump(stdout);
			names++;
		} else if (strcmp(argv[i], "-config") == 0) {
			print_config_files();
			names++;
		}
	}
	for (; i < argc; i++, names++)
		if (print_value(argv[i], verbose) == -1)
			status = 1;
	if (names == 0) {
		usage(stderr);
		return 1;
	}
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "condor_config_val: cannot write output\n");
		return 1;
	}
	return status;
}
