/*
 * npz.h: NumPy .npz files (a zip of .npy arrays) written and read without
 * Python, for the training shards (man5 gt-shard).
 *
 * Arrays are NPY format version 1.0 (numpy's format.rst: magic "\x93NUMPY",
 * version 1 0, a little-endian uint16 header length, then a Python dict
 * literal {'descr', 'fortran_order', 'shape'} padded with spaces and ended
 * by '\n' so that the data starts at a multiple of 64 bytes), C order,
 * little-endian. The zip (PKWARE APPNOTE.TXT 6.3) has one entry
 * "<name>.npy" per array, deflated (method 8, zlib raw deflate) with its
 * crc32, a central directory and an end-of-central-directory record; no
 * ZIP64, so a file stays under 4 GiB. numpy.load() reads what gt writes,
 * and gt reads what numpy.savez / savez_compressed write (stored or
 * deflated entries).
 */
#ifndef GT_NPZ_H
#define GT_NPZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "gt.h"

/* Element types (numpy descr): */
typedef enum gt_dtype {
	GT_U1 = 1, /* |u1  uint8 */
	GT_I1,     /* |i1  int8 */
	GT_I2,     /* <i2  int16 */
	GT_I4,     /* <i4  int32 */
	GT_I8,     /* <i8  int64 */
	GT_F4,     /* <f4  float32 */
	GT_F8,     /* <f8  float64 */
} gt_dtype;

#define GT_NPZ_MAXDIM 8

/* gt_dtype_size: bytes per element (0 for an unknown dtype).
 * gt_dtype_descr: numpy's descr string ("<f4"), static; "?" if unknown. */
size_t gt_dtype_size(gt_dtype t);
const char *gt_dtype_descr(gt_dtype t);

/* ---- writing ---- */

typedef struct gt_npz_writer gt_npz_writer;

/* gt_npz_writer_new: a writer that appends a zip to f (opened for writing,
 * positioned at 0; not closed by the writer). level is the zlib level
 * 0..9 (1 is fast and shrinks policy targets 5-12x; 0 still deflates, as
 * "stored" blocks). The caller frees the writer with gt_npz_writer_free. */
gt_npz_writer *gt_npz_writer_new(FILE *f, int level);

/* gt_npz_add: add array name (written as "<name>.npy"; 1..200 bytes of
 * [A-Za-z0-9_]) of ndim (0..GT_NPZ_MAXDIM) dimensions shape[], elements of
 * type t in C order at data (little-endian host layout; borrowed, read
 * during the call only). Returns 0, GT_EINVAL (bad name, dtype, shape,
 * duplicate name, or the zip would pass 4 GiB) or GT_EIO (errno kept). */
int gt_npz_add(gt_npz_writer *w, const char *name, gt_dtype t, int ndim,
               const int64_t *shape, const void *data, gt_error *e);

/* gt_npz_finish: write the central directory and end record and flush f
 * (no fsync: that is the caller's, on its own descriptor). If sha256 is not
 * NULL it receives the SHA-256 of every byte written (32 bytes), and if
 * bytes is not NULL the file's length. Returns 0 or GT_EIO. */
int gt_npz_finish(gt_npz_writer *w, unsigned char sha256[32], uint64_t *bytes, gt_error *e);

/* gt_npz_writer_free: free w (NULL is fine); f stays open. */
void gt_npz_writer_free(gt_npz_writer *w);

/* ---- reading ---- */

typedef struct gt_npz gt_npz;

/* An array's description; load fills data too. */
typedef struct gt_npz_array {
	char name[208];          /* without ".npy" */
	gt_dtype dtype;
	int ndim;
	int64_t shape[GT_NPZ_MAXDIM];
	int64_t count;           /* product of shape (1 for ndim 0) */
	void *data;              /* gt_npz_load: count elements, C order,
	                            owned by the caller (free()); else NULL */
} gt_npz_array;

/* gt_npz_open: open a .npz file and read its directory and the NPY header
 * of every entry, checking the zip structure, entry names (".npy" only)
 * and headers (dtype one of gt_dtype, C order, little-endian, data size
 * matching the entry size). The whole file is read into memory (shards
 * are tens of MB), so later changes to the file do not matter. Returns a
 * new handle (caller frees with
 * gt_npz_close) or NULL with e filled: GT_EIO when the file cannot be
 * read, GT_EFORMAT for anything malformed (e->offset where), GT_EUNSUPPORTED
 * for a valid zip gt does not read (ZIP64, encryption, other methods,
 * Fortran order, big-endian or other dtypes). */
gt_npz *gt_npz_open(const char *path, gt_error *e);
void gt_npz_close(gt_npz *z);

/* gt_npz_sha256: SHA-256 of the whole file as it was read by gt_npz_open
 * (the bytes the arrays are loaded from) into out (32 bytes). */
void gt_npz_sha256(const gt_npz *z, unsigned char out[32]);

/* gt_npz_count: number of arrays; gt_npz_info: description of array i
 * (0-based, directory order; data NULL) into *a. Returns 0 or GT_EINVAL. */
int gt_npz_count(const gt_npz *z);
int gt_npz_info(const gt_npz *z, int i, gt_npz_array *a);
/* gt_npz_find: index of the array called name, or GT_ENOTFOUND. */
int gt_npz_find(const gt_npz *z, const char *name);

/* gt_npz_load: read, inflate and check (crc32, sizes) array name into *a;
 * a->data is a new buffer of a->count elements owned by the caller.
 * Returns 0, GT_ENOTFOUND, GT_EIO, GT_EFORMAT (truncated or corrupt
 * deflate data) or GT_ECHECKSUM (crc32 mismatch); a->data is NULL on error. */
int gt_npz_load(gt_npz *z, const char *name, gt_npz_array *a, gt_error *e);

/* gt_npz_load_as: gt_npz_load, then require dtype t and ndim dimensions
 * whose sizes equal shape[d] where shape[d] >= 0 (-1: any; the sizes found
 * are written back into shape). GT_EFORMAT (naming the array) on a
 * mismatch. */
int gt_npz_load_as(gt_npz *z, const char *name, gt_dtype t, int ndim, int64_t *shape,
                   gt_npz_array *a, gt_error *e);

#endif
