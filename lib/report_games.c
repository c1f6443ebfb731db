/* report_games.c: the recent self-play games and the match games of the
 * status page, replayed, as SGF and pictures (report.h, gt-report(1)). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "record.h"
#include "sgf.h"
#include "sgfrec.h"
#include "store.h"
#include "util.h"
#include "report_int.h"

/* ---- recent games ---- */

char *gt_report_board_svg(int n, const unsigned char *color, int last, int px)
{
	/* a stone under 200 bytes, a grid line under 128 */
	px = px < 16 ? 16 : px > 4096 ? 4096 : px;
	size_t cap = 1024 + (size_t)n * n * 200 + (size_t)n * 128;
	char *s = gt_xmalloc(cap);
	size_t k = 0;
	double c = px / (n + 1.0), r = c * 0.47;
#define OUT(...) (k += (size_t)snprintf(s + k, cap - k, __VA_ARGS__))
	OUT("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
	    px, px, px, px);
	OUT("<rect width=\"%d\" height=\"%d\" fill=\"#dcb35c\"/>\n", px, px);
	OUT("<path stroke=\"#000\" stroke-width=\"1\" d=\"");
	for (int i = 0; i < n; i++)
		OUT("M%.1f %.1fH%.1fM%.1f %.1fV%.1f", c, c * (i + 1), c * n, c * (i + 1), c, c * n);
	OUT("\"/>\n");
	for (int p = 0; p < n * n; p++) {
		if (color[p] != GT_BLACK && color[p] != GT_WHITE)
			continue;
		int black = color[p] == GT_BLACK;
		OUT("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" stroke=\"#000\"/>\n", c * (p % n + 1),
		    c * (p / n + 1), r, black ? "#000" : "#fff");
		if (p == last)
			OUT("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
			    c * (p % n + 1), c * (p / n + 1), r * 0.5, black ? "#fff" : "#000");
	}
	OUT("</svg>\n");
#undef OUT
	return s;
}

/* batch_time: the time in a batch name WORKER-YYYYMMDDTHHMMSSZ-RAND..., or
 * the listing's mtime */
static long long batch_time(const gt_store_entry *en)
{
	const char *p = en->name, *q;
	while ((q = strchr(p, '-'))) {
		p = q + 1;
		char iso_[21];
		if (strlen(p) > 16 && p[8] == 'T' && p[15] == 'Z' && p[16] == '-') {
			snprintf(iso_, sizeof iso_, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", p, p + 4, p + 6, p + 9, p + 11,
			         p + 13);
			long long t;
			if (!rp_parse_iso(iso_, &t))
				return t;
		}
	}
	return en->mtime;
}


/* play_text: the moves of rec for the page's viewer (new string): one
 * token a move, the colour (B or W) and the point as in SGF (column, then
 * row from the top, a = 0), a pass the colour alone, space-separated; the
 * setup stones the same way into *setup (new string) */
static char *play_text(const gt_record *rec, char **setup)
{
	int n = rec->board_size;
	char *s = gt_xmalloc((size_t)rec->nmoves * 4 + 1), *q = s;
	for (int i = 0; i < rec->nmoves; i++) {
		int p = rec->moves[i];
		q += sprintf(q, "%s%c", i ? " " : "", rec->colors[i] == GT_WHITE ? 'W' : 'B');
		if (p >= 0 && p < n * n)
			q += sprintf(q, "%c%c", 'a' + p % n, 'a' + p / n);
	}
	*q = 0;
	*setup = gt_xmalloc((size_t)(rec->nsetup[GT_BLACK] + rec->nsetup[GT_WHITE]) * 4 + 1);
	q = *setup;
	for (int c = GT_BLACK; c <= GT_WHITE; c++)
		for (int i = 0; i < rec->nsetup[c]; i++) {
			int p = rec->setup[c][i];
			if (p >= 0 && p < n * n)
				q += sprintf(q, "%s%c%c%c", q > *setup ? " " : "", c == GT_WHITE ? 'W' : 'B', 'a' + p % n,
				             'a' + p / n);
		}
	*q = 0;
	return s;
}

