/*
 * condor_release: release held jobs so that they may run again.
 * See condor_release(1).
 */
#include "schedd_client.h"
#include "schedd_rpc.h"

int
main(int argc, char **argv)
{
	return job_tool_main(argc, argv, JOB_RELEASE);
}
