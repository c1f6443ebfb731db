/* gt-train: train a network on the newest rows of a shard directory
 * (gt-train(1)); the loop itself is lib/train. */
#include "gt.h"
#include "model.h"
#include "nn.h"
#include "optim.h"
#include "shard.h"
#include "train.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *prog = "gt-train";
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: gt-train --model FILE | --init ARCH  --data DIR [-o FILE] [--window ROWS]\n"
	    "                [--steps S] [--batch B] [--optimizer adam|adamw|sgd] [--lr LR]\n"
	    "                [--momentum M] [--weight-decay W] [--policy-weight W]\n"
	    "                [--value-weight W] [--score-weight W] [--ownership-weight W]\n"
	    "                [--board-size N] [--series NAME] [--seed S] [--threads T]\n"
	    "                [--state FILE] [--checkpoint-every K] [--log-every K]\n"
	    "                [--validate DIR] [--validate-every K] [--validate-rows R]\n"
	    "                [--max-bad-steps K] [--backend NAME] [--progress]\n");
}

static void help(void)
{
	usage(stdout);
	printf(
	    "Train a network on the newest rows of a shard directory (gt-shard(5)); metrics\n"
	    "as NDJSON on stdout, the new network written to -o (atomically).\n"
	    "  --model FILE          start from this network\n"
	    "  --init ARCH           or from a random one, e.g. b6c64 (seed --seed)\n"
	    "  --data DIR            shard directory (required)\n"
	    "  -o, --output FILE     output network (<series>-b<B>c<C>-s<steps>-d<rows>.bin.gz)\n"
	    "  --window ROWS         newest rows to sample from (250000)\n"
	    "  --steps S             total steps of the run, resumed ones included (1000)\n"
	    "  --batch B             rows per step (256)\n"
	    "  --optimizer NAME      adam, adamw or sgd (adamw)\n"
	    "  --lr LR               learning rate (0.001)\n"
	    "  --momentum M          sgd momentum (0.9)\n"
	    "  --weight-decay W      (adamw 0.0001, else 0)\n"
	    "  --policy-weight W     loss weights (1, 1, 0.5, 0.5)\n"
	    "  --value-weight W\n"
	    "  --score-weight W\n"
	    "  --ownership-weight W\n"
	    "  --board-size N        train on this size's shards (the newest shard's)\n"
	    "  --series NAME         series of the output's name (the input's, or gt)\n"
	    "  --seed S              sampler and --init seed (1)\n"
	    "  --threads T           BLAS threads (1)\n"
	    "  --backend NAME        cpu, cuda or auto (cpu)\n"
	    "  --state FILE          checkpoint to resume from and write (none)\n"
	    "  --checkpoint-every K  steps between checkpoints (100)\n"
	    "  --log-every K         steps between metrics lines (10)\n"
	    "  --validate DIR        held-out shard directory\n"
	    "  --validate-every K    steps between evaluations (--log-every)\n"
	    "  --validate-rows R     held-out rows evaluated (4096)\n"
	    "  --max-bad-steps K     stop after K non-finite steps in a row (10)\n"
	    "  --progress            a line per metrics line on stderr\n");
}

static int valid_series(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= GT_MODEL_SERIES_MAX)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '.' || *s == '_'))
			return 0;
	return 1;
}

static void json_num(const char *key, double v)
{
	if (isfinite(v))
		printf(",\"%s\":%.6g", key, v);
	else
		printf(",\"%s\":null", key);
}

/* sums over the steps since the last metrics line */
typedef struct interval {
	long steps, good;
	gt_nn_loss loss;
	double gnorm, sample_s, step_s;
} interval;

static void metrics_line(const gt_trainer *t, interval *iv, float lr, int batch,
                         const gt_train_eval_info *val, int progress)
{
	const gt_train_counts *k = gt_train_get_counts(t);
	double g = iv->good ? (double)iv->good : NAN;
	double busy = iv->sample_s + iv->step_s;
	printf("{\"step\":%lld,\"samples\":%lld", (long long)k->step, (long long)k->samples);
	json_num("policy", iv->loss.policy / g);
	json_num("value", iv->loss.value / g);
	json_num("score", iv->loss.score / g);
	json_num("ownership", iv->loss.own / g);
	json_num("total", iv->loss.total / g);
	json_num("lr", lr);
	json_num("grad_norm", iv->gnorm / g);
	json_num("samples_per_s", busy > 0 ? iv->steps * (double)batch / busy : NAN);
	json_num("data_share", busy > 0 ? iv->sample_s / busy : NAN);
	printf(",\"bad_steps\":%lld", (long long)k->bad);
	if (val) {
		printf(",\"val_rows\":%ld", val->rows);
		json_num("val_policy", val->loss.policy);
		json_num("val_value", val->loss.value);
		json_num("val_score", val->loss.score);
		json_num("val_ownership", val->loss.own);
		json_num("val_total", val->loss.total);
		json_num("val_top1", val->top1);
	}
	printf("}\n");
	fflush(stdout);
	if (progress) {
		fprintf(stderr, "%s: step %lld loss %.4f (policy %.4f)", prog, (long long)k->step,
		        iv->loss.total / g, iv->loss.policy / g);
		if (val)
			fprintf(stderr, " held-out policy %.4f top-1 %.3f", val->loss.policy, val->top1);
		fprintf(stderr, ", %.0f samples/s, %lld bad\n",
		        busy > 0 ? iv->steps * (double)batch / busy : 0.0, (long long)k->bad);
	}
	memset(iv, 0, sizeof *iv);
}

