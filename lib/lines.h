/*
 * lines.h: a line reader that can tell whether input is waiting, for the
 * commands that work while they read: gt-gtp's analysis stops when the
 * next command arrives, gt-analyze takes new queries while it searches.
 * A FILE is read through its descriptor (poll(2) and read(2)), so the
 * caller must not read it through stdio too; a FILE without a descriptor
 * (fmemopen) is read with getline(3), and then input always counts as
 * waiting.
 */
#ifndef GT_LINES_H
#define GT_LINES_H
#include <stddef.h>
#include <stdio.h>

typedef struct gt_lines gt_lines;

/* gt_lines_new: a reader of f (borrowed, not closed) for lines of at most
 * max bytes (0: no bound). Free with gt_lines_free. */
gt_lines *gt_lines_new(FILE *f, size_t max);
void gt_lines_free(gt_lines *r);

/* gt_lines_get: the next line without its newline, NUL-terminated, in a
 * buffer owned by r until the next call; *len (may be NULL) its length.
 * Blocks until a whole line (or the end of input) has come. NULL at the
 * end of input or on a read error. A line longer than max is dropped up
 * to its newline and returned as "" with *len = (size_t)-1. */
char *gt_lines_get(gt_lines *r, size_t *len);

/* gt_lines_wait: 1 when input is waiting (a line or part of one, or the
 * end of input), 0 when none came within seconds (<= 0: just look). */
int gt_lines_wait(gt_lines *r, double seconds);

/* gt_lines_eof: 1 once the end of input (or a read error) was met and
 * every line before it returned. */
int gt_lines_eof(const gt_lines *r);

#endif
