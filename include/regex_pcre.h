/*
 * regex_pcre.h: regular expressions in PCRE's syntax, matched in time
 * linear in the subject (a Pike VM over a compiled NFA program; it never
 * backtracks) unless the pattern has a back-reference, for the ClassAd
 * functions regexp(), regexps(), replace(), replaceall(), regexpMember()
 * and stringListRegexpMember().
 *
 * CONTRACT
 *
 * Text is bytes: UTF-8 is not decoded, "." and classes match one byte,
 * case folding is ASCII only.  A pattern or subject may hold NUL bytes
 * when given with its length.
 *
 * Syntax (as PCRE's): literals; escapes \a \e \f \n \r \t \0oo \o{ooo}
 * \xhh \x{hh} \cX and any escaped non-alphanumeric; \Q...\E; . ^ $
 * \A \z \Z \G \b \B; classes [...] with ranges, negation, escapes and
 * POSIX [:name:] / [:^name:]; \d \D \w \W \s \S \h \H \v \V \N; groups
 * (...), (?:...), named groups (?<n>...) (?'n'...) (?P<n>...) (a name
 * used twice is refused, as PCRE does); inline options (?imsx-imsx) and
 * (?imsx-imsx:...); comments (?#...); alternation |; quantifiers * + ?
 * {n} {n,} {n,m}, each greedy or lazy (a following ?).  A "{" that does
 * not open a valid quantifier is a literal.
 *
 * Look-around: (?=...) (?!...) (?<=...) (?<!...), atomic as in PCRE (the
 * first match of the body decides); a positive one keeps what its groups
 * captured, a negative one captures nothing.  Each top-level alternative
 * of a look-behind must match strings of one length (alternatives may
 * differ: (?<=ab|c) is allowed, (?<=a+) and (?<=a(b|cd)) are refused with
 * "lookbehind assertion is not fixed length", as PCRE before 10.43
 * refuses them).
 *
 * Back-references: \1..\9 and \N for a larger N when that many groups
 * precede it (else \N is octal, as PCRE has it), \g{N} \gN \g{-N} \g-N
 * \g{+N}, and by name \k<n> \k'n' \k{n} \g{n} (?P=n).  A reference to
 * a group that has not captured fails to match; one inside its group
 * sees the group's previous iteration; with caseless matching in force
 * where the reference stands it ignores case.  A reference to a group
 * that does not exist is refused.
 *
 * Refused with an error naming the construct ("... not supported"):
 * atomic groups (?>...), possessive quantifiers (*+ ++ ?+ {n}+),
 * conditionals, recursion and subroutine calls, callouts, (*VERB)s,
 * \K \R \X \p \P \C.
 *
 * Limits, so that a hostile pattern cannot exhaust memory or time: a
 * pattern is at most RX_MAX_PATTERN bytes; a count in {n,m} is at most
 * RX_MAX_REPEAT; the compiled program is at most RX_MAX_PROG
 * instructions (counted repetitions are expanded, and each look-around's
 * body is compiled twice more); groups nest at most RX_MAX_DEPTH deep;
 * a pattern has at most RX_MAX_LOOK look-arounds.  Without
 * back-references a search costs O(program size x subject length) time
 * (once more for each positive look-around whose groups are asked for,
 * to find what it captured) and O(program size x (groups asked for + 16
 * + look-arounds) + look-arounds x subject length / 8) memory, whatever
 * the pattern: each look-around used is tabulated once over the whole
 * subject.  With
 * back-references the pattern is matched by backtracking, as PCRE does,
 * and a search (or a whole rx_subst) that takes more than RX_MAX_STEPS
 * steps, or whose backtracking stack grows past 16 MB, fails with an
 * error (rx_search -1, rx_subst NULL with errno ERANGE) rather than run
 * on: "(a*)*\1" on a long run of a's is such a pattern.
 *
 * A search allocates its working memory afresh (nothing is shared
 * between calls); with no thread alive it skips to the next byte that
 * can begin a match, so a pattern that cannot match empty costs little
 * on text where it rarely starts.
 *
 * Matching is PCRE's: the leftmost match wins, and among matches that
 * start there, the one PCRE's backtracking would find first (alternation
 * tries left to right; greedy quantifiers prefer more, lazy fewer).
 * An iteration of an unbounded repetition that matches the empty
 * string leaves the loop, as in PCRE.  Captures are those of that match
 * (a group inside a repetition holds its last iteration).  Known
 * differences from PCRE: the captures of a counted repetition of a group
 * that can match empty ((x*?){2,4}); in a pattern without
 * back-references, with more than 16 unbounded repetitions of something
 * that can match empty, the 17th and later of them, where an empty
 * iteration ends its path instead of leaving the loop, which can change
 * the match; and in a pattern without back-references, a group inside a
 * positive look-around holds what the look-around captured the last time
 * the match passed it (a group that took no part then is unset, where
 * PCRE would keep an earlier pass's).  ^ without
 * RX_MULTILINE matches at the subject's start only; with it also after
 * each newline except one that ends the subject.  $
 * (and \Z) matches at the end and before a newline that ends the
 * subject; with RX_MULTILINE $ matches before every newline.  "."
 * matches any byte but newline unless RX_DOTALL.
 *
 * For the ClassAd functions (OPTS their options string, or NULL):
 *   int f = rx_options(OPTS);
 *   struct rx *rx = rx_compile(pattern, f, err, sizeof(err));
 *   NULL: the result is ERROR (err says why);
 *   regexp(), regexpMember(), stringListRegexpMember():
 *       rx_search(rx, s, strlen(s), 0, NULL, 0); -1 is ERROR
 *   regexps(p, s, t, OPTS):  rx_subst(rx, s, strlen(s), t, f, NULL, NULL)
 *   replace(p, s, t, OPTS):  the same with f | RX_FULL
 *   replaceall(p, s, t, OPTS): the same with f | RX_FULL | RX_GLOBAL
 *   (HTCondor's own g and f letters in OPTS are honoured by all three)
 *   rx_subst returning NULL: ERROR too; rx_free(rx) in every case.
 *
 * Thread safety: a compiled struct rx is read-only once compiled and
 * may be searched from several threads at once.
 */
