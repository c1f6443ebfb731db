#!/bin/sh
# gt-report's page for people (issue 33 item 4), on a plain store made
# here (tests/report_check.py plain: nine releases over a week, their
# intervals of both kinds, real self-play games, a real match by gt-elo in
# the trainer's folder), served by nginx and opened in headless Chromium
# through the DevTools protocol (tests/report_page.py): at 1280 and 400
# pixels the release table within the viewport or in a scroll box that
# is, the plots' boxes within it, the narrow plots on a phone, screenshots
# kept as build/test-artefacts/page-1280.png and page-400.png; the game
# viewer stepped by clicks and keys, its stones against a replay of the
# game's SGF. Also: the marks of releases whose interval holds 0, the
# totals worked out by hand, the match games as SGF, the plot by time
# from the run's start, "how to contribute".
. "${GT_SRC:-.}/tests/cmd/tap.sh"
. "$GT_SRC/tests/cmd/report.sh"
S=$T/store W=$T/trainer
mkdir -p "$S/games" "$W/gen/0003"
now=$(date +%s)

gt-model init b1c8 --series plain -o "$T/candidate.bin.gz" > /dev/null
echo '{"a":"candidate","b":"plain-b6c64-s8000-d2000000","games":40,"wins":22,"draws":0,"losses":18,"score":0.55,"elo":34.9,"elo_ci95":[-20.5,90.25]}' |
	gt-publish --candidate "$T/candidate.bin.gz" --store "$S" --threshold 0 > /dev/null 2>&1
ok $? "a release"
gt-selfplay --model none --games 3 --visits 4 --cheap-visits 2 --seed 5 2>/dev/null |
	gzip > "$S/games/alice-$(date -u -d @$((now - 3 * 86400)) +%Y%m%dT%H%M%SZ)-aa.ndjson.gz"
gt-selfplay --model none --games 3 --visits 4 --cheap-visits 2 --seed 6 2>/dev/null |
	gzip > "$S/games/bob-$(date -u -d @$((now - 600)) +%Y%m%dT%H%M%SZ)-bb.ndjson.gz"
gt-elo none none --games 4 --visits 4 --board-size 9 --seed 7 --records "$W/gen/0003/match.ndjson" > /dev/null 2>&1
ok $? "a match by gt-elo"
$py "$chk" plain "$S" "$W" "$now"; ok $? "the plain store"

