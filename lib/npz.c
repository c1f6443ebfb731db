/* npz.c: .npz (zip of NPY v1.0 arrays) writer and reader; see npz.h. */
#include "npz.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define ZIP_DOSDATE 0x0021 /* 1980-01-01: fixed, so a seed gives the same bytes */
#define ZIP_LIMIT 0xffffffffULL

static const struct {
	gt_dtype t;
	size_t size;
	const char *descr;
} dtypes[] = {
	{GT_U1, 1, "|u1"}, {GT_I1, 1, "|i1"}, {GT_I2, 2, "<i2"}, {GT_I4, 4, "<i4"},
	{GT_I8, 8, "<i8"}, {GT_F4, 4, "<f4"}, {GT_F8, 8, "<f8"},
};
#define NDTYPES (sizeof dtypes / sizeof dtypes[0])

size_t gt_dtype_size(gt_dtype t)
{
	for (size_t i = 0; i < NDTYPES; i++)
		if (dtypes[i].t == t)
			return dtypes[i].size;
	return 0;
}

const char *gt_dtype_descr(gt_dtype t)
{
	for (size_t i = 0; i < NDTYPES; i++)
		if (dtypes[i].t == t)
			return dtypes[i].descr;
	return "?";
}

/* ---- writing ---- */

typedef struct zentry {
	char *name;      /* "<name>.npy" */
	uint32_t crc, csize, usize, offset;
} zentry;

struct gt_npz_writer {
	FILE *f;
	int level;
	uint64_t off;
	EVP_MD_CTX *md;
	int nent, cap;
	zentry *ent;
	int failed;
};

gt_npz_writer *gt_npz_writer_new(FILE *f, int level)
{
	gt_npz_writer *w = gt_xcalloc(1, sizeof *w);
	w->f = f;
	w->level = level < 0 ? 0 : level > 9 ? 9 : level;
	w->md = EVP_MD_CTX_new();
	if (!w->md || !EVP_DigestInit_ex(w->md, EVP_sha256(), NULL))
		abort(); /* OpenSSL out of memory */
	return w;
}

void gt_npz_writer_free(gt_npz_writer *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->nent; i++)
		free(w->ent[i].name);
	free(w->ent);
	EVP_MD_CTX_free(w->md);
	free(w);
}

static int wr(gt_npz_writer *w, const void *p, size_t n, gt_error *e)
{
	if (n && fwrite(p, 1, n, w->f) != n) {
		w->failed = 1;
		return gt_error_set(e, GT_EIO, -1, (long)w->off, "write: %s", strerror(errno));
	}
	EVP_DigestUpdate(w->md, p, n);
	w->off += n;
	return 0;
}

static int valid_name(const char *s)
{
	size_t n = strlen(s);
	if (n < 1 || n > 200)
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z')))
			return 0;
	return 1;
}

/* NPY v1.0 header into buf (room for 256 + 24 * GT_NPZ_MAXDIM); returns
 * its length, a multiple of 64. */
static size_t npy_header(char *buf, gt_dtype t, int ndim, const int64_t *shape)
{
	char dict[64 + 24 * GT_NPZ_MAXDIM];
	int k = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
	                 gt_dtype_descr(t));
	for (int d = 0; d < ndim; d++)
		k += snprintf(dict + k, sizeof dict - k, "%s%lld", d ? ", " : "",
		              (long long)shape[d]);
	if (ndim == 1)
		k += snprintf(dict + k, sizeof dict - k, ",");
	k += snprintf(dict + k, sizeof dict - k, "), }");
	size_t total = 10 + (size_t)k + 1;
	total = (total + 63) / 64 * 64;
	size_t hlen = total - 10;
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	gt_le_put16((unsigned char *)buf + 8, (unsigned)hlen);
	memcpy(buf + 10, dict, k);
	memset(buf + 10 + k, ' ', hlen - k - 1);
	buf[total - 1] = '\n';
	return total;
}