/* show_game: replay a record line, write DIR/K.sgf and DIR/K.svg and add
 * its entry to list (K its place there, from 1); with players, also the
 * match line's "black" and "white"; 0 shown, 1 refused, 2 not of model
 * (when not NULL) */
static int show_game(rep *r, const char *line, size_t len, const char *model, json_t *list, const char *dir,
                     int players)
{
	gt_record rec;
	gt_record_init(&rec);
	gt_error e = {0};
	gt_sgf_game g;
	gt_board *b = gt_xmalloc(sizeof *b);
	const gt_rules *rules;
	int rc = 1, last = -1;
	if (gt_record_parse(&rec, line, len, &e))
		goto out;
	if (model && (!rec.model || strcmp(rec.model, model))) {
		rc = 2;
		goto out;
	}
	if (!(rules = gt_rules_find(rec.rules)) || gt_board_init(b, rec.board_size, rules, rec.komi))
		goto out;
	for (int c = GT_BLACK; c <= GT_WHITE; c++)
		for (int i = 0; i < rec.nsetup[c]; i++)
			if (gt_board_setup(b, c, rec.setup[c][i]))
				goto out;
	gt_board_set_to_move(b, rec.first_to_move);
	for (int i = 0; i < rec.nmoves; i++) {
		if (gt_board_play(b, rec.colors[i], rec.moves[i]))
			goto out;
		last = rec.moves[i] < rec.board_size * rec.board_size ? rec.moves[i] : -1;
	}
	if (gt_sgfrec_from_record(&rec, &g, &e))
		goto out;
	size_t sl;
	char *sgf = gt_sgf_write_str(&g, &sl);
	gt_sgf_game_release(&g);
	size_t k = json_array_size(list) + 1;
	char rel_sgf[64], rel_svg[64];
	snprintf(rel_sgf, sizeof rel_sgf, "%s/%zu.sgf", dir, k);
	snprintf(rel_svg, sizeof rel_svg, "%s/%zu.svg", dir, k);
	char *svg = gt_report_board_svg(rec.board_size, b->color, last, 152);
	int w = rp_write_text(r, rel_sgf, sgf, sl) || rp_write_text(r, rel_svg, svg, strlen(svg));
	free(sgf);
	free(svg);
	if (w)
		goto out;
	json_t *o = json_object();
	json_object_set_new(o, "n", json_integer((json_int_t)k));
	json_object_set_new(o, "model", rp_jname(rec.model));
	json_object_set_new(o, "worker", rp_jname(rec.worker));
	json_object_set_new(o, "game_id", rp_jname(rec.game_id));
	json_object_set_new(o, "board_size", json_integer(rec.board_size));
	json_object_set_new(o, "komi", json_real(rec.komi));
	json_object_set_new(o, "moves", json_integer(rec.nmoves));
	json_object_set_new(o, "result", rp_jname(rec.result));
	json_object_set_new(o, "sgf", json_string(rel_sgf));
	json_object_set_new(o, "svg", json_string(rel_svg));
	char *setup, *play = play_text(&rec, &setup);
	json_object_set_new(o, "play", json_string(play));
	json_object_set_new(o, "setup", json_string(setup));
	free(play);
	free(setup);
	if (players) {
		json_t *j = json_loadb(line, len, 0, NULL);
		json_object_set_new(o, "black", rp_jname(rp_str(j, "black")));
		json_object_set_new(o, "white", rp_jname(rp_str(j, "white")));
		json_decref(j);
	}
	json_array_append_new(list, o);
	rc = 0;
out:
	free(b);
	gt_record_release(&rec);
	return rc;
}

/* names_model: whether the record line has "model":"<model>" (blanks
 * allowed around ':'); a quick filter, the parse decides */
static int names_model(const char *line, size_t len, const char *model)
{
	size_t ml = strlen(model);
	const char *p = line, *end = line + len;
	while ((p = memmem(p, (size_t)(end - p), "\"model\"", 7))) {
		p += 7;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end || *p++ != ':')
			continue;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(end - p) > ml + 1 && *p == '"' && !memcmp(p + 1, model, ml) && p[ml + 1] == '"')
			return 1;
	}
	return 0;
}

