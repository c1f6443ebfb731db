/* gt-outer: the outer process of Decoupled DiLoCo (gt-outer(1)): admits the
 * learning units' deltas, applies the outer Nesterov step (lib/outer) and
 * publishes each new global version to the store (lib/diloco). */
#include "delta.h"
#include "diloco.h"
#include "fs.h"
#include "gt.h"
#include "model.h"
#include "outer.h"
#include "store.h"
#include "util.h"

#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

const char *prog = "gt-outer";
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: gt-outer --store URL --state DIR [--init MODEL] [--quorum K]\n"
	    "                [--grace S] [--poll S] [--max-staleness S] [--lr LR]\n"
	    "                [--momentum M] [--stale-decay C] [--versions N]\n"
	    "                [--units U] [--lease-ttl S] [--owner ID] [--progress]\n");
}

static void help(void)
{
	usage(stdout);
	printf(
	    "The outer process of Decoupled DiLoCo: admit the units' deltas from\n"
	    "STORE/diloco/deltas/, apply the outer Nesterov step, publish each version to\n"
	    "STORE/diloco/versions/ and the pointer STORE/diloco/current.json; NDJSON events\n"
	    "on stdout.\n"
	    "  --store URL           the store (required)\n"
	    "  --state DIR           the outer state (master parameters, momentum, ledger)\n"
	    "  --init MODEL          version 0 when DIR holds no state yet\n"
	    "  --quorum K            admitted deltas that make a version (--units, else 1)\n"
	    "  --grace S             seconds to wait for more once K are in (0.5)\n"
	    "  --poll S              seconds between listings of the deltas (0.5)\n"
	    "  --max-staleness S     admit deltas from versions V-S..V (2)\n"
	    "  --lr LR               outer learning rate (0.7)\n"
	    "  --momentum M          Nesterov momentum (0.9)\n"
	    "  --stale-decay C       weight 1/(1 + C s) of a delta of staleness s (0.25)\n"
	    "  --units U             scale the step of a version of k < U deltas by k/U (0: off)\n"
	    "  --versions N          stop after publishing N versions; 0: until a signal (0)\n"
	    "  --lease-ttl S         seconds the lease on the store lasts unrenewed (30)\n"
	    "  --owner ID            the lease's owner (host:state directory)\n"
	    "  --progress            a line per version on stderr\n");
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
	while (!stop && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	cli_warn("%s", msg);
}

/* a set of strings (delta names already looked at), open addressing */
typedef struct strset {
	char **slot;
	size_t cap, n;
} strset;

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* 1 if s was added, 0 if it was there */
static int strset_add(strset *ss, const char *s)
{
	if (2 * (ss->n + 1) > ss->cap) {
		strset big = {gt_xcalloc(ss->cap ? 2 * ss->cap : 256, sizeof(char *)),
		              ss->cap ? 2 * ss->cap : 256, 0};
		for (size_t i = 0; i < ss->cap; i++)
			if (ss->slot[i]) {
				size_t j = hash_str(ss->slot[i]) & (big.cap - 1);
				while (big.slot[j])
					j = (j + 1) & (big.cap - 1);
				big.slot[j] = ss->slot[i];
				big.n++;
			}
		free(ss->slot);
		*ss = big;
	}
	size_t j = hash_str(s) & (ss->cap - 1);
	for (; ss->slot[j]; j = (j + 1) & (ss->cap - 1))
		if (!strcmp(ss->slot[j], s))
			return 0;
	ss->slot[j] = gt_xstrdup(s);
	ss->n++;
	return 1;
}

static void strset_free(strset *ss)
{
	for (size_t i = 0; i < ss->cap; i++)
		free(ss->slot[i]);
	free(ss->slot);
}

typedef struct outer {
	const char *store, *dir;
	char owner[4400];
	gt_store_opts so;
	gt_outer *o;
	gt_model *base;        /* architecture and metadata of version 0 */
	int quorum, progress, units;
	double grace, poll, ttl;
	uint64_t crash_at;     /* GT_OUTER_CRASH_AT: SIGKILL itself before this pointer */
	strset seen;
	uint64_t pending_samples;
	char prev_sha[GT_SHA256_HEX];
} outer;

static char *path_in(const outer *x, const char *name)
{
	size_t n = strlen(x->dir) + strlen(name) + 2;
	char *p = gt_xmalloc(n);
	snprintf(p, n, "%s/%s", x->dir, name);
	return p;
}

/* the ledger of version v as JSON: {"version","deltas":[...]} */
static char *ledger_json(const gt_outer *o, uint64_t v)
{
	json_t *arr = json_array();
	uint64_t samples = 0;
	for (size_t i = 0; i < gt_outer_ledger_size(o); i++) {
		const gt_outer_entry *le = gt_outer_ledger(o, i);
		if (le->version != v)
			continue;
		char gen[17], name[96];
		snprintf(gen, sizeof gen, "%016" PRIx64, le->generation);
		gt_diloco_delta_name(name, sizeof name, le->base_version, le->generation, le->seq);
		json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:I,s:I,s:I,s:f}", "unit",
		                                     le->unit, "name", name, "generation", gen,
		                                     "seq", (json_int_t)le->seq, "base_version",
		                                     (json_int_t)le->base_version, "samples",
		                                     (json_int_t)le->samples, "weight", le->weight));
		samples += le->samples;
	}
	json_t *j = json_pack("{s:I,s:I,s:o}", "version", (json_int_t)v, "samples",
	                      (json_int_t)samples, "deltas", arr);
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	return s;
}

