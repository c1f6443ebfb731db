#!/bin/sh
# gt-sync against local stores: a plain folder and a file:// URL.
. "${GT_SRC:-.}/tests/cmd/tap.sh"

S=$T/store
mkdir -p "$S" "$T/w"
printf '{"game_id":"a1"}\n{"game_id":"a2"}\n' | gzip > "$T/w/alice-1-aa.ndjson.gz"
printf '{"game_id":"b1"}\n' > "$T/w/bob-1-bb.ndjson"
SHA=$(sha256sum "$T/w/alice-1-aa.ndjson.gz" | cut -d' ' -f1)

for U in "$S" "file://$S"; do
	rm -rf "$S"; mkdir -p "$S"
	diag "store $U"
	gt-sync put "$T/w/alice-1-aa.ndjson.gz" "$U/games/" 2>"$T/err"
	ok $? "put into a folder URL creates games/ ($U)"
	cmp -s "$T/w/alice-1-aa.ndjson.gz" "$S/games/alice-1-aa.ndjson.gz"; ok $? "the object has the same bytes"
	gt-sync put "$T/w/alice-1-aa.ndjson.gz" "$U/games/alice-1-aa.ndjson.gz" 2>"$T/err"
	ok $? "same bytes under the same name again succeeds"
	gt-sync put "$T/w/bob-1-bb.ndjson" "$U/games/alice-1-aa.ndjson.gz" 2>"$T/err"
	is $? 1 "different bytes under an existing name fail"
	grep -q immutable "$T/err"; ok $? "and say why: $(cat "$T/err")"
	cmp -s "$T/w/alice-1-aa.ndjson.gz" "$S/games/alice-1-aa.ndjson.gz"; ok $? "the stored object is unchanged"
	gt-sync put - "$U/games/bob-1-bb.ndjson" < "$T/w/bob-1-bb.ndjson"; ok $? "put from stdin"
	echo '{"name":"x"}' | gt-sync put --overwrite - "$U/models/latest.json"
	echo '{"name":"y"}' | gt-sync put --overwrite - "$U/models/latest.json"
	is "$(cat "$S/models/latest.json")" '{"name":"y"}' "--overwrite replaces a pointer file"
	is "$(ls -A "$S/games" | wc -l)" 2 "no temporary files left in the store"

	gt-sync ls "$U/games/" > "$T/ls" 2>"$T/err"
	is "$(cat "$T/ls" | wc -l)" 2 "ls lists both objects"
	is "$(head -1 "$T/ls" | sed 's/"time":"[^"]*"/T/')" \
		"{\"name\":\"alice-1-aa.ndjson.gz\",\"bytes\":$(stat -c %s "$T/w/alice-1-aa.ndjson.gz"),T}" "ls line: name, bytes, time"

	rm -rf "$T/dl"; mkdir -p "$T/dl"
	gt-sync get --sha256 "$SHA" "$U/games/alice-1-aa.ndjson.gz" "$T/dl/" 2>"$T/err"
	ok $? "get into a folder with the right sha256"
	cmp -s "$T/w/alice-1-aa.ndjson.gz" "$T/dl/alice-1-aa.ndjson.gz"; ok $? "downloaded bytes are right"
	gt-sync get --sha256 0000000000000000000000000000000000000000000000000000000000000000 \
		"$U/games/bob-1-bb.ndjson" "$T/dl/bob" 2>"$T/err"
	is $? 1 "a wrong sha256 fails"
	grep -q "sha256" "$T/err"; ok $? "and says why: $(cat "$T/err")"
	is "$(ls -A "$T/dl")" "alice-1-aa.ndjson.gz" "nothing installed, no temporary file left"
	gt-sync get --bytes 3 "$U/games/bob-1-bb.ndjson" "$T/dl/bob" 2>"$T/err"
	is $? 1 "a wrong size fails"
	[ ! -e "$T/dl/bob" ]; ok $? "and installs nothing"
	is "$(gt-sync get "$U/games/bob-1-bb.ndjson" -)" '{"game_id":"b1"}' "get to stdout"
	gt-sync get "$U/games/none.ndjson" "$T/dl/none" 2>"$T/err"
	is $? 1 "a missing object fails"
	[ ! -e "$T/dl/none" ] && [ ! -e "$T/dl/.none.part" ]; ok $? "and leaves nothing behind"

	rm -f "$T/state"
	gt-sync pull "$U/games/" --state "$T/state" > "$T/out" 2>"$T/err"
	ok $? "pull"
	is "$(cat "$T/out" | tr '\n' ' ')" '{"game_id":"a1"} {"game_id":"a2"} {"game_id":"b1"} ' "pull: every record, in name order"
	is "$(cat "$T/state" | tr '\t\n' ': ')" "alice-1-aa.ndjson.gz:ok bob-1-bb.ndjson:ok " "state lists both"
	gt-sync pull "$U/games/" --state "$T/state" > "$T/out2"
	is "$(wc -c < "$T/out2")" 0 "a second pull delivers nothing again"
done

# a file name with a newline in a local store is refused, not listed
printf 'x\n' > "$S/games/ok
name.ndjson"
gt-sync ls "$S/games/" > "$T/ls" 2>"$T/err"
is "$(wc -l < "$T/ls")" 2 "a local name with a newline is not listed"
grep -q 'refusing listed name "ok\\nname.ndjson"' "$T/err"; ok $? "and is reported on stderr"

# latest from a local store
mkdir -p "$S/models"
gt-model init b1c8 --seed 1 -o "$T/m.bin.gz"
MS=$(sha256sum "$T/m.bin.gz" | cut -d' ' -f1)
gt-sync put "$T/m.bin.gz" "$S/models/run1-s100.bin.gz"
MB=$(stat -c %s "$T/m.bin.gz")
rm -f "$S/models/latest.json"
gt-sync latest --or-none --selfplay-args "$T/args" "file://$S" "$T/inst" > "$T/out"
ok $? "latest --or-none with nothing published"
is "$(cat "$T/out")" none "prints none"
is "$(cat "$T/args" 2>&1)" "" "and writes empty self-play options"
gt-sync latest "file://$S" "$T/inst" > /dev/null 2>"$T/err"
is $? 1 "without --or-none nothing published is a failure"
grep -q "nothing published yet" "$T/err"; ok $? "and says nothing is published yet"
printf '{"name":"run1-s100.bin.gz","sha256":"%s","bytes":%d,"steps":100,"selfplay":{"visits":300,"board_size":7,"komi":7.5,"rules":"tromp-taylor"}}\n' "$MS" "$MB" |
	gt-sync put --overwrite - "$S/models/latest.json"
P=$(gt-sync latest --or-none --selfplay-args "$T/args" "file://$S" "$T/inst")
is "$P" "$T/inst/run1-s100.bin.gz" "latest prints the installed path"
cmp -s "$T/m.bin.gz" "$P"; ok $? "and installs the model"
is "$(cat "$T/args")" "--board-size 7 --komi 7.5 --rules tromp-taylor --visits 300" "--selfplay-args: the published settings as gt-selfplay options"
for bad in '"visits":0' '"visits":"300"' '"rules":"x;rm"' '"threads":4' '"komi":"7.5"'; do
	printf '{"name":"run1-s100.bin.gz","sha256":"%s","bytes":%d,"selfplay":{%s}}\n' "$MS" "$MB" "$bad" |
		gt-sync put --overwrite - "$S/models/latest.json"
	echo keep > "$T/args"
	gt-sync latest --selfplay-args "$T/args" "file://$S" "$T/inst" > /dev/null 2>"$T/err"
	is $? 1 "a bad setting $bad is refused: $(cat "$T/err")"
	is "$(cat "$T/args")" keep "and the options file is left alone"
done

# a model that lib/model cannot read is refused and not installed
head -c 3000 "$T/m.bin.gz" > "$T/bad.bin.gz"
gt-sync put "$T/bad.bin.gz" "$S/models/run1-s200.bin.gz"
printf '{"name":"run1-s200.bin.gz","sha256":"%s","bytes":3000}\n' "$(sha256sum "$T/bad.bin.gz" | cut -d' ' -f1)" |
	gt-sync put --overwrite - "$S/models/latest.json"
gt-sync latest "file://$S" "$T/inst" > "$T/out" 2>"$T/err"
is $? 1 "latest refuses a corrupt model whose sha256 and size match the pointer"
grep -q "not a valid model" "$T/err"; ok $? "saying why: $(cat "$T/err")"
[ ! -e "$T/inst/run1-s200.bin.gz" ] && [ ! -e "$T/inst/.run1-s200.bin.gz.part" ]; ok $? "and installs nothing"

# contributions: per-worker counts accumulated across generations, once each
printf '%s\n' '{"worker":"alice","positions":[{},{}]}' '{"worker":"bob","positions":[{}]}' \
	'{"worker":"alice","positions":[{},{},{}]}' > "$T/acc"
printf '{"records_in":5,"rejected":2,"rejects_by_worker":{"bob":1,"mallory":1}}\n' > "$T/vstats"
gt-sync contrib "file://$S" g1 "$T/acc" "$T/vstats" > "$T/out"; ok $? "contrib"
is "$(cat "$T/out")" '{"generation":"g1","workers":{"alice":{"games":2,"positions":5},"bob":{"games":1,"positions":1,"rejected":1},"mallory":{"rejected":1}}}' "prints the generation's counts"
gt-sync contrib "file://$S" g1 "$T/acc" "$T/vstats" > "$T/out"; ok $? "the same generation again"
grep -q '"counted_before":true' "$T/out"; ok $? "is not counted twice"
gt-sync contrib "$S" g2 - < "$T/acc" > "$T/out"; ok $? "a second generation from stdin"
c() { python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["workers"]; print(" ".join("%s:%d/%d/%d/%d" % (k, v["games"], v["positions"], v["rejected"], v["generations"]) for k, v in sorted(w.items())))' "$S/stats/contributions.json"; }
is "$(c)" "alice:4/10/0/2 bob:2/2/1/2 mallory:0/0/1/1" "STORE/stats/contributions.json accumulates games/positions/rejected/generations"
is "$(ls -A "$S/stats")" contributions.json "no temporary files left"
echo 'not json' > "$T/acc2"
gt-sync contrib "$S" g3 "$T/acc2" > /dev/null 2>"$T/err"
is $? 1 "a bad record line fails"
is "$(c)" "alice:4/10/0/2 bob:2/2/1/2 mallory:0/0/1/1" "and changes nothing"

# usage
gt-sync frob 2>/dev/null; is $? 2 "unknown verb is a usage error"
gt-sync --retries x ls "$S" 2>/dev/null; is $? 2 "a bad number is a usage error"
gt-sync pull "$S/games/" 2>/dev/null; is $? 2 "pull without --state is a usage error"
gt-sync ls "s3://bucket/games/" 2>"$T/err"; is $? 1 "s3:// is not supported yet"
is "$(gt-sync --version)" "gt-sync 0.1.0" "--version"
done_testing
