/*
 * submit_test: the job description language (src/submit), table-driven:
 * files that parse, with the attributes a chosen proc must get, and
 * files that must fail, with the line and words of the error.
 *
 * checks: 980
 */
#include <sys/stat.h>

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "submit.h"
#include "jobargs.h"
#include "machine.h"
#include "test.h"
#include "xalloc.h"

#define CLUSTER	7

static char dir[] = "/tmp/submit_test.XXXXXX";
static char *test_environ[] = {
	"HOME=/home/someone", "PATH=/bin:/usr/bin", "LS=a;b", NULL
};

/* A file that parses: attribute ATTR of proc PROC prints as WANT. */
struct good {
	const char	*name;
	const char	*text;
	size_t		 nprocs;
	size_t		 proc;
	const char	*attr;
	const char	*want;		/* NULL: the attribute is absent */
};

static const struct good good[] = {
	{ "minimal", "executable = /bin/true\nqueue\n", 1, 0,
	  "Cmd", "\"/bin/true\"" },
	{ "defaults in", "executable = /bin/true\nqueue\n", 1, 0,
	  "In", "\"/dev/null\"" },
	{ "defaults err", "executable = /bin/true\nqueue\n", 1, 0,
	  "Err", "\"/dev/null\"" },
	{ "default universe", "executable = /bin/true\nqueue\n", 1, 0,
	  "JobUniverse", "5" },
	{ "default notification", "executable = /bin/true\nqueue\n", 1, 0,
	  "Notification", "\"Never\"" },
	{ "undefined macro is nothing", "executable = /bin/true\n"
	  "arguments = a $(NOPE) b\nqueue\n", 1, 0, "Args", "\"a  b\"" },
	{ "undefined macro in macro", "A = x$(NOPE)\nexecutable = /bin/true\n"
	  "arguments = $(A)\nqueue\n", 1, 0, "Args", "\"x\"" },
	{ "request_memory expression", "executable = /bin/true\n"
	  "request_memory = ifThenElse(MemoryUsage =!= undefined, "
	  "MemoryUsage * 3 / 2, 1024)\nqueue\n", 1, 0, "RequestMemory",
	  "ifThenElse(MemoryUsage =!= undefined,MemoryUsage * 3 / 2,1024)" },
	{ "request_disk expression", "executable = /bin/true\n"
	  "request_disk = DiskUsage * 2\nqueue\n", 1, 0, "RequestDisk",
	  "DiskUsage * 2" },
	{ "request_cpus expression", "executable = /bin/true\n"
	  "request_cpus = TARGET.Cpus\nqueue\n", 1, 0, "RequestCpus",
	  "TARGET.Cpus" },
	{ "request_memory constant expression", "executable = /bin/true\n"
	  "request_memory = 1024 * 2\nqueue\n", 1, 0, "RequestMemory",
	  "2048" },
	{ "requestmemory alias", "executable = /bin/true\n"
	  "RequestMemory = 3000\nqueue\n", 1, 0, "RequestMemory", "3000" },
	{ "whentotransferoutput alias", "executable = /bin/true\n"
	  "WhenToTransferOutput = ON_EXIT_OR_EVICT\nqueue\n", 1, 0,
	  "WhenToTransferOutput", "\"ON_EXIT_OR_EVICT\"" },
	{ "jobbatchname quoted", "executable = /bin/true\n"
	  "JobBatchName = \"LLM run\"\nqueue\n", 1, 0, "JobBatchName",
	  "\"LLM run\"" },
	{ "custom with no value sets nothing", "executable = /bin/true\n"
	  "+X =\nqueue\n", 1, 0, "X", NULL },
	{ "description", "executable = /bin/true\ndescription = \"a b\"\n"
	  "queue\n", 1, 0, "JobDescription", "\"a b\"" },
	{ "not honoured after the last queue", "executable = /bin/true\n"
	  "queue\nx509userproxy = /tmp/x\n", 1, 0, "Cmd", "\"/bin/true\"" },
	{ "hold status", "executable = /bin/true\nhold = true\nqueue\n", 1,
	  0, "JobStatus", "5" },
	{ "hold code", "executable = /bin/true\nhold = true\nqueue\n", 1,
	  0, "HoldReasonCode", "15" },
	{ "hold reason", "executable = /bin/true\nhold = true\nqueue\n", 1,
	  0, "HoldReason", "\"submitted on hold at user's request\"" },
	{ "hold false", "executable = /bin/true\nhold = false\nqueue\n", 1,
	  0, "JobStatus", NULL },
	{ "no hold attribute", "executable = /bin/true\nhold = true\nqueue\n",
	  1, 0, "Hold", NULL },
	{ "stream_output", "executable = /bin/true\nstream_output = true\n"
	  "queue\n", 1, 0, "StreamOut", "true" },
	{ "stream_error", "executable = /bin/true\nstream_error = False\n"
	  "queue\n", 1, 0, "StreamErr", "false" },
	{ "max_materialize", "executable = /bin/true\nmax_materialize = 10\n"
	  "queue 100\n", 100, 99, "JobMaterializeLimit", "10" },
	{ "max_idle", "executable = /bin/true\nmax_idle = 5\nqueue 100\n",
	  100, 0, "JobMaterializeMaxIdle", "5" },
	{ "machine executable", "universe = vanilla\n"
	  "executable = /bin/prog.$$(OpSys).$$(Arch)\nqueue\n", 1, 0, "Cmd",
	  "\"/bin/prog.$$(OpSys).$$(Arch)\"" },
	{ "default prio", "executable = /bin/true\nqueue\n", 1, 0,
	  "UserPrio", "0" },
	{ "default rank", "executable = /bin/true\nqueue\n", 1, 0,
	  "Rank", "0.0" },
	{ "default iwd", "executable = /bin/true\nqueue\n", 1, 0,
	  "Iwd", "\"/work/dir\"" },
	{ "default rootdir", "executable = /bin/true\nqueue\n", 1, 0,
	  "RootDir", "\"/\"" },
	{ "no log by default", "executable = /bin/true\nqueue\n", 1, 0,
	  "UserLog", NULL },
	{ "relative executable", "executable = bin/prog\nqueue\n", 1, 0,
	  "Cmd", "\"/work/dir/bin/prog\"" },
	{ "keywords any case", "EXECUTABLE = /bin/true\nArguments = a b\n"
	  "QUEUE\n", 1, 0, "Args", "\"a b\"" },
	{ "queue n", "executable = /bin/true\nqueue 5\n", 5, 4,
	  "ProcId", "4" },
	{ "process expands", "executable = /bin/true\narguments = -n "
	  "$(Process)\nqueue 3\n", 3, 2, "Args", "\"-n 2\"" },
	{ "procid too", "executable = /bin/true\narguments = $(ProcId)\n"
	  "queue 3\n", 3, 1, "Args", "\"1\"" },
	{ "cluster expands", "executable = /bin/true\noutput = "
	  "out.$(Cluster).$(Process)\nqueue 2\n", 2, 1, "Out",
	  "\"/work/dir/out.7.1\"" },
	{ "cluster any case", "executable = /bin/true\noutput = "
	  "o.$(cluster)\nqueue\n", 1, 0, "Out", "\"/work/dir/o.7\"" },
	{ "initialdir relative files", "executable = /bin/true\n"
	  "initialdir = run\ninput = in\noutput = /abs/out\nerror = e\n"
	  "log = job.log\nqueue\n", 1, 0, "In", "\"/work/dir/run/in\"" },
	{ "initialdir absolute out", "executable = /bin/true\n"
	  "initialdir = run\noutput = /abs/out\nqueue\n", 1, 0, "Out",
	  "\"/abs/out\"" },
	{ "initialdir log", "executable = /bin/true\ninitialdir = /r\n"
	  "log = job.log\nqueue\n", 1, 0, "UserLog", "\"/r/job.log\"" },
	{ "initialdir keeps executable", "executable = prog\n"
	  "initialdir = /r\nqueue\n", 1, 0, "Cmd", "\"/work/dir/prog\"" },
	{ "several queues snapshot", "executable = /bin/true\n"
	  "arguments = first\nqueue 2\narguments = second\nqueue\n", 3, 1,
	  "Args", "\"first\"" },
	{ "several queues second", "executable = /bin/true\n"
	  "arguments = first\nqueue 2\narguments = second\nqueue\n", 3, 2,
	  "Args", "\"second\"" },
	{ "process across queues", "executable = /bin/true\n"
	  "arguments = $(Process)\nqueue 2\nqueue 2\n", 4, 3, "Args",
	  "\"3\"" },
	{ "macro", "N = 10\nexecutable = /bin/true\narguments = -n $(N)\n"
	  "queue\n", 1, 0, "Args", "\"-n 10\"" },
	{ "macro defined later", "executable = /bin/true\narguments = "
	  "$(N)\nN = late\nqueue\n", 1, 0, "Args", "\"late\"" },
	{ "macro of macro", "A = $(B)x\nB = $(Process)y\nexecutable = "
	  "/bin/true\narguments = $(A)\nqueue 2\n", 2, 1, "Args", "\"1yx\"" },
	{ "macro default", "executable = /bin/true\narguments = "
	  "$(NOPE:dflt)\nqueue\n", 1, 0, "Args", "\"dflt\"" },
	{ "keyword as macro", "executable = /bin/true\noutput = "
	  "$(executable).out\nqueue\n", 1, 0, "Out", "\"/bin/true.out\"" },
	{ "env macro", "executable = /bin/true\narguments = $ENV(HOME)\n"
	  "queue\n", 1, 0, "Args", "\"/home/someone\"" },
	{ "dollar alone", "executable = /bin/true\narguments = a$b $ c\n"
	  "queue\n", 1, 0, "Args", "\"a$b $ c\"" },
	{ "comments and blanks", "# a job\n\n   # indented comment\n"
	  "executable = /bin/true\n\nqueue\n", 1, 0, "Cmd",
	  "\"/bin/true\"" },
	{ "continuation", "executable = /bin/true\narguments = one \\\n"
	  "two\nqueue\n", 1, 0, "Args", "\"one two\"" },
	{ "crlf", "executable = /bin/true\r\narguments = x\r\nqueue\r\n",
	  1, 0, "Args", "\"x\"" },
	{ "no final newline", "executable = /bin/true\nqueue 2", 2, 1,
	  "Cmd", "\"/bin/true\"" },
	{ "vanilla", "universe = vanilla\nexecutable = /bin/true\nqueue\n",
	  1, 0, "JobUniverse", "5" },
	{ "vanilla name", "universe = Vanilla\nexecutable = /bin/true\n"
	  "queue\n", 1, 0, "Universe", "\"vanilla\"" },
	{ "requirements defaults", "executable = /bin/true\nqueue\n", 1, 0,
	  "Requirements", NULL /* checked below */ },
	{ "priority", "executable = /bin/true\npriority = -20\nqueue\n",
	  1, 0, "UserPrio", "-20" },
	{ "notification", "executable = /bin/true\nnotification = "
	  "never\nqueue\n", 1, 0, "Notification", "\"Never\"" },
	{ "notify_user", "executable = /bin/true\nnotify_user = "
	  "a@b.c\nqueue\n", 1, 0, "NotifyUser", "\"a@b.c\"" },
	{ "rank", "executable = /bin/true\nrank = Memory\nqueue\n", 1, 0,
	  "Rank", "Memory" },
	{ "preferences", "executable = /bin/true\npreferences = Memory * "
	  "2\nqueue\n", 1, 0, "Rank", "Memory * 2" },
	{ "image_size", "executable = /bin/true\nimage_size = 2048\nqueue\n",
	  1, 0, "ImageSize", "2048" },
	{ "image_size M", "executable = /bin/true\nimage_size = 3M\nqueue\n",
	  1, 0, "ImageSize", "3072" },
	{ "rootdir", "executable = /bin/true\nrootdir = /jail\nqueue\n", 1,
	  0, "RootDir", "\"/jail\"" },
	{ "environment", "executable = /bin/true\nenvironment = A=1;B=two "
	  "words\nqueue\n", 1, 0, "Env", "\"A=1;B=two words\"" },
	{ "opsys of the user's own", "OPSYS = mine\nexecutable = /bin/true\n"
	  "arguments = $(OPSYS)\nqueue\n", 1, 0, "Args", "\"mine\"" },
	{ "random integer in range", "executable = /bin/true\narguments = "
	  "$RANDOM_INTEGER(7, 7)\nqueue\n", 1, 0, "Args", "\"7\"" },
	{ "random integer step", "executable = /bin/true\narguments = "
	  "$RANDOM_INTEGER(10,10,5)\nqueue 2\n", 2, 1, "Args", "\"10\"" },
	{ "random choice of one", "executable = /bin/true\narguments = "
	  "$RANDOM_CHOICE(only)\nqueue\n", 1, 0, "Args", "\"only\"" },
	{ "if defined", "X = 1\nexecutable = /bin/true\nif defined X\n"
	  "arguments = yes\nelse\narguments = no\nendif\nqueue\n", 1, 0,
	  "Args", "\"yes\"" },
	{ "if not defined", "executable = /bin/true\nIF !defined X\n"
	  "arguments = yes\nELSE\narguments = no\nENDIF\nqueue\n", 1, 0,
	  "Args", "\"yes\"" },
	{ "elif", "N = 3\nexecutable = /bin/true\nif $(N) > 5\narguments = "
	  "big\nelif $(N) == 3\narguments = three\nelif $(N) > 1\n"
	  "arguments = also\nelse\narguments = small\nendif\nqueue\n", 1, 0,
	  "Args", "\"three\"" },
	{ "if yes/no", "executable = /bin/true\nif no\narguments = a\n"
	  "elif yes\narguments = b\nendif\nqueue\n", 1, 0, "Args", "\"b\"" },
	{ "nested if, outer false", "executable = /bin/true\narguments = o\n"
	  "if false\nif true\narguments = inner\nendif\nelse\nif true\n"
	  "arguments = other\nendif\nendif\nqueue\n", 1, 0, "Args",
	  "\"other\"" },
	{ "a branch not taken is not looked at", "executable = /bin/true\n"
	  "if false\nif $(UNDEFINED_X) +\nnot even a setting\nendif\nendif\n"
	  "queue\n", 1, 0, "Args", "\"\"" },
	{ "if as a macro name", "if = 4\nexecutable = /bin/true\narguments = "
	  "$(if)\nqueue\n", 1, 0, "Args", "\"4\"" },
	{ "periodic_hold", "executable = /bin/true\nperiodic_hold = "
	  "NumJobStarts > 2\nqueue\n", 1, 0, "PeriodicHold",
	  "NumJobStarts > 2" },
	{ "periodic_release", "executable = /bin/true\nPeriodic_Release = "
	  "true\nqueue\n", 1, 0, "PeriodicRelease", "true" },
	{ "on_exit_hold", "executable = /bin/true\non_exit_hold = ExitCode "
	  "== 3\nqueue\n", 1, 0, "OnExitHold", "ExitCode == 3" },
	{ "on_exit_remove alone", "executable = /bin/true\non_exit_remove = "
	  "ExitCode < 5\nqueue\n", 1, 0, "OnExitRemove", "ExitCode < 5" },
	{ "max_retries", "executable = /bin/true\nmax_retries = 2\nqueue\n",
	  1, 0, "OnExitRemove",
	  "NumJobCompletions > JobMaxRetries || ExitCode =?= 0" },
	{ "max_retries JobMaxRetries", "executable = /bin/true\n"
	  "max_retries = 2\nqueue\n", 1, 0, "JobMaxRetries", "2" },
	{ "max_retries or'ed with on_exit_remove", "executable = /bin/true\n"
	  "max_retries = 1\non_exit_remove = ExitCode == 7\nqueue\n", 1, 0,
	  "OnExitRemove", "ExitCode == 7 || NumJobCompletions > "
	  "JobMaxRetries || ExitCode =?= 0" },
	{ "request_cpus", "executable = /bin/true\nrequest_cpus = 4\nqueue\n",
	  1, 0, "RequestCpus", "4" },
	{ "request_disk bare is KB", "executable = /bin/true\n"
	  "request_disk = 500\nqueue\n", 1, 0, "RequestDisk", "500" },
	{ "request_disk in GB", "executable = /bin/true\n"
	  "REQUEST_DISK = 1 GB\nqueue\n", 1, 0, "RequestDisk", "1048576" },
	{ "request_disk in mb", "executable = /bin/true\n"
	  "request_disk = 2mb\nqueue\n", 1, 0, "RequestDisk", "2048" },
	{ "request_memory in GB", "executable = /bin/true\n"
	  "request_memory = 2 GB\nqueue\n", 1, 0, "RequestMemory", "2048" },
	{ "request_memory bare is MB", "executable = /bin/true\n"
	  "request_memory = 512\nqueue\n", 1, 0, "RequestMemory", "512" },
	{ "request_memory in KB", "executable = /bin/true\n"
	  "request_memory = 4096 KB\nqueue\n", 1, 0, "RequestMemory", "4" },
	{ "request per proc", "executable = /bin/true\n"
	  "request_cpus = $(Item)\nqueue in (1 2 8)\n", 3, 2, "RequestCpus",
	  "8" },
	{ "queue in", "executable = /bin/true\narguments = $(x)\n"
	  "queue x in (a b c)\n", 3, 1, "Args", "\"b\"" },
	{ "queue in commas", "executable = /bin/true\narguments = $(Item)\n"
	  "queue in (a, b,c)\n", 3, 2, "Args", "\"c\"" },
	{ "queue in over lines", "executable = /bin/true\narguments = $(x)\n"
	  "QUEUE x IN (\n  a\n  b\n)\n", 2, 1, "Args",
	  "\"b\"" },
	{ "queue in over lines, CRLF", "executable = /bin/true\r\n"
	  "arguments = $(x)\r\nqueue x in (\r\na\r\nb\r\n)\r\n", 2, 1,
	  "Args", "\"b\"" },
	{ "queue N in", "executable = /bin/true\narguments = "
	  "$(Item)-$(Step)-$(Row)\nqueue 2 in (a b)\n", 4, 3, "Args",
	  "\"b-1-1\"" },
	{ "queue N in, process", "executable = /bin/true\narguments = "
	  "$(Process)\nqueue 2 in (a b)\n", 4, 3, "Args", "\"3\"" },
	{ "queue from inline", "executable = /bin/true\narguments = "
	  "$(a)/$(b)\nqueue a,b from (\n1 x\n# not an item\n\n2 y z\n)\n",
	  2, 1, "Args", "\"2/y z\"" },
	{ "queue from inline, one variable gets the line", "executable = "
	  "/bin/true\narguments = $(Item)\nqueue from (\n  p q  \n)\n", 1, 0,
	  "Args", "\"p q\"" },
	{ "queue vars win over macros", "x = macro\nexecutable = /bin/true\n"
	  "arguments = $(x)\nqueue x in (item)\n", 1, 0, "Args",
	  "\"item\"" },
	{ "queue variables named as keywords set them", "executable = "
	  "/bin/true\nqueue input,arguments from (\n  f1, -a -b 26\n"
	  "  f2, -c -d 92\n)\n", 2, 1, "Args", "\"-c -d 92\"" },
	{ "queue 1 input in A, B", "executable = /bin/true\n"
	  "queue 1 input in A, B\n", 2, 1, "In", "\"/work/dir/B\"" },
	{ "if on an empty value is false", "E =\nexecutable = /bin/true\n"
	  "arguments = a\nif $(E)\narguments = b\nendif\nqueue\n", 1, 0,
	  "Args", "\"a\"" },
	{ "initial_dir is initialdir", "executable = /bin/true\n"
	  "initial_dir = /tmp\nqueue\n", 1, 0, "Iwd", "\"/tmp\"" },
	{ "$F functions", "executable = /bin/true\narguments = $Fnx(f) "
	  "$Fp(f) $Fn(f) $Fx(f) $Fxb(f) $Fdb(f) $Fd(f) $BASENAME(f) "
	  "$DIRNAME(f)\nqueue f in (dir/sub/a.tar.gz)\n", 1, 0, "Args",
	  "\"a.tar.gz dir/sub/ a.tar .gz gz sub sub/ a.tar.gz dir/sub/\"" },
	{ "$Ff makes a path full", "executable = /bin/true\nx = in/y.dat\n"
	  "arguments = $Ff(x) $Ffn(x) $Fqa(x)\nqueue\n", 1, 0, "Args",
	  "\"/work/dir/in/y.dat y 'in/y.dat'\"" },
	{ "$INT with a format", "N = $(Process) + 1\nexecutable = "
	  "/bin/true\narguments = run-$INT(N, %04d) $INT(N)\nqueue 3\n", 3,
	  2, "Args", "\"run-0003 3\"" },
	{ "$ENV with a default", "executable = /bin/true\narguments = "
	  "$ENV(NOT_SET:none) $ENV(HOME:x)\nqueue\n", 1, 0, "Args",
	  "\"none /home/someone\"" },
	{ "$$(Attr) is kept for match time", "executable = /bin/true\n"
	  "arguments = $$(Machine) $$([Memory * 2]) $$\nqueue\n", 1, 0,
	  "Args", "\"$$(Machine) $$([Memory * 2]) $$\"" },
	{ "a macro that names itself has its earlier value", "A = x\n"
	  "A = $(A) y\nexecutable = /bin/true\narguments = $(A)\n"
	  "arguments = $(Arguments) z\nqueue\n", 1, 0, "Args",
	  "\"x y z\"" },
	{ "a macro that names itself first has its default", "A = "
	  "$(A:a) b\nexecutable = /bin/true\narguments = $(A)\nqueue\n", 1,
	  0, "Args", "\"a b\"" },
	{ "queue in a slice", "executable = /bin/true\narguments = $(x)\n"
	  "queue x in [1:3] (a b c d)\n", 2, 1, "Args", "\"c\"" },
	{ "queue from a slice with a step", "executable = /bin/true\n"
	  "arguments = $(x)\nqueue x from [::2] (\na\nb\nc\nd\ne\n)\n", 3,
	  2, "Args", "\"e\"" },
	{ "queue in a negative slice", "executable = /bin/true\n"
	  "arguments = $(Item)\nqueue in [-2:] (a b c)\n", 2, 0, "Args",
	  "\"b\"" },
	{ "queue an expression", "N = 2\nexecutable = /bin/true\n"
	  "arguments = $(Process)\nqueue $(N) * 3\n", 6, 5, "Args",
	  "\"5\"" },
	{ "queue from items with parentheses", "executable = /bin/true\n"
	  "arguments = $(f)\nqueue f from (\n  f(1)\n  g(2, 3)\n  h\n)\n", 3,
	  1, "Args", "\"g(2, 3)\"" },
	{ "queue in closed at the end of an item line", "executable = "
	  "/bin/true\narguments = $(x)\nqueue x in (a\n  b c)\n", 3, 2, "Args",
	  "\"c\"" },
	{ "queue in a list with macros", "A = a1\nexecutable = /bin/true\n"
	  "arguments = $(x)\nqueue x in ($(A) b)\n", 2, 0, "Args",
	  "\"a1\"" },
	{ "queue in, then plain", "executable = /bin/true\narguments = "
	  "$(x:none)\nqueue x in (a b)\nqueue\n", 3, 2, "Args",
	  "\"none\"" },
	{ "new-style environment", "executable = /bin/true\nenvironment = "
	  "\"A=1 B='x y' C=it''s\"\nqueue\n", 1, 0, "Env",
	  "\"A=1;B=x y;C=its\"" },
	{ "new-style environment over getenv", "executable = /bin/true\n"
	  "getenv = True\nenvironment = \"HOME='/x y'\"\nqueue\n", 1, 0,
	  "Env", "\"PATH=/bin:/usr/bin;HOME=/x y\"" },
	{ "new-style arguments", "executable = /bin/true\narguments = "
	  "\"a  b\"\nqueue\n", 1, 0, "Args", "\"a b\"" },
	{ "new-style arguments quoted", "executable = /bin/true\n"
	  "arguments = \"'it''s' x\"\nqueue\n", 1, 0, "Args",
	  "\"it's x\"" },
	{ "getenv a pattern that names none", "executable = /bin/true\n"
	  "getenv = maybe\nqueue\n", 1, 0, "Env", "\"\"" },
	{ "getenv a list", "executable = /bin/true\ngetenv = PATH\nqueue\n",
	  1, 0, "Env", "\"PATH=/bin:/usr/bin\"" },
	{ "getenv a pattern", "executable = /bin/true\ngetenv = H*\nqueue\n",
	  1, 0, "Env", "\"HOME=/home/someone\"" },
	{ "getenv a list and environment", "executable = /bin/true\n"
	  "getenv = PATH, NOPE*\nenvironment = \"X=1\"\nqueue\n", 1, 0, "Env",
	  "\"PATH=/bin:/usr/bin;X=1\"" },
	{ "getenv", "executable = /bin/true\ngetenv = true\nqueue\n", 1, 0,
	  "Env", "\"HOME=/home/someone;PATH=/bin:/usr/bin\"" },
	{ "getenv and environment", "executable = /bin/true\n"
	  "getenv = True\nenvironment = HOME=/x;Z=1\nqueue\n", 1, 0, "Env",
	  "\"PATH=/bin:/usr/bin;HOME=/x;Z=1\"" },
	{ "custom", "executable = /bin/true\n+Department = \"physics\"\n"
	  "queue\n", 1, 0, "Department", "\"physics\"" },
	{ "custom expression", "executable = /bin/true\n+Weight = 2 * "
	  "$(Process)\nqueue 3\n", 3, 2, "Weight", "2 * 2" },
	{ "custom my", "executable = /bin/true\nMY.Color = 1\nqueue\n", 1,
	  0, "Color", "1" },
	{ "custom cluster", "executable = /bin/true\n+Group = $(Cluster)\n"
	  "queue\n", 1, 0, "Group", "7" },
	{ "custom overrides", "executable = /bin/true\n+ImageSize = 99\n"
	  "queue\n", 1, 0, "ImageSize", "99" },
	{ "custom later value", "executable = /bin/true\n+X = 1\nqueue\n"
	  "+X = 2\nqueue\n", 2, 1, "X", "2" },
	{ "custom first value", "executable = /bin/true\n+X = 1\nqueue\n"
	  "+X = 2\nqueue\n", 2, 0, "X", "1" },
	{ "custom only later", "executable = /bin/true\nqueue\n"
	  "+X = 2\nqueue\n", 2, 0, "X", NULL },
	{ "queue 0 then 1", "executable = /bin/true\nqueue 0\nqueue 1\n", 1,
	  0, "Cmd", "\"/bin/true\"" },
	{ "ignored transfer", "executable = /bin/true\n"
	  "should_transfer_files = YES\nqueue\n", 1, 0, "Cmd",
	  "\"/bin/true\"" },
	{ "accounting zero", "executable = /bin/true\nqueue\n", 1, 0,
	  "NumCkpts", "0" },
	{ "value with equals", "executable = /bin/true\narguments = a=b\n"
	  "queue\n", 1, 0, "Args", "\"a=b\"" },
	{ "quotes escaped", "executable = /bin/true\narguments = say "
	  "\"hi\\\"\nqueue\n", 1, 0, "Args", "\"say \\\"hi\\\\\\\"\"" },
};

