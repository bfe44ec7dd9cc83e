/*
 * xidle_test: the X idle-time client (src/kbdd/kbdd_xidle.c).  The
 * parsers with good, truncated and random input; then whole
 * conversations with a scripted X server on an abstract Unix socket
 * (the name of a display no one uses): a good one with an event and a
 * generic event in the way, refusals, garbage, lies about lengths, a
 * server that says nothing, one that hangs up.  A real display (Xvfb)
 * is exercised by tests/pool/kbdd_x_test.sh.
 *
 * checks: 51
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "kbdd_xidle.h"

static int	display_number;
static char	display_name[32];

/* --- parsers ------------------------------------------------------ */

static void
test_display(void)
{
	char path[128], why[256];
	int n = -1;

	CHECK("display :0", xidle_display_parse(":0", &n, path,
	    sizeof(path), why, sizeof(why)) == 0 && n == 0);
	CHECK_STR("display :0 socket", path, "/tmp/.X11-unix/X0");
	CHECK("display :12.1", xidle_display_parse(":12.1", &n, path,
	    sizeof(path), why, sizeof(why)) == 0 && n == 12);
	CHECK("display unix:3", xidle_display_parse("unix:3", &n, path,
	    sizeof(path), why, sizeof(why)) == 0 && n == 3);
	CHECK("display host:0 refused", xidle_display_parse("host:0", &n,
	    path, sizeof(path), why, sizeof(why)) == -1 &&
	    strstr(why, "not a local display") != NULL);
	CHECK("display empty refused", xidle_display_parse("", &n, path,
	    sizeof(path), why, sizeof(why)) == -1);
	CHECK("display NULL refused", xidle_display_parse(NULL, &n, path,
	    sizeof(path), why, sizeof(why)) == -1);
	CHECK("display :x refused", xidle_display_parse(":x", &n, path,
	    sizeof(path), why, sizeof(why)) == -1);
	CHECK("display :1. refused", xidle_display_parse(":1.", &n, path,
	    sizeof(path), why, sizeof(why)) == -1);
	CHECK("display :1junk refused", xidle_display_parse(":1junk", &n,
	    path, sizeof(path), why, sizeof(why)) == -1);
	CHECK("display :99999999 refused", xidle_display_parse(":99999999",
	    &n, path, sizeof(path), why, sizeof(why)) == -1);
	CHECK("display 0 refused", xidle_display_parse("0", &n, path,
	    sizeof(path), why, sizeof(why)) == -1);
}

/* Append an Xauthority entry to B at *LEN. */
static void
auth_entry(unsigned char *b, size_t *len, unsigned family, const char *addr,
    const char *num, const char *name, const char *data)
{
	const char *f[4] = { addr, num, name, data };
	size_t i, n;

	b[(*len)++] = family >> 8;
	b[(*len)++] = family & 0xff;
	for (i = 0; i < 4; i++) {
		n = strlen(f[i]);
		b[(*len)++] = n >> 8;
		b[(*len)++] = n & 0xff;
		memcpy(b + *len, f[i], n);
		*len += n;
	}
}

