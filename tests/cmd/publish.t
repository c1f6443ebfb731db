#!/bin/sh
# gt-publish: the decision table end to end on a local store and over nginx;
# the model goes up first, latest.json last, every decision is kept in
# models/history.ndjson, and gt-sync latest installs what was released.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
S=$T/store
mkdir -p "$T/m"
# real models (gt-publish reads them); the step rule is driven by --steps
for s in 1200 1500 1600 10100 10200 10300; do
	gt-model init b1c8 --series run1 --seed $s -o "$T/m/run1-b6c64-s$s-d5000.bin.gz"
done
MB=$(stat -c %s "$T/m/run1-b6c64-s1200-d5000.bin.gz")
summary() { # wins draws losses elo
	printf '{"a":"cand","b":"cur","games":%d,"wins":%d,"draws":%d,"losses":%d,"score":0.5,"elo":%s,"elo_ci95":[-10,10],"los":0.5}\n' \
		$(($1 + $2 + $3)) "$1" "$2" "$3" "$4"
}
pub() { # steps summary-line [options]
	_s=$1 _l=$2; shift 2
	printf '%s\n' "$_l" | gt-publish --candidate "$T/m/run1-b6c64-s$_s-d5000.bin.gz" --store "$STORE" --series run1 \
		--name "run1-b6c64-s$_s-d5000.bin.gz" --steps "$_s" "$@" > "$T/out" 2>"$T/err"
}
field() { python3 -c 'import json,sys; v=json.loads(sys.stdin.readline())[sys.argv[1]]; print(str(v).lower() if isinstance(v,bool) else v)' "$1"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }

STORE=$S
pub 1200 "$(summary 60 4 36 85)"; ok $? "elo 85 > 20: exit 0"
is "$(field released < "$T/out")" true "released"
cmp -s "$T/m/run1-b6c64-s1200-d5000.bin.gz" "$S/models/run1-b6c64-s1200-d5000.bin.gz"; ok $? "model uploaded under its name"
is "$(field name < "$S/models/latest.json")" run1-b6c64-s1200-d5000.bin.gz "latest.json names it"
is "$(field sha256 < "$S/models/latest.json")" "$(sha "$T/m/run1-b6c64-s1200-d5000.bin.gz")" "with its sha256"
is "$(field bytes < "$S/models/latest.json")" "$MB" "its size"
is "$(field steps < "$S/models/latest.json")" 1200 "its steps"
is "$(field rows < "$S/models/latest.json")" 0 "its rows (from the model)"

pub 1500 "$(summary 52 0 48 13.9)"; ok $? "elo 13.9 <= 20, no step multiple: exit 0"
is "$(field released < "$T/out")" false "not released"
is "$(field name < "$S/models/latest.json")" run1-b6c64-s1200-d5000.bin.gz "latest.json unchanged"
[ ! -e "$S/models/run1-b6c64-s1500-d5000.bin.gz" ]; ok $? "model not uploaded"
# gt-elo prints its game lines first: the summary is the LAST line
pub 1600 "$(printf '{"version":1,"game":0,"moves":[]}\n\n%s\n%s\n\n' "$(summary 60 4 36 85)" "$(summary 52 0 48 13.9)")"
ok $? "game lines and two summaries: exit 0"
is "$(field released < "$T/out")" false "decided on the last line (elo 13.9), not the first (elo 85)"
# a summary whose player b is the candidate (gt-elo REFERENCE CANDIDATE) is refused
pub 1600 "$(summary 90 0 10 380 | sed 's/"a":"cand","b":"cur"/"a":"cur","b":"run1-b6c64-s1600-d5000"/')"
is $? 1 "candidate as player b: exit 1"
grep -q "is player b" "$T/err"; ok $? "said: the candidate is player b"