nginx_start || { cat "$NGX"/*.err "$NGX/error.log" >&2; skip_all "nginx did not start"; }
cp -R "$S/." "$T/store/" 2>/dev/null
gt-report -t "$W" --hours "$W/hours.ndjson" "$NGX_URL" > "$T/where" 2> "$T/err"
ok $? "gt-report makes the page, over HTTP"
sed 's/^/# /' "$T/err" | head -n 5
P=$T/store/site
J() { $py -c "import json; d = json.load(open('$P/status.json')); print(($1))"; }
$py "$chk" page "$P" > "$T/c1" 2>&1; ok $? "page against status.json: $(head -n 1 "$T/c1")"
grep FAIL "$T/c1" | head -n 5 | sed 's/^/# /'
tidy -e -q "$P/index.html" > "$T/tidy" 2>&1; is $? 0 "tidy finds no error and no warning"
sed 's/^/# /' "$T/tidy" | head -n 5

# the marks: by hand from the intervals of tests/report_check.py plain
# (newest first: the real release's [-20.5, 90.25], then [2, 58],
# [-25.5, 45], [5, 85], [-30, 70], [12.5, 110], [-10, 80], [40, 140],
# [150, 260])
is "$(J '[r["interval_has_0"] for r in d["releases"]]')" \
	"[True, False, True, False, True, False, True, False, False]" "interval_has_0 of the nine releases"
is "$(grep -o '<tr class="ci0">' "$P/index.html" | wc -l)" 4 "the table marks those four rows"
grep -q 'whose 95% interval includes zero' "$P/index.html"; ok $? "and says what the mark means"
grep -q 'interval includes 0' "$P/elo-steps.svg" && grep -q 'interval includes 0' "$P/elo-time-narrow.svg"
ok $? "the plots' keys name the open circles"
# the plot by time from the run's start: the oldest of the first release
# (160 hours ago), the first generation (120) and the oldest batch (72)
is "$(J 'd["started"]')" "$($py -c "import time; print(time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime($now - 8 * 20 * 3600)))")" \
	"the run's start: the first release, the oldest time known"
# the totals, by hand: games in the last day: generation 3 (493), week:
# 491 + 492 + 493; all time: the workers' 100 + ... + 500; compute: the
# newest hours, 80 (20 hours ago), less those of the newest release
# before the day began (70, 40 hours ago); all releases are in the week
is "$(J '[d["totals"][w]["games"] for w in ("day", "week", "all")]')" "[493, 1476, 1500]" "games: day, week, all"
is "$(J '[d["totals"][w]["positions"] for w in ("day", "week", "all")]')" "[40003, 120006, 120000]" "positions"
is "$(J '[d["totals"][w]["hours"] for w in ("day", "week", "all")]')" "[10.0, 80.0, 80.0]" "CPU-hours"
is "$(J '[d["totals"][w]["uploads"] for w in ("day", "week", "all")]')" "[1, 2, 2]" "uploads"
# the match
is "$(J 'd["match"]["generation"], len(d["match"]["games"])')" "(3, 4)" "the match of generation 3, its four games"
gt-sgf "$P"/matches/*.sgf > "$T/m.ndjson" 2> "$T/msgf.err"; ok $? "gt-sgf reads their SGF"
is "$(wc -l < "$T/m.ndjson")" 4 "all four"
grep -q '<img src="matches/1.svg"' "$P/index.html"; ok $? "without a script each game shows its final position"
is "$(grep -i -o '<script[^>]*>' "$P/index.html")" '<script src="viewer.js">' "one script, the site's viewer.js"
cmp -s "$P/viewer.js" "$GT_SHARE/report/viewer.js"; ok $? "which is share/gt/report/viewer.js"
is "$(J 'd["contribute"]["store"], d["contribute"]["command"]')" "('$NGX_URL', 'gt-worker -c contribute.cfg')" \
	"how to contribute: the store's URL and the command"
gt-report -q -o "$T/site2" --contribute https://store.example/run1 "$S" 2> /dev/null
grep -q 'store = <span[^>]*>https://store.example/run1</span>' "$T/site2/index.html"; ok $? "--contribute URL"
gt-report -q -o "$T/site3" "$S" 2> /dev/null
! grep -q 'id="contribute"' "$T/site3/index.html"; ok $? "no such section for a store given as a folder"

if command -v chromium >/dev/null; then
	timeout 600 $py "$GT_SRC/tests/report_page.py" "$NGX_URL/site/index.html" "$T" > "$T/layout.json" 2> "$T/layout.err"
	ok $? "report_page.py drives chromium: $(tail -n 1 "$T/layout.err")"
	mkdir -p "$GT_SRC/build/test-artefacts" && cp "$T/page-1280.png" "$T/page-400.png" "$GT_SRC/build/test-artefacts/" &&
		diag "screenshots: $GT_SRC/build/test-artefacts/page-1280.png and page-400.png"
	L() { $py -c "import json; d = json.load(open('$T/layout.json')); print(($1))"; }
	for w in 1280 400; do
		is "$(L "d['$w']['iw']")" $w "the window is $w pixels wide"
		is "$(L "d['$w']['overflow_x'] <= 0")" True "at $w px the page itself does not scroll sideways"
		is "$(L "(lambda r: r['right'] <= d['$w']['vw'] or (r['in_scroll'] and r['box_left'] >= 0 and r['box_right'] <= d['$w']['vw']))(d['$w']['releases'])")" \
			True "at $w px the release table is within the viewport, or in a scroll box that is"
		is "$(L "len(d['$w']['plots']) >= 5 and all(p['left'] >= 0 and p['right'] <= d['$w']['vw'] for p in d['$w']['plots'])")" \
			True "at $w px every plot's box is within the viewport"
	done
	is "$(L "d['400']['releases']['overflows'], d['400']['releases']['hint']")" "(True, True)" \
		"at 400 px the release table scrolls in its box and a line says so"
	is "$(L "d['1280']['releases']['hint']")" False "at 1280 px no such line"
	is "$(L "all(p['src'].endswith('-narrow.svg') and p['scale'] >= 0.95 for p in d['400']['plots'])")" True \
		"at 400 px the narrow plots, shown at their size (their 11-pixel text kept)"
	is "$(L "any(p['src'].endswith('-narrow.svg') for p in d['1280']['plots'])")" False "at 1280 px the wide ones"
	sgf=$(L "d['viewer']['sgf']")
	$py "$GT_SRC/tests/report_page.py" sgf "$P/$sgf" > "$T/counts.json"
	ok $? "the viewer shows $sgf"
	got=$(L "[s[1] for s in d['viewer']['steps']]")
	want=$($py -c "import json; c = json.load(open('$T/counts.json')); n = len(c) - 1
print([c[k] for k in [0, 1, 2, 3, 4, 5, 4, 5, 6, 7, 6, n, 0]])")
	is "${got:-none}" "$want" "its stones after 5 clicks forward, 1 back, 3 right arrows, a left arrow, End, the first-move button"
	n=$($py -c "import json; print(len(json.load(open('$T/counts.json'))) - 1)")
	is "$(L "d['viewer']['steps'][7][2].split(' (')[0]")" "move 5 of $n" "its counter says where it is"
else
	ok 0 "# SKIP chromium is not installed"
fi
done_testing
