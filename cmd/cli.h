/*
 * cli.h: what every gt command shares, in the manner of err(3) and sbase's
 * eprintf: diagnostics "PROG: message" on stderr, exit status 1 for a
 * failure and 2 for a usage error, option values parsed in base 10 with one
 * wording, the loop over file arguments, and the final check of stdout.
 * cmd/cli.c is compiled once and linked into every command (Makefile).
 *
 * Messages are lowercase and name the thing that is wrong; fmt is printf's.
 * SIGPIPE is left alone, so `gt-xxx | head` ends quietly.
 */
#ifndef GT_CMD_CLI_H
#define GT_CMD_CLI_H
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "board.h"
#include "mcts.h"
#include "record.h"
#include "store.h"

/* prog: the command's name ("gt-augment"), the first word of every
 * message. Each cmd/gt-*.c defines it: const char *prog = "gt-xxx"; */
extern const char *prog;

/* cli_warn: "PROG: message\n" on stderr; goes on. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* cli_warn_errno: "PROG: message: strerror(errno)\n" on stderr; goes on. */
void cli_warn_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* cli_warn_cb: cli_warn("%s", msg), with the signature of the library's
 * warning callbacks (gt_store_opts.warn and the like); ctx is unused. */
void cli_warn_cb(void *ctx, const char *msg);

/* cli_die: "PROG: message\n" on stderr, then exit(1). */
void cli_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* cli_die_errno: "PROG: message: strerror(errno)\n", then exit(1). */
void cli_die_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* cli_usage_die: "PROG: message\n" for a usage error, then exit(2). */
void cli_usage_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* cli_usage_fail: "PROG: message\n" (none when fmt is NULL), then the
 * command's usage on stderr, then exit(2): what a command does when its
 * arguments are missing or wrong as a whole. */
