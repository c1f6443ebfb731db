/*
 * gt.h: things every module of libgt shares: the error enum and
 * out-of-memory handling. The library never prints and never exits (but for
 * out of memory, the one abort): functions return 0 or a negative gt_err,
 * and where there is more to say they fill a caller's gt_error.
 */
#ifndef GT_GT_H
#define GT_GT_H
#include <stddef.h>

#define GT_VERSION "0.1.0"

typedef enum gt_err {
	GT_OK = 0,
	GT_EINVAL = -1,     /* bad argument or value */
	GT_ENOMEM = -2,     /* allocation refused (only where a size came from input) */
	GT_EIO = -3,        /* read or write failed; errno is kept */
	GT_EFORMAT = -4,    /* malformed input (see gt_error for where) */
	GT_EUNSUPPORTED = -5, /* valid but not supported (e.g. a 9x13 board) */
	GT_EOCCUPIED = -6,  /* move onto a stone */
	GT_ESUICIDE = -7,   /* suicide not allowed by the rules */
	GT_EKO = -8,        /* retakes a simple ko */
	GT_ESUPERKO = -9,   /* repeats an earlier position (positional or situational) */
	GT_EOFFBOARD = -10, /* point not on the board */
	GT_EOVER = -11,     /* the game has ended (two passes or the move cap) */
	GT_ETOOLONG = -12,  /* more moves than the board's history can hold */
	GT_ECHECKSUM = -13, /* checksum or digest mismatch */
	GT_ENOTFOUND = -14, /* no such object */
	GT_EREFUSED = -15,  /* well-formed but refused by a safety bound */
	GT_ECONFLICT = -16, /* changed by someone else since it was read */
} gt_err;

/* Winner of a game (records, SGF, matches). */
enum { GT_WIN_NONE = 0,    /* no result (void game) */
       GT_WIN_BLACK = 1, GT_WIN_WHITE = 2, GT_WIN_DRAW = 3,
       GT_WIN_UNKNOWN = 4  /* a result exists but is not known ("?" or missing) */ };

/* gt_strerror: a lowercase phrase for an error code, e.g. "suicide". Static
 * storage; never NULL. */
const char *gt_strerror(int err);

/* A caller-owned description of the last error, jansson json_error_t style:
 * where it happened (line/byte offset, -1 when unknown) and a message. */
typedef struct gt_error {
	long line;     /* 1-based line or record number, -1 if unknown */
	long offset;   /* byte offset in the input, -1 if unknown */
	char text[256];
} gt_error;

/* gt_error_set: fill e (may be NULL) with printf-style text; returns code. */
int gt_error_set(gt_error *e, int code, long line, long offset, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Allocation that aborts with a message on out of memory (sizes from code,
 * not from input). The returned memory belongs to the caller (free()). */
void *gt_xmalloc(size_t n);
void *gt_xcalloc(size_t n, size_t size);
void *gt_xrealloc(void *p, size_t n);
/* gt_xmalloc64: as gt_xmalloc, the memory aligned to 64 bytes (a cache
 * line: the AMX tiles' 64-byte rows then never straddle two). */
void *gt_xmalloc64(size_t n);
char *gt_xstrdup(const char *s);

/* gt_free_all(p, ...): free(3) each pointer in the order given (NULL ones
 * too, as free does): a destructor's buffers in one statement, e.g.
 * gt_free_all(o->m, o->v, o). Each argument is evaluated once. */
void gt_free_n(void *const *p, size_t n);
#define gt_free_all(...) \
	gt_free_n((void *[]){ __VA_ARGS__ }, sizeof((void *[]){ __VA_ARGS__ }) / sizeof(void *))

#endif