/* scan: line numbers (in order) of the last want lines of the batch file,
 * only those naming model when model is not NULL; *nl of them */
static long scan(const char *path, const char *model, long *lines, int want)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	gt_record_reader *rd = gt_record_reader_new(f, path, (size_t)16 << 20);
	const char *line;
	size_t len;
	gt_error e;
	long i = 0, got = 0;
	int rc;
	while ((rc = gt_record_read_line(rd, &line, &len, &e)) != 0) {
		i++;
		if (rc < 0) {
			if (rc == GT_ETOOLONG)
				continue;
			break;
		}
		if (model && !names_model(line, len, model))
			continue;
		if (got == want)
			memmove(lines, lines + 1, (size_t)(want - 1) * sizeof *lines), got--;
		lines[got++] = i;
	}
	gt_record_reader_free(rd);
	fclose(f);
	return got;
}

/* pick: show lines[0..nl) of the batch file, newest (last) first */
static void pick(rep *r, const char *path, const long *lines, long nl, const char *model, json_t *list,
                 int want)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	gt_record_reader *rd = gt_record_reader_new(f, path, (size_t)16 << 20);
	char **keep = gt_xcalloc((size_t)nl + 1, sizeof *keep);
	size_t *klen = gt_xcalloc((size_t)nl + 1, sizeof *klen);
	const char *line;
	size_t len;
	gt_error e;
	long i = 0, j = 0;
	int rc;
	while (j < nl && (rc = gt_record_read_line(rd, &line, &len, &e)) != 0) {
		i++;
		if (rc < 0 && rc != GT_ETOOLONG)
			break;
		if (rc > 0 && i == lines[j]) {
			keep[j] = gt_xmalloc(len + 1);
			memcpy(keep[j], line, len);
			klen[j++] = len;
		} else if (i > lines[j]) {
			j++;
		}
	}
	for (long q = nl; q-- > 0 && json_array_size(list) < (size_t)want;)
		if (keep[q] && show_game(r, keep[q], klen[q], model, list, "games", 0) == 1)
			rp_warnf(r, "a recent game that does not replay was left out");
	for (long q = 0; q < nl; q++)
		free(keep[q]);
	free(keep);
	free(klen);
	gt_record_reader_free(rd);
	fclose(f);
}

