/*
 * condor_ckpt.h: what a program relinked with condor_cc(1) may call.
 *
 * A relinked program checkpoints when it receives SIGUSR2 (and goes on)
 * or SIGTSTP (and exits with status 85), or when it calls one of these.
 * The checkpoint is an executable: running it resumes the program where
 * it was checkpointed.  It is written to $CONDOR_CKPT_FILE, or to
 * PROGRAM.ckpt in the directory the program was started in.
 *
 * Outside a relinked program (built with plain cc) these are undefined:
 * guard calls with #ifdef CONDOR_RELINKED if the program must build both
 * ways (condor_cc defines it).
 */
#ifndef CONDOR_CKPT_H
#define CONDOR_CKPT_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * ckpt: write a checkpoint now and go on.  Returns once the checkpoint is
 * safely on disk: 0 in the program that took it, 1 in a program resumed
 * from it (the call "returns twice", like fork or setjmp), -1 if it could
 * not be written (the reason is on stderr; an older checkpoint stays).
 */
int	ckpt(void);

/*
 * ckpt_and_exit: write a checkpoint and exit with status 85.  Returns
 * only in a program resumed from that checkpoint, or if the checkpoint
 * could not be written (the program then goes on; the reason is on
 * stderr).
 */
void	ckpt_and_exit(void);

#ifdef __cplusplus
}
#endif

#endif