/* Raw-deflate the concatenation of a and b into a new buffer. */
static unsigned char *deflate2(int level, const void *a, size_t na, const void *b, size_t nb,
                               size_t *out)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	size_t cap = deflateBound(&z, (uLong)(na + nb)) + 64;
	unsigned char *buf = gt_xmalloc(cap);
	z.next_out = buf;
	z.avail_out = (uInt)cap;
	const unsigned char *src[2] = {a, b};
	size_t len[2] = {na, nb};
	for (int s = 0; s < 2; s++) {
		const unsigned char *p = src[s];
		size_t left = len[s];
		do {
			size_t chunk = left > (1u << 30) ? (1u << 30) : left;
			z.next_in = (unsigned char *)p;
			z.avail_in = (uInt)chunk;
			int flush = (s == 1 && chunk == left) ? Z_FINISH : Z_NO_FLUSH;
			int rc = deflate(&z, flush);
			if (rc == Z_STREAM_ERROR || (flush == Z_FINISH && rc != Z_STREAM_END))
				abort(); /* cannot happen with a deflateBound buffer */
			p += chunk;
			left -= chunk;
		} while (left);
	}
	*out = z.total_out;
	deflateEnd(&z);
	return buf;
}

int gt_npz_add(gt_npz_writer *w, const char *name, gt_dtype t, int ndim,
               const int64_t *shape, const void *data, gt_error *e)
{
	if (w->failed)
		return gt_error_set(e, GT_EIO, -1, -1, "earlier write failed");
	if (!name || !valid_name(name))
		return gt_error_set(e, GT_EINVAL, -1, -1, "bad array name");
	size_t es = gt_dtype_size(t);
	if (!es || ndim < 0 || ndim > GT_NPZ_MAXDIM)
		return gt_error_set(e, GT_EINVAL, -1, -1, "%s: bad dtype or rank", name);
	uint64_t count = 1;
	for (int d = 0; d < ndim; d++) {
		if (shape[d] < 0 || (shape[d] && count > ZIP_LIMIT / (uint64_t)shape[d]))
			return gt_error_set(e, GT_EINVAL, -1, -1, "%s: bad shape", name);
		count *= (uint64_t)shape[d];
	}
	char fname[216];
	snprintf(fname, sizeof fname, "%s.npy", name);
	for (int i = 0; i < w->nent; i++)
		if (strcmp(w->ent[i].name, fname) == 0)
			return gt_error_set(e, GT_EINVAL, -1, -1, "%s: duplicate array", name);
	char hdr[256 + 24 * GT_NPZ_MAXDIM];
	size_t hl = npy_header(hdr, t, ndim, shape);
	uint64_t usize = hl + count * es;
	if (usize > ZIP_LIMIT || w->off > ZIP_LIMIT - 1024)
		return gt_error_set(e, GT_EINVAL, -1, -1, "%s: more than 4 GiB", name);
	uLong crc = crc32(0, (const Bytef *)hdr, (uInt)hl);
	const unsigned char *p = data;
	for (uint64_t left = count * es; left;) {
		uInt chunk = left > (1u << 30) ? (1u << 30) : (uInt)left;
		crc = crc32(crc, p, chunk);
		p += chunk;
		left -= chunk;
	}
	size_t csize;
	unsigned char *comp = deflate2(w->level, hdr, hl, data, count * es, &csize);
	size_t nl = strlen(fname);
	if (w->off + 30 + nl + csize > ZIP_LIMIT) {
		free(comp);
		return gt_error_set(e, GT_EINVAL, -1, -1, "%s: the zip would pass 4 GiB", name);
	}
	unsigned char lh[30];
	gt_le_put32(lh, SIG_LOCAL);
	gt_le_put16(lh + 4, 20);
	gt_le_put16(lh + 6, 0);
	gt_le_put16(lh + 8, 8);
	gt_le_put16(lh + 10, 0);
	gt_le_put16(lh + 12, ZIP_DOSDATE);
	gt_le_put32(lh + 14, (uint32_t)crc);
	gt_le_put32(lh + 18, (uint32_t)csize);
	gt_le_put32(lh + 22, (uint32_t)usize);
	gt_le_put16(lh + 26, (unsigned)nl);
	gt_le_put16(lh + 28, 0);
	zentry z = {gt_xstrdup(fname), (uint32_t)crc, (uint32_t)csize, (uint32_t)usize,
	            (uint32_t)w->off};
	int rc = wr(w, lh, 30, e);
	if (!rc)
		rc = wr(w, fname, nl, e);
	if (!rc)
		rc = wr(w, comp, csize, e);
	free(comp);
	if (rc) {
		free(z.name);
		return rc;
	}
	GT_GROW(w->ent, w->nent + 1, w->cap, 16);
	w->ent[w->nent++] = z;
	return 0;
}