/* put the model and ledger of the state's version, then (after the state
 * was saved by the caller) the pointer. 0 or 1. */
static int publish_payload(outer *x, gt_diloco_ptr *p)
{
	gt_error e = {0};
	uint64_t v = gt_outer_version(x->o);
	gt_model *m = gt_model_new(&x->base->arch, &e);
	memcpy(m->params, gt_outer_params(x->o), sizeof(float) * m->nparams);
	m->meta = x->base->meta;
	m->meta.steps = x->base->meta.steps + v;
	uint64_t rows = 0;
	for (size_t i = 0; i < gt_outer_ledger_size(x->o); i++)
		rows += gt_outer_ledger(x->o, i)->samples;
	m->meta.rows = x->base->meta.rows + rows;
	memset(m->meta.parent, 0, 32);
	if (x->prev_sha[0])
		for (int i = 0; i < 32; i++) {
			unsigned b;
			sscanf(x->prev_sha + 2 * i, "%2x", &b);
			m->meta.parent[i] = (uint8_t)b;
		}
	char *tmp = path_in(x, "publish.bin.gz");
	uint8_t dg[32], ps[32];
	struct stat sb;
	int rc = 1;
	if (gt_model_write(tmp, m, &e) || gt_model_sha256_file(tmp, dg, &e) ||
	    stat(tmp, &sb) || gt_delta_params_sha256(m->params, m->nparams, ps)) {
		cli_warn("%s", e.text);
		goto out;
	}
	memset(p, 0, sizeof *p);
	p->version = v;
	snprintf(p->model, sizeof p->model, "v%" PRIu64 ".bin.gz", v);
	gt_sha256_hex(dg, p->sha256);
	gt_sha256_hex(ps, p->params_sha256);
	p->bytes = (long long)sb.st_size;
	char *url = gt_diloco_url(x->store, "versions/%s", p->model);
	/* overwrite: a version that no pointer names yet may be a crashed
	 * attempt's, with other deltas in it */
	if (gt_diloco_put_file(&x->so, tmp, url, 1, &e)) {
		cli_warn("put %s: %s", p->model, e.text);
		free(url);
		goto out;
	}
	free(url);
	char *lj = ledger_json(x->o, v);
	url = gt_diloco_url(x->store, "versions/v%" PRIu64 ".json", v);
	rc = gt_diloco_put_mem(&x->so, lj, strlen(lj), url, 1, &e);
	free(url);
	free(lj);
	if (rc)
		cli_warn("put ledger of v%" PRIu64 ": %s", v, e.text);
out:
	unlink(tmp);
	free(tmp);
	gt_model_free(m);
	return rc ? 1 : 0;
}

static int publish_pointer(outer *x, gt_diloco_ptr *p)
{
	gt_error e = {0};
	p->time = gt_wall();
	char *s = gt_diloco_ptr_format(p);
	char *url = gt_diloco_url(x->store, "current.json");
	int rc = gt_diloco_put_mem(&x->so, s, strlen(s), url, 1, &e);
	free(url);
	free(s);
	if (rc) {
		cli_warn("put pointer: %s", e.text);
		return 1;
	}
	snprintf(x->prev_sha, sizeof x->prev_sha, "%s", p->sha256);
	return 0;
}

static int save_state(outer *x)
{
	gt_error e = {0};
	char *sp = path_in(x, "outer.state");
	int rc = gt_outer_save(x->o, sp, &e);
	free(sp);
	if (rc)
		cli_warn("%s", e.text);
	return rc ? 1 : 0;
}

