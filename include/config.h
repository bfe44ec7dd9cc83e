/*
 * config.h: the Condor configuration (condor_config(5)).
 *
 * Files are found in this order: $CONDOR_CONFIG, /etc/condor/condor_config,
 * ~condor/condor_config, $(RELEASE_DIR)/etc/condor_config; then
 * LOCAL_CONFIG_FILE, if it exists, is read and its definitions win.
 *
 *   NAME = text        a macro, expanded wherever $(NAME) appears
 *   NAME : expression  a control expression, stored with macros expanded
 *
 * Names are case-insensitive, a later definition replaces an earlier one,
 * '#' starts a comment, a trailing '\' continues a line, $ENV(VAR) expands
 * an environment variable.  Every known setting has a default in one table
 * (config_table.c); a name not in the files falls back to that default.
 *
 * Both kinds are expanded when asked for (param), not when read, so that a
 * local file redefining MINUTE shortens a START written in $(MINUTE).
 */
#ifndef CONDOR_CONFIG_H
#define CONDOR_CONFIG_H

#include <stdio.h>

/* One row of the table of known settings. */
struct config_default {
	const char	*name;
	const char	*value;		/* default (macros allowed) or NULL */
	const char	*meaning;	/* one line */
	int		 is_expr;	/* written with ':', an expression */
};

extern const struct config_default config_defaults[];	/* NULL-terminated */
/*
 * What a personal pool has instead of config_defaults' value (see
 * config_personal): the same names, NULL-terminated.
 */
extern const struct config_default config_personal_defaults[];

/*
 * config_init: forget everything, then locate and read the configuration
 * as above.  Returns 0, or -1 with a message "file:line: what" in ERR.
 * A missing file is not an error unless $CONDOR_CONFIG names it; with no
 * file at all the defaults alone describe a personal pool.  On error the
 * previous configuration stays in force, untouched (a daemon's SIGHUP).
 * config_init also makes param the expression module's fallback.
 */
int	 config_init(char *err, size_t errlen);

/*
 * config_warnings: the control expressions (':') of the files that do
 * not parse, one "file:line: NAME: bad expression ...: why" line each,
 * or NULL.  They do not make config_init fail: each daemon treats a bad
 * policy by its own rule (START as FALSE, SUSPEND as TRUE...).
 */
const char *config_warnings(void);

/* config_read_file: read one more file over what is defined (tests). */
int	 config_read_file(const char *path, char *err, size_t errlen);

/* config_set: define NAME = VALUE (or NAME : VALUE when IS_EXPR). */
void	 config_set(const char *name, const char *value, int is_expr);

/*
 * config_personal: whether the configuration describes a personal pool:
 * no file (none at all, or one such as the release's etc/condor_config)
 * sets CONDOR_HOST or COLLECTOR_HOST.  Its settings that no file
 * defines then take config_personal_defaults' values: the collector on
 * any free port, found through its address file, and a START that
 * takes the jobs of the user running the pool at once.
 */
int	 config_personal(void);

/* The file the configuration came from ("" if none), and the local one. */
const char *config_main_file(void);
const char *config_local_file(void);

/*
 * param: NAME's value with every $(X) and $ENV(X) expanded, from the files
 * or else the table's default; NULL if defined nowhere.  The string stays
 * valid until the next config_init/config_set.  param_is_expr tells
 * whether the definition used ':'.
 */
const char *param(const char *name);
int	 param_is_expr(const char *name);
/* Typed getters; DFLT is used when NAME is undefined or does not parse
 * (the latter is logged with log_warnx). */
long	 param_int(const char *name, long dflt);
double	 param_double(const char *name, double dflt);
int	 param_bool(const char *name, int dflt);

/*
 * config_expand: expand $(NAME) and $ENV(X) in TEXT.  Returns a fresh
 * string, or NULL with a message in ERR (unknown macro is expanded to
 * the empty string, not an error; recursion is an error).
 */
char	*config_expand(const char *text, char *err, size_t errlen);

/*
 * config_dump: print every defined setting, "NAME = value" (or "NAME :
 * value"), sorted by name, with macros expanded; config_dump_defaults
 * prints the table, one "NAME = default  # meaning" line each.
 */
void	 config_dump(FILE *);
void	 config_dump_defaults(FILE *);

/* Where bin/ sbin/ lib/ etc/ are: RELEASE_DIR or the running program's
 * tree (the directory above the one holding /proc/self/exe). */
const char *config_release_dir(void);

/*
 * config_raw: NAME's definition as written, before expansion, or NULL if
 * it is defined nowhere.  *FILE (if FILE is not NULL) is set to the file
 * and *LINE to the line that defined it; *FILE is NULL for the table's
 * default, for config_set and for an undefined NAME.  The strings stay
 * valid until the next config_init/config_set.
 */
const char *config_raw(const char *name, const char **file, int *line);
/* config_where: whether NAME is defined, and where, as config_raw says,
 * without computing a computed default (EXECUTE_USER looks the user
 * database up). */
int	 config_where(const char *name, const char **file, int *line);

/*
 * config_source: the I-th file read since config_init, the main file
 * first, then each local file, then any config_read_file; NULL past the
 * last.
 */
const char *config_source(size_t i);

/* Bounds on expansion, so that no configuration can exhaust memory or time. */
#define CONFIG_MAX_DEPTH	64	/* macros nested in macros */
#define CONFIG_MAX_SUBST	10000	/* macros expanded in one value */
#define CONFIG_MAX_VALUE	(1024 * 1024)	/* bytes of an expanded value */
#define CONFIG_MAX_FILE	(16 * 1024 * 1024)	/* bytes of one file */

#endif
