/* cli.c: diagnostics, option values, the file loop and the final stdout
 * check shared by the commands (cli.h). */
#include "cli.h"
#include "gt.h"
#include "katacfg.h"
#include "neteval.h"
#include "sgfrec.h"
#include "nn.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "PROG: message[: strerror(err)]\n" on stderr */
static void vmsg(int err, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	if (err >= 0)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

/* the body of a variadic message function: vmsg(err, fmt, its arguments) */
#define VMSG(err, fmt)                 \
	do {                           \
		va_list ap;            \
		va_start(ap, fmt);     \
		vmsg(err, fmt, ap);    \
		va_end(ap);            \
	} while (0)

void cli_warn(const char *fmt, ...)
{
	VMSG(-1, fmt);
}

void cli_warn_errno(const char *fmt, ...)
{
	int err = errno;
	VMSG(err, fmt);
}

void cli_warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	cli_warn("%s", msg);
}

void cli_die(const char *fmt, ...)
{
	VMSG(-1, fmt);
	exit(1);
}

void cli_die_errno(const char *fmt, ...)
{
	int err = errno;
	VMSG(err, fmt);
	exit(1);
}

void cli_usage_die(const char *fmt, ...)
{
	VMSG(-1, fmt);
	exit(2);
}

void cli_usage_fail(void (*usage)(FILE *), const char *fmt, ...)
{
	if (fmt)
		VMSG(-1, fmt);
	usage(stderr);
	exit(2);
}

void cli_bad_value(const char *opt, const char *want, const char *got)
{
	fprintf(stderr, "%s: %s: want %s, got '%s'\n", prog, opt, want, got);
	exit(2);
}

const char *cli_word(const char *opt, const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] >= 127)
			n = 0;
	if (n < 1 || n > 100)
		cli_bad_value(opt, "a word of 1..100 printable characters", s);
	return s;
}

long long cli_int(const char *opt, const char *s, long long lo, long long hi)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		char want[64];
		snprintf(want, sizeof want, "%lld..%lld", lo, hi);
		cli_bad_value(opt, want, s);
	}
	return v;
}

/* digits only, base 10, no overflow: 0, or -1 */
static int digits(const char *s, char **end, unsigned long long *v)
{
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, end, 10);
	return errno ? -1 : 0;
}

uint64_t cli_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long v;
	if (digits(s, &end, &v) || *end || v < lo || v > hi) {
		char want[64];
		snprintf(want, sizeof want, "%llu..%llu", (unsigned long long)lo,
		         (unsigned long long)hi);
		cli_bad_value(opt, want, s);
	}
	return v;
}

double cli_double(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || !(v >= lo && v <= hi)) {
		char want[80];
		snprintf(want, sizeof want, "a number in %g..%g", lo, hi);
		cli_bad_value(opt, want, s);
	}
	return v;
}

/* v with the largest exact suffix: 1T, 64M, 1000 */
static void size_str(char *buf, size_t n, uint64_t v)
{
	static const char suf[] = "KMGT";
	int k = 0;
	while (k < 4 && v && v % 1024 == 0) {
		v /= 1024;
		k++;
	}
	snprintf(buf, n, k ? "%llu%c" : "%llu", (unsigned long long)v, suf[k ? k - 1 : 0]);
}

uint64_t cli_size(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long v;
	int ok = digits(s, &end, &v) == 0;
	if (ok && *end) {
		int sh = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 :
		         *end == 'G' || *end == 'g' ? 30 : -1;
		ok = sh > 0 && !end[1] && v <= (UINT64_MAX >> sh);
		if (ok)
			v <<= sh;
		end += ok;
	}
	if (!ok || *end || v < lo || v > hi) {
		char want[80], a[24], b[24];
		size_str(a, sizeof a, lo);
		size_str(b, sizeof b, hi);
		snprintf(want, sizeof want, "a size in %s..%s", a, b);
		cli_bad_value(opt, want, s);
	}
	return v;
}

void cli_files_init(cli_files *it, int n, char **names)
{
	static char *dash[] = {"-"};
	it->names = n > 0 ? names : dash;
	it->n = n > 0 ? n : 1;
	it->i = 0;
	it->f = NULL;
	it->name = NULL;
	it->failed = 0;
}

FILE *cli_files_next(cli_files *it)
{
	if (it->f && it->f != stdin)
		fclose(it->f);
	it->f = NULL;
	while (it->i < it->n) {
		it->name = it->names[it->i++];
		it->f = strcmp(it->name, "-") ? fopen(it->name, "rb") : stdin;
		if (it->f)
			return it->f;
		cli_warn_errno("%s", it->name);
		it->failed = 1;
	}
	return NULL;
}

