/* gt-outer: the outer process of Decoupled DiLoCo (gt-outer(1)): options,
 * then lib/outerproc's cycle (scan, admit, outer step, publish), its events
 * as NDJSON lines. */
#include "gt.h"
#include "outer.h"
#include "outerproc.h"

#include "cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

const char *prog = "gt-outer";
static int progress;
static const char *readmit[65];
static int nreadmit;
static gt_outerproc *the_op; /* for the version event's influence figures */
static uint64_t crash_at; /* GT_OUTER_CRASH_AT: SIGKILL before this pointer */

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: gt-outer --store URL --state DIR [--init MODEL] [--quorum K]\n"
	    "                [--grace S] [--poll S] [--max-staleness S] [--lr LR]\n"
	    "                [--momentum M] [--stale-decay C] [--versions N]\n"
	    "                [--units U] [--lease-ttl S] [--owner ID]\n"
	    "                (--unit-keys DIR | --insecure-units)\n"
	    "                [--max-value X] [--norm-ratio K] [--clip-ratio C] [--norm-window N]\n"
	    "                [--max-samples N] [--samples-ratio R] [--max-param X]\n"
	    "                [--max-growth G] [--clip-center momentum|zero]\n"
	    "                [--probe DIR] [--probe-rows R] [--probe-tolerance T]\n"
	    "                [--influence-ratio B] [--influence-window W] [--readmit UNIT]... [--progress]\n");
	if (f != stdout)
		return;
	printf(
	    "The outer process of Decoupled DiLoCo: admit the units' deltas from\n"
	    "STORE/diloco/deltas/, apply the outer Nesterov step, publish each version to\n"
	    "STORE/diloco/versions/ and the pointer STORE/diloco/current.json; NDJSON events\n"
	    "on stdout.\n"
	    "  --store URL           the store (required)\n"
	    "  --state DIR           the outer state (master parameters, momentum, ledger)\n"
	    "  --init MODEL          version 0 when DIR holds no state yet\n"
	    "  --quorum K            units whose deltas make a version (--units, else 1)\n"
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
	    "  --unit-keys DIR       admit only deltas signed by DIR/UNIT.pub (Ed25519)\n"
	    "  --insecure-units      no keys: anyone who can write to the store is a unit\n"
	    "  --max-value X         refuse a delta with a value beyond +-X (1000; 0: off)\n"
	    "  --norm-ratio K        refuse a delta over K x the reference distance (4)\n"
	    "  --clip-ratio C        clip a delta to C x that distance (2; 0: off)\n"
	    "  --norm-window N       the last N admitted deltas of the reference (16)\n"
	    "  --clip-center C       distances from the momentum's average (momentum) or 0 (zero)\n"
	    "  --influence-ratio B   set aside a unit pulling over B x the median unit (2; 0: off)\n"
	    "  --influence-window W  versions of their decay (16)\n"
	    "  --readmit UNIT        admit a unit set aside again (repeatable)\n"
	    "  --max-samples N       a delta's samples count at most N (0: no fixed cap)\n"
	    "  --samples-ratio R     ... and at most R x the median samples (4; 0: off)\n"
	    "  --max-param X         refuse a version with a parameter beyond +-X (10000)\n"
	    "  --max-growth G        refuse a version whose norm grows over G times (10)\n"
	    "  --probe DIR           refuse a version whose loss on DIR's shards is worse\n"
	    "  --probe-rows R        ... on its first R rows (2048)\n"
	    "  --probe-tolerance T   ... by over T nats (0.05)\n"
	    "  --progress            a line per version on stderr\n");
}

