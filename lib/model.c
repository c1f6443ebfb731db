/* model.c: network files (see model.h and man5 gt-model for the layout). */
#include "model.h"
#include "feat.h"
#include "fs.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* the number after p[0] == tag into *v; 0, or -1 when none is there */
static int arch_num(const char **p, char tag, long *v)
{
	if (**p != tag || !isdigit((unsigned char)(*p)[1]))
		return -1;
	char *end;
	errno = 0;
	*v = strtol(*p + 1, &end, 10);
	if (errno || *v > INT_MAX)
		*v = INT_MAX;
	*p = end;
	return 0;
}

int gt_model_parse_arch(const char *s, gt_arch *a, gt_error *e)
{
	long v[2], every = 0, pooled = -1;
	const char *p = s;
	if (!s)
		return gt_error_set(e, GT_EFORMAT, -1, -1, "no architecture");
	for (int i = 0; i < 2; i++)
		if (arch_num(&p, i ? 'c' : 'b', &v[i]))
			return gt_error_set(e, GT_EFORMAT, -1, p - s,
			                    "architecture '%s': want b<blocks>c<channels>[g<every>[p<pooled>]][a], "
			                    "e.g. b6c64 or b6c96g2a", s);
	if (arch_num(&p, 'g', &every) == 0) {
		if (every < 1)
			return gt_error_set(e, GT_EFORMAT, -1, p - s,
			                    "architecture '%s': global pooling every 0 blocks", s);
		arch_num(&p, 'p', &pooled);
	}
	int aux = *p == 'a';
	p += aux;
	if (*p)
		return gt_error_set(e, GT_EFORMAT, -1, p - s,
		                    "architecture '%s': trailing '%s'", s, p);
	gt_arch_default(a, (int)v[0], (int)v[1], GT_FEAT_PLANES, GT_FEAT_GLOBALS, GT_FEAT_VERSION);
	if (every) {
		a->gpool_every = (int)every;
		a->gpool_channels = pooled >= 0 ? (int)pooled : gt_arch_gpool_default(a->channels);
	}
	if (aux)
		a->heads |= GT_ARCH_AUX_POLICY;
	return gt_arch_check(a, e);
}

char *gt_model_arch_name(const gt_arch *a, char *buf, size_t size)
{
	int k = snprintf(buf, size, "b%dc%d", a->blocks, a->channels);
	if (a->gpool_every && k >= 0 && (size_t)k < size)
		k += snprintf(buf + k, size - k, "g%d", a->gpool_every);
	if (a->gpool_every && a->gpool_channels != gt_arch_gpool_default(a->channels) && k >= 0 &&
	    (size_t)k < size)
		k += snprintf(buf + k, size - k, "p%d", a->gpool_channels);
	if ((a->heads & GT_ARCH_AUX_POLICY) && k >= 0 && (size_t)k < size)
		snprintf(buf + k, size - k, "a");
	return buf;
}

int gt_model_version(const gt_arch *a)
{
	return a->gpool_every || a->heads ? 2 : 1;
}

gt_model *gt_model_new(const gt_arch *a, gt_error *e)
{
	if (gt_arch_check(a, e))
		return NULL;
	size_t np = gt_arch_nparams(a);
	if (np > GT_MODEL_MAX_PARAMS) {
		gt_error_set(e, GT_EFORMAT, -1, -1, "%zu parameters, more than %lu", np,
		             (unsigned long)GT_MODEL_MAX_PARAMS);
		return NULL;
	}
	gt_model *m = gt_xcalloc(1, sizeof *m);
	m->arch = *a;
	m->nparams = np;
	m->params = gt_xcalloc(np, sizeof(float));
	strcpy(m->meta.series, "gt");
	return m;
}

gt_model *gt_model_new_random(const gt_arch *a, uint64_t seed, gt_error *e)
{
	gt_model *m = gt_model_new(a, e);
	if (m)
		gt_arch_init_params(a, m->params, seed);
	return m;
}

void gt_model_free(gt_model *m)
{
	if (!m)
		return;
	free(m->params);
	free(m);
}

static int series_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_')
			return 0;
	return 1;
}