void cli_usage_fail(void (*usage)(FILE *), const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* cli_bad_value: "PROG: OPT: want WANT, got 'GOT'\n", then exit(2): the one
 * wording of a bad option value (e.g. "gt-train: --lr: want a number in
 * 0..10, got 'x'"). */
void cli_bad_value(const char *opt, const char *want, const char *got)
	__attribute__((noreturn));

/* cli_int: s as a decimal integer (base 10 always: "010" is ten) in
 * lo..hi, or cli_bad_value(opt, "LO..HI", s). */
long long cli_int(const char *opt, const char *s, long long lo, long long hi);

/* cli_search_threads: the default search threads of gt-gtp and
 * gt-analyze with a network: the online CPUs, at most CLI_THREADS_MAX (each
 * thread holds a copy of the network); 1 where they cannot be counted. */
#define CLI_THREADS_MAX 8
int cli_search_threads(void);

/* cli_evaluators: k evaluators of the model file path (gt_neteval_open_file
 * with backend), each asked for precision prec (cli_precision_set said
 * once, of name when given, else of path), into ev[0..k-1]; name (size bytes, may be NULL) gets the model's
 * name. On failure dies with the message, closing what was open. */
struct gt_evaluator;
void cli_evaluators(const char *path, const char *backend, int prec, int k,
                    struct gt_evaluator *ev, char *name, size_t size);

/* cli_u64: s as a decimal unsigned integer (digits only, no sign) in
 * lo..hi, for values up to 2^64-1 such as seeds; else cli_bad_value. */
uint64_t cli_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi);

/* cli_word: s when it is one word of 1 to 100 printable ASCII characters
 * (no space or control character: a GTP answer's first word), else
 * cli_bad_value(opt, "a word of 1..100 printable characters", s). */
const char *cli_word(const char *opt, const char *s);

/* cli_double: s as a finite number in lo..hi (NaN and out of range
 * refused), or cli_bad_value(opt, "a number in LO..HI", s). */
double cli_double(const char *opt, const char *s, double lo, double hi);

/* cli_size: s as a byte count, decimal digits with an optional suffix K,
 * M or G (also lowercase; powers of 1024), in lo..hi; else
 * cli_bad_value(opt, "a size in LO..HI", s) with LO and HI written with a
 * suffix where exact (1..1T). */
uint64_t cli_size(const char *opt, const char *s, uint64_t lo, uint64_t hi);

/* The loop over file arguments: no names, or a name "-", is stdin.
 *
 *	cli_files in;
 *	cli_files_init(&in, argc - optind, argv + optind);
 *	for (FILE *f; (f = cli_files_next(&in)); )
 *		... read f, named in.name ...
 *	bad |= in.failed;
 *
 * A file that cannot be opened is reported "PROG: NAME: strerror" and
 * skipped, and failed is set. */
typedef struct cli_files {
	char **names;     /* borrowed from argv */
	int n, i;         /* names, and the next one to open */
	FILE *f;          /* the open file (stdin for "-"), NULL between files */
	const char *name; /* its name ("-" for stdin) */
	int failed;       /* 1 once a file could not be opened */
} cli_files;

/* cli_files_init: the loop over the n names (n == 0: stdin once). */
void cli_files_init(cli_files *it, int n, char **names);

/* cli_files_next: close the previous file (not stdin), open the next one
 * ("rb") and return it, reporting and skipping those that cannot be opened;
 * NULL after the last. */
FILE *cli_files_next(cli_files *it);

/* cli_fshut: the final check of an output stream (sbase's fshut): fflush
 * and ferror; on an error "PROG: write error on NAME: strerror" and 1, else
 * 0. Use as: return cli_fshut(stdout, "stdout") | bad; */
int cli_fshut(FILE *f, const char *name);

/* cli_not_dir: NULL if path is a directory, else why not (strerror of
 * stat(2)'s errno, or "not a directory"), for "PROG: PATH: why". */
const char *cli_not_dir(const char *path);

/* The options every command ends its getopt_long table with, and what its
 * switch does with the rest:
 *
 *	static const struct option lo[] = { ..., CLI_OPTS_END };
 *	...
 *	default: cli_opt_other(c, usage);
 *
 * cli_opt_other: -h or --help: usage(stdout), exit 0; --version:
 * "PROG VERSION", exit 0; anything else (getopt_long has said what):
 * usage(stderr), exit 2. */
enum { CLI_O_VERSION = 0x7f00 };
#define CLI_OPTS_END                                  \
	{"help", no_argument, NULL, 'h'},             \
	{"version", no_argument, NULL, CLI_O_VERSION}, \
	{NULL, 0, NULL, 0}
void cli_opt_other(int c, void (*usage)(FILE *)) __attribute__((noreturn));

/* The options of the games a command plays (gt-selfplay, gt-elo), with
 * one range and one wording each: --board-size N (2..19), --komi K
 * (-1000..1000), --rules NAME (gt_rules_find), --max-moves N
 * (1..GT_MAX_HIST-2), --visits N (1..1000000), --parallel-games G
 * (1..4096), --seed S (0..2^53-1). A command puts CLI_BOARD_OPTS (the
 * first four: --board-size, --komi, --rules, --seed) or CLI_GAME_OPTS (all
 * seven) in its table and points a cli_game at its settings (NULL for those
 * it does not take). */
enum { CLI_O_SIZE = 0x7f10, CLI_O_KOMI, CLI_O_RULES, CLI_O_MAXMOVES, CLI_O_VISITS,
       CLI_O_PARALLEL, CLI_O_SEED };
#define CLI_BOARD_OPTS                                        \
	{"board-size", required_argument, NULL, CLI_O_SIZE}, \
	{"komi", required_argument, NULL, CLI_O_KOMI},       \
	{"rules", required_argument, NULL, CLI_O_RULES},     \
	{"seed", required_argument, NULL, CLI_O_SEED}
#define CLI_GAME_OPTS                                                   \
	CLI_BOARD_OPTS,                                                 \
	{"max-moves", required_argument, NULL, CLI_O_MAXMOVES},        \
	{"visits", required_argument, NULL, CLI_O_VISITS},             \
	{"parallel-games", required_argument, NULL, CLI_O_PARALLEL}
typedef struct cli_game {
	int *board_size, *max_moves, *visits, *parallel_games; /* borrowed */
	double *komi;
	const gt_rules **rules;
	uint64_t *seed;
	int territory; /* 1: --rules takes territory rulesets (gt_rules_find_play) */
} cli_game;

/* cli_game_opt: if c is one of the CLI_O_ game options, its value arg
 * into g's field and 1 (a bad value is a usage error: cli_bad_value, or
 * "PROG: --rules: unknown ruleset 'NAME'", exit 2); else 0. --rules
 * names an area ruleset (gt_rules_find), or any with g->territory. */
int cli_game_opt(const cli_game *g, int c, const char *arg);

/* cli_search: the search settings of a --search value into p: a comma
 * separated list of KEY=VALUE, KEY one of cpuct, cpuct-log, cpuct-base,
 * fpu, root-fpu, forced (forced playouts' k), lcb (0 or 1), lcb-min-visits,
 * score-static, score-dynamic (gt_mcts_params in lib/mcts.h); "kata" alone stands for KataGo's
 * forced=2,cpuct-log=0.45,cpuct-base=500,lcb=1. Settings not named keep
 * their value. A bad key or value: cli_bad_value(opt, ...). */
void cli_search(const char *opt, const char *s, gt_mcts_params *p);

/* cli_precision: the GT_PREC_* (nn.h) of a --precision value, "fp32",
 * "bf16" or "int8", else cli_bad_value(opt, "fp32, bf16 or int8", s). */
int cli_precision(const char *opt, const char *s);

/* cli_precision_say: what a command says of the precision of the network
 * who: when got is lower than asked, "PROG: WHO: fp32, not int8: WHY" on
 * stderr always; otherwise, with verbose, "PROG: WHO: precision P". */
void cli_precision_say(const char *who, int asked, int got, const char *why, int verbose);

/* cli_precision_set: ask for prec in the network evaluator ev (borrowed;
 * gt_neteval_precision) and cli_precision_say it under the name who;
 * returns the precision in effect, or -1 (nothing said) when ev is not a
 * network. */
struct gt_evaluator;
int cli_precision_set(struct gt_evaluator *ev, const char *who, int prec, int verbose);

/* The options of the commands that reach a store (gt-publish, gt-sync,
 * gt-report), with one range and one wording each: --retries N (0..100),
 * --timeout S (seconds, 0..604800), --netrc FILE. A command ends its list
 * of options with CLI_STORE_OPTS and passes the rest to cli_store_opt. */
enum { CLI_O_RETRIES = 0x7f20, CLI_O_TIMEOUT, CLI_O_NETRC };
#define CLI_STORE_OPTS                                         \
	{"retries", required_argument, NULL, CLI_O_RETRIES}, \
	{"timeout", required_argument, NULL, CLI_O_TIMEOUT}, \
	{"netrc", required_argument, NULL, CLI_O_NETRC}

/* cli_store_opt: if c is one of the CLI_O_ store options, its value arg
 * into o and 1 (a bad value: cli_bad_value, exit 2); else 0. */
int cli_store_opt(gt_store_opts *o, int c, const char *arg);

/* SIGINT and SIGTERM as a request to stop: cli_catch_stop makes them set
 * cli_stop (no SA_RESTART, so a blocked read returns EINTR); with once, a
 * second signal kills at once (SA_RESETHAND). The command polls cli_stop,
 * or passes &cli_stop to a library loop that does. */
extern volatile sig_atomic_t cli_stop;
void cli_catch_stop(int once);

/* --max-line BYTES, the longest line of game records a command reads
 * (gt-augment, gt-sgf, gt-validate): CLI_MAXLINE_OPT in its table, and
 * cli_max_line(optarg) the value (a size in 1..1T: cli_size). */
enum { CLI_O_MAXLINE = 0x7f30 };
#define CLI_MAXLINE_OPT {"max-line", required_argument, NULL, CLI_O_MAXLINE}
size_t cli_max_line(const char *arg);

/* The loop over the lines of one input of game records, for the commands
 * that report a bad line and go on (gt-record(5); gzip or plain):
 *
 *	cli_records it;
 *	cli_records_init(&it, f, name, max_line, 1);
 *	while (cli_records_next(&it))
 *		... it.line, it.len (NUL-terminated), it.lineno ...
 *	bad |= it.bad != 0;
 *	cli_records_release(&it);
 *
 * A read error is reported "PROG: NAME:LINE: text" and counted in bad; a
 * line over max_line is skipped, any other read error (truncated or corrupt
 * gzip, I/O) ends the input, quietly when cli_stop is set (the read was
 * interrupted by the signal). */
typedef struct cli_records {
	gt_record_reader *rd; /* owned */
	const char *name;     /* borrowed */
	int skip_blank;       /* 1: lines of only spaces, tabs and CRs are skipped */
	const char *line;     /* the line (borrowed from the reader until the next call) */
	size_t len;
	long lineno;          /* its number, 1-based */
	long bad;             /* read errors reported, and cli_records_warn calls */
} cli_records;

void cli_records_init(cli_records *it, FILE *f, const char *name, size_t max_line,
                      int skip_blank);
/* cli_records_next: 1 with the next line in it, or 0 at the end. */
int cli_records_next(cli_records *it);
/* cli_records_warn: "PROG: NAME:LINENO: text" for the current line, and
 * bad counted. */
void cli_records_warn(cli_records *it, const char *text);
void cli_records_release(cli_records *it);

/*
 * KataGo's command line (gt-analyze(1) and gt-gtp(1), KATAGO COMPATIBILITY):
 *
 *	PROG SUB -config FILE [-config FILE ...] -model FILE
 *	         [-override-config KEY=VALUE,... ...] [-analysis-threads N]
 *	         [-quit-without-waiting] [PROG's own --options]
 *
 * each with one dash or two, its value after a space or '='. A later
 * -config sets keys over the earlier ones, and the overrides over all
 * (katacfg.h). The command reads the keys it has a meaning for with the
 * cli_kata_ getters, then cli_kata_done warns once about the rest.
 */
struct gt_katacfg;
typedef struct cli_kata {
	struct gt_katacfg *cfg;   /* the keys (owned until cli_kata_done) */
	const char *model;        /* -model (borrowed from argv) */
	int analysis_threads;     /* -analysis-threads N, 0 when absent */
	int quit_without_waiting; /* -quit-without-waiting given */
} cli_kata;

/* cli_kata_args: when argv[1] is sub ("analysis", "gtp"), take it and
 * KataGo's arguments out of argv, leaving argv[0] and PROG's own options
 * for getopt_long (*argc updated; argv's pointers moved, not copied), read
 * the configs and overrides into k and return 1; otherwise 0, nothing
 * changed. No -config or -model, a value missing, or -human-model: a usage
 * error (exit 2); a config that cannot be read or is malformed:
 * "PROG: FILE:LINE: reason", exit 1. */
int cli_kata_args(int *argc, char **argv, const char *sub, cli_kata *k);

/* The getters: gt_katacfg's (1 set, 0 absent), a bad value fatal
 * ("PROG: FILE:LINE: KEY: want ..., got '...'", exit 1). */
int cli_kata_int(cli_kata *k, const char *key, long long lo, long long hi, long long *v);
int cli_kata_double(cli_kata *k, const char *key, double lo, double hi, double *v);
int cli_kata_bool(cli_kata *k, const char *key, int *v);
int cli_kata_enum(cli_kata *k, const char *key, const char *const *names, int n, int *v);

/* cli_kata_search: KataGo's search keys with a meaning in gt into p
 * (cpuctExploration, cpuctExplorationLog, cpuctExplorationBase,
 * fpuReductionMax, rootFpuReductionMax; with choose, useLcbForSelection
 * and minVisitPropForLCB too), in KataGo's ranges. */
void cli_kata_search(cli_kata *k, gt_mcts_params *p, int choose);

/* cli_kata_rules: the ruleset of the keys rules, or koRule, scoringRule,
 * multiStoneSuicideLegal, taxRule and hasButton (KataGo's rules page), into
 * *r; 0 when none is set. Territory scoring is played by area with one
 * warning naming the key; a value no ruleset of gt plays is fatal. */
int cli_kata_rules(cli_kata *k, const gt_rules **r);

/* cli_kata_done: mark used the keys gt passes over without a word
 * (KataGo's logging, devices, backends and memory tuning: cli.c's list),
 * then one warning naming the keys left ("PROG: config keys not used:
 * a, b"), if any; frees k->cfg. */
void cli_kata_done(cli_kata *k);

#endif
