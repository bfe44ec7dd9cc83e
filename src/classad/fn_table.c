/*
 * fn_table.c: the names of the ClassAd functions (case-insensitive, as
 * HTCondor's) and what evaluates each.  classad(5) lists them.
 */
#include <stddef.h>
#include <strings.h>

#include "classad_impl.h"

fn_t fn_istype, fn_int, fn_real, fn_string, fn_bool, fn_round, fn_pow,
    fn_quantize, fn_random, fn_ifthenelse, fn_eval, fn_debug, fn_unparse,
    fn_time, fn_interval, fn_formattime, fn_reltime, fn_abstime;
fn_t fn_strcat, fn_case, fn_substr, fn_size, fn_strcmp, fn_version,
    fn_version_in_range, fn_regexp, fn_regexps, fn_regexpmember;
fn_t fn_member, fn_sumavg, fn_minmax, fn_listcompare, fn_sl_size,
    fn_sl_sum, fn_sl_member, fn_sl_regexp, fn_sl_intersect, fn_split_at,
    fn_split;
fn_t fn_currenttime, fn_timezoneoffset, fn_daytime, fn_getfield,
    fn_splittime, fn_evalineach, fn_unresolved;
fn_t fn_envv1tov2, fn_mergeenv, fn_argstolist, fn_listtoargs, fn_userhome,
    fn_usermap;

static const struct func funcs[] = {
	{ "ifThenElse", fn_ifthenelse },
	{ "isUndefined", fn_istype },
	{ "isError", fn_istype },
	{ "isString", fn_istype },
	{ "isInteger", fn_istype },
	{ "isReal", fn_istype },
	{ "isBoolean", fn_istype },
	{ "isList", fn_istype },
	{ "isClassAd", fn_istype },
	{ "isAbstime", fn_istype },
	{ "isReltime", fn_istype },
	{ "int", fn_int },
	{ "real", fn_real },
	{ "string", fn_string },
	{ "bool", fn_bool },
	{ "floor", fn_round },
	{ "ceiling", fn_round },
	{ "ceil", fn_round },
	{ "round", fn_round },
	{ "pow", fn_pow },
	{ "quantize", fn_quantize },
	{ "random", fn_random },
	{ "eval", fn_eval },
	{ "debug", fn_debug },
	{ "unparse", fn_unparse },
	{ "time", fn_time },
	{ "interval", fn_interval },
	{ "formatTime", fn_formattime },
	{ "relTime", fn_reltime },
	{ "absTime", fn_abstime },
	{ "strcat", fn_strcat },
	{ "join", fn_strcat },
	{ "toUpper", fn_case },
	{ "toLower", fn_case },
	{ "substr", fn_substr },
	{ "size", fn_size },
	{ "strcmp", fn_strcmp },
	{ "stricmp", fn_strcmp },
	{ "versioncmp", fn_version },
	{ "versionLT", fn_version },
	{ "versionLE", fn_version },
	{ "versionEQ", fn_version },
	{ "versionGE", fn_version },
	{ "versionGT", fn_version },
	{ "version_in_range", fn_version_in_range },
	{ "regexp", fn_regexp },
	{ "regexpMember", fn_regexpmember },
	{ "regexps", fn_regexps },
	{ "replace", fn_regexps },
	{ "replaceAll", fn_regexps },
	{ "member", fn_member },
	{ "identicalMember", fn_member },
	{ "sum", fn_sumavg },
	{ "avg", fn_sumavg },
	{ "min", fn_minmax },
	{ "max", fn_minmax },
	{ "anyCompare", fn_listcompare },
	{ "allCompare", fn_listcompare },
	{ "stringListSize", fn_sl_size },
	{ "stringListSum", fn_sl_sum },
	{ "stringListAvg", fn_sl_sum },
	{ "stringListMin", fn_sl_sum },
	{ "stringListMax", fn_sl_sum },
	{ "stringListMember", fn_sl_member },
	{ "stringListIMember", fn_sl_member },
	{ "stringListSubsetMatch", fn_sl_member },
	{ "stringListISubsetMatch", fn_sl_member },
	{ "stringList_regexpMember", fn_sl_regexp },
	{ "stringListsIntersect", fn_sl_intersect },
	{ "splitUserName", fn_split_at },
	{ "splitSlotName", fn_split_at },
	{ "split", fn_split },
	/* Rarer ones last: the table is searched in order when parsing. */
	{ "unresolved", fn_unresolved },
	{ "evalInEachContext", fn_evalineach },
	{ "countMatches", fn_evalineach },
	{ "envV1ToV2", fn_envv1tov2 },
	{ "mergeEnvironment", fn_mergeenv },
	{ "argsToList", fn_argstolist },
	{ "listToArgs", fn_listtoargs },
	{ "userHome", fn_userhome },
	{ "userMap", fn_usermap },
	{ "currentTime", fn_currenttime },
	{ "timeZoneOffset", fn_timezoneoffset },
	{ "dayTime", fn_daytime },
	{ "getYear", fn_getfield },
	{ "getMonth", fn_getfield },
	{ "getDayOfYear", fn_getfield },
	{ "getDayOfMonth", fn_getfield },
	{ "getDayOfWeek", fn_getfield },
	{ "getHours", fn_getfield },
	{ "getMinutes", fn_getfield },
	{ "getSeconds", fn_getfield },
	{ "getDays", fn_getfield },
	{ "splitTime", fn_splittime },
};
#define NFUNCS	(sizeof(funcs) / sizeof(funcs[0]))

const struct func *
func_lookup(const char *name, int *index)
{
	size_t i;

	for (i = 0; i < NFUNCS; i++)
		if (strcasecmp(name, funcs[i].name) == 0) {
			*index = (int)i;
			return &funcs[i];
		}
	return NULL;
}

const struct func *
func_at(int index)
{
	return &funcs[index];
}
