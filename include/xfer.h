/*
 * xfer.h: the names of files that travel with a vanilla job (its
 * transfer_input_files, transfer_output_files and
 * transfer_output_remaps), as condor_submit, the shadow and the starter
 * each check them.
 */
#ifndef XFER_H
#define XFER_H

#include <stddef.h>

/* Bytes of one name below the job's directory, its NUL included. */
#define XFER_NAME_LEN	1024

/*
 * xfer_list_split: the items of a file list (separated by commas and
 * white space), in *N; NULL and *N 0 when there are none.  Free with
 * xfer_list_free.
 */
char	**xfer_list_split(const char *text, size_t *n);
void	  xfer_list_free(char **items, size_t n);

/*
 * xfer_name_ok: whether NAME may name a file inside a job's directory:
 * relative, shorter than XFER_NAME_LEN, no empty, "." or ".."
 * component, no control character.
 */
int	  xfer_name_ok(const char *name);

/* One rule of transfer_output_remaps: the output NAME goes to TO. */
struct xfer_remap {
	char	*name;
	char	*to;
};

/*
 * xfer_remaps_parse: TEXT ("name = to; name2 = to2", the whole in
 * double quotes or not) into *OUT, *N rules; 0, or -1 with ERR saying
 * why.  Free with xfer_remaps_free.
 */
int	  xfer_remaps_parse(const char *text, struct xfer_remap **out,
	    size_t *n, char *err, size_t errlen);
void	  xfer_remaps_free(struct xfer_remap *r, size_t n);

#endif
