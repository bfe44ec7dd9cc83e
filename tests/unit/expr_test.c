/*
 * expr_test.c: the expression evaluator: evaluation, three-valued logic,
 * functions, attribute scoping, parse errors, canonical unparsing,
 * references and clauses, and the bounds on nesting and recursion.
 *
 * checks: 659
 */
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "test.h"
#include "xalloc.h"

static char usermap_file[] = "/tmp/expr_test_usermap.XXXXXX";

static const char *
fallback(const char *name)
{
	static const char *const table[][2] = {
		{ "MINUTE", "60" },
		{ "BackgroundLoad", "0.3" },
		{ "Broken", "1 +" },
		{ "Loop", "Loop + 1" },
		{ "UsesMy", "MY.UserPrio * 2" },
		{ "CLASSAD_ENABLE_USER_HOME", "true" },
		{ "CLASSAD_USER_MAPDATA_groups",
		    "# users to their groups\n"
		    "* alice physics,Chemistry\n"
		    "* alice never\n"
		    "* \"bob smith\" biology\n"
		    "* /^(.*)@cs\\.wisc\\.edu$/i cs,\\1_group\n"
		    "* /^nogroup$/ \" , ,\"\n"
		    "* /broken(/ x\n"
		    "krb carol astro\n"
		    "* carol\n"
		    "\n" },
		{ "CLASSAD_USER_MAPFILE_fromfile", usermap_file },
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcasecmp(name, table[i][0]) == 0)
			return table[i][1];
	return NULL;
}

/* The job (MY) and machine (TARGET) ads most rows evaluate against. */
static const char *const job_attrs[][2] = {
	{ "UserPrio", "5" },
	{ "NumCkpts", "2" },
	{ "QDate", "1000000000" },
	{ "Owner", "\"Bob\"" },
	{ "Memory", "64" },
	{ "ImageSize", "100" },
	{ "Self", "Self + 1" },
	{ "PingA", "PingB * 2" },
	{ "PingB", "PingA" },
	{ "Requirements", "TARGET.Memory >= ImageSize && Arch == \"x86_64\"" },
};

static const char *const machine_attrs[][2] = {
	{ "Memory", "128" },
	{ "Arch", "\"X86_64\"" },
	{ "OpSys", "\"LINUX\"" },
	{ "LoadAvg", "0.25" },
	{ "KeyboardIdle", "1000" },
	{ "MyMem", "MY.Memory" },
	{ "TheirMem", "TARGET.Memory" },
	{ "Plain", "Memory" },
};

