/* gt.c: errors and allocation shared by every module. */
#include "gt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gt_strerror(int err)
{
	switch (err) {
	case GT_OK: return "success";
	case GT_EINVAL: return "invalid argument";
	case GT_ENOMEM: return "out of memory";
	case GT_EIO: return "input/output error";
	case GT_EFORMAT: return "malformed input";
	case GT_EUNSUPPORTED: return "unsupported";
	case GT_EOCCUPIED: return "point occupied";
	case GT_ESUICIDE: return "suicide";
	case GT_EKO: return "ko";
	case GT_ESUPERKO: return "superko";
	case GT_EOFFBOARD: return "off the board";
	case GT_EOVER: return "game over";
	case GT_ETOOLONG: return "game too long";
	case GT_ECHECKSUM: return "checksum mismatch";
	case GT_ENOTFOUND: return "not found";
	case GT_EREFUSED: return "refused";
	case GT_ECONFLICT: return "changed by someone else";
	}
	return "unknown error";
}

int gt_error_set(gt_error *e, int code, long line, long offset, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		e->line = line;
		e->offset = offset;
		va_start(ap, fmt);
		vsnprintf(e->text, sizeof e->text, fmt, ap);
		va_end(ap);
	}
	return code;
}

static void oom(size_t n)
{
	fprintf(stderr, "gt: out of memory (%zu bytes)\n", n);
	abort();
}

void *gt_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *gt_xmalloc64(size_t n)
{
	void *p = aligned_alloc(64, (n + 63) / 64 * 64 + (n ? 0 : 64));
	if (!p)
		oom(n);
	return p;
}

void *gt_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *gt_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

char *gt_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(gt_xmalloc(n), s, n);
}

void gt_free_n(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}