int cli_fshut(FILE *f, const char *name)
{
	if (fflush(f) == 0 && !ferror(f))
		return 0;
	cli_warn("write error on %s: %s", name, strerror(errno ? errno : EIO));
	return 1;
}

const char *cli_not_dir(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return strerror(errno);
	return S_ISDIR(st.st_mode) ? NULL : "not a directory";
}

void cli_opt_other(int c, void (*usage)(FILE *))
{
	if (c == 'h') {
		usage(stdout);
		exit(0);
	}
	if (c == CLI_O_VERSION) {
		printf("%s %s\n", prog, GT_VERSION);
		exit(0);
	}
	usage(stderr);
	exit(2);
}

int cli_store_opt(gt_store_opts *o, int c, const char *arg)
{
	switch (c) {
	case CLI_O_RETRIES: o->retries = (int)cli_int("--retries", arg, 0, 100); break;
	case CLI_O_TIMEOUT: o->timeout_s = cli_double("--timeout", arg, 0, 86400 * 7); break;
	case CLI_O_NETRC: o->netrc = arg; break;
	default: return 0;
	}
	return 1;
}

int cli_game_opt(const cli_game *g, int c, const char *arg)
{
	switch (c) {
	case CLI_O_SIZE: *g->board_size = (int)cli_int("--board-size", arg, 2, GT_MAX_N); break;
	case CLI_O_KOMI: *g->komi = cli_double("--komi", arg, -1000, 1000); break;
	case CLI_O_RULES:
		if (!(*g->rules = g->territory ? gt_rules_find_play(arg) : gt_rules_find(arg)))
			cli_usage_die("--rules: unknown ruleset '%s'", arg);
		break;
	case CLI_O_MAXMOVES:
		*g->max_moves = (int)cli_int("--max-moves", arg, 1, GT_MAX_HIST - 2);
		break;
	case CLI_O_VISITS: *g->visits = (int)cli_int("--visits", arg, 1, 1000000); break;
	case CLI_O_PARALLEL:
		*g->parallel_games = (int)cli_int("--parallel-games", arg, 1, 4096);
		break;
	case CLI_O_SEED: *g->seed = (uint64_t)cli_int("--seed", arg, 0, (1LL << 53) - 1); break;
	default: return 0;
	}
	return 1;
}

size_t cli_max_line(const char *arg)
{
	return (size_t)cli_size("--max-line", arg, 1, 1ULL << 40);
}

volatile sig_atomic_t cli_stop;

static void on_stop(int sig)
{
	(void)sig;
	cli_stop = 1;
}

void cli_catch_stop(int once)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sa.sa_flags = once ? SA_RESETHAND : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void cli_records_init(cli_records *it, FILE *f, const char *name, size_t max_line,
                      int skip_blank)
{
	memset(it, 0, sizeof *it);
	it->rd = gt_record_reader_new(f, name, max_line);
	it->name = name;
	it->skip_blank = skip_blank;
}

int cli_records_next(cli_records *it)
{
	gt_error e;
	int rc;
	while ((rc = gt_record_read_line(it->rd, &it->line, &it->len, &e)) != 0) {
		if (rc < 0) {
			if (cli_stop)
				return 0; /* a read interrupted by the signal */
			cli_warn("%s:%ld: %s", it->name, e.line, e.text);
			it->bad++;
			if (rc == GT_ETOOLONG)
				continue;
			return 0;
		}
		if (it->skip_blank && strspn(it->line, " \t\r") == it->len)
			continue;
		it->lineno = e.line;
		return 1;
	}
	return 0;
}

void cli_records_warn(cli_records *it, const char *text)
{
	cli_warn("%s:%ld: %s", it->name, it->lineno, text);
	it->bad++;
}

void cli_records_release(cli_records *it)
{
	gt_record_reader_free(it->rd);
	it->rd = NULL;
}

int cli_precision(const char *opt, const char *s)
{
	int p = gt_nn_precision_find(s);
	if (p < 0)
		cli_bad_value(opt, "fp32, bf16 or int8", s);
	return p;
}

