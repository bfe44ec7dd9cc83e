/*
 * master_client.h: condor_off, condor_on, condor_reconfig and
 * condor_restart, which ask hosts' masters (master_rpc.x).
 */
#ifndef CONDOR_MASTER_CLIENT_H
#define CONDOR_MASTER_CLIENT_H

enum master_cmd {
	MASTER_CMD_OFF,		/* condor_off */
	MASTER_CMD_ON,		/* condor_on */
	MASTER_CMD_RECONFIG,	/* condor_reconfig */
	MASTER_CMD_RESTART,	/* condor_restart */
};

/*
 * master_tool_main: the whole of one of these commands:
 * "[-daemon NAME] [HOST...]" (condor_restart also "-master").  Returns
 * the exit status.
 */
int	master_tool_main(int argc, char **argv, enum master_cmd cmd);

#endif
