/*
 * condor_version: this release's version and platform, in the two lines
 * HTCondor prints, which scripts parse.  See condor_version(1).
 */
#include <sys/utsname.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "version.h"

static int
usage(FILE *fp)
{
	fprintf(fp, "usage: condor_version [-arch | -opsys | -syscall]\n"
	    "  prints \"$CondorVersion: VERSION DATE $\" and "
	    "\"$CondorPlatform: ARCH-OPSYS $\"\n"
	    "  -arch   only the architecture (X86_64)\n"
	    "  -opsys  only the operating system (LINUX)\n"
	    "  -syscall  the remote system call library's version too\n");
	return fp == stdout ? 0 : 2;
}

int
main(int argc, char **argv)
{
	struct utsname u;
	char arch[sizeof(u.machine)];
	int i, only = 0, syscall = 0;
	size_t k;

	log_init(argv[0]);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "-help") == 0)
			return usage(stdout);
		else if (strcmp(argv[i], "-arch") == 0)
			only = 'a';
		else if (strcmp(argv[i], "-opsys") == 0)
			only = 'o';
		else if (strcmp(argv[i], "-syscall") == 0)
			syscall = 1;
		else {
			log_warnx("unknown option %s", argv[i]);
			return usage(stderr);
		}
	}
	if (uname(&u) == -1)
		snprintf(u.machine, sizeof(u.machine), "unknown");
	for (k = 0; u.machine[k] != '\0' && k + 1 < sizeof(arch); k++)
		arch[k] = (char)toupper((unsigned char)u.machine[k]);
	arch[k] = '\0';
	if (only == 'a')
		printf("%s\n", arch);
	else if (only == 'o')
		printf("LINUX\n");
	else {
		printf("$CondorVersion: %s %s $\n", CONDOR_VERSION,
		    CONDOR_RELEASE_DATE);
		if (syscall)
			printf("$CondorSyscallVersion: %s %s $\n",
			    CONDOR_VERSION, CONDOR_RELEASE_DATE);
		printf("$CondorPlatform: %s-Linux $\n", arch);
	}
	if (fflush(stdout) == EOF || ferror(stdout)) {
		log_warnx("cannot write the output");
		return 1;
	}
	return 0;
}
