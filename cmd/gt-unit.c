/* gt-unit: a Decoupled DiLoCo learning unit (gt-unit(1)): options, then
 * lib/unit's rounds, one NDJSON line each. */
#include "delta.h"
#include "diloco.h"
#include "gt.h"
#include "nn.h"
#include "optim.h"
#include "unit.h"

#include "sign.h"
#include "cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *prog = "gt-unit";
static int progress;

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: gt-unit --store URL --data DIR [--unit ID] [--units U] [--slice K]\n"
	    "               [--state FILE] [--cache DIR] [--inner-steps H] [--batch B]\n"
	    "               [--window ROWS] [--board-size N] [--optimizer adam|adamw|sgd]\n"
	    "               [--lr LR] [--weight-decay W] [--codec fp32|bf16|int8|int4]\n"
	    "               [--rounds N] [--step-sleep S] [--poll S] [--wait-version S]\n"
	    "               [--seed S] [--threads T] [--backend NAME] [--sign-key FILE]\n"
	    "               [--progress]\n");
	if (f != stdout)
		return;
	printf(
	    "Run rounds of a Decoupled DiLoCo learning unit: fetch the newest global network\n"
	    "from STORE/diloco, train H inner steps on this unit's slice of the data window,\n"
	    "put the compressed difference to STORE/diloco/deltas/ID/; one NDJSON line a round.\n"
	    "  --store URL           the store (required)\n"
	    "  --data DIR            shard directory (required)\n"
	    "  --unit ID             unit id (u<slice>)\n"
	    "  --units U             number of data slices (1)\n"
	    "  --slice K             this unit's slice, 0..U-1 (0)\n"
	    "  --state FILE          inner optimizer and error-feedback state (none)\n"
	    "  --cache DIR           downloaded versions and outgoing deltas (the state's\n"
	    "                        directory, or .)\n"
	    "  --inner-steps H       inner steps per round (500)\n"
	    "  --batch B             rows per step (256)\n"
	    "  --window ROWS         newest rows of the window before slicing (250000)\n"
	    "  --board-size N        train on this size's shards (the newest shard's)\n"
	    "  --optimizer NAME      adam, adamw or sgd (adamw)\n"
	    "  --lr LR               inner learning rate (0.001)\n"
	    "  --weight-decay W      (adamw 0.0001, else 0)\n"
	    "  --codec NAME          delta codec: fp32, bf16, int8 or int4 (int8)\n"
	    "  --rounds N            stop after N rounds; 0 runs until a signal (0)\n"
	    "  --step-sleep S        sleep S seconds after each inner step (0)\n"
	    "  --poll S              wait between looks for the first version (1)\n"
	    "  --wait-version S      after a round, wait up to S seconds for a newer version\n"
	    "                        before starting again from the same one (the longer\n"
	    "                        of 1 and half the last round's inner steps)\n"
	    "  --seed S              sampler seed (1)\n"
	    "  --threads T           BLAS threads (1)\n"
	    "  --backend NAME        cpu, cuda or auto (cpu)\n"
	    "  --sign-key FILE       sign each delta with this Ed25519 private key (PEM)\n"
	    "  --progress            a line per round on stderr\n");
}