void cli_precision_say(const char *who, int asked, int got, const char *why, int verbose)
{
	if (got != asked)
		cli_warn("%s: %s, not %s: %s", who, gt_nn_precision_name(got),
		         gt_nn_precision_name(asked), why ? why : "unavailable");
	else if (verbose) {
		const char *kw, *k = gt_nn_precision_kernel(got, &kw);
		if (k)
			cli_warn("%s: precision %s, kernel %s%s%s", who, gt_nn_precision_name(got), k,
			         kw ? ": " : "", kw ? kw : "");
		else
			cli_warn("%s: precision %s", who, gt_nn_precision_name(got));
	}
}

int cli_precision_set(struct gt_evaluator *ev, const char *who, int prec, int verbose)
{
	const char *why;
	int got = gt_neteval_precision(ev, prec, &why);
	if (got >= 0)
		cli_precision_say(who, prec, got, why, verbose);
	return got;
}

void cli_search(const char *opt, const char *s, gt_mcts_params *p)
{
	static const struct {
		const char *key;
		double lo, hi;
		size_t off;
		int is_int;
	} keys[] = {
		{ "cpuct", 0, 100, offsetof(gt_mcts_params, cpuct), 0 },
		{ "cpuct-log", 0, 100, offsetof(gt_mcts_params, cpuct_log), 0 },
		{ "cpuct-base", 1, 1e9, offsetof(gt_mcts_params, cpuct_base), 0 },
		{ "fpu", 0, 10, offsetof(gt_mcts_params, fpu_reduction), 0 },
		{ "root-fpu", 0, 10, offsetof(gt_mcts_params, root_fpu_reduction), 0 },
		{ "forced", 0, 100, offsetof(gt_mcts_params, forced_k), 0 },
		{ "lcb", 0, 1, offsetof(gt_mcts_params, lcb_select), 1 },
		{ "lcb-min-visits", 0, 1, offsetof(gt_mcts_params, lcb_min_visits), 0 },
		{ "score-static", 0, 1, offsetof(gt_mcts_params, score_static), 0 },
		{ "score-dynamic", 0, 1, offsetof(gt_mcts_params, score_dynamic), 0 },
	};
	char buf[512];
	if (strlen(s) >= sizeof buf || !*s)
		cli_bad_value(opt, "KEY=VALUE[,KEY=VALUE...]", s);
	strcpy(buf, s);
	for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		if (!strcmp(kv, "kata")) {
			p->forced_k = 2;
			p->cpuct_log = 0.45;
			p->cpuct_base = 500;
			p->lcb_select = 1;
			continue;
		}
		char *eq = strchr(kv, '=');
		size_t k = 0, nk = sizeof keys / sizeof keys[0];
		if (eq)
			for (*eq = 0; k < nk && strcmp(keys[k].key, kv); k++)
				;
		if (!eq || k == nk)
			cli_bad_value(opt, "KEY=VALUE with KEY cpuct, cpuct-log, cpuct-base, fpu, root-fpu, "
			              "forced, lcb, lcb-min-visits, score-static or score-dynamic, or kata", s);
		char *where = (char *)p + keys[k].off;
		if (keys[k].is_int)
			*(int *)where = (int)cli_int(opt, eq + 1, (long long)keys[k].lo, (long long)keys[k].hi);
		else
			*(double *)where = cli_double(opt, eq + 1, keys[k].lo, keys[k].hi);
	}
}

/* argv[*i] as KataGo's option name (one dash or two): its value (after
 * '=' or the next argument, *i moved past it), NULL when argv[*i] is
 * another option; a missing value is a usage error */
static const char *kata_opt(int argc, char **argv, int *i, const char *name, int has_value)
{
	const char *a = argv[*i];
	if (a[0] != '-')
		return NULL;
	a += 1 + (a[1] == '-');
	size_t n = strlen(name);
	if (strncmp(a, name, n) || (a[n] && a[n] != '='))
		return NULL;
	if (!has_value) {
		if (a[n])
			cli_usage_die("-%s takes no value", name);
		return a;
	}
	if (a[n] == '=')
		return a + n + 1;
	if (*i + 1 >= argc)
		cli_usage_die("-%s: a value is missing", name);
	return argv[++*i];
}

