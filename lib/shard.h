/*
 * shard.h: game records to training rows, the shard directory, and the
 * trainer's window over it (man5 gt-shard is the truth for the format).
 *
 * A row is one position that had a full search (every position of a
 * human game): its input planes bit-packed per plane, global inputs, and
 * the policy, value, score and ownership targets, all from the side to
 * move's view. A shard is a .npz (lib/npz.h) of rows of one board size,
 * shuffled; OUT/run_NNN/games_NNNNN.npz, written to a temporary name,
 * fsynced, linked to its final name; then one JSON line is appended to
 * OUT/manifest, and OUT/current (a symbolic link) is pointed at it.
 *
 * Arrays of a shard with R rows, n x n board, C planes, G globals,
 * P = ceil(n*n/8):
 *   binaryInputNCHWPacked |u1 [R, C, P]  plane c of row r: point p is bit
 *                         7 - p%8 of byte p/8 (numpy.packbits order)
 *   globalInputNC    <f4 [R, G]
 *   policy           <f4 [R, n*n+1]  search visit shares, pass last
 *   value            <f4 [R]         +1 side to move won, -1 lost, 0 draw
 *   score            <f4 [R]         final score, side to move's view
 *   ownership        <f4 [R, n*n]    final ownership, +1 side to move's
 *   ownership_mask   |u1 [R]         1 if the game carried ownership
 *   weight           <f4 [R]         training weight of the row
 *   policy_next      <f4 [R, n*n+1]  the opponent's reply (the next position's
 *                                    policy, or the next move one-hot), 0s if none
 *   policy_next_mask |u1 [R]         0 none, 1 the next position's policy, 2 the
 *                                    move played next (absent in older shards)
 *   meta             <i4 [5]         format version, n, feature version, C, G
 * With opts.katago_pos_len the arrays are KataGo's instead (gt-shard(5)).
 */
#ifndef GT_SHARD_H
#define GT_SHARD_H
#include <stdint.h>
#include "board.h"
#include "gt.h"
#include "record.h"

#define GT_SHARD_FORMAT 1

/* The input encoding used for the planes and globals: a hook, so that the
 * shards follow whatever lib/feat encodes. encode writes nplanes * n * n
 * floats (plane-major, 0 or 1; any non-zero is packed as 1) and nglobals
 * floats for the position b (side to move b->to_move) and returns 0 or a
 * negative gt_err. */
typedef struct gt_shard_encoder {
	int version;   /* feature version, written to meta and the manifest */
	int nplanes;   /* C, 1..64 */
	int nglobals;  /* G, 0..64 */
	int (*encode)(const gt_board *b, float *planes, float *globals, void *ctx);
	void *ctx;
} gt_shard_encoder;

/* gt_shard_encoder_default: the network's encoding, lib/feat.h's
 * gt_feat_encode (GT_FEAT_VERSION, GT_FEAT_PLANES, GT_FEAT_GLOBALS) when
 * the library is built with it, else gt_shard_encoder_basic(). Static. */
const gt_shard_encoder *gt_shard_encoder_default(void);

/* gt_shard_encoder_basic: feature version 0, 5 planes: 0 on board (all 1),
 * 1 own stones, 2 opponent stones, 3 simple-ko ban point, 4 last move;
 * 2 globals: 0 komi from the side to move's view / 20, 1 last move was a
 * pass. For builds without lib/feat, and tests. Static storage. */
const gt_shard_encoder *gt_shard_encoder_basic(void);

typedef struct gt_shard_opts {
	long rows;               /* rows per shard (default 10000 when 0) */
	uint64_t seed;           /* shuffle seed */
	int run;                 /* run_NNN directory number, 0..999 */
	int level;               /* zlib level 0..9 */
	const gt_shard_encoder *enc; /* NULL: gt_shard_encoder_default() */
	/* > 0: write KataGo's training arrays instead of gt's (gt-shard(5),
	 * "KataGo's keys"): KataGo's own input features (lib/katafeat.h, enc
	 * is ignored) and targets, each board in the top-left corner of a
	 * katago_pos_len x katago_pos_len grid (2..GT_MAX_N; records of larger
	 * boards are refused). The manifest line says "keys":"katago", and the
	 * trainer's window skips such shards. 0: gt's arrays. */
	int katago_pos_len;
	/* called after each shard is in the manifest with its manifest line
	 * (no newline; borrowed); may be NULL */
	void (*on_shard)(const char *manifest_line, void *ctx);
	void *ctx;
} gt_shard_opts;

/* gt_shard_opts_init: rows 10000, seed 0, run 0, level 1, default encoder. */
void gt_shard_opts_init(gt_shard_opts *o);

typedef struct gt_shard_stats {
	long games;        /* records added without error */
	long bad_games;    /* records refused (unknown rules, illegal move...) */
	long rows;         /* rows written to shards */
	long pending;      /* rows buffered, not yet in a shard */
	long skipped;      /* positions without a full search, policy or weight */
	long nonfinite;    /* rows dropped for a NaN or infinity */
	long shards;       /* shards written */
} gt_shard_stats;

typedef struct gt_shard_writer gt_shard_writer;

/* gt_shard_writer_new: a writer into directory outdir (created, with
 * run_NNN, if missing; stale temporary files of dead writers removed).
 * Returns a new writer (free with gt_shard_writer_free) or NULL with e
 * filled (GT_EIO, GT_EINVAL for bad options). */
