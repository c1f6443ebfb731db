#!/bin/sh
# gt-report on the store of a short real loop: share/gt/demo ci, whose
# trainer writes the page after each generation (report = yes). The page
# against status.json and status.json against the store and the trainer's
# files (tests/report_check.py), every link a file, tidy without errors or
# warnings, the recent games as SGF that gt-sgf and gt-validate take back;
# then the page made again from the store served by nginx (read by GET,
# written back by PUT) and opened in headless Chromium: the screenshot is
# not blank and is kept as build/test-artefacts/report.png, and the page's
# text names the current network.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-train >/dev/null || skip_all "gt-train is not built"
. "$GT_SRC/tests/cmd/report.sh"

TMPDIR=$T sh "$GT_SRC/share/gt/demo" ci > "$T/out" 2> "$T/err"
ok $? "demo ci exits 0"
D=$(ls -d "$T"/gt-demo.*)
S=$D/store
grep -q "the status page: $S/site/index.html" "$T/err"
ok $? "the demo ends by saying where the page is"
is "$(grep -c 'status page (gt-report) written' "$D/trainer/trainer.log")" 2 \
	"the trainer wrote the page after each of the two generations"
[ -s "$S/site/index.html" ] && [ -s "$S/site/status.json" ]
ok $? "index.html and status.json are in STORE/site/"

$py "$chk" page "$S/site" > "$T/c1" 2>&1
ok $? "every value on the page is the one of status.json it names; every link a file: $(head -n 1 "$T/c1")"
grep FAIL "$T/c1" | head -n 5 | sed 's/^/# /'
$py "$chk" sources "$S/site" "$S" "$D/trainer" > "$T/c2" 2>&1
ok $? "status.json agrees with the store's and the trainer's files: $(head -n 1 "$T/c2")"
grep FAIL "$T/c2" | head -n 5 | sed 's/^/# /'
tidy -e -q "$S/site/index.html" > "$T/tidy" 2>&1
is $? 0 "tidy finds no error and no warning"
sed 's/^/# /' "$T/tidy" | head -n 5
name=$(sed -n 's/.*"name":"\([^"]*\)".*/\1/p' "$S/models/latest.json")
grep -q "\"name\": \"$name\"" "$S/site/status.json"; ok $? "status.json names the current network $name"
grep -q '"releases_total": 2,' "$S/site/status.json"; ok $? "two releases"
for f in elo-steps elo-time games-hour games-day; do
	grep -q '<svg' "$S/site/$f.svg" 2>/dev/null; ok $? "plot $f.svg"
done
ngames=$(ls "$S/site/games/"*.sgf 2>/dev/null | wc -l)
is "$ngames" 6 "six recent games as SGF"
gt-sgf "$S/site/games/"*.sgf > "$T/games.ndjson" 2> "$T/sgf.err"; ok $? "gt-sgf reads them"
gt-validate "$T/games.ndjson" > "$T/valid.ndjson" 2> "$T/val.err"; ok $? "gt-validate accepts them"
is "$(wc -l < "$T/valid.ndjson")" 6 "all six"
# the games were played by the network released before the last one (the
# last one never plays in the demo), and the page says so
grep -q 'The current network has not played a self-play game yet' "$S/site/index.html"
ok $? "the page says whose games they are"
grep -q '"model": "demo-b1c8-s150-' "$S/site/status.json"; ok $? "the games of generation 1's network"

# the check fails where it should: a number changed, a stray digit, a
# broken link
for bad in 'number:s|\(data-j="/current/steps">\)[0-9,]*|\1301|' 'digit:s|<main>|<main><p>42 games</p>|' \
	'link:s|href="status.json"|href="statuz.json"|'; do
	rm -rf "$T/bad" && cp -R "$S/site" "$T/bad"
	sed "${bad#*:}" "$S/site/index.html" > "$T/bad/index.html"
	$py "$chk" page "$T/bad" > "$T/c3" 2>&1
	is $? 1 "the check catches a page with a ${bad%%:*} changed"
done

# over HTTP: the store served by nginx, the site written back with PUT
nginx_start || { cat "$NGX"/*.err "$NGX/error.log" >&2; skip_all "nginx did not start"; }
cp -R "$S/." "$T/store/" && rm -rf "$T/store/site"
gt-report -t "$D/trainer" "$NGX_URL" > "$T/where" 2> "$T/rerr"
ok $? "gt-report reads the store over HTTP and puts the site back"
is "$(cat "$T/where")" "$NGX_URL/site/index.html" "it prints the page's URL"
grep -q '^PUT /site/index.html 20[14]' "$NGX/access.log"; ok $? "index.html was PUT"
$py "$chk" page "$T/store/site" > "$T/c4" 2>&1; ok $? "that page passes the same check"
grep -q "\"store\": \"$NGX_URL\"" "$T/store/site/status.json"; ok $? "and names the HTTP store"

if command -v chromium >/dev/null; then
	: > "$NGX/access.log"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/chrome1" --screenshot="$T/shot.png" --window-size=1200,2600 \
		--virtual-time-budget=10000 \
		"$NGX_URL/site/index.html" > "$T/chrome.out" 2>&1
	ok $? "chromium takes a screenshot of the page"
	mkdir -p "$GT_SRC/build/test-artefacts" && cp "$T/shot.png" "$GT_SRC/build/test-artefacts/report.png" &&
		diag "screenshot kept as build/test-artefacts/report.png"
	$py "$chk" shot "$T/shot.png" > "$T/c5" 2>&1
	ok $? "the screenshot is not blank: $(head -n 1 "$T/c5")"
	grep -q '^GET /site/elo-steps.svg 200' "$NGX/access.log"; ok $? "the browser loaded the plots"
	grep -q '^GET /site/games/1.svg 200' "$NGX/access.log"; ok $? "and the pictures of the games"
	# (but the icon every browser asks a server for by itself)
	is "$(grep -v '^GET /site/' "$NGX/access.log" | grep -v -c '^GET /favicon.ico ')" 0 \
		"and asked for nothing outside the site"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/chrome2" --dump-dom "$NGX_URL/site/index.html" > "$T/dom.html" 2> "$T/chrome.err"
	grep -q "$name" "$T/dom.html"; ok $? "the page as the browser read it names $name"
else
	ok 0 "# SKIP chromium is not installed"
fi
done_testing