int cli_kata_args(int *argc, char **argv, const char *sub, cli_kata *k)
{
	memset(k, 0, sizeof *k);
	if (*argc < 2 || strcmp(argv[1], sub))
		return 0;
	const char *cfgs[64], *ovs[64];
	int ncfg = 0, nov = 0, out = 1;
	for (int i = 2; i < *argc; i++) {
		const char *v;
		if ((v = kata_opt(*argc, argv, &i, "config", 1))) {
			if (ncfg == 64)
				cli_usage_die("-config: more than 64");
			cfgs[ncfg++] = v;
		} else if ((v = kata_opt(*argc, argv, &i, "override-config", 1))) {
			if (nov == 64)
				cli_usage_die("-override-config: more than 64");
			ovs[nov++] = v;
		} else if ((v = kata_opt(*argc, argv, &i, "model", 1))) {
			k->model = v;
		} else if ((v = kata_opt(*argc, argv, &i, "analysis-threads", 1))) {
			k->analysis_threads = (int)cli_int("-analysis-threads", v, 1, 4096);
		} else if (kata_opt(*argc, argv, &i, "quit-without-waiting", 0)) {
			k->quit_without_waiting = 1;
		} else if (kata_opt(*argc, argv, &i, "human-model", 1)) {
			cli_usage_die("-human-model: not supported (gt has no human-style network)");
		} else {
			argv[out++] = argv[i];
		}
	}
	argv[out] = NULL;
	*argc = out;
	if (!ncfg)
		cli_usage_die("%s: -config FILE is required", sub);
	if (!k->model)
		cli_usage_die("%s: -model FILE is required", sub);
	gt_error e;
	if (gt_katacfg_load(&k->cfg, cfgs[0], &e) != 0)
		cli_die("%s", e.text);
	for (int i = 1; i < ncfg; i++)
		if (gt_katacfg_add(k->cfg, cfgs[i], &e) != 0)
			cli_die("%s", e.text);
	for (int i = 0; i < nov; i++)
		if (gt_katacfg_override(k->cfg, ovs[i], &e) != 0)
			cli_die("%s", e.text);
	return 1;
}

/* a getter's result: fatal on an error */
static int kata_got(int rc, const gt_error *e)
{
	if (rc < 0)
		cli_die("%s", e->text);
	return rc;
}

int cli_kata_int(cli_kata *k, const char *key, long long lo, long long hi, long long *v)
{
	gt_error e;
	return kata_got(gt_katacfg_int(k->cfg, key, lo, hi, v, &e), &e);
}

int cli_kata_double(cli_kata *k, const char *key, double lo, double hi, double *v)
{
	gt_error e;
	return kata_got(gt_katacfg_double(k->cfg, key, lo, hi, v, &e), &e);
}

int cli_kata_bool(cli_kata *k, const char *key, int *v)
{
	gt_error e;
	return kata_got(gt_katacfg_bool(k->cfg, key, v, &e), &e);
}

int cli_kata_enum(cli_kata *k, const char *key, const char *const *names, int n, int *v)
{
	gt_error e;
	return kata_got(gt_katacfg_enum(k->cfg, key, names, n, v, &e), &e);
}

void cli_kata_search(cli_kata *k, gt_mcts_params *p, int choose)
{
	/* KataGo's ranges (its Setup::loadParams) */
	cli_kata_double(k, "cpuctExploration", 0, 10, &p->cpuct);
	cli_kata_double(k, "cpuctExplorationLog", 0, 10, &p->cpuct_log);
	cli_kata_double(k, "cpuctExplorationBase", 10, 100000, &p->cpuct_base);
	cli_kata_double(k, "fpuReductionMax", 0, 2, &p->fpu_reduction);
	cli_kata_double(k, "rootFpuReductionMax", 0, 2, &p->root_fpu_reduction);
	cli_kata_double(k, "staticScoreUtilityFactor", 0, 1, &p->score_static);
	cli_kata_double(k, "dynamicScoreUtilityFactor", 0, 1, &p->score_dynamic);
	if (choose) {
		cli_kata_bool(k, "useLcbForSelection", &p->lcb_select);
		cli_kata_double(k, "minVisitPropForLCB", 0, 1, &p->lcb_min_visits);
	}
}