/* one version from the pending deltas; 0 or 1 */
static int make_version(outer *x)
{
	gt_error e = {0};
	size_t k = gt_outer_pending(x->o);
	double t = gt_wall();
	double scale = x->units > 0 && k < (size_t)x->units ? (double)k / x->units : 1.0;
	if (gt_outer_step_scaled(x->o, scale, &e)) {
		cli_warn("%s", e.text);
		return 1;
	}
	gt_diloco_ptr p;
	if (publish_payload(x, &p) || save_state(x))
		return 1;
	if (x->crash_at && p.version == x->crash_at) {
		/* the test hook: die between the state and the pointer */
		cli_warn("GT_OUTER_CRASH_AT=%" PRIu64 ": killed before the pointer", x->crash_at);
		raise(SIGKILL);
	}
	if (publish_pointer(x, &p))
		return 1;
	printf("{\"event\":\"version\",\"version\":%" PRIu64 ",\"deltas\":%zu,\"samples\":%" PRIu64
	       ",\"scale\":%g,\"time\":%.3f}\n",
	       p.version, k, x->pending_samples, scale, t);
	fflush(stdout);
	if (x->progress)
		cli_warn("version %" PRIu64 " from %zu deltas", p.version, k);
	x->pending_samples = 0;
	return 0;
}

static void log_delta(const char *unit, const char *name, int d, int64_t s, double w,
                      uint64_t samples, const char *why)
{
	json_t *j = json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:f,s:s}", "event", "delta", "unit",
	                      unit, "name", name, "decision", gt_outer_decision_name(d),
	                      "staleness", (json_int_t)s, "samples", (json_int_t)samples,
	                      "weight", w, "why", why);
	char *str = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	printf("%s\n", str);
	fflush(stdout);
	free(str);
	json_decref(j);
}

/* look at the deltas not seen yet; 0, or 1 on a store failure */
static int scan(outer *x)
{
	gt_error e = {0};
	gt_store_entry *units = NULL, *ds = NULL;
	size_t nu = 0, nd = 0;
	char *url = gt_diloco_url(x->store, "heartbeats/");
	int rc = gt_store_list(&x->so, url, &units, &nu, &e);
	free(url);
	if (rc == GT_ENOTFOUND)
		return 0;
	if (rc) {
		cli_warn("heartbeats: %s", e.text);
		return 1;
	}
	uint64_t V = gt_outer_version(x->o);
	gt_outer_cfg cfg;
	gt_outer_cfg_get(x->o, &cfg);
	for (size_t i = 0; i < nu && !stop; i++) {
		char unit[256];
		size_t ln = strlen(units[i].name);
		if (ln < 6 || strcmp(units[i].name + ln - 5, ".json"))
			continue;
		snprintf(unit, sizeof unit, "%.*s", (int)(ln - 5), units[i].name);
		if (!gt_diloco_unit_ok(unit))
			continue;
		url = gt_diloco_url(x->store, "deltas/%s/", unit);
		rc = gt_store_list(&x->so, url, &ds, &nd, &e);
		free(url);
		if (rc == GT_ENOTFOUND)
			continue;
		if (rc) {
			cli_warn("deltas of %s: %s", unit, e.text);
			gt_store_entries_free(units, nu);
			return 1;
		}
		for (size_t j = 0; j < nd && !stop; j++) {
			uint64_t v, gen, seq;
			char key[512];
			if (gt_diloco_delta_name_parse(ds[j].name, &v, &gen, &seq))
				continue;
			snprintf(key, sizeof key, "%s/%s", unit, ds[j].name);
			if (v > V)
				continue; /* not ours yet: look again later */
			if (!strset_add(&x->seen, key))
				continue;
			if (V - v > (uint64_t)cfg.s_max) {
				log_delta(unit, ds[j].name, GT_REFUSE_TOO_STALE, (int64_t)(V - v), 0, 0,
				          "listed too late");
				continue;
			}
			char *buf = NULL;
			size_t len = 0;
			url = gt_diloco_url(x->store, "deltas/%s/%s", unit, ds[j].name);
			rc = gt_store_get_mem(&x->so, url, (size_t)1 << 31, &buf, &len, &e);
			free(url);
			if (rc) {
				cli_warn("%s: %s", key, e.text);
				free(buf);
				continue;
			}
			double w = 0;
			gt_delta_hdr h;
			uint64_t samples = 0;
			if (gt_delta_read_header((const uint8_t *)buf, len, &h, NULL, NULL) == 0)
				samples = h.samples;
			e.text[0] = 0;
			int d = gt_outer_admit_packed(x->o, (const uint8_t *)buf, len, &w, &e);
			free(buf);
			if (d < 0) {
				cli_warn("%s: %s", key, e.text);
				continue;
			}
			if (GT_OUTER_ADMITTED(d))
				x->pending_samples += samples;
			log_delta(unit, ds[j].name, d, (int64_t)(V - v), w, samples, e.text);
		}
		gt_store_entries_free(ds, nd);
	}
	gt_store_entries_free(units, nu);
	return 0;
}