/* A subject on which "(a*)*\\1x" backtracks past RX_MAX_STEPS. */
#define A30	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static const struct {
	const char	*text;
	const char	*want;	/* value_print of the result */
} evals[] = {
	/* arithmetic */
	{ "1 + 2", "3" },
	{ "2 * 3 + 4", "10" },
	{ "2 * (3 + 4)", "14" },
	{ "10 - 2 - 3", "5" },
	{ "7 / 2", "3" },
	{ "-7 / 2", "-3" },
	{ "7 / 2.0", "3.5" },
	{ "7 % 3", "1" },
	{ "-7 % 3", "-1" },
	{ "7.5 % 2", "error" },	/* HTCondor: no real remainder */
	{ "-7.5 % 2", "error" },
	{ "1 / 0", "error" },
	{ "1 % 0", "error" },
	{ "1.0 / 0", "error" },
	{ "1.5 % 0.0", "error" },
	{ "9223372036854775807 + 1", "-9223372036854775808" },	/* wraps */
	{ "-9223372036854775808 - 1", "9223372036854775807" },
	{ "9223372036854775807 * 2", "-2" },
	{ "-9223372036854775808", "-9223372036854775808" },
	{ "-9223372036854775808 / -1", "9223372036854775807" },
	{ "-9223372036854775808 % -1", "0" },
	{ "-(-9223372036854775808)", "-9223372036854775808" },
	{ "1e3", "1000.0" },
	{ ".5 + 1", "1.5" },
	{ "0.1 + 0.2", "0.30000000000000004" },	/* 17 digits where 16 lose it */
	{ "1 + 2.5", "3.5" },
	{ "1e308 * 10", "error" },	/* HTCondor: +INF is an overflow */
	{ "+3", "3" },
	{ "- - 3", "3" },
	/* booleans are 0 and 1 among numbers */
	{ "TRUE + 1", "2" },
	{ "true * 10", "10" },
	{ "-TRUE", "error" },
	{ "+FALSE", "error" },
	{ "TRUE == 1", "true" },
	{ "FALSE < TRUE", "true" },
	{ "TRUE == 1.0", "true" },
	{ "(UserPrio * 10) + (NumCkpts > 0) - (QDate / 1000000000.0)",
	  "50.0" },
	/* comparisons */
	{ "1 < 2", "true" },
	{ "2 <= 2", "true" },
	{ "3 > 2.5", "true" },
	{ "3 >= 4", "false" },
	{ "1 != 1", "false" },
	{ "\"abc\" == \"ABC\"", "true" },
	{ "\"abc\" != \"ABC\"", "false" },
	{ "\"a\" < \"B\"", "true" },
	{ "\"abc\" == 1", "error" },
	{ "1 < \"abc\"", "error" },
	{ "\"a\" + \"b\"", "error" },
	{ "\"a\" * 2", "error" },
	{ "UNDEFINED == UNDEFINED", "undefined" },
	{ "UNDEFINED < 1", "undefined" },
	{ "ERROR == UNDEFINED", "error" },
	/* identity */
	{ "\"abc\" =?= \"ABC\"", "false" },
	{ "\"abc\" =?= \"abc\"", "true" },
	{ "\"abc\" =!= \"ABC\"", "true" },
	{ "\"abc\" is \"abc\"", "true" },
	{ "1 IS 1", "true" },
	{ "1 isnt 2", "true" },
	{ "UNDEFINED =?= UNDEFINED", "true" },
	{ "ERROR =?= ERROR", "true" },
	{ "1 =?= UNDEFINED", "false" },
	{ "1 =?= 1.0", "false" },
	{ "TRUE =?= 1", "false" },
	{ "NoSuch =?= UNDEFINED", "true" },
	{ "NoSuch =!= UNDEFINED", "false" },
	{ "Owner =?= \"Bob\"", "true" },
	/* three-valued logic */
	{ "FALSE && UNDEFINED", "false" },
	{ "UNDEFINED && FALSE", "false" },
	{ "FALSE && ERROR", "false" },
	{ "ERROR && FALSE", "error" },	/* the left operand decides first */
	{ "TRUE && UNDEFINED", "undefined" },
	{ "TRUE && TRUE", "true" },
	{ "UNDEFINED && ERROR", "error" },
	{ "TRUE || ERROR", "true" },
	{ "ERROR || TRUE", "error" },
	{ "UNDEFINED || TRUE", "true" },
	{ "UNDEFINED || FALSE", "undefined" },
	{ "ERROR || UNDEFINED", "error" },
	{ "FALSE || FALSE", "false" },
	{ "\"x\" && TRUE", "error" },
	{ "\"x\" && FALSE", "error" },
	{ "\"x\" || TRUE", "error" },
	{ "1 && 2", "true" },
	{ "0 || 0.0", "false" },
	{ "0.5 && TRUE", "true" },
	{ "FALSE && 1 / 0", "false" },
	{ "TRUE || Self", "true" },
	{ "!UNDEFINED", "undefined" },
	{ "!ERROR", "error" },
	{ "!0", "true" },
	{ "!2.5", "false" },
	{ "!TRUE", "false" },
	{ "!\"a\"", "error" },
	{ "-\"a\"", "error" },
	{ "UNDEFINED + 1", "undefined" },
	{ "ERROR + UNDEFINED", "error" },
	{ "-UNDEFINED", "undefined" },
	/* conditionals evaluate only the chosen branch */
	{ "TRUE ? 1 : 2", "1" },
	{ "0 ? 1 : 2", "2" },
	{ "UNDEFINED ? 1 : 2", "undefined" },
	{ "ERROR ? 1 : 2", "error" },
	{ "\"s\" ? 1 : 2", "error" },
	{ "TRUE ? 1 : 1 / 0", "1" },
	{ "FALSE ? 1 : TRUE ? 2 : 3", "2" },
	{ "ifThenElse(TRUE, 1, 1 / 0)", "1" },
	{ "ifThenElse(UNDEFINED, 1, 2)", "undefined" },
	{ "ifThenElse(\"x\", 1, 2)", "error" },
	{ "IFTHENELSE(0, 1, 2)", "2" },
	{ "ifThenElse(2.5, \"yes\", \"no\")", "\"yes\"" },
	/* predicates */
	{ "isUndefined(NoSuch)", "true" },
	{ "isUndefined(1)", "false" },
	{ "isError(1 / 0)", "true" },
	{ "isError(UNDEFINED)", "false" },
	{ "isString(\"a\")", "true" },
	{ "isString(1)", "false" },
	{ "isInteger(1)", "true" },
	{ "isInteger(1.0)", "false" },
	{ "isReal(1.0)", "true" },
	{ "isBoolean(TRUE)", "true" },
	{ "isBoolean(1)", "false" },
	{ "isBoolean(1 < 2)", "true" },
	/* conversions */
	{ "int(3.7)", "3" },
	{ "int(-3.7)", "-3" },
	{ "int(\"42\")", "42" },
	{ "int(\"3.9\")", "3" },
	{ "int(\"x\")", "error" },
	{ "int(TRUE)", "1" },
	{ "int(UNDEFINED)", "undefined" },
	{ "int(ERROR)", "error" },
	{ "int(1e30)", "-9223372036854775808" },	/* C's cast on x86-64 */
	{ "real(3)", "3.0" },
	{ "real(\"2.5\")", "2.5" },
	{ "real(\"INF\")", "real(\"INF\")" },
	{ "real(\"x\")", "error" },
	{ "real(FALSE)", "0.0" },
	{ "string(42)", "\"42\"" },
	{ "string(1.5)", "\"1.500000000000000E+00\"" },
	{ "string(2.0)", "\"2.000000000000000E+00\"" },
	{ "string(TRUE)", "\"true\"" },
	{ "string(\"a\")", "\"a\"" },
	{ "string(UNDEFINED)", "undefined" },
	{ "floor(2.5)", "2" },
	{ "floor(-2.5)", "-3" },
	{ "floor(5)", "5" },
	{ "ceiling(2.1)", "3" },
	{ "ceiling(-2.1)", "-2" },
	{ "ceiling(2.0)", "2" },
	{ "round(2.5)", "2" },	/* halves to even (rint) */
	{ "round(-2.5)", "-2" },
	{ "round(2.4999)", "2" },
	{ "round(0.49999999999999994)", "0" },
	{ "floor(\"x\")", "error" },
	{ "floor(1e300)", "-9223372036854775808" },
	/* strings */
	{ "strcat(\"a\", \"b\", 1, 2.5, TRUE)", "\"ab12.500000000000000E+00true\"" },
	{ "strcat()", "\"\"" },
	{ "strcat(\"a\", UNDEFINED)", "undefined" },
	{ "strcat(\"a\", ERROR)", "error" },
	{ "strcat(Owner, \"@host\")", "\"Bob@host\"" },
	{ "size(\"hello\")", "5" },
	{ "size(\"\")", "0" },
	{ "size(1)", "error" },
	{ "size(NoSuch)", "undefined" },
	{ "toLower(\"AbC\")", "\"abc\"" },
	{ "toUpper(\"AbC\")", "\"ABC\"" },
	{ "regexp(\"^node[0-9]+\\\\.example$\", \"node12.example\")",
	  "true" },
	{ "regexp(\"^node\", \"mynode\")", "false" },
	{ "regexp(\"^NODE\", \"node1\", \"i\")", "true" },
	{ "regexp(\"(\", \"x\")", "error" },
	{ "regexp(\"((a{200}){200}){200}\", \"a\")", "error" },
	/* Lists and nested ads (HTCondor's values). */
	{ "{1,2,3}[1]", "2" },
	{ "{1,2,3}[3]", "error" },
	{ "size({})", "0" },
	{ "size({1, {2, 3}})", "2" },
	{ "[a = 1; b = a + 1].b", "2" },
	{ "[a = 1; b = a + 1][\"b\"]", "2" },
	{ "[a = 1].c", "undefined" },
	{ "{[a = 1], [a = 2]}.a", "{ 1,2 }" },
	{ "{1 + 1, \"x\"}", "{ 1 + 1,\"x\" }" },
	{ "ifThenElse(MemoryUsage =!= UNDEFINED, max({2048, MemoryUsage * 3 / 2}), 1024)", "1024" },
	{ "member(2, {1, 2})", "true" },
	{ "member(\"A\", {\"a\"})", "true" },
	{ "identicalMember(\"A\", {\"a\"})", "false" },
	{ "sum({1, 2, 3})", "6" },
	{ "avg({1, 2})", "1.5" },
	{ "sum({})", "0" },
	{ "anyCompare(\">\", {1, 5}, 3)", "true" },
	{ "allCompare(\">\", {1, 5}, 3)", "false" },
	{ "isList({})", "true" },
	{ "isClassAd([a = 1])", "true" },
	{ "{1} =?= {1}", "error" },
	/* Functions of HTCondor's reference. */
	{ "substr(\"hello\", 1, 3)", "\"ell\"" },
	{ "substr(\"hello\", -3)", "\"llo\"" },
	{ "substr(\"hello\", 1, -1)", "\"ell\"" },
	{ "strcmp(\"a\", \"b\")", "-1" },
	{ "stricmp(\"A\", \"a\")", "0" },
	{ "join(\", \", {\"a\", \"b\"})", "\"a, b\"" },
	{ "join(\"-\", \"a\", UNDEFINED, \"b\")", "\"a-b\"" },
	{ "split(\"a, b c\")", "{ \"a\",\"b\",\"c\" }" },
	{ "split(\"a;b\", \";\")", "{ \"a\",\"b\" }" },
	{ "splitUserName(\"alice@cs.wisc.edu\")", "{ \"alice\",\"cs.wisc.edu\" }" },
	{ "splitSlotName(\"slot1@host\")", "{ \"slot1\",\"host\" }" },
	{ "stringListSize(\"a, b,c\")", "3" },
	{ "stringListSum(\"1, 2, 3\")", "6" },
	{ "stringListAvg(\"1, 2\")", "1" },	/* integers stay integers */
	{ "stringListAvg(\"1, 2.0\")", "1.5" },
	{ "stringListMin(\"3, 1.5\")", "1.5" },
	{ "stringListMax(\"3, 1\")", "3" },
	{ "stringListSubsetMatch(\"a,b\", \"b, c, a\")", "true" },
	{ "stringListISubsetMatch(\"A,d\", \"b, c, a\")", "false" },
	{ "stringListMember(UNDEFINED, \"a,b\")", "false" },
	{ "stringList_regexpMember(\"^b\", \"a, bc\")", "true" },
	{ "pow(2, 10)", "1024" },
	{ "pow(4.0, 0.5)", "2.0" },
	{ "pow(2, -1)", "0.5" },
	{ "ceil(1.2)", "2" },
	{ "bool(\"true\")", "true" },
	{ "bool(\"x\")", "undefined" },
	{ "bool(0.0)", "false" },
	{ "int(\"12abc\")", "12" },
	{ "real(\"2.5x\")", "2.5" },
	{ "int(\"abc\")", "error" },
	{ "round(UNDEFINED)", "error" },
	{ "string(FALSE)", "\"false\"" },
	{ "string({1, 2})", "\"{ 1,2 }\"" },
	{ "versioncmp(\"8.10.0\", \"8.9.2\")", "1" },
	{ "versionGT(\"8.10.0\", \"8.9.2\")", "true" },
	{ "version_in_range(\"8.9\", \"8.0\", \"9.0\")", "true" },
	{ "quantize(3, 4)", "4" },
	{ "quantize(5, {2, 4, 8})", "8" },
	{ "interval(3725)", "\"1:02:05\"" },
	{ "interval(90061)", "\"1+01:01:01\"" },
	{ "regexps(\"(a+)b\", \"xaab\", \"[\\\\1]\")", "\"[aa]\"" },
	{ "replace(\"a+\", \"xaaya\", \"-\")", "\"x-ya\"" },
	{ "replaceAll(\"a+\", \"xaaya\", \"-\")", "\"x-y-\"" },
	{ "regexpMember(\"^a\", {\"b\", \"ab\"})", "true" },
	{ "eval(\"1 + 2\")", "3" },
	{ "unparse(Requirements)", "\"TARGET.Memory >= ImageSize && Arch == \\\"x86_64\\\"\"" },
	{ "debug(1)", "1" },
	{ "nosuchfunction(1)", "error" },
	{ "size()", "error" },
	/* Operators as HTCondor has them. */
	{ "6 & 3", "2" },
	{ "6 | 3", "7" },
	{ "6 ^ 3", "5" },
	{ "~0", "-1" },
	{ "1 << 4", "16" },
	{ "-16 >> 2", "-4" },
	{ "-1 >>> 60", "15" },
	{ "TRUE & 1", "error" },
	{ "-1.0 / 0", "real(\"-INF\")" },
	{ "0.0 / 0", "real(\"NaN\")" },
	{ "UNDEFINED || TRUE", "true" },
	{ "UNDEFINED && FALSE", "false" },
	{ "TRUE || ERROR", "true" },
	{ "FALSE || ERROR", "error" },
	{ "1 =?= 1.0", "false" },
	{ "\"a\" == \"A\"", "true" },
	{ "\"a\" =?= \"A\"", "false" },
	{ "regexp(\"(a)\\\\1\", \"aa\")", "true" },
	{ "regexp(\"(?<=a)b(?!c)\", \"abd\")", "true" },
	/* Backtracking past RX_MAX_STEPS: ERROR, not a hang. */
	{ "regexp(\"(a*)*\\\\1x\", \"" A30 "\")", "error" },
	{ "regexps(\"(a*)*\\\\1x\", \"" A30 "\", \"y\")", "error" },
	{ "replaceAll(\"(a*)*\\\\1x\", \"" A30 "\", \"y\")", "error" },
	{ "regexpMember(\"(a*)*\\\\1x\", {\"b\", \"" A30 "\"})", "error" },
	{ "stringListRegexpMember(\"(a*)*\\\\1x\", \"b, " A30 "\")",
	  "error" },
	{ "regexp(\"^a{2,3}b{1,}$\", \"aaabb\")", "true" },
	{ "regexp(\"a++++++++++++++++++++++++++++++++++++++++\", \"a\")",
	  "error" },
	{ "regexp(\"x{2}+\", \"xx\")", "error" },
	{ "regexp(\"((((((a+)+)+)+)+)+)\", \"a\")", "true" },	/* linear-time matching */
	{ "regexp(\"^(ab+)+c$\", \"ababbc\")", "true" },
	{ "regexp(\"^[+*{]+x$\", \"+*{x\")", "true" },
	{ "regexp(\"a\", UNDEFINED)", "undefined" },
	{ "regexp(1, \"1\")", "error" },
	{ "stringListMember(\"avx2\", \"sse4, avx2,avx512\")", "true" },
	{ "stringListMember(\"AVX2\", \"sse4, avx2\")", "false" },
	{ "stringListIMember(\"AVX2\", \"sse4, avx2\")", "true" },
	{ "stringListMember(\"b\", \"a;b;c\", \";\")", "true" },
	{ "stringListsIntersect(\"a, b\", \"c,b\")", "true" },
	{ "stringListsIntersect(\"a, b\", \"c,B\")", "false" },
	{ "stringListsIntersect(\"\", \"\")", "false" },
	{ "stringListsIntersect(\"a;b\", \"b\", \";\")", "true" },
	{ "stringListsIntersect(NoSuch, \"b\")", "undefined" },
	/* HTCondor's "?:": the left unless it is UNDEFINED */
	{ "NoSuch ?: 1", "1" },
	{ "Memory ?: 1", "64" },
	{ "FALSE ?: 1", "false" },
	{ "700000 - ((NoSuch ?: 1) * 650000)", "50000" },
	{ "stringListMember(\"a b\", \"a b,c\")", "false" },
	{ "stringListMember(\"x\", UNDEFINED)", "false" },
	{ "toupper(Owner)", "\"BOB\"" },
	{ "\"a\\\"b\\\\c\\nd\\te\"", "\"a\\\"b\\\\c\\nd\\te\"" },
	{ "size(\"\\n\\t\\\\\\\"\")", "4" },
	/* min and max */
	/* HTCondor's min and max take one list. */
	{ "min({3, 1, 2})", "1" },
	{ "max({3, 1.5})", "3.0" },
	{ "max({-1})", "-1" },
	{ "min({TRUE, 5})", "1" },
	{ "min({1, \"a\"})", "error" },
	{ "max({1, UNDEFINED})", "1" },
	{ "min(3, 1, 2)", "error" },
	{ "max({})", "undefined" },
	/* time */
	{ "time() > 1000000000", "true" },
	{ "CurrentTime > 1000000000", "true" },
	{ "isInteger(CurrentTime)", "true" },
	/* attributes and scoping */
	{ "UserPrio", "5" },
	{ "userprio", "5" },
	{ "MY.UserPrio", "5" },
	{ "my.userprio", "5" },
	{ "TARGET.UserPrio", "undefined" },
	{ "Memory", "64" },
	{ "MY.Memory", "64" },
	{ "TARGET.Memory", "128" },
	{ "target.memory", "128" },
	{ "Arch == \"x86_64\"", "true" },
	{ "OpSys", "\"LINUX\"" },
	{ "MyMem", "128" },
	{ "TheirMem", "64" },
	{ "Plain", "128" },
	{ "TARGET.Plain", "128" },
	{ "Requirements", "true" },
	{ "NoSuch", "undefined" },
	{ "MY.NoSuch", "undefined" },
	/* A cycle is UNDEFINED, as in HTCondor. */
	{ "Self", "undefined" },
	{ "PingA", "undefined" },
	{ "KeyboardIdle > 15 * MINUTE", "true" },
	/* the fallback */
	{ "MINUTE * 15", "900" },
	{ "minute", "60" },
	{ "LoadAvg <= BackgroundLoad", "true" },
	{ "Broken", "error" },
	{ "Loop", "undefined" },
	{ "UsesMy", "10" },
	{ "MY.MINUTE", "undefined" },
};

