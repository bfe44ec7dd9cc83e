/*
 * regex_test: the PCRE-syntax regular expressions of src/util/regex.c.
 *
 * A table of pattern, options, subject and the spans of the groups
 * PCRE reports (leftmost-first alternation, greedy and lazy
 * quantifiers, anchors with and without multiline, classes, POSIX
 * classes, escapes, inline options, case folding, extended mode,
 * look-ahead and look-behind, back-references); a table of patterns
 * that must be refused, with the error they give;
 * searches from an offset; the substitutions of HTCondor's regexps(),
 * replace() and replaceall() (options f and g, \0..\9 in the
 * template); the compile limits; patterns that make a backtracking
 * matcher take exponential time, on 100,000-byte subjects (their time is
 * printed, never asserted); patterns with back-references that must
 * give up within their step budget on such subjects, and others that
 * must still be answered; and, when python3 is here, a differential
 * test against Python's re on a few thousand generated patterns in the
 * subset where the two agree, comparing match and the span of group 0,
 * then on as many with look-arounds and back-references as well.
 *
 * checks: 546
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "regex_pcre.h"
#include "test.h"
#include "xalloc.h"

/*
 * WANT lists the spans "so,eo" of group 0, 1, ... separated by spaces
 * ("-" for a group that took no part); groups past those listed are not
 * compared.  NULL: no match.  LEN 0: the subject is NUL-terminated.
 */
