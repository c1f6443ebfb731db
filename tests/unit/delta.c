/* delta: codecs (hand-computed blocks and per-element error bounds), error
 * feedback over 100 rounds, serialization round trips and corruption. */
#include "delta.h"
#include "tap.h"

#include <stdint.h>
#include <unistd.h>

static uint64_t rng_s = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t z = (rng_s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double unif(void) /* [0, 1) */
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* random values with a different magnitude per block of 256 */
static void fill(float *x, size_t n)
{
	double mag = 1;
	for (size_t i = 0; i < n; i++) {
		if (i % GT_DELTA_BLOCK == 0)
			mag = pow(10, -6 + 6 * unif());
		x[i] = (float)((2 * unif() - 1) * mag);
	}
}

static float blockmax(const float *x, size_t n, size_t i)
{
	size_t b = i / GT_DELTA_BLOCK * GT_DELTA_BLOCK;
	float m = 0;
	for (size_t j = b; j < n && j < b + GT_DELTA_BLOCK; j++)
		m = fmaxf(m, fabsf(x[j]));
	return m;
}

static void test_sizes(void)
{
	is_str(gt_delta_codec_name(GT_DELTA_INT4), "int4", "codec name int4");
	is_int(gt_delta_codec_parse("bf16"), GT_DELTA_BF16, "parse bf16");
	is_int(gt_delta_codec_parse("int3"), GT_EINVAL, "parse int3 refused");
	ok(gt_delta_codec_name(7) == NULL, "codec 7 has no name");
	is_int(gt_delta_payload_bytes(GT_DELTA_FP32, 3), 12, "fp32 3 values: 12 bytes");
	is_int(gt_delta_payload_bytes(GT_DELTA_BF16, 3), 6, "bf16 3 values: 6 bytes");
	is_int(gt_delta_payload_bytes(GT_DELTA_INT8, 256), 260, "int8 256 values: 256 + one scale");
	is_int(gt_delta_payload_bytes(GT_DELTA_INT8, 257), 265, "int8 257 values: 257 + two scales");
	is_int(gt_delta_payload_bytes(GT_DELTA_INT4, 257), 137, "int4 257 values: 128 + 1 + two scales");
	is_int(gt_delta_payload_bytes(GT_DELTA_INT4, 5), 7, "int4 5 values: 3 + 4");
	is_dbl(gt_delta_bytes_per_param(GT_DELTA_INT8), 1.015625, 1e-12, "int8 bytes per parameter");
	is_dbl(gt_delta_bytes_per_param(GT_DELTA_INT4), 0.515625, 1e-12, "int4 bytes per parameter");
	gt_delta_hdr h = { .codec = GT_DELTA_INT8, .sum = GT_DELTA_SHA256, .nparams = 257 };
	is_int(gt_delta_packed_bytes(&h), 168 + 265 + 32, "packed int8/sha256 size");
	h.sum = GT_DELTA_CRC32;
	is_int(gt_delta_packed_bytes(&h), 168 + 265 + 4, "packed int8/crc32 size");
}

static void test_hand(void)
{
	/* scale = absmax = 2. int8: x/2*127 = 63.5 -31.75 15.875 0.1905 -127
	 * -> 64 (half to even) -32 16 0 -127. int4: x/2*7 = 3.5 -1.75 0.875
	 * 0.0105 -7 -> 4 -2 1 0 -7, nibbles (low first) 0xE4 0x01 0x09. */
	const float x[5] = { 1.0f, -0.5f, 0.25f, 0.003f, -2.0f };
	uint8_t out[16];
	float dec[5];
	static const uint8_t want8[9] = { 0, 0, 0, 0x40, 64, 0xe0, 16, 0, 0x81 };
	static const uint8_t want4[7] = { 0, 0, 0, 0x40, 0xe4, 0x01, 0x09 };
	is_int(gt_delta_encode(GT_DELTA_INT8, x, 5, out, sizeof out, dec), 0, "int8 encode");
	ok(memcmp(out, want8, 9) == 0, "int8 bytes: scale 2.0f, codes 64 -32 16 0 -127");
	is_dbl(dec[0], 128.0 / 127, 1e-7, "int8 dec[0] = 64*2/127");
	is_dbl(dec[3], 0, 0, "int8 dec[3] = 0");
	is_dbl(dec[4], -2, 0, "int8 dec[4] = -2 exactly");
	is_int(gt_delta_encode(GT_DELTA_INT4, x, 5, out, sizeof out, dec), 0, "int4 encode");
	ok(memcmp(out, want4, 7) == 0, "int4 bytes: scale 2.0f, nibbles 0xE4 0x01 0x09");
	is_dbl(dec[0], 8.0 / 7, 1e-7, "int4 dec[0] = 4*2/7");
	is_dbl(dec[1], -4.0 / 7, 1e-7, "int4 dec[1] = -2*2/7");
	is_int(gt_delta_encode(GT_DELTA_INT4, x, 5, out, 6, dec), GT_EINVAL, "int4 short buffer refused");

	/* bf16: 1 -> 0x3F80; 1+2^-8 is halfway to 0x3F81, ties to even 0x3F80;
	 * 1+3*2^-8 halfway between 0x3F81 and 0x3F82 -> 0x3F82; -2 -> 0xC000. */
	const float b[4] = { 1.0f, 1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, -2.0f };
	static const uint8_t wantb[8] = { 0x80, 0x3f, 0x80, 0x3f, 0x82, 0x3f, 0x00, 0xc0 };
	is_int(gt_delta_encode(GT_DELTA_BF16, b, 4, out, sizeof out, dec), 0, "bf16 encode");
	ok(memcmp(out, wantb, 8) == 0, "bf16 bytes, ties to even");
	is_dbl(dec[2], 1.015625, 0, "bf16 dec[2] = 1 + 2^-6");
	const float big[1] = { 3.4e38f }, nan[1] = { NAN };
	is_int(gt_delta_encode(GT_DELTA_BF16, big, 1, out, sizeof out, NULL), GT_EINVAL,
		"bf16 overflow refused");
	is_int(gt_delta_encode(GT_DELTA_INT8, nan, 1, out, sizeof out, NULL), GT_EINVAL,
		"NaN refused");
	/* an all-zero block has scale 0 and decodes to zeros */
	const float z[3] = { 0, 0, 0 };
	is_int(gt_delta_encode(GT_DELTA_INT8, z, 3, out, sizeof out, dec), 0, "zero block");
	ok(dec[0] == 0 && dec[1] == 0 && dec[2] == 0 && out[0] == 0 && out[3] == 0, "zero block decodes to 0");
}

static void test_bounds(void)
{
	enum { N = 256 * 40 + 77 };
	static float x[N], dec[N], back[N];
	static uint8_t buf[4 * N];
	fill(x, N);
	for (int c = 0; c < GT_DELTA_NCODECS; c++) {
		size_t bad = 0, mismatch = 0;
		double worst = 0; /* error / bound */
		int rc = gt_delta_encode(c, x, N, buf, sizeof buf, dec);
		is_int(rc, 0, "%s encode %d values", gt_delta_codec_name(c), N);
		rc = gt_delta_decode(c, buf, gt_delta_payload_bytes(c, N), N, back, NULL);
		is_int(rc, 0, "%s decode", gt_delta_codec_name(c));
		for (size_t i = 0; i < N; i++) {
			double err = fabs((double)x[i] - dec[i]), bound;
			if (c == GT_DELTA_FP32)
				bound = 0;
			else if (c == GT_DELTA_BF16)
				bound = fabs(x[i]) * 0x1p-8;
			else
				bound = blockmax(x, N, i) / (c == GT_DELTA_INT8 ? 254.0 : 14.0);
			/* float arithmetic in q*scale/levels: a few ulps of the scale */
			if (err > bound + 4e-7 * blockmax(x, N, i) * (c >= GT_DELTA_INT8))
				bad++;
			if (bound > 0 && err / bound > worst)
				worst = err / bound;
			if (memcmp(&dec[i], &back[i], 4) != 0)
				mismatch++;
		}
		is_int(bad, 0, "%s: |x - dec| within %s for every element", gt_delta_codec_name(c),
			c == GT_DELTA_FP32 ? "0" : c == GT_DELTA_BF16 ? "2^-8 |x|"
			: c == GT_DELTA_INT8 ? "scale/254" : "scale/14");
		is_int(mismatch, 0, "%s: decode gives what encode reported", gt_delta_codec_name(c));
		diag("%s worst error / bound %.4f", gt_delta_codec_name(c), worst);
	}
}

/* 100 rounds of deltas; the sum of decoded deltas against the sum of true
 * ones, with and without error feedback (sums in double). Results are the
 * worst |sum true - sum decoded| over elements, in units of the element's
 * quantum q = scale/levels of its block in the last feedback round (read
 * from that payload), and without feedback also in absolute terms. */
static void feedback(int codec, int biased, double *ef_q, double *plain_q, double *plain_abs)
{
	enum { N = 1000, R = 100 };
	static float d[N], dec[N];
	static double sum_true[N], sum_ef[N], sum_plain[N];
	static uint8_t efbuf[4 * N], buf[4 * N];
	const double levels = codec == GT_DELTA_INT8 ? 127 : 7;
	const size_t bbytes = 4 + (codec == GT_DELTA_INT8 ? GT_DELTA_BLOCK : GT_DELTA_BLOCK / 2);
	gt_delta_ef *ef = gt_delta_ef_new(codec, N);
	memset(sum_true, 0, sizeof sum_true);
	memset(sum_ef, 0, sizeof sum_ef);
	memset(sum_plain, 0, sizeof sum_plain);
	for (int r = 0; r < R; r++) {
		for (size_t i = 0; i < N; i++) {
			if (biased) /* one large value per block, the rest below half a step */
				d[i] = i % GT_DELTA_BLOCK == 0 ? 1.0f : 0.003f;
			else
				d[i] = (float)(2 * unif() - 1) * 0.01f;
			sum_true[i] += d[i];
		}
		gt_delta_ef_encode(ef, d, efbuf, sizeof efbuf, dec);
		for (size_t i = 0; i < N; i++)
			sum_ef[i] += dec[i];
		gt_delta_encode(codec, d, N, buf, sizeof buf, dec);
		for (size_t i = 0; i < N; i++)
			sum_plain[i] += dec[i];
	}
	*ef_q = *plain_q = *plain_abs = 0;
	for (size_t i = 0; i < N; i++) {
		float scale;
		memcpy(&scale, efbuf + i / GT_DELTA_BLOCK * bbytes, 4);
		double q = scale / levels, e1 = fabs(sum_true[i] - sum_ef[i]);
		double e2 = fabs(sum_true[i] - sum_plain[i]);
		*ef_q = fmax(*ef_q, e1 / q);
		*plain_q = fmax(*plain_q, e2 / q);
		*plain_abs = fmax(*plain_abs, e2);
	}
	gt_delta_ef_free(ef);
}

static void test_feedback(void)
{
	for (int codec = GT_DELTA_INT8; codec <= GT_DELTA_INT4; codec++)
		for (int biased = 1; biased >= 0; biased--) {
			double efq, pq, pabs;
			const char *name = gt_delta_codec_name(codec);
			const char *kind = biased ? "biased" : "random";
			feedback(codec, biased, &efq, &pq, &pabs);
			diag("%s %s deltas, 100 rounds: worst |sum true - sum decoded| "
				"%.3f quanta with feedback, %.3f quanta (%.3g) without",
				name, kind, efq, pq, pabs);
			ok(efq <= 1, "%s %s: with error feedback the sums agree within one quantum",
				name, kind);
			ok(efq <= 0.5 + 2e-3, "%s %s: in fact within half a quantum (the last residual)",
				name, kind);
			if (biased) /* 0.003 is under half a step of 1.0's block: always 0 */
				is_dbl(pabs, 0.3, 1e-4, "%s %s: without feedback 100 x 0.003 = 0.3 is lost",
					name, kind);
			else
				ok(pq > 2, "%s %s: without feedback the sums drift apart (> 2 quanta)",
					name, kind);
		}
}

static void test_misc(void)
{
	const float base[3] = { 1.5f, -1.0f, 0.75f }, unit[3] = { 0.5f, 1.0f, 0.25f };
	float d[3];
	uint8_t sha[32];
	static const uint8_t want[32] = {
		0x2c, 0xe4, 0xbd, 0xb6, 0xb3, 0x4a, 0x50, 0xac, 0x70, 0x92, 0xeb, 0x9f, 0xee, 0x94, 0x33, 0x7a,
		0x27, 0x49, 0x8e, 0x9e, 0xb9, 0xba, 0xe4, 0x41, 0x92, 0xf1, 0x5b, 0x88, 0x83, 0x1b, 0x24, 0x22 };
	gt_delta_compute(base, unit, 3, d);
	ok(d[0] == 1.0f && d[1] == -2.0f && d[2] == 0.5f, "delta = base - unit: 1 -2 0.5");
	is_int(gt_delta_params_sha256(d, 3, sha), 0, "params sha256");
	ok(memcmp(sha, want, 32) == 0, "sha256 of float32le {1, -2, 0.5} (python hashlib)");
	uint64_t g1 = 0, g2 = 0;
	is_int(gt_delta_new_generation(&g1), 0, "generation id");
	gt_delta_new_generation(&g2);
	ok(g1 && g2 && g1 != g2, "two generation ids differ and are not zero");
}

static void mkhdr(gt_delta_hdr *h, int codec, int sum, uint64_t n)
{
	memset(h, 0, sizeof *h);
	h->base_version = 41;
	for (int i = 0; i < 32; i++)
		h->base_sha256[i] = (uint8_t)(i * 7 + 1);
	strcpy(h->unit, "unit-3.a_b");
	h->generation = 0x0123456789abcdefull;
	h->seq = 9;
	h->inner_steps = 500;
	h->samples = 128000;
	h->codec = codec;
	h->sum = sum;
	h->nparams = n;
}

static void test_roundtrip(void)
{
	enum { N = 600 };
	static float x[N], want[N], got[N];
	static uint8_t buf[168 + 4 * N + 32];
	gt_delta_hdr h, r;
	gt_error e;
	size_t len = 0;
	fill(x, N);
	for (int c = 0; c < GT_DELTA_NCODECS; c++)
		for (int s = 0; s <= GT_DELTA_CRC32; s++) {
			const char *name = gt_delta_codec_name(c);
			mkhdr(&h, c, s, N);
			int rc = gt_delta_pack(&h, x, NULL, buf, sizeof buf, &len, &e);
			is_int(rc, 0, "pack %s/%s", name, s ? "crc32" : "sha256");
			is_int(len, gt_delta_packed_bytes(&h), "packed size");
			static uint8_t tmp[4 * N];
			gt_delta_encode(c, x, N, tmp, sizeof tmp, want);
			memset(got, 0, sizeof got);
			rc = gt_delta_unpack(buf, len, &r, got, N, &e);
			is_int(rc, 0, "unpack %s/%s", name, s ? "crc32" : "sha256");
			ok(r.base_version == 41 && r.generation == h.generation && r.seq == 9
				&& r.inner_steps == 500 && r.samples == 128000 && r.codec == c
				&& r.sum == s && r.nparams == N && strcmp(r.unit, "unit-3.a_b") == 0
				&& memcmp(r.base_sha256, h.base_sha256, 32) == 0,
				"header fields survive");
			ok(memcmp(got, want, sizeof got) == 0, "payload decodes to the encoder's values");
		}
	/* the fixed header at known offsets (gt-delta(5)) */
	mkhdr(&h, GT_DELTA_INT8, GT_DELTA_SHA256, N);
	gt_delta_pack(&h, x, NULL, buf, sizeof buf, &len, NULL);
	ok(memcmp(buf, "gtdelta\n\1\0\0\0\2\0\0\0\51\0\0\0\0\0\0\0", 24) == 0,
		"magic, format 1, codec 2, sum 0, reserved, version 41");
	ok(buf[88] == 0x58 && buf[89] == 0x02 && buf[96] == (uint8_t)(600 + 12) && buf[97] == 2,
		"nparams 600 at 88, payload 612 at 96");
	ok(memcmp(buf + 104, "unit-3.a_b\0", 11) == 0, "unit id at 104");

	/* pack refuses a bad unit id, a short buffer and a wrong ef state */
	strcpy(h.unit, "a/b");
	is_int(gt_delta_pack(&h, x, NULL, buf, sizeof buf, &len, &e), GT_EINVAL, "unit id a/b refused");
	h.unit[0] = 0;
	is_int(gt_delta_pack(&h, x, NULL, buf, sizeof buf, &len, &e), GT_EINVAL, "empty unit id refused");
	mkhdr(&h, GT_DELTA_INT8, GT_DELTA_SHA256, N);
	is_int(gt_delta_pack(&h, x, NULL, buf, 100, &len, &e), GT_EINVAL, "short buffer refused");
	gt_delta_ef *ef = gt_delta_ef_new(GT_DELTA_INT4, N);
	is_int(gt_delta_pack(&h, x, ef, buf, sizeof buf, &len, &e), GT_EINVAL, "ef of another codec refused");
	gt_delta_ef_free(ef);
	/* through error feedback: the residual is what the reader lost */
	ef = gt_delta_ef_new(GT_DELTA_INT8, N);
	is_int(gt_delta_pack(&h, x, ef, buf, sizeof buf, &len, &e), 0, "pack through error feedback");
	gt_delta_unpack(buf, len, &r, got, N, NULL);
	size_t bad = 0;
	for (size_t i = 0; i < N; i++)
		if (got[i] + gt_delta_ef_residual(ef)[i] != x[i])
			bad++;
	is_int(bad, 0, "decoded + residual == delta for every value");
	gt_delta_ef_free(ef);
}

static void test_corrupt(void)
{
	enum { N = 300 };
	static float x[N], got[N];
	static uint8_t buf[168 + 4 * N + 32], bad[sizeof buf + 1];
	gt_delta_hdr h, r;
	gt_error e;
	size_t len;
	fill(x, N);
	for (int s = 0; s <= GT_DELTA_CRC32; s++) {
		const char *sn = s ? "crc32" : "sha256";
		mkhdr(&h, GT_DELTA_INT8, s, N);
		gt_delta_pack(&h, x, NULL, buf, sizeof buf, &len, NULL);
		/* truncation at every offset, and at 50 random ones: all refused */
		size_t accepted = 0, crashed_code = 0;
		for (size_t cut = 0; cut < len; cut++) {
			int rc = gt_delta_unpack(buf, cut, &r, got, N, &e);
			accepted += rc == 0;
			crashed_code += rc != GT_EFORMAT;
		}
		is_int(accepted, 0, "%s: every truncation (0..%zu bytes) refused", sn, len - 1);
		is_int(crashed_code, 0, "%s: ... each as GT_EFORMAT", sn);
		accepted = 0;
		for (int t = 0; t < 50; t++) {
			size_t cut = rnd() % len;
			memcpy(bad, buf, cut);
			accepted += gt_delta_unpack(bad, cut, &r, got, N, &e) == 0;
		}
		is_int(accepted, 0, "%s: 50 random truncations refused", sn);
		/* one trailing byte */
		memcpy(bad, buf, len);
		bad[len] = 0;
		is_int(gt_delta_unpack(bad, len + 1, &r, got, N, &e), GT_EFORMAT, "%s: trailing byte refused", sn);
		/* a flipped bit in every byte */
		size_t undetected = 0, as_checksum = 0;
		for (size_t i = 0; i < len; i++) {
			memcpy(bad, buf, len);
			bad[i] ^= (uint8_t)(1u << (rnd() % 8));
			int rc = gt_delta_unpack(bad, len, &r, got, N, &e);
			undetected += rc == 0;
			as_checksum += rc == GT_ECHECKSUM;
		}
		is_int(undetected, 0, "%s: a flipped bit in each of the %zu bytes is detected", sn, len);
		ok(as_checksum >= len - 168, "%s: payload and checksum flips report GT_ECHECKSUM (%zu)", sn, as_checksum);
		/* the checksum itself mismatching */
		memcpy(bad, buf, len);
		bad[len - 1] ^= 0xff;
		is_int(gt_delta_unpack(bad, len, &r, got, N, &e), GT_ECHECKSUM, "%s: bad checksum is GT_ECHECKSUM", sn);
		is_int(e.offset, (long)(len - gt_delta_sum_bytes(s)), "%s: error offset is the checksum's", sn);
	}
	/* headers claiming absurd sizes are refused from the header alone */
	mkhdr(&h, GT_DELTA_INT8, GT_DELTA_SHA256, N);
	gt_delta_pack(&h, x, NULL, buf, sizeof buf, &len, NULL);
	uint64_t total = 0;
	is_int(gt_delta_read_header(buf, 168, &r, &total, &e), 0, "header alone parses");
	is_int(total, len, "header gives the total size");
	memcpy(bad, buf, len);
	bad[88 + 5] = 1; /* nparams = 2^40 + 300 */
	is_int(gt_delta_read_header(bad, 168, &r, &total, &e), GT_EFORMAT, "nparams 2^40 refused");
	ok(strstr(e.text, "out of range") != NULL, "... saying: %s", e.text);
	memset(bad + 88, 0, 8);
	is_int(gt_delta_read_header(bad, 168, &r, &total, &e), GT_EFORMAT, "nparams 0 refused");
	memcpy(bad, buf, len);
	bad[96 + 4] = 1; /* payload 2^32 + 304 */
	is_int(gt_delta_read_header(bad, 168, &r, &total, &e), GT_EFORMAT, "payload size mismatch refused");
	memcpy(bad, buf, len);
	bad[8] = 2;
	is_int(gt_delta_read_header(bad, 168, &r, &total, &e), GT_EUNSUPPORTED, "format 2 unsupported");
	memcpy(bad, buf, len);
	bad[12] = 9;
	is_int(gt_delta_read_header(bad, 168, &r, &total, &e), GT_EFORMAT, "codec 9 refused");
	memcpy(bad, buf, len);
	bad[104 + 20] = 'x'; /* garbage after the unit id's NUL */
	is_int(gt_delta_read_header(bad, 168, &r, &total, &e), GT_EFORMAT, "unit id not NUL-padded refused");
	memset(bad + 104, 'u', 64);
	is_int(gt_delta_read_header(bad, 168, &r, &total, &e), GT_EFORMAT, "unit id without NUL refused");
	is_int(gt_delta_unpack(buf, len, &r, got, N - 1, &e), GT_EINVAL, "too small output refused");

	/* payloads a checksum would not catch (crafted): codes and scales */
	uint8_t p[8] = { 0, 0, 0x80, 0x3f, 0x80, 0, 0, 0 }; /* scale 1, code -128 */
	is_int(gt_delta_decode(GT_DELTA_INT8, p, 5, 1, got, &e), GT_EFORMAT, "int8 code -128 refused");
	p[4] = 0x08; /* int4 nibble -8 */
	is_int(gt_delta_decode(GT_DELTA_INT4, p, 5, 1, got, &e), GT_EFORMAT, "int4 code -8 refused");
	p[4] = 1;
	p[3] = 0xbf; /* scale -1 */
	is_int(gt_delta_decode(GT_DELTA_INT8, p, 5, 1, got, &e), GT_EFORMAT, "negative scale refused");
	p[3] = 0x7f;
	p[2] = 0xc0; /* NaN scale */
	is_int(gt_delta_decode(GT_DELTA_INT8, p, 5, 1, got, &e), GT_EFORMAT, "NaN scale refused");
	is_int(gt_delta_decode(GT_DELTA_FP32, p, 4, 1, got, &e), GT_EFORMAT, "fp32 NaN refused");
	is_int(gt_delta_decode(GT_DELTA_INT8, p, 4, 1, got, &e), GT_EFORMAT, "wrong payload length refused");
}

static void test_files(void)
{
	enum { N = 700 };
	static float x[N], want[N];
	static uint8_t tmp[4 * N];
	char dir[] = "/tmp/gt-delta-XXXXXX", path[64];
	gt_delta_hdr h, r;
	gt_error e;
	float *got = NULL;
	FILE *f;
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof path, "%s/u.delta", dir);
	fill(x, N);
	mkhdr(&h, GT_DELTA_INT4, GT_DELTA_CRC32, N);
	gt_delta_encode(GT_DELTA_INT4, x, N, tmp, sizeof tmp, want);
	is_int(gt_delta_save(path, &h, x, NULL, &e), 0, "save a delta file");
	is_int(gt_delta_load(path, &r, &got, &e), 0, "load it");
	ok(got && memcmp(got, want, sizeof want) == 0 && r.seq == 9 && r.codec == GT_DELTA_INT4,
		"loaded values and header are the saved ones");
	free(got);
	/* a header claiming 2^31 values on a small file: refused, nothing allocated */
	static uint8_t buf[168 + 4 * N + 32];
	size_t len;
	mkhdr(&h, GT_DELTA_FP32, GT_DELTA_SHA256, N);
	gt_delta_pack(&h, x, NULL, buf, sizeof buf, &len, NULL);
	buf[88] = 0;
	buf[89] = 0;
	buf[91] = 0x80; /* nparams 2^31 */
	buf[96] = 0;
	buf[97] = 0;
	buf[100] = 2;   /* payload 2^33 */
	f = fopen(path, "wb");
	fwrite(buf, 1, len, f);
	fclose(f);
	got = (float *)1;
	is_int(gt_delta_load(path, &r, &got, &e), GT_EFORMAT, "file whose header claims 2^31 values refused");
	ok(got == NULL && strstr(e.text, "header says") != NULL, "... from its size: %s", e.text);
	f = fopen(path, "wb");
	fwrite(buf, 1, 100, f);
	fclose(f);
	is_int(gt_delta_load(path, &r, &got, &e), GT_EFORMAT, "100-byte file refused");
	unlink(path);
	is_int(gt_delta_load(path, &r, &got, &e), GT_EIO, "missing file: GT_EIO");
	snprintf(path, sizeof path, "%s/none/u.delta", dir);
	is_int(gt_delta_save(path, &h, x, NULL, &e), GT_EIO, "save into a missing folder: GT_EIO");
	rmdir(dir);
}

int main(void)
{
	test_sizes();
	test_hand();
	test_bounds();
	test_feedback();
	test_misc();
	test_roundtrip();
	test_corrupt();
	test_files();
	return done_testing();
}
