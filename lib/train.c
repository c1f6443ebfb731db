/* train.c: the training loop as a library (see train.h). */
#include "train.h"
#include "rng.h"
#include "sym.h"
#include "fs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "train.c writes state files in the host's byte order, which must be little-endian"
#endif

#define STATE_VERSION 2
#define STATE_HEADER 256    /* bytes before the float arrays */
#define STATE_HEADER_V1 192 /* version 1's (no rows base, no average) */

struct gt_trainer {
	gt_train_conf c;
	gt_arch arch;
	gt_nn *nn;
	gt_optim *opt;
	uint8_t start[32];    /* sha256 of the starting architecture and parameters */
	gt_rng rng;           /* the sampler */
	gt_train_counts k;
	int64_t base_rows;    /* the start's meta.rows */
	float *avg;           /* the parameters' moving average, or NULL */
	int64_t avg_n;        /* its updates */
	int prec;             /* the steps' GT_PREC_* in effect */
	const char *prec_why; /* why not c.precision, or NULL */
	/* batch buffers for (cap rows, board n, C planes, G globals) */
	int cap, n, C, G;
	float *planes, *glob, *pol, *val, *score, *own, *omask, *wt;
	float *pnext, *pnmask; /* the opponent's reply (the auxiliary policy head only) */
};

void gt_train_conf_init(gt_train_conf *c)
{
	*c = (gt_train_conf){ .batch = 256, .optim = gt_optim_defaults(GT_OPTIM_ADAMW),
	                      .lossw = GT_NN_LOSSW_DEFAULT, .seed = 0, .backend = NULL };
}

static void arch_ints(const gt_arch *a, int32_t v[9])
{
	v[0] = a->blocks;
	v[1] = a->channels;
	v[2] = a->in_planes;
	v[3] = a->globals;
	v[4] = a->feat_version;
	v[5] = a->head_policy;
	v[6] = a->head_value;
	v[7] = a->value_hidden;
	v[8] = a->max_n;
}

static void start_digest(const gt_arch *a, const float *p, size_t n, uint8_t out[32])
{
	int32_t v[9];
	arch_ints(a, v);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx)
		abort();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	EVP_DigestUpdate(ctx, "gt-train start 1", 16);
	EVP_DigestUpdate(ctx, v, sizeof v);
	EVP_DigestUpdate(ctx, p, n * sizeof(float));
	unsigned len = 32;
	EVP_DigestFinal_ex(ctx, out, &len);
	EVP_MD_CTX_free(ctx);
}

gt_trainer *gt_train_new(const gt_model *m, const gt_train_conf *c, gt_error *e)
{
	if (c->batch < 1 || c->batch > 65536) {
		gt_error_set(e, GT_EINVAL, -1, -1, "batch %d out of range 1..65536", c->batch);
		return NULL;
	}
	if (c->optim.kind < GT_OPTIM_SGD || c->optim.kind > GT_OPTIM_ADAMW) {
		gt_error_set(e, GT_EINVAL, -1, -1, "unknown optimizer kind %d", c->optim.kind);
		return NULL;
	}
	if (!(c->ema >= 0 && c->ema < 1)) {
		gt_error_set(e, GT_EINVAL, -1, -1, "average decay %g not in 0..1", c->ema);
		return NULL;
	}
	if (m->meta.rows > INT64_MAX / 2) {
		gt_error_set(e, GT_EINVAL, -1, -1, "the network's rows seen (%llu) out of range",
		             (unsigned long long)m->meta.rows);
		return NULL;
	}
	gt_nn *nn = gt_model_nn(m, c->backend, e);
	if (!nn)
		return NULL;
	gt_trainer *t = gt_xcalloc(1, sizeof *t);
	t->c = *c;
	t->arch = m->arch;
	t->nn = nn;
	t->prec = gt_nn_train_precision(nn, c->precision, &t->prec_why);
	t->opt = gt_optim_new(&c->optim, gt_nn_nparams(nn));
	start_digest(&m->arch, m->params, m->nparams, t->start);
	gt_rng_seed(&t->rng, c->seed);
	t->base_rows = (int64_t)m->meta.rows;
	if (c->ema > 0) {
		t->avg = gt_xmalloc((m->nparams ? m->nparams : 1) * sizeof(float));
		memcpy(t->avg, m->params, m->nparams * sizeof(float));
	}
	return t;
}