void rp_do_games(rep *r)
{
	json_t *list = json_array();
	int want = r->o->max_games, current = r->model[0] != 0;
	gt_store_entry *ents;
	size_t n;
	gt_error e = {0};
	char *url = gt_store_join(r->o->store, "games/");
	if (!gt_store_list(&r->so, url, &ents, &n, &e)) {
		/* the batches, newest first; the uploads counted */
		kv *bs = gt_xmalloc((n + 1) * sizeof *bs);
		size_t k = 0;
		r->uploads_known = 1;
		for (size_t i = 0; i < n; i++) {
			size_t l = strlen(ents[i].name);
			if (!(l > 7 && !strcmp(ents[i].name + l - 7, ".ndjson")) &&
			    !(l > 10 && !strcmp(ents[i].name + l - 10, ".ndjson.gz")))
				continue;
			bs[k].k = ents[i].name;
			bs[k].j = NULL;
			bs[k].x = ents[i].bytes;
			bs[k].v = batch_time(&ents[i]);
			for (int w = 0; w < 3; w++)
				r->uploads[w] += w == 2 || bs[k].v > r->now - (w ? 7 : 1) * 86400LL;
			if (bs[k].v > 0 && (!r->first_batch || bs[k].v < r->first_batch))
				r->first_batch = bs[k].v;
			k++;
		}
		qsort(bs, k, sizeof *bs, rp_kv_cmp);
		if (want <= 0)
			k = 0;
		long *lines = gt_xmalloc((size_t)(want > 0 ? want : 1) * sizeof *lines);
		char path[4096];
		snprintf(path, sizeof path, "%s/batch.tmp", r->stage);
		/* the current network's games in the newest batches; else the
		 * newest games of any network */
		for (int pass = current ? 0 : 1; k && pass < 2 && json_array_size(list) == 0; pass++) {
			for (size_t i = 0; i < k && i < GAME_BATCHES && json_array_size(list) < (size_t)want; i++) {
				if (bs[i].x < 0 || bs[i].x > MAX_BATCH_BYTES)
					continue;     /* read no more than listed, and that bounded */
				char *bu = gt_store_join(r->o->store, "games/");
				char *u = gt_store_join(bu, bs[i].k);
				free(bu);
				int rc = gt_store_get(&r->so, u, path, NULL, bs[i].x, NULL, &e);
				free(u);
				if (rc) {
					rp_warnf(r, "a batch of games/ could not be read: %s", e.text);
					continue;
				}
				long nl = scan(path, pass == 0 ? r->model : NULL, lines, want);
				pick(r, path, lines, nl, pass == 0 ? r->model : NULL, list, want);
				unlink(path);
				if (pass == 1)
					break;
			}
		}
		free(lines);
		free(bs);
		gt_store_entries_free(ents, n);
	}
	free(url);
	const char *m0 = rp_str(json_array_get(list, 0), "model");
	int of_current = current && m0 && !strcmp(m0, r->model);
	json_object_set_new(r->st, "games_of_current", json_boolean(of_current));
	json_object_set_new(r->st, "games_note", json_string(
		of_current ? "The last self-play games of the current network, newest first." :
		json_array_size(list) ? "The current network has not played a self-play game yet: these are "
		                        "the newest games, each with the network that played it." :
		"No self-play game is in the store yet."));
	json_object_set_new(r->st, "games", list);
}

/* rp_do_matches: the games of the newest match the trainer recorded
 * (WORK/gen/NNNN/match.ndjson of the newest generation that is done,
 * gt-elo --records) */
void rp_do_matches(rep *r)
{
	json_t *m = json_null();
	long best = -1;
	const char *key;
	json_t *v;
	json_object_foreach(r->genlines, key, v) {
		long g = strtol(key, NULL, 10);
		char path[4096];
		snprintf(path, sizeof path, "%s/gen/%04ld/match.ndjson", r->o->trainer, g);
		if (g > best && access(path, R_OK) == 0)
			best = g;
	}
	if (best >= 0 && r->o->max_games > 0) {
		char path[4096], k[32];
		snprintf(path, sizeof path, "%s/gen/%04ld/match.ndjson", r->o->trainer, best);
		snprintf(k, sizeof k, "%ld", best);
		json_t *gl = json_object_get(r->genlines, k), *list = json_array();
		FILE *f = fopen(path, "rb");
		gt_record_reader *rd = f ? gt_record_reader_new(f, path, (size_t)16 << 20) : NULL;
		const char *line;
		size_t len;
		gt_error e;
		int rc, bad = 0;
		long bytes = 0;
		while (rd && json_array_size(list) < (size_t)r->o->max_games && bytes < MAX_BATCH_BYTES &&
		       (rc = gt_record_read_line(rd, &line, &len, &e)) != 0) {
			bytes += (long)len + 1;
			if (rc < 0 && rc != GT_ETOOLONG)
				break;
			if (rc > 0 && show_game(r, line, len, NULL, list, "matches", 1) == 1)
				bad++;
		}
		if (bad)
			rp_warnf(r, "%s: %d games that do not replay left out", path, bad);
		if (rd)
			gt_record_reader_free(rd);
		if (f)
			fclose(f);
		m = json_object();
		json_object_set_new(m, "generation", json_integer(best));
		json_object_set_new(m, "candidate", rp_jname(rp_str(gl, "candidate")));
		json_object_set_new(m, "reference", rp_jname(rp_str(gl, "reference")));
		json_object_set_new(m, "games", list);
	}
	json_object_set_new(r->st, "match", m);
}
