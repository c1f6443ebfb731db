/*
 * train: the cost of gt-train's data pipeline. lib/train's step (draw a
 * batch from a shard window: unpack the bit-planes, apply a random
 * symmetry per row; then forward, backward, AdamW) against the bare
 * training step of the network on a fixed batch already in memory (the
 * figure bench/nn reports), measured alternately in the same run, best of
 * 3 windows each (the CPU is shared). The pipeline's share is also timed
 * directly inside the step. Shards are generated (tests/unit/record_gen.h).
 * Usage: train [seconds-per-window]
 */
#include "bench.h"
#include "model.h"
#include "util.h"
#include "nn.h"
#include "optim.h"
#include "record.h"
#include "shard.h"
#include "train.h"
#include "../tests/unit/record_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double min_s = 1.0;

static void make_shards(const char *out, int n, int games)
{
	gt_error e = {0};
	if (gen_shards(out, n, 5, games, 100000, 0, 0, &e) != 0)
		fprintf(stderr, "train: %s: %s\n", out, e.text);
}

/* samples per second of bare steps on one fixed batch (drawn once) */
static double bare_rate(gt_nn *nn, gt_optim *opt, gt_shard_window *w, int B)
{
	gt_shard_window_info wi;
	gt_shard_window_get_info(w, &wi);
	int n = wi.n, N = n * n;
	float *pl = malloc(sizeof(float) * B * wi.nplanes * N);
	float *gl = malloc(sizeof(float) * B * wi.nglobals);
	float *pol = malloc(sizeof(float) * B * (N + 1)), *val = malloc(sizeof(float) * B);
	float *sc = malloc(sizeof(float) * B), *own = malloc(sizeof(float) * B * N);
	float *wt = malloc(sizeof(float) * B);
	gt_shard_batch b = {pl, gl, pol, val, sc, own, NULL, wt, NULL, NULL, NULL, NULL};
	gt_shard_window_sample(w, B, &b);
	gt_nn_target t = {pol, val, sc, own, wt, NULL, NULL};
	gt_nn_lossw lw = GT_NN_LOSSW_DEFAULT;
	int k = 0;
	double t0 = gt_now(), dt;
	do {
		gt_nn_zero_grad(nn);
		gt_nn_forward(nn, B, n, pl, gl, 1, NULL);
		gt_nn_backward(nn, &t, &lw, NULL);
		gt_grad_norm(gt_nn_grads(nn), gt_nn_nparams(nn));
		gt_optim_step(opt, gt_nn_params(nn), gt_nn_grads(nn));
		k++;
	} while ((dt = gt_now() - t0) < min_s || k < 2);
	free(pl); free(gl); free(pol); free(val); free(sc); free(own); free(wt);
	return (double)k * B / dt;
}

/* samples per second of gt_train_step; *share: time drawing batches */
static double step_rate(gt_trainer *t, gt_shard_window *w, int B, double *share)
{
	int k = 0;
	double t0 = gt_now(), dt, ss = 0, st = 0;
	gt_error e;
	gt_train_step_info si;
	do {
		gt_train_step(t, w, &si, &e);
		ss += si.sample_s;
		st += si.step_s;
		k++;
	} while ((dt = gt_now() - t0) < min_s || k < 2);
	*share = ss / (ss + st);
	return (double)k * B / dt;
}

static void bench(const char *dir, const char *arch, int n, int B)
{
	gt_error e = {0};
	gt_shard_window *w = gt_shard_window_open(dir, 100000, n, 1, &e);
	gt_arch a;
	gt_model_parse_arch(arch, &a, &e);
	gt_model *m = gt_model_new_random(&a, 1, &e);
	gt_train_conf c;
	gt_train_conf_init(&c);
	c.batch = B;
	c.optim.lr = 1e-4f;
	gt_trainer *t = gt_train_new(m, &c, &e);
	gt_nn *nn = gt_model_nn(m, NULL, &e);
	gt_optim *opt = gt_optim_new(&c.optim, gt_nn_nparams(nn));
	if (!w || !t || !nn) {
		printf("train: %s\n", e.text);
		exit(1);
	}
	gt_train_step(t, w, NULL, &e); /* allocate */
	double bare = 0, full = 0, share = 1;
	for (int round = 0; round < 3; round++) {
		double s, x = bare_rate(nn, opt, w, B), y = step_rate(t, w, B, &s);
		bare = x > bare ? x : bare;
		if (y > full) {
			full = y;
			share = s;
		}
	}
	printf("gt_train_step %s %dx%d batch %d: %.0f samples/s vs bare step %.0f samples/s (%.3fx); "
	       "drawing batches %.2f%% of the step\n", arch, n, n, B, full, bare, full / bare,
	       100 * share);
	fflush(stdout);
	gt_optim_free(opt);
	gt_nn_free(nn);
	gt_train_free(t);
	gt_model_free(m);
	gt_shard_window_free(w);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		min_s = atof(argv[1]) > 0 ? atof(argv[1]) : min_s;
	char dir[512], d9[600], d19[600];
	if (bench_tmpdir(dir, sizeof dir, "train") != 0)
		return 1;
	snprintf(d9, sizeof d9, "%s/9", dir);
	snprintf(d19, sizeof d19, "%s/19", dir);
	make_shards(d9, 9, 60);
	make_shards(d19, 19, 12);
	gt_nn_set_threads(1);
	bench(d9, "b6c64", 9, 256);
	bench(d9, "b2c16", 9, 256);
	bench(d19, "b2c16", 19, 64);
	return bench_rmdir(dir);
}
