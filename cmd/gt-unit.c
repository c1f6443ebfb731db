/* gt-unit: a Decoupled DiLoCo learning unit (gt-unit(1)): rounds of H inner
 * steps from the newest global version, each sent as a compressed delta;
 * the pieces are lib/train, lib/delta and lib/diloco. */
#include "delta.h"
#include "diloco.h"
#include "fs.h"
#include "gt.h"
#include "model.h"
#include "nn.h"
#include "optim.h"
#include "shard.h"
#include "store.h"
#include "train.h"
#include "util.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

const char *prog = "gt-unit";
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: gt-unit --store URL --data DIR [--unit ID] [--units U] [--slice K]\n"
	    "               [--state FILE] [--cache DIR] [--inner-steps H] [--batch B]\n"
	    "               [--window ROWS] [--board-size N] [--optimizer adam|adamw|sgd]\n"
	    "               [--lr LR] [--weight-decay W] [--codec fp32|bf16|int8|int4]\n"
	    "               [--rounds N] [--step-sleep S] [--poll S] [--wait-version S]\n"
	    "               [--seed S] [--threads T] [--backend NAME] [--progress]\n");
}

static void help(void)
{
	usage(stdout);
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
	    "  --progress            a line per round on stderr\n");
}

static void sleep_s(double s)
{
	if (s <= 0)
		return;
	struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
	while (nanosleep(&ts, &ts) && errno == EINTR && !stop)
		;
}

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	cli_warn("%s", msg);
}

/* everything one unit process holds */
typedef struct unit {
	const char *store, *data, *id, *cache, *state_path;
	int units, slice, board, codec, progress;
	long window, inner;
	double step_sleep, poll, wait_version;	/* wait_version < 0: the default */
	double last_train_s;	/* the last round's inner steps, seconds */
	gt_store_opts so;
	gt_train_conf tc;
	uint64_t generation, seq;
	gt_trainer *t;
	gt_model *model;          /* the current global version */
	uint64_t version;         /* its number; UINT64_MAX: none yet */
	uint8_t base_sha[32];
	float *delta;
	gt_diloco_ustate st;
	double bytes_sent, bytes_received;
} unit;

/* fetch version p into the cache and make it u->model; 0 or 1 */
static int fetch_version(unit *u, const gt_diloco_ptr *p)
{
	gt_error e = {0};
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", u->cache, p->model);
	uint8_t dg[32];
	char hex[GT_SHA256_HEX];
	struct stat sb;
	if (stat(path, &sb) != 0 || gt_model_sha256_file(path, dg, &e) != 0 ||
	    strcmp(gt_sha256_hex(dg, hex), p->sha256)) {
		char *url = gt_diloco_url(u->store, "versions/%s", p->model);
		int rc = gt_store_get(&u->so, url, path, p->sha256, p->bytes, NULL, &e);
		free(url);
		if (rc) {
			cli_warn("version %" PRIu64 ": %s", p->version, e.text);
			return 1;
		}
		u->bytes_received += (double)p->bytes;
	}
	gt_model *m = NULL;
	if (gt_model_read(path, &m, &e) != 0) {
		cli_warn("%s", e.text);
		return 1;
	}
	uint8_t ps[32];
	if (gt_delta_params_sha256(m->params, m->nparams, ps) != 0 ||
	    strcmp(gt_sha256_hex(ps, hex), p->params_sha256)) {
		cli_warn("%s: parameters do not match the pointer's params_sha256", path);
		gt_model_free(m);
		return 1;
	}
	if (u->model && (u->model->nparams != m->nparams ||
	                 memcmp(&u->model->arch, &m->arch, sizeof m->arch))) {
		cli_warn("version %" PRIu64 " has another architecture", p->version);
		gt_model_free(m);
		return 1;
	}
	/* the previous version is no longer needed locally */
	if (u->model && u->version != UINT64_MAX) {
		char old[4096];
		snprintf(old, sizeof old, "%s/v%" PRIu64 ".bin.gz", u->cache, u->version);
		if (strcmp(old, path))
			unlink(old);
	}
	gt_model_free(u->model);
	u->model = m;
	u->version = p->version;
	memcpy(u->base_sha, ps, 32);
	return 0;
}

/* create the trainer on the first version and restore the saved state */
static int start_trainer(unit *u)
{
	gt_error e = {0};
	u->t = gt_train_new(u->model, &u->tc, &e);
	if (!u->t) {
		cli_warn("%s", e.text);
		return 1;
	}
	float *m, *v;
	int64_t *step;
	size_t n = gt_optim_state(gt_train_optim(u->t), &m, &v, &step);
	gt_diloco_ustate_init(&u->st, n, v != NULL);
	u->delta = gt_xmalloc(sizeof(float) * n);
	if (u->state_path) {
		int rc = gt_diloco_ustate_load(&u->st, u->state_path, &e);
		if (rc && rc != GT_ENOTFOUND) {
			cli_warn("%s", e.text);
			return 1;
		}
		memcpy(m, u->st.m, sizeof(float) * n);
		if (v)
			memcpy(v, u->st.v, sizeof(float) * n);
		*step = u->st.step;
	}
	u->st.starts++;
	return 0;
}

