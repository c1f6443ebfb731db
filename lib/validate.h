/*
 * validate.h: the checks of gt-validate(1) on game records (gt-record(5)):
 * shapes and types (via gt_record_parse_ex), rules, sizes, komi, a replay
 * of every move under the record's rules with the boards, policies,
 * values, scores, ownership and result checked against it, and duplicate
 * detection by game id and by (seed, moves) over a stream and across runs.
 *
 * Every failure has a reason code (a static lowercase string, listed in
 * gt-validate(1)) and a detail text.
 */
#ifndef GT_VALIDATE_H
#define GT_VALIDATE_H
#include <stdint.h>
#include <stdio.h>
#include "gt.h"
#include "record.h"

/* Tolerance of float comparisons (policy sum, values, scores, ownership). */
#define GT_VALIDATE_TOL 1e-3

/* Longest name (worker, model, game_id) a record may carry; names are
 * 1..GT_VALIDATE_NAME_MAX characters of [A-Za-z0-9._-]. */
#define GT_VALIDATE_NAME_MAX 64
/* Most komi values one run accepts (gt_validate_opts.komi). */
#define GT_VALIDATE_KOMI_MAX 16

typedef struct gt_validate_opts {
	int min_moves, max_moves;  /* accepted number of moves (defaults 10, 500) */
	int allow_unscored;        /* 1: accept results area scoring cannot check */
	/* What the run accepts (0 or none: anything the format allows): */
	uint32_t board_sizes;      /* bit n set: n x n accepted */
	uint32_t rules;            /* bit id set: gt_rules_get(id) accepted */
	int nkomi;                 /* komi values accepted, in komi[] */
	double komi[GT_VALIDATE_KOMI_MAX];
	double max_weight;         /* largest position weight (default 4) */
	long max_visits;           /* most visits of a position (default 1000000) */
} gt_validate_opts;

/* gt_validate_opts_init: the defaults. */
void gt_validate_opts_init(gt_validate_opts *o);

/* gt_validate_accept: add the comma-separated values of s to what o
 * accepts: key "board-size" (2..GT_MAX_N), "komi" (multiples of 0.5
 * within +-361; at most GT_VALIDATE_KOMI_MAX in all) or "rules" (names
 * gt_rules_find knows). Returns 0, or GT_EINVAL with e's text naming the
 * value that is not one. */
int gt_validate_accept(gt_validate_opts *o, const char *key, const char *s, gt_error *e);

/* gt_validate_name: 1 when s is 1..GT_VALIDATE_NAME_MAX characters of
 * [A-Za-z0-9._-], else 0. */
int gt_validate_name(const char *s);

/* gt_validate_record: check a parsed record (everything but duplicates).
 * Returns 0 if it passes, else GT_EFORMAT with *reason set to a reason
 * code and detail (if not NULL, size bytes) describing the first failure. */
int gt_validate_record(const gt_record *r, const gt_validate_opts *o, const char **reason,
                       char *detail, size_t size);

/* ---- duplicates ---- */

/* A set of 128-bit record hashes (open addressing; grows). */
typedef struct gt_seen gt_seen;
gt_seen *gt_seen_new(void);
void gt_seen_free(gt_seen *s);
/* gt_seen_has / gt_seen_add: membership of a 16-byte hash; add returns 1
 * if it was new, 0 if already present. */
int gt_seen_has(const gt_seen *s, const uint8_t h[16]);
int gt_seen_add(gt_seen *s, const uint8_t h[16]);
size_t gt_seen_count(const gt_seen *s);
/* gt_seen_load: add the hashes of a seen file (one 32-digit lowercase hex
 * hash a line) read from f. *whole gets the bytes of the whole lines read:
 * a last line without its newline (a write cut short by a full disk or a
 * crash) is not loaded and not counted, so the caller can cut the file
 * back to *whole and append after it. Returns 0, or GT_EFORMAT with
 * e->line set for a malformed line, GT_EIO on a read error. */
int gt_seen_load(gt_seen *s, FILE *f, long long *whole, gt_error *e);