static void free_buffers(gt_trainer *t)
{
	free(t->planes); free(t->glob); free(t->pol); free(t->val);
	free(t->score); free(t->own); free(t->omask); free(t->wt);
	free(t->pnext); free(t->pnmask);
	t->planes = t->glob = t->pol = t->val = t->score = t->own = t->omask = t->wt = NULL;
	t->pnext = t->pnmask = NULL;
	t->cap = 0;
}

void gt_train_free(gt_trainer *t)
{
	if (!t)
		return;
	free_buffers(t);
	free(t->avg);
	gt_optim_free(t->opt);
	gt_nn_free(t->nn);
	free(t);
}

gt_nn *gt_train_nn(gt_trainer *t) { return t->nn; }
gt_optim *gt_train_optim(gt_trainer *t) { return t->opt; }
const gt_train_counts *gt_train_get_counts(const gt_trainer *t) { return &t->k; }

int gt_train_precision(const gt_trainer *t, const char **why)
{
	if (why)
		*why = t->prec_why;
	return t->prec;
}
int64_t gt_train_rows_seen(const gt_trainer *t) { return t->base_rows + t->k.samples; }
const float *gt_train_average(const gt_trainer *t) { return t->avg; }

int gt_train_check_window(const gt_trainer *t, const gt_shard_window *w, gt_error *e)
{
	gt_shard_window_info wi;
	gt_shard_window_get_info(w, &wi);
	const gt_arch *a = &t->arch;
	if (wi.feature_version != a->feat_version || wi.nplanes != a->in_planes ||
	    wi.nglobals != a->globals)
		return gt_error_set(e, GT_EUNSUPPORTED, -1, -1,
		                    "the data's features (version %d, %d planes, %d globals) are not "
		                    "the network's (version %d, %d planes, %d globals)",
		                    wi.feature_version, wi.nplanes, wi.nglobals, a->feat_version,
		                    a->in_planes, a->globals);
	if (wi.n < 2 || wi.n > a->max_n)
		return gt_error_set(e, GT_EUNSUPPORTED, -1, -1,
		                    "board size %d is beyond the network's largest (%d)", wi.n, a->max_n);
	return 0;
}

/* batch buffers for B rows of w's geometry; returns the board size */
static int buffers(gt_trainer *t, const gt_shard_window *w, int B)
{
	gt_shard_window_info wi;
	gt_shard_window_get_info(w, &wi);
	if (B > t->cap || wi.n != t->n || wi.nplanes != t->C || wi.nglobals != t->G) {
		free_buffers(t);
		size_t N = (size_t)wi.n * wi.n;
		t->planes = gt_xmalloc(sizeof(float) * B * wi.nplanes * N);
		t->glob = gt_xmalloc(sizeof(float) * B * (wi.nglobals ? wi.nglobals : 1));
		t->pol = gt_xmalloc(sizeof(float) * B * (N + 1));
		t->own = gt_xmalloc(sizeof(float) * B * N);
		t->val = gt_xmalloc(sizeof(float) * B);
		t->score = gt_xmalloc(sizeof(float) * B);
		t->omask = gt_xmalloc(sizeof(float) * B);
		t->wt = gt_xmalloc(sizeof(float) * B);
		if (t->arch.heads & GT_ARCH_AUX_POLICY) {
			t->pnext = gt_xmalloc(sizeof(float) * B * (N + 1));
			t->pnmask = gt_xmalloc(sizeof(float) * B);
		}
		t->cap = B;
		t->n = wi.n;
		t->C = wi.nplanes;
		t->G = wi.nglobals;
	}
	return wi.n;
}

static gt_shard_batch batch_views(gt_trainer *t)
{
	gt_shard_batch b = {t->planes, t->glob, t->pol, t->val, t->score, t->own, t->omask, t->wt,
	                    NULL, NULL, t->pnext, t->pnmask};
	return b;
}

