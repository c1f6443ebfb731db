/* gt-train: train a network on the newest rows of a shard directory
 * (gt-train(1)); the run is lib/trainrun, its steps lib/train. */
#include "gt.h"
#include "model.h"
#include "nn.h"
#include "optim.h"
#include "trainrun.h"

#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *prog = "gt-train";

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: gt-train --model FILE | --init ARCH  --data DIR [-o FILE] [--window ROWS]\n"
	    "                [--steps S] [--batch B] [--optimizer adam|adamw|sgd] [--lr LR]\n"
	    "                [--momentum M] [--weight-decay W] [--lr-warmup ROWS]\n"
	    "                [--lr-decay ROWS:F,...] [--ema DECAY] [--export ema|last]\n"
	    "                [--policy-weight W]\n"
	    "                [--value-weight W] [--score-weight W] [--ownership-weight W]\n"
	    "                [--aux-policy-weight W]\n"
	    "                [--board-size N] [--series NAME] [--seed S] [--threads T]\n"
	    "                [--state FILE] [--checkpoint-every K] [--log-every K]\n"
	    "                [--validate DIR] [--validate-every K] [--validate-rows R]\n"
	    "                [--max-bad-steps K] [--backend NAME] [--precision fp32|bf16]\n"
	    "                [--progress] [-v]\n");
	if (f != stdout)
		return;
	printf(
	    "Train a network on the newest rows of a shard directory (gt-shard(5)); metrics\n"
	    "as NDJSON on stdout, the new network written to -o (atomically).\n"
	    "  --model FILE          start from this network\n"
	    "  --init ARCH           or from a random one, e.g. b6c64 (seed --seed); b6c64a\n"
	    "                        with the auxiliary policy head (the opponent's reply)\n"
	    "  --data DIR            shard directory (required)\n"
	    "  -o, --output FILE     output network (<series>-b<B>c<C>-s<steps>-d<rows>.bin.gz)\n"
	    "  --window ROWS         newest rows to sample from (250000)\n"
	    "  --steps S             total steps of the run, resumed ones included (1000)\n"
	    "  --batch B             rows per step (256)\n"
	    "  --optimizer NAME      adam, adamw or sgd (adamw)\n"
	    "  --lr LR               learning rate (0.001)\n"
	    "  --momentum M          sgd momentum (0.9)\n"
	    "  --weight-decay W      (adamw 0.0001, else 0)\n"
	    "  --lr-warmup ROWS      lr from 0 up over the network's first ROWS rows (0)\n"
	    "  --lr-decay ROWS:F,... lr x F from ROWS rows seen on (none)\n"
	    "  --ema DECAY           keep a moving average of the weights, DECAY a step (none)\n"
	    "  --export ema|last     the network written: the average or the last (last)\n"
	    "  --policy-weight W     loss weights (1, 1, 0.5, 0.5)\n"
	    "  --value-weight W\n"
	    "  --score-weight W\n"
	    "  --ownership-weight W\n"
	    "  --aux-policy-weight W of the auxiliary policy head, if any (0.15)\n"
	    "  --board-size N        train on this size's shards (the newest shard's)\n"
	    "  --series NAME         series of the output's name (the input's, or gt)\n"
	    "  --seed S              sampler and --init seed (1)\n"
	    "  --threads T           BLAS threads (1)\n"
	    "  --backend NAME        cpu, cuda or auto (cpu)\n"
	    "  --precision P         the steps' 3x3 convolutions in fp32 or bf16 (mixed\n"
	    "                        precision where the CPU has bfloat16; fp32)\n"
	    "  --state FILE          checkpoint to resume from and write (none)\n"
	    "  --checkpoint-every K  steps between checkpoints (100)\n"
	    "  --log-every K         steps between metrics lines (10)\n"
	    "  --validate DIR        held-out shard directory\n"
	    "  --validate-every K    steps between evaluations (--log-every)\n"
	    "  --validate-rows R     held-out rows evaluated (4096)\n"
	    "  --max-bad-steps K     stop after K non-finite steps in a row (10)\n"
	    "  --progress            a line per metrics line on stderr\n"
	    "  -v, --verbose         say the precision, its kernel and the window\n");
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

static int progress;

/* a metrics line to stdout, and in words to stderr with --progress */
static void on_line(void *ctx, const gt_trainrun_metrics *m)
{
	char buf[1024];
	printf("%s\n", gt_trainrun_metrics_json(m, buf, sizeof buf));
	fflush(stdout);
	if (progress)
		cli_warn("%s", gt_trainrun_metrics_text(m, buf, sizeof buf));
}

static void on_note(void *ctx, const char *text)
{
	cli_warn("%s", text);
}

/* the starting network: --model's file (its sha256 into sha) or --init's
 * random one */
