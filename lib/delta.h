/*
 * delta.h: pseudo-gradients of Decoupled DiLoCo learning units, their
 * compression and their wire format (man5 gt-delta).
 *
 * A learning unit starts from the global parameters theta_base of version
 * v, runs H inner steps and sends delta = theta_base - theta_unit, the
 * "outer gradient" of DiLoCo (Douillard et al., arXiv 2311.08105, Alg. 1)
 * as used by Decoupled DiLoCo (arXiv 2604.21428). Parameters are one flat
 * float32 vector of P values; this module never looks inside it.
 *
 * Codecs (payload layouts in gt-delta(5)):
 *   fp32  4 bytes per value, exact.
 *   bf16  2 bytes, the top half of the float32 rounded to nearest even;
 *         |x - dec| <= 2^-8 |x| for normal values.
 *   int8  blocks of 256 values, each a float32 scale = absmax of the block
 *         then q = round(x / scale * 127) in -127..127;
 *         |x - dec| <= scale/254. The default.
 *   int4  the same with q = round(x / scale * 7) in -7..7, two per byte
 *         (first value in the low nibble); |x - dec| <= scale/14.
 * "round" is round half to even (lrintf in the default rounding mode).
 *
 * Error feedback (1-bit SGD, Seide et al. 2014; EF-SGD, Karimireddy et
 * al. 2019): the unit keeps the residual r of what compression lost and
 * sends C(delta + r), then r = delta + r - D(C(delta + r)); the sum of
 * decoded deltas then trails the sum of true ones by the last r only.
 */
#ifndef GT_DELTA_H
#define GT_DELTA_H
#include <stddef.h>
#include <stdint.h>

#include "gt.h"

enum gt_delta_codec {
	GT_DELTA_FP32 = 0,
	GT_DELTA_BF16 = 1,
	GT_DELTA_INT8 = 2,
	GT_DELTA_INT4 = 3,
};
#define GT_DELTA_NCODECS 4
#define GT_DELTA_DEFAULT_CODEC GT_DELTA_INT8
#define GT_DELTA_BLOCK 256            /* values per int8/int4 scale */

enum gt_delta_sum {                   /* checksum of header + payload */
	GT_DELTA_SHA256 = 0,          /* 32 bytes, the default */
	GT_DELTA_CRC32 = 1,           /* 4 bytes, zlib crc32, little-endian */
};

#define GT_DELTA_MAGIC "gtdelta\n"    /* 8 bytes */
#define GT_DELTA_FORMAT 1             /* format version */
#define GT_DELTA_HEADER_BYTES 168     /* fixed header, see gt-delta(5) */
#define GT_DELTA_UNIT_MAX 63          /* unit id: 1..63 bytes of [A-Za-z0-9._-] */
#define GT_DELTA_MAX_PARAMS ((uint64_t)1 << 31) /* readers refuse more */
#define GT_DELTA_SIG_BYTES 128        /* signature trailer: Ed25519, 128 hex digits */

/* The header of a serialized delta. Plain data, caller-owned. */
typedef struct gt_delta_hdr {
	uint64_t base_version;        /* v: the global version the unit started from */
	uint8_t base_sha256[32];      /* sha256 of that version's parameters (gt_delta_params_sha256) */
	char unit[GT_DELTA_UNIT_MAX + 1]; /* unit id, NUL-terminated */
	uint64_t generation;          /* random per unit process (gt_delta_new_generation) */
	uint64_t seq;                 /* 0, 1, 2, ... within one generation */
	uint64_t inner_steps;         /* H */
	uint64_t samples;             /* training samples behind this delta (H x batch) */
	int codec;                    /* enum gt_delta_codec */
	int sum;                      /* enum gt_delta_sum */
	uint64_t nparams;             /* P */
	int sig;                      /* 1: signed (flag bit 0); a signature trailer
	                               * of GT_DELTA_SIG_BYTES follows the checksum */
} gt_delta_hdr;

/* gt_delta_codec_name: "fp32", "bf16", "int8", "int4"; NULL for an
 * unknown codec. Static storage. */
const char *gt_delta_codec_name(int codec);
/* gt_delta_codec_parse: the codec named s, or GT_EINVAL. */
int gt_delta_codec_parse(const char *s);

