/*
 * shadow_mail.h: telling job owners about their jobs.
 *
 * Mail goes through the program MAIL names (sendmail-compatible), run as
 * "$(MAIL) RECIPIENT" with the whole message, headers first, on its
 * standard input.  An empty MAIL sends nothing.  Mail is a courtesy:
 * a failure is logged and returned, never fatal.
 */
#ifndef CONDOR_MAIL_H
#define CONDOR_MAIL_H

#define MAIL_MAX_RECIPIENT	256	/* bytes in an address */

/*
 * mail_send: mail SUBJECT and BODY to TO.  MAIL may carry arguments of
 * its own ("/usr/sbin/sendmail -oi"), split on white space.  TO must be
 * a plain address (no white space, no leading '-', no quotes or control
 * characters), since it becomes an argument and a header.  The program
 * runs with the caller's identity and gets RPC_TIMEOUT seconds to take
 * the message and exit before it is killed.  Returns 0 when the program
 * took the message and exited 0 (or MAIL is empty), -1 otherwise, with
 * the reason logged.
 */
int	mail_send(const char *to, const char *subject, const char *body);

/*
 * mail_address_valid: whether TO is acceptable to mail_send.
 */
int	mail_address_valid(const char *to);

#endif