#ifndef CONDOR_REGEX_PCRE_H
#define CONDOR_REGEX_PCRE_H

#include <stddef.h>

/* Compile options (HTCondor's option letters i, m, s, x). */
#define RX_CASELESS	0x01	/* i: ASCII letters match either case */
#define RX_MULTILINE	0x02	/* m: ^ and $ match at line ends */
#define RX_DOTALL	0x04	/* s: . matches newline too */
#define RX_EXTENDED	0x08	/* x: whitespace and #-comments ignored */
/* Substitution options (letters f and g), for rx_subst; rx_compile
 * ignores them. */
#define RX_FULL		0x100	/* f: return the whole subject, replaced */
#define RX_GLOBAL	0x200	/* g: replace every match, not the first */
/* For tests: match by backtracking even without back-references. */
#define RX_BACKTRACK	0x400

#define RX_MAX_REPEAT	1000	/* largest n or m in {n,m} */
#define RX_MAX_PROG	30000	/* instructions in a compiled pattern */
#define RX_MAX_DEPTH	200	/* nesting of groups */
#define RX_MAX_PATTERN	65536	/* bytes in a pattern */
#define RX_MAX_LOOK	64	/* look-arounds in a pattern */
/*
 * Steps (program instructions executed) the backtracking matcher may
 * take in one rx_search or rx_subst.  Only patterns with back-references
 * backtrack.  Half PCRE's default match limit (which counts coarser
 * steps): enough for any pattern that is not exponential on its
 * subject, and a tenth of a second or so at worst, so that one user's
 * pattern cannot stall the negotiator or the schedd.
 */
#define RX_MAX_STEPS	5000000UL

/* A group's span, byte offsets into the subject; RX_UNSET in both when
 * the group took no part in the match. */
#define RX_UNSET	((size_t)-1)
struct rx_match {
	size_t	so;		/* start */
	size_t	eo;		/* end (exclusive) */
};

struct rx;