static int heartbeat(unit *u, const char *what, double loss)
{
	gt_error e = {0};
	char gen[17];
	snprintf(gen, sizeof gen, "%016" PRIx64, u->generation);
	json_t *j = json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:f,s:s}", "unit", u->id, "generation",
	                      gen, "seq", (json_int_t)u->seq, "version",
	                      (json_int_t)(u->version == UINT64_MAX ? -1 : (json_int_t)u->version),
	                      "deltas", (json_int_t)u->st.deltas, "samples",
	                      (json_int_t)u->st.samples, "time", gt_wall(), "state", what);
	if (isfinite(loss))
		json_object_set_new(j, "loss", json_real(loss));
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	char *url = gt_diloco_url(u->store, "heartbeats/%s.json", u->id);
	int rc = gt_diloco_put_mem(&u->so, s, strlen(s), url, 1, &e);
	if (rc)
		cli_warn("heartbeat: %s", e.text);
	u->bytes_sent += (double)strlen(s);
	free(url);
	free(s);
	return rc;
}

/* one round; 0 done, 1 failure, -1 stopped by a signal */
static int round1(unit *u, long r)
{
	gt_error e = {0};
	double t0 = gt_wall();
	gt_diloco_ptr p;
	int rc;
	while ((rc = gt_diloco_ptr_read(&u->so, u->store, &p, &e)) == GT_ENOTFOUND && !stop)
		sleep_s(u->poll);
	if (stop)
		return -1;
	if (rc) {
		cli_warn("pointer: %s", e.text);
		return 1;
	}
	u->bytes_received += 200;
	/* a bounded wait for the outer process (never for another unit): a
	 * round from the version just used repeats much of the last delta */
	double wait = u->wait_version >= 0 ? u->wait_version : fmax(1, u->last_train_s / 2);
	double until = gt_wall() + wait;
	while (p.version == u->version && gt_wall() < until && !stop) {
		sleep_s(fmin(0.05, wait));
		if (gt_diloco_ptr_read(&u->so, u->store, &p, &e) == 0)
			u->bytes_received += 200;
	}
	if (stop)
		return -1;
	if (p.version != u->version && fetch_version(u, &p) != 0)
		return 1;
	if (!u->t && start_trainer(u) != 0)
		return 1;

	gt_shard_window *w = gt_shard_window_open(u->data, u->window, u->board,
	                                          u->tc.seed + (uint64_t)r, &e);
	if (!w || gt_shard_window_slice(w, u->slice, u->units) != 0 ||
	    gt_train_check_window(u->t, w, &e) != 0) {
		if (w && !e.text[0])
			snprintf(e.text, sizeof e.text, "%s: fewer rows than --units", u->data);
		cli_warn("%s", e.text);
		gt_shard_window_free(w);
		return 1;
	}
	gt_nn *nn = gt_train_nn(u->t);
	size_t n = u->model->nparams;
	memcpy(gt_nn_params(nn), u->model->params, sizeof(float) * n);
	gt_nn_sync_params(nn);
	double t1 = gt_wall(), loss = 0;
	long good = 0;
	for (long i = 0; i < u->inner && !stop; i++) {
		gt_train_step_info info;
		rc = gt_train_step(u->t, w, &info, &e);
		if (rc < 0) {
			cli_warn("%s", e.text);
			gt_shard_window_free(w);
			return 1;
		}
		if (rc == 0) {
			good++;
			loss += info.loss.total;
		}
		sleep_s(u->step_sleep);
	}
	gt_shard_window_free(w);
	if (stop)
		return -1;
	double t2 = gt_wall();
	u->last_train_s = t2 - t1;
	if (!good) {
		cli_warn("round %ld: no good inner step", r);
		return 1;
	}

	/* delta + residual, compressed; residual = what compression lost */
	const float *loc = gt_nn_params(nn);
	for (size_t i = 0; i < n; i++)
		u->delta[i] = u->model->params[i] - loc[i] + u->st.r[i];
	float *dec = gt_xmalloc(sizeof(float) * n);
	size_t cap = gt_delta_payload_bytes(u->codec, n);
	uint8_t *buf = gt_xmalloc(cap);
	rc = gt_delta_encode(u->codec, u->delta, n, buf, cap, dec);
	free(buf);
	if (rc) {
		free(dec);
		cli_warn("round %ld: delta not encodable (non-finite)", r);
		return 1;
	}
	gt_delta_hdr h;
	memset(&h, 0, sizeof h);
	h.base_version = u->version;
	memcpy(h.base_sha256, u->base_sha, 32);
	snprintf(h.unit, sizeof h.unit, "%s", u->id);
	h.generation = u->generation;
	h.seq = u->seq;
	h.inner_steps = (uint64_t)good;
	h.samples = (uint64_t)good * (uint64_t)u->tc.batch;
	h.codec = u->codec;
	h.sum = GT_DELTA_SHA256;
	h.nparams = n;
	char name[96], path[4096];
	gt_diloco_delta_name(name, sizeof name, h.base_version, h.generation, h.seq);
	snprintf(path, sizeof path, "%s/%s", u->cache, name);
	if (gt_delta_save(path, &h, u->delta, NULL, &e) != 0) {
		free(dec);
		cli_warn("%s", e.text);
		return 1;
	}
	char *url = gt_diloco_url(u->store, "deltas/%s/%s", u->id, name);
	rc = gt_diloco_put_file(&u->so, path, url, 0, &e);
	free(url);
	unlink(path);
	if (rc) {
		free(dec);
		cli_warn("put %s: %s", name, e.text);
		return 1;
	}
	double sent = (double)gt_delta_packed_bytes(&h);
	u->bytes_sent += sent;
	for (size_t i = 0; i < n; i++)
		u->st.r[i] = u->delta[i] - dec[i];
	free(dec);
	u->seq++;
	u->st.deltas++;
	u->st.samples += h.samples;
	if (u->state_path) {
		float *m, *v;
		int64_t *step;
		gt_optim_state(gt_train_optim(u->t), &m, &v, &step);
		memcpy(u->st.m, m, sizeof(float) * n);
		if (v)
			memcpy(u->st.v, v, sizeof(float) * n);
		u->st.step = *step;
		if (gt_diloco_ustate_save(&u->st, u->state_path, &e) != 0) {
			cli_warn("%s", e.text);
			return 1;
		}
	}
	heartbeat(u, "training", loss / good);
	double t3 = gt_wall();
	printf("{\"unit\":\"%s\",\"generation\":\"%016" PRIx64 "\",\"seq\":%" PRIu64
	       ",\"base_version\":%" PRIu64 ",\"inner_steps\":%ld,\"samples\":%" PRIu64
	       ",\"loss\":%.6g,\"delta_bytes\":%.0f,\"bytes_sent\":%.0f,\"bytes_received\":%.0f"
	       ",\"train_s\":%.3f,\"round_s\":%.3f,\"start\":%.3f,\"end\":%.3f}\n",
	       u->id, u->generation, u->seq - 1, u->version, good, h.samples, loss / good, sent,
	       u->bytes_sent, u->bytes_received, t2 - t1, t3 - t0, t0, t3);
	fflush(stdout);
	if (u->progress)
		cli_warn("%s round %ld from v%" PRIu64 ": loss %.4f, %.0f bytes", u->id, r,
		         u->version, loss / good, sent);
	return 0;
}

