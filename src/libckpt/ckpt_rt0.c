/*
 * ckpt_rt0.c: the start-up object, lib/condor_rt0.o, that condor_cc links
 * into every relinked program.  It is an object, not an archive member,
 * so that both of its pieces are always in the program:
 *
 *  - the marker, in a section of its own, .condor_relinked: condor_submit
 *    checks for it, and in a checkpoint file its copy says where the
 *    restart state is (struct ckpt_marker, ckptfile.h);
 *  - a constructor of the highest priority, run after libc's start-up and
 *    before every other constructor, which hands over to the checkpoint
 *    library (ckpt_startup.c): fixed layout, restart, handlers, trap;
 *  - __wrap_main, between the start-up and main: argv without the
 *    library's -_condor_* flags.
 */
#include "ckptfile.h"
#include "condor_job.h"

extern void	condor_ckpt_entry(void);

struct ckpt_marker condor_relinked_marker
    __attribute__((section(CKPT_MARKER_SECTION), used, aligned(64))) = {
	CKPT_MARKER_MAGIC, CKPT_VERSION, 0, 0, 0,
	(uint64_t)(uintptr_t)condor_ckpt_entry, { 0, 0, 0 }
};

/*
 * main itself: condor_cc links with --wrap=main, so that the C start-up
 * calls this, which takes the library's own -_condor_* arguments out of
 * argv (a constructor may change argv's contents but not the argc main
 * gets) and calls the program's main.
 */
extern int	__real_main(int, char **, char **);
int		__wrap_main(int, char **, char **);

int
__wrap_main(int argc, char **argv, char **envp)
{
	return __real_main(condor_ckpt_main_args(argc, argv, envp), argv,
	    envp);
}

static void __attribute__((constructor(101), used))
condor_rt0(int argc, char **argv, char **envp)
{
	condor_ckpt_startup(argc, argv, envp);
}
