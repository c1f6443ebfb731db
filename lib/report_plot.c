/* report_plot.c: the plots of the status page by gnuplot over data files
 * (share/gt/report/plots.gp; report.h, gt-report(1)). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "report_int.h"

/* ---- plots ---- */

/* label: a reason as gnuplot may see it: [A-Za-z0-9._-] only, 20 bytes */
static void label(const char *s, char *out, size_t n)
{
	size_t k = 0;
	for (; *s && k + 1 < n && k < 20; s++)
		out[k++] = (isalnum((unsigned char)*s) || strchr("._-", *s)) && (unsigned char)*s < 0x80 ? *s : '?';
	out[k] = 0;
	if (!k)
		snprintf(out, n, "?");
}

static FILE *stage_open(rep *r, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", r->stage, name);
	return fopen(path, "w");
}

/* run_gnuplot: plots.gp for the wide page, or with narrow for a phone's */
static int run_gnuplot(rep *r, int narrow)
{
	char *src;
	size_t n;
	char path[4096];
	snprintf(path, sizeof path, "%s/report/plots.gp", r->o->share);
	int rc = rp_read_file(path, MAX_SMALL, &src, &n, NULL);
	if (rc)
		return gt_error_set(r->e, rc == GT_ENOTFOUND ? GT_EINVAL : rc, -1, -1, "%s: %s", path,
		                    gt_strerror(rc));
	rc = rp_write_text(r, "plots.gp", src, n);
	free(src);
	if (rc)
		return rc;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		rp_warnf(r, "fork: %s; no plots", strerror(errno));
		return 0;
	}
	if (pid == 0) {
		int fd;
		if (chdir(r->stage) == 0 && (fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			execlp(r->o->gnuplot, r->o->gnuplot, "-e", narrow ? "narrow = 1" : "narrow = 0", "vars.gp",
			       "plots.gp", (char *)NULL);
		}
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char *log = NULL;
		size_t ll;
		snprintf(path, sizeof path, "%s/gnuplot.log", r->stage);
		rp_read_file(path, 4096, &log, &ll, NULL);
		rp_warnf(r, "%s failed (%s); plots are missing: %.300s", r->o->gnuplot,
		      WIFEXITED(status) && WEXITSTATUS(status) == 127 ? "not found" : "exit status", log ? log : "");
		free(log);
	}
	return 0;
}

/* do_plots: data files and vars.gp, gnuplot, then status "plots" naming
 * the SVG files that exist */