int gt_train_window_flags(const gt_trainer *t)
{
	return t->arch.heads & GT_ARCH_AUX_POLICY ? GT_SHARD_WINDOW_REPLY : 0;
}

/* binary entropy of q = (1+o)/2 in nats */
static double own_entropy(float o)
{
	double q = (1.0 + o) / 2, h = 0;
	if (q > 0)
		h -= q * log(q);
	if (q < 1)
		h -= (1 - q) * log(1 - q);
	return h;
}

/* The ownership target for rows 0..B-1 after a forward: NULL when no row
 * has ownership; else t->own with the rows lacking it replaced by the
 * prediction. *ent: the sum over those rows of weight * mean entropy,
 * to take off the reported loss (divided by B by the caller). */
static const float *own_target(gt_trainer *t, int B, int n, const gt_nn_out *out, double *ent)
{
	int with = 0;
	*ent = 0;
	for (int b = 0; b < B; b++)
		with += t->omask[b] != 0;
	if (with == 0)
		return NULL;
	if (with == B)
		return t->own;
	size_t N = (size_t)n * n;
	for (int b = 0; b < B; b++) {
		if (t->omask[b] != 0)
			continue;
		double h = 0;
		memcpy(t->own + b * N, out->own + b * N, sizeof(float) * N);
		for (size_t i = 0; i < N; i++)
			h += own_entropy(out->own[b * N + i]);
		*ent += t->wt[b] * h / N;
	}
	return t->own;
}

/* score_target: rows whose score is unknown (NaN in the shard: a game won
 * by resignation) get the network's own prediction as their target, so
 * that they add neither loss nor gradient to the score term. */
static const float *score_target(gt_trainer *t, int B, const gt_nn_out *out)
{
	for (int b = 0; b < B; b++)
		if (isnan(t->score[b]))
			t->score[b] = out->score[b];
	return t->score;
}

/* the targets of rows 0..B-1 after a forward: the score's and
 * ownership's as above, and with the auxiliary policy head the opponent's
 * reply, each row weighing 1 when it has one (policy_next_mask 1 or 2)
 * and 0 when not; *ent as own_target's */
static gt_nn_target targets(gt_trainer *t, int B, int n, const gt_nn_out *out, double *ent)
{
	gt_nn_target tg = {t->pol, t->val, score_target(t, B, out), own_target(t, B, n, out, ent),
	                   t->wt, t->pnext, t->pnmask};
	for (int b = 0; t->pnmask && b < B; b++)
		t->pnmask[b] = t->pnmask[b] != 0;
	return tg;
}

static void loss_fix(gt_nn_loss *l, const gt_nn_lossw *w, double ent, int B)
{
	l->own -= ent / B;
	l->total -= w->own * ent / B;
}

int gt_train_step(gt_trainer *t, gt_shard_window *w, gt_train_step_info *info, gt_error *e)
{
	int rc = gt_train_check_window(t, w, e);
	if (rc)
		return rc;
	gt_train_step_info si;
	memset(&si, 0, sizeof si);
	double t0 = gt_now();
	int B = t->c.batch, n = buffers(t, w, B);
	gt_shard_window_info wi;
	gt_shard_window_get_info(w, &wi);
	gt_shard_batch b = batch_views(t);
	for (int i = 0; i < B; i++) {
		long row = (long)gt_rng_below(&t->rng, (uint64_t)wi.rows);
		int k = (int)gt_rng_below(&t->rng, GT_NSYM);
		gt_shard_window_get(w, row, k, &b, i);
	}
	double t1 = gt_now();
	gt_nn_out out;
	gt_nn_zero_grad(t->nn);
	rc = gt_nn_forward(t->nn, B, n, t->planes, t->glob, 1, &out);
	if (rc)
		return gt_error_set(e, rc, -1, -1, "forward: %s", gt_strerror(rc));
	double ent;
	gt_nn_target tg = targets(t, B, n, &out, &ent);
	rc = gt_nn_backward(t->nn, &tg, &t->c.lossw, &si.loss);
	if (rc)
		return gt_error_set(e, rc, -1, -1, "backward: %s", gt_strerror(rc));
	loss_fix(&si.loss, &t->c.lossw, ent, B);
	float *g = gt_nn_grads(t->nn);
	size_t np = gt_nn_nparams(t->nn);
	si.grad_norm = gt_grad_norm(g, np);
	t->k.step++;
	if (isfinite(si.loss.total) && isfinite(si.grad_norm)) {
		if (gt_lr_sched_on(&t->c.sched))
			gt_optim_conf_get(t->opt)->lr =
			    (float)gt_lr_at(&t->c.sched, t->c.optim.lr, gt_train_rows_seen(t) + B);
		gt_optim_step(t->opt, gt_nn_params(t->nn), g);
		gt_nn_sync_params(t->nn);
		if (t->avg)
			gt_ema_update(t->avg, gt_nn_params(t->nn), np, t->c.ema, ++t->avg_n);
		si.good = 1;
		t->k.good++;
		t->k.bad_run = 0;
		t->k.samples += B;
	} else {
		t->k.bad++;
		t->k.bad_run++;
	}
	double t2 = gt_now();
	si.sample_s = t1 - t0;
	si.step_s = t2 - t1;
	if (info)
		*info = si;
	return si.good ? 0 : 1;
}

