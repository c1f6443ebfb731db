/*
 * npz: lib/npz against itself, against numpy (tests/npz_check.py run by
 * /usr/bin/python3 reads what gt writes and writes what gt reads), the NPY
 * header layout read straight from the inflated entry, and corrupt files
 * (every truncation, flipped bytes) that must give errors, never a crash.
 */
#include "npz.h"
#include "testutil.h"

#include <stdint.h>
#include <unistd.h>
#include <zlib.h>

static char dir[256];

static float a_f4[12];
static int8_t b_i1[5] = {-3, 1, 7, -128, 127};
static uint8_t c_u1[30];
static int64_t d_i8[2] = {INT64_C(1) << 40, -5};
static int32_t e_i4 = 42;
static float *big;
#define BIGR 200
#define BIGC 362

static int write_file(const char *path, int level, unsigned char sha[32], uint64_t *bytes)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	gt_npz_writer *w = gt_npz_writer_new(f, level);
	gt_error e;
	int64_t sa[2] = {3, 4}, sb[1] = {5}, sc[3] = {2, 3, 5}, sd[1] = {2}, sz[2] = {0, 7},
		sbig[2] = {BIGR, BIGC};
	int rc = 0;
	rc |= gt_npz_add(w, "a", GT_F4, 2, sa, a_f4, &e);
	rc |= gt_npz_add(w, "b", GT_I1, 1, sb, b_i1, &e);
	rc |= gt_npz_add(w, "c", GT_U1, 3, sc, c_u1, &e);
	rc |= gt_npz_add(w, "d", GT_I8, 1, sd, d_i8, &e);
	rc |= gt_npz_add(w, "e", GT_I4, 0, NULL, &e_i4, &e);
	rc |= gt_npz_add(w, "empty", GT_F4, 2, sz, NULL, &e);
	rc |= gt_npz_add(w, "big", GT_F4, 2, sbig, big, &e);
	ok(gt_npz_add(w, "a", GT_F4, 1, sb, a_f4, &e) == GT_EINVAL, "duplicate name refused");
	ok(gt_npz_add(w, "bad name", GT_F4, 1, sb, a_f4, &e) == GT_EINVAL, "bad name refused");
	rc |= gt_npz_finish(w, sha, bytes, &e);
	gt_npz_writer_free(w);
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

static void spew(const char *path, const uint8_t *b, long n)
{
	FILE *f = fopen(path, "wb");
	fwrite(b, 1, n, f);
	fclose(f);
}

/* open path and load every array; 0 if everything loads, else the first error */
static int load_all(const char *path, gt_error *e)
{
	gt_npz *z = gt_npz_open(path, e);
	if (!z)
		return e->text[0] ? GT_EFORMAT : -100;
	int rc = 0;
	for (int i = 0; i < gt_npz_count(z) && !rc; i++) {
		gt_npz_array a;
		gt_npz_info(z, i, &a);
		rc = gt_npz_load(z, a.name, &a, e);
		free(a.data);
	}
	gt_npz_close(z);
	return rc;
}