gt_shard_writer *gt_shard_writer_new(const char *outdir, const gt_shard_opts *o, gt_error *e);

/* gt_shard_add_record: replay r (borrowed) and buffer one row per position
 * with a full search, a policy and a weight > 0. A position whose value or
 * score is NaN (absent) takes it from the game's winner and score; rows
 * left with a NaN or infinity anywhere are dropped and counted.
 * Writes a shard each time a board size's buffer reaches opts.rows.
 * Returns 0; GT_EFORMAT / GT_EUNSUPPORTED / a board error for a record
 * that cannot be replayed (none of its rows kept; counted in bad_games);
 * GT_EIO when a shard cannot be written (its rows stay buffered). */
int gt_shard_add_record(gt_shard_writer *w, const gt_record *r, gt_error *e);

/* gt_shard_flush: write every buffered row as shards (one per board size,
 * even when short of opts.rows). Returns 0 or GT_EIO. */
int gt_shard_flush(gt_shard_writer *w, gt_error *e);

/* gt_shard_writer_stats: counts so far (borrowed, updated by each call). */
const gt_shard_stats *gt_shard_writer_stats(const gt_shard_writer *w);

/* gt_shard_writer_free: free w (NULL is fine); buffered rows not flushed
 * are dropped. */
void gt_shard_writer_free(gt_shard_writer *w);

/* ---- the trainer's window ---- */

typedef struct gt_shard_window gt_shard_window;

typedef struct gt_shard_window_info {
	long rows;           /* rows held (<= the window asked for) */
	int shards;          /* shards they came from */
	int skipped;         /* manifest entries skipped: other board size or
	                        features, missing file, sha256 mismatch, bad data */
	int n, nplanes, nglobals, feature_version;
	long reply_rows;     /* rows with the opponent's reply (policy_next_mask
	                        not 0; counted with GT_SHARD_WINDOW_REPLY only) */
	char last_skip[256]; /* why the last skipped shard was skipped */
} gt_shard_window_info;

/* gt_shard_window_open: take the newest shards of outdir/manifest (last
 * line first) until rows rows are held, keeping them bit-packed in memory
 * (about rows * (C*P + 4*(G + 2*n*n + 5)) bytes); the oldest shard taken
 * may give only part of its rows. board_size 0 takes the size (and
 * feature version) of the newest shard; shards of another size or feature
 * version are skipped, as are shards whose file is missing or whose sha256
 * differs from the manifest. seed seeds the sampler. Returns a new window
 * (free with gt_shard_window_free) or NULL with e filled: GT_ENOTFOUND
 * when no usable shard exists, GT_EIO when the manifest cannot be read. */
gt_shard_window *gt_shard_window_open(const char *outdir, long rows, int board_size,
                                      uint64_t seed, gt_error *e);
/* gt_shard_window_open_with: the same with flags: GT_SHARD_WINDOW_REPLY
 * keeps each row's policy_next and policy_next_mask too (4 * (n*n+1) + 1
 * bytes more a row; rows of shards without them get mask 0), for the
 * auxiliary policy head. */
#define GT_SHARD_WINDOW_REPLY 1
gt_shard_window *gt_shard_window_open_with(const char *outdir, long rows, int board_size,
                                           uint64_t seed, int flags, gt_error *e);
void gt_shard_window_free(gt_shard_window *w);
void gt_shard_window_get_info(const gt_shard_window *w, gt_shard_window_info *info);

/* gt_shard_window_slice: make w show only its rows whose index i (0..,
 * in window order) has i mod slices == slice, renumbered 0, 1, ...: the
 * disjoint share of one of `slices` DiLoCo learning units. info.rows,
 * gt_shard_window_get and gt_shard_window_sample then see the slice only;
 * slice 0 of 1 is the whole window again. Returns 0, or GT_EINVAL when
 * slice is not in 0..slices-1 or the window has fewer rows than slices. */
int gt_shard_window_slice(gt_shard_window *w, int slice, int slices);

/* A batch of B rows unpacked to floats, caller-owned arrays (any may be
 * NULL to skip that part):
 *   planes    [B, C, n, n]  NCHW, 0/1
 *   globals   [B, G]
 *   policy    [B, n*n+1]    pass last
 *   value, score, weight, ownership_mask  [B]
 *   ownership [B, n*n]
 *   sym       [B]           symmetry used per sample (lib/sym.h)
 *   index     [B]           window row of each sample
 *   policy_next [B, n*n+1]  the opponent's reply, pass last (zeros, and
 *   policy_next_mask [B]    mask 0, unless the window keeps them) */
typedef struct gt_shard_batch {
	float *planes, *globals, *policy, *value, *score, *ownership, *ownership_mask, *weight;
	int *sym;
	long *index;
	float *policy_next, *policy_next_mask;
} gt_shard_batch;

/* gt_shard_window_sample: B rows drawn uniformly (with replacement), each
 * under a random one of the 8 symmetries applied to the planes, the policy
 * and the opponent's reply (pass stays last) and the ownership:
 * out[sym(k, p)] = in[p]. */
void gt_shard_window_sample(gt_shard_window *w, int B, gt_shard_batch *b);

/* gt_shard_window_get: row `row` (0..rows-1) under symmetry k into slot i
 * of b (the sampler's unpacking, deterministic). Returns 0 or GT_EINVAL. */
int gt_shard_window_get(const gt_shard_window *w, long row, int k, gt_shard_batch *b, int i);

#endif