/*
 * rx_options: the RX_ flags that HTCondor's option string OPTS asks for:
 * i/I caseless, m/M multiline, s/S dotall, x/X extended, f/F full, g/G
 * global.  Other characters are ignored (as HTCondor does).  NULL is "".
 */
int		 rx_options(const char *opts);

/*
 * rx_compile: compile the NUL-terminated PATTERN with FLAGS (RX_ flags;
 * RX_FULL and RX_GLOBAL are ignored; RX_BACKTRACK, for tests, makes
 * every search backtrack, with the same limits as back-references).
 * Returns the compiled pattern (free with rx_free), or NULL with a
 * one-line message in ERR (ERRLEN bytes, may be NULL/0) that names the
 * problem and its offset in the pattern.
 * rx_compilen takes the pattern's length instead (NUL bytes allowed).
 */
struct rx	*rx_compile(const char *pattern, int flags, char *err,
		    size_t errlen);
struct rx	*rx_compilen(const char *pattern, size_t patlen, int flags,
		    char *err, size_t errlen);
void		 rx_free(struct rx *);

/* rx_ngroups: the number of capturing groups (not counting group 0). */
size_t		 rx_ngroups(const struct rx *);

/*
 * rx_search: find the first match in SUBJECT[0..LEN) that starts at or
 * after byte START (the text before START is still seen: ^ matches only
 * at 0, or after a newline in multiline mode, and \b looks at the byte
 * before START; \G matches at START).  Returns 1 on a match, 0
 * otherwise (also when START > LEN), -1 when a pattern with
 * back-references took more than RX_MAX_STEPS steps (no answer: the
 * ClassAd functions give ERROR).
 * On a match, GROUPS[0..NGROUPS) receive group 0 (the whole match) and
 * groups 1..NGROUPS-1; groups the pattern lacks or that did not take part
 * are RX_UNSET.  GROUPS may be NULL when NGROUPS is 0.  Memory
 * exhaustion is fatal (xmalloc).
 */
int		 rx_search(const struct rx *, const char *subject, size_t len,
		    size_t start, struct rx_match *groups, size_t ngroups);

/*
 * rx_expand: append to OUT the template TMPL with \0..\9 replaced by
 * that group's text in SUBJECT (GROUPS[0..NGROUPS) as rx_search gave
 * them); any other backslash is copied as it is, and so is the character
 * after it (HTCondor's "backslash expansion": "\\n" stays a backslash
 * and an n).  As HTCondor does with PCRE, a group that took no part is
 * empty if a higher-numbered group took part, and an error otherwise:
 * returns 0, or -1 when TMPL names a group past the last one that took
 * part (OUT then holds part of the text).
 */
struct buf;
int		 rx_expand(const char *tmpl, const char *subject,
		    const struct rx_match *groups, size_t ngroups,
		    struct buf *out);

/*
 * rx_subst: HTCondor's regexps()/replace()/replaceall() in one.  Searches
 * SUBJECT[0..LEN) with RX and returns a fresh NUL-terminated string
 * (caller frees; its length in *OUTLEN when OUTLEN is not NULL):
 *   - without RX_FULL: the expanded template of the first match (with
 *     RX_GLOBAL, of every match, concatenated); "" when nothing matches;
 *   - with RX_FULL: SUBJECT with the first match (with RX_GLOBAL, every
 *     match) replaced by the expanded template; SUBJECT unchanged when
 *     nothing matches.
 * Returns NULL when the template names a group past the last that took
 * part in a match (see rx_expand; errno EINVAL), or when the searches
 * together took more than RX_MAX_STEPS steps (errno ERANGE); the ClassAd
 * result is then ERROR.
 * Global replacement goes on after each match; after an empty match it
 * first tries for a non-empty match at the same place, then steps over
 * one byte (as PCRE and Perl do: "x*" on "abxd" with "-" gives
 * "-a-b--d-", "|a" on "a" gives "---").  *NMATCH (when not NULL)
 * receives the number of matches replaced.
 */
char		*rx_subst(const struct rx *, const char *subject, size_t len,
		    const char *tmpl, int opts, size_t *outlen, size_t *nmatch);

#endif
