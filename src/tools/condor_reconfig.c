/*
 * condor_reconfig: make a host's daemons re-read their configuration,
 * through its condor_master.  See condor_reconfig(1).
 */
#include "master_client.h"

int
main(int argc, char **argv)
{
	return master_tool_main(argc, argv, MASTER_CMD_RECONFIG);
}