/* the options into c and *versions; exits 2 on a usage error */
static void options(int argc, char **argv, gt_outerproc_conf *c, long *versions)
{
	enum { O_STORE = 256, O_STATE, O_INIT, O_QUORUM, O_GRACE, O_POLL, O_SMAX, O_LR, O_MOM,
	       O_DECAY, O_VERSIONS, O_TTL, O_OWNER, O_UNITS, O_PROGRESS, O_KEYS, O_MAXVAL,
	       O_NRATIO, O_CLIP, O_NWIN, O_MAXSAMP, O_SRATIO, O_MAXPAR, O_GROWTH, O_INSECURE, O_CENTER, O_IRATIO, O_IWIN, O_READMIT,
	       O_PROBE, O_PROBEROWS, O_PROBETOL };
	static const struct option opts[] = {
		{"store", 1, 0, O_STORE}, {"state", 1, 0, O_STATE}, {"init", 1, 0, O_INIT},
		{"quorum", 1, 0, O_QUORUM}, {"grace", 1, 0, O_GRACE}, {"poll", 1, 0, O_POLL},
		{"max-staleness", 1, 0, O_SMAX}, {"lr", 1, 0, O_LR}, {"momentum", 1, 0, O_MOM},
		{"stale-decay", 1, 0, O_DECAY}, {"versions", 1, 0, O_VERSIONS},
		{"lease-ttl", 1, 0, O_TTL}, {"units", 1, 0, O_UNITS}, {"owner", 1, 0, O_OWNER},
		{"progress", 0, 0, O_PROGRESS}, {"unit-keys", 1, 0, O_KEYS},
		{"insecure-units", 0, 0, O_INSECURE}, {"clip-center", 1, 0, O_CENTER},
		{"influence-ratio", 1, 0, O_IRATIO}, {"influence-window", 1, 0, O_IWIN},
		{"readmit", 1, 0, O_READMIT}, {"probe", 1, 0, O_PROBE},
		{"probe-rows", 1, 0, O_PROBEROWS}, {"probe-tolerance", 1, 0, O_PROBETOL},
		{"max-value", 1, 0, O_MAXVAL}, {"norm-ratio", 1, 0, O_NRATIO},
		{"clip-ratio", 1, 0, O_CLIP}, {"norm-window", 1, 0, O_NWIN},
		{"max-samples", 1, 0, O_MAXSAMP}, {"samples-ratio", 1, 0, O_SRATIO},
		{"max-param", 1, 0, O_MAXPAR}, {"max-growth", 1, 0, O_GROWTH}, CLI_OPTS_END};
	int ch;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case O_STORE: c->store = optarg; break;
		case O_STATE: c->dir = optarg; break;
		case O_INIT: c->init = optarg; break;
		case O_QUORUM: c->quorum = (int)cli_int("--quorum", optarg, 1, 100000); break;
		case O_GRACE: c->grace = cli_double("--grace", optarg, 0, 3600); break;
		case O_POLL: c->poll = cli_double("--poll", optarg, 0.001, 3600); break;
		case O_SMAX:
			c->cfg.s_max = (int)cli_int("--max-staleness", optarg, 0, GT_OUTER_SMAX_MAX);
			break;
		case O_LR: c->cfg.lr = cli_double("--lr", optarg, 1e-9, 100); break;
		case O_MOM: c->cfg.momentum = cli_double("--momentum", optarg, 0, 0.999999); break;
		case O_DECAY: c->cfg.stale_decay = cli_double("--stale-decay", optarg, 0, 1000); break;
		case O_VERSIONS: *versions = cli_int("--versions", optarg, 0, LONG_MAX); break;
		case O_TTL: c->lease_ttl = cli_double("--lease-ttl", optarg, 1, 86400); break;
		case O_OWNER: c->owner = optarg; break;
		case O_UNITS: c->units = (int)cli_int("--units", optarg, 0, 100000); break;
		case O_PROGRESS: progress = 1; break;
		case O_PROBE: c->probe = optarg; break;
		case O_PROBEROWS: c->probe_rows = cli_int("--probe-rows", optarg, 1, 10000000); break;
		case O_PROBETOL:
			c->probe_tolerance = cli_double("--probe-tolerance", optarg, 0, 1e6);
			break;
		case O_KEYS: c->unit_keys = optarg; break;
		case O_INSECURE: c->insecure_units = 1; break;
		case O_IRATIO:
			c->guard.influence_ratio = cli_double("--influence-ratio", optarg, 0, 1e6);
			break;
		case O_IWIN:
			c->guard.influence_window = (int)cli_int("--influence-window", optarg, 2, 100000);
			break;
		case O_READMIT:
			if (nreadmit >= 64)
				cli_usage_die("--readmit: 64 units at most");
			readmit[nreadmit++] = optarg;
			c->readmit = readmit;
			break;
		case O_CENTER:
			if (!strcmp(optarg, "momentum"))
				c->guard.center = GT_OUTER_CENTER_MOMENTUM;
			else if (!strcmp(optarg, "zero"))
				c->guard.center = GT_OUTER_CENTER_ZERO;
			else
				cli_usage_die("--clip-center: momentum or zero (got '%s')", optarg);
			break;
		case O_MAXVAL: c->guard.max_value = cli_double("--max-value", optarg, 0, 1e30); break;
		case O_NRATIO: c->guard.norm_ratio = cli_double("--norm-ratio", optarg, 0, 1e6); break;
		case O_CLIP: c->guard.clip_ratio = cli_double("--clip-ratio", optarg, 0, 1e6); break;
		case O_NWIN: c->guard.norm_window = (int)cli_int("--norm-window", optarg, 1, 1024); break;
		case O_MAXSAMP:
			c->guard.max_samples = (uint64_t)cli_int("--max-samples", optarg, 0, INT64_MAX);
			break;
		case O_SRATIO: c->guard.samples_ratio = cli_double("--samples-ratio", optarg, 0, 1e6); break;
		case O_MAXPAR: c->guard.max_param = cli_double("--max-param", optarg, 0, 1e30); break;
		case O_GROWTH: c->guard.max_growth = cli_double("--max-growth", optarg, 0, 1e6); break;
		default: cli_opt_other(ch, usage);
		}
	}
	if (optind < argc)
		cli_usage_die("unexpected argument '%s'", argv[optind]);
	if (c->unit_keys && access(c->unit_keys, R_OK | X_OK))
		cli_usage_die("--unit-keys %s: %s", c->unit_keys, strerror(errno));
	if (!c->store || !c->dir)
		cli_usage_fail(usage, "--store and --state are required");
	if (!c->unit_keys && !c->insecure_units)
		cli_usage_die("no --unit-keys: a unit is its key; --insecure-units admits unsigned "
		              "deltas from anyone who can write to the store");
	if (c->unit_keys && c->insecure_units)
		cli_usage_die("--unit-keys and --insecure-units: one or the other");
}

