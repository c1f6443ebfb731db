#!/bin/sh
# gt-sgf on Debian's goban-original-games (596 professional games, FF[3],
# /usr/share/goban): 591 records, and exactly the five recording errors of
# shared/data/goban-original-games.md reported with file, move and reason;
# gt-validate passes every record with only the result check relaxed
# (--allow-unscored-results). The package holds six games twice (two files
# with the same moves); five pairs have the same komi too, so one
# gt-validate run over all of them rejects the second copy of each as
# duplicate-game, and those five pass on their own (the sixth pair, M-67-1
# with komi 5 and its copy with komi 0, are two games to gt-validate, whose
# game key holds the komi). Then the round trip records -> SGF -> records,
# and the pipeline gt-sgf | gt-validate | gt-augment --all on a part of
# the set.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
G=/usr/share/goban
[ -d "$G" ] || skip_all "$G not found: install Debian's goban-original-games"
PY=/usr/bin/python3
export LC_ALL=C

gt-sgf "$G"/* > "$T/all.nd" 2> "$T/err"
is "$?" 1 "exit 1: some games were skipped"
is "$(wc -l < "$T/all.nd" | tr -d ' ')" 591 "591 records"
is "$(cat "$T/err")" "gt-sgf: $G/M-65-5.sgf: game 1, move 228 (W di): point occupied
gt-sgf: $G/M-77-1.mgt: game 1, move 177 (W hf): point occupied
gt-sgf: $G/M-77-2.mgt: game 1, move 138 (W qq): point occupied
gt-sgf: $G/M-77-4.mgt: game 1, move 150 (B an): point occupied
gt-sgf: $G/T-22-4.mgt: game 1, move 278 (B rp): point occupied" \
	"exactly the five recording errors reported, with file, move, colour, point and reason"

is "$(grep -c '"colors":"' "$T/all.nd"):$(grep -c '"score_checkable":false' "$T/all.nd"):$(grep -c '"ownership"' "$T/all.nd")" \
	"26:591:0" "26 games with two moves in a row by one colour; no RU, so none score_checkable; none ended by two passes"

gt-validate --allow-unscored-results --stats="$T/st1" --rejects "$T/rej" "$T/all.nd" > "$T/ok.nd"
is "$?:$(wc -l < "$T/ok.nd" | tr -d ' ')" "1:586" "gt-validate --allow-unscored-results: 586 pass"
$PY -c '
import json, sys
for l in open(sys.argv[1]):
    print(json.loads(l)["reason"])
' "$T/rej" | sort | uniq -c | tr -s ' ' > "$T/why"
is "$(cat "$T/why")" " 5 duplicate-game" "the 5 rejected are duplicate-game, nothing else"
# the second file of each pair in argument order, by game_id: the sha256 of
# the game's bytes (its first '(' to its last ')'), a NUL and "1"
$PY -c '
import hashlib, sys
for f in sys.argv[1:]:
    b = open(f, "rb").read()
    print(hashlib.sha256(b[b.index(b"("):b.rindex(b")") + 1] + b"\0" + b"1").hexdigest())
' $(for f in Hon-61-5.sgf Hon-70-2.sgf Hon-95-1.sgf Hon-95-2.sgf M-66-3.sgf; do
	echo "$G/$f"; done) | sort > "$T/want"
$PY -c '
import json, sys
for l in open(sys.argv[1]):
    print(json.loads(l)["game_id"])
' "$T/rej" | sort > "$T/got"
check "the duplicates are Hon-61-5 Hon-70-2 Hon-95-1 Hon-95-2 M-66-3.sgf (copies of earlier files)" \
	cmp -s "$T/want" "$T/got"
grep -F -f "$T/got" "$T/all.nd" > "$T/dups.nd"
gt-validate --allow-unscored-results --stats="$T/st2" "$T/dups.nd" > "$T/dups.ok"
is "$?:$(wc -l < "$T/dups.ok" | tr -d ' ')" "0:5" "the five duplicates pass gt-validate on their own"
# one position per move: 129,060 main-line moves in the 596 files, 128,082
# in the 591 good games (lib/sgf's goban test explains the figures)
pos() { sed 's/.*"positions":\([0-9]*\).*/\1/' "$1"; }
is "$(($(pos "$T/st1") + $(pos "$T/st2")))" 128082 "128082 positions passed gt-validate: every move of the 591 games"

# round trip: records -> SGF -> records keeps moves, colours, setup, komi,
# result (the first 100 games, to keep the test short)
head -n 100 "$T/all.nd" > "$T/some.nd"
gt-sgf --to-sgf "$T/some.nd" > "$T/all.sgf"
ok $? "--to-sgf: exit 0"
gt-sgf "$T/all.sgf" > "$T/back.nd"
ok $? "the SGF collection converts back, exit 0"
# the records back equal the originals but for game_id (a hash of the new
# file), sgf_rules and score_checkable (RU is now the replay ruleset)
strip() {
	sed 's/"sgf_rules":"[^"]*",//; s/"game_id":"[0-9a-f]*",//; s/"score_checkable":false,//' "$1"
}
strip "$T/some.nd" > "$T/k1"
strip "$T/back.nd" > "$T/k2"
is "$(wc -l < "$T/k2" | tr -d ' ')" 100 "100 records back"
check "round trip lossless: moves, colours, setup, komi, result, positions equal" cmp -s "$T/k1" "$T/k2"
is "$(grep -c '"sgf_rules":"chinese"' "$T/back.nd")" 100 "RU of the SGF written is the replay ruleset when the record had no sgf_rules"

# the pipeline of gt-sgf(1) on the Honinbo games of 1941-1943
set -- "$G"/Hon-4[0-3]*
gt-sgf "$@" | gt-validate --allow-unscored-results --stats="$T/stats.json" | gt-augment --all > "$T/pipe.nd"
ok $? "gt-sgf | gt-validate --allow-unscored-results | gt-augment --all: exit 0"
is "$(wc -l < "$T/pipe.nd" | tr -d ' ')" "$(($# * 8))" "the pipeline: 8 records for each of the $# games"
grep -q "\"records_in\":$#,\"records_out\":$#,\"rejected\":0" "$T/stats.json"
ok $? "the pipeline: --stats counts them, none rejected"
done_testing
