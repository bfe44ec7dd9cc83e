/*
 * acctgroup.h: who may charge an accounting group.
 *
 * A job names its group with accounting_group (AcctGroup "a.b"), and is
 * counted against GROUP_QUOTA_a.b and GROUP_QUOTA_a.  Each level P of
 * the name ("a", then "a.b") admits only the users GROUP_MEMBERS_P
 * lists (user names, separated by commas or spaces; "*" anyone); a
 * level with a GROUP_QUOTA_P but no GROUP_MEMBERS_P admits nobody, so
 * that a quota is never free for the taking; a level with neither is
 * open (the name is then bookkeeping only).  The schedd refuses a job
 * whose owner a level does not admit; the negotiator counts such a job
 * (one queued before the rule) as its owner's alone.
 *
 * acct_group_allows: 1 if USER (a login name; "@domain" ignored) may
 * charge GROUP, else 0 with WHY saying which level refuses and why.
 */
#ifndef CONDOR_ACCTGROUP_H
#define CONDOR_ACCTGROUP_H

#include <stddef.h>

int	acct_group_allows(const char *group, const char *user, char *why,
	    size_t whylen);

#endif
