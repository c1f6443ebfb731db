/* diloco.c: store layout, pointer, lease and unit state of Decoupled
 * DiLoCo (diloco.h). */
#include "diloco.h"
#include "fs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <zlib.h>

char *gt_diloco_url(const char *store, const char *fmt, ...)
{
	char rest[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rest, sizeof rest, fmt, ap);
	va_end(ap);
	size_t n = strlen(store);
	while (n > 1 && store[n - 1] == '/')
		n--;
	size_t len = n + strlen("/diloco/") + strlen(rest) + 1;
	char *s = gt_xmalloc(len);
	snprintf(s, len, "%.*s/diloco/%s", (int)n, store, rest);
	return s;
}

static int hex_ok(const char *s)
{
	if (strlen(s) != 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

int gt_diloco_ptr_parse(const char *json, size_t len, gt_diloco_ptr *p, gt_error *e)
{
	json_error_t je;
	json_t *j = json_loadb(json, len, 0, &je);
	if (!j)
		return gt_error_set(e, GT_EFORMAT, je.line, je.position, "pointer: %s", je.text);
	json_int_t v = -1, bytes = -1;
	const char *model = NULL, *sha = NULL, *psha = NULL;
	double t = 0;
	int rc = json_unpack(j, "{s:I,s:s,s:s,s:I,s:s,s?F}", "version", &v, "model", &model,
	                     "sha256", &sha, "bytes", &bytes, "params_sha256", &psha, "time", &t);
	if (rc || v < 0 || bytes < 0 || !hex_ok(sha) || !hex_ok(psha) ||
	    strlen(model) >= sizeof p->model || !gt_store_name_ok(model, NULL)) {
		json_decref(j);
		return gt_error_set(e, GT_EFORMAT, -1, -1, "pointer: missing or bad field");
	}
	memset(p, 0, sizeof *p);
	p->version = (uint64_t)v;
	p->bytes = bytes;
	p->time = t;
	strcpy(p->model, model);
	strcpy(p->sha256, sha);
	strcpy(p->params_sha256, psha);
	json_decref(j);
	return 0;
}

char *gt_diloco_ptr_format(const gt_diloco_ptr *p)
{
	json_t *j = json_pack("{s:I,s:s,s:s,s:I,s:s,s:f}", "version", (json_int_t)p->version,
	                      "model", p->model, "sha256", p->sha256, "bytes",
	                      (json_int_t)p->bytes, "params_sha256", p->params_sha256, "time",
	                      p->time);
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (!s)
		abort();
	size_t n = strlen(s);
	char *out = gt_xmalloc(n + 2);
	memcpy(out, s, n);
	out[n] = '\n';
	out[n + 1] = 0;
	free(s);
	return out;
}

int gt_diloco_ptr_read(const gt_store_opts *o, const char *store, gt_diloco_ptr *p,
                       char *tag, gt_error *e)
{
	char *url = gt_diloco_url(store, "current.json");
	char *buf = NULL, t[GT_STORE_TAG];
	size_t len = 0;
	int rc = gt_store_get_tagged(o, url, 1 << 16, &buf, &len, tag ? tag : t, e);
	if (rc == 0 && !buf)
		rc = gt_error_set(e, GT_ENOTFOUND, -1, -1, "%s: not found", url);
	free(url);
	if (rc == 0)
		rc = gt_diloco_ptr_parse(buf, len, p, e);
	free(buf);
	return rc;
}

int gt_diloco_put_mem(const gt_store_opts *o, const void *buf, size_t len, const char *url,
                      int overwrite, gt_error *e)
{
	return gt_store_put_mem(o, buf, len, url, overwrite, NULL, e);
}

int gt_diloco_put_file(const gt_store_opts *o, const char *path, const char *url,
                       int overwrite, gt_error *e)
{
	return gt_store_put_file(o, path, url, overwrite, NULL, e);
}

char *gt_diloco_delta_name(char *buf, size_t size, uint64_t v, uint64_t gen, uint64_t seq)
{
	snprintf(buf, size, "%" PRIu64 "-%016" PRIx64 "-%" PRIu64 ".delta", v, gen, seq);
	return buf;
}

static int parse_u64(const char **s, int base, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;
	int digits = 0;
	for (;; p++, digits++) {
		int d;
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (!digits || (base == 10 && digits > 1 && **s == '0'))
		return -1;
	*s = p;
	*out = v;
	return digits;
}

int gt_diloco_delta_name_parse(const char *name, uint64_t *v, uint64_t *gen, uint64_t *seq)
{
	const char *p = name;
	if (parse_u64(&p, 10, v) < 0 || *p++ != '-' || parse_u64(&p, 16, gen) != 16 ||
	    *p++ != '-' || parse_u64(&p, 10, seq) < 0 || strcmp(p, ".delta"))
		return GT_EFORMAT;
	return 0;
}

int gt_diloco_unit_ok(const char *s)
{
	size_t n = strlen(s);
	if (n < 1 || n > 63 || s[0] == '.')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

/* the lease's owner and expiry, and its version in tag (gt_store_get_tagged);
 * *owner NULL (tag "") when there is none */
static int lease_read(const gt_store_opts *o, const char *store, char **owner, double *exp,
                      char tag[GT_STORE_TAG], gt_error *e)
{
	char *url = gt_diloco_url(store, "lease.json"), *buf = NULL;
	size_t len = 0;
	*owner = NULL;
	*exp = 0;
	int rc = gt_store_get_tagged(o, url, 1 << 16, &buf, &len, tag, e);
	free(url);
	if (rc || !buf)
		return rc;
	json_t *j = json_loadb(buf, len, 0, NULL);
	free(buf);
	const char *w = NULL;
	if (!j || json_unpack(j, "{s:s,s:F}", "owner", &w, "expires", exp)) {
		json_decref(j);
		return gt_error_set(e, GT_EFORMAT, -1, -1, "lease.json: malformed");
	}
	*owner = gt_xstrdup(w);
	json_decref(j);
	return 0;
}

/* the lease replaced over the version tag read (gt_store_replace):
 * GT_ECONFLICT when another process wrote it meanwhile */
static int lease_write(const gt_store_opts *o, const char *store, const char *owner,
                       double exp, const char *tag, gt_error *e)
{
	json_t *j = json_pack("{s:s,s:f}", "owner", owner, "expires", exp);
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	char *url = gt_diloco_url(store, "lease.json");
	int rc = gt_store_replace(o, s, strlen(s), url, tag, e);
	free(url);
	free(s);
	return rc;
}

int gt_diloco_lease_take(const gt_store_opts *o, const char *store, const char *owner,
                         double ttl_s, gt_error *e)
{
	char *who, tag[GT_STORE_TAG];
	double exp;
	int rc = lease_read(o, store, &who, &exp, tag, e);
	if (rc)
		return rc;
	double t = gt_wall();
	if (who && strcmp(who, owner) && exp > t) {
		rc = gt_error_set(e, GT_EINVAL, -1, -1, "lease held by %s for %.1f s more", who,
		                  exp - t);
		free(who);
		return rc;
	}
	free(who);
	rc = lease_write(o, store, owner, t + ttl_s, tag, e);
	if (rc && rc != GT_ECONFLICT)
		return rc;
	/* read back: a server that ignores the condition leaves the last
	 * writer named; one that honours it refused the put (GT_ECONFLICT) */
	if ((rc = lease_read(o, store, &who, &exp, tag, e)))
		return rc;
	if (!who || strcmp(who, owner))
		rc = gt_error_set(e, GT_EINVAL, -1, -1, "lease taken by %s", who ? who : "nobody");
	free(who);
	return rc;
}

int gt_diloco_lease_drop(const gt_store_opts *o, const char *store, const char *owner,
                         gt_error *e)
{
	char *who, tag[GT_STORE_TAG];
	double exp;
	int rc = lease_read(o, store, &who, &exp, tag, e);
	if (rc)
		return rc;
	if (who && !strcmp(who, owner))
		rc = lease_write(o, store, owner, 0, tag, e);
	free(who);
	return rc;
}

/* ---- unit state ---- */

#define USTATE_MAGIC "GTDUNIT1"

void gt_diloco_ustate_init(gt_diloco_ustate *s, size_t n, int with_v)
{
	memset(s, 0, sizeof *s);
	s->n = n;
	s->m = gt_xcalloc(n ? n : 1, sizeof(float));
	s->v = with_v ? gt_xcalloc(n ? n : 1, sizeof(float)) : NULL;
	s->r = gt_xcalloc(n ? n : 1, sizeof(float));
}

void gt_diloco_ustate_release(gt_diloco_ustate *s)
{
	gt_free_all(s->m, s->v, s->r);
	memset(s, 0, sizeof *s);
}

#define USTATE_HDR 56

static size_t ustate_bytes(size_t n, int with_v)
{
	return USTATE_HDR + 4 * n * (with_v ? 3 : 2) + 4;
}

/* the state's arrays in file order into a: m, v (only with Adam), r;
 * returns how many */
static int ustate_arrays(const gt_diloco_ustate *s, float *a[3])
{
	int k = 0;
	a[k++] = s->m;
	if (s->v)
		a[k++] = s->v;
	a[k++] = s->r;
	return k;
}

int gt_diloco_ustate_save(const gt_diloco_ustate *s, const char *path, gt_error *e)
{
	size_t len = ustate_bytes(s->n, s->v != NULL);
	uint8_t *buf = gt_xmalloc(len);
	memcpy(buf, USTATE_MAGIC, 8);
	gt_le_put64(buf + 8, s->n);
	gt_le_put64(buf + 16, (uint64_t)s->step);
	gt_le_put64(buf + 24, s->starts);
	gt_le_put64(buf + 32, s->deltas);
	gt_le_put64(buf + 40, s->samples);
	gt_le_put64(buf + 48, s->v != NULL);
	uint8_t *p = buf + USTATE_HDR;
	float *a[3];
	for (int i = 0, k = ustate_arrays(s, a); i < k; i++, p += 4 * s->n)
		gt_le_putf_n(p, a[i], s->n);
	uint32_t c = (uint32_t)crc32_z(0, buf, (size_t)(p - buf));
	gt_le_put32(p, c);
	int rc = gt_fs_write_atomic(path, buf, len, e), err = errno;
	free(buf);
	errno = err;
	return rc;
}

int gt_diloco_ustate_load(gt_diloco_ustate *s, const char *path, gt_error *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return gt_error_set(e, errno == ENOENT ? GT_ENOTFOUND : GT_EIO, -1, -1, "%s: %s",
		                    path, strerror(errno));
	size_t len = ustate_bytes(s->n, s->v != NULL);
	uint8_t *buf = gt_xmalloc(len + 1);
	size_t got = fread(buf, 1, len + 1, f);
	int rd = ferror(f);
	fclose(f);
	int rc = 0;
	if (rd)
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: read error", path);
	else if (got < USTATE_HDR || memcmp(buf, USTATE_MAGIC, 8))
		rc = gt_error_set(e, GT_EFORMAT, -1, 0, "%s: not a unit state file", path);
	else if (gt_le_get64(buf + 8) != s->n || gt_le_get64(buf + 48) != (s->v != NULL))
		rc = gt_error_set(e, GT_EINVAL, -1, -1,
		                  "%s: state of %" PRIu64 " parameters%s, not %zu%s", path,
		                  gt_le_get64(buf + 8), gt_le_get64(buf + 48) ? " (adam)" : "", s->n,
		                  s->v ? " (adam)" : "");
	else if (got != len)
		rc = gt_error_set(e, GT_EFORMAT, -1, (long)got, "%s: wrong size", path);
	else {
		if (gt_le_get32(buf + len - 4) != (uint32_t)crc32_z(0, buf, len - 4))
			rc = gt_error_set(e, GT_EFORMAT, -1, -1, "%s: crc mismatch", path);
	}
	if (!rc) {
		s->step = (int64_t)gt_le_get64(buf + 16);
		s->starts = gt_le_get64(buf + 24);
		s->deltas = gt_le_get64(buf + 32);
		s->samples = gt_le_get64(buf + 40);
		const uint8_t *p = buf + USTATE_HDR;
		float *a[3];
		for (int i = 0, k = ustate_arrays(s, a); i < k; i++, p += 4 * s->n)
			gt_le_getf_n(p, a[i], s->n);
	}
	free(buf);
	return rc;
}

uint64_t gt_diloco_ustate_starts(const char *path)
{
	uint8_t hdr[32];
	uint64_t starts = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	if (fread(hdr, 1, sizeof hdr, f) == sizeof hdr && !memcmp(hdr, USTATE_MAGIC, 8))
		starts = gt_le_get64(hdr + 24);
	fclose(f);
	return starts;
}