static const struct {
	const char	*text;
	const char	*want;	/* a substring of the message */
} errors[] = {
	{ "", "at column 1: empty expression" },
	{ "   ", "empty expression" },
	{ "1 +", "at column 4: unexpected end of expression" },
	{ "(1", "expected ')'" },
	{ "010", "may not start with 0" },
	{ "007", "may not start with 0" },
	{ "0x1F", "no hexadecimal" },
	{ "1)", "at column 2: unexpected ')' after expression" },
	{ "1 = 2", "at column 3: unexpected '='" },
	{ "1 &", "unexpected end" },
	{ "\"abc", "at column 1: unterminated string" },
	{ "\"abc\\", "unterminated string" },
	{ "\"a\\0b\"", "NUL in string" },
	{ "9223372036854775808", "integer out of range" },
	{ "99999999999999999999999", "integer out of range" },
	{ "-9223372036854775809", "integer out of range" },
	{ "1.", "digit required after '.'" },
	{ "1e", "bad exponent" },
	{ "MY.x(1)", "unexpected '('" },
	{ "f(1,)", "unexpected ')'" },
	{ "{1,", "unexpected end" },
	{ "[a = 1", "expected ';'" },
	{ "[1 = 2]", "attribute name expected" },
	{ "strcat(1,)", "unexpected ')'" },
	{ "a b", "at column 3: unexpected name after expression" },
	{ "@", "unexpected '@'" },
	{ "\x01", "unexpected byte 0x01" },
	{ "a ? b", "expected ':'" },
	{ "a ? b :", "unexpected end" },
	{ "()", "unexpected ')'" },
	{ "TRUE FALSE", "unexpected FALSE" },
	{ "1 + * 2", "unexpected '*'" },
	{ "a.", "attribute name expected" },
};

