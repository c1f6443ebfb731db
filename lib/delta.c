/* delta.c: DiLoCo pseudo-gradients, their codecs and wire format. */
#include "delta.h"
#include "sign.h"
#include "fs.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <zlib.h>
#include <openssl/evp.h>

/* Header offsets (gt-delta(5)). */
enum {
	OFF_MAGIC = 0, OFF_FORMAT = 8, OFF_CODEC = 12, OFF_SUM = 13, OFF_RESERVED = 14,
	OFF_VERSION = 16, OFF_SHA = 24, OFF_GEN = 56, OFF_SEQ = 64, OFF_STEPS = 72,
	OFF_SAMPLES = 80, OFF_NPARAMS = 88, OFF_PAYLOAD = 96, OFF_UNIT = 104,
	UNIT_FIELD = 64,
};
_Static_assert(OFF_UNIT + UNIT_FIELD == GT_DELTA_HEADER_BYTES, "header layout");

static uint32_t fbits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float bitsf(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

const char *gt_delta_codec_name(int codec)
{
	static const char *names[GT_DELTA_NCODECS] = { "fp32", "bf16", "int8", "int4" };
	return codec >= 0 && codec < GT_DELTA_NCODECS ? names[codec] : NULL;
}

int gt_delta_codec_parse(const char *s)
{
	for (int c = 0; c < GT_DELTA_NCODECS; c++)
		if (s && strcmp(s, gt_delta_codec_name(c)) == 0)
			return c;
	return GT_EINVAL;
}

uint64_t gt_delta_payload_bytes(int codec, uint64_t n)
{
	uint64_t blocks = (n + GT_DELTA_BLOCK - 1) / GT_DELTA_BLOCK;
	switch (codec) {
	case GT_DELTA_FP32: return 4 * n;
	case GT_DELTA_BF16: return 2 * n;
	case GT_DELTA_INT8: return n + 4 * blocks;
	case GT_DELTA_INT4: return (n + 1) / 2 + 4 * blocks;
	}
	return 0;
}

double gt_delta_bytes_per_param(int codec)
{
	switch (codec) {
	case GT_DELTA_FP32: return 4;
	case GT_DELTA_BF16: return 2;
	case GT_DELTA_INT8: return 1 + 4.0 / GT_DELTA_BLOCK;
	case GT_DELTA_INT4: return 0.5 + 4.0 / GT_DELTA_BLOCK;
	}
	return 0;
}

size_t gt_delta_sum_bytes(int sum)
{
	return sum == GT_DELTA_SHA256 ? 32 : sum == GT_DELTA_CRC32 ? 4 : 0;
}

uint64_t gt_delta_packed_bytes(const gt_delta_hdr *h)
{
	uint64_t pay = gt_delta_payload_bytes(h->codec, h->nparams);
	size_t sum = gt_delta_sum_bytes(h->sum);
	if (!pay || !sum || h->nparams > GT_DELTA_MAX_PARAMS)
		return 0;
	return GT_DELTA_HEADER_BYTES + pay + sum + (h->sig ? GT_DELTA_SIG_BYTES : 0);
}

void gt_delta_compute(const float *base, const float *unit, size_t n, float *delta)
{
	for (size_t i = 0; i < n; i++)
		delta[i] = base[i] - unit[i];
}

static int sha256(const uint8_t *p, size_t n, uint8_t out[32])
{
	unsigned len = 0;
	int ok = EVP_Digest(p, n, out, &len, EVP_sha256(), NULL);
	return ok && len == 32 ? 0 : GT_EIO;
}

int gt_delta_params_sha256(const float *theta, size_t n, uint8_t out[32])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	uint8_t buf[4096];
	unsigned len = 0;
	int ok;
	if (!ctx)
		return GT_EIO;
	ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	for (size_t i = 0; ok && i < n; ) {
		size_t k = 0;
		for (; i < n && k < sizeof buf; i++, k += 4)
			gt_le_putf(buf + k, theta[i]);
		ok = EVP_DigestUpdate(ctx, buf, k);
	}
	ok = ok && EVP_DigestFinal_ex(ctx, out, &len) && len == 32;
	EVP_MD_CTX_free(ctx);
	return ok ? 0 : GT_EIO;
}

int gt_delta_new_generation(uint64_t *gen)
{
	uint64_t g = 0;
	while (g == 0) {
		ssize_t r = getrandom(&g, sizeof g, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r != (ssize_t)sizeof g)
			return GT_EIO;
	}
	*gen = g;
	return 0;
}