int gt_model_check(const gt_model *m, gt_error *e)
{
	if (memchr(m->meta.series, 0, sizeof m->meta.series) == NULL ||
	    !series_ok(m->meta.series))
		return gt_error_set(e, GT_EFORMAT, -1, -1,
		                    "series name must be 1-63 characters of [A-Za-z0-9._]");
	for (size_t i = 0; i < m->nparams; i++)
		if (!isfinite(m->params[i])) {
			int nt = gt_arch_ntensors(&m->arch);
			for (int k = 0; k < nt; k++) {
				gt_tensor t;
				gt_arch_tensor(&m->arch, k, &t);
				if (i >= t.offset && i < t.offset + t.size)
					return gt_error_set(e, GT_EFORMAT, -1, -1,
					                    "parameter %s[%zu] is not finite",
					                    t.name, i - t.offset);
			}
			return gt_error_set(e, GT_EFORMAT, -1, -1, "parameter %zu is not finite", i);
		}
	return 0;
}

/* ---- little-endian header fields ---- */

/* floats to/from little-endian bytes in place (a no-op on x86) */
static void float_le(float *f, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	for (size_t i = 0; i < n; i++) {
		uint32_t u;
		memcpy(&u, &f[i], 4);
		u = __builtin_bswap32(u);
		memcpy(&f[i], &u, 4);
	}
#else
	(void)f;
	(void)n;
#endif
}

/* Header: see man5 gt-model; h holds GT_MODEL_HEADER2_BYTES, of which a
 * version 1 file takes the first GT_MODEL_HEADER_BYTES. */
static void header_pack(const gt_model *m, uint8_t *h)
{
	const gt_arch *a = &m->arch;
	uint32_t f[11] = {a->blocks, a->channels, a->in_planes, a->globals,
	                  a->feat_version, a->head_policy, a->head_value,
	                  a->value_hidden, a->max_n,
	                  (uint32_t)(a->max_n * a->max_n + 1), (uint32_t)(a->max_n * a->max_n)};
	memset(h, 0, GT_MODEL_HEADER2_BYTES);
	memcpy(h, GT_MODEL_MAGIC, 4);
	gt_le_put32(h + 4, (uint32_t)gt_model_version(a));
	gt_le_put32(h + 172, (uint32_t)a->gpool_every);
	gt_le_put32(h + 176, (uint32_t)a->gpool_channels);
	gt_le_put32(h + 180, (uint32_t)a->heads);
	for (int i = 0; i < 11; i++)
		gt_le_put32(h + 8 + 4 * i, f[i]);
	gt_le_put64(h + 52, m->meta.steps);
	gt_le_put64(h + 60, m->meta.rows);
	memcpy(h + 68, m->meta.parent, 32);
	memcpy(h + 100, m->meta.series, GT_MODEL_SERIES_MAX);
	gt_le_put64(h + 164, m->nparams);
}

static int model_write_at(const char *path, const gt_model *m, gt_error *e);

int gt_model_check_path(const char *path, gt_error *e)
{
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return gt_error_set(e, GT_EINVAL, -1, -1, "%s: not a regular file", path);
	char *dir = gt_xstrdup(path), *slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = 0;
	int ok = access(slash ? dir : ".", W_OK) == 0;
	int err = errno;
	free(dir);
	if (!ok)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: cannot write its folder: %s", path, strerror(err));
	return 0;
}

int gt_model_write(const char *path, const gt_model *m, gt_error *e)
{
	int r = gt_model_check(m, e);
	if (r)
		return r;
	/* a symbolic link is followed: the file it names is replaced */
	char *real = NULL;
	struct stat lst;
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && (real = realpath(path, NULL)))
		path = real;
	if ((r = gt_model_check_path(path, e)) != 0) {
		free(real);
		return r;
	}
	r = model_write_at(path, m, e);
	free(real);
	return r;
}

