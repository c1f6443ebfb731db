#!/bin/sh
# Territory scoring (Japanese and Korean rules, as KataGo names them) in
# gt-gtp and gt-analyze: final_score and final_status_list seki on
# hand-worked 9x9 positions, each also fed to GNU Go 3.8 --japanese-rules
# by the same play commands (so the prisoners agree) when it is installed;
# kata-get-rules/kata-set-rules and kgs-rules name the ruleset; gt-analyze
# takes "japanese" and "korean" without a warning and KataGo's JSON rules.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-gtp >/dev/null || skip_all "gt-gtp not built"
PY=/usr/bin/python3
gnugo=$(command -v gnugo || ls /usr/games/gnugo 2>/dev/null)
[ -n "$gnugo" ] || diag "gnugo not installed: the hand-worked values only"

# answer N of a GTP transcript (blank-line separated), without "= "
ans() { awk -v n="$2" 'BEGIN { RS = "" } NR == n { sub(/^= ?/, ""); print }' "$1"; }

# Position A: prisoners (White A9 taken by B9 and A8; Black H5 taken by
# H4 H6 G5 J5), two passes in the middle (the game goes on, the prisoners
# must stay), a dead white pair B5 B4 in Black's area, a dame at E9.
#    A B C D E F G H J
#  9 . X . X . O . . .     Black: A-C hold 27 points less B9 A8 = 25 of
#  8 X . . X O O . . .     territory (A9, B5, B4 among them) and 3
#  7 . . . X O . . . .     prisoners (A9, B5, B4) = 28.
#  6 . . . X O . . O .     White: F1-F7 and G-J = 34 points less H4 H6
#  5 . O . X O . O . O     G5 J5 = 30 (H5 among them) and 1 prisoner
#  4 . O . X O . . O .     (H5) = 31, komi 6.5: 37.5.
#  3 . . . X O . . . .     E9 is dame.
#  2 . . . X O . . . .     W+9.5 (by area it would be W+14.5).
#  1 . . . X O . . . .
{
	echo "boardsize 9"; echo "komi 6.5"
	for m in "w A9" "b B9" "b A8" "b H5" "w H4" "w H6" "w G5" "w J5" "b pass" "w pass" \
		"b D1" "b D2" "b D3" "b D4" "b D5" "b D6" "b D7" "b D8" "b D9" "w E1" "w E2" "w E3" \
		"w E4" "w E5" "w E6" "w E7" "w E8" "w F9" "w F8" "w B5" "w B4"; do
		echo "play $m"
	done
} >"$T/a"
# Position C: a seki in the top left. White B9 A8 B8 C8 (eye A9) and Black
# D9 D8 D7 C7 B7 A7 E8 F8 F9 (eye E9) share C9, which neither may fill
# (each would be left with its eye alone and captured); White's wall A6-E6
# E7 F7 G7 G8 G9 holds the rest. Seki points are no one's: White's
# territory is the 55 other empty points, komi 6.5: W+61.5 (by area, with
# both eyes and the stones, W+66.5).
{
	echo "boardsize 9"; echo "komi 6.5"
	for m in "w B9" "w A8" "w B8" "w C8" "b D9" "b D8" "b D7" "b C7" "b B7" "b A7" "b E8" \
		"b F8" "b F9" "w A6" "w B6" "w C6" "w D6" "w E6" "w E7" "w F7" "w G7" "w G8" "w G9"; do
		echo "play $m"
	done
} >"$T/c"

# the last 3 answers: dead stones, seki stones (sorted), score
tail3() { # tail3 FILE
	_k=$(awk 'BEGIN { RS = "" } END { print NR }' "$1")
	for _i in $((_k - 2)) $((_k - 1)) $_k; do
		ans "$1" $_i | tr ' \n' '\n\n' | grep . | sort | tr '\n' ' ' | sed 's/ $//'
		echo
	done
}
for pos in a c; do
	{ cat "$T/$pos"; echo "final_status_list dead"; echo "final_status_list seki"; echo final_score; } >"$T/$pos.in"
	gt-gtp --model none --rules japanese <"$T/$pos.in" >"$T/$pos.gt" 2>"$T/err"
	ok $? "position $pos: gt-gtp --rules japanese answers"
	tail3 "$T/$pos.gt" >"$T/$pos.got"
	if [ -n "$gnugo" ]; then
		timeout 60 "$gnugo" --mode gtp --japanese-rules <"$T/$pos.in" >"$T/$pos.gg" 2>&1
		tail3 "$T/$pos.gg" >"$T/$pos.want"
		cmp -s "$T/$pos.got" "$T/$pos.want"
		ok $? "position $pos: dead, seki and score as GNU Go's: $(tr '\n' '|' <"$T/$pos.want")"
	fi
