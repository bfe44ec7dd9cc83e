/*
 * syscall_table.h: every system call a relinked job forwards to its
 * shadow, described once (include/syscall_proto.h is the transport).
 *
 * SYSCALL_TABLE(X) calls X(name, (fields), reply, summary) for each
 * call, where name is the Linux x86-64 call (SYS_name is its number on
 * the wire), the fields are its arguments in the order of the kernel's
 * registers, and reply says what follows the result in a reply that
 * succeeded.  Everything else is derived from this table:
 *
 *  - the job's marshalling (src/libremote/remote_client.c) encodes the
 *    fields straight from the trapped call's registers and copies the
 *    reply's data into the program's memory;
 *  - the shadow (src/shadow/shadow_calls.c) decodes the fields,
 *    checks the descriptors, calls its handler h_<name> and encodes
 *    the reply;
 *  - the manual page condor_syscalls(7) (mk/syscall_man.c prints it).
 *
 * Adding a call is one line here and its handler in shadow_calls.c
 * (and, when the job's trap does not route it yet, its entry in
 * remote_trap.c's table).
 *
 * Field kinds, as they go on the wire (RFC 4506 XDR):
 *
 *	SC_INT		int
 *	SC_UINT		unsigned int
 *	SC_HYPER	hyper
 *	SC_FD		int: one of the job's descriptors, which must be
 *			open (else EBADF without a call)
 *	SC_DIRFD	int: AT_FDCWD or one of the job's descriptors; the
 *			path that follows may make it unused
 *	SC_COUNT	unsigned int: the room the reply's data may take
 *			(at most SYSCALL_PROTO_MAX_DATA)
 *	SC_PATH		string (at most SYSCALL_PROTO_MAX_PATH - 1 bytes);
 *			/proc/self/fd/N and /dev/fd/N name the job's N
 *	SC_TEXT		string, kept as it is (a symbolic link's target)
 *	SC_OPT_PATH	bool, then the string when true
 *	SC_DATA		opaque (at most SYSCALL_PROTO_MAX_DATA bytes)
 *	SC_TIMES	bool (times given), then two pairs of hypers
 *			(seconds, nanoseconds), zeros when not given
 *	SC_FCNTL_ARG	after a lock command (F_GETLK, F_SETLK, F_SETLKW
 *			and their F_OFD_ forms): a flock; else a hyper
 *	SC_LEN		nothing: the length of the SC_DATA before it
 *	SC_OUT		nothing: where the job puts the reply's data
 *
 * Reply kinds (after the result, only when it is not negative):
 *
 *	SC_R_NONE	nothing
 *	SC_R_DATA	opaque of exactly result bytes
 *	SC_R_STRING	opaque of result - 1 bytes (a string whose NUL
 *			the result counts, as getcwd's does)
 *	SC_R_STAT	stat (SYSCALL_STAT_FIELDS)
 *	SC_R_STATX	statx (SYSCALL_STATX_FIELDS)
 *	SC_R_FLOCK	after a lock command, the flock (the kernel's
 *			answer to F_GETLK); else nothing
 */
#ifndef SYSCALL_TABLE_H
#define SYSCALL_TABLE_H

#include <sys/stat.h>
#include <sys/syscall.h>

#include <fcntl.h>
#include <stdint.h>

#include "syscall_proto.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2	452
#endif

#define SYSCALL_TABLE(X) \
X(openat, (SC_DIRFD(dirfd), SC_PATH(path), SC_INT(flags), SC_UINT(mode)), \
    SC_R_NONE, "open a file; the result is the job's new descriptor") \
X(close, (SC_FD(fd)), SC_R_NONE, "close a descriptor") \
X(close_range, (SC_UINT(first), SC_UINT(last), SC_UINT(flags)), \
    SC_R_NONE, "close, or mark close-on-exec, a range of descriptors") \
X(read, (SC_FD(fd), SC_OUT(buf), SC_COUNT(count)), SC_R_DATA, \
    "read at the file offset") \
X(pread64, (SC_FD(fd), SC_OUT(buf), SC_COUNT(count), SC_HYPER(offset)), \
    SC_R_DATA, "read at an offset") \
