/* gt-model: describe network files as JSON, write a random network, or
 * export one as a KataGo model. */
#include "gt.h"
#include "kataexport.h"
#include "katago.h"
#include "model.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *prog = "gt-model";

static void usage(FILE *f)
{
	fprintf(f, "usage: %s describe FILE...\n"
	           "       %s init ARCH [--seed S] [--series NAME] -o FILE\n"
	           "       %s export FILE --katago OUT [--name NAME]\n", prog, prog, prog);
}

static int print_json(const char *path, json_t *j)
{
	if (!j) {
		cli_warn("%s: cannot build JSON", path);
		return 1;
	}
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	printf("%s\n", s);
	free(s);
	return 0;
}

static const char *act_name[] = {"relu", "mish", "silu", "identity"};

/* the description of a KataGo network (man5 gt-model, KATAGO NETWORKS) */
static json_t *katago_json(const char *path, const gt_kata *k, const char *hex, json_int_t bytes)
{
	const gt_kata_info *in = gt_kata_info_of(k);
	char arch[32];
	snprintf(arch, sizeof arch, "b%dc%d%s", in->blocks, in->channels, in->nested ? "nbt" : "");
	return json_pack("{s:s, s:s, s:s, s:I, s:s, s:i, s:s, s:i, s:i, s:i, s:i, s:i, s:i, "
	                 "s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:I}",
	                 "file", path, "name", in->name, "sha256", hex,
	                 "bytes", bytes, "format", "katago",
	                 "format_version", in->version, "arch", arch, "blocks", in->blocks,
	                 "channels", in->channels, "mid_channels", in->mid,
	                 "regular_channels", in->regular, "gpool_channels", in->gpool,
	                 "gpool_blocks", in->gpool_blocks, "nested_blocks", in->nested,
	                 "input_planes", in->in_planes, "global_inputs", in->globals,
	                 "feature_version", 7, "head_policy", in->head_policy,
	                 "head_value", in->head_value, "value_hidden", in->value_hidden,
	                 "score_outputs", in->score_outputs, "activation", act_name[in->activation & 3],
	                 "params", (json_int_t)in->params);
}

/* the description of a gt network (man5 gt-model) */
static json_t *model_json(const char *path, const gt_model *m, const char *hex, json_int_t bytes)
{
	char name[160], arch[32], phex[65];
	int has_parent = 0;
	for (int i = 0; i < 32; i++)
		has_parent |= m->meta.parent[i];
	gt_sha256_hex(m->meta.parent, phex);
	gt_model_arch_name(&m->arch, arch, sizeof arch);
	const gt_arch *a = &m->arch;
	return json_pack("{s:s, s:s, s:s, s:I, s:i, s:s, s:i, s:i, s:i, s:i, s:i, s:i, "
	                 "s:i, s:i, s:i, s:I, s:I, s:I, s:s, s:o}",
	                 "file", path, "name", gt_model_name(m, name, sizeof name),
	                 "sha256", hex, "bytes", bytes,
	                 "format_version", gt_model_version(&m->arch), "arch", arch,
	                 "blocks", a->blocks, "channels", a->channels,
	                 "input_planes", a->in_planes, "global_inputs", a->globals,
	                 "feature_version", a->feat_version, "head_policy", a->head_policy,
	                 "head_value", a->head_value, "value_hidden", a->value_hidden,
	                 "max_board_size", a->max_n, "params", (json_int_t)m->nparams,
	                 "steps", (json_int_t)m->meta.steps, "rows", (json_int_t)m->meta.rows,
	                 "series", m->meta.series,
	                 "parent", has_parent ? json_string(phex) : json_null());
}

/* describe: a network file, gt's or KataGo's, as a line of JSON; returns
 * the exit status */