static void print_delta(void *ctx, const gt_outerproc_delta *d)
{
	(void)ctx;
	json_t *j = json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:f,s:s}", "event", "delta", "unit",
	                      d->unit, "name", d->name, "decision",
	                      gt_outer_decision_name(d->decision), "staleness",
	                      (json_int_t)d->staleness, "samples", (json_int_t)d->samples,
	                      "weight", d->weight, "why", d->why);
	char *str = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	printf("%s\n", str);
	fflush(stdout);
	free(str);
	json_decref(j);
}

static void print_refused(void *ctx, const gt_outerproc_refusal *r)
{
	(void)ctx;
	json_t *names = json_array();
	for (size_t i = 0; r->names && i < r->deltas; i++)
		json_array_append_new(names, json_string(r->names[i]));
	json_t *j = json_pack("{s:s,s:I,s:I,s:o,s:s}", "event", "refused", "version",
	                      (json_int_t)r->version, "deltas", (json_int_t)r->deltas, "names", names,
	                      "why", r->why);
	char *str = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	printf("%s\n", str);
	fflush(stdout);
	free(str);
	json_decref(j);
	cli_warn("%s", r->why);
}

/* the test hook: die between a version's state and its pointer */
static void on_saved(void *ctx, uint64_t version)
{
	(void)ctx;
	if (crash_at && version == crash_at) {
		cli_warn("GT_OUTER_CRASH_AT=%" PRIu64 ": killed before the pointer", crash_at);
		raise(SIGKILL);
	}
}

