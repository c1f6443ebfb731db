/* util: little-endian bytes (hand-written expectations), hex, clocks. */
#include "util.h"
#include "tap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(void)
{
	uint8_t b[8];
	gt_le_put16(b, 0x1234);
	ok(b[0] == 0x34 && b[1] == 0x12, "put16: low byte first");
	is_int(gt_le_get16((const uint8_t[]){0xfe, 0xca}), 0xcafe, "get16");
	gt_le_put32(b, 0x89abcdefu);
	ok(b[0] == 0xef && b[1] == 0xcd && b[2] == 0xab && b[3] == 0x89, "put32");
	ok(gt_le_get32((const uint8_t[]){0x78, 0x56, 0x34, 0x12}) == 0x12345678u, "get32");
	ok(gt_le_get32((const uint8_t[]){0, 0, 0, 0x80}) == 0x80000000u, "get32: the top bit");
	gt_le_put64(b, 0x0102030405060708ull);
	ok(b[0] == 8 && b[3] == 5 && b[7] == 1, "put64");
	ok(gt_le_get64((const uint8_t[]){0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0xff}) ==
	   0xff02030405060708ull, "get64");
	/* 1.0f is 0x3f800000, -2.0 is 0xc000000000000000 (IEEE 754) */
	gt_le_putf(b, 1.0f);
	ok(b[0] == 0 && b[1] == 0 && b[2] == 0x80 && b[3] == 0x3f, "putf(1.0)");
	is_dbl(gt_le_getf((const uint8_t[]){0, 0, 0xc0, 0xbf}), -1.5, 0, "getf: -1.5");
	gt_le_putd(b, -2.0);
	ok(b[7] == 0xc0 && b[6] == 0 && b[0] == 0, "putd(-2.0)");
	is_dbl(gt_le_getd(b), -2.0, 0, "getd back");
	float x[3] = {1.0f, -0.5f, 3.25f}, y[3];
	uint8_t buf[12];
	gt_le_putf_n(buf, x, 3);
	gt_le_getf_n(buf, y, 3);
	ok(buf[4 + 3] == 0xbf && y[0] == 1.0f && y[1] == -0.5f && y[2] == 3.25f, "putf_n, getf_n");

	char hex[65];
	is_str(gt_hex(hex, (const uint8_t[]){0x00, 0x0f, 0xa5, 0xff}, 4), "000fa5ff", "hex");
	is_str(gt_hex(hex, "", 0), "", "hex of nothing");

	double t0 = gt_now();
	struct timespec ts = {0, 2000000};
	nanosleep(&ts, NULL);
	ok(gt_now() - t0 >= 0.0015, "gt_now advances over a 2 ms sleep");
	double w = gt_wall();
	ok(w > 1.6e9 && w - (double)time(NULL) < 2 && (double)time(NULL) - w < 2,
	   "gt_wall is seconds since the epoch");

	/* gt_grow: doubling from first until need fits; the contents kept */
	int *v = NULL;
	size_t cap = 0;
	v = gt_grow(v, &cap, 1, sizeof *v, 16);
	is_int((int)cap, 16, "grow from nothing: first");
	v[0] = 7;
	v = gt_grow(v, &cap, 16, sizeof *v, 16);
	is_int((int)cap, 16, "no growth when need fits");
	v = gt_grow(v, &cap, 100, sizeof *v, 16);
	ok(cap == 128 && v[0] == 7, "16 doubled to 128 for 100, contents kept");
	long lcap = 0, n = 0;
	for (int i = 0; i < 1000; i++) {
		GT_GROW(v, n + 1, lcap, 4);
		v[n++] = i;
	}
	ok(lcap == 1024 && v[999] == 999 && v[0] == 0, "GT_GROW with a long capacity: 4 to 1024");
	free(v);

	gt_buf tb = {0};
	gt_buf_put(&tb, "ab", 2);
	gt_buf_puts(&tb, "cd");
	for (int i = 0; i < 300; i++)
		gt_buf_printf(&tb, "%03d", i);
	ok(tb.n == 4 + 900 && strlen(tb.p) == tb.n && memcmp(tb.p, "abcd000001", 10) == 0 &&
	   strcmp(tb.p + tb.n - 3, "299") == 0, "gt_buf: put, puts, printf past its first 1024 bytes");
	free(tb.p);

	char iso[32];
	is_str(gt_iso_time(iso, sizeof iso, 0), "1970-01-01T00:00:00Z", "iso time of 0");
	/* 1e9 s: 2001-09-09 01:46:40 UTC (date -u -d @1000000000) */
	is_str(gt_iso_time(iso, sizeof iso, 1000000000), "2001-09-09T01:46:40Z", "iso time of 1e9");
	return done_testing();
}
