#!/bin/sh
# gt-sgf on the SGF edge cases of shared/data/sgf (EXPECTED.md there): moves,
# setup, komi and results as expected, every record passes gt-validate, bad
# games are reported with the file, game and move and the rest go on; the
# policies, values, scores and weights of the records; --to-sgf and the round
# trip records -> SGF -> records; options and exit status.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
S=$GT_SRC/../shared/data/sgf
[ -d "$S" ] || skip_all "$S not found (CI clones shared/ beside the repository)"
PY=/usr/bin/python3

# fields: moves, komi, result, setup, first player, colours, sgf_rules
fields() {
	$PY -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    s = r.get("setup", {})
    print(" ".join(r["moves"]), "|", r["komi"], "|", r["result"], "|", r["winner"], "|",
          ",".join(s.get("B", [])), "|", ",".join(s.get("W", [])), "|",
          r.get("first_to_move", "B"), "|", r.get("colors", ""), "|", r.get("sgf_rules", ""))
' "$1"
}

# one file: converts with exit 0, gives $2 (fields of each record), and every
# record passes gt-validate (results that area scoring cannot check allowed)
conv() {
	f=$1; want=$2
	gt-sgf "$S/$f" > "$T/$f.nd" 2> "$T/$f.err"
	is "$?:$(wc -c < "$T/$f.err" | tr -d ' ')" "0:0" "$f: exit 0, nothing on stderr"
	is "$(fields "$T/$f.nd")" "$want" "$f: moves, komi, result, setup, colours as expected"
	# one record at a time: results.sgf holds one game (E5) five times
	npass=0
	while IFS= read -r line; do
		printf '%s\n' "$line" | gt-validate --allow-unscored-results --min-moves 0 > /dev/null 2>> "$T/$f.verr" &&
			npass=$((npass + 1))
	done < "$T/$f.nd"
	is "$npass" "$(wc -l < "$T/$f.nd" | tr -d ' ')" "$f: every record passes gt-validate"
}

conv pass-tt-19.sgf "Q16 D4 Q4 D16 pass R14 pass pass | 6.5 | W+R | W |  |  | B |  | "
conv pass-empty-9.sgf "E5 C7 pass pass | 0 | 0 | draw |  |  | B |  | Chinese"
conv no-sz.sgf "D16 Q4 D4 Q16 | 7.5 | B+R | B |  |  | B |  | "
conv handicap-4.sgf "R14 O17 K10 C10 | 0.5 | B+12.5 | B | D16,Q16,D4,Q4 |  | W |  | Chinese"
conv compressed-points.sgf "E5 D6 | 7.5 | ? | ? | A9,B9,C9,A8,B8,C8 | G3,H3,J3,G2,H2,J2,G1,H1,J1 | B |  | "
conv escapes.sgf "E5 G7 | 7.5 | ? | ? |  |  | B |  | "
conv empty-nodes-crlf.sgf "E5 C7 G3 | 7.5 | ? | ? |  |  | B |  | "
conv variations.sgf "E5 C7 G3 G7 C3 | 7.5 | B+3.5 | B |  |  | B |  | "
conv fox-komi-x50.sgf "Q16 D16 | 7.5 | B+R | B |  |  | B |  | "
conv shiftjis-names-no-ca.sgf "Q16 D16 Q3 | 6.5 | W+R | W |  |  | B |  | "
conv markup-last-node.sgf "E5 C7 pass pass | 7.5 | W+7.5 | W |  |  | B |  | "
conv results.sgf "E5 | 7.5 | B+ | B |  |  | B |  | 
E5 | 7.5 | ? | ? |  |  | B |  | 
E5 | 7.5 | ? | ? |  |  | B |  | 
E5 | 7.5 | W+T | W |  |  | B |  | 
E5 | 7 | 0 | draw |  |  | B |  | "