static int argmax(const float *x, int n)
{
	int best = 0;
	for (int i = 1; i < n; i++)
		if (x[i] > x[best])
			best = i;
	return best;
}

int gt_train_eval(gt_trainer *t, const gt_shard_window *w, long rows, int batch,
                  gt_train_eval_info *info, gt_error *e)
{
	int rc = gt_train_check_window(t, w, e);
	if (rc)
		return rc;
	if (batch < 1)
		return gt_error_set(e, GT_EINVAL, -1, -1, "bad evaluation batch %d", batch);
	gt_shard_window_info wi;
	gt_shard_window_get_info(w, &wi);
	if (rows > wi.rows)
		rows = wi.rows;
	int n = buffers(t, w, batch), N = n * n;
	gt_shard_batch b = batch_views(t);
	gt_train_eval_info r;
	memset(&r, 0, sizeof r);
	long hits = 0;
	for (long r0 = 0; r0 < rows; r0 += batch) {
		int B = rows - r0 < batch ? (int)(rows - r0) : batch;
		for (int i = 0; i < B; i++)
			gt_shard_window_get(w, r0 + i, 0, &b, i);
		gt_nn_out out;
		rc = gt_nn_forward(t->nn, B, n, t->planes, t->glob, 0, &out);
		if (rc)
			return gt_error_set(e, rc, -1, -1, "forward: %s", gt_strerror(rc));
		double ent;
		gt_nn_target tg = targets(t, B, n, &out, &ent);
		gt_nn_loss l;
		rc = gt_nn_eval_loss(t->nn, &tg, &t->c.lossw, &l);
		if (rc)
			return gt_error_set(e, rc, -1, -1, "loss: %s", gt_strerror(rc));
		loss_fix(&l, &t->c.lossw, ent, B);
		r.loss.total += l.total * B;
		r.loss.policy += l.policy * B;
		r.loss.value += l.value * B;
		r.loss.score += l.score * B;
		r.loss.own += l.own * B;
		r.loss.aux_policy += l.aux_policy * B;
		for (int i = 0; i < B; i++)
			hits += argmax(out.policy + (size_t)i * (N + 1), N + 1) ==
			        argmax(t->pol + (size_t)i * (N + 1), N + 1);
	}
	r.rows = rows;
	if (rows > 0) {
		r.loss.total /= rows;
		r.loss.policy /= rows;
		r.loss.value /= rows;
		r.loss.score /= rows;
		r.loss.own /= rows;
		r.loss.aux_policy /= rows;
		r.top1 = (double)hits / rows;
	}
	if (info)
		*info = r;
	return 0;
}

