/*
 * condor_status: show the pool's machines (or its submitters) as the
 * collector knows them.  See condor_status(1).
 *
 * Everything printed comes from ads other hosts sent: any attribute may be
 * missing or of the wrong type, and strings may hold anything.  Missing
 * values print as "?", and control characters never reach the terminal.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ad.h"
#include "buf.h"
#include "collector_client.h"
#include "config.h"
#include "daemon.h"
#include "expr.h"
#include "jobfmt.h"
#include "log.h"
#include "machine.h"
#include "negotiator_client.h"
#include "rpcutil.h"
#include "xalloc.h"

#define PROG	"condor_status"

enum format {
	FMT_TABLE,		/* one line per ad (and the totals) */
	FMT_TOTAL,		/* totals only */
	FMT_LONG,		/* -l */
	FMT_JSON,		/* -json */
	FMT_AF,			/* -af ATTR..., -format FMT ATTR */
	FMT_COMPACT,		/* -compact: one line per machine */
};

/* The states counted in the totals, in the order of their columns. */
static const char *total_states[] = {
	"Owner", "Idle", "Claimed", "Suspended", "Vacating", "Killing",
};
#define NSTATES	(sizeof(total_states) / sizeof(total_states[0]))
static const char totals_header[] =
    "          Total  Owner  Idle  Claimed  Suspended  Vacating  Killing";

struct row {
	struct ad	*ad;
	char		*name;
};

struct group {
	char		*label;		/* "ARCH/OPSYS" or "Total" */
	long		 total;
	long		 count[NSTATES];
};

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: " PROG " [-l | -json | -af[:jlhVr,tng] ATTR... |\n"
	    "                     -format FMT ATTR... | -compact | -total]\n"
	    "                     [-avail | -run] [-submitters | -schedd | "
	    "-master |\n"
	    "                     -negotiator | -any] [-constraint EXPR]\n"
	    "                     [-pool HOST:PORT] [NAME...]\n"
	    "  -l               every attribute of each ad\n"
	    "  -json            every attribute of each ad, as JSON\n"
	    "  -af ATTR...      the attributes (or expressions), one ad a "
	    "line;\n"
	    "                   -af:h a heading, :j the Name first, :l "
	    "labels,\n"
	    "                   :, :t :n separators, :g a blank line, :V "
	    "quoted,\n"
	    "                   :r as written\n"
	    "  -format FMT ATTR printf-like, repeatable: -format '%%s\\n' "
	    "Name\n"
	    "  -compact         one line per machine, its slots together\n"
	    "  -avail           only machines that may start a job now\n"
	    "  -run             only claimed machines, with their jobs\n"
	    "  -submitters      the schedds: running, idle, users, priority\n"
	    "  -schedd          the schedds' ads: running, idle, held jobs\n"
	    "  -master          the masters' ads and the daemons they run\n"
	    "  -negotiator      the negotiator's ad\n"
	    "  -any             every ad the collector holds, by type\n"
	    "  -total           only the totals by state\n"
	    "  -constraint EXPR only ads for which EXPR is TRUE\n"
	    "  -pool HOST:PORT  ask this collector instead of "
	    "COLLECTOR_HOST\n"
	    "  NAME...          only the machines with these Names\n");
}

