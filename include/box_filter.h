/*
 * box_filter.h: the outer seccomp filter of a standard job's box, built
 * by the job's own start-up code (src/libremote/remote_outer.c) and,
 * before the job exists, by the starter (src/starter/starter_box.c).
 * One table, so the two cannot drift apart.
 */
#ifndef BOX_FILTER_H
#define BOX_FILTER_H

#include <stdint.h>
#include <linux/filter.h>

#define BOX_FILTER_MAX	256

/* The clone flags of glibc's pthread_create (and of a restart making a
 * job's threads again): CLONE_VM | CLONE_FS | CLONE_FILES |
 * CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |
 * CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID.  The only clone either
 * filter lets a job make besides the restore's helper. */
#define BOX_CLONE_THREAD	0x3d0f00U

/* What the starter's copy lets through that the job's own does not. */
struct box_filter_extra {
	/* execveat(exec_fd, "", ..., AT_EMPTY_PATH): the starter's exec of
	 * the job itself; -1: no exec at all. */
	int	exec_fd;
	/* openat(proc_fd, ...): the library's /proc files, opened at
	 * start-up before its own filter closes this too; -1: none. */
	int	proc_fd;
	/* userfaultfd(2), and clone(2) with no flags at all (a process
	 * of its own, exit signal 0): a resuming job's memory on demand,
	 * served by a helper the restart makes before the job's own filter
	 * refuses both. */
	int	allow_restore;
	/* userfaultfd(2) with exactly BOX_UFFD_WP_FLAGS, to any job: the
	 * incremental checkpoints' write-protection (INCREMENTAL_CHECKPOINTS;
	 * a user-mode-only one cannot stall the kernel in its faults). */
	int	allow_uffd_wp;
};

#define BOX_UFFD_WP_FLAGS	(02000000 | 04000 | 1)	/* O_CLOEXEC |
				   O_NONBLOCK | UFFD_USER_MODE_ONLY */

/*
 * Build the filter into F (BOX_FILTER_MAX entries) for the process PID
 * (the only one it may signal); EXTRA may be NULL.  The number of
 * entries, or -1 if they do not fit.  Calls nothing: the job's start-up
 * code runs it before its C library may be used.
 */
int	box_filter_build(struct sock_filter *f, uint32_t pid,
	    const struct box_filter_extra *extra);

#endif