static const struct {
	const char	*text;
	const char	*want;	/* canonical form */
} unparses[] = {
	{ "a+b", "a + b" },
	{ "a?:b", "a ?: b" },
	{ "(a?:b)*2", "(a ?: b) * 2" },
	{ "1 + x ?: 5", "1 + (x ?: 5)" },	/* ?: binds like a subscript */
	{ "(1 + x) ?: 5", "(1 + x) ?: 5" },
	{ "a ?: b ?: c", "a ?: (b ?: c)" },
	{ "(a ?: b) ?: c", "(a ?: b) ?: c" },
	{ "a+b*c", "a + b * c" },
	{ "(a+b)*c", "(a + b) * c" },
	{ "a-(b-c)", "a - (b - c)" },
	{ "(a-b)-c", "a - b - c" },
	{ "a/(b*c)", "a / (b * c)" },
	{ "a%b%c", "a % b % c" },
	{ "a&&b&&c", "a && b && c" },
	{ "(a&&b)&&c", "(a && b) && c" },
	{ "a&&(b&&c)", "a && (b && c)" },
	{ "a||b&&c", "a || b && c" },
	{ "(a||b)&&c", "(a || b) && c" },
	{ "a==b&&c!=d", "a == b && c != d" },
	{ "a == (b == c)", "a == (b == c)" },
	{ "(a == b) == c", "a == b == c" },
	{ "a < b == c", "a < b == c" },
	{ "a < (b == c)", "a < (b == c)" },
	{ "!a", "!a" },
	{ "! ! a", "!!a" },
	{ "!(a&&b)", "!(a && b)" },
	{ "-(a+b)", "-(a + b)" },
	{ "-a * b", "-a * b" },
	{ "-(a*b)", "-(a * b)" },
	{ "a * -b", "a * -b" },
	{ "a - -1", "a - -1" },
	{ "a - - 1.5", "a - -(1.5)" },	/* a minus of 1.5, not the literal -1.5 */
	{ "- 5", "-(5)" },
	{ "-(5)", "-(5)" },
	{ "--5", "--5" },
	{ "-(-(-5))", "---5" },
	{ "+5", "+5" },
	{ "+-5", "+-5" },
	{ "-TRUE", "-true" },
	{ "- -9223372036854775808", "--9223372036854775808" },
	{ "-9223372036854775808", "-9223372036854775808" },
	{ "1.0", "1.0" },
	{ "1e3", "1000.0" },
	{ "1E+3", "1000.0" },
	/* Reals with 16 digits, as HTCondor prints them (17 where 16 lose it). */
	{ "1.5e300", "1.5E+300" },
	{ "1e-5", "1E-05" },
	{ "0.30000000000000004", "0.30000000000000004" },
	{ "1e400", "real(\"INF\")" },
	{ "\"\\101\\'\"", "\"A'\"" },
	{ "\"a\" \"b\"", "\"ab\"" },
	{ "{1,2, 3}", "{ 1,2,3 }" },
	{ "[a = 1; b = a + 1].b", "[ a = 1; b = a + 1 ].b" },
	{ "x[1]", "x[1]" },
	{ "a & b | c ^ d", "a & b | c ^ d" },
	{ "1 << 2 >>> 3", "1 << 2 >>> 3" },
	{ "'a b'", "'a b'" },
	{ "PARENT.x", "PARENT.x" },
	{ "0.1", "0.1" },
	{ ".5", "0.5" },
	{ "-0.0", "-0.0" },
	{ "1e-400", "0.0" },
	{ "\"a\\\"b\\\\c\\nd\\te\\r\"", "\"a\\\"b\\\\c\\nd\\te\\r\"" },
	{ "\"tab\there\"", "\"tab\\there\"" },
	{ "true", "true" },
	{ "False", "false" },
	{ "undefined", "undefined" },
	{ "error", "error" },
	{ "a is b", "a =?= b" },
	{ "a isnt b", "a =!= b" },
	{ "a=?=b", "a =?= b" },
	{ "a=!=b", "a =!= b" },
	{ "my.x", "MY.x" },
	{ "target.Memory", "TARGET.Memory" },
	{ "TARGET.a.b", "TARGET.a.b" },
	{ "_x.y_z", "_x.y_z" },
	{ "IFTHENELSE(a,b,c)", "ifThenElse(a,b,c)" },
	{ "strcat()", "strcat()" },
	{ "STRCAT( a , b )", "strcat(a,b)" },
	{ "a?b:c?d:e", "a ? b : c ? d : e" },
	{ "(a?b:c)?d:e", "(a ? b : c) ? d : e" },
	{ "a ? (b ? c : d) : e", "a ? b ? c : d : e" },
	{ "(a||b) ? c : d", "a || b ? c : d" },
	{ "a || (b ? c : d)", "a || (b ? c : d)" },
	{ "(a ? b : c) + 1", "(a ? b : c) + 1" },
	{ "f1 <= 2 && f2 >= 3 || f3 > 4", "f1 <= 2 && f2 >= 3 || f3 > 4" },
	{ "(((a)))", "a" },
	{ "\n\ta\r\n+\tb ", "a + b" },
	{ "(UserPrio * 10) + (NumCkpts > 0) - (QDate / 1000000000.0)",
	  "UserPrio * 10 + (NumCkpts > 0) - QDate / 1000000000.0" },
};