X(write, (SC_FD(fd), SC_DATA(buf), SC_LEN(count)), SC_R_NONE, \
    "write at the file offset") \
X(pwrite64, (SC_FD(fd), SC_DATA(buf), SC_LEN(count), SC_HYPER(offset)), \
    SC_R_NONE, "write at an offset") \
X(lseek, (SC_FD(fd), SC_HYPER(offset), SC_INT(whence)), SC_R_NONE, \
    "move the file offset") \
X(dup, (SC_FD(fd)), SC_R_NONE, "duplicate a descriptor") \
X(dup3, (SC_FD(oldfd), SC_INT(newfd), SC_INT(flags)), SC_R_NONE, \
    "duplicate onto a number (flags -1: as dup2)") \
X(fcntl, (SC_FD(fd), SC_INT(cmd), SC_FCNTL_ARG(arg)), SC_R_FLOCK, \
    "descriptor flags, status flags, duplication, record locks") \
X(fstat, (SC_FD(fd), SC_OUT(statbuf)), SC_R_STAT, "a descriptor's status") \
X(newfstatat, (SC_DIRFD(dirfd), SC_PATH(path), SC_OUT(statbuf), \
    SC_INT(flags)), SC_R_STAT, "a file's status") \
X(statx, (SC_DIRFD(dirfd), SC_OPT_PATH(path), SC_INT(flags), \
    SC_UINT(mask), SC_OUT(statxbuf)), SC_R_STATX, \
    "a file's extended status (no path, with AT_EMPTY_PATH: dirfd's)") \
X(faccessat2, (SC_DIRFD(dirfd), SC_PATH(path), SC_UINT(mode), \
    SC_INT(flags)), SC_R_NONE, "check access to a file") \
X(unlinkat, (SC_DIRFD(dirfd), SC_PATH(path), SC_INT(flags)), SC_R_NONE, \
    "remove a file or directory") \
X(renameat2, (SC_DIRFD(olddirfd), SC_PATH(oldpath), SC_DIRFD(newdirfd), \
    SC_PATH(newpath), SC_INT(flags)), SC_R_NONE, "rename a file") \
X(linkat, (SC_DIRFD(olddirfd), SC_PATH(oldpath), SC_DIRFD(newdirfd), \
    SC_PATH(newpath), SC_INT(flags)), SC_R_NONE, "make a hard link") \
X(symlinkat, (SC_TEXT(target), SC_DIRFD(newdirfd), SC_PATH(linkpath)), \
    SC_R_NONE, "make a symbolic link") \
X(mkdirat, (SC_DIRFD(dirfd), SC_PATH(path), SC_UINT(mode)), SC_R_NONE, \
    "make a directory") \
X(getdents64, (SC_FD(fd), SC_OUT(dirp), SC_COUNT(count)), SC_R_DATA, \
    "directory entries, as the kernel's struct linux_dirent64 records") \
X(ftruncate, (SC_FD(fd), SC_HYPER(length)), SC_R_NONE, \
    "set an open file's size") \
X(truncate, (SC_PATH(path), SC_HYPER(length)), SC_R_NONE, \
    "set a file's size") \
X(fsync, (SC_FD(fd)), SC_R_NONE, "flush a file to disk") \
X(fdatasync, (SC_FD(fd)), SC_R_NONE, "flush a file's data to disk") \
X(getcwd, (SC_OUT(buf), SC_COUNT(size)), SC_R_STRING, \
    "the working directory; the result counts its NUL") \
X(chdir, (SC_PATH(path)), SC_R_NONE, "change the working directory") \
X(fchdir, (SC_FD(fd)), SC_R_NONE, \
    "change the working directory to an open one") \
X(readlinkat, (SC_DIRFD(dirfd), SC_PATH(path), SC_OUT(buf), \
    SC_COUNT(bufsiz)), SC_R_DATA, "read a symbolic link") \
X(utimensat, (SC_DIRFD(dirfd), SC_OPT_PATH(path), SC_TIMES(times), \
    SC_INT(flags)), SC_R_NONE, "set a file's times (no path: dirfd's)") \