int gt_train_eval_average(gt_trainer *t, const gt_shard_window *w, long rows, int batch,
                          gt_train_eval_info *info, gt_error *e)
{
	if (!t->avg)
		return gt_error_set(e, GT_EINVAL, -1, -1, "no moving average (--ema)");
	float *p = gt_nn_params(t->nn);
	size_t n = gt_nn_nparams(t->nn);
	float *keep = gt_xmalloc((n ? n : 1) * sizeof(float));
	memcpy(keep, p, n * sizeof(float));
	memcpy(p, t->avg, n * sizeof(float));
	gt_nn_sync_params(t->nn);
	int rc = gt_train_eval(t, w, rows, batch, info, e);
	memcpy(p, keep, n * sizeof(float));
	gt_nn_sync_params(t->nn);
	free(keep);
	return rc;
}

gt_model *gt_train_model(gt_trainer *t, const gt_model *parent, const uint8_t parent_sha[32],
                         int avg)
{
	gt_model *m = gt_model_new(&t->arch, NULL);
	if (!m)
		return NULL;
	gt_model_set_params(m, t->nn);
	if (avg && t->avg)
		memcpy(m->params, t->avg, m->nparams * sizeof(float));
	m->meta = parent->meta;
	m->meta.steps = parent->meta.steps + (uint64_t)t->k.good;
	m->meta.rows = parent->meta.rows + (uint64_t)t->k.samples;
	if (parent_sha)
		memcpy(m->meta.parent, parent_sha, 32);
	else
		memset(m->meta.parent, 0, 32);
	return m;
}

/* ---- the state file ---- */

/* The state file is in the host's byte order: header fields by memcpy, the
 * parameter and moment vectors as raw float32 (gt_train_save writes them
 * straight from memory). gt-train(1) calls it little-endian because every
 * host gt runs on is; a big-endian host would write, and read back, its own
 * order. Kept so, not switched to lib/util.h's gt_le_*: state files written
 * before must still load byte for byte. */