int main(int argc, char **argv)
{
	enum { O_STORE = 256, O_DATA, O_UNIT, O_UNITS, O_SLICE, O_STATE, O_CACHE, O_INNER,
	       O_BATCH, O_WINDOW, O_BOARD, O_OPT, O_LR, O_WD, O_CODEC, O_ROUNDS, O_SLEEP,
	       O_POLL, O_WAITV, O_SEED, O_THREADS, O_BACKEND, O_PROGRESS, O_VERSION };
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
		{"progress", 0, 0, O_PROGRESS}, {"version", 0, 0, O_VERSION},
		{"help", 0, 0, 'h'}, {0, 0, 0, 0}};
	unit u;
	memset(&u, 0, sizeof u);
	u.units = 1;
	u.inner = 500;
	u.window = 250000;
	u.codec = GT_DELTA_INT8;
	u.poll = 1;
	u.wait_version = -1;
	u.version = UINT64_MAX;
	const char *optname = "adamw", *backend = NULL;
	double lr = -1, wd = -1;
	long batch = 256, rounds = 0, threads = 1;
	uint64_t seed = 1;
	char idbuf[32];
	int c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_STORE: u.store = optarg; break;
		case O_DATA: u.data = optarg; break;
		case O_UNIT: u.id = optarg; break;
		case O_UNITS: u.units = (int)cli_int("--units", optarg, 1, 4096); break;
		case O_SLICE: u.slice = (int)cli_int("--slice", optarg, 0, 4095); break;
		case O_STATE: u.state_path = optarg; break;
		case O_CACHE: u.cache = optarg; break;
		case O_INNER: u.inner = cli_int("--inner-steps", optarg, 1, 1000000000); break;
		case O_BATCH: batch = cli_int("--batch", optarg, 1, 65536); break;
		case O_WINDOW: u.window = cli_int("--window", optarg, 1, 1000000000); break;
		case O_BOARD: u.board = (int)cli_int("--board-size", optarg, 2, 19); break;
		case O_OPT: optname = optarg; break;
		case O_LR: lr = cli_double("--lr", optarg, 0, 10); break;
		case O_WD: wd = cli_double("--weight-decay", optarg, 0, 10); break;
		case O_CODEC:
			if ((u.codec = gt_delta_codec_parse(optarg)) < 0)
				cli_bad_value("--codec", "fp32, bf16, int8 or int4", optarg);
			break;
		case O_ROUNDS: rounds = cli_int("--rounds", optarg, 0, 1000000000); break;
		case O_SLEEP: u.step_sleep = cli_double("--step-sleep", optarg, 0, 3600); break;
		case O_WAITV: u.wait_version = cli_double("--wait-version", optarg, 0, 86400); break;
		case O_POLL: u.poll = cli_double("--poll", optarg, 0.001, 3600); break;
		case O_SEED: seed = (uint64_t)cli_int("--seed", optarg, 0, 2147483647); break;
		case O_THREADS: threads = cli_int("--threads", optarg, 1, 256); break;
		case O_BACKEND: backend = optarg; break;
		case O_PROGRESS: u.progress = 1; break;
		case O_VERSION: printf("%s %s\n", prog, GT_VERSION); return 0;
		case 'h': help(); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		cli_usage_die("unexpected argument '%s'", argv[optind]);
	if (!u.store || !u.data) {
		cli_warn("--store and --data are required");
		usage(stderr);
		return 2;
	}
	if (u.slice >= u.units)
		cli_bad_value("--slice", "a slice below --units", "too large");
	if (!u.id) {
		snprintf(idbuf, sizeof idbuf, "u%d", u.slice);
		u.id = idbuf;
	}
	if (!gt_diloco_unit_ok(u.id))
		cli_bad_value("--unit", "1..63 characters of [A-Za-z0-9._-]", u.id);
	char cachebuf[4096];
	if (!u.cache) {
		const char *sl = u.state_path ? strrchr(u.state_path, '/') : NULL;
		if (sl && sl > u.state_path) {
			snprintf(cachebuf, sizeof cachebuf, "%.*s", (int)(sl - u.state_path),
			         u.state_path);
			u.cache = cachebuf;
		} else {
			u.cache = ".";
		}
	}
	gt_error me;
	if (gt_fs_mkdir_p(u.cache, &me))
		cli_die("%s", me.text);
	gt_train_conf_init(&u.tc);
	int kind = !strcmp(optname, "adam") ? GT_OPTIM_ADAM : !strcmp(optname, "adamw") ?
	           GT_OPTIM_ADAMW : !strcmp(optname, "sgd") ? GT_OPTIM_SGD : -1;
	if (kind < 0)
		cli_bad_value("--optimizer", "adam, adamw or sgd", optname);
	u.tc.optim = gt_optim_defaults(kind);
	if (lr >= 0)
		u.tc.optim.lr = (float)lr;
	if (wd >= 0)
		u.tc.optim.weight_decay = (float)wd;
	u.tc.batch = (int)batch;
	u.tc.backend = backend;
	gt_nn_set_threads((int)threads);
	gt_store_opts_init(&u.so);
	u.so.warn = warn_cb;
	if (gt_delta_new_generation(&u.generation) != 0)
		cli_die("no random generation id");
	/* a restarted unit draws other batches than the run before it: the
	 * seed moves with the number of starts in its state file */
	u.tc.seed = seed;
	if (u.state_path) {
		FILE *f = fopen(u.state_path, "rb");
		if (f) {
			unsigned char hdr[32];
			if (fread(hdr, 1, 32, f) == 32 && !memcmp(hdr, "GTDUNIT1", 8)) {
				uint64_t starts = gt_le_get64(hdr + 24);
				u.tc.seed = seed + starts * 0x9e3779b97f4a7c15ULL;
			}
			fclose(f);
		}
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	int rc = 0;
	for (long r = 0; (!rounds || r < rounds) && !stop; r++) {
		int x = round1(&u, r);
		if (x < 0)
			break;
		if (x > 0) {
			rc = 1;
			break;
		}
	}
	if (u.t)
		heartbeat(&u, "stopped", NAN);
	gt_train_free(u.t);
	gt_model_free(u.model);
	gt_diloco_ustate_release(&u.st);
	free(u.delta);
	return cli_fshut(stdout, "stdout") ? 1 : rc;
}
