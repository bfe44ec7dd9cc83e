/*
 * condor_restart: restart a host's daemons, or its master and all of them,
 * through its condor_master.  See condor_restart(1).
 */
#include "master_client.h"

int
main(int argc, char **argv)
{
	return master_tool_main(argc, argv, MASTER_CMD_RESTART);
}
