/*
 * kbdd_xidle.h: an X display's idle time, read over the X protocol itself
 * (the core setup, QueryExtension, and the MIT-SCREEN-SAVER extension's
 * QueryInfo) on the display's local socket, without the X libraries;
 * and, where the display has XInput 2, its raw input events, which tell
 * of input the moment it comes.  The kbdd uses it to see an owner who
 * works at a graphical display.
 *
 * The parsers are separate from the connection so that each can be
 * tested, and fed garbage, on its own: every one checks every length
 * against the bytes it was given and fails with a reason.
 */
#ifndef CONDOR_XIDLE_H
#define CONDOR_XIDLE_H

#include <stddef.h>
#include <stdint.h>

#define XIDLE_COOKIE_NAME	"MIT-MAGIC-COOKIE-1"
#define XIDLE_COOKIE_MAX	64	/* bytes of authorization data */
#define XIDLE_AUTH_FILE_MAX	(1024 * 1024)

/*
 * xidle_display_parse: DISPLAY (":N", ":N.S", "unix:N[.S]") to its
 * display number and the path of its socket (/tmp/.X11-unix/XN).  A
 * display on another host is refused: the kbdd watches its own console.
 * 0, or -1 with the reason in WHY.
 */
int	xidle_display_parse(const char *display, int *number, char *path,
	    size_t pathlen, char *why, size_t whylen);

/*
 * xidle_auth_find: the MIT-MAGIC-COOKIE-1 for display NUMBER in the
 * contents of an Xauthority file (BUF, LEN): an entry of this host
 * (family Local, address HOSTNAME) first, then a wildcard entry, then
 * any local entry for the number (a host renamed since).  Copies the
 * cookie to COOKIE (XIDLE_COOKIE_MAX bytes) and returns its length; 0
 * when there is none; -1 if the file is malformed before one is found.
 */
int	xidle_auth_find(const unsigned char *buf, size_t len,
	    const char *hostname, int number, unsigned char *cookie);

/*
 * xidle_setup_request: the connection setup request (little-endian)
 * with the cookie, if COOKIELEN > 0, into OUT (at least 48 + COOKIELEN
 * bytes); returns its length.
 */
size_t	xidle_setup_request(unsigned char *out, const unsigned char *cookie,
	    size_t cookielen);

/*
 * xidle_setup_header: the first 8 bytes of the server's setup reply.
 * Returns the length of what follows in bytes and sets *STATUS (0
 * failed, 1 success, 2 authenticate); -1 if the header is not one.
 */
long	xidle_setup_header(const unsigned char *hdr, int *status);

/*
 * xidle_setup_parse: the rest of a successful setup reply (BUF, LEN):
 * the first screen's root window.  0, or -1 with the reason.
 */
int	xidle_setup_parse(const unsigned char *buf, size_t len,
	    uint32_t *root, char *why, size_t whylen);

/* A connection to a display. */
struct xidle;

/*
 * xidle_open: connect to DISPLAY, authorizing with the first of the
 * colon-separated AUTHFILES that has a cookie for it (none: connect
 * without one; the server decides), and find MIT-SCREEN-SAVER.  Waits
 * at most TIMEOUT seconds for each answer.  NULL with the reason in
 * WHY.
 */
struct xidle *xidle_open(const char *display, const char *authfiles,
	    int timeout, char *why, size_t whylen);

/*
 * xidle_query: milliseconds since the display's last keyboard or
 * pointer input (real or synthetic), into *IDLE_MS.  0, or -1 with the
 * reason (the connection is then useless: close it).
 */
int	xidle_query(struct xidle *, long long *idle_ms, char *why,
	    size_t whylen);

/*
 * xidle_fd: the connection's descriptor, to watch for reading, when the
 * display sends raw input events (XInput 2); -1 when it does not, and
 * only xidle_query tells of input.  xidle_events: take what the display
 * sent without waiting; *INPUT is 1 if keyboard or pointer input came
 * since the last call (also while xidle_query waited).  0, or -1 with
 * the reason (close the connection).
 */
int	xidle_fd(const struct xidle *);
int	xidle_events(struct xidle *, int *input, char *why, size_t whylen);

void	xidle_close(struct xidle *);

#endif
