/*
 * ckpt_startup.c: what a relinked program does before main (called by the
 * constructor in lib/condor_rt0.o, at the highest priority, after libc's
 * own start-up and before any other constructor).
 *
 *  1. Map the system-call gate page (condor_job.h).
 *  2. Make the layout fixed: if the process's personality lacks
 *     ADDR_NO_RANDOMIZE, or glibc registered rseq (it writes into the
 *     thread control block behind our back), re-execute /proc/self/exe
 *     with the same arguments, ADDR_NO_RANDOMIZE set and
 *     GLIBC_TUNABLES=glibc.pthread.rseq=0 added to the environment.  The
 *     re-executed process puts the personality and the environment back
 *     the way the program was started (CONDOR_RT0_REEXEC carries what
 *     to undo), so the program and its children see no difference; only
 *     its own layout is fixed, the same for every run and every restart
 *     of the same executable.
 *  3. If this executable is a checkpoint, resume it (ckpt_restart.c).
 *  4. Otherwise: remember what the checkpoints need (the executable's
 *     size, sections, build id; the program's name; where checkpoints
 *     go), record the inherited descriptors and the working directory,
 *     install CKPT() on SIGUSR2 and SIGTSTP and the system-call trap.
 *
 * Then, between the start-up and main (condor_ckpt_main_args, from
 * __wrap_main): the library's -_condor_* arguments are taken out of argv.
 *
 * Environment read here: CONDOR_CKPT_FILE, CONDOR_CKPT_CORE,
 * CONDOR_CKPT_FORK, CONDOR_CKPT_NOTIFY_FD, CONDOR_CKPT_INCREMENTAL,
 * CONDOR_CKPT_MAX_DELTAS, CONDOR_TRAP_ALL (condor_cc(1)
 * documents them).
 */
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/personality.h>
#include <sys/rseq.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "ckpt.h"
#include "../libremote/remote.h"

extern struct ckpt_marker condor_relinked_marker;
extern char	__executable_start[];

#define REEXEC_VAR	"CONDOR_RT0_REEXEC"
#define TUNABLE		"glibc.pthread.rseq=0"
#define MAX_ENV		8192

static char	*new_env[MAX_ENV + 3];
static char	 tunables_buf[4096];
static char	 reexec_buf[64];

static const char *
env_value(char **envp, const char *name, int *index)
{
	size_t n = cj_strlen(name);
	int i;

	for (i = 0; envp[i] != 0; i++)
		if (cj_strncmp(envp[i], name, n) == 0 && envp[i][n] == '=') {
			if (index != 0)
				*index = i;
			return envp[i] + n + 1;
		}
	return 0;
}

static void
env_remove(char **envp, int i)
{
	for (; envp[i] != 0; i++)
		envp[i] = envp[i + 1];
}

static int
has_tunable(const char *v)
{
	size_t n = cj_strlen(TUNABLE);

	for (; v != 0 && *v != '\0'; v++)
		if (cj_strncmp(v, TUNABLE, n) == 0)
			return 1;
	return 0;
}

/*
 * In the re-executed process: undo what the re-execution added.
 * REEXEC_VAR is "PERSONALITY:ADDED" (ADDED: 1 if GLIBC_TUNABLES was not
 * set before, 2 if our tunable was appended to the user's).
 */
static void
undo_reexec(char **envp, const char *v, int vi)
{
	unsigned long pers = 0;
	int added, ti;
	const char *t;

	while (*v >= '0' && *v <= '9')
		pers = pers * 10 + (unsigned long)(*v++ - '0');
	added = *v == ':' ? v[1] - '0' : 0;
	env_remove(envp, vi);
	if ((t = env_value(envp, "GLIBC_TUNABLES", &ti)) != 0) {
		if (added == 1)
			env_remove(envp, ti);
		else if (added == 2) {
			/* Cut ":glibc.pthread.rseq=0" off in place. */
			size_t n = cj_strlen(envp[ti]), k = cj_strlen(TUNABLE) + 1;

			if (n > k)
				envp[ti][n - k] = '\0';
		}
	}
	condor_sys1(SYS_personality, pers);
}