static const struct mcase {
	const char *pat;
	const char *opts;
	const char *subj;
	size_t	 len;
	const char *want;
} mcases[] = {
	{ "abc", "", "abc", 0, "0,3" },
	{ "abc", "", "xabcx", 0, "1,4" },
	{ "abc", "", "ab", 0, NULL },
	{ "abc", "", "ABC", 0, NULL },
	{ "abc", "i", "ABC", 0, "0,3" },
	{ "abc", "I", "xAbCx", 0, "1,4" },
	{ "a.c", "", "abc", 0, "0,3" },
	{ "a.c", "", "a\nc", 0, NULL },
	{ "a.c", "s", "a\nc", 0, "0,3" },
	{ "a.c", "S", "a\nc", 0, "0,3" },
	{ "a.c", "", "a\x00" "c", 3, "0,3" },
	{ "a\\.c", "", "a.c", 0, "0,3" },
	{ "a\\.c", "", "abc", 0, NULL },
	{ "a\\\\b", "", "a\\b", 0, "0,3" },
	{ "a\\*", "", "a*", 0, "0,2" },
	{ "a\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$", "", "a+?()[]{}|^$", 0, "0,12" },
	{ "a\\/b", "", "a/b", 0, "0,3" },
	{ "\\d+", "", "abc123def", 0, "3,6" },
	{ "\\d+", "", "abc", 0, NULL },
	{ "\\D+", "", "123abc456", 0, "3,6" },
	{ "\\w+", "", "  foo_Bar9 !", 0, "2,10" },
	{ "\\W+", "", "abc!@#def", 0, "3,6" },
	{ "\\s+", "", "a \t\n\r\f\x0b" "b", 0, "1,7" },
	{ "\\S+", "", "  xyz  ", 0, "2,5" },
	{ "\\h+", "", "a \tb", 0, "1,3" },
	{ "\\H", "", " \tx", 0, "2,3" },
	{ "\\v+", "", "a\n\x0b\f\rb", 0, "1,5" },
	{ "\\V", "", "\nx", 0, "1,2" },
	{ "\\N+", "", "ab\ncd", 0, "0,2" },
	{ "a|b", "", "b", 0, "0,1" },
	{ "a|b|c", "", "xyzc", 0, "3,4" },
	{ "ab|a", "", "ab", 0, "0,2" },
	{ "a|ab", "", "ab", 0, "0,1" },
	{ "(a|ab)(c|bcd)(d*)", "", "abcd", 0, "0,4 0,1 1,4 4,4" },
	{ "(a|ab)(c|bcd)", "", "abcd", 0, "0,4 0,1 1,4" },
	{ "(ab|a)(bcd|c)", "", "abcd", 0, "0,3 0,2 2,3" },
	{ "x(a|b)*y", "", "xababy", 0, "0,6 4,5" },
	{ "(a)|(b)", "", "b", 0, "0,1 - 0,1" },
	{ "(a)|(b)", "", "a", 0, "0,1 0,1 -" },
	{ "(a)(b)?", "", "a", 0, "0,1 0,1 -" },
	{ "()", "", "x", 0, "0,0 0,0" },
	{ "(?:a|b)+", "", "abba", 0, "0,4" },
	{ "(?:ab)+", "", "ababab", 0, "0,6" },
	{ "(a(b(c)))", "", "abc", 0, "0,3 0,3 1,3 2,3" },
	{ "((a)|b)+", "", "ab", 0, "0,2 1,2 0,1" },
	{ "a*", "", "", 0, "0,0" },
	{ "a*", "", "bbb", 0, "0,0" },
	{ "a*", "", "aaa", 0, "0,3" },
	{ "a+", "", "baaac", 0, "1,4" },
	{ "a?", "", "b", 0, "0,0" },
	{ "a?b", "", "ab", 0, "0,2" },
	{ "a*b", "", "aaab", 0, "0,4" },
	{ "a*?b", "", "aaab", 0, "0,4" },
	{ "a+?", "", "aaa", 0, "0,1" },
	{ "a??b", "", "ab", 0, "0,2" },
	{ "a??", "", "a", 0, "0,0" },
	{ "a*?", "", "aaa", 0, "0,0" },
	{ "(a+)(a+)", "", "aaaa", 0, "0,4 0,3 3,4" },
	{ "(a+?)(a+)", "", "aaaa", 0, "0,4 0,1 1,4" },
	{ "(a*)(a*)", "", "aaa", 0, "0,3 0,3 3,3" },
	{ "(a*?)(a*)", "", "aaa", 0, "0,3 0,0 0,3" },
	{ "(.*)c(.*)", "", "abcdcef", 0, "0,7 0,4 5,7" },
	{ "(.*?)c(.*)", "", "abcdcef", 0, "0,7 0,2 3,7" },
	{ "<.+>", "", "<a><b>", 0, "0,6" },
	{ "<.+?>", "", "<a><b>", 0, "0,3" },
	{ "a{3}", "", "aaaa", 0, "0,3" },
	{ "a{3}", "", "aa", 0, NULL },
	{ "a{2,}", "", "a", 0, NULL },
	{ "a{2,}", "", "aaaaa", 0, "0,5" },
	{ "a{2,3}", "", "aaaaa", 0, "0,3" },
	{ "a{2,3}?", "", "aaaaa", 0, "0,2" },
	{ "a{0}", "", "aaa", 0, "0,0" },
	{ "a{0,0}b", "", "ab", 0, "1,2" },
	{ "a{1,1}", "", "a", 0, "0,1" },
	{ "(ab){2}", "", "abababab", 0, "0,4 2,4" },
	{ "(ab){2,}?", "", "abababab", 0, "0,4 2,4" },
	{ "x{0,2}y", "", "xxxy", 0, "1,4" },
	{ "a{", "", "a{", 0, "0,2" },
	{ "a{x}", "", "a{x}", 0, "0,4" },
	{ "a{1", "", "a{1", 0, "0,3" },
	{ "a{,2}", "", "a{,2}", 0, "0,5" },
	{ "a{1,2", "", "a{1,2", 0, "0,5" },
	{ "{", "", "{", 0, "0,1" },
	{ "x{2}{", "", "xx{", 0, "0,3" },
	{ "^abc", "", "abc", 0, "0,3" },
	{ "^abc", "", "xabc", 0, NULL },
	{ "^abc$", "", "abc", 0, "0,3" },
	{ "^abc$", "", "abc\n", 0, "0,3" },
	{ "^abc$", "", "abc\n\n", 0, NULL },
	{ "abc$", "", "abc\ndef", 0, NULL },
	{ "abc$", "m", "abc\ndef", 0, "0,3" },
	{ "^def", "m", "abc\ndef", 0, "4,7" },
	{ "^def", "", "abc\ndef", 0, NULL },
	{ "^", "", "", 0, "0,0" },
	{ "$", "", "", 0, "0,0" },
	{ "^$", "", "", 0, "0,0" },
	{ "^$", "m", "a\n\nb", 0, "2,2" },
	{ "^$", "m", "a\n", 0, NULL },
	{ "^", "m", "a\n", 0, "0,0" },
	{ "^x", "m", "a\n", 0, NULL },
	{ "$", "m", "a\nb", 0, "1,1" },
	{ "\\Aabc", "", "abc", 0, "0,3" },
	{ "\\Aabc", "m", "x\nabc", 0, NULL },
	{ "abc\\z", "", "abc\n", 0, NULL },
	{ "abc\\Z", "", "abc\n", 0, "0,3" },
	{ "abc\\Z", "", "abc\n\n", 0, NULL },
	{ "abc\\z", "", "abc", 0, "0,3" },
	{ "\\bfoo\\b", "", "a foo b", 0, "2,5" },
	{ "\\bfoo\\b", "", "afoo", 0, NULL },
	{ "\\Bfoo", "", "afoo", 0, "1,4" },
	{ "\\Bfoo", "", "foo", 0, NULL },
	{ "foo\\b", "", "foo", 0, "0,3" },
	{ "\\b", "", "", 0, NULL },
	{ "\\B", "", "", 0, "0,0" },
	{ "\\b\\w+\\b", "", "!! hello !!", 0, "3,8" },
	{ "\\G\\d", "", "1a", 0, "0,1" },
	{ "\\Gab", "", "xab", 0, NULL },
	{ "[abc]+", "", "xxcabz", 0, "2,5" },
	{ "[^abc]+", "", "abcxyzabc", 0, "3,6" },
	{ "[a-c]+", "", "dcbad", 0, "1,4" },
	{ "[a-cx-z]+", "", "pxaz", 0, "1,4" },
	{ "[-a]+", "", "b-a-", 0, "1,4" },
	{ "[a-]+", "", "b-a-", 0, "1,4" },
	{ "[]a]+", "", "x]a]", 0, "1,4" },
	{ "[^]a]+", "", "]a]xy", 0, "3,5" },
	{ "[\\]]", "", "]", 0, "0,1" },
	{ "[\\\\]", "", "\\", 0, "0,1" },
	{ "[\\d]+", "", "ab12", 0, "2,4" },
	{ "[\\D]+", "", "12ab", 0, "2,4" },
	{ "[\\w-]+", "", "!a-b_c!", 0, "1,6" },
	{ "[^\\d\\s]+", "", "1 abc 2", 0, "2,5" },
	{ "[\\s]", "", "a b", 0, "1,2" },
	{ "[a-z\\d]+", "", "ABab12!", 0, "2,6" },
	{ "[.]", "", "a.", 0, "1,2" },
	{ "[*+?]+", "", "a*+?b", 0, "1,4" },
	{ "[\\x41-\\x43]+", "", "ZABCD", 0, "1,4" },
	{ "[\\n]", "", "a\nb", 0, "1,2" },
	{ "[\\t ]+", "", "a \t b", 0, "1,4" },
	{ "[[:alpha:]]+", "", "12abC3", 0, "2,5" },
	{ "[[:digit:]]+", "", "ab123", 0, "2,5" },
	{ "[[:alnum:]]+", "", "!!aB3!!", 0, "2,5" },
	{ "[[:upper:]]+", "", "abCDe", 0, "2,4" },
	{ "[[:lower:]]+", "", "ABcdE", 0, "2,4" },
	{ "[[:space:]]+", "", "a \t\nb", 0, "1,4" },
	{ "[[:punct:]]+", "", "ab!?.cd", 0, "2,5" },
	{ "[[:xdigit:]]+", "", "xyzDEADbeefg", 0, "3,11" },
	{ "[[:blank:]]+", "", "a \tb", 0, "1,3" },
	{ "[[:word:]]+", "", "!a_1!", 0, "1,4" },
	{ "[[:^digit:]]+", "", "12ab34", 0, "2,4" },
	{ "[^[:digit:]]+", "", "12ab34", 0, "2,4" },
	{ "[[:alpha:][:digit:]]+", "", "-a1-", 0, "1,3" },
	{ "[[:upper:]]+", "i", "abc", 0, "0,3" },
	{ "[^a]", "i", "A", 0, NULL },
	{ "[^a]", "i", "b", 0, "0,1" },
	{ "[A-Z]+", "i", "abc", 0, "0,3" },
	{ "[a-z]+", "i", "ABC", 0, "0,3" },
	{ "x[^y]z", "", "x\nz", 0, "0,3" },
	{ "\\x41", "", "A", 0, "0,1" },
	{ "\\x{41}", "", "A", 0, "0,1" },
	{ "\\x41\\x42", "", "AB", 0, "0,2" },
	{ "\\101", "", "A", 0, "0,1" },
	{ "\\0", "", "\x00", 1, "0,1" },
	{ "\\0101", "", "\x08" "1", 0, "0,2" },
	{ "\\o{101}", "", "A", 0, "0,1" },
	{ "\\n", "", "a\nb", 0, "1,2" },
	{ "\\t", "", "a\tb", 0, "1,2" },
	{ "\\e", "", "\x1b", 0, "0,1" },
	{ "\\cA", "", "\x01", 0, "0,1" },
	{ "\\ca", "", "\x01", 0, "0,1" },
	{ "\\Qa.b*c\\E", "", "a.b*c", 0, "0,5" },
	{ "\\Qa.b\\E+", "", "a.bbb", 0, "0,5" },
	{ "\\Qa.b", "", "xa.b", 0, "1,4" },
	{ "a\\Eb", "", "ab", 0, "0,2" },
	{ "(?i)abc", "", "ABC", 0, "0,3" },
	{ "a(?i)bc", "", "aBC", 0, "0,3" },
	{ "a(?i)bc", "", "ABC", 0, NULL },
	{ "a(?i:b)c", "", "aBc", 0, "0,3" },
	{ "a(?i:b)c", "", "aBC", 0, NULL },
	{ "(?i:a|b)c", "", "Bc", 0, "0,2" },
	{ "(a(?i)b|c)", "", "C", 0, "0,1 0,1" },
	{ "(?s).", "", "\n", 0, "0,1" },
	{ "(?s:.)", "", "\n", 0, "0,1" },
	{ "(?m)^b", "", "a\nb", 0, "2,3" },
	{ "(?-i)a", "i", "A", 0, NULL },
	{ "(?i-i)a", "", "A", 0, NULL },
	{ "(?x) a b c ", "", "abc", 0, "0,3" },
	{ "(?x)a # comment\\nb", "", "ab", 0, "0,1" },
	{ "(?x)a[ ]b", "", "a b", 0, "0,3" },
	{ "(?x)a\\ b", "", "a b", 0, "0,3" },
	{ "(?x)a +", "", "aaa", 0, "0,3" },
	{ "a b", "x", "ab", 0, "0,2" },
	{ "a#x", "x", "a", 0, "0,1" },
	{ "(?#comment)ab", "", "ab", 0, "0,2" },
	{ "(?<name>a)b", "", "ab", 0, "0,2 0,1" },
	{ "(?'n'a)b", "", "ab", 0, "0,2 0,1" },
	{ "(?P<n>a)(b)", "", "ab", 0, "0,2 0,1 1,2" },
	{ "(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)", "", "abcdefghijk", 0,
	    "0,11 0,1 1,2 2,3 3,4 4,5 5,6 6,7 7,8 8,9 9,10 10,11" },
	{ "a|", "", "b", 0, "0,0" },
	{ "|a", "", "a", 0, "0,0" },
	{ "(|a)+", "", "a", 0, "0,0 0,0" },
	{ "(a|)+b", "", "aab", 0, "0,3 2,2" },
	{ "a||b", "", "b", 0, "0,0" },
	{ "(?:)", "", "x", 0, "0,0" },
	{ "\\.+", "", "a...", 0, "1,4" },
	{ ".+", "", "\n\nab\n", 0, "2,4" },
	{ ".*", "", "\nab", 0, "0,0" },
	{ "[^a]", "", "\n", 0, "0,1" },
	{ "\xc3\xa9", "", "caf\xc3\xa9", 0, "3,5" },
	{ "[\\x80-\\xff]+", "", "caf\xc3\xa9!", 0, "3,5" },
	{ "\\xff", "", "\xff", 0, "0,1" },
	{ "[^\\x00-\\x7f]", "", "abc\x80", 0, "3,4" },
	{ "a{1000}", "", "a", 0, NULL },
	{ ".{0,1000}", "", "abc", 0, "0,3" },
	{ "(x+x+)+y", "", "xxxxxxxxxxxxxxxxxxxxxxxxy", 0, "0,25 0,24" },
	{ "(x+x+)+y", "", "xxxxxxxxxxxxxxxxxxxxxxxx", 0, NULL },
	{ "(a|aa)*c", "", "aaaac", 0, "0,5 3,4" },
	{ "(a*)*", "", "b", 0, "0,0 0,0" },
	{ "(a*)+", "", "b", 0, "0,0 0,0" },
	{ "(a|b)*?c", "", "abac", 0, "0,4 2,3" },
	{ "(?:a|ab)*c", "", "ababc", 0, "0,5" },
	{ "(?:x*)*y", "", "xxy", 0, "0,3" },
	{ "(?:(?:a)*)*b", "", "ab", 0, "0,2" },
	{ "(a|b)*", "", "abab", 0, "0,4 3,4" },
	{ "(a|b)+?", "", "abab", 0, "0,1 0,1" },
	{ "(a)*", "", "aaa", 0, "0,3 2,3" },
	{ "(a)*", "", "b", 0, "0,0 -" },
	{ "(?:(a)|(b))+", "", "ab", 0, "0,2 0,1 1,2" },
	{ "(?:(a)|b)+", "", "ab", 0, "0,2 0,1" },
	{ "([a-c]+)\\.([0-9]+)", "", "x abc.123 y", 0, "2,9 2,5 6,9" },
	{ "(\\w+)@(\\w+)\\.com", "", "mail bob@example.com now", 0,
	    "5,20 5,8 9,16" },
	{ "^(\\S+)\\s+(\\S+)$", "", "hello   world", 0, "0,13 0,5 8,13" },
	{ "^\\s*$", "", "   ", 0, "0,3" },
	{ "^\\s*$", "", "  x ", 0, NULL },
	{ "colou?r", "", "color", 0, "0,5" },
	{ "colou?r", "", "colour", 0, "0,6" },
	{ "gr[ae]y", "", "grey", 0, "0,4" },
	{ "\\$\\d+\\.\\d\\d", "", "cost $12.50 total", 0, "5,11" },
	{ "^[A-Z][a-z]*$", "", "Hello", 0, "0,5" },
	{ "^[A-Z][a-z]*$", "", "hello", 0, NULL },
	{ "^[^@]+@[^@]+$", "", "a@b", 0, "0,3" },
	{ "^[^@]+@[^@]+$", "", "a@b@c", 0, NULL },
	{ ".*\\.example\\.org$", "", "node1.example.org", 0, "0,17" },
	{ ".*\\.example\\.org$", "", "node1.example.org.evil", 0, NULL },
	{ "^(slot\\d+)@(.*)$", "", "slot12@host.domain", 0, "0,18 0,6 7,18" },
	{ "^vm\\d+", "i", "VM12", 0, "0,4" },
	{ "LINUX|WINDOWS", "i", "linux", 0, "0,5" },
	{ "\\bX86_64\\b", "", "INTEL X86_64", 0, "6,12" },
	{ "a.*b", "s", "a\n\nb", 0, "0,4" },
	{ "^a.*b$", "m", "xx\na123b\nyy", 0, "3,8" },
	{ "(?m)^\\d+$", "", "a\n42\nb", 0, "2,4" },
	{ "(?s)a.b", "", "a\nb", 0, "0,3" },
	{ "(?i)[^x]+", "", "XXaX", 0, "2,3" },
	{ "a(?x: b c )d", "", "abcd", 0, "0,4" },
	{ "(?x)[a b]+", "", "b a", 0, "0,3" },
	{ "(?x)a{2} b", "", "aab", 0, "0,3" },
	{ "a{2} b", "x", "aab", 0, "0,3" },
	{ "a{2}\\ {1}b", "x", "aa b", 0, "0,4" },
	/*
	 * An iteration that matches nothing leaves its loop (PCRE), even
	 * where another path reached the same place first.
	 */
	{ "(a*)*b", "", "aaab", 0, "0,4 3,3" },
	{ "(a*)+b", "", "aaab", 0, "0,4 3,3" },
	{ "(d|c?" "?)*", "", "dcc", 0, "0,1 1,1" },
	{ "(?:d|c?" "?)*x", "", "dccx", 0, "0,4" },
	{ "((?:d|c?" "?)*)+", "", "ddc", 0, "0,2 2,2" },
	{ "(?:(?:c?" "?)+)*", "", "cc", 0, "0,0" },
	/* Extended mode: a comment runs to the end of its line. */
	{ "(?x)a # comment\nb", "", "ab", 0, "0,2" },
	{ "a#c\nb", "x", "ab", 0, "0,2" },
	/* A NUL in the subject is a byte like any other. */
	{ "a\\x00b", "", "xa\x00" "b", 4, "1,4" },
	{ "[^a]+", "", "a\x00\x00" "a", 4, "1,3" },
	/* ^ in multiline mode is not after a newline ending the subject. */
	{ "^", "m", "a\n", 0, "0,0" },
	{ "\\n^", "m", "a\n", 0, NULL },
	{ "\\n^", "m", "a\nb", 0, "1,2" },
	{ "$", "", "a\n", 0, "1,1" },
	{ "\\n$", "", "a\n", 0, "1,2" },
	/* Case folding is ASCII: bytes above 127 are left alone. */
	{ "\\xe9", "i", "\xc9", 0, NULL },
	{ "[[:alpha:]]", "", "\xe9", 0, NULL },
	/*
	 * Look-ahead and look-behind, from pcre2pattern's examples and
	 * rules: zero-width, atomic, a positive one keeps its captures.
	 */
	{ "\\w+(?=;)", "", "foo bar;", 0, "4,7" },
	{ "foo(?!bar)", "", "foobar foobaz", 0, "7,10" },
	{ "(?!foo)bar", "", "foobar", 0, "3,6" },
	{ "(?<!foo)bar", "", "foobar", 0, NULL },
	{ "(?<!foo)bar", "", "foobar xbar", 0, "8,11" },
	{ "(?<=bullock|donkey)x", "", "donkeyx", 0, "6,7" },
	{ "(?<=bullock|donkey)x", "", "bullockx", 0, "7,8" },
	{ "(?<=bullock|donkey)x", "", "monkeyx", 0, NULL },
	{ "(?<=\\d{3})(?<!999)foo", "", "999foo123foo", 0, "9,12" },
	{ "(?<=\\d{3}...)(?<!999)foo", "", "123abcfoo", 0, "6,9" },
	{ "(?<=\\d{3}(?!999)...)foo", "", "123999foo124abcfoo", 0,
	    "15,18" },
	{ "(?<=(?<!foo)bar)baz", "", "foobarbaz barbaz", 0, "13,16" },
	{ "(?=\\d{3})(?!999)\\d{3}", "", "999123", 0, "1,4" },
	{ "a(?=b)", "", "acab", 0, "2,3" },
	{ "a(?=b)", "", "a", 0, NULL },
	{ "a(?!b)", "", "abac", 0, "2,3" },
	{ "a(?!b)", "", "ab", 0, NULL },
	{ "(?<=a)b", "", "cbab", 0, "3,4" },
	{ "(?<!a)b", "", "abcb", 0, "3,4" },
	{ "(?<=ab|c)d", "", "xabd", 0, "3,4" },
	{ "(?<=ab|c)d", "", "xcd", 0, "2,3" },
	{ "(?<=^|,)\\w+", "", "a,bc", 0, "0,1" },
	{ "(?<=,|^)b\\w", "", "a,bc", 0, "2,4" },
	{ "(?<=a)", "", "a", 0, "1,1" },
	{ "(?<!^)x", "", "xx", 0, "1,2" },
	{ "(?<=^)x", "", "xx", 0, "0,1" },
	{ "(?=)", "", "a", 0, "0,0" },
	{ "(?!)", "", "a", 0, NULL },
	{ "(?=.*x)a", "", "abcx", 0, "0,1" },
	{ "(?=.*x)a", "", "abc", 0, NULL },
	{ "^(?=.*\\d)(?=.*[a-z])\\w{6,}$", "", "abc123", 0, "0,6" },
	{ "^(?=.*\\d)(?=.*[a-z])\\w{6,}$", "", "abcdef", 0, NULL },
	{ "(?!a)\\w", "", "aab", 0, "2,3" },
	{ "(?i)(?<=A)b", "", "ab", 0, "1,2" },
	{ "(?<=a(?=b))b", "", "ab", 0, "1,2" },
	{ "(?=a(?<=ba))a", "", "aba", 0, "2,3" },
	{ "(?<=\\bx)y", "", "axy xy", 0, "5,6" },
	{ "(?=a)*b", "", "b", 0, "0,1" },
	{ "(?:(?=a)|b)+c", "", "bc", 0, "0,2" },
	{ "x(?=y)?z", "", "xz", 0, "0,2" },
	{ "(?<=a){2}b", "", "ab", 0, "1,2" },
	{ "(?<=\\x00)a", "", "\x00" "a", 2, "1,2" },
	{ "(?=(\\w+))", "", "  hello", 0, "2,2 2,7" },
	{ "(?=(a+))a*b", "", "baaab", 0, "1,5 1,4" },
	{ "(?<=(a))b", "", "ab", 0, "1,2 0,1" },
	{ "(?<=(a)|(b))c", "", "bc", 0, "1,2 - 0,1" },
	{ "(?:(?=(\\w))\\w)+", "", "abc", 0, "0,3 2,3" },
	{ "(?=(a)(?=(b)))", "", "xab", 0, "1,1 1,2 2,3" },
	{ "(?!(a))b", "", "b", 0, "0,1 -" },
	{ "(?=(a)|(b))(a|b)", "", "b", 0, "0,1 - 0,1 0,1" },
	{ "(x)(?=(y))?", "", "xy", 0, "0,1 0,1 1,2" },
	/*
	 * Back-references (matched by backtracking): pcre2pattern's
	 * examples, numbered, relative and named forms, case.
	 */
	{ "(sens|respons)e and \\1ibility", "", "sense and sensibility", 0,
	    "0,21 0,4" },
	{ "(sens|respons)e and \\1ibility", "", "response and "
	    "responsibility", 0, "0,27 0,7" },
	{ "(sens|respons)e and \\1ibility", "", "sense and "
	    "responsibility", 0, NULL },
	{ "((?i)rah)\\s+\\1", "", "rah rah", 0, "0,7 0,3" },
	{ "((?i)rah)\\s+\\1", "", "RAH RAH", 0, "0,7 0,3" },
	{ "((?i)rah)\\s+\\1", "", "RAH rah", 0, NULL },
	{ "((?i)rah)\\s+(?i:\\1)", "", "RAH rah", 0, "0,7 0,3" },
	{ "(a)\\1", "i", "aA", 0, "0,2 0,1" },
	{ "(a)\\1", "", "aA", 0, NULL },
	{ "\\b(\\w+)\\s+\\1\\b", "i", "The the end", 0, "0,7 0,3" },
	{ "^(\\w+)\\s+\\1$", "", "hello hello", 0, "0,11 0,5" },
	{ "^(\\w+)\\s+\\1$", "", "hello help", 0, NULL },
	{ "(a|b)\\1", "", "abba", 0, "1,3 1,2" },
	{ "(\\w)(\\w)\\2\\1", "", "xabba", 0, "1,5 1,2 2,3" },
	{ "(a|b\\1)+", "", "aba", 0, "0,3 1,3" },
	{ "(a|b\\1)+", "", "ababbaa", 0, "0,7 6,7" },
	{ "(a)?b\\1", "", "b", 0, NULL },
	{ "(?:(a)|b)\\1", "", "ba", 0, NULL },
	{ "(a)|\\1", "", "x", 0, NULL },
	{ "\\k<q>?(?<q>x)", "", "xx", 0, "0,1 0,1" },
	{ "(?:(x)|\\1y)+", "", "xxy", 0, "0,2 1,2" },
	{ "(a)(?=\\1)", "", "xaa", 0, "1,2 1,2" },
	{ "(a)(?!\\1)\\w", "", "aab", 0, "1,3 1,2" },
	{ "(?=(a))\\1\\1", "", "aa", 0, "0,2 0,1" },
	{ "(?=(\\w+))\\1:", "", "abc: x", 0, "0,4 0,3" },
	{ "(?=(a+))a*b\\1", "", "baaabac", 0, "3,6 3,4" },
	{ "(.)\\g1", "", "xyy", 0, "1,3 1,2" },
	{ "(.)\\g{1}", "", "xyy", 0, "1,3 1,2" },
	{ "(.)\\g{-1}", "", "xyy", 0, "1,3 1,2" },
	{ "(.)(.)\\g-2", "", "xyzy", 0, "1,4 1,2 2,3" },
	{ "\\g{+1}?(.)", "", "xyy", 0, "0,1 0,1" },
	{ "(?P<q>.)(?P=q)", "", "xyy", 0, "1,3 1,2" },
	{ "(?'q'.)\\k'q'", "", "xyy", 0, "1,3 1,2" },
	{ "(?<q>.)\\k<q>", "", "xyy", 0, "1,3 1,2" },
	{ "(?<q>.)\\k{q}", "", "xyy", 0, "1,3 1,2" },
	{ "(?<q>.)\\g{q}", "", "xyy", 0, "1,3 1,2" },
	{ "(a)\\10", "", "a\b", 0, "0,2 0,1" },		/* octal */
	{ "(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10", "", "abcdefghijj", 0,
	    "0,11 0,1 1,2 2,3 3,4 4,5 5,6 6,7 7,8 8,9 9,10" },
	{ "(a)\\1{3}", "", "aaaaa", 0, "0,4 0,1" },
	{ "(a*)\\1*b", "", "aaab", 0, "0,4 0,3" },
	{ "(a*)*\\1", "", "aaab", 0, "0,3 3,3" },
	{ "(?<=(a)\\1)b", "", "aab", 0, "2,3 0,1" },
	{ "(a)(?<=\\1)", "", "a", 0, "0,1 0,1" },
	{ "(.)\\1", "", "a\x00\x00", 3, "1,3 1,2" },
};