/* Test names are one line each: control characters become '?'. */
static void
printable(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			*s = '?';
}

static struct ad *
make_ad(const char *const (*attrs)[2], size_t n)
{
	struct ad *ad = ad_new();
	char err[256];
	size_t i;

	for (i = 0; i < n; i++)
		if (ad_set_expr(ad, attrs[i][0], attrs[i][1], err,
		    sizeof(err)) == -1)
			printf("FAIL setup %s: %s\n", attrs[i][0], err);
	return ad;
}

static void
test_evals(const struct ad *job, const struct ad *machine)
{
	struct value v;
	struct buf b;
	char name[200];
	size_t i;

	buf_init(&b);
	for (i = 0; i < sizeof(evals) / sizeof(evals[0]); i++) {
		expr_eval_text(evals[i].text, job, machine, &v);
		buf_reset(&b);
		value_print(&v, &b);
		(void)snprintf(name, sizeof(name), "eval %s", evals[i].text);
		printable(name);
		CHECK_STR(name, b.data, evals[i].want);
		value_free(&v);
	}
	buf_free(&b);
}

static void
test_errors(void)
{
	struct expr *e;
	char err[256], name[200];
	size_t i;

	for (i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		e = expr_parse(errors[i].text, err, sizeof(err));
		(void)snprintf(name, sizeof(name), "parse error \"%s\"",
		    errors[i].text);
		printable(name);
		if (errors[i].want == NULL) {
			CHECK(name, e != NULL);
		} else {
			CHECK(name, e == NULL &&
			    strstr(err, errors[i].want) != NULL);
			if (e != NULL || strstr(err, errors[i].want) == NULL)
				printf("  message: %s\n", err);
		}
		expr_free(e);
	}
	e = expr_parse(NULL, err, sizeof(err));
	CHECK("parse NULL", e == NULL && err[0] != '\0');
	e = expr_parse("1 +", NULL, 0);
	CHECK("parse without err buffer", e == NULL);
}

static void
test_unparse(void)
{
	struct expr *e, *e2;
	char err[256], name[200];
	char *s, *s2;
	size_t i;

	for (i = 0; i < sizeof(unparses) / sizeof(unparses[0]); i++) {
		(void)snprintf(name, sizeof(name), "unparse \"%s\"",
		    unparses[i].text);
		printable(name);
		if ((e = expr_parse(unparses[i].text, err,
		    sizeof(err))) == NULL) {
			CHECK_STR(name, err, unparses[i].want);
			continue;
		}
		s = expr_to_string(e);
		CHECK_STR(name, s, unparses[i].want);
		/* The canonical form reads back to itself. */
		e2 = expr_parse(s, err, sizeof(err));
		s2 = e2 ? expr_to_string(e2) : NULL;
		(void)snprintf(name, sizeof(name), "reparse \"%s\"",
		    unparses[i].text);
		printable(name);
		CHECK_STR(name, s2, s);
		free(s);
		free(s2);
		expr_free(e);
		expr_free(e2);
	}
}