/* A file that must fail: the error starts with "f:LINE: " and has WORDS. */
struct bad {
	const char	*name;
	const char	*text;
	int		 line;
	const char	*words;
};

static const struct bad bad[] = {
	{ "new-style arguments open quote", "executable = /bin/true\n"
	  "arguments = \"a 'b\"\nqueue\n", 2, "single quote is not closed" },
	{ "new-style arguments lone quote", "executable = /bin/true\n"
	  "arguments = \"a \" b\"\nqueue\n", 2, "lone \"" },
	{ "new-style environment semicolon", "executable = /bin/true\n"
	  "environment = \"A='x;y'\"\nqueue\n", 2, "cannot hold ';'" },
	{ "no queue", "executable = /bin/true\n", 1, "no queue" },
	{ "empty file", "", 1, "no queue" },
	{ "no executable", "arguments = x\nqueue\n", 2, "no executable" },
	{ "queue -1", "executable = /bin/true\nqueue -1\n", 2,
	  "queue count" },
	{ "max_retries negative", "executable = /bin/true\n"
	  "max_retries = -1\nqueue\n", 2, "max_retries must be" },
	{ "periodic_hold not an expression", "executable = /bin/true\n"
	  "periodic_hold = (((\nqueue\n", 2, "periodic_hold" },
	{ "on_exit_remove not an expression", "executable = /bin/true\n"
	  "on_exit_remove = 1 +\nqueue\n", 2, "on_exit_remove" },
	{ "request_cpus 0", "executable = /bin/true\nrequest_cpus = 0\n"
	  "queue\n", 2, "whole number of cores" },
	{ "request_cpus fraction", "executable = /bin/true\n"
	  "request_cpus = 1.5\nqueue\n", 2, "whole number of cores" },
	{ "request_disk word", "executable = /bin/true\n"
	  "request_disk = lots\nqueue\n", 2, "positive amount of disk" },
	{ "request_memory unit", "executable = /bin/true\n"
	  "request_memory = 2 XB\nqueue\n", 2, "positive amount of memory" },
	{ "else without if", "executable = /bin/true\nelse\nqueue\n", 2,
	  "else without if" },
	{ "endif without if", "executable = /bin/true\nendif\nqueue\n", 2,
	  "endif without if" },
	{ "elif without if", "executable = /bin/true\nelif true\nqueue\n", 2,
	  "elif without if" },
	{ "if without endif", "executable = /bin/true\n\nif true\nqueue\n",
	  3, "if without endif" },
	{ "if not a condition", "executable = /bin/true\nif (((\nendif\n"
	  "queue\n", 2, "is not a condition" },
	{ "if defined bad name", "executable = /bin/true\nif defined a-b\n"
	  "endif\nqueue\n", 2, "bad name" },
	{ "include missing", "executable = /bin/true\ninclude : /nonexistent"
	  "/x.sub\nqueue\n", 2, "No such file" },
	{ "include a device", "executable = /bin/true\ninclude : /dev/zero\n"
	  "queue\n", 2, "not a regular file" },
	{ "setting after the last queue", "executable = /bin/true\nqueue\n"
	  "\n+Late = 1\n", 4, "after the last queue statement (line 2)" },
	{ "keyword after the last queue", "executable = /bin/true\nqueue x in "
	  "(\na\n)\noutput = o\n", 5, "output comes after the last queue" },
	{ "random integer backwards", "executable = /bin/true\narguments = "
	  "$RANDOM_INTEGER(5,1)\nqueue\n", 2, "LOW <= HIGH, not "
	  "\"$RANDOM_INTEGER(5,1)\"" },
	{ "random choice empty", "executable = /bin/true\narguments = "
	  "$RANDOM_CHOICE()\nqueue\n", 2, "no choices" },
	{ "queue word", "executable = /bin/true\nqueue many\n", 2,
	  "queue takes [N] [VARS in|from|matching" },
	{ "queue in unclosed", "executable = /bin/true\nqueue f in (a b\n"
	  "arguments = x\n", 2, "not closed" },
	{ "queue matching unclosed", "executable = /bin/true\n"
	  "queue f matching (a*\n", 2, "not closed" },
	{ "$INT with a bad format", "N = 1\nexecutable = /bin/true\n"
	  "arguments = $INT(N, %s)\nqueue\n", 3, "format" },
	{ "$INT of a word", "N = abc\nexecutable = /bin/true\n"
	  "arguments = $INT(N)\nqueue\n", 3, "not a number" },
	{ "queue slice step 0", "executable = /bin/true\n"
	  "queue x in [::0] (a b)\n", 2, "slice" },
	{ "queue slice not numbers", "executable = /bin/true\n"
	  "queue x in [a:b] (a b)\n", 2, "slice" },
	{ "queue slice unclosed", "executable = /bin/true\n"
	  "queue x in [1: (a b)\n", 2, "slice" },
	{ "$RANDOM_INTEGER over the whole range", "executable = /bin/true\n"
	  "arguments = $RANDOM_INTEGER(-9223372036854775808, "
	  "9223372036854775807)\nqueue\n", 2, "RANDOM_INTEGER" },
	{ "queue a negative expression", "executable = /bin/true\n"
	  "queue 2 - 3\n", 2, "queue takes" },
	{ "queue from unclosed", "executable = /bin/true\nqueue f from (\n"
	  "a\n", 2, "not closed" },
	{ "queue from no file", "executable = /bin/true\n"
	  "queue f from /nonexistent/list\n", 2, "No such file" },
	{ "queue from nothing", "executable = /bin/true\nqueue f from\n", 2,
	  "missing" },
	{ "queue from a device", "executable = /bin/true\n"
	  "queue f from /dev/zero\n", 2, "not a regular file" },
	{ "queue bad variable", "executable = /bin/true\n"
	  "queue 1x in (a)\n", 2, "the queue count" },
	{ "queue bad variable name", "executable = /bin/true\n"
	  "queue a-b in (a)\n", 2, "bad variable name" },
	{ "queue items too many", "executable = /bin/true\n"
	  "queue 50001 in (a b)\n", 2, "too many" },
	{ "queue too many", "executable = /bin/true\nqueue 100001\n", 2,
	  "too many" },
	{ "queue too many sum", "executable = /bin/true\nqueue 60000\n"
	  "queue 60000\n", 3, "too many" },
	{ "queue only zero", "executable = /bin/true\nqueue 0\n", 2,
	  "nothing to submit" },
	{ "misspelt executable", "executible = /bin/true\n"
	  "queue\n", 2, "no executable" },
	{ "no equals", "executable /bin/true\nqueue\n", 1, "NAME = value" },
	{ "bad name", "exec-utable = /bin/true\nqueue\n", 1, "bad name" },
	{ "no name", " = x\nqueue\n", 1, "name is missing" },
	{ "bad requirement", "executable = /bin/true\n"
	  "requirements = Memory >\nqueue\n", 2, "requirements" },
	{ "bad requirement later", "executable = /bin/true\n\n# c\n"
	  "requirements = (Memory > 1\nqueue\n", 4, "requirements" },
	{ "bad rank", "executable = /bin/true\nrank = ((\nqueue\n", 2,
	  "rank" },
	{ "bad custom", "executable = /bin/true\n+X = 1 +\nqueue\n", 2,
	  "X" },
	{ "bad custom name", "executable = /bin/true\n+1X = 1\nqueue\n", 2,
	  "bad attribute name" },
	{ "priority range", "executable = /bin/true\npriority = 21\nqueue\n",
	  2, "priority" },
	{ "priority word", "executable = /bin/true\npriority = high\n"
	  "queue\n", 2, "priority" },
	{ "notification", "executable = /bin/true\nnotification = "
	  "sometimes\nqueue\n", 2, "notification" },
	{ "universe", "executable = /bin/true\nuniverse = java\nqueue\n", 2,
	  "universe" },
	{ "image_size", "executable = /bin/true\nimage_size = -5\nqueue\n",
	  2, "image_size" },
	{ "environment", "executable = /bin/true\nenvironment = A=1;junk\n"
	  "queue\n", 2, "environment" },
	{ "rootdir relative", "executable = /bin/true\nrootdir = jail\n"
	  "queue\n", 2, "rootdir" },
	{ "request_memory a word", "executable = /bin/true\n"
	  "request_memory = lots\nqueue\n", 2, "request_memory must be" },
	{ "request_memory negative expression", "executable = /bin/true\n"
	  "request_memory = 1 - 2048\nqueue\n", 2, "request_memory must be" },
	{ "request_cpus a string", "executable = /bin/true\n"
	  "request_cpus = \"four\"\nqueue\n", 2, "request_cpus must be" },
	{ "hold not a boolean", "executable = /bin/true\nhold = maybe\n"
	  "queue\n", 2, "hold must be true or false" },
	{ "stream_output not a boolean", "executable = /bin/true\n"
	  "stream_output = sometimes\nqueue\n", 2,
	  "stream_output must be true or false" },
	{ "max_idle zero", "executable = /bin/true\nmax_idle = 0\nqueue\n",
	  2, "max_idle must be" },
	{ "machine value outside a string", "executable = /bin/true\n"
	  "+S = $$(Name)\nqueue\n", 2, "goes inside a string" },
	{ "machine directory", "universe = vanilla\n"
	  "executable = /opt/$$(Arch)/prog\nqueue\n", 2, "not its directory" },
	{ "unterminated", "executable = /bin/true\narguments = $(A\nqueue\n",
	  2, "unterminated" },
	{ "macro loop", "A = $(B)\nB = $(A)\nexecutable = /bin/true\n"
	  "arguments = $(A)\nqueue\n", 1, "nested" },
	{ "macro bomb", "A = $(B)$(B)$(B)$(B)$(B)$(B)$(B)$(B)\n"
	  "B = $(C)$(C)$(C)$(C)$(C)$(C)$(C)$(C)\n"
	  "C = $(D)$(D)$(D)$(D)$(D)$(D)$(D)$(D)\n"
	  "D = $(E)$(E)$(E)$(E)$(E)$(E)$(E)$(E)\n"
	  "E = $(F)$(F)$(F)$(F)$(F)$(F)$(F)$(F)\nF = xxxxxxxx\n"
	  "executable = /bin/true\narguments = $(A)\nqueue\n", 5,
	  "macros expanded" },
	{ "redefine process", "Process = 3\nexecutable = /bin/true\nqueue\n",
	  1, "cannot be redefined" },
	{ "executable per proc", "executable = /bin/$(Process)\nqueue 2\n",
	  1, "executable" },
	{ "executable per cluster", "executable = /bin/x$(Cluster)\n"
	  "queue\n", 1, "executable" },
	{ "queue is not a setting", "executable = /bin/true\nqueue = 3\n",
	  2, "statement" },
	{ "continued line error", "executable = /bin/true\n"
	  "requirements = Memory > \\\n  >\nqueue\n", 2, "requirements" },
	{ "nul byte", "executable = /bin/true\narguments = a\0b\nqueue\n",
	  2, "NUL" },
	{ "error per proc", "executable = /bin/true\n"
	  "priority = $(Process)\nqueue 30\n", 2, "priority" },
	{ "first error wins", "executable = /bin/true\npriority = 99\n"
	  "universe = java\nqueue\n", 3, "universe" },
};