static int model_write_at(const char *path, const gt_model *m, gt_error *e)
{
	gt_fs_atomic a;
	int r = gt_fs_atomic_begin(&a, path, e);
	if (r)
		return r;
	int fd2 = dup(a.fd);
	gzFile gz = fd2 >= 0 ? gzdopen(fd2, "wb1") : NULL;
	uint8_t h[GT_MODEL_HEADER2_BYTES];
	header_pack(m, h);
	int hn = gt_model_version(&m->arch) == 1 ? GT_MODEL_HEADER_BYTES : GT_MODEL_HEADER2_BYTES;
	int ok = gz != NULL && gzwrite(gz, h, hn) == hn;
	size_t chunk = 1 << 20;
	float *buf = gt_xmalloc(chunk * sizeof(float));
	for (size_t i = 0; ok && i < m->nparams; i += chunk) {
		size_t k = m->nparams - i < chunk ? m->nparams - i : chunk;
		memcpy(buf, m->params + i, k * sizeof(float));
		float_le(buf, k);
		ok = gzwrite(gz, buf, (unsigned)(k * sizeof(float))) == (int)(k * sizeof(float));
	}
	free(buf);
	if (gz) {
		if (gzclose(gz) != Z_OK)
			ok = 0;
	} else if (fd2 >= 0) {
		close(fd2);
	}
	if (!ok) {
		int saved = errno;
		gt_fs_atomic_abort(&a);
		return gt_error_set(e, GT_EIO, -1, -1, "%s: write failed: %s", path,
		                    saved ? strerror(saved) : "gzip error");
	}
	return gt_fs_atomic_commit(&a, e);
}

/* zlib's message without the "path: " it prefixes */
static const char *gzmsg(gzFile gz, const char *path)
{
	int errnum;
	const char *m = gzerror(gz, &errnum);
	size_t n = strlen(path);
	if (!strncmp(m, path, n) && !strncmp(m + n, ": ", 2))
		m += n + 2;
	return m;
}

static int fmt_err(gt_error *e, const char *path, long off, const char *what)
{
	return gt_error_set(e, GT_EFORMAT, -1, off, "%s: %s", path, what);
}

/* Does path go on after its first gzip member (zlib's gzread skips bytes
 * there that are no gzip header)? 1 with *end the member's length when
 * it does, 0 when the member ends the file, -1 when it cannot tell (the
 * read then reports the stream's own error). */
static int gz_trailing(const char *path, long long *end)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		fclose(f);
		return -1;
	}
	size_t bs = 1 << 16;
	unsigned char *in = gt_xmalloc(bs), *outb = gt_xmalloc(bs);
	long long pos = 0;
	int rc = Z_OK, more = -1;
	while (rc == Z_OK) {
		if (z.avail_in == 0) {
			size_t k = fread(in, 1, bs, f);
			if (k == 0)
				break;
			z.next_in = in;
			z.avail_in = (uInt)k;
			pos += (long long)k;
		}
		z.next_out = outb;
		z.avail_out = (uInt)bs;
		rc = inflate(&z, Z_NO_FLUSH);
	}
	if (rc == Z_STREAM_END) {
		*end = pos - z.avail_in;
		more = z.avail_in > 0 || fgetc(f) != EOF;
	}
	inflateEnd(&z);
	free(in);
	free(outb);
	fclose(f);
	return more;
}