static void
reexec_if_needed(char **argv, char **envp)
{
	const char *v, *t;
	char num[24];
	long pers;
	int i, n, vi, added = 0;

	if ((v = env_value(envp, REEXEC_VAR, &vi)) != 0) {
		undo_reexec(envp, v, vi);
		return;
	}
	pers = condor_sys1(SYS_personality, 0xffffffff);
	if (pers < 0 || ((pers & ADDR_NO_RANDOMIZE) && __rseq_size == 0))
		return;
	for (n = 0; envp[n] != 0; n++)
		if (n >= MAX_ENV)
			return;
	for (i = 0; i < n; i++)
		new_env[i] = envp[i];
	t = env_value(envp, "GLIBC_TUNABLES", &i);
	if (t == 0) {
		cj_strlcpy(tunables_buf, "GLIBC_TUNABLES=" TUNABLE,
		    sizeof(tunables_buf));
		new_env[n++] = tunables_buf;
		added = 1;
	} else if (!has_tunable(t)) {
		cj_strlcpy(tunables_buf, envp[i], sizeof(tunables_buf));
		cj_strlcat(tunables_buf, ":" TUNABLE, sizeof(tunables_buf));
		new_env[i] = tunables_buf;
		added = 2;
	}
	cj_strlcpy(reexec_buf, REEXEC_VAR "=", sizeof(reexec_buf));
	cj_strlcat(reexec_buf, cj_utoa((unsigned long)pers, num, 10),
	    sizeof(reexec_buf));
	cj_strlcat(reexec_buf, ":", sizeof(reexec_buf));
	cj_strlcat(reexec_buf, cj_utoa((unsigned)added, num, 10),
	    sizeof(reexec_buf));
	new_env[n++] = reexec_buf;
	new_env[n] = 0;
	condor_sys1(SYS_personality, pers | ADDR_NO_RANDOMIZE);
	condor_sys3(SYS_execve, "/proc/self/exe", argv, new_env);
	t = (const char *)getauxval(AT_EXECFN);
	if (t != 0)
		condor_sys3(SYS_execve, t, argv, new_env);
	/* Could not: go on with a layout that may not restart. */
	condor_sys1(SYS_personality, pers);
	cj_say("cannot re-execute with a fixed memory layout; checkpoints "
	    "may not restart", (char *)0);
}