static void
check_good(const struct good *g, const struct submit_env *env)
{
	struct submit_result res;
	struct ad *ad;
	const struct expr *e;
	char err[1024], name[256];
	char *text;
	int rc;

	rc = submit_parse(g->text, strlen(g->text), "f", env, &res, err,
	    sizeof(err));
	snprintf(name, sizeof(name), "good %s: parses", g->name);
	CHECK(name, rc == 0);
	if (rc != 0) {
		printf("    error: %s\n", err);
		submit_result_free(&res);
		return;
	}
	snprintf(name, sizeof(name), "good %s: %zu procs", g->name,
	    g->nprocs);
	CHECK(name, res.nprocs == g->nprocs);
	ad = submit_proc_ad(&res, g->proc, CLUSTER, err, sizeof(err));
	snprintf(name, sizeof(name), "good %s: proc ad", g->name);
	CHECK(name, ad != NULL);
	if (ad == NULL) {
		printf("    error: %s\n", err);
		submit_result_free(&res);
		return;
	}
	e = ad_lookup(ad, g->attr);
	snprintf(name, sizeof(name), "good %s: %s", g->name, g->attr);
	if (strcmp(g->attr, "Requirements") == 0) {
		text = e ? expr_to_string(e) : xstrdup("");
		CHECK(name, strstr(text, "Arch == ") != NULL &&
		    strstr(text, "OpSys == ") != NULL &&
		    strstr(text, "Disk >= ImageSize") != NULL);
		free(text);
	} else if (g->want == NULL)
		CHECK(name, e == NULL);
	else {
		text = e ? expr_to_string(e) : xstrdup("(absent)");
		CHECK_STR(name, text, g->want);
		free(text);
	}
	ad_free(ad);
	submit_result_free(&res);
}