/* the new model to out (or its default name); prints the final line;
 * returns 0 or 1 */
static int write_model(gt_trainer *t, const gt_model *parent, const uint8_t *parent_sha,
                       const char *series, const char *out)
{
	gt_model *m = gt_train_model(t, parent, parent_sha);
	gt_error e;
	char name[160], path[200], hex[65];
	uint8_t dg[32];
	if (series)
		snprintf(m->meta.series, sizeof m->meta.series, "%s", series);
	gt_model_name(m, name, sizeof name);
	if (!out) {
		snprintf(path, sizeof path, "%s.bin.gz", name);
		out = path;
	}
	if (gt_model_write(out, m, &e) != 0 || gt_model_sha256_file(out, dg, &e) != 0) {
		cli_warn("%s", e.text);
		gt_model_free(m);
		return 1;
	}
	json_t *j = json_pack("{s:s, s:s, s:s, s:I, s:I}", "model", out, "name", name, "sha256",
	                      gt_sha256_hex(dg, hex), "steps", (json_int_t)m->meta.steps, "rows",
	                      (json_int_t)m->meta.rows);
	char *s = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	if (s)
		printf("%s\n", s);
	free(s);
	json_decref(j);
	cli_warn("wrote %s", out);
	gt_model_free(m);
	return 0;
}