int gt_npz_finish(gt_npz_writer *w, unsigned char sha256[32], uint64_t *bytes, gt_error *e)
{
	if (w->failed)
		return gt_error_set(e, GT_EIO, -1, -1, "earlier write failed");
	uint64_t cd = w->off;
	for (int i = 0; i < w->nent; i++) {
		zentry *z = &w->ent[i];
		unsigned char ch[46];
		size_t nl = strlen(z->name);
		gt_le_put32(ch, SIG_CENTRAL);
		gt_le_put16(ch + 4, 20);
		gt_le_put16(ch + 6, 20);
		gt_le_put16(ch + 8, 0);
		gt_le_put16(ch + 10, 8);
		gt_le_put16(ch + 12, 0);
		gt_le_put16(ch + 14, ZIP_DOSDATE);
		gt_le_put32(ch + 16, z->crc);
		gt_le_put32(ch + 20, z->csize);
		gt_le_put32(ch + 24, z->usize);
		gt_le_put16(ch + 28, (unsigned)nl);
		gt_le_put16(ch + 30, 0);
		gt_le_put16(ch + 32, 0);
		gt_le_put16(ch + 34, 0);
		gt_le_put16(ch + 36, 0);
		gt_le_put32(ch + 38, 0);
		gt_le_put32(ch + 42, z->offset);
		int rc = wr(w, ch, 46, e);
		if (!rc)
			rc = wr(w, z->name, nl, e);
		if (rc)
			return rc;
	}
	if (w->off > ZIP_LIMIT - 22 || w->nent > 0xffff)
		return gt_error_set(e, GT_EINVAL, -1, -1, "zip too large");
	unsigned char end[22];
	gt_le_put32(end, SIG_END);
	gt_le_put16(end + 4, 0);
	gt_le_put16(end + 6, 0);
	gt_le_put16(end + 8, (unsigned)w->nent);
	gt_le_put16(end + 10, (unsigned)w->nent);
	gt_le_put32(end + 12, (uint32_t)(w->off - cd));
	gt_le_put32(end + 16, (uint32_t)cd);
	gt_le_put16(end + 20, 0);
	int rc = wr(w, end, 22, e);
	if (rc)
		return rc;
	if (fflush(w->f) != 0 || ferror(w->f)) {
		w->failed = 1;
		return gt_error_set(e, GT_EIO, -1, (long)w->off, "write: %s", strerror(errno));
	}
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	EVP_DigestFinal_ex(w->md, md, &mdlen);
	if (sha256)
		memcpy(sha256, md, 32);
	if (bytes)
		*bytes = w->off;
	w->failed = 1; /* finished: no more adds */
	return 0;
}

/* ---- reading ---- */

typedef struct rentry {
	gt_npz_array a;     /* description, data NULL */
	int method;         /* 0 stored, 8 deflate */
	uint32_t crc, csize, usize;
	uint64_t data_off;  /* compressed data in the file */
	uint32_t hdr_len;   /* NPY header bytes before the array data */
} rentry;

struct gt_npz {
	char *path;
	unsigned char *buf; /* the whole file */
	uint64_t size;
	int n;
	rentry *ent;
};

static int bad(gt_error *e, const gt_npz *z, long off, const char *what)
{
	return gt_error_set(e, GT_EFORMAT, -1, off, "%s: %s", z->path, what);
}

/* quoted: the Python string literal at s[*i] ('...' or "...", no escapes)
 * into out (size bytes with its NUL), *i past its closing quote. 0; 1: no
 * quote at s[*i]; 2: longer than out; 3: no closing quote. */
static int quoted(const char *s, size_t n, size_t *i, char *out, size_t size)
{
	if (*i >= n || (s[*i] != '\'' && s[*i] != '"'))
		return 1;
	char q = s[(*i)++];
	size_t k = 0;
	while (*i < n && s[*i] != q) {
		if (k + 1 >= size)
			return 2;
		out[k++] = s[(*i)++];
	}
	out[k] = 0;
	if (*i >= n)
		return 3;
	(*i)++;
	return 0;
}

/* Parse a Python literal dict of an NPY header into a (dtype, ndim, shape,
 * count). Returns 0, GT_EFORMAT or GT_EUNSUPPORTED with e->text. */