# results that area scoring checks: the draw of pass-empty-9 (RU[Chinese]),
# and markup-last-node (no RU) when --rules says it was played by area
gt-validate --min-moves 0 "$T/pass-empty-9.sgf.nd" > "$T/v" 2> "$T/verr"
is "$?:$(wc -l < "$T/v" | tr -d ' ')" "0:1" "pass-empty-9: RE[0] checked by area scoring (no --allow-unscored-results)"
grep -q '"score_checkable":false' "$T/markup-last-node.sgf.nd"
ok $? "markup-last-node: no RU, so the result is not score_checkable"
gt-sgf --rules chinese "$S/markup-last-node.sgf" > "$T/mk.nd"
gt-validate --min-moves 0 "$T/mk.nd" > "$T/v" 2> "$T/verr"
is "$?:$(wc -l < "$T/v" | tr -d ' ')" "0:1" "markup-last-node --rules chinese: W+7.5 confirmed by area scoring, ownership too"
grep -q '"ownership":\[' "$T/mk.nd"
ok $? "a game ended by two passes has the final ownership"
grep -q '"ownership"' "$T/variations.sgf.nd"
ok "$(test $? -ne 0; echo $?)" "a game not ended by two passes has none"
grep -q '"score_checkable":false' "$T/handicap-4.sgf.nd"
ok $? "handicap-4: RU[Chinese] but a handicap game: not score_checkable"

# positions: policy one-hot on the move, value and score from the side to
# move, weight 0 when the result is unknown
$PY -c '
import json, sys
bad = []
def cols(r):
    return r.get("colors") or "".join("BW"[(i + (r.get("first_to_move") == "W")) % 2] for i in range(len(r["moves"])))
for f in sys.argv[1:]:
    for k, l in enumerate(open(f)):
        r = json.loads(l); n = r["board_size"]; c = cols(r)
        if r["model"] != "human" or r["worker"] != "sgf" or len(r["game_id"]) != 64:
            bad.append("%s %d: model/worker/game_id" % (f, k))
        if len(r["positions"]) != len(r["moves"]):
            bad.append("%s %d: positions" % (f, k))
        for i, p in enumerate(r["positions"]):
            m = r["moves"][i]
            if m == "pass":
                at = n * n
            else:
                x = "ABCDEFGHJKLMNOPQRST".index(m[0]); y = n - int(m[1:]); at = y * n + x
            pol = p["policy"]
            if len(pol) != n * n + 1 or pol[at] != 1 or sum(pol) != 1:
                bad.append("%s %d pos %d: policy" % (f, k, i))
            if p["move_number"] != i or p["to_move"] != c[i] or p["visits"] != 0 or not p["full_search"]:
                bad.append("%s %d pos %d: fields" % (f, k, i))
            w = r["winner"]
            if w == "?":
                if p.get("weight") != 0 or "value" in p or "score" in p:
                    bad.append("%s %d pos %d: unknown result not weight 0" % (f, k, i))
                continue
            if p.get("weight", 1) != 1:
                bad.append("%s %d pos %d: weight" % (f, k, i))
            v = 0 if w == "draw" else (1 if w == p["to_move"] else -1)
            if p["value"] != v:
                bad.append("%s %d pos %d: value" % (f, k, i))
            if "score" in r:
                s = r["score"] if p["to_move"] == "B" else -r["score"]
                if abs(p["score"] - s) > 1e-6:
                    bad.append("%s %d pos %d: score" % (f, k, i))
            elif "score" in p:
                bad.append("%s %d pos %d: score without a game score" % (f, k, i))
print("\n".join(bad))
' "$T"/*.sgf.nd > "$T/pos"
is "$(cat "$T/pos")" "" "every position: one-hot policy, to_move, value and score for the side to move, weight 0 for unknown results"
is "$(grep -c '"score":-7.5,"score_checkable":false' "$T/markup-last-node.sgf.nd")" 1 "markup-last-node: game score -7.5 (Black's view)"

# game_id: sha256 of the game's own bytes ('(' to ')', here line 4 of the
# file), a NUL and the game number
want=$( (sed -n 4p "$S/results.sgf" | tr -d '\n'; printf '\0004') | sha256sum | cut -c1-64)
got=$(sed -n 4p "$T/results.sgf.nd" | sed 's/.*"game_id":"\([0-9a-f]*\)".*/\1/')
is "$got" "$want" "game_id of game 4 is sha256(its bytes, NUL, \"4\")"
gt-sgf < "$S/results.sgf" > "$T/stdin.nd"
check "stdin gives the same records as the file" cmp -s "$T/stdin.nd" "$T/results.sgf.nd"