static void
check_bad(const struct bad *b, const struct submit_env *env)
{
	struct submit_result res;
	char err[1024], name[256], prefix[32];
	size_t len = strlen(b->text);
	int rc;

	/* The NUL case has a NUL in the middle: measure to "queue". */
	if (strcmp(b->name, "nul byte") == 0)
		len = sizeof("executable = /bin/true\narguments = a\0b\n"
		    "queue\n") - 1;
	rc = submit_parse(b->text, len, "f", env, &res, err, sizeof(err));
	snprintf(name, sizeof(name), "bad %s: fails", b->name);
	CHECK(name, rc == -1);
	snprintf(prefix, sizeof(prefix), "f:%d: ", b->line);
	snprintf(name, sizeof(name), "bad %s: names line %d", b->name,
	    b->line);
	CHECK(name, rc == -1 && strncmp(err, prefix, strlen(prefix)) == 0);
	snprintf(name, sizeof(name), "bad %s: says \"%s\"", b->name,
	    b->words);
	CHECK(name, rc == -1 && strstr(err, b->words) != NULL);
	if (rc == -1 && (strncmp(err, prefix, strlen(prefix)) != 0 ||
	    strstr(err, b->words) == NULL))
		printf("    error was: %s\n", err);
	snprintf(name, sizeof(name), "bad %s: nothing to queue", b->name);
	CHECK(name, res.nprocs == 0);
	submit_result_free(&res);
}