/* bf16 of a finite float, round to nearest even; 0 with *inf set if the
 * result would overflow to infinity. */
static uint16_t to_bf16(float x, int *inf)
{
	uint32_t u = fbits(x);
	u += 0x7fff + ((u >> 16) & 1);
	if ((u & 0x7f800000) == 0x7f800000)
		*inf = 1;
	return (uint16_t)(u >> 16);
}

static float from_bf16(uint16_t h)
{
	return bitsf((uint32_t)h << 16);
}

/* One int8/int4 block: k values, levels 127 or 7. Writes the scale and
 * the codes; dec (may be NULL) gets the decoded values. */
static void enc_block(const float *x, size_t k, int levels, uint8_t *out, float *dec)
{
	float scale = 0;
	for (size_t i = 0; i < k; i++) {
		float a = fabsf(x[i]);
		scale = a > scale ? a : scale;
	}
	gt_le_putf(out, scale);
	out += 4;
	if (levels == 7)
		memset(out, 0, (k + 1) / 2);
	for (size_t i = 0; i < k; i++) {
		/* |v| <= levels: adding and taking away 1.5 * 2^23 rounds it to an
		 * integer, half to even (the default rounding mode), as lrintf */
		float v = scale > 0 ? x[i] / scale * (float)levels : 0;
		long q = (long)((v + 12582912.0f) - 12582912.0f);
		if (q > levels)
			q = levels;
		if (q < -levels)
			q = -levels;
		if (levels == 127)
			out[i] = (uint8_t)(int8_t)q;
		else
			out[i / 2] |= (uint8_t)((q & 0xf) << (4 * (i & 1)));
		if (dec)
			dec[i] = (float)q * scale / (float)levels;
	}
}

int gt_delta_encode(int codec, const float *x, size_t n, uint8_t *out, size_t cap,
		float *dec)
{
	uint64_t need = gt_delta_payload_bytes(codec, n);
	if (!gt_delta_codec_name(codec) || cap < need)
		return GT_EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return GT_EINVAL;
	switch (codec) {
	case GT_DELTA_FP32:
		for (size_t i = 0; i < n; i++)
			gt_le_putf(out + 4 * i, x[i]);
		if (dec && dec != x)
			memcpy(dec, x, n * sizeof *x);
		return 0;
	case GT_DELTA_BF16: {
		int inf = 0;
		for (size_t i = 0; i < n; i++) {
			uint16_t h = to_bf16(x[i], &inf);
			out[2 * i] = (uint8_t)h;
			out[2 * i + 1] = (uint8_t)(h >> 8);
		}
		if (inf)
			return GT_EINVAL;
		if (dec)
			for (size_t i = 0; i < n; i++)
				dec[i] = from_bf16((uint16_t)(out[2 * i] | out[2 * i + 1] << 8));
		return 0;
	}
	default: {
		int levels = codec == GT_DELTA_INT8 ? 127 : 7;
		for (size_t b = 0; b < n; b += GT_DELTA_BLOCK) {
			size_t k = n - b < GT_DELTA_BLOCK ? n - b : GT_DELTA_BLOCK;
			enc_block(x + b, k, levels, out, dec ? dec + b : NULL);
			out += 4 + (levels == 127 ? k : (k + 1) / 2);
		}
		return 0;
	}
	}
}