/* Patterns that must not compile, and a piece of their error. */
static const struct ecase {
	const char *pat;
	const char *err;
} ecases[] = {
	{ "(", "missing )" },
	{ "(a", "missing )" },
	{ "a)", "unmatched )" },
	{ "(?:a", "missing )" },
	{ "[a", "missing terminating ]" },
	{ "[]", "missing terminating ]" },
	{ "[^]", "missing terminating ]" },
	{ "[z-a]", "out of order" },
	{ "[[:foo:]]", "unknown POSIX class" },
	{ "*a", "does not follow" },
	{ "a|*", "does not follow" },
	{ "(*)", "VERB" },
	{ "+", "does not follow" },
	{ "?", "does not follow" },
	{ "{2}", "does not follow" },
	{ "a**", "nested quantifier" },
	{ "a*{2}", "nested quantifier" },
	{ "a{2}*", "nested quantifier" },
	{ "a{3,2}", "out of order" },
	{ "a{1001}", "too large" },
	{ "a{1,1001}", "too large" },
	{ "a{99999999999999999999}", "too large" },
	{ "\\", "end of pattern" },
	{ "a\\", "end of pattern" },
	{ "\\9", "reference to a group that does not exist" },
	{ "(a)\\2", "reference to a group that does not exist" },
	{ "(a)\\8", "reference to a group that does not exist" },
	{ "(a)\\g{2}", "reference to a group that does not exist" },
	{ "(a)\\g{-2}", "reference to a group that does not exist" },
	{ "\\g{-1}", "reference to a group that does not exist" },
	{ "(a)\\g{0}", "group 0" },
	{ "(a)\\g", "\\g is not followed" },
	{ "(a)\\g{1", "\\g is not followed" },
	{ "(a)\\g<1>", "subroutine calls are not supported" },
	{ "(a)\\g'1'", "subroutine calls are not supported" },
	{ "(a)\\g+1", "subroutine calls are not supported" },
	{ "(?<n>a)\\k<m>", "group name that does not exist" },
	{ "(?<n>a)\\k<n", "bad group name" },
	{ "(?<n>a)\\k", "\\k is not followed" },
	{ "(?P<n>a)(?P=m)", "group name that does not exist" },
	{ "(?P<n>a)(?P>n)", "not supported" },
	{ "(?<n>a)(?<n>b)", "same name" },
	{ "(?<=a+)b", "lookbehind assertion is not fixed length" },
	{ "(?<=a*)b", "lookbehind assertion is not fixed length" },
	{ "(?<=a?)b", "lookbehind assertion is not fixed length" },
	{ "(?<=a{1,2})b", "lookbehind assertion is not fixed length" },
	{ "(?<!dogs?|cats?)b", "lookbehind assertion is not fixed length" },
	{ "(?<=ab(c|de))b", "lookbehind assertion is not fixed length" },
	{ "(a+)(?<=\\1)", "lookbehind assertion is not fixed length" },
	{ "(a\\1)(?<=\\1)", "lookbehind assertion is not fixed length" },
	{ "(?=a", "missing )" },
	{ "(?<=a", "missing )" },
	{ "(?<", "bad group name" },
	{ "(?>a+)b", "atomic groups are not supported" },
	{ "a*+", "possessive quantifiers are not supported" },
	{ "a++", "possessive quantifiers are not supported" },
	{ "a?+", "possessive quantifiers are not supported" },
	{ "a{2}+", "possessive quantifiers are not supported" },
	{ "(?(1)a|b)", "conditional" },
	{ "(?R)", "not supported" },
	{ "(?1)", "not supported" },
	{ "(?|a)", "not supported" },
	{ "(*UTF)a", "not supported" },
	{ "\\K", "not supported" },
	{ "\\R", "not supported" },
	{ "\\X", "not supported" },
	{ "\\p{L}", "not supported" },
	{ "\\q", "unrecognized escape" },
	{ "\\y", "unrecognized escape" },
	{ "[\\q]", "unrecognized escape" },
	{ "\\x{100}", "above" },
	{ "\\x{zz}", "malformed" },
	{ "\\o{", "malformed" },
	{ "\\c", "printable" },
	{ "(?z)", "unrecognized character after (?" },
	{ "(?i", "unterminated" },
	{ "(?#abc", "missing )" },
	{ "(?<1a>x)", "bad group name" },
	{ "(?<>x)", "bad group name" },
	{ "(?i--m)", "two -" },
};