/* Replace control characters so that an ad cannot garble the terminal. */
static char *
printable(char *s)
{
	unsigned char *p;

	for (p = (unsigned char *)s; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
	return s;
}

/* The string attribute NAME, or a copy of DFLT. */
static char *
get_string(const struct ad *ad, const char *name, const char *dflt)
{
	char *s;

	if (ad_get_string(ad, name, &s) == 0)
		return printable(s);
	return xstrdup(dflt);
}

/*
 * The value of attribute NAME as text: strings unquoted, booleans as
 * true/false, UNDEFINED as UNDEF (when UNDEF is NULL: "undefined"),
 * ERROR as "error".
 */
static char *
value_text(const struct ad *ad, const char *name, const char *undef)
{
	struct value v;
	struct buf b;

	ad_eval(ad, NULL, name, &v);
	buf_init(&b);
	value_print_plain(&v, undef, &b);
	value_free(&v);
	return printable(buf_release(&b));
}

/* An integer attribute in MiB from KiB, as text ("?" if missing). */
static void
kib_as_mib(const struct ad *ad, const char *name, char *buf, size_t len)
{
	long long v;

	if (ad_get_int(ad, name, &v) == 0)
		snprintf(buf, len, "%lld", v / 1024);
	else
		snprintf(buf, len, "?");
}

static void
load_text(const struct ad *ad, char *buf, size_t len)
{
	double v;

	/* A garbage load must not widen the column beyond reason. */
	if (ad_get_real(ad, "LoadAvg", &v) == 0 && v > -1e5 && v < 1e5)
		snprintf(buf, len, "%.2f", v);
	else if (ad_get_real(ad, "LoadAvg", &v) == 0)
		snprintf(buf, len, "%.2g", v);
	else
		snprintf(buf, len, "?");
}

/*
 * How long the machine has been in its State, "D+HH:MM:SS", from its
 * EnteredCurrentState ("?" if missing; a clock ahead of ours counts 0).
 */
static void
state_time_text(const struct ad *ad, time_t now, char *buf, size_t len)
{
	long long entered, secs;

	if (ad_get_int(ad, "EnteredCurrentState", &entered) == -1 ||
	    entered < 0 || entered > (long long)now + 86400LL * 365 * 100) {
		snprintf(buf, len, "?");
		return;
	}
	secs = (long long)now - entered;
	if (secs < 0)
		secs = 0;
	snprintf(buf, len, "%lld+%02lld:%02lld:%02lld", secs / 86400,
	    secs % 86400 / 3600, secs % 3600 / 60, secs % 60);
}

static int
row_cmp(const void *a, const void *b)
{
	const struct row *ra = a, *rb = b;

	return strcmp(ra->name, rb->name);
}

static void
print_machine(const struct ad *ad, const char *name, time_t now)
{
	char swap[32], disk[32], load[32], idle[32], stime[48];
	char *state, *arch, *opsys;
	long long kbd;

	state = get_string(ad, "State", "?");
	arch = get_string(ad, "Arch", "?");
	opsys = get_string(ad, "OpSys", "?");
	kib_as_mib(ad, "VirtualMemory", swap, sizeof(swap));
	kib_as_mib(ad, "Disk", disk, sizeof(disk));
	load_text(ad, load, sizeof(load));
	if (ad_get_int(ad, "KeyboardIdle", &kbd) == 0)
		machine_format_idle(kbd, idle, sizeof(idle));
	else
		snprintf(idle, sizeof(idle), "?");
	state_time_text(ad, now, stime, sizeof(stime));
	printf("%-20s %-5s %7s %8s %-9s %5s %8s %-7s %-7s %s\n", name,
	    strcmp(state, "Idle") == 0 ? "Y" : "N", swap, disk, state, load,
	    idle, arch, opsys, stime);
	free(state);
	free(arch);
	free(opsys);
}

static void
print_running(const struct ad *ad, const char *name)
{
	char load[32], *user, *job;

	user = value_text(ad, "RemoteUser", "?");
	job = value_text(ad, "JobId", "?");
	load_text(ad, load, sizeof(load));
	printf("%-20s %-24s %-10s %5s\n", name, user, job, load);
	free(user);
	free(job);
}

static void
print_submitter(const struct ad *ad, const char *name)
{
	char *running, *idle, *users, *prio;

	running = value_text(ad, "TotalRunningJobs", "?");
	idle = value_text(ad, "TotalIdleJobs", "?");
	users = value_text(ad, "NumUsers", "?");
	prio = value_text(ad, "StationPriority", "-");
	printf("%-20s %8s %6s %6s %6s\n", name, running, idle, users, prio);
	free(running);
	free(idle);
	free(users);
	free(prio);
}

static void
print_schedd(const struct ad *ad, const char *name)
{
	char *machine, *running, *idle, *held;

	machine = value_text(ad, "Machine", name);
	running = value_text(ad, "TotalRunningJobs", "?");
	idle = value_text(ad, "TotalIdleJobs", "?");
	held = value_text(ad, "TotalHeldJobs", "?");
	printf("%-20s %-20s %11s %8s %8s\n", name, machine, running, idle,
	    held);
	free(machine);
	free(running);
	free(idle);
	free(held);
}

/* -master, -negotiator, -any: a name and what its kind says. */
static void
print_daemon(const struct ad *ad, const char *name, int adtype)
{
	char *a, *b;

	switch (adtype) {
	case ADTYPE_MASTER:
		a = value_text(ad, "Machine", name);
		b = value_text(ad, "Daemons", "?");
		printf("%-20s %-20s %s\n", name, a, b);
		break;
	case ADTYPE_NEGOTIATOR:
		a = value_text(ad, "Machine", name);
		b = value_text(ad, "CycleNumber", "?");
		printf("%-20s %-20s %6s\n", name, a, b);
		break;
	default:
		a = value_text(ad, "MyType", "?");
		b = value_text(ad, "TargetType", "");
		printf("%-16s %-16s %s\n", a, b, name);
		break;
	}
	free(a);
	free(b);
}

static struct group *
group_find(struct group **groups, size_t *n, const char *label)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*groups)[i].label, label) == 0)
			return &(*groups)[i];
	*groups = xreallocarray(*groups, *n + 1, sizeof(**groups));
	memset(&(*groups)[*n], 0, sizeof(**groups));
	(*groups)[*n].label = xstrdup(label);
	return &(*groups)[(*n)++];
}