int gt_delta_decode(int codec, const uint8_t *in, size_t len, size_t n, float *out,
		gt_error *e)
{
	if (!gt_delta_codec_name(codec))
		return gt_error_set(e, GT_EINVAL, -1, -1, "unknown codec %d", codec);
	if (len != gt_delta_payload_bytes(codec, n))
		return gt_error_set(e, GT_EFORMAT, -1, (long)len,
			"%s payload of %zu values is %llu bytes, not %zu",
			gt_delta_codec_name(codec), n,
			(unsigned long long)gt_delta_payload_bytes(codec, n), len);
	switch (codec) {
	case GT_DELTA_FP32:
	case GT_DELTA_BF16:
		for (size_t i = 0; i < n; i++) {
			out[i] = codec == GT_DELTA_FP32 ? gt_le_getf(in + 4 * i)
				: from_bf16((uint16_t)(in[2 * i] | in[2 * i + 1] << 8));
			if (!isfinite(out[i]))
				return gt_error_set(e, GT_EFORMAT, -1,
					(long)(i * (codec == GT_DELTA_FP32 ? 4 : 2)),
					"value %zu is not finite", i);
		}
		return 0;
	default: {
		int levels = codec == GT_DELTA_INT8 ? 127 : 7;
		const uint8_t *p = in;
		for (size_t b = 0; b < n; b += GT_DELTA_BLOCK) {
			size_t k = n - b < GT_DELTA_BLOCK ? n - b : GT_DELTA_BLOCK;
			float scale = gt_le_getf(p);
			if (!isfinite(scale) || scale < 0)
				return gt_error_set(e, GT_EFORMAT, -1, (long)(p - in),
					"block %zu: bad scale", b / GT_DELTA_BLOCK);
			p += 4;
			for (size_t i = 0; i < k; i++) {
				int q;
				if (levels == 127)
					q = (int8_t)p[i];
				else {
					q = (p[i / 2] >> (4 * (i & 1))) & 0xf;
					q = q >= 8 ? q - 16 : q;
				}
				if (q < -levels)
					return gt_error_set(e, GT_EFORMAT, -1, (long)(p - in),
						"value %zu: code %d out of range", b + i, q);
				out[b + i] = (float)q * scale / (float)levels;
			}
			p += levels == 127 ? k : (k + 1) / 2;
		}
		return 0;
	}
	}
}

struct gt_delta_ef {
	int codec;
	size_t n;
	float *r;    /* residual */
	float *c;    /* scratch: delta + r, then decoded */
};

gt_delta_ef *gt_delta_ef_new(int codec, size_t n)
{
	gt_delta_ef *ef;
	if (!gt_delta_codec_name(codec))
		return NULL;
	ef = gt_xcalloc(1, sizeof *ef);
	ef->codec = codec;
	ef->n = n;
	ef->r = gt_xcalloc(n, sizeof *ef->r);
	ef->c = gt_xcalloc(n, sizeof *ef->c);
	return ef;
}

void gt_delta_ef_free(gt_delta_ef *ef)
{
	if (!ef)
		return;
	gt_free_all(ef->r, ef->c, ef);
}

int gt_delta_ef_encode(gt_delta_ef *ef, const float *delta, uint8_t *out, size_t cap,
		float *dec)
{
	float *d = dec ? dec : gt_xmalloc(ef->n * sizeof *d);
	int rc;
	for (size_t i = 0; i < ef->n; i++)
		ef->c[i] = delta[i] + ef->r[i];
	rc = gt_delta_encode(ef->codec, ef->c, ef->n, out, cap, d);
	if (rc == 0)
		for (size_t i = 0; i < ef->n; i++)
			ef->r[i] = ef->c[i] - d[i];
	if (d != dec)
		free(d);
	return rc;
}

const float *gt_delta_ef_residual(const gt_delta_ef *ef)
{
	return ef->r;
}

size_t gt_delta_ef_size(const gt_delta_ef *ef)
{
	return ef->n;
}

int gt_delta_ef_codec(const gt_delta_ef *ef)
{
	return ef->codec;
}

