#!/bin/sh
# gt-report on a store with hostile content (tests/report_check.py hostile):
# worker names, network names, reasons and unit states with HTML, quotes and
# control characters, 10,000 workers, lines that are not JSON, a game that
# does not replay; the page escapes everything, stays small, passes tidy
# and the checks of report.t. Also: the learning units' numbers worked out
# by hand, the signature verified and refused, hours, no gnuplot, an empty
# store, and the errors.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-report >/dev/null || skip_all "gt-report is not built"
command -v tidy >/dev/null || skip_all "tidy is not installed"
command -v openssl >/dev/null || skip_all "openssl is not installed"
py=/usr/bin/python3
chk=$GT_SRC/tests/report_check.py
export GT_SHARE=$GT_SRC/share/gt
S=$T/store W=$T/trainer
mkdir -p "$S/games" "$W"
now=$(date +%s)

# one signed release by gt-publish, one batch of real games
ed25519_key "$T/key.pem" "$T/key.pub" && ed25519_key "$T/other.pem" "$T/other.pub"
ok $? "keys"
gt-model init b1c8 --series evil -o "$T/candidate.bin.gz" > /dev/null
echo '{"a":"candidate","b":"x-b1c8-s250-d9000","games":4,"wins":3,"draws":0,"losses":1,"score":0.75,"elo":190.85,"elo_ci95":[-150.25,600.5]}' |
	gt-publish --candidate "$T/candidate.bin.gz" --store "$S" --threshold 0 --sign-key "$T/key.pem" > /dev/null 2>&1
ok $? "a signed release"
gt-selfplay --model none --games 4 --visits 4 --cheap-visits 2 --seed 3 2>/dev/null | gzip > "$S/games/w-20261201T000000Z-aa.ndjson.gz"
$py "$chk" hostile "$S" "$W" "$now"; ok $? "the hostile store"