static void
group_count(struct group *g, const char *state)
{
	size_t i;

	g->total++;
	for (i = 0; i < NSTATES; i++)
		if (strcmp(state, total_states[i]) == 0)
			g->count[i]++;
}

static int
group_cmp(const void *a, const void *b)
{
	const struct group *ga = a, *gb = b;

	return strcmp(ga->label, gb->label);
}

/*
 * One line of totals, each number ending where its column's heading
 * ends in totals_header, and at least one space after what precedes it.
 */
static void
print_group(const struct group *g)
{
	const char *h = totals_header;
	size_t col = 0, end;
	long v;
	int width, i = -1;
	char num[32];

	printf("%s", g->label);
	col = strlen(g->label);
	while (*h != '\0') {
		while (*h == ' ')
			h++;
		while (*h != '\0' && *h != ' ')
			h++;
		end = (size_t)(h - totals_header);
		v = i < 0 ? g->total : g->count[i];
		i++;
		width = snprintf(num, sizeof(num), "%ld", v);
		if (end > col + (size_t)width)
			width = (int)(end - col);
		else
			width++;
		printf("%*s", width, num);
		col += (size_t)width;
	}
	putchar('\n');
}

static void
print_totals(struct row *rows, size_t n)
{
	struct group *groups = NULL, total;
	size_t ngroups = 0, i;
	char *arch, *opsys, *state, *label;

	memset(&total, 0, sizeof(total));
	total.label = "Total";
	for (i = 0; i < n; i++) {
		arch = get_string(rows[i].ad, "Arch", "?");
		opsys = get_string(rows[i].ad, "OpSys", "?");
		state = get_string(rows[i].ad, "State", "?");
		label = xasprintf("%s/%s", arch, opsys);
		group_count(group_find(&groups, &ngroups, label), state);
		group_count(&total, state);
		free(label);
		free(arch);
		free(opsys);
		free(state);
	}
	if (ngroups > 1)
		qsort(groups, ngroups, sizeof(*groups), group_cmp);
	printf("%s\n", totals_header);
	for (i = 0; i < ngroups; i++) {
		print_group(&groups[i]);
		free(groups[i].label);
	}
	print_group(&total);
	free(groups);
}