static void
test_values(void)
{
	static const struct {
		struct value	 v;
		const char	*want;
		int		 is_true;
	} rows[] = {
		{ { VAL_UNDEFINED, { 0 } }, "undefined", 0 },
		{ { VAL_ERROR, { 0 } }, "error", 0 },
		{ { VAL_BOOL, { .b = 1 } }, "true", 1 },
		{ { VAL_BOOL, { .b = 0 } }, "false", 0 },
		{ { VAL_INT, { .i = -42 } }, "-42", 1 },
		{ { VAL_INT, { .i = 0 } }, "0", 0 },
		{ { VAL_REAL, { .r = 2.0 } }, "2.0", 1 },
		{ { VAL_REAL, { .r = 0.0 } }, "0.0", 0 },
		{ { VAL_REAL, { .r = 1e100 } }, "1E+100", 1 },
		{ { VAL_REAL, { .r = -1.0 / 0.0 } }, "real(\"-INF\")", 1 },
		{ { VAL_STRING, { .s = "say \"hi\"\n" } },
		  "\"say \\\"hi\\\"\\n\"", 0 },
	};
	struct value c;
	struct buf b;
	struct expr *e;
	char name[100], *s;
	size_t i;

	buf_init(&b);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		buf_reset(&b);
		value_print(&rows[i].v, &b);
		(void)snprintf(name, sizeof(name), "value_print %s",
		    rows[i].want);
		printable(name);
		CHECK_STR(name, b.data, rows[i].want);
		(void)snprintf(name, sizeof(name), "value_is_true %s",
		    rows[i].want);
		printable(name);
		CHECK(name, value_is_true(&rows[i].v) == rows[i].is_true);
		/* A literal tree of the value prints the same. */
		e = expr_from_value(&rows[i].v);
		s = expr_to_string(e);
		(void)snprintf(name, sizeof(name), "expr_from_value %s",
		    rows[i].want);
		printable(name);
		CHECK_STR(name, s, rows[i].want);
		free(s);
		expr_free(e);
		value_copy(&c, &rows[i].v);
		buf_reset(&b);
		value_print(&c, &b);
		(void)snprintf(name, sizeof(name), "value_copy %s",
		    rows[i].want);
		printable(name);
		CHECK_STR(name, b.data, rows[i].want);
		value_free(&c);
	}
	buf_free(&b);
	CHECK_STR("type name int", value_type_name(VAL_INT), "integer");
	CHECK_STR("type name string", value_type_name(VAL_STRING), "string");
	CHECK_STR("type name bool", value_type_name(VAL_BOOL), "boolean");
	CHECK_STR("type name undefined", value_type_name(VAL_UNDEFINED),
	    "undefined");
}

static void
test_references(void)
{
	static const struct {
		const char	*text;
		const char	*want;
	} rows[] = {
		{ "a + MY.b + TARGET.c + A + ifThenElse(d, e, f)",
		  "a b c d e f" },
		{ "1 + 2", "" },
		{ "TARGET.Memory >= ImageSize && Memory > 0",
		  "Memory ImageSize" },
		{ "strcat(Owner, \"x\") == \"bobx\" || CurrentTime > 0",
		  "Owner CurrentTime" },
	};
	struct expr *e;
	struct buf b;
	char name[200];
	size_t i;

	buf_init(&b);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		e = expr_parse(rows[i].text, NULL, 0);
		buf_reset(&b);
		expr_references(e, &b);
		(void)snprintf(name, sizeof(name), "references %s",
		    rows[i].text);
		printable(name);
		CHECK_STR(name, b.data, rows[i].want);
		expr_free(e);
	}
	/* Appending skips names already present. */
	buf_reset(&b);
	buf_adds(&b, "Owner");
	e = expr_parse("owner + Cmd", NULL, 0);
	expr_references(e, &b);
	CHECK_STR("references append", b.data, "Owner Cmd");
	expr_free(e);
	buf_free(&b);
}

static void
test_clauses(void)
{
	static const struct {
		const char	*text;
		size_t		 max;
		const char	*want;	/* clauses joined by " ; " */
	} rows[] = {
		{ "a && (b && c) && d > 1", 10, "a ; b ; c ; d > 1" },
		{ "a && b && c", 2, "a ; b" },
		{ "a || b && c", 10, "a || b && c" },
		{ "(a || b) && !c", 10, "a || b ; !c" },
		{ "x", 10, "x" },
		{ "x && y", 0, "" },
	};
	struct expr *e, *cl[10];
	struct buf b;
	char name[200];
	size_t i, j, n;

	buf_init(&b);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		e = expr_parse(rows[i].text, NULL, 0);
		n = expr_clauses(e, cl, rows[i].max);
		buf_reset(&b);
		for (j = 0; j < n; j++) {
			if (j > 0)
				buf_adds(&b, " ; ");
			expr_unparse(cl[j], &b);
			expr_free(cl[j]);
		}
		(void)snprintf(name, sizeof(name), "clauses %s (max %zu)",
		    rows[i].text, rows[i].max);
		printable(name);
		CHECK_STR(name, b.data, rows[i].want);
		expr_free(e);
	}
	buf_free(&b);
}

/* Text of N copies of UNIT between PRE and POST. */
static char *
repeat(const char *pre, const char *unit, size_t n, const char *mid,
    const char *post)
{
	struct buf b;
	size_t i;

	buf_init(&b);
	buf_adds(&b, pre);
	for (i = 0; i < n; i++)
		buf_adds(&b, unit);
	buf_adds(&b, mid);
	for (i = 0; i < n && post[0] != '\0'; i++)
		buf_adds(&b, post);
	return b.data;
}

