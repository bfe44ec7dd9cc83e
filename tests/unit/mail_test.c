/*
 * mail_test.c: mail_send through a stand-in for sendmail
 * (src/shadow/shadow_mail.c).
 *
 * checks: 16
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "shadow_mail.h"
#include "test.h"
#include "xalloc.h"

static char	dir[] = "/tmp/mail_test.XXXXXX";

static char *
slurp(const char *path)
{
	char *text;
	FILE *f;
	long n;

	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = xmalloc((size_t)n + 1);
	n = (long)fread(text, 1, (size_t)n, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

/* A MAIL program that records its argument and its input. */
static char *
make_mailer(const char *body)
{
	char *path = xasprintf("%s/mailer", dir);
	FILE *f = fopen(path, "w");

	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
	return path;
}

static const char *bad_addresses[] = {
	"", "-oi", "a b", "a\nBcc: x", "\"q\"", "a,b", "<a>",
};

int
main(void)
{
	char *mailer, *out, *cmd, *got;
	size_t i;

	log_init("mail_test");
	if (mkdtemp(dir) == NULL)
		return 1;
	config_set("RPC_TIMEOUT", "2", 0);

	config_set("MAIL", "", 0);
	CHECK("an empty MAIL sends nothing, successfully",
	    mail_send("alice", "s", "b") == 0);

	out = xasprintf("%s/out", dir);
	cmd = xasprintf("echo \"to=$1\" >%s; cat >>%s", out, out);
	mailer = make_mailer(cmd);
	config_set("MAIL", mailer, 0);
	CHECK("mail to a plain address", mail_send("alice@example.org",
	    "[Condor] Condor Job 1.0\nBcc: eve", "line one\nline two") ==
	    0);
	got = slurp(out);
	CHECK("the recipient is the argument", got != NULL &&
	    strncmp(got, "to=alice@example.org\n", 21) == 0);
	CHECK("To: header", got != NULL &&
	    strstr(got, "\nTo: alice@example.org\n") != NULL);
	CHECK("Subject cut at the line break", got != NULL &&
	    strstr(got, "\nSubject: [Condor] Condor Job 1.0\n\n") != NULL &&
	    strstr(got, "Bcc") == NULL);
	CHECK("body after a blank line, newline-terminated", got != NULL &&
	    strstr(got, "\n\nline one\nline two\n") != NULL);
	free(got);
	free(cmd);
	free(mailer);

	for (i = 0; i < sizeof(bad_addresses) / sizeof(bad_addresses[0]);
	    i++) {
		char label[64];

		snprintf(label, sizeof(label), "refuses address %zu", i);
		CHECK(label, mail_send(bad_addresses[i], "s", "b") == -1);
	}

	mailer = make_mailer("cat >/dev/null; exit 3");
	config_set("MAIL", mailer, 0);
	CHECK("a failing mailer is reported",
	    mail_send("bob", "s", "b") == -1);
	free(mailer);

	mailer = make_mailer("exec sleep 30");
	config_set("MAIL", mailer, 0);
	CHECK("a hung mailer is killed after RPC_TIMEOUT",
	    mail_send("bob", "s", "b") == -1);
	free(mailer);

	config_set("MAIL", "/nonexistent/sendmail -oi", 0);
	CHECK("a missing mailer is reported",
	    mail_send("bob", "s", "b") == -1);

	unlink(out);
	free(out);
	mailer = xasprintf("%s/mailer", dir);
	unlink(mailer);
	free(mailer);
	rmdir(dir);
	TEST_EXIT();
}