gt-report -t "$W" --hours "$W/hours.ndjson" --verify-key "$T/key.pub" "$S" > "$T/out" 2> "$T/err"
ok $? "gt-report makes the page"
grep -q 'not JSON objects left out' "$T/err"; ok $? "it says a history line was left out"
grep -q 'does not replay' "$T/err"; ok $? "and a game that does not replay"
P=$S/site/index.html
is "$(grep -i -o '<script[^>]*>' "$P")" '<script src="viewer.js">' "one <script> in the page: the site's viewer.js"
! grep -q '<img src=x' "$P" && ! grep -q '<svg onload' "$P" && ! grep -q '<b>\|<i>r' "$P"
ok $? "no hostile tag in the page"
grep -q '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;' "$P"; ok $? "a worker's <script> shown escaped"
grep -q '&lt;img src=x onerror=alert(1)&gt;' "$P"; ok $? "a reason with HTML shown escaped"
grep -q 'a&quot;b&#39;c&amp;d&lt;e&gt;' "$P"; ok $? "quotes and ampersands escaped"
grep -q 'ctrl??name' "$P"; ok $? "control characters shown as ?"
! grep -i -q '<script\|<img src=x' "$S"/site/*.svg; ok $? "and none in the plots"
tidy -e -q "$P" > "$T/tidy" 2>&1; is $? 0 "tidy finds no error and no warning"
sed 's/^/# /' "$T/tidy" | head -n 5
$py "$chk" page "$S/site" > "$T/c1" 2>&1; ok $? "page against status.json: $(head -n 1 "$T/c1")"
grep FAIL "$T/c1" | head -n 5 | sed 's/^/# /'
$py "$chk" sources "$S/site" "$S" "$W" > "$T/c2" 2>&1; ok $? "status.json against the sources: $(head -n 1 "$T/c2")"
grep FAIL "$T/c2" | head -n 5 | sed 's/^/# /'
size=$(wc -c < "$P") jsize=$(wc -c < "$S/site/status.json")
[ "$size" -lt 200000 ] && [ "$jsize" -lt 200000 ]
ok $? "10,000 workers: the page is $size bytes, status.json $jsize"
# J EXPR: EXPR of d, the status.json of the site (J2: of the second site)
J() { $py -c "import json; d = json.load(open('$S/site/status.json')); print(($1))"; }
J2() { $py -c "import json; d = json.load(open('$T/site2/status.json')); print(($1))"; }
is "$(J 'len(d["workers"]["list"]), d["workers"]["others"]["count"], d["workers"]["total"]')" "(100, 9908, 10008)" \
	"100 workers listed, the other 9,908 summed"
is "$(J 'max(len(w["name"].encode()) for w in d["workers"]["list"])')" 100 "a 600-byte name cut to 100 bytes"
is "$(J 'd["workers"]["list"][0]["name"]')" "<img src=x onerror=alert(1)>" "the most games first"
is "$(J 'd["releases_total"], d["decisions"], [r["gain"] for r in d["releases"]]')" \
	"(4, 5, [190.85, 120.5, -80.25, 50.1])" \
	"releases and their gains: a won-every-game match adds its lower bound, a lost-every-game one its upper"
is "$(J 'd["releases"][0]["chain"], d["current"]["chain"], d["releases"][2]["elo"]')" "(281.2, 281.2, '-inf')" \
	"the chain: 50.1 - 80.25 + 120.5 + 190.85"
is "$(J 'd["current"]["signature"]')" verified "the signature verifies with the key"
is "$(J 'd["hours_kind"], [r["hours"] for r in d["releases"]]')" "('CPU-hours', [3.125, 2.25, None, 0.5])" \
	"hours by name and by generation"
is "$(J '[(u["unit"], u["applied"], u["stale"], u["bytes_sent"], u["state"]) for u in d["units"]["units"]]')" \
	"[('evil', 1, 1, 0, '<svg onload=alert(1)>'), ('u1', 3, 0, 1500, 'training')]" \
	"units: applied and stale deltas and bytes, worked out by hand"
is "$(J '[(v["version"], v["deltas"], v["stale"]) for v in d["units"]["versions"]]')" "[(3, 1, 0), (2, 2, 1), (1, 1, 0)]" \
	"the versions, newest first"
is "$(J 'len(d["games"]), d["games_of_current"], d["games"][-1]["worker"]')" "(4, True, '<script>alert(\"x\")</script>')" \
	"the four games that replay, of the current network, newest first"
is "$(J '[(r["reason"], r["count"]) for r in d["data"]["reasons"][:2]], len(d["data"]["reasons"]), d["data"]["reasons_others"]')" \
	"([('<img src=x onerror=alert(1)>', 12), ('move', 9)], 12, 36)" "reasons: the 12 most frequent, the other 12 summed"
is "$(J 'd["data"]["window"]["rows"], d["data"]["window"]["shards"]')" "(250000, 2)" "the window: 250,000 rows in the 2 newest shards (KataGo's keys left out)"
for f in elo-steps elo-time elo-hours games-hour games-day rejects versions; do
	grep -q '<svg' "$S/site/$f.svg" 2>/dev/null; ok $? "plot $f.svg"
done

gt-report -q -t "$W" --verify-key "$T/other.pub" -o "$T/site2" "$S" 2> "$T/err2"
ok $? "another destination"
is "$(J2 'd["current"]["signature"]')" bad \
	"a signature that does not verify with the key is shown as bad"
grep -q "href=\"file://$S/models/" "$T/site2/index.html"; ok $? "the download link points into the store by its URL"
gt-report -q --gnuplot /nonexistent/gnuplot -o "$T/site3" "$S" 2> "$T/err3"
ok $? "no gnuplot: still a page"
grep -q 'plots are missing' "$T/err3"; ok $? "with a warning"
! ls "$T/site3"/*.svg > /dev/null 2>&1; ok $? "and no plots"
$py "$chk" page "$T/site3" > "$T/c3" 2>&1; ok $? "that page passes the check too"

mkdir -p "$T/empty"
gt-report -q "$T/empty" 2> "$T/err4"; ok $? "an empty store"
grep -q 'No network has been published yet' "$T/empty/site/index.html"; ok $? "says there is no network yet"
$py "$chk" page "$T/empty/site" > "$T/c4" 2>&1; ok $? "and passes the check"
tidy -e -q "$T/empty/site/index.html" > /dev/null 2>&1; is $? 0 "and tidy"

gt-report -q "$T/nowhere" 2> /dev/null; is $? 1 "a store folder that does not exist: exit 1"
mkdir -p "$T/bad/models" && echo '{"name":"../x"}' > "$T/bad/models/latest.json"
gt-report -q "$T/bad" 2> "$T/err5"; is $? 1 "a latest.json that is not a pointer: exit 1"
gt-report 2> /dev/null; is $? 2 "no store: usage, exit 2"
gt-report --workers x "$S" 2> /dev/null; is $? 2 "a bad number: exit 2"
gt-report --share "$T/none" "$T/empty" 2> "$T/err6"; is $? 1 "no template: exit 1"
done_testing