static gt_model *start(const char *path, const char *init, uint64_t seed, uint8_t sha[32])
{
	gt_error e = {0};
	gt_model *m = NULL;
	if (path) {
		if (gt_model_read(path, &m, &e) == 0 && gt_model_sha256_file(path, sha, &e) == 0)
			return m;
		cli_warn("%s", e.text);
		gt_model_free(m);
		return NULL;
	}
	gt_arch a;
	if (gt_model_parse_arch(init, &a, &e) != 0 || !(m = gt_model_new_random(&a, seed, &e)))
		cli_usage_die("--init: %s", e.text);
	return m;
}

/* the run after its options; returns the exit status */
static int train(gt_trainrun_conf *c, const gt_model *parent, const uint8_t *sha,
                 const char *series, const char *out, int verbose)
{
	static const gt_trainrun_out to = { on_line, on_note, NULL };
	gt_error e = {0};
	gt_trainrun *r = gt_trainrun_open(parent, sha, c, &to, &e);
	if (!r) {
		cli_warn("%s", e.text);
		return 1;
	}
	const char *why;
	int prec = gt_trainrun_precision(r, &why);
	cli_precision_say("training", c->train.precision, prec, why, verbose);
	cli_catch_stop(0);
	const gt_train_counts *k = gt_trainrun_counts(r);
	int st = gt_trainrun_steps(r, &cli_stop, &e);
	if (st < 0)
		cli_warn("%s", e.text);
	if (st == 1)
		cli_warn("%lld non-finite steps in a row (--max-bad-steps %ld): stopping "
		         "with the last good parameters (step %lld)", (long long)k->bad_run,
		         c->max_bad, (long long)k->step - k->bad_run);
	if (cli_stop)
		cli_warn("stopped by a signal at step %lld", (long long)k->step);
	if (st >= 0 && gt_trainrun_save(r, &e) != 0) {
		cli_warn("%s", e.text);
		st = -1;
	}
	char buf[200], *line = NULL;
	const char *path = st >= 0 ? gt_trainrun_write(r, series, out, buf, sizeof buf, &line, &e)
	                           : NULL;
	if (path) {
		if (line)
			printf("%s\n", line);
		cli_warn("wrote %s", path);
	} else if (st >= 0) {
		cli_warn("%s", e.text);
	}
	free(line);
	gt_trainrun_free(r);
	return cli_fshut(stdout, "stdout") || !path || st == 1;
}

enum { O_MODEL = 256, O_INIT, O_DATA, O_WINDOW, O_STEPS, O_BATCH, O_LR, O_OPT, O_MOM,
       O_WD, O_WP, O_WV, O_WS, O_WO, O_THREADS, O_SEED, O_BOARD, O_SERIES, O_STATE,
       O_CKPT, O_LOG, O_VAL, O_VALEVERY, O_VALROWS, O_MAXBAD, O_PROGRESS, O_BACKEND,
       O_WARMUP, O_DECAY, O_EMA, O_EXPORT, O_WA, O_PREC };
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
	{"lr-warmup", required_argument, NULL, O_WARMUP},
	{"lr-decay", required_argument, NULL, O_DECAY},
	{"ema", required_argument, NULL, O_EMA},
	{"export", required_argument, NULL, O_EXPORT},
	{"policy-weight", required_argument, NULL, O_WP},
	{"value-weight", required_argument, NULL, O_WV},
	{"score-weight", required_argument, NULL, O_WS},
	{"ownership-weight", required_argument, NULL, O_WO},
	{"aux-policy-weight", required_argument, NULL, O_WA},
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
	{"precision", required_argument, NULL, O_PREC},
	{"progress", no_argument, NULL, O_PROGRESS},
	{"verbose", no_argument, NULL, 'v'},
	CLI_OPTS_END,
};

/* --optimizer and the values given (-1: the optimizer's default) */
static gt_optim_conf optimizer(const char *name, double lr, double mom, double wd)
{
	int kind = !strcmp(name, "adam") ? GT_OPTIM_ADAM : !strcmp(name, "adamw") ?
	           GT_OPTIM_ADAMW : !strcmp(name, "sgd") ? GT_OPTIM_SGD : -1;
	if (kind < 0)
		cli_bad_value("--optimizer", "adam, adamw or sgd", name);
	gt_optim_conf o = gt_optim_defaults(kind);
	if (lr >= 0)
		o.lr = (float)lr;
	if (mom >= 0)
		o.momentum = (float)mom;
	if (wd >= 0)
		o.weight_decay = (float)wd;
	return o;
}