static int parse_dict(const char *s, size_t n, gt_npz_array *a, char *why, size_t whylen)
{
	size_t i = 0;
	int got_descr = 0, got_fo = 0, got_shape = 0;
#define SKIP() while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) i++
#define FAIL(code, ...) do { snprintf(why, whylen, __VA_ARGS__); return code; } while (0)
	SKIP();
	if (i >= n || s[i] != '{')
		FAIL(GT_EFORMAT, "NPY header is not a dict");
	i++;
	for (;;) {
		SKIP();
		if (i < n && s[i] == '}')
			break;
		char key[32];
		switch (quoted(s, n, &i, key, sizeof key)) {
		case 1: FAIL(GT_EFORMAT, "NPY header: expected a key");
		case 2: FAIL(GT_EFORMAT, "NPY header: key too long");
		case 3: FAIL(GT_EFORMAT, "NPY header: unterminated key");
		}
		SKIP();
		if (i >= n || s[i] != ':')
			FAIL(GT_EFORMAT, "NPY header: expected ':'");
		i++;
		SKIP();
		if (strcmp(key, "descr") == 0) {
			char d[16];
			switch (quoted(s, n, &i, d, sizeof d)) {
			case 1: FAIL(GT_EUNSUPPORTED, "NPY header: structured dtype");
			case 2: FAIL(GT_EUNSUPPORTED, "NPY header: unsupported dtype");
			case 3: FAIL(GT_EFORMAT, "NPY header: unterminated descr");
			}
			size_t dk = strlen(d);
			/* single-byte types are written with '|'; accept '<' and '=' too */
			if (dk == 3 && (d[0] == '<' || d[0] == '|' || d[0] == '=')) {
				a->dtype = 0;
				for (size_t t = 0; t < NDTYPES; t++)
					if (strcmp(dtypes[t].descr + 1, d + 1) == 0 &&
					    (d[0] != '|' || dtypes[t].size == 1))
						a->dtype = dtypes[t].t;
				if (!a->dtype)
					FAIL(GT_EUNSUPPORTED, "unsupported dtype '%s'", d);
			} else {
				FAIL(GT_EUNSUPPORTED, "unsupported dtype '%s'", d);
			}
			got_descr = 1;
		} else if (strcmp(key, "fortran_order") == 0) {
			if (n - i >= 5 && memcmp(s + i, "False", 5) == 0)
				i += 5;
			else if (n - i >= 4 && memcmp(s + i, "True", 4) == 0)
				FAIL(GT_EUNSUPPORTED, "Fortran-order array");
			else
				FAIL(GT_EFORMAT, "NPY header: bad fortran_order");
			got_fo = 1;
		} else if (strcmp(key, "shape") == 0) {
			if (i >= n || s[i] != '(')
				FAIL(GT_EFORMAT, "NPY header: bad shape");
			i++;
			a->ndim = 0;
			a->count = 1;
			for (;;) {
				SKIP();
				if (i < n && s[i] == ')') {
					i++;
					break;
				}
				if (i >= n || s[i] < '0' || s[i] > '9')
					FAIL(GT_EFORMAT, "NPY header: bad shape");
				int64_t v = 0;
				while (i < n && s[i] >= '0' && s[i] <= '9') {
					if (v > (INT64_C(1) << 40))
						FAIL(GT_EFORMAT, "NPY header: dimension too large");
					v = v * 10 + (s[i++] - '0');
				}
				if (a->ndim >= GT_NPZ_MAXDIM)
					FAIL(GT_EUNSUPPORTED, "more than %d dimensions", GT_NPZ_MAXDIM);
				a->shape[a->ndim++] = v;
				if (v && a->count > (INT64_C(1) << 40) / v)
					FAIL(GT_EFORMAT, "NPY header: array too large");
				a->count *= v;
				SKIP();
				if (i < n && s[i] == ',')
					i++;
			}
			got_shape = 1;
		} else {
			FAIL(GT_EFORMAT, "NPY header: unknown key '%s'", key);
		}
		SKIP();
		if (i < n && s[i] == ',')
			i++;
	}
	if (!got_descr || !got_fo || !got_shape)
		FAIL(GT_EFORMAT, "NPY header: missing descr, fortran_order or shape");
#undef SKIP
#undef FAIL
	return 0;
}

/* inflate_entry: s set to inflate entry r's raw deflate stream into
 * out[0..want) (inflateInit2 fails only without memory: abort) */
static void inflate_entry(z_stream *s, const gt_npz *z, const rentry *r, unsigned char *out,
                          uInt want)
{
	memset(s, 0, sizeof *s);
	if (inflateInit2(s, -15) != Z_OK)
		abort();
	s->next_in = (unsigned char *)z->buf + r->data_off;
	s->avail_in = r->csize;
	s->next_out = out;
	s->avail_out = want;
}