int gt_model_read(const char *path, gt_model **out, gt_error *e)
{
	*out = NULL;
	gzFile gz = gzopen(path, "rb");
	if (!gz)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path,
		                    errno ? strerror(errno) : "cannot open");
	gzbuffer(gz, 1 << 16);
	uint8_t h[GT_MODEL_HEADER2_BYTES];
	size_t hn = GT_MODEL_HEADER_BYTES;   /* this version's header bytes */
	int got = gzread(gz, h, GT_MODEL_HEADER_BYTES), errnum;
	int r;
	gt_model *m = NULL;
	if (got < 0) {
		r = fmt_err(e, path, 0, gzmsg(gz, path));
		goto fail;
	}
	if (gzdirect(gz)) {
		r = fmt_err(e, path, 0, "not a gzip file");
		goto fail;
	}
	if (got < 4 || memcmp(h, GT_MODEL_MAGIC, 4) != 0) {
		r = fmt_err(e, path, 0, "bad magic (not a gt network file)");
		goto fail;
	}
	uint32_t version = got >= 8 ? gt_le_get32(h + 4) : 0;
	if (got >= 8 && (version < 1 || version > GT_MODEL_VERSION)) {
		char msg[80];
		snprintf(msg, sizeof msg, "unsupported format version %u", version);
		r = fmt_err(e, path, 4, msg);
		goto fail;
	}
	if (version == 2) {
		hn = GT_MODEL_HEADER2_BYTES;
		int more = got == GT_MODEL_HEADER_BYTES
		           ? gzread(gz, h + got, GT_MODEL_HEADER2_BYTES - GT_MODEL_HEADER_BYTES) : 0;
		if (more < 0) {
			r = fmt_err(e, path, got, gzmsg(gz, path));
			goto fail;
		}
		got += more;
	}
	if (got < (int)hn) {
		r = fmt_err(e, path, got, "truncated header");
		goto fail;
	}
	gt_arch a;
	memset(&a, 0, sizeof a);
	uint32_t f[11];
	for (int i = 0; i < 11; i++) {
		f[i] = gt_le_get32(h + 8 + 4 * i);
		if (f[i] > INT_MAX) {
			r = fmt_err(e, path, 8 + 4 * i, "header field out of range");
			goto fail;
		}
	}
	a.blocks = f[0];
	a.channels = f[1];
	a.in_planes = f[2];
	a.globals = f[3];
	a.feat_version = f[4];
	a.head_policy = f[5];
	a.head_value = f[6];
	a.value_hidden = f[7];
	a.max_n = f[8];
	if (version == 2) {
		uint32_t g[3] = {gt_le_get32(h + 172), gt_le_get32(h + 176), gt_le_get32(h + 180)};
		if (g[0] > INT_MAX || g[1] > INT_MAX) {
			r = fmt_err(e, path, 172, "global pooling out of range");
			goto fail;
		}
		if (g[2] & ~(uint32_t)GT_ARCH_HEADS_KNOWN) {
			r = fmt_err(e, path, 180, "unknown heads");
			goto fail;
		}
		if (g[0] == 0 && g[2] == 0) {
			r = fmt_err(e, path, 172,
			            "version 2 without global pooling blocks or auxiliary heads");
			goto fail;
		}
		a.gpool_every = (int)g[0];
		a.gpool_channels = (int)g[1];
		a.heads = (int)g[2];
	}
	gt_error ae;
	if (gt_arch_check(&a, &ae)) {
		r = fmt_err(e, path, 8, ae.text);
		goto fail;
	}
	if (f[9] != (uint32_t)(a.max_n * a.max_n + 1) || f[10] != (uint32_t)(a.max_n * a.max_n)) {
		r = fmt_err(e, path, 44, "head sizes disagree with the board size");
		goto fail;
	}
	size_t np = gt_arch_nparams(&a);
	if (np > GT_MODEL_MAX_PARAMS) {
		r = fmt_err(e, path, 8, "architecture too large");
		goto fail;
	}
	if (gt_le_get64(h + 164) != np) {
		r = fmt_err(e, path, 164, "parameter count disagrees with the architecture");
		goto fail;
	}
	if (!memchr(h + 100, 0, GT_MODEL_SERIES_MAX)) {
		r = fmt_err(e, path, 100, "series name not terminated");
		goto fail;
	}
	m = gt_xcalloc(1, sizeof *m);
	m->arch = a;
	m->nparams = np;
	m->meta.steps = gt_le_get64(h + 52);
	m->meta.rows = gt_le_get64(h + 60);
	memcpy(m->meta.parent, h + 68, 32);
	memcpy(m->meta.series, h + 100, GT_MODEL_SERIES_MAX);
	/* read the parameters, growing the buffer only as data arrives, so a
	 * short file with a large (but allowed) header allocates little */
	size_t cap = np < (1 << 20) ? np : (1 << 20), have = 0;
	m->params = gt_xmalloc((cap ? cap : 1) * sizeof(float));
	while (have < np) {
		if (have == cap) {
			cap = cap * 2 < np ? cap * 2 : np;
			m->params = gt_xrealloc(m->params, cap * sizeof(float));
		}
		size_t want = cap - have;
		if (want > (1 << 24))
			want = 1 << 24;
		int k = gzread(gz, m->params + have, (unsigned)(want * sizeof(float)));
		if (k < 0) {
			r = fmt_err(e, path, (long)(hn + have * 4), gzmsg(gz, path));
			goto fail;
		}
		if ((size_t)k < want * sizeof(float)) {
			r = fmt_err(e, path, (long)(hn + have * 4 + k), "truncated parameters");
			goto fail;
		}
		have += want;
	}
	float_le(m->params, np);
	uint8_t extra;
	got = gzread(gz, &extra, 1);
	if (got != 0) {
		r = fmt_err(e, path, (long)(hn + np * 4),
		            got < 0 ? gzmsg(gz, path) : "trailing data after the parameters");
		goto fail;
	}
	gzerror(gz, &errnum);
	if (errnum != Z_OK) {
		r = fmt_err(e, path, (long)(hn + np * 4), gzmsg(gz, path));
		goto fail;
	}
	if (gzclose(gz) != Z_OK) {
		gz = NULL;
		r = fmt_err(e, path, -1, "gzip error at close");
		goto fail;
	}
	gz = NULL;
	long long end = 0;
	if (gz_trailing(path, &end) == 1) {
		r = fmt_err(e, path, (long)end, "trailing data after the gzip stream");
		goto fail;
	}
	gt_error ce;
	if ((r = gt_model_check(m, &ce))) {
		r = fmt_err(e, path, -1, ce.text);
		goto fail;
	}
	*out = m;
	return 0;
