/* model: .bin.gz round trip, architecture strings, names, sha256, and
 * rejection of corrupt, truncated and hostile files. */
#include "testutil.h"
#include "model.h"

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
	test_rmdir(dir);
	return done_testing();
}
