/*
 * xfer.h: the names of files that travel with a vanilla job (its
 * transfer_input_files, transfer_output_files and
 * transfer_output_remaps), as condor_submit, the shadow and the starter
 * each check them.
 */
#ifndef XFER_H
#define XFER_H

#include <stddef.h>
#include <stdint.h>

#include <rpc/rpc.h>

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

/*
 * The transfer stream's frames (include/shadow_rpc.x): xfer_frame_send
 * writes OBJ encoded by PROC (at most 64 bytes) to FD; xfer_frame_recv
 * reads exactly LEN bytes from FD and decodes them into OBJ.  0, or -1
 * (the stream is unusable).  xfer_hello_send / xfer_hello_recv: the
 * capability that opens the stream, as an XDR string of at most MAX
 * bytes (OUT holds MAX + 1).
 */
int	  xfer_frame_send(int fd, xdrproc_t proc, void *obj);
int	  xfer_frame_recv(int fd, xdrproc_t proc, void *obj, size_t len);
int	  xfer_hello_send(int fd, const char *capability);
int	  xfer_hello_recv(int fd, char *out, size_t max);

/*
 * xfer_send_file: the first SIZE bytes of FD on the stream SOCK; *CRC
 * their CRC-32C.  xfer_recv_file: SIZE bytes from SOCK written to FD
 * (at its offset); *CRC their CRC-32C.  0, or -1 (the stream is
 * unusable; FD short).
 */
int	  xfer_send_file(int sock, int fd, long long size, uint32_t *crc);
int	  xfer_recv_file(int sock, int fd, long long size, uint32_t *crc);

#endif