/* Searches from a start offset. */
static const struct scase {
	const char *pat;
	const char *subj;
	size_t	 start;
	const char *want;
} scases[] = {
	{ "a", "aba", 1, "2,3" },
	{ "a", "aba", 3, NULL },
	{ "a", "aba", 4, NULL },
	{ "", "aba", 3, "3,3" },
	{ "^a", "aba", 2, NULL },		/* ^ is the subject's start */
	{ "\\Ga", "aba", 2, "2,3" },		/* \G is the search's */
	{ "\\Gb", "aba", 2, NULL },
	{ "\\bb", "ab b", 1, "3,4" },		/* \b sees the byte before */
	{ "(?m)^b", "a\nb", 1, "2,3" },
};

/* regexps()/replace()/replaceall(): pattern, options, subject, template. */
static const struct rcase {
	const char *pat;
	const char *opts;
	const char *subj;
	const char *tmpl;
	const char *want;
	size_t	 nmatch;
} rcases[] = {
	/* regexps(): only the expanded template. */
	{ "(\\w+)@(\\w+)", "", "mail bob@host now", "\\2:\\1", "host:bob", 1 },
	{ "b+", "", "abbbc", "[\\0]", "[bbb]", 1 },
	{ "x", "", "abc", "y", "", 0 },
	{ "(a)|(b)", "", "b", "<\\1|\\2>", "<|b>", 1 },
	/* A group past the last that took part: ERROR (NULL here). */
	{ "(a)", "", "a", "\\5\\9", NULL, 1 },
	{ "(a)|(b)", "", "a", "\\2", NULL, 1 },
	{ "(a)(b)?", "f", "a", "<\\2>", NULL, 1 },
	{ "(a)?(b)", "", "b", "<\\1\\2>", "<b>", 1 },
	{ "a", "", "a", "\\n\\t\\\\", "\\n\\t\\\\", 1 },
	{ "a", "", "a", "x\\", "x\\", 1 },
	{ "(a)", "", "a", "\\1\\1", "aa", 1 },
	{ "A", "i", "xax", "<\\0>", "<a>", 1 },
	{ "[ab]", "g", "xaybz", "\\0", "ab", 2 },
	/* replace(): the whole subject, the first match replaced. */
	{ "b+", "f", "abbcbb", "X", "aXcbb", 1 },
	{ "x", "f", "abc", "X", "abc", 0 },
	{ "^", "f", "abc", ">", ">abc", 1 },
	{ "$", "f", "abc", "<", "abc<", 1 },
	{ "(\\d+)\\.(\\d+)", "f", "v 8.1 ok", "\\2.\\1", "v 1.8 ok", 1 },
	{ "", "f", "", "X", "X", 1 },
	/* replaceall(): every match. */
	{ "b+", "fg", "abbcbb", "X", "aXcX", 2 },
	{ "x*", "fg", "abxd", "-", "-a-b--d-", 5 },
	/* After an empty match, a non-empty one at the same place. */
	{ "|a", "fg", "a", "-", "---", 3 },
	{ "(?:)|b", "fg", "ab", "-", "-a---", 4 },
	{ "a|", "fg", "ba", "-", "-b--", 3 },
	{ "\\b", "fg", "ab cd", "|", "|ab| |cd|", 4 },
	{ "(c?" "?)*", "fg", "cca b", "<\\0>", "<><c><><c><>a<> <>b<>", 8 },
	{ "(?:.?" "?)+(a*| .)", "fg", " bbb", "<\\0>",
	    "<>< b><><b><><b><>", 7 },
	{ "", "fg", "abc", "-", "-a-b-c-", 4 },
	{ "a|b", "FG", "cabd", "<\\0>", "c<a><b>d", 2 },
	{ "(\\w+)=(\\w+)", "fg", "a=1, b=2", "\\2=\\1", "1=a, 2=b", 2 },
	{ "o", "fgi", "fOo bOO", "0", "f00 b00", 4 },
	{ "^\\s+|\\s+$", "fg", "  trim me  ", "", "trim me", 2 },
	{ "^", "fgm", "a\nb\nc", "> ", "> a\n> b\n> c", 3 },
	{ "\\.", "fg", "a.b.c", "\\\\.", "a\\\\.b\\\\.c", 2 },
	{ "a", "fg", "", "b", "", 0 },
	/* Look-arounds and back-references in substitutions. */
	{ "(?<=\\d)(?=(\\d{3})+$)", "fg", "1234567", ",", "1,234,567", 2 },
	{ "\\b(\\w+) \\1\\b", "fg", "the the cat sat sat", "\\1",
	    "the cat sat", 2 },
	{ "(?=(\\w+))", "", "  hi", "[\\1]", "[hi]", 1 },
	{ "(?<=a)", "fg", "aaa", "-", "a-a-a-", 3 },
	{ "(?!a)", "fg", "ab", "-", "a-b-", 2 },
	{ "(?<=(a))b", "fg", "abab", "<\\1>", "a<a>a<a>", 2 },
	{ "(?!(a))b", "", "b", "<\\1>", NULL, 1 },
};

