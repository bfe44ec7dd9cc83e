/*
 * version.h: the one place this release's version is written.
 * condor_version prints it as HTCondor does, and the daemons advertise
 * it (CondorVersion) in their ads.
 */
#ifndef CONDOR_VERSION_H
#define CONDOR_VERSION_H

#define CONDOR_VERSION		"4.1.0"
#define CONDOR_RELEASE_DATE	"Nov 27 2026"	/* as "Mmm DD YYYY" */

#endif