/* A minimal ELF file with one extra section named SECTION (or none). */
static void
write_elf(const char *path, const char *section)
{
	char strtab[64];
	size_t slen;
	Elf64_Ehdr eh;
	Elf64_Shdr sh[3];
	int fd;

	memset(strtab, 0, sizeof(strtab));
	memcpy(strtab + 1, ".shstrtab", 10);
	slen = 11;
	if (section != NULL) {
		memcpy(strtab + slen, section, strlen(section) + 1);
		slen += strlen(section) + 1;
	}
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = section ? 3 : 2;
	eh.e_shstrndx = 1;
	eh.e_shoff = sizeof(eh) + sizeof(strtab);
	memset(sh, 0, sizeof(sh));
	sh[1].sh_name = 1;
	sh[1].sh_type = SHT_STRTAB;
	sh[1].sh_offset = sizeof(eh);
	sh[1].sh_size = slen;
	sh[2].sh_name = 11;
	sh[2].sh_type = SHT_PROGBITS;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd == -1 || write(fd, &eh, sizeof(eh)) != sizeof(eh) ||
	    write(fd, strtab, sizeof(strtab)) != sizeof(strtab) ||
	    write(fd, sh, eh.e_shnum * sizeof(sh[0])) !=
	    (ssize_t)(eh.e_shnum * sizeof(sh[0])))
		perror(path);
	if (fd != -1)
		close(fd);
}