static void check_ours(const char *path)
{
	gt_error e = {0};
	gt_npz *z = gt_npz_open(path, &e);
	if (!ok(z != NULL, "open what we wrote")) {
		diag("%s", e.text);
		return;
	}
	is_int(gt_npz_count(z), 7, "7 arrays");
	gt_npz_array a;
	int64_t shp[2] = {-1, 4};
	is_int(gt_npz_load_as(z, "a", GT_F4, 2, shp, &a, &e), 0, "load a as f4 [?,4]");
	is_int(shp[0], 3, "a has 3 rows");
	ok(a.data && memcmp(a.data, a_f4, sizeof a_f4) == 0, "a round-trips");
	free(a.data);
	int64_t wrong[1] = {12};
	is_int(gt_npz_load_as(z, "a", GT_F4, 1, wrong, &a, &e), GT_EFORMAT, "a as f4 [12] refused");
	ok(a.data == NULL, "no data on refusal");
	is_int(gt_npz_load(z, "b", &a, &e), 0, "load b");
	ok(a.dtype == GT_I1 && a.ndim == 1 && a.count == 5 && memcmp(a.data, b_i1, 5) == 0,
	   "b: i1 [5] round-trips");
	free(a.data);
	is_int(gt_npz_load(z, "c", &a, &e), 0, "load c");
	ok(a.dtype == GT_U1 && a.ndim == 3 && a.shape[2] == 5 && memcmp(a.data, c_u1, 30) == 0,
	   "c: u1 [2,3,5] round-trips");
	free(a.data);
	is_int(gt_npz_load(z, "d", &a, &e), 0, "load d");
	ok(a.dtype == GT_I8 && memcmp(a.data, d_i8, 16) == 0, "d: i8 round-trips");
	free(a.data);
	is_int(gt_npz_load(z, "e", &a, &e), 0, "load e");
	ok(a.dtype == GT_I4 && a.ndim == 0 && a.count == 1 && *(int32_t *)a.data == 42,
	   "e: 0-d i4 round-trips");
	free(a.data);
	is_int(gt_npz_load(z, "empty", &a, &e), 0, "load empty");
	ok(a.count == 0 && a.shape[0] == 0 && a.shape[1] == 7, "empty: [0,7]");
	free(a.data);
	is_int(gt_npz_load(z, "big", &a, &e), 0, "load big");
	ok(a.count == BIGR * BIGC && memcmp(a.data, big, sizeof(float) * BIGR * BIGC) == 0,
	   "big round-trips");
	free(a.data);
	is_int(gt_npz_load(z, "nope", &a, &e), GT_ENOTFOUND, "missing array: GT_ENOTFOUND");
	gt_npz_close(z);
}

/* the first entry's NPY header, inflated by hand: magic, v1.0, 64-byte data alignment */
static void check_header(const uint8_t *buf, long n)
{
	unsigned nl = buf[26] | buf[27] << 8, xl = buf[28] | buf[29] << 8;
	uint32_t cs = buf[18] | buf[19] << 8 | buf[20] << 16 | (uint32_t)buf[21] << 24;
	is_int(buf[8] | buf[9] << 8, 8, "first entry deflated (method 8)");
	ok(nl == 5 && memcmp(buf + 30, "a.npy", 5) == 0, "first entry named a.npy");
	uint8_t out[256];
	uLongf outn = sizeof out;
	z_stream s;
	memset(&s, 0, sizeof s);
	inflateInit2(&s, -15);
	s.next_in = (uint8_t *)buf + 30 + nl + xl;
	s.avail_in = cs;
	s.next_out = out;
	s.avail_out = outn;
	int rc = inflate(&s, Z_FINISH);
	inflateEnd(&s);
	ok(rc == Z_STREAM_END && s.total_out == 128 + 48, "a.npy inflates to 176 bytes");
	ok(memcmp(out, "\x93NUMPY\x01\x00", 8) == 0, "NPY magic, version 1.0");
	unsigned hl = out[8] | out[9] << 8;
	is_int((10 + hl) % 64, 0, "data starts at a multiple of 64");
	ok(out[10 + hl - 1] == '\n', "header ends with a newline");
	ok(memmem(out, 10 + hl, "'descr': '<f4'", 14) && memmem(out, 10 + hl, "(3, 4)", 6),
	   "header: descr '<f4', shape (3, 4)");
	(void)n;
}

