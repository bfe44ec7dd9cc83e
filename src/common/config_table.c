/*
 * config_table.c: every setting Condor knows, with its default and what it
 * means.  This is the one place a setting's name is written down with its
 * default: param() falls back to it, condor_config_val -dump-defaults
 * prints it, and the unit tests check that etc/condor_config and
 * condor_config(5) agree with it.
 *
 * A NULL default means either "computed when asked" (RELEASE_DIR, HOST,
 * EXECUTE_USER: see config.c) or "undefined unless set" (CONSOLE_DEVICES).
 * Rows with is_expr set are control expressions (written with ':').
 * Keep the groups in the order of etc/condor_config.
 */
#include <stddef.h>

#include "config.h"

const struct config_default config_defaults[] = {
	/* Paths. */
	{ "RELEASE_DIR", NULL,
	    "where bin/ sbin/ lib/ etc/ are (default: the directory above "
	    "the running program's)", 0 },
	{ "BIN", "$(RELEASE_DIR)/bin", "the user commands", 0 },
	{ "SBIN", "$(RELEASE_DIR)/sbin", "the daemons", 0 },
	{ "LIB", "$(RELEASE_DIR)/lib",
	    "the checkpoint and remote-syscall libraries", 0 },
	{ "LOCAL_DIR", "$ENV(HOME)/.condor",
	    "this host's state: its spool, execute and log directories", 0 },
	{ "LOCAL_CONFIG_FILE", "$(LOCAL_DIR)/condor_config.local",
	    "read after the main file, its definitions win (a list; missing "
	    "files are skipped)", 0 },
	{ "SPOOL", "$(LOCAL_DIR)/spool",
	    "the schedd's job queue and checkpoint files", 0 },
	{ "EXECUTE", "$(LOCAL_DIR)/execute",
	    "where the starter runs foreign jobs", 0 },
	{ "LOG", "$(LOCAL_DIR)/log", "the daemons' log files", 0 },

	/* Hosts, addresses and ports. */
	{ "HOST", NULL,
	    "the name this host advertises (default: the short hostname)", 0 },
	{ "CONDOR_HOST", "127.0.0.1",
	    "the central manager (collector and negotiator)", 0 },
	{ "COLLECTOR_HOST", "$(CONDOR_HOST):9618",
	    "the collector's address, host:port (port 0: any free port, "
	    "which the collector writes in $(LOG)/.collector_address for "
	    "the daemons and commands of this LOCAL_DIR)", 0 },
	{ "UPDATE_COLLECTOR_WITH_TCP", "False",
	    "daemons send their ads to the collector over TCP, each waiting "
	    "for the answer, instead of as one UDP datagram each (an ad too "
	    "big for a datagram goes over TCP anyway)", 0 },
	{ "COLLECTOR_SOCKET_BUFSIZE", "10240000",
	    "bytes of UDP updates the collector's socket holds while it is "
	    "busy", 0 },
	{ "COLLECTOR_UPDATE_GATHER", "0.05",
	    "seconds the collector lets UDP updates gather after taking a "
	    "batch, to take many per wake-up (0: each as it comes; an "
	    "update after a quiet spell is taken at once)", 0 },
	{ "BIND_ADDRESS", "127.0.0.1", "the IP address daemons listen on", 0 },
	{ "MASTER_PORT", "0",
	    "the master's port (0: any free port, advertised)", 0 },
	{ "SCHEDD_PORT", "0",
	    "the schedd's port (0: any free port, advertised)", 0 },
	{ "STARTD_PORT", "0",
	    "the startd's port (0: any free port, advertised)", 0 },
	{ "NEGOTIATOR_PORT", "0",
	    "the negotiator's port (0: any free port, advertised)", 0 },
	{ "HOSTALLOW_READ", "*", "hosts allowed to query the daemons", 0 },
	{ "HOSTALLOW_WRITE", "127.0.0.1, $(CONDOR_HOST)",
	    "hosts allowed to change the daemons' state", 0 },

	/* Security: who callers are and what they may do
	 * (condor_security(7)). */
	{ "SEC_POOL_KEY_FILE", "$(LOCAL_DIR)/pool_key",
	    "the pool's shared key (mode 0600; made on first start)", 0 },
	{ "SEC_TOKEN_DIRECTORY", NULL,
	    "where commands look for tokens (default ~/.condor/tokens.d)",
	    0 },
	{ "SEC_MAX_CLOCK_SKEW", "300",
	    "seconds a signed call's time may differ from the receiver's",
	    0 },
	{ "ALLOW_READ", NULL, "identities allowed to query (default *)", 0 },
	{ "ALLOW_WRITE", NULL, "identities allowed to submit and act on "
	    "their jobs (default: * when the daemons run as root, else "
	    "their user)", 0 },
	{ "ALLOW_OWNER", NULL, "identities allowed to vacate this machine "
	    "(default: root, the daemons' user, condor_pool, "
	    "QUEUE_SUPER_USERS)", 0 },
	{ "ALLOW_ADMINISTRATOR", NULL, "identities allowed to turn daemons "
	    "off and on and reconfigure them (default: root, the daemons' "
	    "user, condor_pool, QUEUE_SUPER_USERS)", 0 },
	{ "ALLOW_DAEMON", NULL, "identities trusted as the pool's daemons "
	    "(default condor_pool)", 0 },
	{ "ALLOW_NEGOTIATOR", NULL, "identities trusted as the negotiator "
	    "(default condor_pool)", 0 },
	{ "DENY_READ", NULL, "identities refused READ", 0 },
	{ "DENY_WRITE", NULL, "identities refused WRITE", 0 },
	{ "DENY_OWNER", NULL, "identities refused OWNER", 0 },
	{ "DENY_ADMINISTRATOR", NULL, "identities refused ADMINISTRATOR", 0 },
	{ "DENY_DAEMON", NULL, "identities refused DAEMON", 0 },
	{ "DENY_NEGOTIATOR", NULL, "identities refused NEGOTIATOR", 0 },

	/* Daemons: what the master starts, their programs and logs. */
	{ "DAEMON_LIST", "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD",
	    "the daemons condor_master runs on this host", 0 },
	{ "MASTER", "$(SBIN)/condor_master", "the master's program", 0 },
	{ "MASTER_LOG", "$(LOG)/MasterLog", "the master's log", 0 },
	{ "COLLECTOR", "$(SBIN)/condor_collector",
	    "the collector's program", 0 },
	{ "COLLECTOR_LOG", "$(LOG)/CollectorLog", "the collector's log", 0 },
	{ "NEGOTIATOR", "$(SBIN)/condor_negotiator",
	    "the negotiator's program", 0 },
	{ "NEGOTIATOR_LOG", "$(LOG)/NegotiatorLog",
	    "the negotiator's log", 0 },
	{ "SCHEDD", "$(SBIN)/condor_schedd", "the schedd's program", 0 },
	{ "SCHEDD_LOG", "$(LOG)/SchedLog", "the schedd's log", 0 },
	{ "STARTD", "$(SBIN)/condor_startd", "the startd's program", 0 },
	{ "STARTD_LOG", "$(LOG)/StartLog", "the startd's log", 0 },
	{ "KBDD", "$(SBIN)/condor_kbdd", "the keyboard daemon's program", 0 },
	{ "KBDD_LOG", "$(LOG)/KbdLog", "the keyboard daemon's log", 0 },
	{ "SHADOW", "$(SBIN)/condor_shadow", "the shadow's program", 0 },
	{ "SHADOW_LOG", "$(LOG)/ShadowLog", "the shadows' log", 0 },
	{ "STARTER", "$(SBIN)/condor_starter", "the starter's program", 0 },
	{ "STARTER_LOG", "$(LOG)/StarterLog", "the starters' log", 0 },
	{ "DAGMAN", "$(BIN)/condor_dagman",
	    "the program condor_submit_dag queues to run a DAG", 0 },

	/* Timing, in seconds; policy is written in MINUTE and HOUR. */
	{ "MINUTE", "60", "seconds in a minute (tests shrink it)", 0 },
	{ "HOUR", "3600", "seconds in an hour (tests shrink it)", 0 },
	{ "POLLING_INTERVAL", "5",
	    "seconds between the startd's looks at its machine", 0 },
	{ "STARTD_UPDATE_INTERVAL", "60",
	    "seconds between the startd's ads to the collector", 0 },
	{ "STARTD_ATTRS", "",
	    "settings the startd adds to its machine ad as they are written "
	    "(names, comma or space separated; HasMatlab = True)", 0 },
	{ "NUM_CPUS", NULL,
	    "cores the startd offers (default: the machine's); above 1 its "
	    "machine is one partitionable slot that each claim carves a "
	    "slot from", 0 },
	{ "MEMORY", NULL,
	    "MiB of memory the startd offers (default: the physical memory "
	    "detected)", 0 },
	{ "MACHINE_RESOURCE_GPUs", "0",
	    "GPUs the startd offers (ids GPU-0, GPU-1, ...)", 0 },
	{ "SCHEDD_INTERVAL", "60",
	    "seconds between the schedd's ads to the collector", 0 },
	{ "PERIODIC_EXPR_INTERVAL", "60",
	    "seconds between the schedd's passes over its jobs' "
	    "periodic_hold, periodic_remove and periodic_release", 0 },
	{ "NEGOTIATOR_INTERVAL", "60",
	    "seconds between negotiation cycles", 0 },
	{ "MATCH_TIMEOUT", "20",
	    "seconds a machine given out waits for its claim before it is "
	    "offered again", 0 },
	{ "PERIODIC_CHECKPOINT_INTERVAL", "3 * $(HOUR)",
	    "seconds between periodic checkpoints of a running job", 0 },
	{ "CLASSAD_LIFETIME", "900",
	    "seconds the collector keeps an ad that is not refreshed", 0 },
	{ "COLLECTOR_HISTORY_INTERVAL", "5 * $(MINUTE)",
	    "seconds between the collector's samples of the machines by "
	    "state, for condor_summary (0: none)", 0 },
	{ "RPC_TIMEOUT", "20", "seconds allowed for any outbound call", 0 },
	{ "MASTER_BACKOFF_CONSTANT", "9",
	    "seconds: base of the master's restart delay", 0 },
	{ "MASTER_BACKOFF_FACTOR", "2",
	    "the master's restart delay grows by this factor per failure", 0 },
	{ "MASTER_BACKOFF_CEILING", "3600",
	    "seconds: the master's longest restart delay", 0 },
	{ "MASTER_RECOVER_FACTOR", "300",
	    "seconds a daemon must stay up to reset its restart delay", 0 },
	{ "MASTER_UPDATE_INTERVAL", "300",
	    "seconds between the master's ads to the collector", 0 },
	{ "SHUTDOWN_GRACEFUL_TIMEOUT", "20",
	    "seconds the master waits after SIGTERM before SIGKILL", 0 },

	/* The schedd's limits. */
	{ "MAX_JOB_STARTS", "5",
	    "jobs a schedd starts per negotiation cycle", 0 },
	{ "MAX_JOBS_RUNNING", "200",
	    "jobs (shadows) a schedd runs at once", 0 },
	{ "MAX_SCHEDULER_JOBS_RUNNING", "500",
	    "scheduler- and local-universe jobs a schedd runs itself at once",
	    0 },
	{ "CLAIM_WORKLIFE", "1200",
	    "seconds after its start that a claim takes its schedd's next "
	    "job without a new match (-1: no limit, 0: no reuse)", 0 },
	{ "QUEUE_SUPER_USERS", "root, condor",
	    "users who may remove, hold, release and re-prioritize any job",
	    0 },
	{ "QUEUE_COMPACT_RATIO", "4",
	    "the schedd compacts its job queue log when it has grown to this "
	    "many times the live queue", 0 },
	{ "QUEUE_COMPACT_RETRY", "60",
	    "seconds after a failed compaction of the job queue log before "
	    "the schedd tries again", 0 },
	{ "MAX_SHADOW_EXCEPTIONS", "5",
	    "failed shadows in a row before a job is put on hold (0: never)",
	    0 },
	{ "MAX_JOB_STARTS_WITHOUT_RUNNING", "10",
	    "starts in a row that end before the job ran (the claim refused, "
	    "the starter unable to start it) before the job is put on hold "
	    "(0: never)", 0 },

	/* Owner policy: the startd's control expressions and their parts. */
	{ "BackgroundLoad", "0.3",
	    "load below which the machine counts as idle", 0 },
	{ "HighLoad", "0.5",
	    "load above which the owner counts as busy", 0 },
	{ "StartIdleTime", "15 * $(MINUTE)",
	    "keyboard idle seconds before a job may start", 0 },
	{ "ContinueIdleTime", "5 * $(MINUTE)",
	    "keyboard idle seconds before a suspended job resumes", 0 },
	{ "MaxSuspendTime", "5 * $(MINUTE)",
	    "seconds suspended before a job is vacated", 0 },
	{ "MaxVacateTime", "5 * $(MINUTE)",
	    "seconds vacating before a job is killed", 0 },
	{ "KeyboardBusy", "(KeyboardIdle < $(POLLING_INTERVAL))",
	    "the owner touched the keyboard since the last look", 0 },
	{ "CPU_Idle", "(NonCondorLoadAvg <= $(BackgroundLoad))",
	    "the owner's load is low", 0 },
	{ "CPU_Busy", "(NonCondorLoadAvg >= $(HighLoad))",
	    "the owner's load is high", 0 },
	{ "START", "$(CPU_Idle) && KeyboardIdle > $(StartIdleTime)",
	    "may a foreign job start", 1 },
	{ "STARTD_RANK", "0",
	    "the machine's preference among jobs (higher is better)", 1 },
	{ "SUSPEND", "$(KeyboardBusy) || $(CPU_Busy)",
	    "suspend the running job", 1 },
	{ "CONTINUE", "$(CPU_Idle) && KeyboardIdle > $(ContinueIdleTime)",
	    "resume the suspended job", 1 },
	{ "VACATE", "(CurrentTime - EnteredCurrentState) > $(MaxSuspendTime)",
	    "checkpoint the suspended job and send it away", 1 },
	{ "KILL", "(CurrentTime - EnteredCurrentState) > $(MaxVacateTime)",
	    "stop a vacating job at once, without a checkpoint", 1 },
	{ "CONSOLE_DEVICES", NULL,
	    "files whose use means the owner is at the keyboard (default: "
	    "the terminals in use, from utmp)", 0 },
	{ "LOAD_AVERAGE_FILE", "/proc/loadavg",
	    "where the startd reads the load average", 0 },
	{ "KBDD_DEVICES", "/dev/input/event*",
	    "input devices (shell patterns) whose use condor_kbdd reports "
	    "to the startd", 0 },
	{ "KBDD_X_DISPLAY", NULL,
	    "the X display whose idle time condor_kbdd reports (default: "
	    "$DISPLAY; none: the display is not watched)", 0 },
	{ "KBDD_XAUTHORITY", NULL,
	    "Xauthority files (colon-separated) holding the display's cookie "
	    "(default: $XAUTHORITY, then ~/.Xauthority)", 0 },

	/* Priorities. */
	{ "Expanded", "(NumCkpts > 0)",
	    "the job has run before (it has a checkpoint)", 0 },
	{ "PRIO", "(UserPrio * 10) + $(Expanded) - (QDate / 1000000000.0)",
	    "the schedd's priority of a job; higher runs first", 1 },
	{ "UPDATE_PRIO", "Prio + Users - Running",
	    "the negotiator's new priority of a station (Up-Down)", 1 },
	{ "PREEMPTION_ENABLED", "TRUE",
	    "the negotiator vacates a lower-priority station's job for a "
	    "waiting station", 0 },
	{ "PREEMPTION_PRIO_MARGIN", "1",
	    "how much lower a station's priority must be for its job to "
	    "be preempted", 0 },
	{ "JOB_DEFAULT_LEASE_DURATION", "2400",
	    "the JobLeaseDuration condor_submit gives a vanilla job that "
	    "names none (0: none)", 0 },
	{ "CONCURRENCY_LIMIT_DEFAULT", "2308032",
	    "how much of a concurrency limit without a NAME_LIMIT setting "
	    "the pool's jobs may hold at once", 0 },

	/* Users. */
	{ "CONDOR_IDS", NULL,
	    "uid.gid the daemons become when started as root (default: "
	    "stay root)", 0 },
	{ "EXECUTE_USER", NULL,
	    "the user jobs run as (default: the user running the pool, or "
	    "condor, or nobody; never root)", 0 },
	{ "SLOT_USERS", "",
	    "dedicated accounts for jobs (names, by commas or blanks): each "
	    "running job takes one no other job is using; every process of "
	    "an account is killed when its job ends", 0 },
	{ "SLOT_UID_RANGE", "1950000000-1950000999",
	    "LOW-HIGH: without SLOT_USERS, each job runs as an id of this "
	    "range that no user has and no other job is using (empty: jobs "
	    "share EXECUTE_USER)", 0 },
	{ "SLOT_LOCK_DIR", "/run/condor/slots",
	    "where starters lock the accounts their jobs run as (one "
	    "directory for the whole machine, root's)", 0 },
	{ "BASE_CGROUP", "condor",
	    "the cgroup v2 under which each job's processes are kept, "
	    "killed and removed together when it ends (empty: none)", 0 },
	{ "JOB_SYSTEM_DIRS", "/bin /sbin /lib /lib32 /lib64 /libx32 /usr "
	    "/etc /opt",
	    "what of this machine a vanilla job sees, read-only, besides "
	    "/dev, /proc, /sys, its directory and its private /tmp", 0 },
	{ "UID_DOMAIN", NULL,
	    "hosts of one user database: a job runs as its owner where the "
	    "execute host's UID_DOMAIN is the job's (default: this host's "
	    "full name, shared with no other)", 0 },
	{ "TRUST_UID_DOMAIN", "False",
	    "the execute host takes a submitting host's word for its "
	    "UID_DOMAIN (false: only a domain the submitting host's name "
	    "ends in)", 0 },
	{ "FILESYSTEM_DOMAIN", NULL,
	    "hosts sharing a file system: a job of the same domain that "
	    "need not transfer runs in its initialdir (default: this "
	    "host's full name, shared with no other)", 0 },
	{ "SHARED_FILESYSTEM_DIRS", "",
	    "the shared file system's directories a job of this "
	    "FILESYSTEM_DOMAIN run as its owner sees (a list; DIR:ro "
	    "read-only)", 0 },
	{ "ALLOW_NETWORK_FOR_JOBS", "True",
	    "vanilla jobs may use the network (false: a loopback of their "
	    "own only)", 0 },
	{ "MAX_JOB_DURATION", "0",
	    "seconds a job's run may last on this machine before it is "
	    "killed and held (0: no limit; a job's allowed_job_duration "
	    "may ask for less)", 0 },
	{ "MAX_JOB_MEMORY", "0",
	    "MB of resident memory a job's processes may hold together on "
	    "this machine before it is killed and held (0: no limit; a "
	    "job's request_memory may ask for less)", 0 },
	{ "MAX_JOB_DISK", "0",
	    "MB a job's execute directory may hold before it is killed and "
	    "held (0: no limit)", 0 },
	{ "DISK_CHECK_INTERVAL", "10",
	    "seconds between measures of a job's execute directory", 0 },
	{ "MAX_JOB_WRITE_MB", "0",
	    "MB a standard job's run may write through its shadow; further "
	    "writes fail with EDQUOT (0: no limit)", 0 },
	{ "MAX_TRANSFER_OUTPUT_MB", "0",
	    "MB of output, of error, or of output files (at exit or on "
	    "eviction) a job's run may send back before its shadow holds it "
	    "(0: no limit)", 0 },
	{ "REMOTE_IO_CHUNK", "65536",
	    "bytes moved per remote read or write", 0 },
	{ "STARTER_UPDATE_INTERVAL", "2",
	    "seconds between a starter's shipments of its job's output "
	    "(and signs of life) to the shadow", 0 },
	{ "STARTER_TIMEOUT", "60",
	    "seconds a shadow waits for word from its starter before it "
	    "gives the run up and requeues the job", 0 },
	{ "VACATE_GRACE", "10",
	    "seconds a vacated vanilla job, or a stopped scheduler-universe "
	    "job, has between SIGTERM and SIGKILL", 0 },
	{ "STARTER_USERFAULTFD", "False",
	    "hand a resuming standard job /dev/userfaultfd, so its memory "
	    "comes back on demand", 0 },
	{ "CLASSAD_ENABLE_USER_HOME", "False",
	    "the ClassAd function userHome() looks users' home directories "
	    "up (false: it gives its default or UNDEFINED)", 0 },
	{ "INCREMENTAL_CHECKPOINTS", "False",
	    "a standard job's periodic checkpoints ship only the pages "
	    "written since the last, folded in by the shadow", 0 },
	{ "CKPT_MAX_DELTAS", "4",
	    "incremental checkpoints between two full ones", 0 },

	/* DAGs (condor_dagman; a DAG's CONFIG file may set them). */
	{ "DAGMAN_MAX_JOBS_SUBMITTED", "0",
	    "node jobs a DAG keeps in the queue at once when "
	    "condor_submit_dag -maxjobs gives none (0: no limit)", 0 },
	{ "DAGMAN_MAX_JOBS_IDLE", "0",
	    "node jobs of a DAG that may wait idle before it queues more, "
	    "when -maxidle gives none (0: no limit)", 0 },
	{ "DAGMAN_MAX_PRE_SCRIPTS", "0",
	    "PRE scripts a DAG runs at once when -maxpre gives none "
	    "(0: no limit)", 0 },
	{ "DAGMAN_MAX_POST_SCRIPTS", "0",
	    "POST scripts a DAG runs at once when -maxpost gives none "
	    "(0: no limit)", 0 },
	{ "DAGMAN_UPDATE_INTERVAL", "5",
	    "seconds between updates of a DAG job's DAG_* attributes", 0 },

	/* Mail. */
	{ "MAIL", "/usr/sbin/sendmail",
	    "program that mails job owners (sendmail-compatible; empty: none)",
	    0 },

	{ NULL, NULL, NULL, 0 }
};

/*
 * A personal pool's own defaults: when no configuration file sets
 * CONDOR_HOST or COLLECTOR_HOST (see config_personal in config.h),
 * each of these settings that no file defines takes this value instead
 * of the one above.  A NULL value is computed (config.c).
 */
const struct config_default config_personal_defaults[] = {
	{ "COLLECTOR_HOST", "$(CONDOR_HOST):0",
	    "any free port, so that two users' personal pools on one "
	    "machine never collide; found through $(LOG)/.collector_address",
	    0 },
	{ "START", NULL,
	    "the jobs of the user running the pool, at once "
	    "(TARGET.Owner == \"USER\")", 1 },
	{ "SUSPEND", "FALSE", "the owner's keyboard and load do not stop "
	    "the owner's own jobs", 1 },
	{ "CONTINUE", "TRUE", "a suspended job resumes", 1 },
	{ "VACATE", "FALSE", "jobs are not sent away", 1 },
	{ "KILL", "FALSE", "jobs are not killed", 1 },
	{ NULL, NULL, NULL, 0 }
};