/* gt_record_hashes: the duplicate keys of a record: id (SHA-256 of the
 * game_id and symmetry, first 16 bytes; *has_id 0 when there is no
 * game_id) and game (SHA-256, first 16 bytes, of the board size, rules,
 * komi, the colours of the moves and, under the one of the 8 symmetries
 * (lib/sym.h) that gives the smallest bytes, the setup stones (sorted)
 * and moves): nothing a sender can vary without playing another game,
 * so a mirrored or rotated copy, or the same moves under another seed or
 * symmetry field, has the same key. */
void gt_record_hashes(const gt_record *r, uint8_t id[16], int *has_id, uint8_t game[16]);

/* gt_hash_hex: 32 lowercase hex digits and a NUL into out (33 bytes). */
char *gt_hash_hex(const uint8_t h[16], char *out);

/* The duplicate keys of one record (gt_record_hashes). */
typedef struct gt_seen_keys {
	uint8_t id[16], game[16];
	int has_id;     /* 0: no game_id, id all zero */
} gt_seen_keys;

/* gt_seen_check: 0 if neither key of r (filled into k) is in s; else
 * GT_EFORMAT with *reason "duplicate-id" (checked first) or
 * "duplicate-game" and detail (size bytes) naming the hash. */
int gt_seen_check(const gt_seen *s, const gt_record *r, gt_seen_keys *k, const char **reason,
                  char *detail, size_t size);

/* gt_seen_commit: add k's keys to s and, when fd >= 0, append them to the
 * seen file open on fd (O_APPEND) as its lines, the id's first when there
 * is one, in one write(2), so that runs sharing the file do not mix their
 * lines (a short write is retried with the rest, gt_fs_write_all).
 * Returns 0, or -1 with errno set when the write failed (ENOSPC on a full
 * disk; the keys are in s all the same). */
int gt_seen_commit(gt_seen *s, const gt_seen_keys *k, int fd);

/* ---- one input line, as gt-validate(1) takes it ---- */

/* gt_validate_line: all the checks of one line: parse it into r
 * (gt_record_parse_ex; r is released first and, on a failed parse, keeps
 * the fields that could be read, for the reject line), gt_validate_record,
 * then gt_seen_check against seen (which this does not change: commit the
 * keys once the line is written). Returns 0 with k filled when the line
 * passes, else GT_EFORMAT with *reason a reason code ("json" where the
 * parser gives none) and detail (size bytes) the text. */
int gt_validate_line(gt_record *r, const char *line, size_t len, const gt_validate_opts *o,
                     const gt_seen *seen, gt_seen_keys *k, const char **reason, char *detail,
                     size_t size);

/* gt_validate_reject_json: one line of a rejects file (gt-validate(1)),
 * without its newline, in a new string (caller frees): the keys file,
 * line, game_id, worker, model, reason and detail in that order; texts
 * with each byte outside printable ASCII as '?' and cut to 200 bytes and
 * "...", and the record's fields
 * null where r is NULL (a line that could not be read) or lacks them. */
char *gt_validate_reject_json(const char *file, long line, const gt_record *r,
                              const char *reason, const char *detail);

/* ---- statistics of a run ---- */

typedef struct gt_vstats gt_vstats;
gt_vstats *gt_vstats_new(void);
void gt_vstats_free(gt_vstats *st);
/* gt_vstats_accept: count a record that passed. */
void gt_vstats_accept(gt_vstats *st, const gt_record *r);
/* gt_vstats_reject: count a rejected input line; worker and model may be
 * NULL (counted as "?"); a name gt_validate_name refuses is counted as
 * "(bad name)". */
void gt_vstats_reject(gt_vstats *st, const char *reason, const char *worker, const char *model);
/* gt_vstats_json: the summary as one JSON object line (new string, caller
 * frees): records_in, records_out, rejected, rejects_by_reason,
 * rejects_by_worker, rejects_by_model, positions, mean_game_length,
 * black_win_rate (draws count half; null when no game has a winner). */
char *gt_vstats_json(const gt_vstats *st);
long gt_vstats_rejected(const gt_vstats *st);

#endif