/* gt_delta_payload_bytes: bytes of a codec's payload for n values:
 * fp32 4n, bf16 2n, int8 n + 4*ceil(n/256), int4 ceil(n/2) + 4*ceil(n/256).
 * 0 for an unknown codec. */
uint64_t gt_delta_payload_bytes(int codec, uint64_t n);
/* gt_delta_bytes_per_param: the same per value for large n (4, 2,
 * 1 + 4/256, 0.5 + 4/256); 0 for an unknown codec. */
double gt_delta_bytes_per_param(int codec);
/* gt_delta_sum_bytes: 32 for sha256, 4 for crc32, 0 if unknown. */
size_t gt_delta_sum_bytes(int sum);
/* gt_delta_packed_bytes: header + payload + checksum (+ signature when
 * h->sig) of a whole serialized delta for h->codec, h->sum and
 * h->nparams; 0 if invalid. */
uint64_t gt_delta_packed_bytes(const gt_delta_hdr *h);

/* gt_delta_compute: delta[i] = base[i] - unit[i] for i < n (the DiLoCo
 * outer gradient). delta may alias base or unit. */
void gt_delta_compute(const float *base, const float *unit, size_t n, float *delta);

/* gt_delta_params_sha256: sha256 of n float32 values as little-endian
 * bytes, into out[32]: the "base sha256" a unit puts in its header and
 * the outer optimizer checks. Returns 0, or GT_EIO if OpenSSL fails. */
int gt_delta_params_sha256(const float *theta, size_t n, uint8_t out[32]);

/* gt_delta_new_generation: a random non-zero 64-bit generation id from
 * getrandom(2), one per unit process, so a restarted unit never repeats
 * (unit, generation, seq). Returns 0 or GT_EIO. */
int gt_delta_new_generation(uint64_t *gen);

/* gt_delta_encode: compress x[n] with codec into out, which holds
 * cap >= gt_delta_payload_bytes(codec, n) bytes. If dec is not NULL it
 * receives the decoded values dec[n] (what a reader will get).
 * Returns 0; GT_EINVAL for an unknown codec, a short buffer, or a
 * non-finite value (or one that overflows bf16). */
int gt_delta_encode(int codec, const float *x, size_t n, uint8_t *out, size_t cap,
		float *dec);
/* gt_delta_decode: expand a payload of exactly len bytes holding n values
 * into out[n]. Returns 0; GT_EINVAL for an unknown codec; GT_EFORMAT if
 * len is not gt_delta_payload_bytes(codec, n), a scale is negative or not
 * finite, a code is out of range (int8 -128, int4 -8) or a value is not
 * finite. e (may be NULL) says where. */
int gt_delta_decode(int codec, const uint8_t *in, size_t len, size_t n, float *out,
		gt_error *e);

/* Error-feedback encoder state of one unit: the residual r[n], zero at
 * first. Opaque; gt_delta_ef_new returns a new object that the caller
 * frees with gt_delta_ef_free. */
typedef struct gt_delta_ef gt_delta_ef;
gt_delta_ef *gt_delta_ef_new(int codec, size_t n);
void gt_delta_ef_free(gt_delta_ef *ef);
/* gt_delta_ef_encode: encode c = delta + r into out (as gt_delta_encode),
 * then set r = c - D(out). dec (may be NULL) receives D(out)[n]. delta has
 * ef's n values. On error r is unchanged. */
int gt_delta_ef_encode(gt_delta_ef *ef, const float *delta, uint8_t *out, size_t cap,
		float *dec);
/* gt_delta_ef_residual: the current residual r[n] (borrowed, read-only). */
const float *gt_delta_ef_residual(const gt_delta_ef *ef);
size_t gt_delta_ef_size(const gt_delta_ef *ef);
int gt_delta_ef_codec(const gt_delta_ef *ef);

/* gt_delta_pack: serialize header h and delta[h->nparams] (compressed with
 * h->codec, through ef when ef is not NULL, which must then have the same
 * codec and size) into out[cap], cap >= gt_delta_packed_bytes(h); *len
 * gets the bytes written. With h->sig the signature trailer is left as
 * zeros for gt_delta_sign. Returns 0, GT_EINVAL (bad header field, short
 * buffer, bad value; e says which) or GT_EIO (OpenSSL). */
int gt_delta_pack(const gt_delta_hdr *h, const float *delta, gt_delta_ef *ef,
		uint8_t *out, size_t cap, size_t *len, gt_error *e);

