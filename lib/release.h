/*
 * release.h: what a store publishes and when (gt(7) "The store"); the
 * one module that reads and writes the release pointer.
 * STORE/models/latest.json names the published network and the self-play
 * settings that go with it; STORE/models/<name> holds the network itself
 * (immutable) and STORE/models/history.ndjson one line per decision.
 * gt-publish decides and writes them (the network first, the pointer
 * last); workers read the pointer through gt-sync latest.
 */
#ifndef GT_RELEASE_H
#define GT_RELEASE_H
#include <stddef.h>
#include "gt.h"
#include "store.h"

/* ---- the pointer (gt-sync latest) ---- */

/* gt_release_fetch: read STORE/models/latest.json ({"name","sha256",
 * "bytes","seq",...}; a key twice is GT_EFORMAT); if verify_key (a PEM
 * Ed25519 public key file) is not NULL, its "signature" must verify over
 * the whole pointer (sign.h) and it must carry a "seq", or nothing is
 * fetched (GT_ECHECKSUM). Its "seq" (0 when absent) must not be lower than
 * the one of the pointer installed before in dir (dir/.latest.json, a
 * copy of the last pointer acted on), or nothing is fetched
 * (GT_ECHECKSUM, e saying so in one line): an older pointer put back
 * cannot roll a worker back. Then if dir/<name> is absent or its sha256 differs,
 * download STORE/models/<name> into dir (created if missing) checking
 * sha256 and bytes, validate (may be NULL) called on the temporary file
 * (gt_store_get_validated). *path receives the new string dir/<name>
 * (caller frees), or NULL when the store has no latest.json (nothing
 * published yet; returns 0). *fetched (may be NULL) is 1 if the network was
 * downloaded, 0 if it was installed already. *pointer (may be NULL)
 * receives the text of the latest.json acted on (new NUL-terminated
 * string, caller frees; NULL on error or when there is none), so the
 * caller reads the settings published with that very network.
 * Errors: GT_EFORMAT (bad pointer file or name), GT_ECHECKSUM, GT_ENOTFOUND
 * (the network it names is absent), GT_EIO, or validate's error. */
int gt_release_fetch(const gt_store_opts *o, const char *store, const char *dir,
                     const char *verify_key, gt_store_validate_fn validate, void *vctx,
                     char **path, int *fetched, char **pointer, gt_error *e);

/* ---- the decision and the release (gt-publish) ---- */

/* A match summary as gt-elo prints it (the fields a decision needs). */
typedef struct gt_release_match {
	long games, wins, draws, losses;  /* from the candidate's side */
	double elo;          /* candidate minus reference; +-INFINITY when gt-elo
	                      * printed null (all decisive games won or lost) */
} gt_release_match;

/* gt_release_match_parse: read one gt-elo summary line ({"games","wins",
 * "draws","losses","elo",...}) into m. The counts must be integers >= 0
 * with wins + draws + losses == games; "elo" a number, or null when one
 * side won every decisive game. Returns 0 or GT_EFORMAT (e says why). */
int gt_release_match_parse(const char *line, size_t len, gt_release_match *m, gt_error *e);

/* gt_release_decide: 1 to release the candidate, 0 not; why (why_size
 * bytes) says which rule decided. Rules in order: a match without decisive
 * games (wins + losses == 0) never releases; elo > threshold releases;
 * steps crossing a multiple of every (steps / every > prev_steps / every,
 * prev_steps -1 when nothing was published yet, every <= 0 disables the
 * rule) releases; otherwise not. */
int gt_release_decide(const gt_release_match *m, double threshold, long long steps,
                      long long prev_steps, long long every, char *why, size_t why_size);

/* A candidate network and what becomes of it, in gt-publish's order:
 * gt_release_cand_init, the caller's fields, gt_release_cand_read, the
 * settings (gt_release_curriculum_pick), gt_release_cand_decide,
 * gt_release_cand_publish when released, gt_release_cand_history.
 * Caller-owned; the strings are borrowed and must live until the last
 * call. The network goes up under its name first and latest.json last, so
 * a crash between them leaves the previous release in place. */
typedef struct gt_release_cand {
	/* set by the caller */
	const char *store;        /* the store URL */
	const char *path;         /* the candidate network file (.bin.gz) */
	const char *name;         /* published name; NULL: the model's own */
	const char *series;       /* recorded in latest.json and the history, or NULL */
	const char *sign_key;     /* PEM Ed25519 private key to sign latest.json, or NULL */
	const char *selfplay;     /* self-play settings (JSON object text), or NULL */
	double threshold;         /* release when elo > threshold (default 20) */
	long long every;          /* release when the steps cross a multiple of every
	                           * (default 10000; 0: never) */
	long long steps;          /* training steps; -1 (default): the model's */
	/* filled by the calls */
	long long rows;           /* the model's training rows, -1 unknown */
	char own_name[160];       /* SERIES-bBcC-sS-dR.bin.gz from the model's header */
	char time[32];            /* when it was decided, ISO 8601 UTC */
	const char *summary;      /* the summary line decided on (borrowed), NULL if bad */
	size_t summary_len;
	int bad;                  /* the summary was missing or unusable */
	int released;             /* 1: released; 0 again when the release failed */
	char reason[300];         /* the rule that decided, or what is wrong with the summary */
	gt_release_match match;
	long long seq;            /* the sequence number published, 0 before */
	char sha256[GT_SHA256_HEX]; /* of the network put into the store, "" before */
	long long bytes;          /* its size, -1 before */
	char error[256];          /* why the release failed, "" if it did not */
	char pointer_tag[GT_STORE_TAG]; /* latest.json's version when decided ("" none):
	                           * the pointer is replaced only over it */
} gt_release_cand;

