/*
 * master_client.h: condor_off and condor_on.
 */
#ifndef CONDOR_MASTER_CLIENT_H
#define CONDOR_MASTER_CLIENT_H

/*
 * master_tool_main: the whole of condor_off (ON 0) and condor_on (ON 1):
 * "[-daemon NAME] [HOST...]".  Returns the exit status.
 */
int	master_tool_main(int argc, char **argv, int on);

#endif