static void
write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	if (fd == -1 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		perror(path);
	if (fd != -1)
		close(fd);
}

/* Submits that look at real files: the executable, initialdir, input. */
static void
check_files(void)
{
	struct submit_env env = { dir, test_environ, 1, NULL, NULL, NULL, 0 };
	struct submit_result res;
	char err[1024], *path, *text;
	size_t i;
	int rc;

	path = xasprintf("%s/relinked", dir);
	write_elf(path, ".condor_relinked");
	CHECK("elf relinked", submit_elf_relinked(path, err, sizeof(err)) ==
	    1);
	free(path);
	path = xasprintf("%s/plain", dir);
	write_elf(path, NULL);
	CHECK("elf plain", submit_elf_relinked(path, err, sizeof(err)) == 0);
	free(path);
	path = xasprintf("%s/script", dir);
	write_file(path, "#!/bin/sh\nexit 0\n", 0755);
	CHECK("elf script", submit_elf_relinked(path, err, sizeof(err)) ==
	    -1);
	free(path);
	path = xasprintf("%s/noexec", dir);
	write_file(path, "data\n", 0644);
	free(path);
	path = xasprintf("%s/in.0", dir);
	write_file(path, "input\n", 0644);
	free(path);
	path = xasprintf("%s/sub", dir);
	mkdir(path, 0755);
	free(path);
	CHECK("elf garbage", submit_elf_relinked("/dev/null", err,
	    sizeof(err)) == -1);
	CHECK("elf true", submit_elf_relinked("/bin/true", err,
	    sizeof(err)) == 0);

#define PARSE(t)	submit_parse((t), strlen(t), "f", &env, &res, err, \
			    sizeof(err))
	rc = PARSE("executable = relinked\nqueue\n");
	CHECK("file relinked standard", rc == 0);
	CHECK("file relinked: no universe, standard", rc == 0 &&
	    res.nnotices == 1 && strstr(res.notices[0], "no universe given: "
	    "standard (relinked is relinked for Condor)") != NULL);
	submit_result_free(&res);
	rc = PARSE("universe = standard\nexecutable = plain\nqueue\n");
	CHECK("file plain standard refused", rc == -1 &&
	    strstr(err, "f:2: ") == err && strstr(err, "condor_cc") &&
	    strstr(err, "vanilla"));
	submit_result_free(&res);
	rc = PARSE("executable = plain\nqueue\n");
	CHECK("file plain: no universe, vanilla", rc == 0 &&
	    res.nnotices == 1 && strstr(res.notices[0], "no universe given: "
	    "vanilla (plain is not relinked for Condor)") != NULL);
	submit_result_free(&res);
	rc = PARSE("executable = plain\nqueue\nexecutable = relinked\n"
	    "queue\n");
	CHECK("file two programs: a universe each", rc == 0 &&
	    res.nnotices == 2 && res.nprocs == 2);
	submit_result_free(&res);
	rc = PARSE("executable = plain\narguments = $(Datatype) x\n"
	    "queue 3\n");
	CHECK("file undefined macro: one warning naming its line", rc == 0 &&
	    res.nwarnings == 1 && strstr(res.warnings[0], "f:2: ") ==
	    res.warnings[0] && strstr(res.warnings[0], "$(Datatype)") != NULL);
	submit_result_free(&res);
	rc = PARSE("universe = vanilla\nexecutable = plain.$$(Arch)\n"
	    "queue\n");
	CHECK("file machine executable, none yet: a warning", rc == 0 &&
	    res.nwarnings == 1 && strstr(res.warnings[0], "no program "
	    "matches") != NULL);
	submit_result_free(&res);
	rc = PARSE("universe = standard\nexecutable = p$$(Arch)\nqueue\n");
	CHECK("file machine executable, standard, one not relinked", rc ==
	    -1 && strstr(err, "f:2: ") == err && strstr(err, "plain is not "
	    "relinked") != NULL);
	submit_result_free(&res);
	rc = PARSE("universe = standard\nexecutable = relinke$$(X)\n"
	    "queue\n");
	CHECK("file machine executable, standard, relinked", rc == 0);
	submit_result_free(&res);
	rc = PARSE("universe = vanilla\nexecutable = nodir/p.$$(Arch)\n"
	    "queue\n");
	CHECK("file machine executable, no directory", rc == -1 &&
	    strstr(err, "nodir") != NULL);
	submit_result_free(&res);
	rc = PARSE("universe = vanilla\nexecutable = plain\n"
	    "queue f matching *.nosuch\n");
	CHECK("file matching nothing: the pattern named", rc == -1 &&
	    strstr(err, "f:3: ") == err && strstr(err, "no file matches "
	    "*.nosuch") != NULL);
	submit_result_free(&res);
	text = xasprintf("universe = vanilla\nexecutable = plain\n"
	    "transfer_input_files = file://%s/in.0, http://example.org/x\n"
	    "queue\n", dir);
	rc = PARSE(text);
	free(text);
	CHECK("file transfer URLs: an http: one is refused, named",
	    rc == -1 && strstr(err, "http://example.org/x cannot be fetched") !=
	    NULL);
	submit_result_free(&res);
	text = xasprintf("universe = vanilla\nexecutable = plain\n"
	    "transfer_input_files = file://%s/in.0\nqueue\n", dir);
	rc = PARSE(text);
	free(text);
	CHECK("file transfer URLs: a file: one is taken, no warning",
	    rc == 0 && res.nwarnings == 0);
	text = NULL;
	for (i = 0; rc == 0 && i < res.cluster.n; i++)
		if (strcmp(res.cluster.attrs[i].name, "TransferInput") == 0)
			text = res.cluster.attrs[i].text;
	CHECK("file transfer URLs: TransferInput the file's path only",
	    text != NULL && strstr(text, "/in.0") != NULL &&
	    strstr(text, "file:") == NULL);
	text = NULL;
	submit_result_free(&res);
	rc = PARSE("universe = vanilla\nexecutable = plain\n"
	    "x509userproxy = /tmp/x509up\nqueue\n");
	CHECK("file HTCondor keyword not honoured: a note", rc == 0 &&
	    res.nwarnings == 1 && strstr(res.warnings[0], "f:3: ") ==
	    res.warnings[0] && strstr(res.warnings[0], "not honoured") !=
	    NULL);
	submit_result_free(&res);
	rc = PARSE("universe = standard\n\nexecutable = script\nqueue\n");
	CHECK("file script standard refused", rc == -1 &&
	    strstr(err, "f:3: ") == err && strstr(err, "condor_cc"));
	submit_result_free(&res);
	rc = PARSE("universe = vanilla\nexecutable = script\nqueue\n");
	CHECK("file script vanilla", rc == 0);
	CHECK_STR("file executable path", res.executable ? res.executable :
	    "", text = xasprintf("%s/script", dir));
	free(text);
	submit_result_free(&res);
	rc = PARSE("universe = vanilla\nexecutable = missing\nqueue\n");
	CHECK("file missing executable", rc == -1 &&
	    strstr(err, "f:2: ") == err && strstr(err, "No such file"));
	submit_result_free(&res);
	rc = PARSE("universe = vanilla\nexecutable = noexec\nqueue\n");
	CHECK("file not executable", rc == -1 &&
	    strstr(err, "not executable") != NULL);
	submit_result_free(&res);
	rc = PARSE("universe = vanilla\nexecutable = sub\nqueue\n");
	CHECK("file directory executable", rc == -1 &&
	    strstr(err, "regular file") != NULL);
	submit_result_free(&res);
	rc = PARSE("universe = vanilla\nexecutable = script\n"
	    "initialdir = nodir\nqueue\n");
	CHECK("file missing initialdir", rc == -1 &&
	    strstr(err, "f:3: ") == err && strstr(err, "initialdir"));
	submit_result_free(&res);
	rc = PARSE("universe = vanilla\nexecutable = script\n"
	    "input = in.$(Process)\nqueue 3\n");
	CHECK("file missing input is a warning", rc == 0 &&
	    res.nwarnings == 2 && strstr(res.warnings[0], "f:3: ") ==
	    res.warnings[0] && strstr(res.warnings[0], "in.1"));
	submit_result_free(&res);
	rc = PARSE("universe = vanilla\nexecutable = script\n"
	    "input = in.$(Process)\nqueue 100\n");
	CHECK("file warnings bounded", rc == 0 &&
	    res.nwarnings == SUBMIT_MAX_WARNINGS &&
	    res.warnings_dropped == 99 - SUBMIT_MAX_WARNINGS);
	submit_result_free(&res);
	rc = PARSE("universe = vanilla\nexecutable = script\ninitialdir = "
	    "sub\ninput = ../in.0\nqueue\n");
	CHECK("file input relative to initialdir", rc == 0 &&
	    res.nwarnings == 0);
	submit_result_free(&res);
	rc = PARSE("universe = vanilla\nexecutable = script\n"
	    "getenv = true\nqueue\n");
	CHECK("getenv warns of ';'", rc == 0 && res.nwarnings == 1 &&
	    strstr(res.warnings[0], "LS") != NULL);
	submit_result_free(&res);
	/* ImageSize defaults to the executable's size in KiB. */
	rc = PARSE("universe = vanilla\nexecutable = script\nqueue\n");
	if (rc == 0) {
		struct ad *ad = submit_proc_ad(&res, 0, 1, err, sizeof(err));
		long long v = 0;

		CHECK("image size from executable", ad != NULL &&
		    ad_get_int(ad, "ImageSize", &v) == 0 && v == 1);
		ad_free(ad);
	}
	submit_result_free(&res);