fail:
	if (gz)
		gzclose(gz);
	gt_model_free(m);
	return r;
}

int gt_model_validate(const char *path, gt_arch *arch, gt_model_meta *meta, gt_error *e)
{
	gt_model *m;
	int r = gt_model_read(path, &m, e);
	if (r)
		return r;
	if (arch)
		*arch = m->arch;
	if (meta)
		*meta = m->meta;
	gt_model_free(m);
	return 0;
}

_Static_assert(GT_ARCH_MAX_N == GT_MAX_N, "the network takes every board size");

gt_nn *gt_model_nn(const gt_model *m, const char *backend, gt_error *e)
{
	const gt_arch *a = &m->arch;
	if (a->feat_version != GT_FEAT_VERSION || a->in_planes != GT_FEAT_PLANES ||
	    a->globals != GT_FEAT_GLOBALS) {
		gt_error_set(e, GT_EUNSUPPORTED, -1, -1,
		             "network inputs are feature version %d (%d planes, %d globals), "
		             "this build has version %d (%d, %d)", a->feat_version, a->in_planes,
		             a->globals, GT_FEAT_VERSION, GT_FEAT_PLANES, GT_FEAT_GLOBALS);
		return NULL;
	}
	gt_nn *nn = gt_nn_new(a, backend, e);
	if (!nn)
		return NULL;
	memcpy(gt_nn_params(nn), m->params, m->nparams * sizeof(float));
	gt_nn_sync_params(nn);
	return nn;
}

int gt_model_set_params(gt_model *m, gt_nn *nn)
{
	if (gt_nn_nparams(nn) != m->nparams || memcmp(gt_nn_arch(nn), &m->arch, sizeof m->arch))
		return GT_EINVAL;
	memcpy(m->params, gt_nn_params(nn), m->nparams * sizeof(float));
	return 0;
}

char *gt_model_name(const gt_model *m, char *buf, size_t size)
{
	char arch[40];
	snprintf(buf, size, "%s-%s-s%llu-d%llu", m->meta.series[0] ? m->meta.series : "gt",
	         gt_model_arch_name(&m->arch, arch, sizeof arch), (unsigned long long)m->meta.steps,
	         (unsigned long long)m->meta.rows);
	return buf;
}

long long gt_model_name_number(const char *name, char tag)
{
	long long v = -1;
	for (const char *p = name; p && (p = strchr(p, '-')); p++) {
		if (p[1] != tag || p[2] < '0' || p[2] > '9')
			continue;
		char *end;
		errno = 0;
		long long x = strtoll(p + 2, &end, 10);
		if (!errno && (*end == '-' || *end == '.' || *end == 0))
			v = x;
	}
	return v;
}

int gt_model_sha256_file(const char *path, uint8_t digest[32], gt_error *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char buf[1 << 16];
	size_t k;
	int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	while (ok && (k = fread(buf, 1, sizeof buf, f)) > 0)
		ok = EVP_DigestUpdate(ctx, buf, k);
	unsigned len = 0;
	if (ok && ferror(f))
		ok = 0;
	if (ok)
		ok = EVP_DigestFinal_ex(ctx, digest, &len) && len == 32;
	EVP_MD_CTX_free(ctx);
	fclose(f);
	return ok ? 0 : gt_error_set(e, GT_EIO, -1, -1, "%s: cannot hash", path);
}

char *gt_sha256_hex(const uint8_t digest[32], char *hex)
{
	return gt_hex(hex, digest, 32);
}