/* TEXT with newlines shown as \n, for a check's name (one line). */
static const char *
shown(const char *text)
{
	static char out[4][160];
	static int which;
	char *o = out[which++ & 3];
	size_t n = 0;

	for (; *text != '\0' && n + 3 < sizeof(out[0]); text++) {
		if (*text == '\n') {
			o[n++] = '\\';
			o[n++] = 'n';
		} else
			o[n++] = *text;
	}
	o[n] = '\0';
	return o;
}

static const char *
spans(const struct rx_match *m, size_t n)
{
	static char out[512];
	size_t i, at = 0;

	out[0] = '\0';
	for (i = 0; i < n && at < sizeof(out) - 48; i++) {
		if (m[i].so == RX_UNSET)
			at += snprintf(out + at, sizeof(out) - at, "%s-",
			    i ? " " : "");
		else
			at += snprintf(out + at, sizeof(out) - at, "%s%zu,%zu",
			    i ? " " : "", m[i].so, m[i].eo);
	}
	return out;
}

/* The number of groups WANT lists. */
static size_t
listed(const char *want)
{
	size_t n = 1;

	for (; *want != '\0'; want++)
		if (*want == ' ')
			n++;
	return n;
}

static void
test_matches(void)
{
	struct rx_match m[12];
	char name[200], err[256];
	size_t i, len, n;
	struct rx *rx;

	for (i = 0; i < sizeof(mcases) / sizeof(mcases[0]); i++) {
		const struct mcase *c = &mcases[i];

		snprintf(name, sizeof(name), "match %zu /%s/%s", i,
		    shown(c->pat), c->opts);
		rx = rx_compile(c->pat, rx_options(c->opts), err, sizeof(err));
		if (rx == NULL) {
			printf("FAIL %s: compile: %s\n", name, err);
			test_failures++;
			continue;
		}
		len = c->len ? c->len : strlen(c->subj);
		if (!rx_search(rx, c->subj, len, 0, m, 12)) {
			CHECK(name, c->want == NULL);
		} else if (c->want == NULL) {
			printf("FAIL %s: matched %s, want no match\n", name,
			    spans(m, rx_ngroups(rx) + 1));
			test_failures++;
		} else {
			n = listed(c->want);
			CHECK_STR(name, spans(m, n), c->want);
		}
		rx_free(rx);
	}
}

static void
test_errors(void)
{
	char name[200], err[256];
	size_t i;
	struct rx *rx;

	for (i = 0; i < sizeof(ecases) / sizeof(ecases[0]); i++) {
		snprintf(name, sizeof(name), "refused /%s/", ecases[i].pat);
		err[0] = '\0';
		rx = rx_compile(ecases[i].pat, 0, err, sizeof(err));
		if (rx != NULL) {
			printf("FAIL %s: compiled\n", name);
			test_failures++;
			rx_free(rx);
			continue;
		}
		if (strstr(err, ecases[i].err) != NULL &&
		    strstr(err, "offset") != NULL)
			printf("PASS %s: %s\n", name, err);
		else {
			printf("FAIL %s: error \"%s\", want \"%s\" and an "
			    "offset\n", name, err, ecases[i].err);
			test_failures++;
		}
		fflush(stdout);
	}
}