pub 10100 "$(summary 40 0 60 -70)"; ok $? "elo -70 but steps cross 10000"
is "$(field released < "$T/out")" true "released by the step rule"
grep -q "crossed a multiple of 10000" "$T/out"; ok $? "reason names the step rule"
is "$(field name < "$S/models/latest.json")" run1-b6c64-s10100-d5000.bin.gz "latest.json moved"

pub 10200 "$(summary 0 100 0 0)" --threshold -50; ok $? "all draws, threshold -50"
is "$(field released < "$T/out")" false "no decisive games: never released"
grep -q "no decisive games" "$T/out"; ok $? "and says so"

pub 10200 '{"games":10,"wins":5,"draws":0,"losses":4,"elo":3'
is $? 1 "a corrupt summary line fails"
is "$(field released < "$T/out")" false "not released"
grep -q "bad summary" "$T/err"; ok $? "reported on stderr"
is "$(field name < "$S/models/latest.json")" run1-b6c64-s10100-d5000.bin.gz "latest.json unchanged"

is "$(wc -l < "$S/models/history.ndjson")" 7 "seven decisions in the history"
is "$(python3 -c '
import json,sys
print(" ".join("%s:%s" % (json.loads(l)["steps"], json.loads(l)["released"]) for l in sys.stdin))' < "$S/models/history.ndjson")" \
	"1200:True 1500:False 1600:False 1600:False 10100:True 10200:False 10200:False" "earlier entries kept, in order"
is "$(head -1 "$S/models/history.ndjson" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["stats"]["wins"])')" 60 "the stats are recorded"

# a different model under a published name is refused, nothing moves
gt-model init b1c8 --series run1 --seed 99 -o "$T/m/other"
printf '%s\n' "$(summary 60 4 36 85)" | gt-publish --candidate "$T/m/other" --name run1-b6c64-s1200-d5000.bin.gz \
	--steps 1200 --store "$S" > "$T/out" 2>"$T/err"
is $? 1 "different bytes under a published name fail"
grep -q immutable "$T/err"; ok $? "because objects are immutable"
is "$(field name < "$S/models/latest.json")" run1-b6c64-s10100-d5000.bin.gz "latest.json unchanged"

P=$(gt-sync latest "$S" "$T/inst"); ok $? "gt-sync latest"
cmp -s "$T/m/run1-b6c64-s10100-d5000.bin.gz" "$P"; ok $? "installs the released model"

# the name, steps and rows come from the model's header
S2=$T/store2
gt-model init b1c8 --series run2 --seed 5 -o "$T/m/cand.bin.gz"
printf '%s\n' "$(summary 60 4 36 85)" | gt-publish --candidate "$T/m/cand.bin.gz" --store "$S2" > "$T/out" 2>"$T/err"
ok $? "a candidate with any file name"
is "$(field name < "$S2/models/latest.json")" run2-b1c8-s0-d0.bin.gz "is published under the name its header gives"
is "$(field steps < "$S2/models/latest.json")" 0 "with the header's steps"
cmp -s "$T/m/cand.bin.gz" "$S2/models/run2-b1c8-s0-d0.bin.gz"; ok $? "the model is in the store"
# a corrupt candidate is refused before anything is uploaded
head -c 3000 "$T/m/cand.bin.gz" > "$T/m/trunc.bin.gz"
printf '%s\n' "$(summary 60 4 36 85)" | gt-publish --candidate "$T/m/trunc.bin.gz" --name run2-b1c8-s9-d0.bin.gz \
	--store "$S2" > "$T/out" 2>"$T/err"
is $? 1 "a corrupt candidate fails"
grep -q "not a valid model" "$T/err"; ok $? "saying why: $(cat "$T/err")"
[ ! -e "$S2/models/run2-b1c8-s9-d0.bin.gz" ]; ok $? "nothing uploaded"
is "$(field name < "$S2/models/latest.json")" run2-b1c8-s0-d0.bin.gz "latest.json unchanged"
is "$(wc -l < "$S2/models/history.ndjson")" 1 "no history line for a file that is not a model"