/*
 * -compact: one line per machine (its Machine attribute; a slot without
 * one is a machine of its own), its partitionable slot and the dynamic
 * or static slots carved from it together: how many slots run, the
 * machine's cores, GPUs and memory in all, what is free, the load, and
 * the state as HTCondor writes it, two letters (Ui unclaimed and idle,
 * Cb claimed and busy, Cs suspended, Pv vacating, Pk killing, Oi the
 * owner's; ** when its slots differ).
 */
struct compact {
	char		*machine;
	char		*platform;
	long long	 slots, cpus, gpus, freecpus;
	double		 mem_mib, free_mib, load;
	char		 st[3];
	int		 pslot;
};

static const char *
state_code(const char *state)
{
	static const struct { const char *state, *code; } codes[] = {
		{ "Idle", "Ui" }, { "Claimed", "Cb" }, { "Suspended", "Cs" },
		{ "Vacating", "Pv" }, { "Killing", "Pk" }, { "Owner", "Oi" },
	};
	size_t i;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (strcmp(state, codes[i].state) == 0)
			return codes[i].code;
	return "??";
}

static long long
int_or(const struct ad *ad, const char *name, long long dflt)
{
	long long v;

	return ad_get_int(ad, name, &v) == 0 && v >= 0 && v < (1LL << 40) ?
	    v : dflt;
}

static void
compact_add(struct compact *c, const struct ad *ad)
{
	char *type = get_string(ad, "SlotType", "Static");
	char *state = get_string(ad, "State", "?");
	long long cpus = int_or(ad, "Cpus", 0), mem = int_or(ad, "Memory", 0);
	double load;
	int partitionable = strcmp(type, "Partitionable") == 0;
	const char *code = state_code(state);

	if (ad_get_real(ad, "LoadAvg", &load) == 0 && load > c->load &&
	    load < 1e5)
		c->load = load;
	if (partitionable) {
		/* What is left of it is free; the whole is its Total*. */
		c->pslot = 1;
		c->cpus += int_or(ad, "TotalSlotCpus", cpus);
		c->gpus += int_or(ad, "TotalSlotGPUs", int_or(ad, "GPUs", 0));
		c->mem_mib += (double)int_or(ad, "TotalSlotMemory", mem);
		c->freecpus += cpus;
		c->free_mib += (double)mem;
	} else {
		c->slots++;
		if (strcmp(type, "Dynamic") != 0) {
			c->cpus += cpus;
			c->gpus += int_or(ad, "GPUs", 0);
			c->mem_mib += (double)mem;
			if (strcmp(state, "Idle") == 0) {
				c->freecpus += cpus;
				c->free_mib += (double)mem;
			}
		}
	}
	/* The slots carved from it say what it does, else itself. */
	if (partitionable) {
		if (c->slots == 0)
			snprintf(c->st, sizeof(c->st), "%s", code);
	} else if (c->slots == 1)
		snprintf(c->st, sizeof(c->st), "%s", code);
	else if (strcmp(c->st, code) != 0)
		snprintf(c->st, sizeof(c->st), "**");
	free(type);
	free(state);
}

