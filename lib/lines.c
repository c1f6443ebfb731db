/* lines.c: a line reader over poll(2) and read(2) (lines.h). */
#include "lines.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gt.h"

struct gt_lines {
	int fd;
	FILE *f;
	size_t max;
	char *buf;
	size_t pos, len, cap;
	int eof;       /* no more bytes will come */
	int dropping;  /* inside an over-long line */
	char *line;    /* getline mode */
	size_t lcap;
};

gt_lines *gt_lines_new(FILE *f, size_t max)
{
	gt_lines *r = gt_xcalloc(1, sizeof *r);
	r->f = f;
	r->fd = fileno(f);
	r->max = max;
	return r;
}

void gt_lines_free(gt_lines *r)
{
	if (!r)
		return;
	gt_free_all(r->buf, r->line, r);
}

static char *nl(const gt_lines *r)
{
	return r->len > r->pos ? memchr(r->buf + r->pos, '\n', r->len - r->pos) : NULL;
}

/* read once (blocking) into the buffer; 0 at the end of input */
static int fill(gt_lines *r)
{
	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
	}
	if (r->len + 4096 > r->cap) {
		r->cap = 2 * r->cap + 4096;
		r->buf = gt_xrealloc(r->buf, r->cap);
	}
	for (;;) {
		ssize_t k = read(r->fd, r->buf + r->len, r->cap - r->len - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			r->eof = 1;
			return 0;
		}
		r->len += (size_t)k;
		return 1;
	}
}

char *gt_lines_get(gt_lines *r, size_t *len)
{
	size_t dummy;
	if (!len)
		len = &dummy;
	if (r->fd < 0) {
		ssize_t k = getline(&r->line, &r->lcap, r->f);
		if (k < 0) {
			r->eof = 1;
			return NULL;
		}
		if (k > 0 && r->line[k - 1] == '\n')
			r->line[--k] = 0;
		if (r->max && (size_t)k > r->max) {
			r->line[0] = 0;
			*len = (size_t)-1;
			return r->line;
		}
		*len = (size_t)k;
		return r->line;
	}
	for (;;) {
		char *e = nl(r);
		if (!e && r->max && r->len - r->pos > r->max) {
			r->dropping = 1; /* keep no more than the bound */
			r->pos = r->len;
		}
		if (e) {
			char *s = r->buf + r->pos;
			*e = 0;
			r->pos = (size_t)(e - r->buf) + 1;
			if (r->dropping) {
				r->dropping = 0;
				*len = (size_t)-1;
				s[0] = 0;
				return s;
			}
			*len = (size_t)(e - s);
			return s;
		}
		if (r->eof || !fill(r)) {
			if (r->pos == r->len)
				return NULL;
			/* a last line without its newline */
			char *s = r->buf + r->pos;
			r->buf[r->len] = 0; /* fill keeps a byte free */
			*len = r->len - r->pos;
			r->pos = r->len;
			if (r->dropping) {
				r->dropping = 0;
				s[0] = 0;
				*len = (size_t)-1;
			}
			return s;
		}
	}
}

int gt_lines_wait(gt_lines *r, double seconds)
{
	if (r->fd < 0 || r->eof || r->len > r->pos)
		return 1;
	struct pollfd p = { r->fd, POLLIN, 0 };
	int ms = seconds <= 0 ? 0 : seconds > 3600 ? 3600000 : (int)ceil(seconds * 1000);
	int k = poll(&p, 1, ms);
	if (k < 0)
		return errno == EINTR ? 0 : 1;
	if (k == 0)
		return 0;
	fill(r);
	return 1;
}

int gt_lines_eof(const gt_lines *r)
{
	return r->eof && r->pos == r->len;
}