/* gt_delta_read_header: parse and check the fixed header at the start of
 * buf[len] (len >= GT_DELTA_HEADER_BYTES; the rest may be absent) into h,
 * and put the total size the header claims into *total (may be NULL).
 * Nothing is allocated: a caller reading a file or a socket reads the
 * header, checks *total against what it can hold, then reads the rest.
 * Returns 0; GT_EFORMAT for a short buffer, wrong magic, unknown format
 * version, codec or checksum kind, non-zero reserved bytes, a bad unit id,
 * nparams of 0 or over GT_DELTA_MAX_PARAMS, or a payload size that does
 * not match the codec; GT_EUNSUPPORTED for a newer format version. */
int gt_delta_read_header(const uint8_t *buf, size_t len, gt_delta_hdr *h,
		uint64_t *total, gt_error *e);

/* gt_delta_unpack: check and decode a whole serialized delta buf[len]:
 * header (as gt_delta_read_header), exact length, checksum, payload. h
 * receives the header; out receives h->nparams values and must hold cap
 * >= that many (call gt_delta_read_header first to learn the count).
 * Returns 0; GT_EFORMAT (malformed or truncated: e->offset says where),
 * GT_ECHECKSUM (checksum mismatch), GT_EINVAL (cap too small). */
int gt_delta_unpack(const uint8_t *buf, size_t len, gt_delta_hdr *h, float *out,
		size_t cap, gt_error *e);

/* gt_delta_sign_message: the text a delta's signature is of, for the
 * header and payload at the start of buf (len >= header + payload, as
 * the header says): "gt-delta-sig-v1\n" and the sha256 of the 168-byte
 * header and the payload in 64 lowercase hex digits and "\n" (82 bytes)
 * into msg, which holds GT_DELTA_SIG_MSG bytes. The header covers every
 * field (base version and sha256, unit, generation, seq, samples, the
 * signed flag), so nothing of it can be changed under a signature.
 * Returns 0, GT_EFORMAT (a bad header or short buffer) or GT_EIO. */
#define GT_DELTA_SIG_MSG 96
int gt_delta_sign_message(const uint8_t *buf, size_t len, char msg[GT_DELTA_SIG_MSG],
		size_t *msglen, gt_error *e);

/* gt_delta_sign: sign the packed delta buf[len] (packed with h->sig) with
 * the Ed25519 private key in the PEM file keyfile (lib/sign.h): its
 * trailer receives the signature in hex. Returns 0, GT_EINVAL (not packed
 * for a signature), or gt_sign's errors. */
int gt_delta_sign(uint8_t *buf, size_t len, const char *keyfile, gt_error *e);

/* gt_delta_verify: 0 when buf[len] is a whole signed delta whose
 * signature is valid under the Ed25519 public key in the PEM file
 * pubfile; GT_EFORMAT (malformed, or not signed), GT_ECHECKSUM (a bad
 * signature), GT_EIO or GT_EFORMAT for the key (gt_sign_verify). The
 * checksum and payload are checked by gt_delta_unpack, not here. */
int gt_delta_verify(const uint8_t *buf, size_t len, const char *pubfile, gt_error *e);

/* gt_delta_save_signed: gt_delta_save, with keyfile (may be NULL: not
 * signed) signing the delta (h->sig is then taken as 1). */
int gt_delta_save_signed(const char *path, const gt_delta_hdr *h, const float *delta,
		gt_delta_ef *ef, const char *keyfile, gt_error *e);

/* gt_delta_save: pack h and delta as gt_delta_pack does and write the
 * result to path atomically (a temporary file in the same directory,
 * fsync, rename, fsync of the directory). Returns 0, an error of
 * gt_delta_pack, or GT_EIO (errno kept; the temporary file is removed). */
int gt_delta_save(const char *path, const gt_delta_hdr *h, const float *delta,
		gt_delta_ef *ef, gt_error *e);

/* gt_delta_load: read and check the delta file at path: its header first,
 * whose claimed size must equal the file's size (so nothing is allocated
 * for a header that lies), then the whole file as gt_delta_unpack does.
 * On success h is filled and *delta is a new array of h->nparams floats
 * the caller frees. Returns 0, GT_EIO, or an error of gt_delta_unpack;
 * *delta is NULL on error. */
int gt_delta_load(const char *path, gt_delta_hdr *h, float **delta, gt_error *e);

#endif
