/*
 * katacfg.h: KataGo's configuration files (its cpp/core/config_parser.cpp,
 * read and followed; gt-analyze(1) and gt-gtp(1) say which keys gt reads),
 * for the KataGo-compatible command lines of gt-analyze and gt-gtp.
 *
 * The format, line by line, after trimming spaces and tabs:
 *   empty, or starting with '#'      nothing
 *   @include FILE                    the keys of FILE (a relative path,
 *                                    from the including file's folder;
 *                                    quotes around it dropped); a file
 *                                    included twice, or including itself,
 *                                    is an error
 *   KEY = VALUE [# comment]          KEY of letters, digits, '_' and '-';
 *                                    VALUE up to '#', trimmed, or in double
 *                                    quotes with backslash escapes (then
 *                                    only a comment may follow)
 * Anything else (a key without a value, "KEY VALUE", an empty value) is an
 * error. A key given twice in one file is an error; a later file (an
 * include) may set a key again, the last value counting.
 *
 * Overrides (KataGo's -override-config "KEY=VALUE, KEY=VALUE"): pieces
 * split at commas and trimmed, empty pieces skipped, KEY before the first
 * '='; an empty VALUE removes the key. As KataGo does, an override naming
 * "rules" removes the file's koRule, scoringRule, multiStoneSuicideLegal,
 * taxRule, hasButton, whiteBonusPerHandicapStone, friendlyPassOk and
 * whiteHandicapBonus, and one naming any of those removes "rules".
 *
 * Bounds: a file of at most GT_KATACFG_MAX_FILE bytes (a larger one, or
 * one that is not a regular file, is refused before it is read), at most
 * GT_KATACFG_MAX_FILES files and GT_KATACFG_MAX_KEYS keys in all, a key
 * of at most 128 bytes. Errors name the file and line ("FILE:LINE:
 * reason"), or "-override-config" for an override.
 *
 * Reading values: each getter marks its key used; gt_katacfg_unused lists
 * the keys never asked for, for the one warning a command gives.
 */
#ifndef GT_KATACFG_H
#define GT_KATACFG_H
#include <stddef.h>

#include "gt.h"

#define GT_KATACFG_MAX_FILE (1 << 20)
#define GT_KATACFG_MAX_FILES 32
#define GT_KATACFG_MAX_KEYS 4096

typedef struct gt_katacfg gt_katacfg;

/* gt_katacfg_load: the keys of the file path and the files it includes,
 * into a new *out (gt_katacfg_free). path NULL: no file, an empty set of
 * keys. Returns 0, or GT_EIO (cannot read a file), GT_EFORMAT (a line
 * that is not the format above, e->line its number), GT_EINVAL (not a
 * regular file, or an include that repeats a file) or GT_ETOOLONG (over a
 * bound); e->text begins "FILE:LINE: " where a line is to blame, "FILE: "
 * otherwise. *out is NULL on an error. */
int gt_katacfg_load(gt_katacfg **out, const char *path, gt_error *e);

/* gt_katacfg_add: the keys of one more file (KataGo's second and later
 * -config), over those set so far; errors as gt_katacfg_load's, c then
 * holding what was read before the error. */
int gt_katacfg_add(gt_katacfg *c, const char *path, gt_error *e);

/* gt_katacfg_override: apply one -override-config list s (above).
 * Returns 0, or GT_EFORMAT for a piece without '=' or with a key that is
 * not one of letters, digits, '_' and '-' (e->text "-override-config:
 * ..."), GT_ETOOLONG over the bound on keys. */
int gt_katacfg_override(gt_katacfg *c, const char *s, gt_error *e);

void gt_katacfg_free(gt_katacfg *c);

/* gt_katacfg_has: 1 when key is set (does not mark it used). */
int gt_katacfg_has(const gt_katacfg *c, const char *key);

/* gt_katacfg_str: the value of key (borrowed, valid until the next
 * override or free), or NULL when it is not set; marks key used. */
const char *gt_katacfg_str(gt_katacfg *c, const char *key);

/* The typed getters: 1 with *v set when key is set and its value is
 * right, 0 (*v untouched) when key is not set, or GT_EINVAL with e->text
 * "WHERE: KEY: want WHAT, got 'VALUE'" (WHERE the file and line of the
 * value, or -override-config). Each marks key used.
 *   gt_katacfg_int     a decimal integer in lo..hi
 *   gt_katacfg_double  a finite number in lo..hi (strtod's forms)
 *   gt_katacfg_bool    true or false, in any case (KataGo's)
 *   gt_katacfg_enum    one of names[0..n-1], exactly; *v its index */
int gt_katacfg_int(gt_katacfg *c, const char *key, long long lo, long long hi,
                   long long *v, gt_error *e);
int gt_katacfg_double(gt_katacfg *c, const char *key, double lo, double hi, double *v,
                      gt_error *e);
int gt_katacfg_bool(gt_katacfg *c, const char *key, int *v, gt_error *e);
int gt_katacfg_enum(gt_katacfg *c, const char *key, const char *const *names, int n, int *v,
                    gt_error *e);

/* gt_katacfg_where: "FILE:LINE" or "-override-config" for key's value
 * into buf (n bytes), for a caller's own message about it; "" when key is
 * not set. Returns buf. */
char *gt_katacfg_where(const gt_katacfg *c, const char *key, char *buf, size_t n);

/* gt_katacfg_unuse: mark key not used again (read, but its value is one
 * the caller cannot honour: it then appears in gt_katacfg_unused). */
void gt_katacfg_unuse(gt_katacfg *c, const char *key);

/* gt_katacfg_use_prefix: mark used every key set that begins with prefix
 * (for families of keys gt ignores, such as cudaDeviceToUseThread0). */
void gt_katacfg_use_prefix(gt_katacfg *c, const char *prefix);

/* gt_katacfg_unused: the keys set and never marked used, in the order
 * they were first set, joined by ", " into a new string (caller frees),
 * or NULL when there are none. */
char *gt_katacfg_unused(const gt_katacfg *c);

#endif