static void
test_auth(void)
{
	unsigned char b[1024], cookie[XIDLE_COOKIE_MAX];
	size_t len = 0, cut;
	int n, ok;

	auth_entry(b, &len, 0, "\x7f\0\0\x01", "5", XIDLE_COOKIE_NAME,
	    "net-cookie......");
	auth_entry(b, &len, 256, "otherhost", "5", XIDLE_COOKIE_NAME,
	    "other-cookie....");
	auth_entry(b, &len, 256, "myhost", "5", "XDM-AUTHORIZATION-1",
	    "xdm-cookie......");
	auth_entry(b, &len, 256, "myhost", "6", XIDLE_COOKIE_NAME,
	    "six-cookie......");
	n = xidle_auth_find(b, len, "myhost", 5, cookie);
	CHECK("auth: another host's local entry when nothing better",
	    n == 16 && memcmp(cookie, "other-cookie....", 16) == 0);
	auth_entry(b, &len, 65535, "", "5", XIDLE_COOKIE_NAME,
	    "wild-cookie.....");
	n = xidle_auth_find(b, len, "myhost", 5, cookie);
	CHECK("auth: a wildcard entry beats another host's",
	    n == 16 && memcmp(cookie, "wild-cookie.....", 16) == 0);
	auth_entry(b, &len, 256, "myhost", "5", XIDLE_COOKIE_NAME,
	    "my-cookie.......");
	n = xidle_auth_find(b, len, "myhost", 5, cookie);
	CHECK("auth: this host's entry is best",
	    n == 16 && memcmp(cookie, "my-cookie.......", 16) == 0);
	n = xidle_auth_find(b, len, "myhost", 6, cookie);
	CHECK("auth: the display number must match",
	    n == 16 && memcmp(cookie, "six-cookie......", 16) == 0);
	CHECK("auth: no entry for display 7",
	    xidle_auth_find(b, len, "myhost", 7, cookie) == 0);
	CHECK("auth: an empty file has none",
	    xidle_auth_find(b, 0, "myhost", 5, cookie) == 0);
	/* Every truncation: never past the end, never a wrong cookie. */
	ok = 1;
	for (cut = 0; cut < len; cut++) {
		n = xidle_auth_find(b, cut, "myhost", 5, cookie);
		if (n > 0 && n != 16)
			ok = 0;
	}
	CHECK("auth: truncated files are survived", ok);
	len = 0;
	auth_entry(b, &len, 256, "myhost", "5", XIDLE_COOKIE_NAME, "");
	CHECK("auth: an empty cookie is none",
	    xidle_auth_find(b, len, "myhost", 5, cookie) == 0);
	b[len - 2] = 0x7f;	/* the cookie's length, far too large */
	CHECK("auth: a length past the end is malformed",
	    xidle_auth_find(b, len, "myhost", 5, cookie) == -1);
}

static void
test_setup(void)
{
	unsigned char req[128], setup[64], hdr[8];
	char why[256];
	uint32_t root = 0;
	size_t len;
	int status;

	len = xidle_setup_request(req, (const unsigned char *)"0123456789abcdef",
	    16);
	CHECK("setup request: little-endian, X11, cookie padded",
	    len == 12 + 20 + 16 && req[0] == 'l' && req[2] == 11 &&
	    req[6] == 18 && req[8] == 16 &&
	    memcmp(req + 12, XIDLE_COOKIE_NAME, 18) == 0 &&
	    memcmp(req + 32, "0123456789abcdef", 16) == 0);
	CHECK("setup request without a cookie", xidle_setup_request(req,
	    NULL, 0) == 12 && req[6] == 0 && req[8] == 0);

	memset(hdr, 0, sizeof(hdr));
	hdr[0] = 1;
	hdr[6] = 3;
	CHECK("setup header: success, 12 bytes follow",
	    xidle_setup_header(hdr, &status) == 12 && status == 1);
	hdr[0] = 7;
	CHECK("setup header: not an X server",
	    xidle_setup_header(hdr, &status) == -1);

	memset(setup, 0, sizeof(setup));
	setup[16] = 5;		/* vendor "abcde", padded to 8 */
	setup[20] = 1;		/* one screen */
	setup[21] = 2;		/* two formats */
	memcpy(setup + 32, "abcde", 5);
	setup[32 + 8 + 16] = 0x25;	/* root 0x125 */
	setup[32 + 8 + 16 + 1] = 0x01;
	CHECK("setup: the root window", xidle_setup_parse(setup, 60, &root,
	    why, sizeof(why)) == 0 && root == 0x125);
	CHECK("setup: one byte short of the root", xidle_setup_parse(setup,
	    59, &root, why, sizeof(why)) == -1);
	CHECK("setup: shorter than the fixed part", xidle_setup_parse(setup,
	    31, &root, why, sizeof(why)) == -1);
	setup[20] = 0;
	CHECK("setup: no screen", xidle_setup_parse(setup, 60, &root, why,
	    sizeof(why)) == -1 && strstr(why, "no screen") != NULL);
	setup[20] = 1;
	setup[16] = 0xff;
	setup[17] = 0xff;	/* vendor length 65535 */
	CHECK("setup: a vendor length past the end",
	    xidle_setup_parse(setup, 60, &root, why, sizeof(why)) == -1);
}

/* Random bytes into both parsers: no crash, no read past the end
 * (run under valgrind or ASan to see the latter). */