static void
test_starts(void)
{
	struct rx_match m[1];
	char name[200], err[256];
	size_t i;
	struct rx *rx;
	int r;

	for (i = 0; i < sizeof(scases) / sizeof(scases[0]); i++) {
		const struct scase *c = &scases[i];

		snprintf(name, sizeof(name), "search /%s/ from %zu",
		    shown(c->pat), c->start);
		rx = rx_compile(c->pat, 0, err, sizeof(err));
		if (rx == NULL) {
			printf("FAIL %s: compile: %s\n", name, err);
			test_failures++;
			continue;
		}
		r = rx_search(rx, c->subj, strlen(c->subj), c->start, m, 1);
		if (c->want == NULL)
			CHECK(name, r == 0);
		else
			CHECK_STR(name, r ? spans(m, 1) : "no match", c->want);
		rx_free(rx);
	}
}

static void
test_subst(void)
{
	char name[200], err[256], *out;
	size_t i, nmatch, len;
	struct rx *rx;
	int opts;

	for (i = 0; i < sizeof(rcases) / sizeof(rcases[0]); i++) {
		const struct rcase *c = &rcases[i];

		snprintf(name, sizeof(name), "subst /%s/%s \"%s\"",
		    shown(c->pat), c->opts, shown(c->tmpl));
		opts = rx_options(c->opts);
		rx = rx_compile(c->pat, opts, err, sizeof(err));
		if (rx == NULL) {
			printf("FAIL %s: compile: %s\n", name, err);
			test_failures++;
			continue;
		}
		len = 0;
		out = rx_subst(rx, c->subj, strlen(c->subj), c->tmpl, opts,
		    &len, &nmatch);
		if (c->want == NULL || out == NULL)
			CHECK(name, c->want == NULL && out == NULL &&
			    nmatch == c->nmatch);
		else if (nmatch != c->nmatch || len != strlen(out)) {
			printf("FAIL %s: %zu matches (want %zu), length %zu\n",
			    name, nmatch, c->nmatch, len);
			test_failures++;
		} else
			CHECK_STR(name, out, c->want);
		free(out);
		rx_free(rx);
	}
}

static void
test_options(void)
{
	CHECK("options: all letters, either case",
	    rx_options("iMsXfG") == (RX_CASELESS | RX_MULTILINE | RX_DOTALL |
	    RX_EXTENDED | RX_FULL | RX_GLOBAL));
	CHECK("options: others ignored, NULL is none",
	    rx_options("qz 1") == 0 && rx_options(NULL) == 0);
}

/* Compile limits: a hostile pattern is refused, not expanded. */
static void
test_limits(void)
{
	char err[256], *p;
	struct rx *rx;
	size_t i;
	int ok;

	rx = rx_compile("(a{1000}){1000}", 0, err, sizeof(err));
	CHECK("limit: a{1000}{1000} is too large", rx == NULL &&
	    strstr(err, "too large") != NULL);
	rx_free(rx);
	rx = rx_compile("((((a{100}){100}){100}){100}){100}", 0, err,
	    sizeof(err));
	CHECK("limit: nested counts are too large", rx == NULL &&
	    strstr(err, "too large") != NULL);
	rx_free(rx);
	rx = rx_compile("[a-z]{1000}\\d{1000}", 0, err, sizeof(err));
	CHECK("limit: 2000 instructions compile", rx != NULL);
	rx_free(rx);

	/* RX_MAX_DEPTH + 1 nested groups, then RX_MAX_DEPTH around "a". */
	p = xmalloc(2 * RX_MAX_DEPTH + 10);
	for (i = 0; i < RX_MAX_DEPTH + 1; i++) {
		p[i] = '(';
		p[RX_MAX_DEPTH + 1 + i] = ')';
	}
	p[2 * RX_MAX_DEPTH + 2] = '\0';
	rx = rx_compile(p, 0, err, sizeof(err));
	CHECK("limit: groups nested too deeply", rx == NULL &&
	    strstr(err, "nested too deeply") != NULL);
	rx_free(rx);
	for (i = 0; i < RX_MAX_DEPTH; i++) {
		p[i] = '(';
		p[RX_MAX_DEPTH + 1 + i] = ')';
	}
	p[RX_MAX_DEPTH] = 'a';
	p[2 * RX_MAX_DEPTH + 1] = '\0';
	rx = rx_compile(p, 0, err, sizeof(err));
	ok = rx != NULL && rx_search(rx, "xa", 2, 0, NULL, 0) == 1 &&
	    rx_ngroups(rx) == RX_MAX_DEPTH;
	CHECK("limit: groups nested to the limit compile and match", ok);
	rx_free(rx);
	free(p);

	p = xmalloc(RX_MAX_PATTERN + 2);
	memset(p, 'a', RX_MAX_PATTERN + 1);
	p[RX_MAX_PATTERN + 1] = '\0';
	rx = rx_compile(p, 0, err, sizeof(err));
	CHECK("limit: a pattern too long", rx == NULL &&
	    strstr(err, "longer than") != NULL);
	rx_free(rx);
	p[RX_MAX_PROG] = '\0';
	rx = rx_compile(p, 0, err, sizeof(err));
	CHECK("limit: a literal of RX_MAX_PROG bytes is too large",
	    rx == NULL && strstr(err, "too large") != NULL);
	rx_free(rx);
	free(p);

	rx = rx_compilen("a\0b", 3, 0, err, sizeof(err));
	ok = rx != NULL && rx_search(rx, "xa\0b", 4, 0, NULL, 0) == 1 &&
	    rx_search(rx, "xab", 3, 0, NULL, 0) == 0;
	CHECK("a NUL in a pattern given with its length", ok);
	rx_free(rx);
	rx = rx_compile("(a)(b)(c)", 0, err, sizeof(err));
	CHECK("rx_ngroups", rx != NULL && rx_ngroups(rx) == 3);
	rx_free(rx);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Patterns on which a backtracking matcher takes exponential time, on
 * 100,000-byte subjects: they must finish, with the right answer.  The
 * time is printed for the record, never compared.
 */
static void
test_pathological(void)
{
	static const struct {
		const char *pat;
		char fill;
		const char *tail;
		const char *want;
	} cases[] = {
		{ "(a*)*b", 'a', "", NULL },
		{ "(a*)*b", 'a', "b", "0,100001" },
		{ "(a|aa)*c", 'a', "", NULL },
		{ "(a|aa)*c", 'a', "c", "0,100001" },
		{ "(x+x+)+y", 'x', "", NULL },
		{ "(.*a){20}", 'a', "", "0,100000" },
		{ "^(\\w+\\s?)*$", 'w', "!", NULL },
		{ "(?:a+)+$", 'a', "b", NULL },
		{ "\\d{0,100}x", '1', "", NULL },
		/* Look-arounds are tabulated once, not per position. */
		{ "(?=.*b)a", 'a', "", NULL },
		{ "(?=(a*))*c", 'a', "", NULL },
		{ "(?=(a+))a*c", 'a', "", NULL },
		{ "a(?!a*$)", 'a', "", NULL },
		{ "(?<!b)(?=a*$)a+$", 'a', "", "0,100000" },
		{ "(?:(?<=a)(?=a)a)+$", 'a', "", "1,100000" },
	};
	struct rx_match m[2];
	char name[200], err[256], *s;
	size_t i, n = 100000, len;
	struct rx *rx;
	double t;
	int r;

	s = xmalloc(n + 2);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(s, cases[i].fill, n);
		len = n;
		if (cases[i].tail[0] != '\0')
			s[len++] = cases[i].tail[0];
		snprintf(name, sizeof(name), "linear: /%s/ on %zu bytes",
		    cases[i].pat, len);
		rx = rx_compile(cases[i].pat, 0, err, sizeof(err));
		if (rx == NULL) {
			printf("FAIL %s: compile: %s\n", name, err);
			test_failures++;
			continue;
		}
		t = now();
		r = rx_search(rx, s, len, 0, m, 2);
		t = now() - t;
		fprintf(stderr, "%s: %.3f s\n", name, t);
		if (cases[i].want == NULL)
			CHECK(name, r == 0);
		else
			CHECK_STR(name, r ? spans(m, 1) : "no match",
			    cases[i].want);
		rx_free(rx);
	}
	free(s);
}

/*
 * Back-references are matched by backtracking with a budget: on these
 * 100,000-byte subjects the hostile patterns must give up (-1) rather
 * than run for ever, and the others must still be answered.  The time
 * is printed for the record, never compared.
 */