X(fchmodat, (SC_DIRFD(dirfd), SC_PATH(path), SC_UINT(mode)), SC_R_NONE, \
    "change a file's mode") \
X(fchmodat2, (SC_DIRFD(dirfd), SC_PATH(path), SC_UINT(mode), \
    SC_INT(flags)), SC_R_NONE, "change a file's mode, with flags") \
X(fchmod, (SC_FD(fd), SC_UINT(mode)), SC_R_NONE, \
    "change an open file's mode") \
X(flock, (SC_FD(fd), SC_UINT(operation)), SC_R_NONE, \
    "lock or unlock a whole file") \
X(umask, (SC_UINT(mask)), SC_R_NONE, \
    "set the file-creation mask; the result is the old one")

/*
 * The replies' structures, field by field in wire order: F(kind,
 * member), kind SC_HYPER, SC_UINT or SC_INT.
 */
#define SYSCALL_STAT_FIELDS(F) \
	F(SC_HYPER, st_dev) F(SC_HYPER, st_ino) F(SC_HYPER, st_mode) \
	F(SC_HYPER, st_nlink) F(SC_HYPER, st_uid) F(SC_HYPER, st_gid) \
	F(SC_HYPER, st_rdev) F(SC_HYPER, st_size) F(SC_HYPER, st_blksize) \
	F(SC_HYPER, st_blocks) F(SC_HYPER, st_atim.tv_sec) \
	F(SC_HYPER, st_mtim.tv_sec) F(SC_HYPER, st_ctim.tv_sec) \
	F(SC_HYPER, st_atim.tv_nsec) F(SC_HYPER, st_mtim.tv_nsec) \
	F(SC_HYPER, st_ctim.tv_nsec)
#define SYSCALL_STATX_FIELDS(F) \
	F(SC_HYPER, stx_mask) F(SC_HYPER, stx_blksize) \
	F(SC_HYPER, stx_attributes) F(SC_HYPER, stx_nlink) \
	F(SC_HYPER, stx_uid) F(SC_HYPER, stx_gid) F(SC_HYPER, stx_mode) \
	F(SC_HYPER, stx_ino) F(SC_HYPER, stx_size) F(SC_HYPER, stx_blocks) \
	F(SC_HYPER, stx_attributes_mask) \
	F(SC_HYPER, stx_atime.tv_sec) F(SC_UINT, stx_atime.tv_nsec) \
	F(SC_HYPER, stx_btime.tv_sec) F(SC_UINT, stx_btime.tv_nsec) \
	F(SC_HYPER, stx_ctime.tv_sec) F(SC_UINT, stx_ctime.tv_nsec) \
	F(SC_HYPER, stx_mtime.tv_sec) F(SC_UINT, stx_mtime.tv_nsec) \
	F(SC_UINT, stx_rdev_major) F(SC_UINT, stx_rdev_minor) \
	F(SC_UINT, stx_dev_major) F(SC_UINT, stx_dev_minor) \
	F(SC_HYPER, stx_mnt_id)
#define SYSCALL_FLOCK_FIELDS(F) \
	F(SC_INT, l_type) F(SC_INT, l_whence) F(SC_HYPER, l_start) \
	F(SC_HYPER, l_len) F(SC_INT, l_pid)

enum syscall_field {
	SC_END = 0,
	SC_INT, SC_UINT, SC_HYPER, SC_FD, SC_DIRFD, SC_COUNT, SC_PATH,
	SC_TEXT, SC_OPT_PATH, SC_DATA, SC_TIMES, SC_FCNTL_ARG, SC_LEN, SC_OUT
};

enum syscall_reply {
	SC_R_NONE, SC_R_DATA, SC_R_STRING, SC_R_STAT, SC_R_STATX, SC_R_FLOCK
};

#define SYSCALL_MAX_FIELDS	6	/* the kernel's registers */

struct syscall_desc {
	uint32_t	 nr;			/* SYS_name */
	const char	*name;
	uint8_t		 field[SYSCALL_MAX_FIELDS + 1];	/* to SC_END */
	uint8_t		 reply;			/* enum syscall_reply */
};

