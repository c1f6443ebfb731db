/* model: .bin.gz round trip, architecture strings, names, sha256, and
 * rejection of corrupt, truncated and hostile files; format version 2
 * (global pooling blocks, the auxiliary policy head), and a version 1 file written by the build
 * before it (tests/data/models/v1-b2c8.*) read, evaluated to the same
 * bits and written back to the same bytes. */
#include "testutil.h"
#include "simd.h"
#include "feat.h"
#include "model.h"
#include "nn.h"

#include <stdint.h>
#include <unistd.h>
#include <zlib.h>

static char dir[200];

static char *tpath(const char *name)
{
	static char buf[4][256];
	static int k;
	k = (k + 1) & 3;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
	return buf[k];
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	fwrite(p, 1, n, f);
	fclose(f);
}

static unsigned char *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	rewind(f);
	unsigned char *p = malloc(*n + 1);
	if (fread(p, 1, *n, f) != *n)
		*n = 0;
	fclose(f);
	return p;
}

static void write_gz(const char *path, const void *p, size_t n)
{
	gzFile gz = gzopen(path, "wb");
	gzwrite(gz, p, (unsigned)n);
	gzclose(gz);
}

static unsigned char *gunzip_all(const char *path, size_t *n)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 1 << 16;
	unsigned char *p = malloc(cap);
	*n = 0;
	int k;
	while ((k = gzread(gz, p + *n, (unsigned)(cap - *n))) > 0) {
		*n += k;
		if (*n == cap)
			p = realloc(p, cap *= 2);
	}
	gzclose(gz);
	return p;
}

/* expect gt_model_read to fail with a message */
static void rejects(const char *path, const char *what, const char *needle)
{
	gt_model *m = (gt_model *)1;
	gt_error e = {0};
	int r = gt_model_read(path, &m, &e);
	ok(r < 0 && m == NULL && e.text[0] && (!needle || strstr(e.text, needle)),
	   "rejects %s: %s", what, e.text);
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static int same_bytes(const char *p1, const char *p2)
{
	size_t n1, n2;
	unsigned char *a = read_all(p1, &n1), *b = read_all(p2, &n2);
	int same = n1 == n2 && !memcmp(a, b, n1);
	free(a);
	free(b);
	return same;
}

/* the inputs of tests/data/models/v1-b2c8.c */
enum { FB = 2, FN = 7, FNN = FN * FN };
static float fplanes[FB * GT_FEAT_PLANES * FNN], fglob[FB * GT_FEAT_GLOBALS];
static void fixture_inputs(void)
{
	unsigned long long s = 11;
	for (size_t i = 0; i < sizeof fplanes / sizeof fplanes[0]; i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		fplanes[i] = (float)((s >> 33) % 2);
	}
	for (size_t i = 0; i < sizeof fglob / sizeof fglob[0]; i++)
		fglob[i] = (float)(i % 5) * 0.2f - 0.3f;
}

/* a file of the build before format version 2 */
static void version1_file(void)
{
	const char *src = getenv("GT_SRC");
	char path[600], out[600];
	snprintf(path, sizeof path, "%s/tests/data/models/v1-b2c8.bin.gz", src ? src : ".");
	snprintf(out, sizeof out, "%s/tests/data/models/v1-b2c8.out", src ? src : ".");
	gt_model *m = NULL;
	gt_error e;
	is_int(gt_model_read(path, &m, &e), 0, "the version 1 file of the build before loads");
	if (!m) {
		diag("%s", e.text);
		return;
	}
	ok(m->arch.gpool_every == 0 && m->arch.gpool_channels == 0 && m->meta.steps == 3,
	   "it has no global pooling blocks");
	is_int(gt_model_version(&m->arch), 1, "and is written as version 1");
	is_int(gt_model_write(tpath("v1.bin.gz"), m, &e), 0, "written back");
	ok(same_bytes(path, tpath("v1.bin.gz")), "to the same bytes as the build before wrote");
	fixture_inputs();
	gt_nn *nn = gt_model_nn(m, "cpu", &e);
	gt_nn_out o;
	is_int(gt_nn_forward(nn, FB, FN, fplanes, fglob, 0, &o), 0, "its forward");
	FILE *f = fopen(out, "r");
	int bad = 0, cnt = 0;
	char line[64];
	float got[FB * (FNN + 1) + 2 * FB + FB * FNN];
	for (int i = 0; i < FB * (FNN + 1); i++)
		got[cnt++] = o.policy[i];
	for (int i = 0; i < FB; i++) {
		got[cnt++] = o.value[i];
		got[cnt++] = o.score[i];
	}
	for (int i = 0; i < FB * FNN; i++)
		got[cnt++] = o.own[i];
	/* the fixture was written on one x86-64 CPU; OpenBLAS and oneDNN
	 * choose their kernels by CPU (AVX2, AVX-512 on AMD or Intel; arm64),
	 * whose sums go in other orders: within 1e-5 (1 + |x|) on x86-64 (an
	 * AMX Xeon's differ by up to 3.3e-7), 1e-4 (1 + |x|) elsewhere */
	float tol = GT_X86 ? 1e-5f : 1e-4f, worst = 0;
	for (int i = 0; i < cnt; i++) {
		float d = f && fgets(line, sizeof line, f) ? fabsf(strtof(line, NULL) - got[i]) : NAN;
		if (!(d <= tol * (1 + fabsf(got[i]))))
			bad++;
		worst = d > worst ? d : worst;
	}
	if (f)
		fclose(f);
	is_int(bad, 0, "the %d outputs equal the build before's within %g (1 + |x|) (worst |difference| %.2g)",
	       cnt, tol, worst);
	gt_nn_free(nn);
	gt_model_free(m);
}

/* raw (rawn bytes, unzipped) with each hostile u32 put in turn, gzipped
 * to file, is rejected with its needle in the error */
typedef struct hostile_field { int at; uint32_t v; const char *what, *needle; } hostile_field;
static void rejects_fields(unsigned char *raw, size_t rawn, const hostile_field *h, size_t n,
                           const char *file)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char keep[4];
		memcpy(keep, raw + h[i].at, 4);
		put32(raw + h[i].at, h[i].v);
		write_gz(tpath(file), raw, rawn);
		rejects(tpath(file), h[i].what, h[i].needle);
		memcpy(raw + h[i].at, keep, 4);
	}
}