done
is "$(sed -n 1p "$T/a.got")" "B4 B5" "A: B5 B4 dead"
is "$(sed -n 3p "$T/a.got")" "W+9.5" "A: W+9.5 by hand (prisoners across the passes, a dead pair, dame)"
is "$(sed -n 1p "$T/c.got")" "" "C: nothing dead"
is "$(sed -n 2p "$T/c.got")" "A7 A8 B7 B8 B9 C7 C8 D7 D8 D9 E8 F8 F9" "C: both seki groups"
is "$(sed -n 3p "$T/c.got")" "W+61.5" "C: W+61.5 by hand (seki eyes and the shared point not counted)"

# the same games by area, and the ruleset named as KataGo and KGS name it
{ cat "$T/a"; echo "kata-set-rules chinese"; echo final_score; echo "kata-get-rules";
  echo "kata-set-rules korean"; echo final_score; echo "kata-get-rules";
  echo 'kata-set-rules {"ko":"SIMPLE","scoring":"TERRITORY","suicide":false,"tax":"SEKI"}'; echo "kgs-rules chinese";
  echo 'kata-set-rules {"ko":"SIMPLE","scoring":"TERRITORY","suicide":false,"tax":"NONE"}';
  echo "kgs-rules japanese"; echo final_score; } >"$T/r.in"
gt-gtp --model none <"$T/r.in" >"$T/r.out" 2>"$T/err"
k=$(awk 'BEGIN { RS = "" } END { print NR }' "$T/r.out")
is "$(ans "$T/r.out" $((k - 9)))" "W+14.5" "A by area (chinese): W+14.5"
ans "$T/r.out" $((k - 8)) | grep -q '"scoring":"AREA".*"tax":"NONE"'
ok $? "kata-get-rules: AREA, tax NONE"
is "$(ans "$T/r.out" $((k - 6)))" "W+9.5" "kata-set-rules korean: W+9.5 again, the game kept"
ans "$T/r.out" $((k - 5)) | grep -q '"friendlyPassOk":false,"hasButton":false,"ko":"SIMPLE","scoring":"TERRITORY","suicide":false,"tax":"SEKI"'
ok $? "kata-get-rules: KataGo's japanese ($(ans "$T/r.out" $((k - 5))))"
is "$(ans "$T/r.out" $((k - 4)))" "" "kata-set-rules with KataGo's JSON of japanese"
is "$(awk 'BEGIN { RS = "" } { r[NR] = $0 } END { print r[NR - 2] }' "$T/r.out")" \
	"? rules not supported: only tax SEKI with TERRITORY scoring" "territory with tax NONE is refused"
is "$(ans "$T/r.out" $k)" "W+9.5" "kgs-rules japanese: territory"

# gt-analyze: japanese and korean without a warning, KataGo's JSON rules;
# a game that ended (two passes) scores the search's terminal by territory
command -v gt-analyze >/dev/null || { done_testing; exit; }
q='"moves":[["W","A9"],["B","B9"],["B","A8"]],"komi":6.5,"boardXSize":9,"boardYSize":9,"maxVisits":8'
{ echo "{\"id\":\"j\",\"rules\":\"japanese\",$q}"; echo "{\"id\":\"k\",\"rules\":\"korean\",$q}";
  echo "{\"id\":\"o\",\"rules\":{\"ko\":\"SIMPLE\",\"scoring\":\"TERRITORY\",\"suicide\":false,\"tax\":\"SEKI\"},$q}";
  echo "{\"id\":\"x\",\"rules\":{\"ko\":\"POSITIONAL\",\"scoring\":\"TERRITORY\",\"suicide\":false},$q}"; } |
	gt-analyze --model none >"$T/an" 2>"$T/err"
is $? 1 "gt-analyze: exit 1, one query answered with an error"
is "$(grep -c '"warning"' "$T/an")" 0 "no warning for japanese, korean or KataGo's JSON"
is "$(grep -c '"rootInfo"' "$T/an")" 3 "three analyses"
grep -q '"id":"x".*"error":"rules not supported: no ruleset' "$T/an"
ok $? "territory with positional superko: an error naming why"
# the search scores a finished game by the rules: on 2x2, White A2 is
# taken by B2 and A1, White passes; Black's pass ends the game with
# Black's 2 points of territory and 1 prisoner against komi 0.5: 2.5 (by
# area 4 points: 3.5)
for r in japanese chinese; do
	echo "{\"id\":\"$r\",\"rules\":\"$r\",\"komi\":0.5,\"boardXSize\":2,\"boardYSize\":2,\"maxVisits\":20,\"moves\":[[\"W\",\"A2\"],[\"B\",\"B2\"],[\"B\",\"A1\"],[\"W\",\"pass\"]]}"
done | gt-analyze --model none >"$T/an2" 2>"$T/err"
ok $? "gt-analyze on a 2x2 game"
passlead() { grep "\"id\":\"$1\"" "$T/an2" | $PY -c 'import json,sys; d=json.loads(sys.stdin.readline()); print([abs(m["scoreLead"]) for m in d["moveInfos"] if m["move"]=="pass"][0])'; }
is "$(passlead japanese)" 2.5 "japanese: the ending pass scores 2.5 (territory and a prisoner)"
is "$(passlead chinese)" 3.5 "chinese: 3.5 (area)"
done_testing