static void
test_costly(void)
{
	static const struct {
		const char *pat;
		const char *fill;
		const char *tail;
		const char *want;	/* "costly", NULL: no match */
	} cases[] = {
		{ "(a*)*\\1x", "a", "", "costly" },
		{ "(a|aa)*\\1c", "a", "", "costly" },
		{ "^(\\w+\\s?)*\\1$", "w", "!", "costly" },
		{ "(a*)*\\1", "a", "b", "0,100000" },
		{ "(a)\\1", "ab", "", NULL },
		{ "(b)\\1", "ab", "b", "99999,100001" },
		{ "^(x+) \\1$", "x", "", NULL },
		{ "(?=(\\w+))\\1:", "w", ":", "0,100001" },
		{ "(.)(?<!\\1.)\\1", "ab", "b", "99999,100001" },
	};
	struct rx_match m[2];
	char name[200], err[256], *s, *out;
	size_t i, j, n = 100000, len, fl, nmatch;
	struct rx *rx;
	double t;
	int r;

	s = xmalloc(n + 2);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fl = strlen(cases[i].fill);
		for (j = 0; j < n; j++)
			s[j] = cases[i].fill[j % fl];
		len = n;
		if (cases[i].tail[0] != '\0')
			s[len++] = cases[i].tail[0];
		snprintf(name, sizeof(name), "budget: /%s/ on %zu bytes",
		    cases[i].pat, len);
		rx = rx_compile(cases[i].pat, 0, err, sizeof(err));
		if (rx == NULL) {
			printf("FAIL %s: compile: %s\n", name, err);
			test_failures++;
			continue;
		}
		t = now();
		r = rx_search(rx, s, len, 0, m, 2);
		t = now() - t;
		fprintf(stderr, "%s: %.3f s\n", name, t);
		if (cases[i].want == NULL)
			CHECK(name, r == 0);
		else
			CHECK_STR(name, r < 0 ? "costly" : r ? spans(m, 1) :
			    "no match", cases[i].want);
		rx_free(rx);
	}
	/* A substitution that gives up: NULL, errno ERANGE. */
	memset(s, 'a', n);
	rx = rx_compile("(a*)*\\1x", 0, err, sizeof(err));
	errno = 0;
	out = rx != NULL ? rx_subst(rx, s, n, "y", RX_FULL | RX_GLOBAL,
	    NULL, &nmatch) : NULL;
	CHECK("budget: rx_subst gives up with ERANGE", rx != NULL &&
	    out == NULL && errno == ERANGE && nmatch == 0);
	free(out);
	rx_free(rx);
	/* Many cheap matches share the one budget without running out. */
	for (j = 0; j < n; j++)
		s[j] = "xxy"[j % 3];
	rx = rx_compile("(x)\\1", 0, err, sizeof(err));
	out = rx != NULL ? rx_subst(rx, s, n, "z", RX_FULL | RX_GLOBAL,
	    &len, &nmatch) : NULL;
	CHECK("budget: 33,333 back-referenced matches replaced",
	    out != NULL && nmatch == 33333 && len == n - 33333);
	free(out);
	rx_free(rx);
	/* The template error is EINVAL. */
	rx = rx_compile("(a)", 0, err, sizeof(err));
	errno = 0;
	out = rx != NULL ? rx_subst(rx, "a", 1, "\\2", 0, NULL, NULL) : NULL;
	CHECK("subst: a group past the last is EINVAL", rx != NULL &&
	    out == NULL && errno == EINVAL);
	rx_free(rx);
	free(s);
}

/*
 * The differential test.  Patterns are generated from the subset in
 * which PCRE and Python's re agree (literals, ., classes, \d \w \s \W,
 * groups, alternation, greedy and lazy quantifiers, ^ $ \b \B, options
 * i m s x), with subjects over a small alphabet; Python reads them as
 * bytes.  Left out, where the two differ: \Z and \z, POSIX classes,
 * {,n}, ^ in multiline mode after a newline that ends the subject (PCRE
 * does not match there; Python does), and \B on an empty subject.
 */
#define DIFF_SEED	0x7e57ab1eULL
#define DIFF_SEED_EXT	0x100cabe4dULL
#define DIFF_CASES	3000
#define DIFF_REPORTS	10

static uint64_t diff_rng = DIFF_SEED;

static unsigned
rnd(unsigned n)
{
	diff_rng ^= diff_rng >> 12;
	diff_rng ^= diff_rng << 25;
	diff_rng ^= diff_rng >> 27;
	return (unsigned)((diff_rng * 0x2545F4914F6CDD1DULL) >> 33) % n;
}

/*
 * What a generated pattern holds: \B (not tried on an empty subject),
 * and a quantifier on something that can match empty, where the
 * captures may differ from PCRE's (see regex_pcre.h), so that only
 * group 0 is compared.
 */
struct gen {
	int	 has_nb;
	int	 risky;
	int	 ext;		/* look-arounds and back-references too */
	int	 ngroups;	/* capturing groups opened */
	int	 closed[64];	/* those closed, a reference may name */
	int	 nclosed;
	int	 inlook;	/* inside a look-around */
};

static int gen_alt(struct buf *, int, struct gen *);

/* One item; returns whether it can match the empty string. */
static int
gen_item(struct buf *b, int depth, struct gen *g)
{
	static const char *lits[] = { "a", "a", "b", "b", "c", "1", " ",
	    "A", "\\n", "_", "\\." };
	static const char *classes[] = { "[ab]", "[^a]", "[a-c]", "[^bc]",
	    "\\d", "\\w", "\\s", "\\W", "\\D", "\\S", "[a\\d]", "[\\n]",
	    "[^\\s]", "[_a-b]" };
	static const char *anchors[] = { "^", "$", "\\b", "\\B" };
	int k = rnd(g->ext ? 26 : 20), quant = 1, nullable = 0, zero = 0;
	int cap, num = 0;
	unsigned n;

	if (k < 8)
		buf_adds(b, lits[rnd(sizeof(lits) / sizeof(lits[0]))]);
	else if (k < 10)
		buf_addc(b, '.');
	else if (k < 14)
		buf_adds(b, classes[rnd(sizeof(classes) /
		    sizeof(classes[0]))]);
	else if (k < 18 && depth < 3) {
		cap = rnd(2);
		buf_adds(b, cap ? "(" : "(?:");
		if (cap && g->ext) {
			num = ++g->ngroups;
			if (g->inlook)
				g->risky = 1;	/* see regex_pcre.h */
		}
		nullable = gen_alt(b, depth + 1, g);
		buf_addc(b, ')');
		if (num > 0 && g->nclosed < 64)
			g->closed[g->nclosed++] = num;
	} else if (k >= 20 && k < 22 && depth < 3) {
		/* A look-ahead (Python does not quantify them as PCRE). */
		buf_adds(b, rnd(2) ? "(?=" : "(?!");
		g->inlook++;
		gen_alt(b, depth + 1, g);
		g->inlook--;
		buf_addc(b, ')');
		return 1;
	} else if (k >= 22 && k < 24) {
		/* A look-behind of fixed length (Python's rule). */
		buf_adds(b, rnd(2) ? "(?<=" : "(?<!");
		for (n = 1 + rnd(3); n > 0; n--) {
			if (rnd(2))
				buf_adds(b, lits[rnd(sizeof(lits) /
				    sizeof(lits[0]))]);
			else
				buf_adds(b, classes[rnd(sizeof(classes) /
				    sizeof(classes[0]))]);
		}
		buf_addc(b, ')');
		return 1;
	} else if (k >= 24 && g->nclosed > 0) {
		buf_printf(b, "\\%d", g->closed[rnd(g->nclosed)]);
		nullable = 1;
	} else {
		k = rnd(4);
		buf_adds(b, anchors[k]);
		if (k == 3)
			g->has_nb = 1;
		return 1;
	}
	if (!quant || rnd(10) < 6)
		return nullable;
	if (nullable)
		g->risky = 1;
	n = rnd(3);
	switch (rnd(6)) {
	case 0: buf_addc(b, '*'); zero = 1; break;
	case 1: buf_addc(b, '+'); break;
	case 2: buf_addc(b, '?'); zero = 1; break;
	case 3: buf_printf(b, "{%u}", n); zero = n == 0; break;
	case 4: buf_printf(b, "{%u,}", n); zero = n == 0; break;
	default:
		buf_printf(b, "{%u,%u}", n, n + rnd(3));
		zero = n == 0;
		break;
	}
	if (rnd(3) == 0)
		buf_addc(b, '?');
	return nullable || zero;
}

static int
gen_alt(struct buf *b, int depth, struct gen *g)
{
	int alts = rnd(4) == 0 ? 2 + rnd(2) : 1, i, n, any = 0, all;

	while (alts-- > 0) {
		n = rnd(4) + (depth == 0);
		for (i = 0, all = 1; i < n; i++)
			if (!gen_item(b, depth, g))
				all = 0;
		any |= all;
		if (alts > 0)
			buf_addc(b, '|');
	}
	return any;
}