static void put32_host(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64_host(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t get32_host(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64_host(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* the fields of a state file's header */
typedef struct state_head {
	uint8_t start[32];
	int32_t arch[9];
	int32_t kind, batch;
	uint64_t seed;
	gt_train_counts k;
	gt_rng rng;
	int64_t ostep;
	uint64_t nparams;
	uint32_t nvec;
	/* version 2 */
	uint32_t version;
	int64_t base_rows;
	double ema;
	int64_t avg_n;
} state_head;

static void head_pack(const state_head *s, uint8_t h[STATE_HEADER])
{
	memset(h, 0, STATE_HEADER);
	memcpy(h, GT_TRAIN_STATE_MAGIC, 8);
	put32_host(h + 8, STATE_VERSION);
	put32_host(h + 12, STATE_HEADER);
	memcpy(h + 16, s->start, 32);
	for (int i = 0; i < 9; i++)
		put32_host(h + 48 + 4 * i, (uint32_t)s->arch[i]);
	put32_host(h + 84, (uint32_t)s->kind);
	put32_host(h + 88, (uint32_t)s->batch);
	put64_host(h + 92, s->seed);
	put64_host(h + 100, (uint64_t)s->k.step);
	put64_host(h + 108, (uint64_t)s->k.good);
	put64_host(h + 116, (uint64_t)s->k.bad);
	put64_host(h + 124, (uint64_t)s->k.bad_run);
	put64_host(h + 132, (uint64_t)s->k.samples);
	for (int i = 0; i < 4; i++)
		put64_host(h + 140 + 8 * i, s->rng.s[i]);
	put64_host(h + 172, (uint64_t)s->ostep);
	put64_host(h + 180, s->nparams);
	put32_host(h + 188, s->nvec);
	put64_host(h + 192, (uint64_t)s->base_rows);
	memcpy(h + 200, &s->ema, 8);
	put64_host(h + 208, (uint64_t)s->avg_n);
}

/* the size of a header that starts with h's 16 bytes (magic, version,
 * size), or 0 when it is not one of a state file */
static size_t head_size(const uint8_t h[16])
{
	uint32_t v = get32_host(h + 8), size = get32_host(h + 12);
	if (memcmp(h, GT_TRAIN_STATE_MAGIC, 8))
		return 0;
	return v == 1 && size == STATE_HEADER_V1 ? STATE_HEADER_V1 :
	       v == STATE_VERSION && size == STATE_HEADER ? STATE_HEADER : 0;
}

/* h: a header of head_size bytes */
static void head_unpack(const uint8_t *h, state_head *s)
{
	s->version = get32_host(h + 8);
	memcpy(s->start, h + 16, 32);
	for (int i = 0; i < 9; i++)
		s->arch[i] = (int32_t)get32_host(h + 48 + 4 * i);
	s->kind = (int32_t)get32_host(h + 84);
	s->batch = (int32_t)get32_host(h + 88);
	s->seed = get64_host(h + 92);
	s->k.step = (int64_t)get64_host(h + 100);
	s->k.good = (int64_t)get64_host(h + 108);
	s->k.bad = (int64_t)get64_host(h + 116);
	s->k.bad_run = (int64_t)get64_host(h + 124);
	s->k.samples = (int64_t)get64_host(h + 132);
	for (int i = 0; i < 4; i++)
		s->rng.s[i] = get64_host(h + 140 + 8 * i);
	s->ostep = (int64_t)get64_host(h + 172);
	s->nparams = get64_host(h + 180);
	s->nvec = get32_host(h + 188);
	s->base_rows = s->version >= 2 ? (int64_t)get64_host(h + 192) : -1;
	s->ema = 0;
	if (s->version >= 2)
		memcpy(&s->ema, h + 200, 8);
	s->avg_n = s->version >= 2 ? (int64_t)get64_host(h + 208) : 0;
}

static int write_crc(int fd, const void *p, size_t n, uLong *crc)
{
	const uint8_t *b = p;
	for (size_t off = 0; off < n; off += 1u << 30)
		*crc = crc32(*crc, b + off, (uInt)(n - off < (1u << 30) ? n - off : (1u << 30)));
	return gt_fs_write_all(fd, p, n);
}

int gt_train_save(const gt_trainer *t, const char *path, gt_error *e)
{
	float *m, *v;
	int64_t *ostep;
	size_t np = gt_optim_state(t->opt, &m, &v, &ostep);
	state_head s;
	memset(&s, 0, sizeof s);
	memcpy(s.start, t->start, 32);
	arch_ints(&t->arch, s.arch);
	s.kind = t->c.optim.kind;
	s.batch = t->c.batch;
	s.seed = t->c.seed;
	s.k = t->k;
	s.rng = t->rng;
	s.ostep = *ostep;
	s.nparams = np;
	s.nvec = (v ? 3 : 2) + (t->avg != NULL);
	s.base_rows = t->base_rows;
	s.ema = t->avg ? t->c.ema : 0;
	s.avg_n = t->avg_n;
	uint8_t h[STATE_HEADER];
	head_pack(&s, h);

	gt_fs_atomic a;
	int rc = gt_fs_atomic_begin(&a, path, e);
	if (rc)
		return rc;
	uLong crc = crc32(0, NULL, 0);
	const float *vec[4] = {gt_nn_params(t->nn), m, v ? v : t->avg, t->avg};
	int ok = write_crc(a.fd, h, sizeof h, &crc) == 0;
	for (uint32_t i = 0; ok && i < s.nvec; i++)
		ok = write_crc(a.fd, vec[i], np * sizeof(float), &crc) == 0;
	uint8_t tail[4];
	put32_host(tail, (uint32_t)crc);
	uLong dummy = 0;
	ok = ok && write_crc(a.fd, tail, 4, &dummy) == 0;
	if (!ok) {
		int saved = errno;
		gt_fs_atomic_abort(&a);
		return gt_error_set(e, GT_EIO, -1, -1, "%s: write failed: %s", path, strerror(saved));
	}
	return gt_fs_atomic_commit(&a, e);
}

static int read_all(FILE *f, void *p, size_t n, uLong *crc)
{
	if (fread(p, 1, n, f) != n)
		return -1;
	if (crc)
		*crc = crc32(*crc, p, (uInt)n);
	return 0;
}

static int other_run(gt_error *e, const char *path, const char *what)
{
	return gt_error_set(e, GT_EINVAL, -1, -1,
	                    "%s: the state file belongs to another run (%s differs); remove it "
	                    "to start afresh", path, what);
}

int gt_train_load(gt_trainer *t, const char *path, gt_error *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return gt_error_set(e, errno == ENOENT ? GT_ENOTFOUND : GT_EIO, -1, -1, "%s: %s", path,
		                    strerror(errno));
	uint8_t h[STATE_HEADER];
	state_head s;
	int rc = 0;
	uLong crc = crc32(0, NULL, 0);
	size_t hsize = 0;
	if (read_all(f, h, 16, &crc) || !(hsize = head_size(h)) ||
	    read_all(f, h + 16, hsize - 16, &crc)) {
		rc = gt_error_set(e, GT_EFORMAT, -1, 0, "%s: not a gt-train state file%s", path,
		                  hsize ? " (truncated header)" : "");
		goto out;
	}
	head_unpack(h, &s);
	float *m, *v;
	int64_t *ostep;
	size_t np = gt_optim_state(t->opt, &m, &v, &ostep);
	int32_t arch[9];
	arch_ints(&t->arch, arch);
	if (memcmp(arch, s.arch, sizeof arch)) {
		rc = other_run(e, path, "the architecture");
		goto out;
	}
	if (memcmp(s.start, t->start, 32)) {
		rc = other_run(e, path, "the starting model");
		goto out;
	}
	if (s.kind != t->c.optim.kind) {
		rc = other_run(e, path, "the optimizer");
		goto out;
	}
	if (s.batch != t->c.batch) {
		rc = other_run(e, path, "the batch size");
		goto out;
	}
	if (s.seed != t->c.seed) {
		rc = other_run(e, path, "the seed");
		goto out;
	}
	if (s.base_rows >= 0 && s.base_rows != t->base_rows) {
		rc = other_run(e, path, "the starting model's rows seen");
		goto out;
	}
	double ema = t->avg ? t->c.ema : 0;
	if (memcmp(&s.ema, &ema, sizeof ema)) {
		rc = other_run(e, path, "the --ema decay");
		goto out;
	}
	if (s.nparams != np || s.nvec != (v ? 3u : 2u) + (t->avg != NULL) || s.k.step < 0 ||
	    s.k.good < 0 || s.k.bad < 0 || s.k.bad_run < 0 || s.k.samples < 0 || s.ostep < 0 ||
	    s.avg_n < 0 || s.avg_n > s.k.good || s.k.samples > INT64_MAX / 2) {
		rc = gt_error_set(e, GT_EFORMAT, -1, 0, "%s: bad header", path);
		goto out;
	}
	/* pass 1: size and CRC, without touching the trainer */
	float *buf = gt_xmalloc(1 << 20);
	size_t total = (size_t)s.nvec * np * sizeof(float);
	for (size_t off = 0; off < total;) {
		size_t k = total - off < (1u << 20) ? total - off : (1u << 20);
		if (read_all(f, buf, k, &crc)) {
			free(buf);
			rc = gt_error_set(e, GT_EFORMAT, -1, (long)(hsize + off), "%s: truncated",
			                  path);
			goto out;
		}
		off += k;
	}
	free(buf);
	uint8_t tail[5];
	size_t got = fread(tail, 1, 5, f);
	if (got != 4 || get32_host(tail) != (uint32_t)crc) {
		rc = gt_error_set(e, GT_EFORMAT, -1, (long)(hsize + total), "%s: %s", path,
		                  got < 4 ? "truncated" : got > 4 ? "trailing bytes" : "CRC mismatch");
		goto out;
	}
	/* pass 2: into place */
	float *vec[4] = {gt_nn_params(t->nn), m, v ? v : t->avg, t->avg};
	if (fseek(f, (long)hsize, SEEK_SET) != 0) {
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
		goto out;
	}
	for (uint32_t i = 0; i < s.nvec; i++)
		if (read_all(f, vec[i], np * sizeof(float), NULL)) {
			/* the file changed under us: the trainer is now inconsistent */
			rc = gt_error_set(e, GT_EIO, -1, -1, "%s: changed while read", path);
			goto out;
		}
	gt_nn_sync_params(t->nn);
	*ostep = s.ostep;
	t->k = s.k;
	t->rng = s.rng;
	t->avg_n = s.avg_n;
out:
	fclose(f);
	return rc;
}
