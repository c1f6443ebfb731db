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
head -c 5000 /dev/urandom > "$T/m.bin.gz"
MS=$(sha256sum "$T/m.bin.gz" | cut -d' ' -f1)
gt-sync put "$T/m.bin.gz" "$S/models/run1-s100.bin.gz"
printf '{"name":"run1-s100.bin.gz","sha256":"%s","bytes":5000,"steps":100}\n' "$MS" |
	gt-sync put --overwrite - "$S/models/latest.json"
P=$(gt-sync latest "file://$S" "$T/inst")
is "$P" "$T/inst/run1-s100.bin.gz" "latest prints the installed path"
cmp -s "$T/m.bin.gz" "$P"; ok $? "and installs the model"

# usage
gt-sync frob 2>/dev/null; is $? 2 "unknown verb is a usage error"
gt-sync --retries x ls "$S" 2>/dev/null; is $? 2 "a bad number is a usage error"
gt-sync pull "$S/games/" 2>/dev/null; is $? 2 "pull without --state is a usage error"
gt-sync ls "s3://bucket/games/" 2>"$T/err"; is $? 1 "s3:// is not supported yet"
is "$(gt-sync --version)" "gt-sync 0.1.0" "--version"
done_testing
