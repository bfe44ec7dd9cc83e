/*
 * acctgroup_test.c: who may charge an accounting group (acctgroup.h).
 *
 * checks: 9
 */
#include <stdio.h>
#include <string.h>

#include "acctgroup.h"
#include "config.h"
#include "log.h"
#include "test.h"

int
main(void)
{
	char why[256];

	log_init("acctgroup_test");
	config_set("GROUP_MEMBERS_physics", "alice, bob carol", 0);
	config_set("GROUP_QUOTA_physics", "4", 0);
	config_set("GROUP_QUOTA_chem", "2", 0);
	config_set("GROUP_MEMBERS_physics.theory", "bob", 0);
	config_set("GROUP_MEMBERS_open", "*", 0);

	CHECK("a listed member may charge physics",
	    acct_group_allows("physics", "alice", why, sizeof(why)) == 1);
	CHECK("... as user@domain too",
	    acct_group_allows("physics", "carol@example.org", why,
	    sizeof(why)) == 1);
	why[0] = '\0';
	CHECK("a user not listed may not",
	    acct_group_allows("physics", "mallory", why, sizeof(why)) == 0);
	CHECK_STR("... and why says who and which setting", why,
	    "user mallory is not a member of accounting group physics "
	    "(GROUP_MEMBERS_physics)");
	CHECK("a prefix of a member's name is not the member",
	    acct_group_allows("physics", "ali", why, sizeof(why)) == 0);
	CHECK("a subgroup needs its own list and its parent's",
	    acct_group_allows("physics.theory", "bob", why, sizeof(why)) ==
	    1 && acct_group_allows("physics.theory", "alice", why,
	    sizeof(why)) == 0);
	CHECK("a subgroup with no list of its own takes its parent's",
	    acct_group_allows("physics.lab", "alice", why, sizeof(why)) == 1 &&
	    acct_group_allows("physics.lab", "mallory", why, sizeof(why)) == 0);
	CHECK("a group with a quota and no members admits nobody",
	    acct_group_allows("chem", "alice", why, sizeof(why)) == 0 &&
	    strstr(why, "admits nobody") != NULL);
	CHECK("\"*\" admits anyone; a group with neither setting is open",
	    acct_group_allows("open", "mallory", why, sizeof(why)) == 1 &&
	    acct_group_allows("misc.sub", "mallory", why, sizeof(why)) == 1);
	TEST_EXIT();
}