#undef PARSE
}

/* Shared attributes go to the cluster ad once; procs carry the rest. */
static void
check_split(void)
{
	struct submit_env env = { "/work/dir", test_environ, 0, NULL, NULL,
	    NULL, 0 };
	struct submit_result res;
	char err[512];
	const char *t;
	size_t i;
	int rc, shared_cmd = 0, proc_args = 1;

	t = "executable = /bin/true\narguments = $(Process)\nqueue 1000\n";
	rc = submit_parse(t, strlen(t), "f", &env, &res, err, sizeof(err));
	CHECK("split parses", rc == 0);
	for (i = 0; i < res.cluster.n; i++)
		if (strcmp(res.cluster.attrs[i].name, "Cmd") == 0)
			shared_cmd = 1;
	for (i = 0; i < res.nprocs; i++)
		if (res.procs[i].n != 1 ||
		    strcmp(res.procs[i].attrs[0].name, "Args") != 0)
			proc_args = 0;
	CHECK("split: Cmd in the cluster ad", shared_cmd);
	CHECK("split: each proc has only Args", proc_args);
	submit_result_free(&res);

	t = "executable = /bin/true\nqueue 100000\n";
	rc = submit_parse(t, strlen(t), "f", &env, &res, err, sizeof(err));
	CHECK("100000 procs parse", rc == 0 && res.nprocs == 100000 &&
	    res.procs[99999].n == 0);
	submit_result_free(&res);

	t = "executable = /bin/true\narguments = a\nqueue\n+X = 1\n"
	    "arguments = b\nqueue\n";
	rc = submit_parse(t, strlen(t), "f", &env, &res, err, sizeof(err));
	CHECK("split two statements", rc == 0 && res.nprocs == 2 &&
	    res.procs[0].n == 1 && res.procs[1].n == 2);
	submit_result_free(&res);
}

/* The Args of every proc of TEXT, parsed in CWD with the command line's
 * APPEND and QUEUE, joined by '|'; or the error. */
static char *
args_with(const char *cwd, const char *text, char *const *append,
    const char *queue)
{
	struct submit_env env = { cwd, test_environ, 0, NULL, append, queue,
	    0 };
	struct submit_result res;
	struct buf b;
	struct ad *ad;
	char err[1024], *args;
	size_t i;

	buf_init(&b);
	if (submit_parse(text, strlen(text), "f", &env, &res, err,
	    sizeof(err)) == -1)
		buf_printf(&b, "(error: %s)", err);
	else
		for (i = 0; i < res.nprocs; i++) {
			if ((ad = submit_proc_ad(&res, i, CLUSTER, err,
			    sizeof(err))) == NULL)
				break;
			if (ad_get_string(ad, "Args", &args) == 0) {
				buf_printf(&b, "%s%s", i ? "|" : "", args);
				free(args);
			}
			ad_free(ad);
		}
	submit_result_free(&res);
	return buf_take(&b);
}

/* The same in the test's directory. */
static char *
all_args(const char *text)
{
	return args_with(dir, text, NULL, NULL);
}

/* Requirements of TEXT's first proc. */
static char *
requirements_of(const char *text)
{
	struct submit_env env = { "/work/dir", test_environ, 0, NULL, NULL,
	    NULL, 0 };
	struct submit_result res;
	const struct expr *e;
	struct ad *ad;
	char err[1024], *r = NULL;

	if (submit_parse(text, strlen(text), "f", &env, &res, err,
	    sizeof(err)) == 0 && (ad = submit_proc_ad(&res, 0, CLUSTER, err,
	    sizeof(err))) != NULL) {
		if ((e = ad_lookup(ad, "Requirements")) != NULL)
			r = expr_to_string(e);
		ad_free(ad);
	}
	submit_result_free(&res);
	return r != NULL ? r : xstrdup("");
}

/* include : FILE, real files. */
static void
check_include(void)
{
	struct submit_env env = { dir, test_environ, 0, NULL, NULL, NULL, 0 };
	struct submit_result res;
	char *path, *got, err[1024], want[600];
	int rc;

	path = xasprintf("%s/common.sub", dir);
	write_file(path, "universe = vanilla\n# shared\narguments = from-"
	    "common\nrequest_cpus = 2\n", 0644);
	free(path);
	got = all_args("executable = /bin/true\ninclude : common.sub\n"
	    "queue\n");
	CHECK_STR("include : a file of settings, before the queue", got,
	    "from-common");
	free(got);
	path = xasprintf("%s/bad.sub", dir);
	write_file(path, "# line 1\n\npriority = high\n", 0644);
	free(path);
	rc = submit_parse("executable = /bin/true\ninclude : bad.sub\nqueue\n",
	    strlen("executable = /bin/true\ninclude : bad.sub\nqueue\n"), "f",
	    &env, &res, err, sizeof(err));
	snprintf(want, sizeof(want), "%s/bad.sub:3: ", dir);
	CHECK("an error in an included file names it and its line",
	    rc == -1 && strncmp(err, want, strlen(want)) == 0);
	submit_result_free(&res);
	path = xasprintf("%s/loop.sub", dir);
	write_file(path, "include : loop.sub\n", 0644);
	free(path);
	rc = submit_parse("executable = /bin/true\ninclude : loop.sub\nqueue\n",
	    strlen("executable = /bin/true\ninclude : loop.sub\nqueue\n"), "f",
	    &env, &res, err, sizeof(err));
	CHECK("an include loop is an error", rc == -1 &&
	    strstr(err, "include nested more than") != NULL);
	submit_result_free(&res);
	got = all_args("executable = /bin/true\nInclude:common.sub\nqueue\n");
	CHECK_STR("include:FILE, no blanks around the colon", got,
	    "from-common");
	free(got);
	got = all_args("executable = /bin/true\nif false\ninclude : /none\n"
	    "endif\nqueue\n");
	CHECK_STR("an include in a branch not taken is not read", got, "");
	free(got);
}

/* condor_submit -a, NAME=VALUE and -queue, through the parser's env. */
static char *
with_env(const char *text, char *const *append, const char *queue)
{
	return args_with("/work/dir", text, append, queue);
}

static void
check_command_line(void)
{
	char *a1[] = { "N = 5", NULL }, *a2[] = { "arguments = late", NULL };
	char *a3[] = { "N = 1", "priority = 99", NULL };
	char *a4[] = { "queue 2", NULL }, *got;

	got = with_env("executable = /bin/true\narguments = $(N)\nqueue\n",
	    a1, NULL);
	CHECK_STR("-a sets a macro", got, "5");
	free(got);
	got = with_env("executable = /bin/true\narguments = early\nqueue\n"
	    "arguments = x\nqueue\n", a2, NULL);
	CHECK_STR("-a comes just before each queue statement, over the "
	    "file's", got, "late|late");
	free(got);
	got = with_env("executable = /bin/true\narguments = $(N)\nqueue\n",
	    a3, NULL);
	CHECK_STR("an error in -a names the command line and the setting",
	    got, "(error: the command line:2: priority must be an integer "
	    "from -20 to 20, not \"99\")");
	free(got);
	got = with_env("if defined N\narguments = yes\nelse\narguments = no"
	    "\nendif\nexecutable = /bin/true\nqueue\n", a1, NULL);
	CHECK_STR("-a is defined before the file's first line too", got,
	    "yes");
	free(got);
	got = with_env("executable = /bin/true\nqueue\n", a4, NULL);
	CHECK("no queue statement through -a", strstr(got, "use -queue") !=
	    NULL);
	free(got);
	got = with_env("executable = /bin/true\narguments = $(Item)\n", NULL,
	    "in (a b)");
	CHECK_STR("-queue for a file with none", got, "a|b");
	free(got);
	got = with_env("executable = /bin/true\nqueue\n", NULL, "2");
	CHECK("-queue and a queue statement of the file's",
	    strstr(got, "f:2: -queue was given, but the file has a queue") !=
	    NULL);
	free(got);
}