/* architecture strings with global pooling, format version 2 */
static void version2(void)
{
	gt_arch a;
	gt_error e;
	char name[64];
	is_int(gt_model_parse_arch("b6c96g2", &a, &e), 0, "parse b6c96g2");
	ok(a.gpool_every == 2 && a.gpool_channels == 32, "pooled every 2 blocks, 32 channels");
	int blocks = 0;
	for (int l = 0; l < a.blocks; l++)
		blocks |= gt_arch_gpool_block(&a, l) << l;
	is_int(blocks, (1 << 2) | (1 << 4), "blocks 2 and 4 pool (KataGo's g170 b6c96)");
	is_str(gt_model_arch_name(&a, name, sizeof name), "b6c96g2", "its name");
	is_int(gt_model_parse_arch("b3c8g1p3", &a, &e), 0, "parse b3c8g1p3");
	ok(a.gpool_every == 1 && a.gpool_channels == 3, "pooled every block after the first, 3 channels");
	is_str(gt_model_arch_name(&a, name, sizeof name), "b3c8g1p3", "its name");
	const char *bad[] = {"b2c16g0", "b2c16g", "b2c16g1p", "b2c16g1p16", "b2c16g1p0", "b2c16p4",
	                     "b2c1g1", "b2c16g1p4x", "b2c16g129"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ok(gt_model_parse_arch(bad[i], &a, &e) == GT_EFORMAT,
		   "parse '%s' refused: %s", bad[i], e.text);

	gt_model_parse_arch("b3c8g1p3", &a, &e);
	gt_model *m = gt_model_new_random(&a, 7, &e), *r = NULL;
	m->meta.steps = 9;
	is_str(gt_model_name(m, name, sizeof name), "gt-b3c8g1p3-s9-d0", "name");
	is_int(gt_model_write(tpath("v2.bin.gz"), m, &e), 0, "write b3c8g1p3");
	is_int(gt_model_read(tpath("v2.bin.gz"), &r, &e), 0, "read it back");
	ok(r && !memcmp(&r->arch, &m->arch, sizeof a) && r->nparams == m->nparams &&
	   !memcmp(r->params, m->params, 4 * m->nparams), "same architecture and parameters");
	size_t rawn;
	unsigned char *raw = gunzip_all(tpath("v2.bin.gz"), &rawn);
	is_int(rawn, GT_MODEL_HEADER2_BYTES + 4 * m->nparams, "payload: 184-byte header + params");
	ok(raw[4] == 2 && raw[172] == 1 && raw[176] == 3 && raw[180] == 0,
	   "version 2, every 1 block, 3 pooled channels, no other heads");
	is_int(gt_model_write(tpath("v2b.bin.gz"), r, &e), 0, "write again");
	ok(same_bytes(tpath("v2.bin.gz"), tpath("v2b.bin.gz")), "same bytes");
	hostile_field hostile[] = {
		{180, 2, "unknown heads", "unknown heads"},
		{180, 1, "the auxiliary head's bit without its parameters", "parameter count"},
		{172, 0, "version 2 without pooling", "without global pooling"},
		{176, 8, "pooled channels = channels", "global pooling channels"},
		{176, 0, "no pooled channels", "global pooling channels"},
		{4, 3, "version 3", "unsupported format version 3"},
	};
	rejects_fields(raw, rawn, hostile, sizeof hostile / sizeof hostile[0], "v2bad.bin.gz");
	write_gz(tpath("v2bad.bin.gz"), raw, 178);
	rejects(tpath("v2bad.bin.gz"), "a version 2 header cut at 178 bytes", "truncated header");
	put32(raw + 4, 1);
	write_gz(tpath("v2bad.bin.gz"), raw, rawn);
	rejects(tpath("v2bad.bin.gz"), "a version 1 header on pooled parameters", NULL);
	free(raw);
	gt_model_free(m);
	gt_model_free(r);
}

/* the auxiliary policy head: arch suffix "a", format version 2, heads 1 */
static void aux_head(void)
{
	gt_arch a;
	gt_error e;
	char name[64];
	is_int(gt_model_parse_arch("b2c16a", &a, &e), 0, "parse b2c16a");
	ok(a.heads == GT_ARCH_AUX_POLICY && a.gpool_every == 0, "the auxiliary head, no pooling");
	is_str(gt_model_arch_name(&a, name, sizeof name), "b2c16a", "its name");
	is_int(gt_model_version(&a), 2, "written in format version 2");
	is_int(gt_model_parse_arch("b6c96g2p20a", &a, &e), 0, "parse b6c96g2p20a");
	ok(a.heads == GT_ARCH_AUX_POLICY && a.gpool_every == 2 && a.gpool_channels == 20,
	   "pooling and the auxiliary head");
	is_str(gt_model_arch_name(&a, name, sizeof name), "b6c96g2p20a", "its name");
	const char *bad[] = {"b2c16aa", "b2c16ag1", "b2c16a1", "ab2c16", "b2c16A"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ok(gt_model_parse_arch(bad[i], &a, &e) == GT_EFORMAT,
		   "parse '%s' refused: %s", bad[i], e.text);

	gt_arch plain;
	gt_model_parse_arch("b2c8", &plain, &e);
	gt_model_parse_arch("b2c8a", &a, &e);
	is_int((int)(gt_arch_nparams(&a) - gt_arch_nparams(&plain)), 3 * 32 + 2,
	       "the head adds 3 Hp + 2 parameters");
	gt_model *m = gt_model_new_random(&a, 5, &e), *r = NULL, *m0 = gt_model_new_random(&plain, 5, &e);
	is_str(gt_model_name(m, name, sizeof name), "gt-b2c8a-s0-d0", "name");
	is_int(gt_model_write(tpath("aux.bin.gz"), m, &e), 0, "write b2c8a");
	is_int(gt_model_read(tpath("aux.bin.gz"), &r, &e), 0, "read it back");
	ok(r && !memcmp(&r->arch, &m->arch, sizeof a) && r->nparams == m->nparams &&
	   !memcmp(r->params, m->params, 4 * m->nparams), "same architecture and parameters");
	/* the random init draws the head as pol.out and pol.pass: the tensors
	 * before it are those of b2c8 with the same seed */
	gt_tensor t;
	for (int k = 0; k < gt_arch_ntensors(&a); k++) {
		gt_arch_tensor(&a, k, &t);
		if (!strcmp(t.name, "pol.aux.w"))
			break;
	}
	ok(!memcmp(m->params, m0->params, 4 * t.offset), "init: the tensors before the head as b2c8's");
	double s = 0;
	for (size_t i = 0; i < t.size; i++)
		s += m->params[t.offset + i] * m->params[t.offset + i];
	ok(s > 0, "init: pol.aux.w random (sum of squares %.3g)", s);
	size_t rawn;
	unsigned char *raw = gunzip_all(tpath("aux.bin.gz"), &rawn);
	is_int(rawn, GT_MODEL_HEADER2_BYTES + 4 * m->nparams, "payload: 184-byte header + params");
	ok(raw[4] == 2 && raw[172] == 0 && raw[176] == 0 && raw[180] == 1,
	   "version 2, no pooling, heads 1");
	is_int(gt_model_write(tpath("aux2.bin.gz"), r, &e), 0, "write again");
	ok(same_bytes(tpath("aux.bin.gz"), tpath("aux2.bin.gz")), "same bytes");
	hostile_field hostile[] = {
		{180, 3, "unknown heads bit", "unknown heads"},
		{180, 0, "version 2 with neither pooling nor heads", "without global pooling"},
		{176, 4, "pooled channels without pooling", "without global pooling blocks"},
	};
	rejects_fields(raw, rawn, hostile, sizeof hostile / sizeof hostile[0], "auxbad.bin.gz");
	put32(raw + 4, 1);
	write_gz(tpath("auxbad.bin.gz"), raw, rawn);
	rejects(tpath("auxbad.bin.gz"), "a version 1 header on the head's parameters", NULL);
	free(raw);
	gt_model_free(m);
	gt_model_free(m0);
	gt_model_free(r);
}

int main(void)
{
	gt_arch a;
	gt_error e;
	test_tmpdir(dir, sizeof dir, "model-test");

	/* architecture strings */
	is_int(gt_model_parse_arch("b6c64", &a, &e), 0, "parse b6c64");
	is_int(a.blocks, 6, "6 blocks");
	is_int(a.channels, 64, "64 channels");
	const char *bad[] = {"b6", "c64", "b0c64", "b6c0", "b6c64x", "6c64", "b-1c64",
	                     "b1073741824c64", "b6c1048576", "b99999999999999999999c8", "", "b c8"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ok(gt_model_parse_arch(bad[i], &a, &e) == GT_EFORMAT,
		   "parse '%s' refused: %s", bad[i], e.text);

	/* round trip, bit-exact */
	gt_model_parse_arch("b2c8", &a, &e);
	gt_model *m = gt_model_new_random(&a, 42, &e), *r = NULL;
	ok(m != NULL, "random b2c8");
	gt_model *m2 = gt_model_new_random(&a, 42, &e), *m3 = gt_model_new_random(&a, 43, &e);
	ok(!memcmp(m->params, m2->params, m->nparams * 4), "same seed, same parameters");
	ok(memcmp(m->params, m3->params, m->nparams * 4), "other seed, other parameters");
	gt_model_free(m2);
	gt_model_free(m3);
	m->meta.steps = 1200;
	m->meta.rows = 50000;
	strcpy(m->meta.series, "run1");
	for (int i = 0; i < 32; i++)
		m->meta.parent[i] = (uint8_t)(i * 7 + 1);
	m->params[3] = -0.0f;
	m->params[4] = 1e-40f;  /* a subnormal survives */
	char name[128];
	is_str(gt_model_name(m, name, sizeof name), "run1-b2c8-s1200-d50000", "name");
	char good[300];
	snprintf(good, sizeof good, "%s", tpath("good.bin.gz"));
	is_int(gt_model_write(good, m, &e), 0, "write");
	is_int(gt_model_read(good, &r, &e), 0, "read back");
	if (!r)
		diag("%s", e.text);
	ok(r && r->nparams == m->nparams && !memcmp(r->params, m->params, m->nparams * 4),
	   "parameters round-trip bit-exact");
	ok(r && !memcmp(&r->arch, &m->arch, sizeof a), "architecture round-trips");
	ok(r && r->meta.steps == 1200 && r->meta.rows == 50000 &&
	   !memcmp(r->meta.parent, m->meta.parent, 32) && !strcmp(r->meta.series, "run1"),
	   "metadata round-trips");
	{
		gt_nn *nn = gt_model_nn(r, NULL, &e);
		ok(nn && !memcmp(gt_nn_params(nn), m->params, m->nparams * 4),
		   "gt_model_nn copies the parameters");
		gt_nn_params(nn)[0] += 1;
		is_int(gt_model_set_params(r, nn), 0, "gt_model_set_params");
		is_dbl(r->params[0], m->params[0] + 1, 1e-6, "parameters copied back");
		gt_nn_free(nn);
		r->arch.feat_version++;
		ok(gt_model_nn(r, NULL, &e) == NULL, "other feature version refused: %s", e.text);
	}
	{
		gt_arch va;
		gt_model_meta vm;
		is_int(gt_model_validate(good, &va, &vm, &e), 0, "gt_model_validate accepts the file");
		ok(va.channels == 8 && vm.steps == 1200, "gt_model_validate returns the header");
		write_file(tpath("junk.bin.gz"), "junk", 4);
		ok(gt_model_validate(tpath("junk.bin.gz"), NULL, NULL, &e) == GT_EFORMAT,
		   "gt_model_validate rejects junk: %s", e.text);
	}
	gt_model_free(r);
	ok(access(tpath("good.bin.gz.tmp"), F_OK) != 0, "no temporary file left");

	/* sha256 against the FIPS 180-2 "abc" vector */
	uint8_t dg[32];
	char hex[65];
	write_file(tpath("abc"), "abc", 3);
	is_int(gt_model_sha256_file(tpath("abc"), dg, &e), 0, "sha256 of a file");
	is_str(gt_sha256_hex(dg, hex),
	       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	       "sha256('abc')");
	ok(gt_model_sha256_file(tpath("nonexistent"), dg, &e) == GT_EIO, "sha256 of a missing file");

	/* NaN refused on write and on read */
	float save = m->params[10];
	m->params[10] = NAN;
	ok(gt_model_write(tpath("nan.bin.gz"), m, &e) == GT_EFORMAT, "write refuses NaN: %s", e.text);
	m->params[10] = save;
	strcpy(m->meta.series, "bad/name");
	ok(gt_model_write(tpath("x.bin.gz"), m, &e) == GT_EFORMAT, "write refuses a bad series");
	strcpy(m->meta.series, "run1");

	size_t rawn, filen;
	unsigned char *raw = gunzip_all(good, &rawn);
	is_int(rawn, GT_MODEL_HEADER_BYTES + 4 * m->nparams, "payload size is header + 4 x params");
	unsigned char *bad_raw = malloc(rawn);
	float fv;

	memcpy(bad_raw, raw, rawn);
	fv = NAN;
	memcpy(bad_raw + GT_MODEL_HEADER_BYTES + 4 * 100, &fv, 4);
	write_gz(tpath("nan.bin.gz"), bad_raw, rawn);
	rejects(tpath("nan.bin.gz"), "a NaN weight", "not finite");
	memcpy(bad_raw, raw, rawn);
	fv = INFINITY;
	memcpy(bad_raw + rawn - 4, &fv, 4);
	write_gz(tpath("inf.bin.gz"), bad_raw, rawn);
	rejects(tpath("inf.bin.gz"), "an infinite weight", "not finite");

	memcpy(bad_raw, raw, rawn);
	memcpy(bad_raw, "GTNX", 4);
	write_gz(tpath("magic.bin.gz"), bad_raw, rawn);
	rejects(tpath("magic.bin.gz"), "wrong magic", "magic");

	memcpy(bad_raw, raw, rawn);
	put32(bad_raw + 4, 99);
	write_gz(tpath("ver.bin.gz"), bad_raw, rawn);
	rejects(tpath("ver.bin.gz"), "an unknown version", "version");

	write_file(tpath("plain.bin.gz"), raw, rawn);
	rejects(tpath("plain.bin.gz"), "an uncompressed file", "gzip");
	write_file(tpath("empty.bin.gz"), "", 0);
	rejects(tpath("empty.bin.gz"), "an empty file", NULL);
	rejects(tpath("nonexistent"), "a missing file", NULL);

	/* trailing data inside the gzip stream */
	unsigned char *longer = calloc(rawn + 8, 1);
	memcpy(longer, raw, rawn);
	write_gz(tpath("long.bin.gz"), longer, rawn + 8);
	rejects(tpath("long.bin.gz"), "trailing data", "trailing");
	free(longer);

	/* hostile headers, judged from the header alone (payload absent) */
	static const struct { int field; uint32_t v; const char *what; } hostile[] = {
		{0, 1u << 30, "2^30 blocks"}, {1, 1u << 20, "2^20 channels"},
		{0, 0xffffffffu, "blocks 2^32-1"}, {2, 1u << 30, "2^30 input planes"},
		{8, 1000, "board size 1000"}, {5, 0, "zero policy channels"},
		{9, 12345, "a wrong policy size"},
	};
	for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		memcpy(bad_raw, raw, GT_MODEL_HEADER_BYTES);
		put32(bad_raw + 8 + 4 * hostile[i].field, hostile[i].v);
		write_gz(tpath("hostile.bin.gz"), bad_raw, GT_MODEL_HEADER_BYTES);
		rejects(tpath("hostile.bin.gz"), hostile[i].what, NULL);
	}
	/* in range field by field, but too many parameters together */
	memcpy(bad_raw, raw, GT_MODEL_HEADER_BYTES);
	put32(bad_raw + 8, GT_ARCH_MAX_BLOCKS);
	put32(bad_raw + 12, GT_ARCH_MAX_CHANNELS);
	write_gz(tpath("big.bin.gz"), bad_raw, GT_MODEL_HEADER_BYTES);
	rejects(tpath("big.bin.gz"), "b128c1024 (too many parameters)", "too large");
	/* a big but allowed network with no parameters: truncated, no 100 MB buffer */
	{
		gt_arch big;
		gt_model_parse_arch("b20c256", &big, &e);
		gt_model *hm = gt_model_new(&big, &e);
		unsigned char hb[GT_MODEL_HEADER_BYTES];
		hm->nparams = gt_arch_nparams(&big);
		memcpy(hb, raw, 8);
		for (int i = 0; i < 2; i++)
			put32(hb + 8 + 4 * i, i ? 256 : 20);
		memcpy(hb + 16, raw + 16, GT_MODEL_HEADER_BYTES - 16);
		for (int i = 0; i < 8; i++)
			hb[164 + i] = (unsigned char)(hm->nparams >> (8 * i));
		write_gz(tpath("bigtrunc.bin.gz"), hb, sizeof hb);
		rejects(tpath("bigtrunc.bin.gz"), "b20c256 header without parameters", "truncated");
		gt_model_free(hm);
	}
	memcpy(bad_raw, raw, rawn);
	bad_raw[164] ^= 1;
	write_gz(tpath("count.bin.gz"), bad_raw, rawn);
	rejects(tpath("count.bin.gz"), "a wrong parameter count", "count");

	/* truncation and flipped bytes of the compressed file */
	unsigned char *file = read_all(good, &filen);
	unsigned long long s = 99;
	int trunc_ok = 1, flip_ok = 1;
	for (int i = 0; i < 40; i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		size_t cut = (size_t)((s >> 33) % filen);
		write_file(tpath("cut.bin.gz"), file, cut);
		gt_model *x = NULL;
		if (gt_model_read(tpath("cut.bin.gz"), &x, &e) >= 0 || x || !e.text[0]) {
			trunc_ok = 0;
			diag("truncation at %zu accepted", cut);
		}
	}
	ok(trunc_ok, "40 truncations at random offsets rejected (%s)", e.text);
	for (int i = 0; i < 40; i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		/* bytes 4..9 of a gzip header (time, flags, OS) are unprotected */
		size_t at = 10 + (size_t)((s >> 33) % (filen - 10));
		unsigned char old = file[at];
		file[at] ^= (unsigned char)(1 + (s >> 20) % 255);
		write_file(tpath("flip.bin.gz"), file, filen);
		file[at] = old;
		gt_model *x = NULL;
		if (gt_model_read(tpath("flip.bin.gz"), &x, &e) >= 0 || x) {
			flip_ok = 0;
			diag("flipped byte at %zu accepted", at);
			gt_model_free(x);
		}
	}
	ok(flip_ok, "40 flipped bytes rejected (%s)", e.text);

	free(file);
	free(raw);
	free(bad_raw);
	gt_model_free(m);
	version2();
	aux_head();
	version1_file();
	test_rmdir(dir);
	return done_testing();
}