/* gt_release_cand_init: c empty with the defaults above. */
void gt_release_cand_init(gt_release_cand *c);

/* gt_release_cand_read: read c->path with lib/model (the whole file
 * checked): own_name, rows, steps when -1, and name when NULL (own_name).
 * Returns 0, or the model's error with e saying "PATH: not a valid model:
 * why". The name is not checked here (gt_store_name_ok). */
int gt_release_cand_read(gt_release_cand *c, gt_error *e);

/* gt_release_cand_decide: decide on the summary line (gt-elo's, len bytes;
 * NULL when there was none). A missing or malformed summary, or one whose
 * player "b" is the candidate (gt-elo counts wins for "a"; players are
 * named by their file's base name without .bin.gz) sets bad, not released,
 * and the reason ("bad summary: ..."); else the steps of the network
 * latest.json names now (its "steps", else the -sN of its name; -1 when
 * nothing is published) go to gt_release_decide. Returns 0, or the store's
 * error reading latest.json (nothing decided). */
int gt_release_cand_decide(const gt_store_opts *o, gt_release_cand *c, const char *summary,
                           size_t len, gt_error *e);

/* gt_release_cand_publish: put the network under STORE/models/<name>
 * (immutable: the same bytes there already are fine), then replace
 * STORE/models/latest.json with {"name","sha256","bytes","seq","steps",
 * "rows","elo","published","series"?,"selfplay"?,"signature"?}: seq is the
 * one latest.json has now plus 1 (1 when it has none), the signature
 * (sign_key) covers every other key (sign.h) and is made before anything
 * is uploaded. Sets seq, and sha256 and bytes once the network is in the
 * store. latest.json is replaced only if it is still the version decide
 * read (pointer_tag; gt_store_replace): a pointer another release wrote
 * meanwhile is GT_ECONFLICT and stays. On failure released becomes 0,
 * error says why and the error is returned (GT_EIO, GT_ECHECKSUM,
 * GT_ECONFLICT, sign.h's errors). */
int gt_release_cand_publish(const gt_store_opts *o, gt_release_cand *c, gt_error *e);

/* gt_release_cand_history: append the decision to
 * STORE/models/history.ndjson (read, append, replace over the version
 * read; read again when another writer came between): {"time","series"?,
 * "candidate","steps","selfplay"?,"released","reason","threshold",
 * "every_steps","stats","sha256"?,"bytes"?,"seq"?,"error"?}, "stats" the whole
 * summary or null. *entry receives that line (new string without '\n',
 * caller frees) whether or not the append worked. Returns 0 or the store's
 * error. */
int gt_release_cand_history(const gt_store_opts *o, const gt_release_cand *c, char **entry,
                            gt_error *e);

/* ---- self-play settings and curriculum (gt-publish, gt-sync) ---- */

/* The self-play settings a store publishes with a network, as the
 * "selfplay" object of latest.json, and the gt-selfplay option each
 * becomes: board_size (--board-size, 2..19), komi (--komi), rules
 * (--rules, a-z and -), visits and cheap_visits (1..100000), full_prob
 * (0..1), max_moves (1..1000), temp_early, temp_final, temp_halflife.
 * Any other key, or a value of the wrong kind or out of range, is
 * GT_EFORMAT everywhere (gt-publish refuses to publish it, a worker
 * refuses to play it). */

/* gt_release_curriculum_pick: from a curriculum (text, len bytes: NDJSON
 * lines {"from_step":S, setting: value, ...}, from_step strictly
 * increasing; blank lines and lines starting with '#' skipped), the
 * settings for a network of steps steps: every line with from_step <=
 * steps applied in order, later values replacing earlier ones. On success
 * *settings_json is a new compact JSON object text with sorted keys
 * (caller frees), or NULL when no line applies yet. Returns 0 or
 * GT_EFORMAT (e names the line and the reason; the whole file is checked,
 * not only the lines that apply). */
int gt_release_curriculum_pick(const char *text, size_t len, long long steps,
                               char **settings_json, gt_error *e);

/* gt_release_selfplay_args: the gt-selfplay options for the "selfplay"
 * object of a latest.json text (pointer, len bytes), e.g. "--board-size 9
 * --visits 200", into buf (size bytes, NUL-terminated; "" when there are
 * none). Every token is a fixed option name or a checked number or rules
 * name, so the text is safe to split on spaces in a shell. Returns 0,
 * GT_EFORMAT (bad JSON or a bad setting; buf is then "") or GT_ETOOLONG
 * (buf too small; 512 bytes suffice). */
int gt_release_selfplay_args(const char *pointer, size_t len, char *buf, size_t size,
                             gt_error *e);

#endif