static void
test_garbage(void)
{
	unsigned char *b, cookie[XIDLE_COOKIE_MAX];
	char why[256];
	uint32_t root;
	size_t len;
	int i, j, n, ok = 1;

	srandom(1989);
	for (i = 0; i < 20000; i++) {
		len = (size_t)(random() % 200);
		b = malloc(len ? len : 1);
		for (j = 0; j < (int)len; j++)
			b[j] = (unsigned char)(i % 3 == 0 ?
			    random() % 4 : random());
		n = xidle_auth_find(b, len, "h", i % 4, cookie);
		if (n < -1 || n > XIDLE_COOKIE_MAX)
			ok = 0;
		(void)xidle_setup_parse(b, len, &root, why, sizeof(why));
		free(b);
	}
	CHECK("20000 random Xauthority files and setup replies survived", ok);
}

/* --- a scripted X server ------------------------------------------ */

enum script {
	GOOD,		/* setup, extension, replies with events between */
	REFUSE,		/* setup failed with a reason */
	AUTHENTICATE,	/* setup wants more authentication */
	NO_EXTENSION,	/* MIT-SCREEN-SAVER absent */
	HUGE_SETUP,	/* setup promises 256 KiB, sends 56 bytes */
	GARBAGE,	/* random bytes for a setup reply */
	SILENT,		/* accepts, says nothing */
	HANGUP,		/* closes after the setup */
	XERROR,		/* an X error for QueryInfo */
	BAD_SEQ,	/* a reply with another request's number */
	EVENT_FLOOD,	/* only events, forever */
	XI2,		/* XInput 2: input events as they come */
	XI2_REFUSED,	/* XInput 2, but the selection is refused */
};