static int unit_ok(const char *u, size_t n)
{
	if (n == 0 || n > GT_DELTA_UNIT_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = u[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
				|| c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

static int checksum(int sum, const uint8_t *p, size_t n, uint8_t *out)
{
	if (sum == GT_DELTA_SHA256)
		return sha256(p, n, out);
	gt_le_put32(out, (uint32_t)crc32_z(0, p, n));
	return 0;
}

int gt_delta_pack(const gt_delta_hdr *h, const float *delta, gt_delta_ef *ef,
		uint8_t *out, size_t cap, size_t *len, gt_error *e)
{
	uint64_t total = gt_delta_packed_bytes(h), pay;
	size_t ulen = strnlen(h->unit, sizeof h->unit);
	int rc;
	if (!total)
		return gt_error_set(e, GT_EINVAL, -1, -1,
			"bad codec %d, checksum kind %d or parameter count %llu",
			h->codec, h->sum, (unsigned long long)h->nparams);
	if (!unit_ok(h->unit, ulen))
		return gt_error_set(e, GT_EINVAL, -1, -1, "bad unit id");
	if (cap < total)
		return gt_error_set(e, GT_EINVAL, -1, -1, "buffer of %zu bytes, need %llu",
			cap, (unsigned long long)total);
	if (ef && (ef->codec != h->codec || ef->n != h->nparams))
		return gt_error_set(e, GT_EINVAL, -1, -1, "error-feedback state does not match");
	pay = gt_delta_payload_bytes(h->codec, h->nparams);
	memset(out, 0, GT_DELTA_HEADER_BYTES);
	memcpy(out + OFF_MAGIC, GT_DELTA_MAGIC, 8);
	gt_le_put32(out + OFF_FORMAT, GT_DELTA_FORMAT);
	out[OFF_CODEC] = (uint8_t)h->codec;
	out[OFF_SUM] = (uint8_t)h->sum;
	out[OFF_RESERVED] = h->sig ? 1 : 0;
	gt_le_put64(out + OFF_VERSION, h->base_version);
	memcpy(out + OFF_SHA, h->base_sha256, 32);
	gt_le_put64(out + OFF_GEN, h->generation);
	gt_le_put64(out + OFF_SEQ, h->seq);
	gt_le_put64(out + OFF_STEPS, h->inner_steps);
	gt_le_put64(out + OFF_SAMPLES, h->samples);
	gt_le_put64(out + OFF_NPARAMS, h->nparams);
	gt_le_put64(out + OFF_PAYLOAD, pay);
	memcpy(out + OFF_UNIT, h->unit, ulen);
	if (ef)
		rc = gt_delta_ef_encode(ef, delta, out + GT_DELTA_HEADER_BYTES, pay, NULL);
	else
		rc = gt_delta_encode(h->codec, delta, h->nparams, out + GT_DELTA_HEADER_BYTES,
			pay, NULL);
	if (rc)
		return gt_error_set(e, rc, -1, -1, "delta has a value that %s cannot hold",
			gt_delta_codec_name(h->codec));
	if (checksum(h->sum, out, GT_DELTA_HEADER_BYTES + pay, out + GT_DELTA_HEADER_BYTES + pay))
		return gt_error_set(e, GT_EIO, -1, -1, "sha256 failed");
	if (h->sig)
		memset(out + total - GT_DELTA_SIG_BYTES, 0, GT_DELTA_SIG_BYTES);
	*len = total;
	return 0;
}

int gt_delta_read_header(const uint8_t *buf, size_t len, gt_delta_hdr *h,
		uint64_t *total, gt_error *e)
{
	uint32_t fmt;
	uint64_t pay;
	size_t ulen;
	if (len < GT_DELTA_HEADER_BYTES)
		return gt_error_set(e, GT_EFORMAT, -1, (long)len,
			"truncated header (%zu of %d bytes)", len, GT_DELTA_HEADER_BYTES);
	if (memcmp(buf + OFF_MAGIC, GT_DELTA_MAGIC, 8) != 0)
		return gt_error_set(e, GT_EFORMAT, -1, OFF_MAGIC, "not a gt delta (bad magic)");
	fmt = gt_le_get32(buf + OFF_FORMAT);
	if (fmt > GT_DELTA_FORMAT)
		return gt_error_set(e, GT_EUNSUPPORTED, -1, OFF_FORMAT,
			"format version %u is newer than %d", fmt, GT_DELTA_FORMAT);
	if (fmt != GT_DELTA_FORMAT)
		return gt_error_set(e, GT_EFORMAT, -1, OFF_FORMAT, "bad format version %u", fmt);
	memset(h, 0, sizeof *h);
	h->codec = buf[OFF_CODEC];
	h->sum = buf[OFF_SUM];
	if (!gt_delta_codec_name(h->codec))
		return gt_error_set(e, GT_EFORMAT, -1, OFF_CODEC, "unknown codec %d", h->codec);
	if (!gt_delta_sum_bytes(h->sum))
		return gt_error_set(e, GT_EFORMAT, -1, OFF_SUM, "unknown checksum kind %d", h->sum);
	if ((buf[OFF_RESERVED] & ~1) || buf[OFF_RESERVED + 1])
		return gt_error_set(e, GT_EFORMAT, -1, OFF_RESERVED, "unknown flags");
	h->sig = buf[OFF_RESERVED] & 1;
	h->base_version = gt_le_get64(buf + OFF_VERSION);
	memcpy(h->base_sha256, buf + OFF_SHA, 32);
	h->generation = gt_le_get64(buf + OFF_GEN);
	h->seq = gt_le_get64(buf + OFF_SEQ);
	h->inner_steps = gt_le_get64(buf + OFF_STEPS);
	h->samples = gt_le_get64(buf + OFF_SAMPLES);
	h->nparams = gt_le_get64(buf + OFF_NPARAMS);
	if (h->nparams == 0 || h->nparams > GT_DELTA_MAX_PARAMS)
		return gt_error_set(e, GT_EFORMAT, -1, OFF_NPARAMS,
			"parameter count %llu out of range 1..%llu",
			(unsigned long long)h->nparams, (unsigned long long)GT_DELTA_MAX_PARAMS);
	pay = gt_le_get64(buf + OFF_PAYLOAD);
	if (pay != gt_delta_payload_bytes(h->codec, h->nparams))
		return gt_error_set(e, GT_EFORMAT, -1, OFF_PAYLOAD,
			"payload of %llu bytes does not match %llu %s values",
			(unsigned long long)pay, (unsigned long long)h->nparams,
			gt_delta_codec_name(h->codec));
	ulen = strnlen((const char *)buf + OFF_UNIT, UNIT_FIELD);
	if (ulen == UNIT_FIELD || !unit_ok((const char *)buf + OFF_UNIT, ulen))
		return gt_error_set(e, GT_EFORMAT, -1, OFF_UNIT, "bad unit id");
	for (size_t i = ulen; i < UNIT_FIELD; i++)
		if (buf[OFF_UNIT + i])
			return gt_error_set(e, GT_EFORMAT, -1, (long)(OFF_UNIT + i),
				"unit id not NUL-padded");
	memcpy(h->unit, buf + OFF_UNIT, ulen);
	if (total)
		*total = gt_delta_packed_bytes(h);
	return 0;
}

int gt_delta_unpack(const uint8_t *buf, size_t len, gt_delta_hdr *h, float *out,
		size_t cap, gt_error *e)
{
	uint64_t total, pay;
	uint8_t sum[32];
	size_t sb;
	int rc = gt_delta_read_header(buf, len, h, &total, e);
	if (rc)
		return rc;
	if (len != total)
		return gt_error_set(e, GT_EFORMAT, -1, (long)len,
			"%s: %zu bytes, header says %llu", len < total ? "truncated" : "trailing bytes",
			len, (unsigned long long)total);
	if (cap < h->nparams)
		return gt_error_set(e, GT_EINVAL, -1, -1, "room for %zu values, need %llu",
			cap, (unsigned long long)h->nparams);
	pay = gt_delta_payload_bytes(h->codec, h->nparams);
	sb = gt_delta_sum_bytes(h->sum);
	if (checksum(h->sum, buf, GT_DELTA_HEADER_BYTES + pay, sum))
		return gt_error_set(e, GT_EIO, -1, -1, "sha256 failed");
	if (memcmp(sum, buf + GT_DELTA_HEADER_BYTES + pay, sb) != 0)
		return gt_error_set(e, GT_ECHECKSUM, -1, (long)(GT_DELTA_HEADER_BYTES + pay),
			"%s mismatch", h->sum == GT_DELTA_SHA256 ? "sha256" : "crc32");
	rc = gt_delta_decode(h->codec, buf + GT_DELTA_HEADER_BYTES, pay, h->nparams, out, e);
	if (rc && e && e->offset >= 0)
		e->offset += GT_DELTA_HEADER_BYTES;
	return rc;
}

int gt_delta_sign_message(const uint8_t *buf, size_t len, char msg[GT_DELTA_SIG_MSG],
		size_t *msglen, gt_error *e)
{
	gt_delta_hdr h;
	uint8_t md[32];
	char hx[65];
	int rc = gt_delta_read_header(buf, len, &h, NULL, e);
	if (rc)
		return rc;
	uint64_t n = GT_DELTA_HEADER_BYTES + gt_delta_payload_bytes(h.codec, h.nparams);
	if (len < n)
		return gt_error_set(e, GT_EFORMAT, -1, (long)len, "truncated: %zu bytes", len);
	if (sha256(buf, n, md))
		return gt_error_set(e, GT_EIO, -1, -1, "sha256 failed");
	*msglen = (size_t)snprintf(msg, GT_DELTA_SIG_MSG, "gt-delta-sig-v1\n%s\n", gt_hex(hx, md, 32));
	return 0;
}

/* the header of buf[len], a whole delta packed for a signature */
static int whole_signed(const uint8_t *buf, size_t len, gt_error *e)
{
	gt_delta_hdr h;
	uint64_t total;
	int rc = gt_delta_read_header(buf, len, &h, &total, e);
	if (rc)
		return rc;
	if (!h.sig)
		return gt_error_set(e, GT_EFORMAT, -1, OFF_RESERVED, "not signed");
	if (len != total)
		return gt_error_set(e, GT_EFORMAT, -1, (long)len, "%zu bytes, header says %llu", len,
			(unsigned long long)total);
	return 0;
}

int gt_delta_sign(uint8_t *buf, size_t len, const char *keyfile, gt_error *e)
{
	char msg[GT_DELTA_SIG_MSG], sig[GT_SIGN_HEX];
	size_t ml;
	int rc;
	if ((rc = whole_signed(buf, len, e)))
		return rc == GT_EFORMAT ? GT_EINVAL : rc;
	if ((rc = gt_delta_sign_message(buf, len, msg, &ml, e)) ||
	    (rc = gt_sign(keyfile, msg, ml, sig, e)))
		return rc;
	memcpy(buf + len - GT_DELTA_SIG_BYTES, sig, GT_DELTA_SIG_BYTES);
	return 0;
}

int gt_delta_verify(const uint8_t *buf, size_t len, const char *pubfile, gt_error *e)
{
	char msg[GT_DELTA_SIG_MSG], sig[GT_SIGN_HEX];
	size_t ml;
	int rc;
	if ((rc = whole_signed(buf, len, e)) || (rc = gt_delta_sign_message(buf, len, msg, &ml, e)))
		return rc;
	memcpy(sig, buf + len - GT_DELTA_SIG_BYTES, GT_DELTA_SIG_BYTES);
	sig[GT_DELTA_SIG_BYTES] = 0;
	return gt_sign_verify(pubfile, msg, ml, sig, e);
}

int gt_delta_save(const char *path, const gt_delta_hdr *h, const float *delta,
		gt_delta_ef *ef, gt_error *e)
{
	return gt_delta_save_signed(path, h, delta, ef, NULL, e);
}

int gt_delta_save_signed(const char *path, const gt_delta_hdr *h0, const float *delta,
		gt_delta_ef *ef, const char *keyfile, gt_error *e)
{
	gt_delta_hdr hs = *h0;
	const gt_delta_hdr *h = &hs;
	hs.sig = keyfile != NULL;
	uint64_t total = gt_delta_packed_bytes(h);
	uint8_t *buf;
	size_t len = 0;
	int rc;
	if (!total)
		return gt_error_set(e, GT_EINVAL, -1, -1, "bad codec, checksum kind or parameter count");
	buf = gt_xmalloc(total);
	rc = gt_delta_pack(h, delta, ef, buf, total, &len, e);
	if (!rc && keyfile)
		rc = gt_delta_sign(buf, len, keyfile, e);
	if (rc) {
		free(buf);
		return rc;
	}
	rc = gt_fs_write_atomic(path, buf, len, e);
	int err = errno;
	free(buf);
	errno = err;
	return rc;
}

int gt_delta_load(const char *path, gt_delta_hdr *h, float **delta, gt_error *e)
{
	uint8_t head[GT_DELTA_HEADER_BYTES], *buf = NULL;
	long long size;
	uint64_t total;
	float *out = NULL;
	int fd, rc;
	*delta = NULL;
	fd = gt_fs_open_head(path, head, sizeof head, &size, e);
	if (fd < 0)
		return fd;
	rc = gt_delta_read_header(head, sizeof head, h, &total, e);
	if (rc)
		goto out;
	if ((uint64_t)size != total) {
		rc = gt_error_set(e, GT_EFORMAT, -1, (long)size,
			"%s: %s: %lld bytes, header says %llu", path,
			(uint64_t)size < total ? "truncated" : "trailing bytes", size,
			(unsigned long long)total);
		goto out;
	}
	buf = gt_xmalloc(total);
	memcpy(buf, head, sizeof head);
	if (gt_fs_read_all(fd, buf + sizeof head, total - sizeof head)) {
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: short read", path);
		goto out;
	}
	out = gt_xmalloc(h->nparams * sizeof *out);
	rc = gt_delta_unpack(buf, total, h, out, h->nparams, e);
out:
	close(fd);
	free(buf);
	if (rc)
		free(out);
	else
		*delta = out;
	return rc;
}