int rp_do_plots(rep *r)
{
	json_t *plots = json_object(), *rel = json_object_get(r->st, "releases"),
	       *d = json_object_get(r->st, "data"), *U = json_object_get(r->st, "units");
	static const char *const names[] = { "elo_steps", "elo_time", "elo_hours", "games_hour",
	                                     "games_day", "rejects", "versions" };
	json_t *plots_n = json_object();
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		json_object_set_new(plots, names[i], json_null());
		json_object_set_new(plots_n, names[i], json_null());
	}
	json_object_set_new(r->st, "plots", plots);
	json_object_set_new(r->st, "plots_narrow", plots_n);
	json_object_set_new(r->st, "started", json_null());
	if (!r->o->gnuplot || !r->o->gnuplot[0])
		return 0;
	FILE *f = stage_open(r, "elo.dat");
	size_t nrel = json_array_size(rel);
	int have_hours = 0;
	long long t_first = 0, t_last = 0;
	rp_parse_iso(rp_str(json_array_get(rel, nrel ? nrel - 1 : 0), "time"), &t_first);
	rp_parse_iso(rp_str(json_array_get(rel, 0), "time"), &t_last);
	/* the uniform evaluator at 0 steps, 0 Elo and 0 hours, when the
	 * oldest release listed is the first */
	json_t *first = json_array_get(rel, nrel ? nrel - 1 : 0);
	/* the run's start: the oldest of the first release, the trainer's
	 * first generation and the oldest batch of games/ */
	long long started = t_first;
	if (json_array_size(r->gens)) {
		long long g0 = json_integer_value(json_object_get(json_array_get(r->gens, 0), "t"));
		if (g0 > 0 && (!started || g0 < started))
			started = g0;
	}
	if (r->first_batch > 0 && (!started || r->first_batch < started))
		started = r->first_batch;
	json_object_set_new(r->st, "started", started ? rp_iso(started) : json_null());
	if (f && nrel && json_integer_value(json_object_get(first, "n")) == 1 &&
	    !strcmp(rp_str(first, "reference") ? rp_str(first, "reference") : "", "the uniform evaluator"))
		fprintf(f, "0 0 %lld 0 0\n", started);
	for (size_t i = nrel; f && i-- > 0;) {
		json_t *x = json_array_get(rel, i);
		long long t = 0;
		rp_parse_iso(rp_str(x, "time"), &t);
		double h = rp_num(x, "hours");
		have_hours |= isfinite(h);
		char hs[32] = "NaN";
		if (isfinite(h))
			snprintf(hs, sizeof hs, "%.6g", h);
		fprintf(f, "%.0f %.2f %lld %s %d\n", rp_num(x, "steps"), rp_num(x, "chain"), t, hs,
		        json_is_true(json_object_get(x, "interval_has_0")));
	}
	if (f)
		fclose(f);
	static const char *const series[] = { "per_hour", "per_day" };
	static const char *const files[] = { "games_hour.dat", "games_day.dat" };
	for (int s = 0; s < 2; s++) {
		json_t *a = json_object_get(d, series[s]);
		if (!(f = stage_open(r, files[s])))
			continue;
		for (size_t i = 0; i < json_array_size(a); i++) {
			long long t = 0;
			rp_parse_iso(rp_str(json_array_get(a, i), "time"), &t);
			fprintf(f, "%lld %lld %lld\n", t, rp_cnt(json_array_get(a, i), "games"),
			        rp_cnt(json_array_get(a, i), "positions"));
		}
		fclose(f);
	}
	/* rejects: cumulative columns of the top reasons, then the rest */
	const char *by = rp_str(d, "rejects_by");
	json_t *rb = json_object_get(d, by && !strcmp(by, "day") ? "per_day" : "per_hour");
	json_t *tot = json_object();
	long long all = 0;
	for (size_t i = 0; i < json_array_size(rb); i++) {
		const char *k;
		json_t *v;
		json_object_foreach(json_object_get(json_array_get(rb, i), "by_reason"), k, v) {
			rp_add_to(tot, k, json_integer_value(v));
			all += json_integer_value(v);
		}
	}
	size_t nr;
	kv *top = rp_sorted(tot, &nr, 1);
	int cols = nr > PLOT_REASONS ? PLOT_REASONS + 1 : (int)nr;
	char labels[(PLOT_REASONS + 1) * 24] = "";
	for (int c = 0; c < cols; c++) {
		char l[24];
		if (c == PLOT_REASONS)
			snprintf(l, sizeof l, "other");
		else
			label(top[c].k, l, sizeof l);
		strcat(labels, c ? " " : "");
		strcat(labels, l);
	}
	if ((f = stage_open(r, "rejects.dat"))) {
		for (size_t i = 0; all > 0 && i < json_array_size(rb); i++) {
			json_t *b = json_array_get(rb, i), *br = json_object_get(b, "by_reason");
			long long t = 0, sum = 0;
			rp_parse_iso(rp_str(b, "time"), &t);
			fprintf(f, "%lld", t);
			for (int c = 0; c < cols; c++) {
				if (c < PLOT_REASONS) {
					sum += json_integer_value(json_object_get(br, top[c].k));
				} else {
					sum = 0;
					const char *k;
					json_t *v;
					json_object_foreach(br, k, v)
						sum += json_integer_value(v);
				}
				fprintf(f, " %lld", sum);
			}
			fprintf(f, "\n");
		}
		fclose(f);
	}
	free(top);
	json_decref(tot);
	json_t *vs = json_object_get(U, "versions");
	if ((f = stage_open(r, "versions.dat"))) {
		for (size_t i = json_array_size(vs); i-- > 0;) {
			long long t;
			json_t *v = json_array_get(vs, i);
			if (!rp_parse_iso(rp_str(v, "time"), &t))
				fprintf(f, "%lld %lld %lld\n", t, rp_cnt(v, "version"), rp_cnt(v, "deltas"));
		}
		fclose(f);
	}
	if (!(f = stage_open(r, "vars.gp")))
		return gt_error_set(r->e, GT_EIO, -1, -1, "%s/vars.gp: %s", r->stage, strerror(errno));
	if (started && started < t_first)
		t_first = started;
	fprintf(f, "n_releases = %zu\nrel_span = %lld\nhave_hours = %d\nhours_label = \"%s\"\n", nrel,
	        t_last - t_first, have_hours, rp_str(r->st, "hours_kind") ? rp_str(r->st, "hours_kind") : "");
	for (int s = 0; s < 2; s++) {
		json_t *a = json_object_get(d, series[s]);
		size_t nb = json_array_size(a);
		long long from = 0, to = 0, w = s ? 86400 : 3600;
		rp_parse_iso(rp_str(json_array_get(a, 0), "time"), &from);
		rp_parse_iso(rp_str(json_array_get(a, nb ? nb - 1 : 0), "time"), &to);
		fprintf(f, "n_%s = %zu\n%s_from = %lld\n%s_to = %lld\n%s_tics = %lld\n", s ? "day" : "hour", nb,
		        s ? "day" : "hour", from, s ? "day" : "hour", to + w, s ? "day" : "hour",
		        w * (long long)((nb + 7) / 8 ? (nb + 7) / 8 : 1));
	}
	fprintf(f, "rej_n = %d\nrej_width = %d\nrej_labels = \"%s\"\n", all > 0 ? cols : 0,
	        by && !strcmp(by, "day") ? 86400 : 3600, labels);
	fprintf(f, "n_versions = %zu\n", json_array_size(vs));
	fclose(f);
	int rc = run_gnuplot(r, 0);
	if (!rc)
		rc = run_gnuplot(r, 1);
	if (rc)
		return rc;
	for (int narrow = 0; narrow < 2; narrow++) {
		for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
			char file[64], path[4096];
			snprintf(file, sizeof file, "%s%s.svg", names[i], narrow ? "-narrow" : "");
			for (char *p = file; *p; p++)
				if (*p == '_')
					*p = '-';
			snprintf(path, sizeof path, "%s/%s", r->stage, file);
			struct stat sb;
			if (!stat(path, &sb) && sb.st_size > 0)
				json_object_set_new(narrow ? plots_n : plots, names[i], json_string(file));
		}
	}
	return 0;
}