# bad games: reported with file, game, move and reason; the others go on
gt-sgf "$S/collection-two-broken.sgf" > "$T/c.nd" 2> "$T/c.err"
is "$?" 1 "collection-two-broken: exit 1 (games were skipped)"
is "$(fields "$T/c.nd")" "E5 C7 G3 | 7.5 | B+R | B |  |  | B |  | 
E5 C7 G3 G7 | 7.5 | W+2.5 | W |  |  | B |  | " "collection-two-broken: the 1st and 4th games come out"
is "$(cat "$T/c.err")" "gt-sgf: $S/collection-two-broken.sgf: game 2, move 2 (W ee): point occupied
gt-sgf: $S/collection-two-broken.sgf: game 3: move 3 (B zz): off the board" \
	"collection-two-broken: games 2 and 3 reported with file, game, move and reason"
gt-sgf "$S/rect-9x13.sgf" > "$T/r.nd" 2> "$T/r.err"
is "$?:$(wc -c < "$T/r.nd" | tr -d ' ')" "1:0" "rect-9x13: exit 1, no record"
is "$(cat "$T/r.err")" "gt-sgf: $S/rect-9x13.sgf: game 1: unsupported board size 9x13" \
	"rect-9x13: a clean error naming the file"
gt-sgf "$S/ss-on-18.sgf" > "$T/s.nd" 2> "$T/s.err"
is "$?:$(cat "$T/s.err")" "1:gt-sgf: $S/ss-on-18.sgf: game 1: move 2 (W ss): off the board" "ss-on-18: off the board"
gt-sgf "$S/rect-9x13.sgf" "$S/variations.sgf" "$T/nonexistent.sgf" > "$T/m.nd" 2> "$T/m.err"
is "$?:$(wc -l < "$T/m.nd" | tr -d ' '):$(wc -l < "$T/m.err" | tr -d ' ')" "1:1:2" \
	"a bad file and a missing one are reported, the good one between them converted"
printf 'no game here\n' > "$T/none.sgf"
gt-sgf "$T/none.sgf" > /dev/null 2> "$T/n.err"
is "$?:$(cat "$T/n.err")" "1:gt-sgf: $T/none.sgf: no SGF game found" "a file without a game"

# --rules: the replay ruleset; RU kept in sgf_rules
gt-sgf --rules new-zealand "$S/handicap-4.sgf" > "$T/nz.nd"
grep -q '"rules":"new-zealand","sgf_rules":"Chinese"' "$T/nz.nd"
ok $? "--rules new-zealand overrides RU[Chinese], which stays in sgf_rules"
for ru in Japanese Korean AGA "New Zealand" Tromp-Taylor "Ing SST" Chinese Whatever; do
	printf '(;GM[1]FF[4]SZ[9]KM[7.5]RU[%s]RE[B+0.5];B[ee];W[cc];B[];W[])' "$ru" > "$T/ru.sgf"
	gt-sgf "$T/ru.sgf" | sed 's/.*"rules":"\([a-z-]*\)".*"score_checkable":\(false\).*/\1 \2/; s/.*"rules":"\([a-z-]*\)".*/\1 true/'
done > "$T/rules"
is "$(tr '\n' ',' < "$T/rules")" "chinese false,chinese false,chinese true,new-zealand true,tromp-taylor true,new-zealand true,chinese true,chinese false," \
	"RU mapping: Japanese Korean AGA NZ Tromp-Taylor Ing Chinese unknown -> rules and score_checkable"

# RU bytes that are not UTF-8 and control bytes: sgf_rules stays valid JSON
printf '(;GM[1]FF[4]SZ[9]KM[7.5]RU[\202\261\tJapanese\377]RE[W+R];B[ee];W[cc];B[gg];W[gc])' > "$T/ru8.sgf"
gt-sgf "$T/ru8.sgf" > "$T/ru8.nd"
grep -q '"sgf_rules":"?? Japanese?"' "$T/ru8.nd"
ok $? "RU not UTF-8: bytes become ?, a tab a space"
gt-validate --allow-unscored-results --min-moves 0 "$T/ru8.nd" > /dev/null
ok $? "RU not UTF-8: the record passes gt-validate"
# one colour twice in a row: colours kept, replayed as written
printf '(;GM[1]FF[4]SZ[9]KM[7.5]RE[B+R];B[ee];B[cc];W[gg];B[gc];W[cg])' > "$T/bb.sgf"
gt-sgf "$T/bb.sgf" > "$T/bb.nd"
is "$(fields "$T/bb.nd")" "E5 C7 G3 G7 C3 | 7.5 | B+R | B |  |  | B | BBWBW | " "two black moves in a row: colors BBWBW"
gt-validate --allow-unscored-results --min-moves 0 "$T/bb.nd" > /dev/null
ok $? "two black moves in a row: passes gt-validate"
# a komi the record format cannot hold
printf '(;GM[1]FF[4]SZ[5]KM[30.5];B[cc])' > "$T/km.sgf"
gt-sgf "$T/km.sgf" > "$T/km.nd" 2> "$T/km.err"
is "$?:$(cat "$T/km.err")" "1:gt-sgf: $T/km.sgf: game 1: komi 30.5 out of range for 5x5" "komi above N*N: reported, skipped"