/* Inflate (or copy) the first want bytes of entry r into out; returns the
 * bytes produced (may be fewer at the end of a short stream), or -1 on a
 * corrupt stream. */
static long peek_entry(const gt_npz *z, const rentry *r, unsigned char *out, size_t want)
{
	const unsigned char *src = z->buf + r->data_off;
	if (r->method == 0) {
		size_t k = want < r->csize ? want : r->csize;
		memcpy(out, src, k);
		return (long)k;
	}
	z_stream s;
	inflate_entry(&s, z, r, out, (uInt)want);
	int rc = inflate(&s, Z_SYNC_FLUSH);
	long got = (long)s.total_out;
	inflateEnd(&s);
	if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
		return -1;
	return got;
}

static int read_npy_header(gt_npz *z, rentry *r, gt_error *e)
{
	unsigned char head[12];
	char why[160];
	long got = peek_entry(z, r, head, sizeof head);
	if (got < 10 || memcmp(head, "\x93NUMPY", 6) != 0)
		return gt_error_set(e, GT_EFORMAT, -1, (long)r->data_off, "%s: %s.npy: not an NPY array",
		                    z->path, r->a.name);
	uint32_t hlen, pre;
	if (head[6] == 1) {
		hlen = gt_le_get16(head + 8);
		pre = 10;
	} else if ((head[6] == 2 || head[6] == 3) && got >= 12) {
		hlen = gt_le_get32(head + 8);
		pre = 12;
	} else {
		return gt_error_set(e, GT_EUNSUPPORTED, -1, (long)r->data_off,
		                    "%s: %s.npy: NPY version %d", z->path, r->a.name, head[6]);
	}
	if (hlen > (1u << 20) || pre + hlen > r->usize)
		return gt_error_set(e, GT_EFORMAT, -1, (long)r->data_off,
		                    "%s: %s.npy: bad NPY header length", z->path, r->a.name);
	unsigned char *h = gt_xmalloc(pre + hlen);
	got = peek_entry(z, r, h, pre + hlen);
	int rc = 0;
	if (got != (long)(pre + hlen))
		rc = gt_error_set(e, GT_EFORMAT, -1, (long)r->data_off,
		                  "%s: %s.npy: truncated NPY header", z->path, r->a.name);
	else if ((rc = parse_dict((char *)h + pre, hlen, &r->a, why, sizeof why)) != 0)
		gt_error_set(e, rc, -1, (long)r->data_off, "%s: %s.npy: %s", z->path, r->a.name, why);
	free(h);
	if (rc)
		return rc;
	r->hdr_len = pre + hlen;
	uint64_t want = (uint64_t)r->a.count * gt_dtype_size(r->a.dtype);
	if (want != r->usize - r->hdr_len)
		return gt_error_set(e, GT_EFORMAT, -1, (long)r->data_off,
		                    "%s: %s.npy: shape needs %llu bytes, entry holds %llu", z->path,
		                    r->a.name, (unsigned long long)want,
		                    (unsigned long long)(r->usize - r->hdr_len));
	return 0;
}