# the curriculum: the settings of the candidate's step go into latest.json
cat > "$T/cur" <<'EOF'
# steps -> self-play settings; later lines inherit earlier ones
{"from_step":0,"board_size":9,"visits":100,"cheap_visits":25}
{"from_step":1500,"visits":200}
{"from_step":10200,"board_size":13,"komi":7.5}
EOF
sp() { python3 -c 'import json,sys; print(json.dumps(json.loads(sys.stdin.readline()).get("selfplay"), sort_keys=True, separators=(",",":")))'; }
STORE=$T/store3
pub 1200 "$(summary 60 4 36 85)" --curriculum "$T/cur"; ok $? "release with --curriculum at step 1200"
is "$(sp < "$T/store3/models/latest.json")" '{"board_size":9,"cheap_visits":25,"visits":100}' "latest.json: the step-0 settings"
pub 10100 "$(summary 60 4 36 85)" --curriculum "$T/cur"; ok $? "at step 10100"
is "$(sp < "$T/store3/models/latest.json")" '{"board_size":9,"cheap_visits":25,"visits":200}' "the step-1500 line on top of the step-0 line"
pub 10300 "$(summary 60 4 36 85)" --curriculum "$T/cur"; ok $? "at step 10300"
is "$(sp < "$T/store3/models/latest.json")" '{"board_size":13,"cheap_visits":25,"komi":7.5,"visits":200}' "all three lines"
is "$(tail -1 "$T/store3/models/history.ndjson" | sp)" '{"board_size":13,"cheap_visits":25,"komi":7.5,"visits":200}' "and the history records them"
gt-sync latest --selfplay-args "$T/args" "$T/store3" "$T/inst3" > /dev/null; ok $? "gt-sync latest --selfplay-args"
is "$(cat "$T/args")" "--board-size 13 --komi 7.5 --visits 200 --cheap-visits 25" "gives the worker those options"
for bad in '{"from_step":0,"visits":0}' '{"from_step":0,"threads":2}' '{"visits":10}' \
	'{"from_step":5,"visits":10}
{"from_step":5,"visits":20}' 'not json'; do
	printf '%s\n' "$bad" > "$T/badcur"
	pub 10300 "$(summary 60 4 36 85)" --curriculum "$T/badcur"
	is $? 1 "a bad curriculum fails: $(head -1 "$T/err")"
done
is "$(wc -l < "$T/store3/models/history.ndjson")" 3 "and decides nothing"

gt-publish --candidate x 2>/dev/null </dev/null; is $? 2 "--store is required"
gt-publish --candidate x --store "$S" --threshold abc 2>/dev/null </dev/null; is $? 2 "bad --threshold"

# over HTTP
. "$GT_SRC/tests/nginx/nginx.sh"
nginx_need
if nginx_start; then
	unset GT_STORE_TOKEN
	STORE=$NGX_URL/http
	pub 1200 "$(summary 60 4 36 85)"; ok $? "release over HTTP"
	pub 10300 "$(summary 10 0 9 5)"; ok $? "a second release over HTTP (step rule)"
	is "$(wc -l < "$T/store/http/models/history.ndjson")" 2 "the history over HTTP keeps both entries"
	is "$(field name < "$T/store/http/models/latest.json")" run1-b6c64-s10300-d5000.bin.gz "latest.json over HTTP"
	m=$(grep -n '^PUT /http/models/run1-b6c64-s10300' "$NGX/access.log" | cut -d: -f1)
	l=$(grep -n '^PUT /http/models/latest.json' "$NGX/access.log" | tail -1 | cut -d: -f1)
	[ -n "$m" ] && [ -n "$l" ] && [ "$m" -lt "$l" ]; ok $? "model PUT before latest.json"
else
	diag "nginx did not start: $(cat "$NGX"/*.err)"
	ok 1 "nginx started"
fi
done_testing
