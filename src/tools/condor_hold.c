/*
 * condor_hold: hold jobs: they stop, keep their checkpoints, and wait
 * for condor_release.  See condor_hold(1).
 */
#include "schedd_client.h"
#include "schedd_rpc.h"

int
main(int argc, char **argv)
{
	return job_tool_main(argc, argv, JOB_HOLD);
}