int cli_kata_rules(cli_kata *k, const gt_rules **r)
{
	char w[300];
	const char *name = gt_katacfg_str(k->cfg, "rules");
	if (name) {
		gt_katacfg_where(k->cfg, "rules", w, sizeof w);
		if ((*r = gt_rules_find_play(name)))
			return 1;
		int count = gt_sgfrec_rules(name, r);
		if (count == GT_COUNT_UNKNOWN)
			cli_die("%s: rules: unknown rules '%.64s'", w, name);
		if (count == GT_COUNT_TERRITORY)
			cli_warn("%s: rules %.64s: territory scoring is not supported: %s (area scoring) used",
			         w, name, (*r)->name);
		return 1;
	}
	static const char *const ko[] = { "SIMPLE", "POSITIONAL", "SITUATIONAL", "SPIGHT" };
	static const char *const scoring[] = { "AREA", "TERRITORY" };
	static const char *const tax[] = { "NONE", "SEKI", "ALL" };
	int kr = -1, sc = 0, su = -1, tx = 0, button = 0;
	int any = cli_kata_enum(k, "koRule", ko, 4, &kr) | cli_kata_enum(k, "scoringRule", scoring, 2, &sc) |
	          cli_kata_bool(k, "multiStoneSuicideLegal", &su) | cli_kata_enum(k, "taxRule", tax, 3, &tx) |
	          cli_kata_bool(k, "hasButton", &button);
	if (!any)
		return 0;
	if (kr < 0 || su < 0)
		cli_die("koRule and multiStoneSuicideLegal are required without rules");
	/* territory: gt plays KataGo's japanese (simple ko, no suicide, seki
	 * points for no one) */
	if (sc == 1 && kr == GT_KO_SIMPLE && !su && tx == 1) {
		*r = gt_rules_find_play("japanese");
		if (button)
			gt_katacfg_unuse(k->cfg, "hasButton");
		return 1;
	}
	/* GT_KO_SIMPLE, _POSITIONAL, _SITUATIONAL in KataGo's order */
	*r = NULL;
	for (int i = 0; kr < 3 && i < GT_NRULES; i++) {
		const gt_rules *x = gt_rules_get(i);
		if (x->ko == kr && x->multi_suicide == su)
			*r = x;
	}
	if (!*r)
		cli_die("%s: koRule %s with multiStoneSuicideLegal %s: no ruleset of gt plays it",
		        gt_katacfg_where(k->cfg, "koRule", w, sizeof w), ko[kr], su ? "true" : "false");
	if (sc == 1) {
		cli_warn("%s: scoringRule TERRITORY with koRule %s, multiStoneSuicideLegal %s, taxRule %s: "
			         "gt's territory rules are japanese's (SIMPLE, false, SEKI): %s (area scoring) used",
			         gt_katacfg_where(k->cfg, "scoringRule", w, sizeof w), ko[kr], su ? "true" : "false",
			         tax[tx], (*r)->name);
	} else if (tx)
		gt_katacfg_unuse(k->cfg, "taxRule");
	if (button)
		gt_katacfg_unuse(k->cfg, "hasButton");
	return 1;
}

void cli_kata_done(cli_kata *k)
{
	/* what KataGo itself does with these changes no answer of a search:
	 * its logs, devices and backends, threads of its evaluator, memory,
	 * the random symmetry of its evaluations, its start-up messages */
	static const char *const quiet[] = {
		"log", "homeDataDir", "nnMaxBatchSize", "nnMutexPoolSizePowerOfTwo", "nnRandomize",
		"nnRandSeed", "numNNServerThreadsPerModel", "numEigenThreadsPerModel", "cuda", "opencl",
		"trt", "metal", "coreml", "gpuToUse", "deviceToUse", "useFP16", "useNHWC",
		"inputsUseNHWC", "mutexPoolSize", "warnUnusedFields", "startupPrintMessageToStderr",
		"ogsChatToStderr", "maxBoardSizeForNNBuffer", "requireMaxBoardSize",
	};
	for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
		gt_katacfg_use_prefix(k->cfg, quiet[i]);
	char *u = gt_katacfg_unused(k->cfg);
	if (u)
		cli_warn("config keys not used (no meaning in gt, or a value gt does not play by): %s", u);
	free(u);
	gt_katacfg_free(k->cfg);
	k->cfg = NULL;
}

int cli_search_threads(void)
{
	long k = sysconf(_SC_NPROCESSORS_ONLN);
	return k < 1 ? 1 : k > CLI_THREADS_MAX ? CLI_THREADS_MAX : (int)k;
}

void cli_evaluators(const char *path, const char *backend, int prec, int k,
                    struct gt_evaluator *ev, char *name, size_t size)
{
	gt_error e;
	for (int t = 0; t < k; t++) {
		if (gt_neteval_open_file(path, backend, &ev[t], t ? NULL : name, size, &e) != 0) {
			while (t > 0)
				gt_evaluator_close(&ev[--t]);
			cli_die("%s", e.text);
		}
		if (t == 0)
			cli_precision_set(&ev[t], name && size ? name : path, prec, 0);
		else
			gt_neteval_precision(&ev[t], prec, NULL);
	}
}