static void print_aside(void *ctx, uint64_t version, const char *unit, double ratio)
{
	(void)ctx;
	json_t *j = json_pack("{s:s,s:I,s:s,s:f}", "event", "aside", "version", (json_int_t)version,
	                      "unit", unit, "ratio", ratio);
	char *str = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	printf("%s\n", str);
	fflush(stdout);
	free(str);
	json_decref(j);
	cli_warn("version %" PRIu64 ": unit %s set aside (its pulls kept one direction: ratio %.3g)",
	         version, unit, ratio);
}

static void print_version(void *ctx, const gt_outerproc_version *v)
{
	(void)ctx;
	/* the influence ratio of each unit of the version */
	json_t *inf = json_object();
	const gt_outer *o = the_op ? gt_outerproc_outer(the_op) : NULL;
	for (size_t i = 0; o && i < gt_outer_ledger_size(o); i++) {
		const gt_outer_entry *x = gt_outer_ledger(o, i);
		double r;
		uint64_t n;
		if (x->version == v->version && gt_outer_unit_influence(o, x->unit, &r, &n) >= 0)
			json_object_set_new(inf, x->unit, json_real(round(r * 1000) / 1000));
	}
	char *is = json_dumps(inf, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(inf);
	char probe[64] = "";
	if (isfinite(v->probe))
		snprintf(probe, sizeof probe, ",\"probe\":%.6f", v->probe);
	printf("{\"event\":\"version\",\"version\":%" PRIu64 ",\"deltas\":%zu,\"samples\":%" PRIu64
	       ",\"scale\":%g,\"time\":%.3f,\"influence\":%s%s}\n",
	       v->version, v->deltas, v->samples, v->scale, v->time, is, probe);
	free(is);
	fflush(stdout);
	if (progress)
		cli_warn("version %" PRIu64 " from %zu deltas", v->version, v->deltas);
}

int main(int argc, char **argv)
{
	gt_outerproc_conf c;
	gt_outerproc_conf_init(&c);
	long versions = 0;
	options(argc, argv, &c, &versions);
	const char *ce = getenv("GT_OUTER_CRASH_AT");
	if (ce && *ce)
		crash_at = (uint64_t)strtoull(ce, NULL, 10);
	c.so.warn = cli_warn_cb;
	c.stop = &cli_stop;
	c.on_delta = print_delta;
	c.on_saved = on_saved;
	c.on_version = print_version;
	c.on_refused = print_refused;
	c.on_aside = print_aside;
	gt_error e = {0};
	gt_outerproc *op = NULL;
	int how = 0;
	if (gt_outerproc_open(&op, &c, &how, &e))
		cli_die("%s", e.text);
	the_op = op;
	cli_catch_stop(0);
	if (how != GT_OUTERPROC_RESUMED) {
		printf("{\"event\":\"%s\",\"version\":%" PRIu64 "}\n",
		       how == GT_OUTERPROC_RECOVERED ? "recovered" : "init",
		       gt_outer_version(gt_outerproc_outer(op)));
		fflush(stdout);
	}
	if (c.probe) {
		printf("{\"event\":\"probe\",\"version\":%" PRIu64 ",\"probe\":%.6f}\n",
		       gt_outer_version(gt_outerproc_outer(op)), gt_outerproc_probe_loss(op));
		fflush(stdout);
	}
	int rc = gt_outerproc_run(op, versions, &e);
	if (rc)
		cli_warn("%s", e.text);
	gt_outerproc_close(op);
	return cli_fshut(stdout, "stdout") || rc ? 1 : 0;
}