static void
print_compact(struct row *rows, size_t n)
{
	struct compact *cs = NULL;
	size_t nc = 0, i, k;
	char *machine, *arch, *opsys, gpus[32];

	for (i = 0; i < n; i++) {
		machine = get_string(rows[i].ad, "Machine", rows[i].name);
		for (k = 0; k < nc; k++)
			if (strcmp(cs[k].machine, machine) == 0)
				break;
		if (k == nc) {
			cs = xreallocarray(cs, nc + 1, sizeof(*cs));
			memset(&cs[nc], 0, sizeof(*cs));
			cs[nc].machine = machine;
			arch = get_string(rows[i].ad, "Arch", "?");
			opsys = get_string(rows[i].ad, "OpSys", "?");
			cs[nc].platform = xasprintf("%s/%s",
			    strcmp(arch, "X86_64") == 0 ? "x64" : arch, opsys);
			free(arch);
			free(opsys);
			nc++;
		} else
			free(machine);
		compact_add(&cs[k], rows[i].ad);
	}
	printf("%-20s %-12s %5s %4s %4s %7s %6s %7s %7s %-2s\n", "Machine",
	    "Platform", "Slots", "Cpus", "Gpus", "TotalGb", "FreCpu", "FreeGb",
	    "CpuLoad", "ST");
	for (k = 0; k < nc; k++) {
		if (cs[k].gpus > 0)
			snprintf(gpus, sizeof(gpus), "%lld", cs[k].gpus);
		else
			gpus[0] = '\0';
		printf("%-20s %-12s %5lld %4lld %4s %7.1f %6lld %7.1f %7.2f %-2s\n",
		    cs[k].machine, cs[k].platform, cs[k].slots, cs[k].cpus,
		    gpus, cs[k].mem_mib / 1024, cs[k].freecpus,
		    cs[k].free_mib / 1024, cs[k].load,
		    cs[k].st[0] != '\0' ? cs[k].st : "??");
		free(cs[k].machine);
		free(cs[k].platform);
	}
	free(cs);
}

/* Is NAME one of the N names asked for (all, when none was)? */
static int
name_wanted(const char *name, char **names, int n)
{
	int i;

	if (n == 0)
		return 1;
	for (i = 0; i < n; i++)
		if (strcasecmp(name, names[i]) == 0)
			return 1;
	return 0;
}