/* Positions in the table: SYSCALL_I_openat..., then SYSCALL_NCALLS. */
#define SYSCALL_INDEX_(name, fields, reply, what)	SYSCALL_I_##name,
enum { SYSCALL_TABLE(SYSCALL_INDEX_) SYSCALL_NCALLS };
#undef SYSCALL_INDEX_

/* The field macros, as the descriptions below read them. */
#define SC_INT(n)		SC_INT
#define SC_UINT(n)		SC_UINT
#define SC_HYPER(n)		SC_HYPER
#define SC_FD(n)		SC_FD
#define SC_DIRFD(n)		SC_DIRFD
#define SC_COUNT(n)		SC_COUNT
#define SC_PATH(n)		SC_PATH
#define SC_TEXT(n)		SC_TEXT
#define SC_OPT_PATH(n)		SC_OPT_PATH
#define SC_DATA(n)		SC_DATA
#define SC_TIMES(n)		SC_TIMES
#define SC_FCNTL_ARG(n)		SC_FCNTL_ARG
#define SC_LEN(n)		SC_LEN
#define SC_OUT(n)		SC_OUT
#define SYSCALL_FIELDS_(...)	__VA_ARGS__
#define SYSCALL_DESC_(name, fields, reply, what) \
	{ SYS_##name, #name, { SYSCALL_FIELDS_ fields, SC_END }, reply },

/*
 * syscall_lookup: the position of call NR in the table, or -1 when it
 * is not forwarded.  *DESC (when not NULL) gets its description.
 */
static inline int
syscall_lookup(uint32_t nr, const struct syscall_desc **desc)
{
	static const struct syscall_desc table[SYSCALL_NCALLS] = {
		SYSCALL_TABLE(SYSCALL_DESC_)
	};
	int i;

	for (i = 0; i < SYSCALL_NCALLS; i++)
		if (table[i].nr == nr) {
			if (desc != 0)
				*desc = &table[i];
			return i;
		}
	return -1;
}

/* Is CMD one of fcntl's record-lock commands (a flock argument)? */
static inline int
syscall_fcntl_is_lock(int cmd)
{
	return cmd == F_GETLK || cmd == F_SETLK || cmd == F_SETLKW ||
	    cmd == F_OFD_GETLK || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW;
}

/*
 * The replies' structures to and from XDR.  The get functions set only
 * the members the wire carries: the caller clears the rest.
 */
#define SYSCALL_PUT_SC_HYPER(x, v)	sxdr_put_i64(x, (int64_t)(v))
#define SYSCALL_PUT_SC_UINT(x, v)	sxdr_put_u32(x, (uint32_t)(v))
#define SYSCALL_PUT_SC_INT(x, v)	sxdr_put_i32(x, (int32_t)(v))
#define SYSCALL_GET_SC_HYPER(x)		sxdr_get_i64(x)
#define SYSCALL_GET_SC_UINT(x)		sxdr_get_u32(x)
#define SYSCALL_GET_SC_INT(x)		sxdr_get_i32(x)
#define SYSCALL_PUT_(kind, m)		SYSCALL_PUT_##kind(x, s->m);
#define SYSCALL_GET_(kind, m)		s->m = SYSCALL_GET_##kind(x);

static inline void
syscall_put_stat(struct sxdr *x, const struct stat *s)
{
	SYSCALL_STAT_FIELDS(SYSCALL_PUT_)
}

static inline void
syscall_get_stat(struct sxdr *x, struct stat *s)
{
	SYSCALL_STAT_FIELDS(SYSCALL_GET_)
}

static inline void
syscall_put_statx(struct sxdr *x, const struct statx *s)
{
	SYSCALL_STATX_FIELDS(SYSCALL_PUT_)
}

static inline void
syscall_get_statx(struct sxdr *x, struct statx *s)
{
	SYSCALL_STATX_FIELDS(SYSCALL_GET_)
}

static inline void
syscall_put_flock(struct sxdr *x, const struct flock *s)
{
	SYSCALL_FLOCK_FIELDS(SYSCALL_PUT_)
}

static inline void
syscall_get_flock(struct sxdr *x, struct flock *s)
{
	SYSCALL_FLOCK_FIELDS(SYSCALL_GET_)
}

#endif