static int parse_zip(gt_npz *z, gt_error *e)
{
	const unsigned char *b = z->buf;
	uint64_t size = z->size, eocd = UINT64_MAX;
	if (size < 22)
		return bad(e, z, 0, "too short for a zip file");
	uint64_t lo = size > 22 + 65535 ? size - 22 - 65535 : 0;
	for (uint64_t p = size - 22 + 1; p-- > lo;)
		if (gt_le_get32(b + p) == SIG_END && p + 22 + gt_le_get16(b + p + 20) == size) {
			eocd = p;
			break;
		}
	if (eocd == UINT64_MAX)
		return bad(e, z, (long)size, "no zip end record (truncated?)");
	const unsigned char *d = b + eocd;
	unsigned nent = gt_le_get16(d + 10);
	uint32_t cdsize = gt_le_get32(d + 12), cdoff = gt_le_get32(d + 16);
	if (gt_le_get16(d + 4) || gt_le_get16(d + 6) || gt_le_get16(d + 8) != nent)
		return gt_error_set(e, GT_EUNSUPPORTED, -1, (long)eocd, "%s: multi-disk zip", z->path);
	if (nent == 0xffff || cdoff == 0xffffffffu || cdsize == 0xffffffffu)
		return gt_error_set(e, GT_EUNSUPPORTED, -1, (long)eocd, "%s: ZIP64", z->path);
	if ((uint64_t)cdoff + cdsize > eocd)
		return bad(e, z, (long)eocd, "central directory out of the file");
	z->ent = gt_xcalloc(nent ? nent : 1, sizeof *z->ent);
	uint64_t p = cdoff, cdend = (uint64_t)cdoff + cdsize;
	for (unsigned i = 0; i < nent; i++) {
		if (p + 46 > cdend || gt_le_get32(b + p) != SIG_CENTRAL)
			return bad(e, z, (long)p, "bad central directory entry");
		const unsigned char *c = b + p;
		unsigned flags = gt_le_get16(c + 8), method = gt_le_get16(c + 10);
		unsigned nl = gt_le_get16(c + 28), xl = gt_le_get16(c + 30), cl = gt_le_get16(c + 32);
		rentry *r = &z->ent[i];
		r->crc = gt_le_get32(c + 16);
		r->csize = gt_le_get32(c + 20);
		r->usize = gt_le_get32(c + 24);
		uint32_t loff = gt_le_get32(c + 42);
		if (p + 46 + nl + xl + cl > cdend)
			return bad(e, z, (long)p, "central directory entry out of the directory");
		if (flags & 0x41)
			return gt_error_set(e, GT_EUNSUPPORTED, -1, (long)p, "%s: encrypted entry", z->path);
		if (method != 0 && method != 8)
			return gt_error_set(e, GT_EUNSUPPORTED, -1, (long)p,
			                    "%s: compression method %u", z->path, method);
		if (r->csize == 0xffffffffu || r->usize == 0xffffffffu || loff == 0xffffffffu)
			return gt_error_set(e, GT_EUNSUPPORTED, -1, (long)p, "%s: ZIP64 entry", z->path);
		if (nl < 5 || nl - 4 >= sizeof r->a.name || memcmp(c + 46 + nl - 4, ".npy", 4) != 0)
			return bad(e, z, (long)p, "entry is not a .npy array");
		memcpy(r->a.name, c + 46, nl - 4);
		r->a.name[nl - 4] = 0;
		if (memchr(r->a.name, 0, nl - 4))
			return bad(e, z, (long)p, "NUL in an entry name");
		for (unsigned j = 0; j < i; j++)
			if (strcmp(z->ent[j].a.name, r->a.name) == 0)
				return bad(e, z, (long)p, "duplicate entry name");
		if ((uint64_t)loff + 30 > cdoff || gt_le_get32(b + loff) != SIG_LOCAL)
			return bad(e, z, (long)loff, "bad local header");
		uint64_t doff = (uint64_t)loff + 30 + gt_le_get16(b + loff + 26) + gt_le_get16(b + loff + 28);
		if (doff + r->csize > cdoff)
			return bad(e, z, (long)loff, "entry data out of the file");
		if (method == 0 && r->csize != r->usize)
			return bad(e, z, (long)p, "stored entry with two sizes");
		/* deflate expands by at most 1032:1 */
		if (method == 8 && (uint64_t)r->usize > (uint64_t)r->csize * 1032 + 64)
			return bad(e, z, (long)p, "implausible uncompressed size");
		r->method = (int)method;
		r->data_off = doff;
		z->n = (int)i + 1;
		int rc = read_npy_header(z, r, e);
		if (rc)
			return rc;
		p += 46 + nl + xl + cl;
	}
	return 0;
}

gt_npz *gt_npz_open(const char *path, gt_error *e)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
		return NULL;
	}
	gt_npz *z = gt_xcalloc(1, sizeof *z);
	z->path = gt_xstrdup(path);
	int rc = 0;
	if (fseeko(f, 0, SEEK_END) != 0 || ftello(f) < 0) {
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
	} else {
		off_t sz = ftello(f);
		if ((uint64_t)sz > ZIP_LIMIT + 65536ULL) {
			rc = gt_error_set(e, GT_EUNSUPPORTED, -1, -1, "%s: larger than 4 GiB", path);
		} else {
			z->size = (uint64_t)sz;
			z->buf = gt_xmalloc(z->size ? z->size : 1);
			rewind(f);
			if (fread(z->buf, 1, z->size, f) != z->size)
				rc = gt_error_set(e, GT_EIO, -1, -1, "%s: short read", path);
		}
	}
	fclose(f);
	if (!rc)
		rc = parse_zip(z, e);
	if (rc) {
		gt_npz_close(z);
		return NULL;
	}
	return z;
}