static int describe(const char *path)
{
	int kata = gt_kata_sniff(path) == 1;
	gt_kata *k = NULL;
	gt_model *m = NULL;
	gt_error e;
	uint8_t dg[32];
	char hex[65];
	struct stat st;
	json_t *j = NULL;
	int bad = (kata ? gt_kata_read(path, &k, &e) : gt_model_read(path, &m, &e)) != 0 ||
	          gt_model_sha256_file(path, dg, &e) != 0 || stat(path, &st) != 0;
	if (bad)
		cli_warn("%s", e.text);
	else if (kata)
		j = katago_json(path, k, gt_sha256_hex(dg, hex), (json_int_t)st.st_size);
	else
		j = model_json(path, m, gt_sha256_hex(dg, hex), (json_int_t)st.st_size);
	gt_kata_free(k);
	gt_model_free(m);
	return bad ? 1 : print_json(path, j);
}

/* init ARCH: a random network to out; returns the exit status */
static int init(const char *arch, uint64_t seed, const char *series, const char *out)
{
	gt_arch a;
	gt_error e;
	if (gt_model_parse_arch(arch, &a, &e) != 0)
		cli_usage_die("%s", e.text);
	if (series && strlen(series) >= GT_MODEL_SERIES_MAX)
		cli_usage_die("--series: longer than %d characters", GT_MODEL_SERIES_MAX - 1);
	gt_model *m = gt_model_new_random(&a, seed, &e);
	if (!m)
		cli_die("%s", e.text);
	if (series)
		strcpy(m->meta.series, series);
	int r = gt_model_write(out, m, &e);
	gt_model_free(m);
	if (r) {
		cli_warn("%s", e.text);
		return r == GT_EFORMAT ? 2 : 1;
	}
	return 0;
}

/* export FILE --katago OUT: a gt network as a KataGo model; returns the
 * exit status */
static int export(const char *in, const char *out, const char *name)
{
	gt_model *m = NULL;
	gt_error e;
	if (gt_kata_sniff(in) == 1) {
		cli_warn("%s: already a KataGo network", in);
		return 1;
	}
	if (gt_model_read(in, &m, &e) != 0) {
		cli_warn("%s", e.text);
		return 1;
	}
	int r = gt_kata_export(m, out, name, &e);
	gt_model_free(m);
	if (r) {
		cli_warn("%s", e.text);
		return r == GT_EINVAL && name ? 2 : 1;
	}
	return 0;
}

static const struct option opts[] = {
	{"seed", required_argument, NULL, 's'},
	{"series", required_argument, NULL, 'S'},
	{"output", required_argument, NULL, 'o'},
	{"katago", required_argument, NULL, 'k'},
	{"name", required_argument, NULL, 'n'},
	CLI_OPTS_END,
};

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	const char *series = NULL, *out = NULL, *kout = NULL, *kname = NULL;
	int c, init_opts = 0, export_opts = 0;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seed = cli_u64("--seed", optarg, 0, UINT64_MAX); break;
		case 'S': series = optarg; break;
		case 'o': out = optarg; break;
		case 'k': kout = optarg; export_opts = 1; continue;
		case 'n': kname = optarg; export_opts = 1; continue;
		default: cli_opt_other(c, usage);
		}
		init_opts = 1; /* the other options are init's */
	}
	const char *verb = optind < argc ? argv[optind++] : NULL;
	if (verb && !strcmp(verb, "describe") && !init_opts && !export_opts && optind < argc) {
		int rc = 0;
		for (; optind < argc; optind++)
			rc |= describe(argv[optind]);
		return cli_fshut(stdout, "stdout") ? 1 : rc;
	}
	if (verb && !strcmp(verb, "init") && optind + 1 == argc && out && !export_opts)
		return init(argv[optind], seed, series, out);
	if (verb && !strcmp(verb, "export") && optind + 1 == argc && kout && !init_opts)
		return export(argv[optind], kout, kname);
	if (verb && strcmp(verb, "describe") && strcmp(verb, "init") && strcmp(verb, "export"))
		cli_warn("unknown command '%s'", verb);
	usage(stderr);
	return 2;
}