int main(int argc, char **argv)
{
	enum { O_MODEL = 256, O_INIT, O_DATA, O_WINDOW, O_STEPS, O_BATCH, O_LR, O_OPT, O_MOM,
	       O_WD, O_WP, O_WV, O_WS, O_WO, O_THREADS, O_SEED, O_BOARD, O_SERIES, O_STATE,
	       O_CKPT, O_LOG, O_VAL, O_VALEVERY, O_VALROWS, O_MAXBAD, O_PROGRESS, O_VERSION,
	       O_BACKEND };
	static const struct option opts[] = {
		{"model", required_argument, NULL, O_MODEL},
		{"init", required_argument, NULL, O_INIT},
		{"data", required_argument, NULL, O_DATA},
		{"window", required_argument, NULL, O_WINDOW},
		{"steps", required_argument, NULL, O_STEPS},
		{"batch", required_argument, NULL, O_BATCH},
		{"lr", required_argument, NULL, O_LR},
		{"optimizer", required_argument, NULL, O_OPT},
		{"momentum", required_argument, NULL, O_MOM},
		{"weight-decay", required_argument, NULL, O_WD},
		{"policy-weight", required_argument, NULL, O_WP},
		{"value-weight", required_argument, NULL, O_WV},
		{"score-weight", required_argument, NULL, O_WS},
		{"ownership-weight", required_argument, NULL, O_WO},
		{"threads", required_argument, NULL, O_THREADS},
		{"seed", required_argument, NULL, O_SEED},
		{"board-size", required_argument, NULL, O_BOARD},
		{"series", required_argument, NULL, O_SERIES},
		{"output", required_argument, NULL, 'o'},
		{"state", required_argument, NULL, O_STATE},
		{"checkpoint-every", required_argument, NULL, O_CKPT},
		{"log-every", required_argument, NULL, O_LOG},
		{"validate", required_argument, NULL, O_VAL},
		{"validate-every", required_argument, NULL, O_VALEVERY},
		{"validate-rows", required_argument, NULL, O_VALROWS},
		{"max-bad-steps", required_argument, NULL, O_MAXBAD},
		{"backend", required_argument, NULL, O_BACKEND},
		{"progress", no_argument, NULL, O_PROGRESS},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, O_VERSION},
		{NULL, 0, NULL, 0},
	};
	const char *model_path = NULL, *init = NULL, *data = NULL, *out = NULL, *series = NULL;
	const char *state = NULL, *valdir = NULL, *optname = "adamw", *backend = "cpu";
	long window = 250000, steps = 1000, ckpt = 100, log_every = 10, val_every = 0;
	long val_rows = 4096, max_bad = 10;
	int batch = 256, threads = 1, board = 0, progress = isatty(2), c;
	double lr = -1, mom = -1, wd = -1;
	gt_nn_lossw lw = GT_NN_LOSSW_DEFAULT;
	uint64_t seed = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case O_MODEL: model_path = optarg; break;
		case O_INIT: init = optarg; break;
		case O_DATA: data = optarg; break;
		case 'o': out = optarg; break;
		case O_WINDOW: window = cli_int("--window", optarg, 1, 1000000000L); break;
		case O_STEPS: steps = cli_int("--steps", optarg, 0, 1000000000L); break;
		case O_BATCH: batch = (int)cli_int("--batch", optarg, 1, 65536); break;
		case O_LR: lr = cli_double("--lr", optarg, 0, 1e30); break;
		case O_OPT: optname = optarg; break;
		case O_MOM: mom = cli_double("--momentum", optarg, 0, 1); break;
		case O_WD: wd = cli_double("--weight-decay", optarg, 0, 1); break;
		case O_WP: lw.policy = (float)cli_double("--policy-weight", optarg, 0, 1e6); break;
		case O_WV: lw.value = (float)cli_double("--value-weight", optarg, 0, 1e6); break;
		case O_WS: lw.score = (float)cli_double("--score-weight", optarg, 0, 1e6); break;
		case O_WO: lw.own = (float)cli_double("--ownership-weight", optarg, 0, 1e6); break;
		case O_THREADS: threads = (int)cli_int("--threads", optarg, 1, 256); break;
		case O_SEED:
			seed = (uint64_t)cli_int("--seed", optarg, 0, (1L << 53) - 1);
			break;
		case O_BOARD: board = (int)cli_int("--board-size", optarg, 2, 19); break;
		case O_SERIES:
			if (!valid_series(optarg))
				cli_bad_value("--series", "1..63 of [A-Za-z0-9._]", optarg);
			series = optarg;
			break;
		case O_STATE: state = optarg; break;
		case O_CKPT: ckpt = cli_int("--checkpoint-every", optarg, 1, 1000000000L); break;
		case O_LOG: log_every = cli_int("--log-every", optarg, 1, 1000000000L); break;
		case O_VAL: valdir = optarg; break;
		case O_VALEVERY:
			val_every = cli_int("--validate-every", optarg, 1, 1000000000L);
			break;
		case O_VALROWS: val_rows = cli_int("--validate-rows", optarg, 1, 100000000L); break;
		case O_MAXBAD: max_bad = cli_int("--max-bad-steps", optarg, 1, 1000000000L); break;
		case O_BACKEND: backend = optarg; break;
		case O_PROGRESS: progress = 1; break;
		case 'h': help(); return 0;
		case O_VERSION: printf("gt-train %s\n", GT_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		cli_usage_die("unexpected argument '%s'", argv[optind]);
	if (!model_path == !init) {
		cli_warn("give one of --model FILE and --init ARCH");
		usage(stderr);
		return 2;
	}
	if (!data) {
		cli_warn("no training data (--data DIR)");
		usage(stderr);
		return 2;
	}
	if (out) { /* before the training, not after it */
		gt_error pe = {0};
		if (gt_model_check_path(out, &pe) != 0)
			cli_die("%s", pe.text);
	}
	gt_train_conf tc;
	gt_train_conf_init(&tc);
	int kind = !strcmp(optname, "adam") ? GT_OPTIM_ADAM : !strcmp(optname, "adamw") ?
	           GT_OPTIM_ADAMW : !strcmp(optname, "sgd") ? GT_OPTIM_SGD : -1;
	if (kind < 0)
		cli_bad_value("--optimizer", "adam, adamw or sgd", optname);
	tc.optim = gt_optim_defaults(kind);
	if (lr >= 0)
		tc.optim.lr = (float)lr;
	if (mom >= 0)
		tc.optim.momentum = (float)mom;
	if (wd >= 0)
		tc.optim.weight_decay = (float)wd;
	tc.batch = batch;
	tc.lossw = lw;
	tc.seed = seed;
	tc.backend = backend;
	if (!val_every)
		val_every = log_every;
	gt_nn_set_threads(threads);

	/* the starting network */
	gt_error e = {0};
	gt_model *parent = NULL;
	uint8_t parent_sha[32];
	if (model_path) {
		if (gt_model_read(model_path, &parent, &e) != 0 ||
		    gt_model_sha256_file(model_path, parent_sha, &e) != 0) {
			cli_warn("%s", e.text);
			gt_model_free(parent);
			return 1;
		}
	} else {
		gt_arch a;
		if (gt_model_parse_arch(init, &a, &e) != 0)
			cli_usage_die("--init: %s", e.text);
		parent = gt_model_new_random(&a, seed, &e);
		if (!parent)
			cli_usage_die("--init: %s", e.text);
	}
	int rc = 1;
	gt_trainer *t = NULL;
	gt_shard_window *w = NULL, *vw = NULL;
	t = gt_train_new(parent, &tc, &e);
	if (!t) {
		cli_warn("%s", e.text);
		goto done;
	}

	/* the data */
	gt_shard_window_info wi;
	w = gt_shard_window_open(data, window, board, seed, &e);
	if (!w) {
		cli_warn("%s", e.text);
		goto done;
	}
	gt_shard_window_get_info(w, &wi);
	if (gt_train_check_window(t, w, &e) != 0) {
		cli_warn("%s: %s", data, e.text);
		goto done;
	}
	if (progress || wi.skipped)
		cli_warn("%s: %ld rows of %dx%d from %d shards, %d shards skipped%s%s",
		         data, wi.rows, wi.n, wi.n, wi.shards, wi.skipped,
		         wi.skipped ? "; the last: " : "", wi.skipped ? wi.last_skip : "");
	if (valdir) {
		vw = gt_shard_window_open(valdir, val_rows, wi.n, seed, &e);
		if (!vw || gt_train_check_window(t, vw, &e) != 0) {
			cli_warn("--validate: %s", e.text);
			goto done;
		}
	}

	/* resume */
	if (state) {
		int r = gt_train_load(t, state, &e);
		if (r == 0) {
			cli_warn("%s: resuming at step %lld", state,
			         (long long)gt_train_get_counts(t)->step);
		} else if (r != GT_ENOTFOUND) {
			cli_warn("%s", e.text);
			goto done;
		}
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	const gt_train_counts *k = gt_train_get_counts(t);
	interval iv;
	memset(&iv, 0, sizeof iv);
	int failed = 0, bad_stop = 0;
	if (vw && k->step == 0 && steps > 0) {
		/* the starting network's held-out figures, as step 0 */
		gt_train_eval_info vi;
		if (gt_train_eval(t, vw, val_rows, batch, &vi, &e) != 0) {
			cli_warn("--validate: %s", e.text);
			goto done;
		}
		metrics_line(t, &iv, gt_optim_conf_get(gt_train_optim(t))->lr, batch, &vi, progress);
	}
	while (k->step < steps && !stop) {
		gt_train_step_info si;
		int r = gt_train_step(t, w, &si, &e);
		if (r < 0) {
			cli_warn("%s", e.text);
			failed = 1;
			break;
		}
		iv.steps++;
		iv.sample_s += si.sample_s;
		iv.step_s += si.step_s;
		if (r == 0) {
			iv.good++;
			iv.loss.policy += si.loss.policy;
			iv.loss.value += si.loss.value;
			iv.loss.score += si.loss.score;
			iv.loss.own += si.loss.own;
			iv.loss.total += si.loss.total;
			iv.gnorm += si.grad_norm;
		} else {
			cli_warn("step %lld: non-finite loss or gradient, skipped (%lld in a row)",
			         (long long)k->step, (long long)k->bad_run);
		}
		int last = k->step == steps || stop || k->bad_run >= max_bad;
		int do_val = vw && (k->step % val_every == 0 || last);
		if (k->step % log_every == 0 || do_val || last) {
			gt_train_eval_info vi;
			if (do_val && gt_train_eval(t, vw, val_rows, batch, &vi, &e) != 0) {
				cli_warn("--validate: %s", e.text);
				failed = 1;
				break;
			}
			metrics_line(t, &iv, gt_optim_conf_get(gt_train_optim(t))->lr, batch,
			             do_val ? &vi : NULL, progress);
		}
		if (k->bad_run >= max_bad) {
			cli_warn("%lld non-finite steps in a row (--max-bad-steps %ld): stopping "
			         "with the last good parameters (step %lld)", (long long)k->bad_run,
			         max_bad, (long long)k->step - k->bad_run);
			bad_stop = 1;
			break;
		}
		if (state && k->step % ckpt == 0 && k->step < steps && gt_train_save(t, state, &e)) {
			cli_warn("%s", e.text);
			failed = 1;
			break;
		}
	}
	if (stop)
		cli_warn("stopped by a signal at step %lld", (long long)k->step);
	if (state && !failed && gt_train_save(t, state, &e) != 0) {
		cli_warn("%s", e.text);
		failed = 1;
	}
	if (!failed)
		failed = write_model(t, parent, model_path ? parent_sha : NULL, series, out);
	rc = cli_fshut(stdout, "stdout") || failed || bad_stop;
done:
	gt_shard_window_free(vw);
	gt_shard_window_free(w);
	gt_train_free(t);
	gt_model_free(parent);
	return rc;
}
