/*
 * condor_on: start a host's daemons through its master.  See
 * condor_on(1).
 */
#include "master_client.h"

int
main(int argc, char **argv)
{
	return master_tool_main(argc, argv, MASTER_CMD_ON);
}