static void check_numpy_reads(const char *path)
{
	char cmd[1024], line[256];
	snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/tests/npz_check.py read %s", test_src(), path);
	FILE *p = popen(cmd, "r");
	double bigsum = 0;
	for (int i = 0; i < BIGR * BIGC; i++)
		bigsum += big[i];
	char bigline[128];
	snprintf(bigline, sizeof bigline, "big <f4 200x362 %.1f C", bigsum);
	const char *want[] = {
		"a <f4 3x4 33.0 C",
		"b |i1 5 4.0 C",
		bigline,
		"c |u1 2x3x5 435.0 C",
		"d <i8 2 1099511627771.0 C",
		"e <i4 scalar 42.0 C",
		"empty <f4 0x7 0.0 C",
	};
	int i = 0;
	while (p && fgets(line, sizeof line, p)) {
		line[strcspn(line, "\n")] = 0;
		if (i < 7)
			is_str(line, want[i], "numpy reads array %d as gt wrote it", i);
		i++;
	}
	is_int(p ? pclose(p) : -1, 0, "numpy exits 0");
	is_int(i, 7, "numpy sees 7 arrays");
}

static void check_reads_numpy(void)
{
	char cmd[1024], path[512];
	snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/tests/npz_check.py write %s", test_src(), dir);
	is_int(system(cmd), 0, "numpy writes savez and savez_compressed files");
	const char *names[] = {"np_stored.npz", "np_deflated.npz"};
	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[k]);
		gt_error e = {0};
		gt_npz *z = gt_npz_open(path, &e);
		if (!ok(z != NULL, "open %s", names[k])) {
			diag("%s", e.text);
			continue;
		}
		gt_npz_array a;
		int64_t shp[3] = {3, 4};
		is_int(gt_npz_load_as(z, "a", GT_F4, 2, shp, &a, &e), 0, "%s: a", names[k]);
		ok(a.data && memcmp(a.data, a_f4, sizeof a_f4) == 0, "%s: a values", names[k]);
		free(a.data);
		int64_t sb[1] = {5};
		is_int(gt_npz_load_as(z, "b", GT_I1, 1, sb, &a, &e), 0, "%s: b", names[k]);
		ok(a.data && memcmp(a.data, b_i1, 5) == 0, "%s: b values", names[k]);
		free(a.data);
		int64_t sc[3] = {2, 3, 5};
		is_int(gt_npz_load_as(z, "c", GT_U1, 3, sc, &a, &e), 0, "%s: c", names[k]);
		ok(a.data && memcmp(a.data, c_u1, 30) == 0, "%s: c values", names[k]);
		free(a.data);
		is_int(gt_npz_load(z, "d", &a, &e), 0, "%s: d", names[k]);
		ok(a.data && a.dtype == GT_I8 && memcmp(a.data, d_i8, 16) == 0, "%s: d values", names[k]);
		free(a.data);
		is_int(gt_npz_load(z, "e", &a, &e), 0, "%s: e", names[k]);
		ok(a.data && a.ndim == 0 && *(int32_t *)a.data == 42, "%s: e scalar", names[k]);
		free(a.data);
		gt_npz_close(z);
	}
	const char *refused[] = {"np_fortran.npz", "np_bigendian.npz", "np_complex.npz"};
	const char *why[] = {"Fortran", "'>f4'", "'<c8'"};
	for (int k = 0; k < 3; k++) {
		snprintf(path, sizeof path, "%s/%s", dir, refused[k]);
		gt_error e = {0};
		gt_npz *z = gt_npz_open(path, &e);
		ok(z == NULL && strstr(e.text, why[k]) != NULL, "%s refused: %s", refused[k], e.text);
		gt_npz_close(z);
	}
}