static void
put32le(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static int
read_n(int fd, unsigned char *b, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		if ((r = read(fd, b + got, n - got)) <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static void
write_n(int fd, const void *b, size_t n)
{
	if (write(fd, b, n) != (ssize_t)n)
		_exit(1);
}

/* Read a request header and its body; its opcode. */
/* Read a request: its major opcode, and its minor one and body. */
static int
read_request(int fd, int *minor, unsigned char *body, size_t bodylen)
{
	unsigned char h[4];
	size_t len;

	if (read_n(fd, h, 4) == -1)
		return -1;
	len = ((size_t)h[2] | (size_t)h[3] << 8) * 4;
	if (len < 4 || len - 4 > bodylen || read_n(fd, body, len - 4) == -1)
		return -1;
	*minor = h[1];
	return h[0];
}

/* An XInput 2 event of TYPE (a GenericEvent of extension 141). */
static void
xi_event(int fd, int type)
{
	unsigned char r[32];

	memset(r, 0, sizeof(r));
	r[0] = 35;
	r[1] = 141;
	r[8] = type;
	write_n(fd, r, 32);
}

static void
serve(int fd, enum script s)
{
	unsigned char req[12], body[256], r[64];
	size_t nlen, dlen;
	uint16_t seq = 0;
	int i;

	if (read_n(fd, req, 12) == -1)
		_exit(1);
	nlen = (size_t)req[6] | (size_t)req[7] << 8;
	dlen = (size_t)req[8] | (size_t)req[9] << 8;
	if (read_n(fd, body, ((nlen + 3) & ~3u) + ((dlen + 3) & ~3u)) == -1)
		_exit(1);
	memset(r, 0, sizeof(r));
	switch (s) {
	case REFUSE:
		r[0] = 0;
		r[1] = 14;
		r[6] = 4;	/* 16 bytes of reason */
		memcpy(r + 8, "No way, José\n\0\0", 16);
		write_n(fd, r, 24);
		_exit(0);
	case AUTHENTICATE:
		r[0] = 2;
		r[6] = 2;
		memcpy(r + 8, "try harder", 8);
		write_n(fd, r, 16);
		_exit(0);
	case HUGE_SETUP:
		r[0] = 1;
		r[6] = 0xff;
		r[7] = 0xff;	/* 262140 bytes promised, 56 sent */
		write_n(fd, r, 64);
		_exit(0);
	case GARBAGE:
		for (i = 0; i < 64; i++)
			r[i] = (unsigned char)(i * 37 + 5);
		r[0] = 1;
		r[6] = 2;	/* 8 bytes: shorter than a setup */
		r[7] = 0;
		write_n(fd, r, 16);
		pause();
		_exit(0);
	case SILENT:
		pause();
		_exit(0);
	default:
		break;
	}
	/* A minimal successful setup: no vendor, no format, one screen. */
	r[0] = 1;
	r[2] = 11;
	r[6] = 9;		/* 36 bytes follow */
	r[8 + 20] = 1;
	put32le(r + 8 + 32, 0x2a);
	write_n(fd, r, 8 + 36);
	if (s == HANGUP)
		_exit(0);
	for (;;) {
		unsigned char body[1024];
		int minor, op = read_request(fd, &minor, body, sizeof(body));

		if (op == -1)
			_exit(0);
		seq++;
		memset(r, 0, sizeof(r));
		if (s == EVENT_FLOOD) {
			for (;;) {
				r[0] = 12;	/* Expose */
				if (write(fd, r, 32) != 32)
					_exit(0);
			}
		}
		if (op == 98) {		/* QueryExtension */
			int xi = memcmp(body + 4, "XInputExtension", 15) == 0;

			r[0] = 1;
			r[2] = seq;
			r[8] = xi ? s == XI2 || s == XI2_REFUSED :
			    s != NO_EXTENSION;
			r[9] = xi ? 141 : 140;
			write_n(fd, r, 32);
			continue;
		}
		if (op == 141 && minor == 47) {	/* XIQueryVersion */
			r[0] = 1;
			r[2] = seq;
			r[8] = 2;
			r[10] = 2;
			write_n(fd, r, 32);
			continue;
		}
		if (op == 141 && minor == 46) {	/* XISelectEvents */
			if (s == XI2_REFUSED) {
				r[0] = 0;
				r[1] = 2;	/* BadValue */
				r[2] = seq;
				write_n(fd, r, 32);
				continue;
			}
			/* Input right away, then an event of no interest. */
			xi_event(fd, 6);	/* XI_Motion */
			xi_event(fd, 11);	/* XI_HierarchyChanged */
			continue;
		}
		/* QueryInfo: first an event (MappingNotify) and a generic
		 * event with 8 extra bytes, then the reply with 4 extra. */
		r[0] = 34;
		write_n(fd, r, 32);
		memset(r, 0, sizeof(r));
		r[0] = 35;
		r[4] = 2;
		write_n(fd, r, 40);
		memset(r, 0, sizeof(r));
		if (s == XERROR) {
			r[0] = 0;
			r[1] = 9;	/* BadDrawable */
			r[2] = seq;
			write_n(fd, r, 32);
			continue;
		}
		r[0] = 1;
		r[2] = s == BAD_SEQ ? seq + 7 : seq;
		r[4] = 1;	/* 4 extra bytes */
		put32le(r + 16, 4321u + seq);
		write_n(fd, r, 36);
	}
}

/* Start a server running script S; its pid. */
static pid_t
server_start(enum script s)
{
	struct sockaddr_un sun;
	socklen_t len;
	char name[64];
	pid_t pid;
	int l, c;

	snprintf(name, sizeof(name), "/tmp/.X11-unix/X%d", display_number);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path + 1, name, strlen(name));
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(name));
	if (bind(l, (struct sockaddr *)&sun, len) == -1 || listen(l, 1) == -1) {
		perror("xidle_test: bind");
		exit(1);
	}
	if ((pid = fork()) == 0) {
		alarm(30);
		if ((c = accept(l, NULL, NULL)) == -1)
			_exit(1);
		close(l);
		serve(c, s);
		_exit(0);
	}
	close(l);
	return pid;
}

static void
server_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Open against script S; the reason if it fails, "" if it opened. */
static struct xidle *
open_script(enum script s, pid_t *pid, char *why, size_t whylen)
{
	struct xidle *x;

	*pid = server_start(s);
	why[0] = '\0';
	x = xidle_open(display_name, NULL, 1, why, whylen);
	if (getenv("XIDLE_DEBUG") != NULL)
		fprintf(stderr, "script %d: %s\n", (int)s, why);
	return x;
}

static void
test_conversations(void)
{
	struct xidle *x;
	long long idle = -1;
	char why[256];
	pid_t pid;
	int ok, input;

	x = open_script(GOOD, &pid, why, sizeof(why));
	CHECK("server: a good display opens", x != NULL);
	ok = x != NULL && xidle_query(x, &idle, why, sizeof(why)) == 0 &&
	    idle == 4324;	/* 4321 + the request's number */
	CHECK("server: idle time read past an event and a generic event", ok);
	ok = x != NULL && xidle_query(x, &idle, why, sizeof(why)) == 0 &&
	    idle == 4325;
	CHECK("server: a second query in sequence", ok);
	xidle_close(x);
	server_stop(pid);

	x = open_script(REFUSE, &pid, why, sizeof(why));
	CHECK("server: a refusal is reported with its reason, cleaned",
	    x == NULL && strstr(why, "refused us") != NULL &&
	    strstr(why, "No way, Jos??") != NULL && strchr(why, '\n') == NULL);
	server_stop(pid);

	x = open_script(AUTHENTICATE, &pid, why, sizeof(why));
	CHECK("server: a demand for authentication is a refusal",
	    x == NULL && strstr(why, "refused us") != NULL);
	server_stop(pid);

	x = open_script(NO_EXTENSION, &pid, why, sizeof(why));
	CHECK("server: no MIT-SCREEN-SAVER is reported",
	    x == NULL && strstr(why, "MIT-SCREEN-SAVER") != NULL);
	server_stop(pid);

	x = open_script(HUGE_SETUP, &pid, why, sizeof(why));
	CHECK("server: a setup reply cut short is reported",
	    x == NULL && strstr(why, "closed") != NULL);
	server_stop(pid);

	x = open_script(GARBAGE, &pid, why, sizeof(why));
	CHECK("server: a short garbage setup is refused",
	    x == NULL && strstr(why, "too short") != NULL);
	server_stop(pid);

	x = open_script(SILENT, &pid, why, sizeof(why));
	CHECK("server: silence times out", x == NULL &&
	    strstr(why, "no answer") != NULL);
	server_stop(pid);

	x = open_script(HANGUP, &pid, why, sizeof(why));
	CHECK("server: a hang-up is reported", x == NULL &&
	    strstr(why, "closed the connection") != NULL);
	server_stop(pid);

	x = open_script(XERROR, &pid, why, sizeof(why));
	ok = x != NULL && xidle_query(x, &idle, why, sizeof(why)) == -1 &&
	    strstr(why, "X error 9") != NULL;
	CHECK("server: an X error for the query is reported", ok);
	xidle_close(x);
	server_stop(pid);

	x = open_script(BAD_SEQ, &pid, why, sizeof(why));
	ok = x != NULL && xidle_query(x, &idle, why, sizeof(why)) == -1 &&
	    strstr(why, "sequence") != NULL;
	CHECK("server: a reply out of sequence is refused", ok);
	xidle_close(x);
	server_stop(pid);

	x = open_script(EVENT_FLOOD, &pid, why, sizeof(why));
	ok = x == NULL && strstr(why, "only events") != NULL;
	CHECK("server: a flood of events gives up", ok);
	server_stop(pid);

	x = open_script(GOOD, &pid, why, sizeof(why));
	ok = x != NULL && xidle_fd(x) == -1 &&
	    xidle_events(x, &input, why, sizeof(why)) == 0 && input == 0;
	CHECK("server: no XInput 2, no descriptor to watch, no input", ok);
	xidle_close(x);
	server_stop(pid);

	x = open_script(XI2, &pid, why, sizeof(why));
	ok = x != NULL && xidle_fd(x) != -1;
	CHECK("server: XInput 2 events selected", ok);
	if (ok) {
		struct pollfd p = { xidle_fd(x), POLLIN, 0 };

		ok = poll(&p, 1, 2000) == 1 &&
		    xidle_events(x, &input, why, sizeof(why)) == 0 &&
		    input == 1;
		CHECK("server: an XI_Motion event is input", ok);
		ok = xidle_events(x, &input, why, sizeof(why)) == 0 &&
		    input == 0;
		CHECK("server: told once; XI_HierarchyChanged is no input",
		    ok);
		ok = xidle_query(x, &idle, why, sizeof(why)) == 0 &&
		    idle == 4326;	/* after 2 QueryExtension, version,
					 * select */
		CHECK("server: the idle time still read", ok);
	}
	xidle_close(x);
	server_stop(pid);

	x = open_script(XI2_REFUSED, &pid, why, sizeof(why));
	ok = x != NULL && xidle_query(x, &idle, why, sizeof(why)) == 0 &&
	    xidle_fd(x) == -1;
	CHECK("server: a refused selection leaves the idle time alone", ok);
	xidle_close(x);
	server_stop(pid);

	why[0] = '\0';
	x = xidle_open(display_name, NULL, 1, why, sizeof(why));
	CHECK("server: none listening is reported", x == NULL &&
	    strstr(why, "cannot connect") != NULL);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	display_number = 40000 + getpid() % 20000;
	snprintf(display_name, sizeof(display_name), ":%d", display_number);
	test_display();
	test_auth();
	test_setup();
	test_garbage();
	test_conversations();
	TEST_EXIT();
}