/* the options into c and *rounds; exits 2 on a usage error */
static void options(int argc, char **argv, gt_unit_conf *c, long *rounds)
{
	enum { O_STORE = 256, O_DATA, O_UNIT, O_UNITS, O_SLICE, O_STATE, O_CACHE, O_INNER,
	       O_BATCH, O_WINDOW, O_BOARD, O_OPT, O_LR, O_WD, O_CODEC, O_ROUNDS, O_SLEEP,
	       O_POLL, O_WAITV, O_SEED, O_THREADS, O_BACKEND, O_PROGRESS, O_SIGNKEY };
	static const struct option opts[] = {
		{"store", 1, 0, O_STORE}, {"data", 1, 0, O_DATA}, {"unit", 1, 0, O_UNIT},
		{"units", 1, 0, O_UNITS}, {"slice", 1, 0, O_SLICE}, {"state", 1, 0, O_STATE},
		{"cache", 1, 0, O_CACHE}, {"inner-steps", 1, 0, O_INNER}, {"batch", 1, 0, O_BATCH},
		{"window", 1, 0, O_WINDOW}, {"board-size", 1, 0, O_BOARD},
		{"optimizer", 1, 0, O_OPT}, {"lr", 1, 0, O_LR}, {"weight-decay", 1, 0, O_WD},
		{"codec", 1, 0, O_CODEC}, {"rounds", 1, 0, O_ROUNDS},
		{"step-sleep", 1, 0, O_SLEEP}, {"poll", 1, 0, O_POLL},
		{"wait-version", 1, 0, O_WAITV}, {"seed", 1, 0, O_SEED},
		{"threads", 1, 0, O_THREADS}, {"backend", 1, 0, O_BACKEND},
		{"progress", 0, 0, O_PROGRESS}, {"sign-key", 1, 0, O_SIGNKEY}, CLI_OPTS_END};
	const char *optname = "adamw";
	double lr = -1, wd = -1;
	int ch;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case O_STORE: c->store = optarg; break;
		case O_DATA: c->data = optarg; break;
		case O_UNIT: c->id = optarg; break;
		case O_UNITS: c->units = (int)cli_int("--units", optarg, 1, 4096); break;
		case O_SLICE: c->slice = (int)cli_int("--slice", optarg, 0, 4095); break;
		case O_STATE: c->state = optarg; break;
		case O_CACHE: c->cache = optarg; break;
		case O_INNER: c->inner = cli_int("--inner-steps", optarg, 1, 1000000000); break;
		case O_BATCH: c->train.batch = (int)cli_int("--batch", optarg, 1, 65536); break;
		case O_WINDOW: c->window = cli_int("--window", optarg, 1, 1000000000); break;
		case O_BOARD: c->board = (int)cli_int("--board-size", optarg, 2, 19); break;
		case O_OPT: optname = optarg; break;
		case O_LR: lr = cli_double("--lr", optarg, 0, 10); break;
		case O_WD: wd = cli_double("--weight-decay", optarg, 0, 10); break;
		case O_CODEC:
			if ((c->codec = gt_delta_codec_parse(optarg)) < 0)
				cli_bad_value("--codec", "fp32, bf16, int8 or int4", optarg);
			break;
		case O_ROUNDS: *rounds = cli_int("--rounds", optarg, 0, 1000000000); break;
		case O_SLEEP: c->step_sleep = cli_double("--step-sleep", optarg, 0, 3600); break;
		case O_WAITV: c->wait_version = cli_double("--wait-version", optarg, 0, 86400); break;
		case O_POLL: c->poll = cli_double("--poll", optarg, 0.001, 3600); break;
		case O_SEED: c->train.seed = (uint64_t)cli_int("--seed", optarg, 0, 2147483647); break;
		case O_THREADS: gt_nn_set_threads((int)cli_int("--threads", optarg, 1, 256)); break;
		case O_BACKEND: c->train.backend = optarg; break;
		case O_PROGRESS: progress = 1; break;
		case O_SIGNKEY: c->sign_key = optarg; break;
		default: cli_opt_other(ch, usage);
		}
	}
	if (optind < argc)
		cli_usage_die("unexpected argument '%s'", argv[optind]);
	if (!c->store || !c->data)
		cli_usage_fail(usage, "--store and --data are required");
	if (c->slice >= c->units)
		cli_bad_value("--slice", "a slice below --units", "too large");
	if (c->id && !gt_diloco_unit_ok(c->id))
		cli_bad_value("--unit", "1..63 characters of [A-Za-z0-9._-]", c->id);
	int kind = !strcmp(optname, "adam") ? GT_OPTIM_ADAM : !strcmp(optname, "adamw") ?
	           GT_OPTIM_ADAMW : !strcmp(optname, "sgd") ? GT_OPTIM_SGD : -1;
	if (kind < 0)
		cli_bad_value("--optimizer", "adam, adamw or sgd", optname);
	c->train.optim = gt_optim_defaults(kind);
	if (lr >= 0)
		c->train.optim.lr = (float)lr;
	if (wd >= 0)
		c->train.optim.weight_decay = (float)wd;
	char sig[GT_SIGN_HEX];
	gt_error e;
	if (c->sign_key && gt_sign(c->sign_key, "gt", 2, sig, &e))
		cli_usage_die("--sign-key %s: %s", c->sign_key, e.text);
}

/* a round's line on stdout (and on stderr with --progress) */
static void print_round(const gt_unit_round_info *r, long n)
{
	printf("{\"unit\":\"%s\",\"generation\":\"%016" PRIx64 "\",\"seq\":%" PRIu64
	       ",\"base_version\":%" PRIu64 ",\"inner_steps\":%ld,\"samples\":%" PRIu64
	       ",\"loss\":%.6g,\"delta_bytes\":%.0f,\"bytes_sent\":%.0f,\"bytes_received\":%.0f"
	       ",\"train_s\":%.3f,\"round_s\":%.3f,\"start\":%.3f,\"end\":%.3f}\n",
	       r->unit, r->generation, r->seq, r->base_version, r->inner_steps, r->samples,
	       r->loss, r->delta_bytes, r->bytes_sent, r->bytes_received, r->train_s, r->round_s,
	       r->start, r->end);
	fflush(stdout);
	if (progress)
		cli_warn("%s round %ld from v%" PRIu64 ": loss %.4f, %.0f bytes", r->unit, n,
		         r->base_version, r->loss, r->delta_bytes);
}

int main(int argc, char **argv)
{
	gt_unit_conf c;
	gt_unit_conf_init(&c);
	long rounds = 0;
	options(argc, argv, &c, &rounds);
	c.so.warn = cli_warn_cb;
	c.stop = &cli_stop;
	gt_error e = {0};
	gt_unit *u = NULL;
	if (gt_unit_new(&u, &c, &e))
		cli_die("%s", e.text);
	cli_catch_stop(0);
	int rc = 0;
	for (long r = 0; (!rounds || r < rounds) && !cli_stop; r++) {
		gt_unit_round_info info;
		int x = gt_unit_round(u, &info, &e);
		if (x == GT_UNIT_STOPPED)
			break;
		if (x) {
			cli_warn("%s", e.text);
			rc = 1;
			break;
		}
		print_round(&info, r);
	}
	if (gt_unit_finish(u, &e))
		cli_warn("heartbeat: %s", e.text);
	gt_unit_free(u);
	return cli_fshut(stdout, "stdout") ? 1 : rc;
}