int
main(int argc, char **argv)
{
	enum format fmt = FMT_TABLE;
	struct ad **ads;
	struct row *rows;
	struct buf constraint, projection;
	struct expr *e;
	struct sockaddr_in sin;
	struct jobfmt pf;
	char err[1024], **names;
	const char *user_constraint = NULL, *pool = NULL, *filter = NULL;
	const char **af;
	int i, n, nnames = 0, submitters = 0, running = 0;
	int adtype = ADTYPE_STARTD;
	int want_total = 0, want_long = 0, want_compact = 0, first = 1;
	size_t nrows = 0, r;
	time_t now = time(NULL);

	common_init(argv[0]);
	/* A collector that hangs up must give an error, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	names = xcalloc((size_t)argc, sizeof(*names));
	memset(&pf, 0, sizeof(pf));
	pf.id_attr = "Name";
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-h") == 0 || strcmp(a, "-help") == 0 ||
		    strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "-l") == 0 || strcmp(a, "-long") == 0) {
			want_long = 1;
		} else if (strcmp(a, "-json") == 0) {
			want_long = 2;
		} else if (strncmp(a, "-af", 3) == 0 ||
		    strncmp(a, "-autoformat", 11) == 0) {
			const char *opts = a + (a[2] == 'f' ? 3 : 11);

			if (*opts != '\0' && *opts != ':') {
				fprintf(stderr, PROG ": unknown option %s\n",
				    a);
				usage(stderr);
				return 1;
			}
			if (*opts == ':' && jobfmt_af_opts(&pf, opts + 1, err,
			    sizeof(err)) == -1)
				fatalx("%s", err);
			/* Names and expressions up to the next option. */
			pf.af = argv + i + 1;
			while (i + 1 < argc && argv[i + 1][0] != '-') {
				if (!jobfmt_expr_valid(argv[i + 1]))
					fatalx("-af: \"%s\" is neither an "
					    "attribute name nor an expression",
					    argv[i + 1]);
				pf.naf++;
				i++;
			}
			if (pf.naf == 0)
				fatalx("-af needs at least one attribute name");
		} else if (strcmp(a, "-format") == 0) {
			if (i + 2 >= argc)
				fatalx("-format needs a format and an "
				    "attribute");
			if (jobfmt_add_format(&pf, argv[i + 1], argv[i + 2],
			    err, sizeof(err)) == -1)
				fatalx("%s", err);
			i += 2;
		} else if (strcmp(a, "-schedd") == 0 ||
		    strcmp(a, "-scheduler") == 0) {
			adtype = ADTYPE_SCHEDD;
		} else if (strcmp(a, "-master") == 0) {
			adtype = ADTYPE_MASTER;
		} else if (strcmp(a, "-negotiator") == 0) {
			adtype = ADTYPE_NEGOTIATOR;
		} else if (strcmp(a, "-any") == 0) {
			adtype = ADTYPE_ANY;
		} else if (strcmp(a, "-compact") == 0) {
			want_compact = 1;
		} else if (strcmp(a, "-avail") == 0 ||
		    strcmp(a, "-available") == 0) {
			filter = "State == \"Idle\"";
		} else if (strcmp(a, "-run") == 0 ||
		    strcmp(a, "-running") == 0) {
			filter = "State == \"Claimed\"";
			running = 1;
		} else if (strcmp(a, "-submitters") == 0 ||
		    strcmp(a, "-sub") == 0) {
			submitters = 1;
		} else if (strcmp(a, "-total") == 0 ||
		    strcmp(a, "-totals") == 0) {
			want_total = 1;
		} else if (strcmp(a, "-constraint") == 0) {
			if (++i >= argc)
				fatalx("-constraint needs an expression");
			user_constraint = argv[i];
		} else if (strcmp(a, "-pool") == 0) {
			if (++i >= argc)
				fatalx("-pool needs HOST:PORT");
			pool = argv[i];
		} else if (a[0] == '-') {
			fprintf(stderr, PROG ": unknown option %s\n", a);
			usage(stderr);
			return 1;
		} else
			names[nnames++] = argv[i];
	}
	if (want_long)
		fmt = want_long == 2 ? FMT_JSON : FMT_LONG;
	else if (jobfmt_active(&pf))
		fmt = FMT_AF;
	else if (want_total)
		fmt = FMT_TOTAL;
	else if (want_compact && !submitters && !running &&
	    adtype == ADTYPE_STARTD)
		fmt = FMT_COMPACT;

	if (pool != NULL) {
		if (addr_parse(pool, &sin) == -1)
			fatalx("-pool: \"%s\" is not HOST:PORT", pool);
		config_set("COLLECTOR_HOST", pool, 0);
	}

	buf_init(&constraint);
	if (user_constraint != NULL) {
		if ((e = expr_parse(user_constraint, err, sizeof(err))) == NULL)
			fatalx("bad constraint \"%s\": %s", user_constraint,
			    err);
		expr_free(e);
		buf_printf(&constraint, "(%s)", user_constraint);
	}
	if (submitters)
		adtype = ADTYPE_SCHEDD;
	if (filter != NULL && adtype == ADTYPE_STARTD)
		buf_printf(&constraint, "%s(%s)", constraint.len ? " && " : "",
		    filter);

	/*
	 * Ask only for the columns shown: a large pool's full ads cost far
	 * more to send and parse than the few attributes a table needs.
	 */
	buf_init(&projection);
	if (fmt == FMT_AF) {
		buf_adds(&projection, "Name");
		af = jobfmt_attrs(&pf);
		for (i = 0; af[i] != NULL; i++)
			buf_printf(&projection, " %s", af[i]);
		free(af);
	} else if (fmt == FMT_COMPACT)
		buf_adds(&projection, "Name Machine State SlotType Cpus Memory "
		    "GPUs TotalSlotCpus TotalSlotMemory TotalSlotGPUs LoadAvg "
		    "Arch OpSys");
	else if (fmt != FMT_LONG && fmt != FMT_JSON &&
	    adtype == ADTYPE_STARTD)
		buf_adds(&projection, "Name State VirtualMemory Disk LoadAvg "
		    "KeyboardIdle Arch OpSys RemoteUser JobId "
		    "EnteredCurrentState");
	n = collector_query_attrs(adtype, constraint.data, projection.data, &ads, err, sizeof(err));
	buf_free(&projection);
	if (n == -1)
		fatalx("cannot query the collector at %s: %s",
		    param("COLLECTOR_HOST") ? param("COLLECTOR_HOST") : "?",
		    err);
	buf_free(&constraint);
	/* The stations' priorities are the negotiator's; "-" without it. */
	if (submitters)
		(void)negotiator_annotate_submitters(ads, n, err, sizeof(err));
	/* Output into a closed pipe ("| head") ends us quietly, as usual. */
	signal(SIGPIPE, SIG_DFL);

	rows = xcalloc((size_t)n + 1, sizeof(*rows));
	for (i = 0; i < n; i++) {
		char *name = get_string(ads[i], "Name", "?");

		if (!name_wanted(name, names, nnames)) {
			free(name);
			continue;
		}
		rows[nrows].ad = ads[i];
		rows[nrows++].name = name;
	}
	if (nrows > 1)
		qsort(rows, nrows, sizeof(*rows), row_cmp);

	if (fmt == FMT_AF)
		jobfmt_header(&pf, stdout);
	else if (fmt == FMT_TABLE && submitters)
		printf("%-20s %8s %6s %6s %6s\n", "Name", "Running", "Idle",
		    "Users", "Prio");
	else if (fmt == FMT_TABLE && adtype == ADTYPE_SCHEDD)
		printf("%-20s %-20s %11s %8s %8s\n", "Name", "Machine",
		    "RunningJobs", "IdleJobs", "HeldJobs");
	else if (fmt == FMT_TABLE && adtype == ADTYPE_MASTER)
		printf("%-20s %-20s %s\n", "Name", "Machine", "Daemons");
	else if (fmt == FMT_TABLE && adtype == ADTYPE_NEGOTIATOR)
		printf("%-20s %-20s %6s\n", "Name", "Machine", "Cycle");
	else if (fmt == FMT_TABLE && adtype == ADTYPE_ANY)
		printf("%-16s %-16s %s\n", "MyType", "TargetType", "Name");
	else if (fmt == FMT_TABLE && running)
		printf("%-20s %-24s %-10s %5s\n", "Name", "RemoteUser",
		    "JobId", "LdAvg");
	else if (fmt == FMT_TABLE)
		printf("%-20s %-5s %7s %8s %-9s %5s %8s %-7s %-7s %s\n",
		    "Name", "Avail", "Swap", "Disk", "State", "LdAvg", "Idle",
		    "Arch", "OpSys", "StateTime");
	for (r = 0; r < nrows; r++) {
		const struct ad *ad = rows[r].ad;

		switch (fmt) {
		case FMT_LONG:
			ad_fprint(ad, stdout);
			putchar('\n');
			break;
		case FMT_JSON:
			ad_json_next(ad, &first, stdout);
			break;
		case FMT_AF:
			jobfmt_print(&pf, ad, stdout);
			break;
		case FMT_TOTAL:
		case FMT_COMPACT:
			break;
		case FMT_TABLE:
			if (submitters)
				print_submitter(ad, rows[r].name);
			else if (adtype == ADTYPE_SCHEDD)
				print_schedd(ad, rows[r].name);
			else if (adtype != ADTYPE_STARTD)
				print_daemon(ad, rows[r].name, adtype);
			else if (running)
				print_running(ad, rows[r].name);
			else
				print_machine(ad, rows[r].name, now);
			break;
		}
	}
	if (fmt == FMT_COMPACT)
		print_compact(rows, nrows);
	if (adtype == ADTYPE_STARTD && (fmt == FMT_TOTAL || fmt == FMT_COMPACT ||
	    (fmt == FMT_TABLE && !running))) {
		if (fmt != FMT_TOTAL)
			putchar('\n');
		print_totals(rows, nrows);
	}

	if (fmt == FMT_JSON)
		ad_json_end(first, stdout);
	for (r = 0; r < nrows; r++)
		free(rows[r].name);
	free(rows);
	free(names);
	jobfmt_free(&pf);
	collector_free_ads(ads, n);
	if (fflush(stdout) == EOF || ferror(stdout))
		fatalx("cannot write the output");
	return 0;
}