static void check_corruption(const char *path)
{
	size_t len = 0;
	uint8_t *buf = slurp(path, &len), *tmp = malloc(len);
	long n = (long)len;
	char bad[512];
	snprintf(bad, sizeof bad, "%s/bad.npz", dir);
	check_header(buf, n);

	/* every truncation: open or load fails, never crashes */
	int trunc_fail = 0, trunc_n = 0;
	for (long k = 0; k < n; k += (k < 200 || k > n - 200) ? 1 : 97) {
		spew(bad, buf, k);
		gt_error e = {0};
		trunc_n++;
		trunc_fail += load_all(bad, &e) != 0;
	}
	is_int(trunc_fail, trunc_n, "all %d truncations give an error", trunc_n);

	/* one byte flipped in the middle of the last entry's data (big) */
	uint32_t cdoff = buf[n - 6] | buf[n - 5] << 8 | buf[n - 4] << 16 | (uint32_t)buf[n - 3] << 24;
	memcpy(tmp, buf, n);
	tmp[cdoff - 3000] ^= 0x10;
	spew(bad, tmp, n);
	gt_error e = {0};
	int rc = load_all(bad, &e);
	ok(rc == GT_ECHECKSUM || rc == GT_EFORMAT, "flipped data byte: error (%s)", e.text);
	ok(strstr(e.text, "big.npy") != NULL, "the message names the array");

	/* the crc of the first central entry changed: GT_ECHECKSUM */
	memcpy(tmp, buf, n);
	tmp[cdoff + 16] ^= 0x01;
	spew(bad, tmp, n);
	rc = load_all(bad, &e);
	is_int(rc, GT_ECHECKSUM, "wrong crc32: GT_ECHECKSUM (%s)", e.text);

	/* every byte flipped in turn (sampled): no crash, and most fail */
	int flips = 0, fails = 0;
	for (long k = 0; k < n; k += (k < 300 || k > cdoff - 64) ? 1 : 61) {
		memcpy(tmp, buf, n);
		tmp[k] ^= 0xa5;
		spew(bad, tmp, n);
		flips++;
		fails += load_all(bad, &e) != 0;
	}
	ok(fails > flips / 2, "flipped bytes: %d of %d give an error, none crash", fails, flips);

	/* garbage and empty files */
	spew(bad, (const uint8_t *)"PK\x05\x06", 4);
	ok(gt_npz_open(bad, &e) == NULL, "4-byte file refused: %s", e.text);
	ok(gt_npz_open("/nonexistent/x.npz", &e) == NULL && strstr(e.text, "/nonexistent"),
	   "missing file refused: %s", e.text);
	free(buf);
	free(tmp);
}

int main(void)
{
	test_tmpdir(dir, sizeof dir, "npz");
	for (int i = 0; i < 12; i++)
		a_f4[i] = i * 0.5f;
	for (int i = 0; i < 30; i++)
		c_u1[i] = (uint8_t)i;
	big = malloc(sizeof(float) * BIGR * BIGC);
	uint32_t s = 12345;
	for (int i = 0; i < BIGR * BIGC; i++) {
		s = s * 1103515245u + 12345u;
		big[i] = (s >> 16) % 8 == 0 ? (float)((s >> 20) % 5) : 0.0f;
	}
	char path[512], path2[512];
	snprintf(path, sizeof path, "%s/ours.npz", dir);
	snprintf(path2, sizeof path2, "%s/ours2.npz", dir);
	unsigned char sha1[32], sha2[32];
	uint64_t bytes1 = 0, bytes2 = 0;
	is_int(write_file(path, 1, sha1, &bytes1), 0, "write 7 arrays");
	is_int(write_file(path2, 1, sha2, &bytes2), 0, "write them again");
	size_t n = 0;
	uint8_t *b = slurp(path, &n);
	is_int(n, bytes1, "reported length is the file's");
	free(b);
	ok(bytes1 == bytes2 && memcmp(sha1, sha2, 32) == 0, "same input, same bytes and sha256");
	ok(bytes1 < BIGR * BIGC * 4 / 3, "sparse floats compress (%llu bytes)",
	   (unsigned long long)bytes1);
	check_ours(path);
	if (access("/usr/bin/python3", X_OK) == 0 &&
	    system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") == 0) {
		check_numpy_reads(path);
		check_reads_numpy();
	} else {
		diag("no /usr/bin/python3 with numpy: numpy checks skipped");
	}
	check_corruption(path);
	free(big);
	test_rmdir(dir);
	return done_testing();
}