/* $(OPSYS) and $(ARCH): this machine's. */
static void
check_opsys_arch(void)
{
	char arch[32], opsys[32], want[80], *got;

	machine_arch(arch, sizeof(arch));
	machine_opsys(opsys, sizeof(opsys));
	snprintf(want, sizeof(want), "%s/%s", opsys, arch);
	got = all_args("executable = /bin/true\narguments = "
	    "$(OPSYS)/$(ARCH)\nqueue\n");
	CHECK_STR("$(OPSYS)/$(ARCH) are this machine's", got, want);
	free(got);
}

/* What a job requests joins its Requirements, as in HTCondor. */
static void
check_requests(void)
{
	char *r;

	r = requirements_of("executable = /bin/true\nrequest_cpus = 2\n"
	    "request_memory = 1GB\nrequest_disk = 10MB\nqueue\n");
	CHECK("requests join Requirements: cpus",
	    strstr(r, "TARGET.Cpus >= RequestCpus") != NULL);
	CHECK("... memory", strstr(r, "TARGET.Memory >= RequestMemory") !=
	    NULL);
	CHECK("... disk, instead of the image size",
	    strstr(r, "TARGET.Disk >= RequestDisk") != NULL &&
	    strstr(r, "ImageSize") == NULL);
	free(r);
	r = requirements_of("executable = /bin/true\nrequest_memory = 1GB\n"
	    "requirements = Memory > 4000\nqueue\n");
	CHECK("a requirement on Memory of the job's own is left alone",
	    strstr(r, "RequestMemory") == NULL && strstr(r, "Memory > 4000"));
	free(r);
	r = requirements_of("executable = /bin/true\nqueue\n");
	CHECK("no request, no clause", strstr(r, "Request") == NULL &&
	    strstr(r, "TARGET.Disk >= ImageSize") != NULL);
	free(r);
}

/* queue ... from FILE and queue ... matching, on real files. */
static void
check_queue_files(void)
{
	char *path, *got, *text;

	path = xasprintf("%s/q", dir);
	mkdir(path, 0755);
	free(path);
	path = xasprintf("%s/q/rows", dir);
	write_file(path, "1, one\r\n# a comment\n\n2 two words\n", 0644);
	free(path);
	path = xasprintf("%s/q/a.dat", dir);
	write_file(path, "x", 0644);
	free(path);
	path = xasprintf("%s/q/b.dat", dir);
	write_file(path, "x", 0644);
	free(path);
	path = xasprintf("%s/q/c.dat", dir);
	mkdir(path, 0755);
	free(path);

	got = all_args("executable = /bin/true\narguments = $(n):$(w)\n"
	    "queue n, w from q/rows\n");
	CHECK_STR("queue from a file (commas, CRLF, comments)", got,
	    "1:one|2:two words");
	free(got);
	got = all_args("executable = /bin/true\narguments = $(Item)\n"
	    "queue matching files q/*.dat\n");
	CHECK_STR("queue matching files", got, "q/a.dat|q/b.dat");
	free(got);
	got = all_args("executable = /bin/true\narguments = $(d)\n"
	    "queue d matching dirs q/*.dat\n");
	CHECK_STR("queue matching dirs", got, "q/c.dat");
	free(got);
	text = xasprintf("executable = /bin/true\narguments = $(Item)\n"
	    "queue matching %s/q/*.dat\n", dir);
	got = all_args(text);
	free(text);
	text = xasprintf("%s/q/a.dat|%s/q/b.dat|%s/q/c.dat", dir, dir, dir);
	CHECK_STR("queue matching an absolute pattern, files and dirs", got,
	    text);
	free(text);
	free(got);
	got = all_args("executable = /bin/true\narguments = $(f)\n"
	    "queue f matching files (\n  q/a.*\n  q/b.dat\n  )\n");
	CHECK_STR("queue matching files ( a list over lines )", got,
	    "q/a.dat|q/b.dat");
	free(got);
	got = all_args("executable = /bin/true\narguments = $(f)\n"
	    "queue f matching (q/c.*)\n");
	CHECK_STR("queue matching (one pattern)", got, "q/c.dat");
	free(got);
	got = all_args("executable = /bin/true\narguments = $(Item:none)\n"
	    "queue matching q/*.none\nqueue\n");
	CHECK_STR("queue matching nothing queues nothing", got, "none");
	free(got);
}

/* New-style arguments, through condor_submit and then the starter's
 * splitter: the words their author meant. */
static void
check_new_style_words(const struct submit_env *env)
{
	static const struct { const char *args, *words; } cases[] = {
		{ "\"a 'b c' d\"", "a|b c|d" },
		{ "\"'it''s' \"\"q\"\" e\\f\"", "it's|\"q\"|e\\f" },
		{ "\"one   two\"", "one|two" },
		{ "\"x ''\"", "x|" },
		{ "\"x 'a b'c\"", "x|a bc" },
	};
	struct submit_result res;
	struct ad *ad;
	char err[1024], name[256], text[256], *args, **words;
	struct buf got;
	size_t i;
	int n, k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "executable = /bin/true\n"
		    "arguments = %s\nqueue\n", cases[i].args);
		snprintf(name, sizeof(name), "new-style words of %s",
		    cases[i].args);
		buf_init(&got);
		args = NULL;
		ad = NULL;
		if (submit_parse(text, strlen(text), "f", env, &res, err,
		    sizeof(err)) == 0 &&
		    (ad = submit_proc_ad(&res, 0, CLUSTER, err,
		    sizeof(err))) != NULL &&
		    ad_get_string(ad, "Args", &args) == 0 &&
		    (n = jobargs_split(args, &words, err, sizeof(err))) >= 0) {
			for (k = 0; k < n; k++)
				buf_printf(&got, "%s%s", k ? "|" : "",
				    words[k]);
			jobargs_free(words);
		} else
			buf_printf(&got, "(error: %s)", err);
		CHECK_STR(name, got.data, cases[i].words);
		buf_free(&got);
		free(args);
		if (ad != NULL)
			ad_free(ad);
		submit_result_free(&res);
	}
}

static void
check_expand_cluster(void)
{
	char *s;

	s = submit_expand_cluster("\"out.$(Cluster).$(Cluster)\"", 42);
	CHECK_STR("expand cluster", s, "\"out.42.42\"");
	free(s);
	CHECK("expand cluster none", submit_expand_cluster("\"x\"", 1) ==
	    NULL);
}

/* JobLeaseDuration: the pool's default for a job naming none. */
static void
check_lease(void)
{
	struct submit_env env = { "/work/dir", test_environ, 0, NULL, NULL,
	    NULL, 2400 };
	static const struct { const char *name, *text; long long want; } t[] = {
		{ "a vanilla job gets the default lease",
		  "universe = vanilla\nexecutable = /bin/true\nqueue\n", 2400 },
		{ "its own lease wins",
		  "universe = vanilla\nexecutable = /bin/true\n"
		  "job_lease_duration = 60\nqueue\n", 60 },
		{ "a standard job gets it too",
		  "universe = standard\nexecutable = /bin/true\nqueue\n", 2400 },
	};
	struct submit_result res;
	struct ad *ad;
	char err[512];
	long long v;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		v = -1;
		ad = NULL;
		if (submit_parse(t[i].text, strlen(t[i].text), "lease.sub",
		    &env, &res, err, sizeof(err)) == 0 &&
		    (ad = submit_proc_ad(&res, 0, 1, err, sizeof(err))) != NULL &&
		    ad_get_int(ad, "JobLeaseDuration", &v) == -1)
			v = -1;
		CHECK(t[i].name, ad != NULL && v == t[i].want);
		ad_free(ad);
		submit_result_free(&res);
	}
}

int
main(void)
{
	struct submit_env env = { "/work/dir", test_environ, 0, NULL, NULL,
	    NULL, 0 };
	size_t i;
	char *cmd;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		check_good(&good[i], &env);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_bad(&bad[i], &env);
	check_files();
	check_split();
	check_new_style_words(&env);
	check_queue_files();
	check_requests();
	check_opsys_arch();
	check_include();
	check_command_line();
	check_expand_cluster();
	check_lease();
	cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("FAIL cleanup %s\n", dir);
	free(cmd);
	TEST_EXIT();
}
