/*
 * model.h: network files (.bin.gz; man5 gt-model): read, write (atomic),
 * validate, random init, names and digests.
 *
 * A gt_model is the architecture, the training metadata and the flat
 * parameter array in file order (nn.h gt_arch_tensor); copy params into a
 * gt_nn with memcpy(gt_nn_params(nn), m->params, ...) and
 * gt_nn_sync_params.
 */
#ifndef GT_MODEL_H
#define GT_MODEL_H
#include <stddef.h>
#include <stdint.h>
#include "gt.h"
#include "nn.h"

#define GT_MODEL_MAGIC "GTNN"
#define GT_MODEL_VERSION 2               /* the newest; 1 is written when it suffices */
#define GT_MODEL_HEADER_BYTES 172        /* bytes before the parameters, version 1 */
#define GT_MODEL_HEADER2_BYTES 184       /* version 2: + global pooling, heads (nn.h GT_ARCH_*) */
#define GT_MODEL_MAX_PARAMS (1UL << 28)  /* refuse larger headers (1 GiB) */
#define GT_MODEL_SERIES_MAX 64           /* bytes of the series field, NUL included */

typedef struct gt_model_meta {
	uint64_t steps;            /* optimizer steps since the random init */
	uint64_t rows;             /* training rows seen */
	uint8_t parent[32];        /* sha256 of the parent file; all 0: none */
	char series[GT_MODEL_SERIES_MAX]; /* run name, [A-Za-z0-9._] */
} gt_model_meta;

typedef struct gt_model {
	gt_arch arch;
	gt_model_meta meta;
	size_t nparams;            /* gt_arch_nparams(&arch) */
	float *params;             /* nparams floats, owned by the model */
} gt_model;

/* gt_model_parse_arch: "b6c64" (blocks, channels; the inputs of feat.h,
 * the rest default as in gt_arch_default) into a; "b6c96g2": global
 * pooling blocks every 2 blocks (nn.h gt_arch_gpool_block) with
 * gt_arch_gpool_default channels, "b6c96g2p32" with 32; a final "a"
 * ("b2c16a", "b6c96g2a") adds the auxiliary policy head (heads bit
 * GT_ARCH_AUX_POLICY: the opponent's reply). The one parser
 * of architecture strings; gt_model_arch_name writes them.
 * Returns 0 or GT_EFORMAT (bad syntax or out of range, said in e). */
int gt_model_parse_arch(const char *s, gt_arch *a, gt_error *e);
/* gt_model_arch_name: a's string ("b6c64", "b6c96g2", "b6c96g2p20" when
 * the pooled channels are not the default, "b6c96g2a" with the auxiliary
 * policy head) into buf; returns buf. */
char *gt_model_arch_name(const gt_arch *a, char *buf, size_t size);
/* gt_model_version: the format version a file of a is written in: 1
 * without global pooling blocks and extra heads (the bytes of older
 * builds), else 2. */
int gt_model_version(const gt_arch *a);

/* gt_model_new: a model of architecture a with zero parameters and empty
 * metadata (series "gt"), or NULL with e filled on a bad architecture.
 * gt_model_new_random: the same with gt_arch_init_params(seed).
 * Free with gt_model_free. */
gt_model *gt_model_new(const gt_arch *a, gt_error *e);
gt_model *gt_model_new_random(const gt_arch *a, uint64_t seed, gt_error *e);
void gt_model_free(gt_model *m);

/* gt_model_check: 0 if every parameter is finite and the series is a valid
 * name, else GT_EFORMAT naming the first bad tensor in e. */
int gt_model_check(const gt_model *m, gt_error *e);

/* gt_model_read: read and validate a .bin.gz file (magic, version, sizes
 * from the header alone before any allocation larger than the data read
 * so far, exact parameter count, gzip CRC and end, finite values). On
 * success *out is a new model (caller frees). Errors: GT_EIO (cannot
 * open/read), GT_EFORMAT (not a model, corrupt or truncated), with the
 * reason and byte offset in e. Never crashes on hostile input. */
int gt_model_read(const char *path, gt_model **out, gt_error *e);

/* gt_model_validate: gt_model_read's checks on a file without keeping
 * the model (for gt-sync and gt-publish before installing a download).
 * If arch or meta are not NULL they receive the header's. Returns 0 or
 * gt_model_read's errors. */
int gt_model_validate(const char *path, gt_arch *arch, gt_model_meta *meta, gt_error *e);

/* gt_model_check_path: 0 if a model can be written to path: it is not
 * an existing non-regular file (device, directory) and its folder is
 * writable. GT_EINVAL or GT_EIO with the reason in e. Commands call it
 * before long work whose result goes there. */
int gt_model_check_path(const char *path, gt_error *e);

/* gt_model_write: write m to path atomically (temporary file in the same
 * directory, fsync, rename; a symbolic link is followed and the file it
 * names replaced). Returns 0, GT_EIO, GT_EINVAL (path is a device or a
 * directory: see gt_model_check_path) or GT_EFORMAT (m fails
 * gt_model_check). */
int gt_model_write(const char *path, const gt_model *m, gt_error *e);

/* gt_model_nn: a new network (nn.h) on backend (NULL: "cpu") holding a
 * copy of m's parameters. Refuses, with GT_EUNSUPPORTED in e, a model
 * whose inputs are not this build's features (feature version, planes,
 * global inputs of feat.h). Returns NULL on error; free with gt_nn_free.
 * gt_model_set_params: copy nn's parameters into m (same architecture;
 * GT_EINVAL otherwise), e.g. before gt_model_write after training. */
gt_nn *gt_model_nn(const gt_model *m, const char *backend, gt_error *e);
int gt_model_set_params(gt_model *m, gt_nn *nn);

/* gt_model_name: "<series>-b<blocks>c<channels>-s<steps>-d<rows>" into buf
 * (size bytes; 128 suffice). Returns buf. */
char *gt_model_name(const gt_model *m, char *buf, size_t size);

/* gt_model_name_number: the reverse for one field: the digits after
 * "-<tag>" in a name such as "run1-b6c64-s1200-d50000.bin.gz" (tag 's':
 * 1200, 'd': 50000), ended by '-', '.' or the end; the last such field
 * counts. -1 when there is none or it does not fit a long long. */
long long gt_model_name_number(const char *name, char tag);

/* gt_model_sha256_file: sha256 (OpenSSL EVP) of the file's bytes into
 * digest. Returns 0 or GT_EIO. gt_sha256_hex: 64 lowercase hex digits and
 * a NUL into hex (65 bytes); returns hex. */
int gt_model_sha256_file(const char *path, uint8_t digest[32], gt_error *e);
char *gt_sha256_hex(const uint8_t digest[32], char *hex);

#endif