static void
hex_out(FILE *f, const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		fputc('-', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%02x", (unsigned char)s[i]);
}

static const char diff_py[] =
    "import re, sys\n"
    "F = {'i': re.I, 'm': re.M, 's': re.S, 'x': re.X}\n"
    "for line in open(sys.argv[1]):\n"
    "    p, o, s = line.split()\n"
    "    p = bytes.fromhex(p.strip('-')); s = bytes.fromhex(s.strip('-'))\n"
    "    fl = 0\n"
    "    for c in o.strip('-'): fl |= F[c]\n"
    "    try:\n"
    "        r = re.compile(p, fl)\n"
    "    except Exception:\n"
    "        print('E'); continue\n"
    "    m = r.search(s)\n"
    "    sub = r.sub(lambda m: b'<' + m.group(0) + b'>', s).hex() or '-'\n"
    "    if not m: print('no', sub); continue\n"
    "    print(' '.join('%d,%d' % m.span(i) if m.span(i)[0] >= 0 else '-'\n"
    "                   for i in range(m.re.groups + 1)), sub)\n";

struct dcase;
static void diff_report(const struct dcase *, const char *, const char *,
    size_t);

struct dcase {
	char	*pat;
	char	 opts[5];
	char	*subj;
	size_t	 len;
	int	 risky;
};

static void
diff_report(const struct dcase *c, const char *mine, const char *py,
    size_t nth)
{
	size_t j;

	if (nth >= DIFF_REPORTS)
		return;
	printf("differs: /%s/%s on \"", c->pat, c->opts);
	for (j = 0; j < c->len; j++)
		if (c->subj[j] == '\n')
			fputs("\\n", stdout);
		else
			putchar(c->subj[j]);
	printf("\": here %s, python %s\n", mine, py);
}

static void
test_differential(int ext)
{
	const char *tag = ext ? "differential (look-around, back-references)" :
	    "differential";
	static const char alphabet[] = "aabbbc1 A_\n.";
	struct dcase *dc;
	struct buf b, cmd;
	struct rx_match m[64];
	char path[] = "/tmp/regex_diff.XXXXXX", line[1024], err[256];
	char mine[1024], name[200];
	size_t i, j, compared = 0, bad = 0, allcompared = 0, allbad = 0;
	size_t ng, subbad = 0, sublen;
	char *sub, *pysub, subhex[2 * 1024 + 2];
	struct gen g;
	int fd;
	FILE *f, *py;
	struct rx *rx;

	if (system("python3 -c 'import re' >/dev/null 2>&1") != 0) {
		snprintf(name, sizeof(name), "%s: python3 agrees", tag);
		SKIP(name, "no python3");
		snprintf(name, sizeof(name), "%s: python3 agrees on every "
		    "group", tag);
		SKIP(name, "no python3");
		snprintf(name, sizeof(name), "%s: python3's re.sub() agrees "
		    "with replaceall()", tag);
		SKIP(name, "no python3");
		snprintf(name, sizeof(name), "%s: most patterns compared",
		    tag);
		SKIP(name, "no python3");
		return;
	}
	if (ext)
		diff_rng = DIFF_SEED_EXT;
	dc = xcalloc(DIFF_CASES, sizeof(*dc));
	buf_init(&b);
	for (i = 0; i < DIFF_CASES; i++) {
		char *o = dc[i].opts;

		memset(&g, 0, sizeof(g));
		g.ext = ext;
		buf_reset(&b);
		gen_alt(&b, 0, &g);
		dc[i].pat = xstrdup(b.data);
		dc[i].risky = g.risky;
		if (rnd(4) == 0)
			*o++ = 'i';
		if (rnd(4) == 0)
			*o++ = 'm';
		if (rnd(4) == 0)
			*o++ = 's';
		if (rnd(10) == 0)
			*o++ = 'x';
		*o = '\0';
		dc[i].len = rnd(13);
		if (g.has_nb && dc[i].len == 0)
			dc[i].len = 1;
		dc[i].subj = xmalloc(dc[i].len + 2);
		for (j = 0; j < dc[i].len; j++)
			dc[i].subj[j] = alphabet[rnd(sizeof(alphabet) - 1)];
		if (strchr(dc[i].opts, 'm') != NULL && dc[i].len > 0 &&
		    dc[i].subj[dc[i].len - 1] == '\n')
			dc[i].subj[dc[i].len++] = 'a';
		dc[i].subj[dc[i].len] = '\0';
	}
	buf_free(&b);

	if ((fd = mkstemp(path)) == -1 || (f = fdopen(fd, "w")) == NULL) {
		printf("FAIL %s: cannot write %s\n", tag, path);
		test_failures++;
		return;
	}
	for (i = 0; i < DIFF_CASES; i++) {
		hex_out(f, dc[i].pat, strlen(dc[i].pat));
		fprintf(f, " %s ", dc[i].opts[0] ? dc[i].opts : "-");
		hex_out(f, dc[i].subj, dc[i].len);
		fputc('\n', f);
	}
	fclose(f);

	buf_init(&cmd);
	buf_adds(&cmd, "python3 -c \"");
	for (i = 0; diff_py[i] != '\0'; i++) {
		if (diff_py[i] == '"' || diff_py[i] == '\\' ||
		    diff_py[i] == '$' || diff_py[i] == '`')
			buf_addc(&cmd, '\\');
		buf_addc(&cmd, diff_py[i]);
	}
	buf_printf(&cmd, "\" %s", path);
	py = popen(cmd.data, "r");
	buf_free(&cmd);
	for (i = 0; py != NULL && i < DIFF_CASES; i++) {
		if (fgets(line, sizeof(line), py) == NULL)
			break;
		line[strcspn(line, "\n")] = '\0';
		rx = rx_compile(dc[i].pat, rx_options(dc[i].opts), err,
		    sizeof(err));
		if (strcmp(line, "E") == 0) {
			rx_free(rx);
			continue;
		}
		/* The last word is re.sub()'s replaceall(), in hex. */
		pysub = strrchr(line, ' ');
		*pysub++ = '\0';
		if (rx != NULL) {
			sub = rx_subst(rx, dc[i].subj, dc[i].len, "<\\0>",
			    RX_FULL | RX_GLOBAL, &sublen, NULL);
			subhex[0] = '\0';
			for (j = 0; sub != NULL && j < sublen &&
			    j < sizeof(subhex) / 2 - 1; j++)
				snprintf(subhex + 2 * j, 3, "%02x",
				    (unsigned char)sub[j]);
			if (sub == NULL || strcmp(subhex[0] ? subhex : "-",
			    pysub) != 0)
				diff_report(&dc[i], sub ? subhex : "NULL",
				    pysub, subbad++);
			free(sub);
		}
		if (rx == NULL)
			snprintf(mine, sizeof(mine), "E");
		else if (rx_search(rx, dc[i].subj, dc[i].len, 0, m, 64)) {
			ng = rx_ngroups(rx) + 1;
			snprintf(mine, sizeof(mine), "%s",
			    spans(m, ng < 64 ? ng : 64));
		} else
			snprintf(mine, sizeof(mine), "no");
		rx_free(rx);
		compared++;
		/* Group 0 is the first word of each. */
		if (strcspn(mine, " ") != strcspn(line, " ") ||
		    strncmp(mine, line, strcspn(line, " ")) != 0)
			diff_report(&dc[i], mine, line, bad++);
		else if (!dc[i].risky) {
			allcompared++;
			if (strcmp(mine, line) != 0)
				diff_report(&dc[i], mine, line, allbad++);
		}
	}
	if (py != NULL)
		pclose(py);
	unlink(path);
	printf("%s: %zu of %d compared, %zu differ; every group "
	    "of %zu compared, %zu differ; %zu replaceall() differ\n", tag,
	    compared, DIFF_CASES, bad, allcompared, allbad, subbad);
	snprintf(name, sizeof(name), "%s: python3 agrees on match and "
	    "group 0", tag);
	CHECK(name, bad == 0 && compared > 0);
	snprintf(name, sizeof(name), "%s: python3 agrees on every group",
	    tag);
	CHECK(name, allbad == 0 && allcompared > DIFF_CASES / 2);
	snprintf(name, sizeof(name), "%s: python3's re.sub() agrees with "
	    "replaceall()", tag);
	CHECK(name, subbad == 0 && compared > 0);
	snprintf(name, sizeof(name), "%s: most patterns compared", tag);
	CHECK(name, compared >= DIFF_CASES * 9 / 10);
	for (i = 0; i < DIFF_CASES; i++) {
		free(dc[i].pat);
		free(dc[i].subj);
	}
	free(dc);
}

int
main(void)
{
	test_matches();
	test_errors();
	test_starts();
	test_subst();
	test_options();
	test_limits();
	test_pathological();
	test_costly();
	test_differential(0);
	test_differential(1);
	TEST_EXIT();
}