# records -> SGF -> records: moves, colours, setup, komi, result kept
cat "$T"/*.sgf.nd "$T/bb.nd" > "$T/all.nd"
gt-sgf --to-sgf "$T/all.nd" > "$T/all.sgf"
ok $? "--to-sgf: exit 0"
is "$(grep -c '^(;GM\[1\]FF\[4\]' "$T/all.sgf")" "$(wc -l < "$T/all.nd" | tr -d ' ')" "--to-sgf: one game per record, a collection on stdout"
gt-sgf "$T/all.sgf" > "$T/back.nd"
ok $? "the collection converts back, exit 0"
fields "$T/all.nd" | cut -d'|' -f1-8 > "$T/f1"
fields "$T/back.nd" | cut -d'|' -f1-8 > "$T/f2"
check "round trip: moves, komi, result, winner, setup, first player, colours equal" cmp -s "$T/f1" "$T/f2"
grep -q 'HA\[4\]' "$T/all.sgf" && grep -q 'AB\[dd\]\[pd\]\[dp\]\[pp\]PL\[W\]' "$T/all.sgf"
ok $? "--to-sgf: handicap written as HA, AB and PL"
grep -q 'PB\[human\]PW\[human\]' "$T/all.sgf" && grep -q 'RU\[Chinese\]' "$T/all.sgf"
ok $? "--to-sgf: PB and PW from model, RU from sgf_rules"

# -o DIR: one file per game named by game_id
mkdir "$T/out"
gt-sgf --to-sgf -o "$T/out" "$T/all.nd"
ok $? "-o: exit 0"
is "$(ls "$T/out" | wc -l | tr -d ' ')" "$(wc -l < "$T/all.nd" | tr -d ' ')" "-o: one file per game (no temporary files left)"
id=$(sed -n 1p "$T/all.nd" | sed 's/.*"game_id":"\([0-9a-f]*\)".*/\1/')
gt-sgf "$T/out/$id.sgf" | fields /dev/stdin > "$T/one"
is "$(cat "$T/one" | cut -d'|' -f1-8)" "$(sed -n 1p "$T/f1")" "-o: the file named by the first game_id holds that game"
gt-augment --symmetry 3 "$T/variations.sgf.nd" | gt-sgf --to-sgf -o "$T/out"
ok "$(test -f "$T/out/$(sed 's/.*"game_id":"\([0-9a-f]*\)".*/\1/' "$T/variations.sgf.nd")-s3.sgf"; echo $?)" "-o: a symmetry other than 0 is in the name"
printf '%s\n' '{"version":1,"rules":"chinese","komi":7.5,"board_size":9,"game_id":"../evil","moves":["E5"],"result":"?","winner":"?"}' |
	gt-sgf --to-sgf -o "$T/out" 2> "$T/e"
ok "$(test $? -eq 0 && ! test -e "$T/evil.sgf" && test "$(ls "$T/out" | wc -l)" -eq "$(($(wc -l < "$T/all.nd") + 2))"; echo $?)" \
	"-o: a game_id that is not a plain name is replaced by the record's sha256"
printf '{"version":1\n' | gt-sgf --to-sgf > "$T/o" 2> "$T/e"
is "$?:$(cut -c1-12 "$T/e")" "1:gt-sgf: -:1:" "--to-sgf: a bad record is reported with its line, exit 1"

# options
gt-sgf --rules japanese < /dev/null 2> /dev/null
is $? 2 "--rules with an unsupported name: exit 2"
gt-sgf -o "$T" < /dev/null 2> /dev/null
is $? 2 "-o without --to-sgf: exit 2"
gt-sgf --bogus < /dev/null 2> /dev/null
is $? 2 "an unknown option: exit 2"
gt-sgf --version | grep -q '^gt-sgf [0-9]'
ok $? "--version"
gt-sgf -h | grep -q '^usage: gt-sgf'
ok $? "-h"
done_testing