static void
test_bounds(void)
{
	struct expr *e;
	struct value v;
	struct ad *ad;
	char err[256], name[32];
	char *s;
	int i;

	s = repeat("", "(", EXPR_MAX_DEPTH, "1", ")");
	e = expr_parse(s, err, sizeof(err));
	CHECK("nesting at the limit parses", e != NULL);
	expr_free(e);
	free(s);
	s = repeat("", "(", EXPR_MAX_DEPTH + 1, "1", ")");
	e = expr_parse(s, err, sizeof(err));
	CHECK("nesting past the limit fails", e == NULL &&
	    strstr(err, "nesting deeper than") != NULL);
	free(s);
	s = repeat("", "(", 100000, "", "");
	e = expr_parse(s, err, sizeof(err));
	CHECK("100000 '(' fail", e == NULL);
	free(s);
	s = repeat("", "!", 100000, "a", "");
	e = expr_parse(s, err, sizeof(err));
	CHECK("100000 '!' fail", e == NULL);
	free(s);
	s = repeat("", "-", 100000, "1", "");
	e = expr_parse(s, err, sizeof(err));
	CHECK("100000 '-' fail", e == NULL);
	free(s);
	s = repeat("a", " ? a : a", 300, "", "");
	e = expr_parse(s, err, sizeof(err));
	CHECK("300 chained ?: fail", e == NULL);
	free(s);
	/* A long && chain is one node: long requirements stay legal. */
	s = repeat("a", " && a", 5000, "", "");
	e = expr_parse(s, err, sizeof(err));
	CHECK("5000-clause && parses", e != NULL);
	expr_eval(e, NULL, NULL, &v);
	CHECK("5000-clause && is UNDEFINED", v.type == VAL_UNDEFINED);
	expr_free(e);
	free(s);
	s = repeat("a", " + a", 100000, "", "");
	e = expr_parse(s, err, sizeof(err));
	CHECK("100000-term sum fails", e == NULL &&
	    strstr(err, "expression deeper than") != NULL);
	free(s);
	s = repeat("strcat(", "a, ", 100000, "a)", "");
	e = expr_parse(s, err, sizeof(err));
	CHECK("100000-argument strcat parses", e != NULL);
	expr_free(e);
	free(s);

	/* Exponential fan-out through references stops at the budget. */
	ad = ad_new();
	ad_set_expr(ad, "A0", "1", NULL, 0);
	ad_set_expr(ad, "S0", "\"0123456789abcdef\"", NULL, 0);
	for (i = 1; i <= 40; i++) {
		char text[64];

		(void)snprintf(name, sizeof(name), "A%d", i);
		printable(name);
		(void)snprintf(text, sizeof(text), "A%d + A%d", i - 1, i - 1);
		ad_set_expr(ad, name, text, NULL, 0);
		(void)snprintf(name, sizeof(name), "S%d", i);
		printable(name);
		(void)snprintf(text, sizeof(text), "strcat(S%d, S%d)", i - 1,
		    i - 1);
		ad_set_expr(ad, name, text, NULL, 0);
	}
	ad_eval(ad, NULL, "A10", &v);
	CHECK("fan-out A10 = 1024", v.type == VAL_INT && v.u.i == 1024);
	ad_eval(ad, NULL, "A40", &v);
	CHECK("fan-out A40 is ERROR", v.type == VAL_ERROR);
	ad_eval(ad, NULL, "S10", &v);
	CHECK("strcat S10 is 16 KiB", v.type == VAL_STRING &&
	    strlen(v.u.s) == 16384);
	value_free(&v);
	ad_eval(ad, NULL, "S17", &v);
	CHECK("strcat S17 (2 MiB) is ERROR", v.type == VAL_ERROR);
	value_free(&v);
	ad_eval(ad, NULL, "S40", &v);
	CHECK("strcat S40 is ERROR", v.type == VAL_ERROR);
	value_free(&v);
	ad_free(ad);
}

static void
test_copy(void)
{
	struct expr *e, *c;
	char *s1, *s2;

	e = expr_parse("ifThenElse(a && b,\"x\",MY.c * -2.5) =?= TARGET.d",
	    NULL, 0);
	c = expr_copy(e);
	expr_free(e);
	s1 = expr_to_string(c);
	CHECK_STR("copy survives the original",
	    s1, "ifThenElse(a && b,\"x\",MY.c * -2.5) =?= TARGET.d");
	e = expr_copy(c);
	s2 = expr_to_string(e);
	CHECK_STR("copy of copy", s2, s1);
	free(s1);
	free(s2);
	expr_free(c);
	expr_free(e);
	CHECK("copy NULL", expr_copy(NULL) == NULL);
	expr_free(NULL);
}

/* A time value stored as a literal (as ad_set_* stores values) prints
 * as HTCondor's call and reads back as the same time. */
static void
test_times(void)
{
	static const char *const texts[] = {
		"relTime(90061)", "relTime(-1.5)", "absTime(1700000000, 3600)",
		"absTime(0, 0)",
	};
	struct value v, w;
	struct expr *e, *back;
	char *s, name[128];
	size_t i;
	int same;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		expr_eval_text(texts[i], NULL, NULL, &v);
		e = expr_from_value(&v);
		s = expr_to_string(e);
		back = expr_parse(s, NULL, 0);
		expr_eval(back, NULL, NULL, &w);
		same = v.type == w.type && (v.type == VAL_ABSTIME ?
		    v.u.t.secs == w.u.t.secs && v.u.t.off == w.u.t.off :
		    v.type == VAL_RELTIME && v.u.r == w.u.r);
		(void)snprintf(name, sizeof(name), "%s reads back (%s)",
		    texts[i], s);
		CHECK(name, same);
		free(s);
		expr_free(e);
		expr_free(back);
		value_free(&v);
		value_free(&w);
	}
}

/* absTime("...") and relTime("...") of a string written there are
 * parsed into times, as HTCondor's parser does. */
static void
test_time_literals(void)
{
	static const struct {
		const char	*text;
		const char	*canon;		/* NULL: does not parse */
	} cases[] = {
		{ "absTime(\"2026-11-28T01:00:00+01:00\")",
		    "absTime(\"2026-11-28T01:00:00+01:00\")" },
		{ "absTime(\"20261128T010000Z\") + relTime(\"1d 2h\")",
		    "absTime(\"2026-11-28T01:00:00-00:00\") + "
		    "relTime(\"1+02:00:00\")" },
		{ "relTime(\"90\")", "relTime(\"01:30\")" },
		{ "absTime(\"garbage\")", NULL },
		{ "relTime(\"1x\")", NULL },
		/* Times whose text would not read back stay calls. */
		{ "relTime(\"0.0000001\")", "relTime(\"0.0000001\")" },
		{ "absTime(\"9999-13-32\")", "absTime(\"9999-13-32\")" },
		{ "relTime((\"1d\"))", "relTime(\"1+00:00:00\")" },
	};
	struct expr *e;
	char *s, name[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		e = expr_parse(cases[i].text, NULL, 0);
		s = e != NULL ? expr_to_string(e) : NULL;
		(void)snprintf(name, sizeof(name), "%s parses to %s",
		    cases[i].text, cases[i].canon != NULL ? cases[i].canon :
		    "an error");
		CHECK(name, cases[i].canon == NULL ? e == NULL :
		    s != NULL && strcmp(s, cases[i].canon) == 0);
		free(s);
		expr_free(e);
	}
}