/* load the state, or make version 0 from init; then put the store in
 * step with it (a pointer behind the state is finished). 0 or 1. */
static int start(outer *x, const char *init, const gt_outer_cfg *cfg)
{
	gt_error e = {0};
	char *sp = path_in(x, "outer.state"), *bp = path_in(x, "base.bin.gz");
	int rc = 1;
	gt_diloco_ptr p;
	int have_ptr = gt_diloco_ptr_read(&x->so, x->store, &p, &e);
	if (have_ptr && have_ptr != GT_ENOTFOUND) {
		cli_warn("pointer: %s", e.text);
		goto out;
	}
	if (access(sp, F_OK) == 0) {
		if (gt_outer_load(&x->o, sp, &e) || gt_model_read(bp, &x->base, &e)) {
			cli_warn("%s", e.text);
			goto out;
		}
		if (gt_outer_size(x->o) != x->base->nparams) {
			cli_warn("%s: state and base.bin.gz differ in size", x->dir);
			goto out;
		}
	} else {
		if (!init) {
			cli_warn("%s: no outer state; give --init MODEL", x->dir);
			goto out;
		}
		if (have_ptr == 0) {
			cli_warn("the store already holds version %" PRIu64
			         " but %s has no state", p.version, x->dir);
			goto out;
		}
		if (gt_model_read(init, &x->base, &e) || gt_model_write(bp, x->base, &e) ||
		    gt_outer_new(&x->o, x->base->params, x->base->nparams, cfg, &e)) {
			cli_warn("%s", e.text);
			goto out;
		}
		have_ptr = GT_ENOTFOUND;
	}
	uint64_t V = gt_outer_version(x->o);
	if (have_ptr == 0 && p.version > V) {
		cli_warn("the store is at version %" PRIu64 ", the state at %" PRIu64,
		         p.version, V);
		goto out;
	}
	if (have_ptr == 0 && p.version == V) {
		snprintf(x->prev_sha, sizeof x->prev_sha, "%s", p.sha256);
		rc = 0;
		goto out;
	}
	/* first start, or a crash between the state and the pointer */
	gt_diloco_ptr np;
	if (publish_payload(x, &np) || save_state(x) || publish_pointer(x, &np))
		goto out;
	printf("{\"event\":\"%s\",\"version\":%" PRIu64 "}\n",
	       have_ptr == 0 ? "recovered" : "init", V);
	fflush(stdout);
	rc = 0;
out:
	free(sp);
	free(bp);
	return rc;
}

