/*
 * condor_prio: change the priority (UserPrio) of jobs.
 * See condor_prio(1).
 */
#include "schedd_client.h"
#include "schedd_rpc.h"

int
main(int argc, char **argv)
{
	return job_tool_main(argc, argv, JOB_SET_PRIO);
}