/* userHome() looks users up once the configuration enables it. */
static void
test_user_home(void)
{
	struct passwd *pw = getpwnam("root");
	struct value v;

	expr_eval_text("userHome(\"root\")", NULL, NULL, &v);
	CHECK("userHome(\"root\") is root's home when enabled",
	    pw != NULL && v.type == VAL_STRING &&
	    strcmp(v.u.s, pw->pw_dir) == 0);
	value_free(&v);
	expr_eval_text("userHome(\"no-such-user-here\", \"/none\")", NULL,
	    NULL, &v);
	CHECK("userHome of no such user is the default",
	    v.type == VAL_STRING && strcmp(v.u.s, "/none") == 0);
	value_free(&v);
	expr_eval_text("userHome(\"no-such-user-here\")", NULL, NULL, &v);
	CHECK("userHome of no such user is UNDEFINED without a default",
	    v.type == VAL_UNDEFINED);
	value_free(&v);
}

/* userMap() through a map in the configuration and one in a file. */
static void
test_user_map(void)
{
	static const struct {
		const char	*expr;
		const char	*want;	/* a string, or NULL: UNDEFINED */
	} cases[] = {
		{ "userMap(\"groups\", \"alice\")", "physics,Chemistry" },
		{ "userMap(\"groups\", \"alice\", \"chemistry\")",
		    "Chemistry" },
		{ "userMap(\"groups\", \"alice\", \"math\")", "physics" },
		{ "userMap(\"groups\", \"alice\", \"math\", \"x\")",
		    "physics" },
		{ "userMap(\"groups\", \"Alice\")", NULL },
		{ "userMap(\"groups\", \"bob smith\")", "biology" },
		{ "userMap(\"groups\", \"dave@CS.wisc.edu\")",
		    "cs,dave_group" },
		{ "userMap(\"groups\", \"dave@CS.wisc.edu\", \"Dave_Group\")",
		    "dave_group" },
		{ "userMap(\"groups\", \"nogroup\")", " , ," },
		{ "userMap(\"groups\", \"nogroup\", \"a\")", NULL },
		{ "userMap(\"groups\", \"nogroup\", \"a\", \"dflt\")",
		    "dflt" },
		{ "userMap(\"groups\", \"erin\")", NULL },
		{ "userMap(\"groups\", \"erin\", \"a\", \"dflt\")", "dflt" },
		{ "userMap(\"groups\", \"carol\")", NULL },
		{ "userMap(\"groups.krb\", \"carol\")", "astro" },
		{ "userMap(\"nomap\", \"alice\")", NULL },
		{ "userMap(\"fromfile\", \"frank\")", "ops" },
		{ "userMap(\"fromfile\", \"frank\", \"ops\")", "ops" },
	};
	struct value v;
	char name[256];
	size_t i;
	int fd, ok;

	fd = mkstemp(usermap_file);
	ok = fd != -1 && write(fd, "* frank ops\n", 12) == 12;
	if (fd != -1)
		close(fd);
	CHECK("a map file is written", ok);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		expr_eval_text(cases[i].expr, NULL, NULL, &v);
		(void)snprintf(name, sizeof(name), "%s is %s", cases[i].expr,
		    cases[i].want != NULL ? cases[i].want : "UNDEFINED");
		CHECK(name, cases[i].want == NULL ? v.type == VAL_UNDEFINED :
		    v.type == VAL_STRING && strcmp(v.u.s, cases[i].want) == 0);
		value_free(&v);
	}
	/* A changed file is read again. */
	fd = open(usermap_file, O_WRONLY | O_TRUNC);
	ok = fd != -1 && write(fd, "* frank ops,dev,qa\n", 19) == 19;
	if (fd != -1)
		close(fd);
	expr_eval_text("userMap(\"fromfile\", \"frank\")", NULL, NULL, &v);
	CHECK("a changed map file is read again", ok &&
	    v.type == VAL_STRING && strcmp(v.u.s, "ops,dev,qa") == 0);
	value_free(&v);
	(void)unlink(usermap_file);
	expr_eval_text("userMap(\"fromfile\", \"frank\")", NULL, NULL, &v);
	CHECK("a map file gone is no map", v.type == VAL_UNDEFINED);
	value_free(&v);
}

int
main(void)
{
	struct ad *job, *machine;
	struct value v;

	expr_set_fallback(fallback);
	job = make_ad(job_attrs, sizeof(job_attrs) / sizeof(job_attrs[0]));
	machine = make_ad(machine_attrs,
	    sizeof(machine_attrs) / sizeof(machine_attrs[0]));
	test_evals(job, machine);
	/* Without ads, names fall through to the fallback or UNDEFINED. */
	expr_eval_text("MINUTE", NULL, NULL, &v);
	CHECK("no ads: fallback", v.type == VAL_INT && v.u.i == 60);
	expr_eval_text("Memory", NULL, NULL, &v);
	CHECK("no ads: UNDEFINED", v.type == VAL_UNDEFINED);
	expr_eval_text("1 +", NULL, NULL, &v);
	CHECK("eval_text parse error is ERROR", v.type == VAL_ERROR);
	expr_eval(NULL, NULL, NULL, &v);
	CHECK("eval NULL is ERROR", v.type == VAL_ERROR);
	/* The machine's view of a job: MY and TARGET swap. */
	expr_eval_text("TARGET.Memory", machine, job, &v);
	CHECK("swapped TARGET.Memory", v.type == VAL_INT && v.u.i == 64);
	test_errors();
	test_unparse();
	test_values();
	test_references();
	test_clauses();
	test_bounds();
	test_copy();
	test_times();
	test_time_literals();
	test_user_home();
	test_user_map();
	expr_set_fallback(NULL);
	expr_eval_text("MINUTE", NULL, NULL, &v);
	CHECK("fallback removed", v.type == VAL_UNDEFINED);
	ad_free(job);
	ad_free(machine);
	TEST_EXIT();
}