int main(int argc, char **argv)
{
	enum { O_STORE = 256, O_STATE, O_INIT, O_QUORUM, O_GRACE, O_POLL, O_SMAX, O_LR, O_MOM,
	       O_DECAY, O_VERSIONS, O_TTL, O_OWNER, O_UNITS, O_PROGRESS, O_VERSION };
	static const struct option opts[] = {
		{"store", 1, 0, O_STORE}, {"state", 1, 0, O_STATE}, {"init", 1, 0, O_INIT},
		{"quorum", 1, 0, O_QUORUM}, {"grace", 1, 0, O_GRACE}, {"poll", 1, 0, O_POLL},
		{"max-staleness", 1, 0, O_SMAX}, {"lr", 1, 0, O_LR}, {"momentum", 1, 0, O_MOM},
		{"stale-decay", 1, 0, O_DECAY}, {"versions", 1, 0, O_VERSIONS},
		{"lease-ttl", 1, 0, O_TTL}, {"units", 1, 0, O_UNITS}, {"owner", 1, 0, O_OWNER},
		{"progress", 0, 0, O_PROGRESS}, {"version", 0, 0, O_VERSION},
		{"help", 0, 0, 'h'}, {0, 0, 0, 0}};
	outer x;
	memset(&x, 0, sizeof x);
	x.quorum = 0; /* default: --units when given, else 1 */
	x.grace = 0.5;
	x.poll = 0.5;
	x.ttl = 30;
	gt_outer_cfg cfg;
	gt_outer_cfg_default(&cfg);
	const char *init = NULL, *owner = NULL;
	long versions = 0;
	int c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_STORE: x.store = optarg; break;
		case O_STATE: x.dir = optarg; break;
		case O_INIT: init = optarg; break;
		case O_QUORUM: x.quorum = (int)cli_int("--quorum", optarg, 1, 100000); break;
		case O_GRACE: x.grace = cli_double("--grace", optarg, 0, 3600); break;
		case O_POLL: x.poll = cli_double("--poll", optarg, 0.001, 3600); break;
		case O_SMAX:
			cfg.s_max = (int)cli_int("--max-staleness", optarg, 0, GT_OUTER_SMAX_MAX);
			break;
		case O_LR: cfg.lr = cli_double("--lr", optarg, 1e-9, 100); break;
		case O_MOM: cfg.momentum = cli_double("--momentum", optarg, 0, 0.999999); break;
		case O_DECAY: cfg.stale_decay = cli_double("--stale-decay", optarg, 0, 1000); break;
		case O_VERSIONS: versions = cli_int("--versions", optarg, 0, LONG_MAX); break;
		case O_TTL: x.ttl = cli_double("--lease-ttl", optarg, 1, 86400); break;
		case O_OWNER: owner = optarg; break;
		case O_UNITS: x.units = (int)cli_int("--units", optarg, 0, 100000); break;
		case O_PROGRESS: x.progress = 1; break;
		case O_VERSION: printf("%s %s\n", prog, GT_VERSION); return 0;
		case 'h': help(); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (x.quorum == 0) /* measured: quorum 1 with 4 units diverged, quorum = units did not */
		x.quorum = x.units > 0 ? x.units : 1;
	if (optind < argc)
		cli_usage_die("unexpected argument '%s'", argv[optind]);
	if (!x.store || !x.dir) {
		cli_warn("--store and --state are required");
		usage(stderr);
		return 2;
	}
	const char *ce = getenv("GT_OUTER_CRASH_AT");
	if (ce && *ce)
		x.crash_at = (uint64_t)strtoull(ce, NULL, 10);
	gt_store_opts_init(&x.so);
	x.so.warn = warn_cb;
	x.so.retries = 3;
	gt_error me;
	if (gt_fs_mkdir_p(x.dir, &me))
		cli_die("%s", me.text);
	/* one outer process per state directory (flock), one per store (lease) */
	char *lp = path_in(&x, "lock");
	int lfd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(lp);
	if (lfd < 0 || flock(lfd, LOCK_EX | LOCK_NB))
		cli_die("%s: another gt-outer holds this state directory", x.dir);
	if (owner) {
		snprintf(x.owner, sizeof x.owner, "%s", owner);
	} else {
		char host[256] = "localhost", real[PATH_MAX];
		gethostname(host, sizeof host - 1);
		if (!realpath(x.dir, real))
			snprintf(real, sizeof real, "%s", x.dir);
		snprintf(x.owner, sizeof x.owner, "%s:%s", host, real);
	}
	gt_error e = {0};
	if (gt_diloco_lease_take(&x.so, x.store, x.owner, x.ttl, &e))
		cli_die("%s", e.text);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	int rc = start(&x, init, &cfg) ? 1 : 0;
	long made = 0;
	double ready = 0, renewed = gt_wall();
	while (!rc && !stop && (!versions || made < versions)) {
		if (gt_wall() - renewed > x.ttl / 3) {
			if (gt_diloco_lease_take(&x.so, x.store, x.owner, x.ttl, &e)) {
				cli_warn("%s", e.text);
				rc = 1;
				break;
			}
			renewed = gt_wall();
		}
		if (scan(&x)) {
			sleep_s(x.poll);
			continue;
		}
		if (gt_outer_pending(x.o) >= (size_t)x.quorum) {
			if (!ready)
				ready = gt_wall();
			if (gt_wall() - ready >= x.grace) {
				if (make_version(&x)) {
					rc = 1;
					break;
				}
				made++;
				ready = 0;
				continue;
			}
			sleep_s(fmin(x.poll, x.grace));
		} else {
			sleep_s(x.poll);
		}
	}
	gt_diloco_lease_drop(&x.so, x.store, x.owner, &e);
	gt_outer_free(x.o);
	gt_model_free(x.base);
	strset_free(&x.seen);
	close(lfd);
	return cli_fshut(stdout, "stdout") ? 1 : rc;
}
