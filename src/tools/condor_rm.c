/*
 * condor_rm: remove jobs from the queue.
 * See condor_rm(1).
 */
#include "schedd_client.h"
#include "schedd_rpc.h"

int
main(int argc, char **argv)
{
	return job_tool_main(argc, argv, JOB_REMOVE);
}