/* The GNU build id, from the program headers in memory. */
static void
find_build_id(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)__executable_start;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(__executable_start +
	    eh->e_phoff);
	int i;

	ckpt_g.build_id_len = 0;
	for (i = 0; i < eh->e_phnum; i++) {
		const char *p, *end;

		if (ph[i].p_type != PT_NOTE)
			continue;
		p = (const char *)ph[i].p_vaddr;
		end = p + ph[i].p_memsz;
		while (p + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *nh = (const Elf64_Nhdr *)p;
			const char *name = p + sizeof(*nh);
			const char *desc = name + ((nh->n_namesz + 3) & ~3u);

			if (nh->n_type == NT_GNU_BUILD_ID &&
			    nh->n_namesz == 4 && cj_strcmp(name, "GNU") == 0 &&
			    nh->n_descsz <= sizeof(ckpt_g.build_id)) {
				cj_memcpy(ckpt_g.build_id, desc, nh->n_descsz);
				ckpt_g.build_id_len = nh->n_descsz;
				return;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
}

static void
first_start(char **envp)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)__executable_start;
	struct ckpt_fixup fix;
	struct stat st;
	char path[PATH_MAX];
	const char *base;
	long n, fd, r;
	int i;

	/* Under Condor, before the sandbox's filter refuses opens (and
	 * with no /proc in the job's root): ckpt_proc.c. */
	ckpt_proc_cache(envp, ckpt_proc_fds);
	n = condor_sys3(SYS_readlink, "/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0)
		cj_strlcpy(path, "a.out", sizeof(path));
	else
		path[n] = '\0';
	for (base = path + cj_strlen(path); base > path && base[-1] != '/';)
		base--;
	cj_strlcpy(ckpt_g.program, base, sizeof(ckpt_g.program));
	ckpt_g.exe_len = 0;
	if ((fd = ckpt_proc_open("/proc/self/exe")) >= 0) {
		if (condor_sys2(SYS_fstat, fd, &st) == 0)
			ckpt_g.exe_len = (uint64_t)st.st_size;
		condor_sys1(SYS_close, fd);
	}
	ckpt_g.exe_shoff = eh->e_shoff;
	ckpt_g.exe_shnum = eh->e_shnum;
	ckpt_g.exe_shstrndx = eh->e_shstrndx;
	find_build_id();

	ckpt_fixup_from_env(&fix, ckpt_g.program, envp);
	cj_strlcpy(ckpt_g.target, fix.target, sizeof(ckpt_g.target));
	cj_strlcpy(ckpt_g.core_target, fix.core_target,
	    sizeof(ckpt_g.core_target));
	ckpt_g.fork_writer = fix.fork_writer;
	ckpt_g.notify_fd = fix.notify_fd;
	ckpt_g.lazy_fd = -1;
	ckpt_g.incremental = fix.incremental;
	ckpt_g.max_deltas = fix.max_deltas;
	ckpt_g.trk_uffd = -1;
	if (fix.uffd_dev >= 0)		/* for restarts only */
		condor_sys1(SYS_close, fix.uffd_dev);

	ckpt_threads_init();
	remote_client_init(envp);	/* under Condor? */
	remote_files_init();
	for (i = 0; i < CKPT_PROC_N; i++)
		if (ckpt_proc_fds[i] >= 0)
			ft_closed((int)ckpt_proc_fds[i]);	/* ours */
	if ((r = ckpt_install_handlers()) < 0)
		cj_say("cannot install the checkpoint handlers", (char *)0);
	else {
		uint64_t m = SIGBIT(CONDOR_SIG_CKPT) | SIGBIT(CONDOR_SIG_VACATE);

		condor_sys4(SYS_rt_sigprocmask, SIG_UNBLOCK, &m, 0, 8);
	}
	/* Under Condor the trap's outer filter refuses userfaultfd. */
	if (ckpt_g.incremental && cj_strncmp(ckpt_g.target, "fd:", 3) == 0)
		ckpt_g.trk_uffd = ckpt_incr_open(&ckpt_g.incr_why);
	if ((r = remote_trap_install((enum remote_mode)fix.mode,
	    fix.trap_all)) < 0)
		cj_say("cannot install the system-call trap (seccomp); "
		    "checkpoints will not know the open files", (char *)0);
}

/*
 * The library's own arguments, as HTCondor's standard universe had them
 * (its test jobs pass them): anything that begins with -_condor_ is
 * taken out of argv before main sees it.
 *
 *	-_condor_ckpt FILE	checkpoints go to FILE
 *	-_condor_restart FILE	resume from the checkpoint FILE (it is an
 *				executable: it is run in this process's
 *				place, with this environment, and
 *				CONDOR_CKPT_FILE set to -_condor_ckpt's
 *				FILE if there is one)
 *	-_condor_aggravate_bugs and any other -_condor_ flag: no value,
 *				nothing to do here (HTCondor's debugging
 *				aids)
 *
 * A flag that needs a FILE and has none is an error (status 1), as is a
 * checkpoint that cannot be run.  Returns the new argc; argv keeps its
 * NULL at the end.
 */
int
condor_ckpt_main_args(int argc, char **argv, char **envp)
{
	static const char pre[] = "-_condor_";
	static char ckptvar[PATH_MAX + 32];
	const char *restart = 0, *target = 0;
	char *av[2];
	int i, n = 0;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		int has_value;

		if (i == 0 || cj_strncmp(a, pre, sizeof(pre) - 1) != 0) {
			argv[n++] = argv[i];
			continue;
		}
		has_value = cj_strcmp(a, "-_condor_ckpt") == 0 ||
		    cj_strcmp(a, "-_condor_restart") == 0;
		if (!has_value)
			continue;
		if (i + 1 >= argc) {
			cj_say(a, " needs a file name", (char *)0);
			condor_sys1(SYS_exit_group, 1);
		}
		if (a[9] == 'c')
			ckpt_set_target(target = argv[++i]);
		else
			restart = argv[++i];
	}
	argv[n] = 0;
	if (restart != 0) {
		av[0] = (char *)restart;
		av[1] = 0;
		/* Its checkpoints go where -_condor_ckpt says. */
		if (target != 0) {
			int k = 0, j;

			cj_strlcpy(ckptvar, "CONDOR_CKPT_FILE=", sizeof(ckptvar));
			cj_strlcat(ckptvar, ckpt_g.target, sizeof(ckptvar));
			new_env[k++] = ckptvar;
			for (j = 0; envp[j] != 0 && k < MAX_ENV; j++)
				if (cj_strncmp(envp[j], "CONDOR_CKPT_FILE=",
				    17) != 0)
					new_env[k++] = envp[j];
			new_env[k] = 0;
			envp = new_env;
		}
		condor_sys3(SYS_execve, restart, av, envp);
		cj_say("-_condor_restart: cannot run the checkpoint ", restart,
		    (char *)0);
		condor_sys1(SYS_exit_group, 1);
	}
	return n;
}

void
condor_ckpt_startup(int argc, char **argv, char **envp)
{
	(void)argc;
	static const char msg[] = "condor: cannot map the system-call gate "
	    "page; running without checkpoints\n";
	long r;

	if (condor_gate_install() < 0) {
		/* No gate, no cj_say: one raw write. */
		__asm__ volatile("syscall" : "=a"(r) : "a"(SYS_write), "D"(2),
		    "S"(msg), "d"(sizeof(msg) - 1) : "rcx", "r11", "memory");
		return;
	}
	/*
	 * Hold the checkpoint signals until CKPT() is their handler (or, in
	 * a restart, until the restored program's mask is back): blocked,
	 * they wait, across the re-execution too, instead of stopping the
	 * process (SIGTSTP's default) or killing it (SIGUSR2's).
	 */
	{
		uint64_t m = SIGBIT(CONDOR_SIG_CKPT) | SIGBIT(CONDOR_SIG_VACATE);

		condor_sys4(SYS_rt_sigprocmask, SIG_BLOCK, &m, 0, 8);
	}
	reexec_if_needed(argv, envp);
	/* Read through volatile: the compiler knows the initial value. */
	if (((volatile struct ckpt_marker *)&condor_relinked_marker)->is_ckpt)
		ckpt_restart(&condor_relinked_marker, envp);
	first_start(envp);
}