int main(int argc, char **argv)
{
	gt_trainrun_conf rc;
	gt_trainrun_conf_init(&rc);
	gt_train_conf *tc = &rc.train;
	const char *model_path = NULL, *init = NULL, *out = NULL, *series = NULL;
	const char *optname = "adamw";
	int threads = 1, verbose = 0, c;
	double lr = -1, mom = -1, wd = -1;
	gt_error pe = {0};
	tc->seed = 1;
	tc->backend = "cpu";
	progress = isatty(2);
	while ((c = getopt_long(argc, argv, "o:hv", opts, NULL)) != -1) {
		switch (c) {
		case O_MODEL: model_path = optarg; break;
		case O_INIT: init = optarg; break;
		case O_DATA: rc.data = optarg; break;
		case 'o': out = optarg; break;
		case O_WINDOW: rc.window = cli_int("--window", optarg, 1, 1000000000L); break;
		case O_STEPS: rc.steps = cli_int("--steps", optarg, 0, 1000000000L); break;
		case O_BATCH: tc->batch = (int)cli_int("--batch", optarg, 1, 65536); break;
		case O_LR: lr = cli_double("--lr", optarg, 0, 1e30); break;
		case O_OPT: optname = optarg; break;
		case O_MOM: mom = cli_double("--momentum", optarg, 0, 1); break;
		case O_WD: wd = cli_double("--weight-decay", optarg, 0, 1); break;
		case O_WARMUP:
			tc->sched.warmup = cli_int("--lr-warmup", optarg, 0, 1000000000000000LL);
			break;
		case O_DECAY:
			if (gt_lr_parse_decay(optarg, &tc->sched, &pe) != 0)
				cli_usage_die("--lr-decay: %s", pe.text);
			break;
		case O_EMA: tc->ema = cli_double("--ema", optarg, 0, 0.999999999); break;
		case O_EXPORT:
			if (strcmp(optarg, "ema") && strcmp(optarg, "last"))
				cli_bad_value("--export", "ema or last", optarg);
			rc.export_avg = !strcmp(optarg, "ema");
			break;
		case O_WP: tc->lossw.policy = (float)cli_double("--policy-weight", optarg, 0, 1e6); break;
		case O_WV: tc->lossw.value = (float)cli_double("--value-weight", optarg, 0, 1e6); break;
		case O_WS: tc->lossw.score = (float)cli_double("--score-weight", optarg, 0, 1e6); break;
		case O_WO: tc->lossw.own = (float)cli_double("--ownership-weight", optarg, 0, 1e6); break;
		case O_WA:
			tc->lossw.aux_policy = (float)cli_double("--aux-policy-weight", optarg, 0, 1e6);
			break;
		case O_THREADS: threads = (int)cli_int("--threads", optarg, 1, 256); break;
		case O_SEED: tc->seed = (uint64_t)cli_int("--seed", optarg, 0, (1L << 53) - 1); break;
		case O_BOARD: rc.board_size = (int)cli_int("--board-size", optarg, 2, 19); break;
		case O_SERIES:
			if (!valid_series(optarg))
				cli_bad_value("--series", "1..63 of [A-Za-z0-9._]", optarg);
			series = optarg;
			break;
		case O_STATE: rc.state = optarg; break;
		case O_CKPT: rc.checkpoint_every = cli_int("--checkpoint-every", optarg, 1, 1000000000L); break;
		case O_LOG: rc.log_every = cli_int("--log-every", optarg, 1, 1000000000L); break;
		case O_VAL: rc.valdir = optarg; break;
		case O_VALEVERY: rc.val_every = cli_int("--validate-every", optarg, 1, 1000000000L); break;
		case O_VALROWS: rc.val_rows = cli_int("--validate-rows", optarg, 1, 100000000L); break;
		case O_MAXBAD: rc.max_bad = cli_int("--max-bad-steps", optarg, 1, 1000000000L); break;
		case O_BACKEND: tc->backend = optarg; break;
		case O_PREC:
			tc->precision = gt_nn_precision_find(optarg);
			if (tc->precision != GT_PREC_FP32 && tc->precision != GT_PREC_BF16)
				cli_bad_value("--precision", "fp32 or bf16", optarg);
			break;
		case O_PROGRESS: progress = 1; break;
		case 'v': verbose = 1; break;
		default: cli_opt_other(c, usage);
		}
	}
	if (optind < argc)
		cli_usage_die("unexpected argument '%s'", argv[optind]);
	if (!model_path == !init)
		cli_usage_fail(usage, "give one of --model FILE and --init ARCH");
	if (!rc.data)
		cli_usage_fail(usage, "no training data (--data DIR)");
	if (rc.export_avg && tc->ema == 0)
		cli_usage_die("--export ema needs --ema DECAY");
	if (out && gt_model_check_path(out, &pe) != 0) /* before the training, not after it */
		cli_die("%s", pe.text);
	tc->optim = optimizer(optname, lr, mom, wd);
	gt_nn_set_threads(threads);
	rc.verbose = progress || verbose;
	uint8_t sha[32];
	gt_model *parent = start(model_path, init, tc->seed, sha);
	int status = parent ? train(&rc, parent, model_path ? sha : NULL, series, out, verbose) : 1;
	gt_model_free(parent);
	return status;
}
