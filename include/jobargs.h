/*
 * jobargs.h: a job's Args and Env attributes, as the starter and the
 * schedd (scheduler universe) hand them to the job.
 *
 * Args is split on white space; a double-quoted stretch keeps its white
 * space ("a b" is one word) and inside it \" and \\ stand for " and \.
 * Env is "NAME=value;NAME=value" (condor_submit's environment line).
 */
#ifndef CONDOR_JOBARGS_H
#define CONDOR_JOBARGS_H

#include <stddef.h>

#define JOBARGS_MAX_WORDS	4096	/* words of Args, entries of Env */

/*
 * jobargs_split: the words of ARGS (NULL or "" gives none) into *WORDS,
 * a fresh NULL-terminated array (free with jobargs_free).  Returns how
 * many, or -1 with a message in ERR (an unterminated quote, too many
 * words).
 */
int	jobargs_split(const char *args, char ***words, char *err,
	    size_t errlen);

/*
 * jobenv_parse: the variables of ENV as "NAME=value" strings into *VARS,
 * NULL-terminated (free with jobargs_free).  Empty entries are skipped;
 * an entry with no '=' or whose name is not [A-Za-z_][A-Za-z0-9_]* is an
 * error.  Returns how many, or -1 with a message in ERR.
 */
int	jobenv_parse(const char *env, char ***vars, char *err,
	    size_t errlen);

/*
 * jobenv_set: in the NULL-terminated array *VARS of N entries, replace
 * the variable NAME or append "NAME=VALUE"; returns the new count.
 * jobenv_get: the value of NAME in VARS, or NULL.
 */
int	jobenv_set(char ***vars, int n, const char *name, const char *value);
const char *jobenv_get(char **vars, const char *name);

void	jobargs_free(char **words);

#endif