void gt_npz_close(gt_npz *z)
{
	if (!z)
		return;
	gt_free_all(z->buf, z->ent, z->path, z);
}

void gt_npz_sha256(const gt_npz *z, unsigned char out[32])
{
	unsigned int len = 32;
	if (!EVP_Digest(z->buf, z->size, out, &len, EVP_sha256(), NULL))
		abort(); /* OpenSSL out of memory */
}

int gt_npz_count(const gt_npz *z)
{
	return z->n;
}

int gt_npz_info(const gt_npz *z, int i, gt_npz_array *a)
{
	if (i < 0 || i >= z->n)
		return GT_EINVAL;
	*a = z->ent[i].a;
	a->data = NULL;
	return 0;
}

int gt_npz_find(const gt_npz *z, const char *name)
{
	for (int i = 0; i < z->n; i++)
		if (strcmp(z->ent[i].a.name, name) == 0)
			return i;
	return GT_ENOTFOUND;
}

int gt_npz_load(gt_npz *z, const char *name, gt_npz_array *a, gt_error *e)
{
	int i = gt_npz_find(z, name);
	a->data = NULL;
	if (i < 0)
		return gt_error_set(e, GT_ENOTFOUND, -1, -1, "%s: no array '%s'", z->path, name);
	rentry *r = &z->ent[i];
	*a = r->a;
	size_t nbytes = r->usize - r->hdr_len;
	unsigned char *data = gt_xmalloc(nbytes ? nbytes : 1);
	uLong crc;
	const unsigned char *src = z->buf + r->data_off;
	if (r->method == 0) {
		memcpy(data, src + r->hdr_len, nbytes);
		crc = crc32(0, src, r->usize); /* stored sizes are < 4 GiB: one call */
	} else {
		unsigned char *hdr = gt_xmalloc(r->hdr_len);
		z_stream s;
		inflate_entry(&s, z, r, hdr, r->hdr_len);
		int rc = Z_OK;
		while (rc == Z_OK && s.avail_out)
			rc = inflate(&s, Z_NO_FLUSH);
		if (rc == Z_OK || (rc == Z_STREAM_END && s.avail_out == 0 && nbytes == 0)) {
			s.next_out = data;
			s.avail_out = (uInt)nbytes;
			while (rc == Z_OK)
				rc = inflate(&s, Z_FINISH);
			if (rc == Z_BUF_ERROR && s.avail_out == 0 && s.avail_in)
				rc = Z_DATA_ERROR; /* more data than the entry's size */
		}
		int ok = rc == Z_STREAM_END && s.total_out == r->usize && s.avail_in == 0;
		inflateEnd(&s);
		crc = ok ? crc32(crc32(0, hdr, r->hdr_len), data, (uInt)nbytes) : 0;
		free(hdr);
		if (!ok) {
			free(data);
			return gt_error_set(e, GT_EFORMAT, -1, (long)r->data_off,
			                    "%s: %s.npy: corrupt or truncated deflate data", z->path, name);
		}
	}
	if ((uint32_t)crc != r->crc) {
		free(data);
		return gt_error_set(e, GT_ECHECKSUM, -1, (long)r->data_off,
		                    "%s: %s.npy: crc32 mismatch", z->path, name);
	}
	a->data = data;
	return 0;
}

int gt_npz_load_as(gt_npz *z, const char *name, gt_dtype t, int ndim, int64_t *shape,
                   gt_npz_array *a, gt_error *e)
{
	int i = gt_npz_find(z, name);
	a->data = NULL;
	if (i < 0)
		return gt_error_set(e, GT_ENOTFOUND, -1, -1, "%s: no array '%s'", z->path, name);
	const gt_npz_array *h = &z->ent[i].a;
	int okshape = h->dtype == t && h->ndim == ndim;
	for (int d = 0; okshape && d < ndim; d++)
		if (shape[d] >= 0 && shape[d] != h->shape[d])
			okshape = 0;
	if (!okshape)
		return gt_error_set(e, GT_EFORMAT, -1, -1, "%s: array '%s' has the wrong dtype or shape",
		                    z->path, name);
	int rc = gt_npz_load(z, name, a, e);
	if (!rc)
		for (int d = 0; d < ndim; d++)
			shape[d] = h->shape[d];
	return rc;
}
