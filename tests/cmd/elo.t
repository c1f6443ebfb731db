#!/bin/sh
# gt-elo: usage errors; a random-init b1c8 network against none: records
# that gt-validate accepts, a consistent summary, colour-swapped pairs with
# one opening, the same output for one seed whatever the games in flight;
# games through gtp:gt-gtp identical to the network played directly; --sprt
# stops at the first pair where it decides; --sgf; GTP engines that resign,
# play illegal moves or die.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-elo >/dev/null || skip_all "gt-elo not built"

check_help gt-elo --sprt
gt-elo --version >/dev/null 2>&1
ok $? "--version exits 0"
gt-elo --bogus none none >/dev/null 2>&1
is $? 2 "unknown option: exit 2"
gt-elo none >/dev/null 2>"$T/err"
is $? 2 "one player: exit 2"
grep -q '^gt-elo: ' "$T/err"
ok $? "and says so"
gt-elo --games 3 none none >/dev/null 2>&1
is $? 2 "odd --games: exit 2"
gt-elo --sprt 5,0 none none >/dev/null 2>&1
is $? 2 "--sprt with elo0 > elo1: exit 2"
gt-elo --sprt 0,5,0.7,0.05 none none >/dev/null 2>&1
is $? 2 "--sprt with alpha 0.7: exit 2"
gt-elo --komi 6.3 none none >/dev/null 2>&1
is $? 2 "komi 6.3: exit 2"
gt-elo none gtp: >/dev/null 2>&1
is $? 2 "gtp: without a command: exit 2"
gt-elo none "$T/missing.bin.gz" >"$T/out" 2>&1
is $? 1 "a model that cannot be read: exit 1"

gt-model init b1c8 --seed 5 -o "$T/net.bin.gz" 2>/dev/null
ok $? "gt-model init b1c8"

small="--games 12 --visits 12 --seed 9"
gt-elo $small --parallel-games 4 "$T/net.bin.gz" none >"$T/all" 2>"$T/err"
ok $? "b1c8 against none, 12 games"
is "$(wc -l <"$T/all" | tr -d ' ')" 13 "12 game lines and a summary"
head -12 "$T/all" >"$T/games"
tail -1 "$T/all" >"$T/sum"

cat >"$T/check.py" <<'PY'
import json, sys
games = [json.loads(l) for l in open(sys.argv[1])]
s = json.loads(open(sys.argv[2]).read())
a, b = sys.argv[3], sys.argv[4]
for k in ("a", "b", "games", "wins", "draws", "losses", "score", "elo", "elo_ci95", "los", "pairs", "pentanomial"):
    assert k in s, k
assert s["a"] == a and s["b"] == b, (s["a"], s["b"])
n = s["games"]
assert n == len(games) and s["wins"] + s["draws"] + s["losses"] == n
assert abs(s["score"] - (s["wins"] + s["draws"] / 2) / n) < 1e-4
assert s["pairs"] * 2 == n and sum(s["pentanomial"]) == s["pairs"]
assert len(s["elo_ci95"]) == 2 and 0 <= s["los"] <= 1
w = d = l = 0
for i, g in enumerate(games):
    assert g["game"] == i and g["pair"] == i // 2, i
    assert g["a"] == "BW"[i % 2], i
    assert (g["black"], g["white"]) == ((a, b) if i % 2 == 0 else (b, a)), i
    if i % 2:
        o = g["opening"]
        assert o == games[i - 1]["opening"] and g["moves"][:o] == games[i - 1]["moves"][:o], i
    win = g["winner"]
    if win == "draw":
        d += 1
    elif win == g["a"]:
        w += 1
    else:
        l += 1
assert (w, d, l) == (s["wins"], s["draws"], s["losses"]), (w, d, l)
# the pentanomial from the games, and the interval from it computed
# independently (tests/elo_ci.py), rounded as gt-elo rounds
half = lambda g: 1 if g["winner"] == "draw" else 2 if g["winner"] == g["a"] else 0
pent = [0] * 5
for p in range(n // 2):
    pent[half(games[2 * p]) + half(games[2 * p + 1])] += 1
assert pent == s["pentanomial"], (pent, s["pentanomial"])
sys.path.insert(0, sys.argv[5] + "/tests")
import elo_ci
for x, y in zip(elo_ci.elo_interval(pent), s["elo_ci95"]):
    assert (x is None and y is None) or abs(x - y) < 0.0051, (elo_ci.elo_interval(pent), s["elo_ci95"])
openings = set(tuple(g["moves"][:g["opening"]]) for g in games)
assert len(openings) == n // 2, "openings repeat across pairs"
print("ok")
PY
is "$(python3 "$T/check.py" "$T/games" "$T/sum" net none "${GT_SRC:-.}" 2>&1)" ok \
	"summary consistent with the games (pentanomial, elo_ci95 as tests/elo_ci.py); pairs share an opening, colours swapped"

if command -v gt-validate >/dev/null; then
	gt-validate --rejects "$T/rej" <"$T/games" >"$T/valid" 2>&1
	ok $? "gt-validate accepts every game (default flags: replay, area result)"
	cmp -s "$T/games" "$T/valid"
	ok $? "and passes them through unchanged"
else
	ok 0 "# SKIP gt-validate not built"
	ok 0 "# SKIP gt-validate not built"
fi

gt-elo $small --parallel-games 1 --records "$T/games1" "$T/net.bin.gz" none >"$T/sum1" 2>/dev/null
ok $? "--records FILE"
cmp -s "$T/games" "$T/games1" && cmp -s "$T/sum" "$T/sum1"
ok $? "one game in flight: the same games and summary"
is "$(wc -l <"$T/sum1" | tr -d ' ')" 1 "with --records, stdout has the summary only"

# the summary alone on stdout is what gt-publish reads
if command -v gt-publish >/dev/null; then
	cp "$T/net.bin.gz" "$T/run1-b1c8-s100-d1000.bin.gz"
	gt-publish --candidate "$T/run1-b1c8-s100-d1000.bin.gz" --store "$T/store" \
		<"$T/sum1" >"$T/pub" 2>"$T/puberr"
	ok $? "gt-publish takes the summary line"
else
	ok 0 "# SKIP gt-publish not built"
fi

# the network behind gt-gtp plays the same games
gt-elo $small --parallel-games 3 --records "$T/games2" \
	"gtp:gt-gtp --model $T/net.bin.gz --visits 12 --threads 1" none >"$T/sum2" 2>"$T/err"
ok $? "gtp:gt-gtp --model X against none"
cat >"$T/same.py" <<'PY'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
assert len(a) == len(b)
for x, y in zip(a, b):
    assert x["moves"] == y["moves"] and x["result"] == y["result"], x["game"]
sa, sb = json.loads(open(sys.argv[3]).read()), json.loads(open(sys.argv[4]).read())
for k in ("games", "wins", "draws", "losses", "score", "elo", "elo_ci95", "los", "pentanomial"):
    assert sa[k] == sb[k], k
print("ok")
PY
is "$(python3 "$T/same.py" "$T/games" "$T/games2" "$T/sum" "$T/sum2" 2>&1)" ok \
	"the same games and statistics as the network played directly"

# SPRT: stops at the first pair where it decides (GNU Go against none,
# games capped at 60 moves to keep it short)
GNUGO=/usr/games/gnugo
if [ -x "$GNUGO" ]; then
	G="gtp:$GNUGO --mode gtp --level 1 --chinese-rules"
	sp="--visits 4 --seed 9 --max-moves 60 --sprt 0,300"
	gt-elo --games 400 $sp --records "$T/sg" none "$G" >"$T/ss" 2>&1
	ok $? "--sprt 0,300 on a lopsided match (none against gnugo)"
	cat >"$T/sprt.py" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).read())
print(s["sprt"]["result"], s["games"], s["games"] < 400, s["sprt"]["llr"] <= s["sprt"]["lower"])
PY
	set -- $(python3 "$T/sprt.py" "$T/ss")
	is "$1 $3 $4" "H0 True True" "accepts H0 (none is not stronger) before 400 games (after $2)"
	is "$(wc -l <"$T/sg" | tr -d ' ')" "$2" "only the counted games are written"
	gt-elo --games $(($2 - 2)) $sp --records /dev/null none "$G" >"$T/ss2" 2>&1
	set -- $(python3 "$T/sprt.py" "$T/ss2")
	is "$1" continue "one pair fewer: the test had not decided"
else
	for i in 1 2 3 4; do ok 0 "# SKIP no $GNUGO"; done
fi

# the move cap: two recorded passes end the game, and its area score checks
gt-elo --games 2 --visits 4 --max-moves 20 --records "$T/cap" none none >/dev/null 2>&1
ok $? "--max-moves 20"
is "$(python3 -c 'import json,sys; print(" ".join(str(len(json.loads(l)["moves"])) + json.loads(l)["moves"][-1] for l in open(sys.argv[1])))' "$T/cap")" \
	"22pass 22pass" "games of 20 moves and two passes"
if command -v gt-validate >/dev/null; then
	# the uniform network plays the same moves in both colours: one game a
	# run, or the second is gt-validate's duplicate-game
	sed -n 1p "$T/cap" | gt-validate >/dev/null 2>&1 && sed -n 2p "$T/cap" | gt-validate >/dev/null 2>&1
	ok $? "gt-validate checks their area results"
else
	ok 0 "# SKIP gt-validate not built"
fi

# SGF
gt-elo --games 2 --visits 4 --sgf "$T/sgf" --records /dev/null none none >/dev/null 2>&1
ok $? "--sgf DIR"
is "$(ls "$T/sgf" | tr '\n' ' ')" "game-000000.sgf game-000001.sgf " "one SGF file per game"
v=$(gt-elo --version | sed 's/^gt-elo //')
grep -q "PB\[none (gt $v)\]" "$T/sgf/game-000000.sgf" && grep -q 'RE\[' "$T/sgf/game-000000.sgf"
ok $? "with players (the model and gt's version) and result"
grep -Eq 'DT\[20[0-9]{2}-[01][0-9]-[0-3][0-9]\]' "$T/sgf/game-000000.sgf"
ok $? "and the date"
# a comment on each searched move (the 4 opening moves are not searched)
python3 - "$T/sgf/game-000000.sgf" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
moves = re.findall(r";[BW]\[[a-s]{0,2}\](C\[[^]]*\])?", t)
com = re.findall(r"C\[win rate B [0-9.]+%, score lead [BW]\+[0-9.]+, visits [0-9]+\]", t)
searched = [m for m in moves[4:-2]] # the opening, and the two closing passes, are not searched
assert moves and all(c for c in searched) and not any(c for c in moves[:4]), moves[:6]
assert len(com) == sum(1 for c in moves if c), (len(com), len(moves))
PY
ok $? "a comment with win rate, score lead and visits on each searched move"
# a GTP engine is named by its own name and version
gt-elo --games 2 --visits 4 --sgf "$T/sgf2" --records /dev/null "gtp:gt-gtp -q --model none --visits 4" none \
	>/dev/null 2>&1
ok $? "--sgf with a GTP engine"
grep -q "PB\[gt $v\]PW\[none (gt $v)\]" "$T/sgf2/game-000000.sgf" &&
	grep -q "PB\[none (gt $v)\]PW\[gt $v\]" "$T/sgf2/game-000001.sgf"
ok $? "PB/PW: the engine's name and version (not its command line), the network and gt's version"

# GTP engines that misbehave: always A1 (illegal from the second move on),
# resign, die
cat >"$T/eng" <<'SH'
#!/bin/sh
while read -r id cmd rest; do
	case $cmd in
	genmove) printf '=%s %s\n\n' "$id" "$MOVE" ;;
	known_command) printf '=%s false\n\n' "$id" ;;
	quit) printf '=%s \n\n' "$id"; exit 0 ;;
	*) printf '=%s \n\n' "$id" ;;
	esac
done
SH
chmod +x "$T/eng"
MOVE=A1 gt-elo --games 2 --visits 4 --records "$T/ill" none "gtp:$T/eng" >"$T/s" 2>"$T/err"
ok $? "an engine that plays illegal moves: the match goes on"
is "$(grep -c '"reason":"illegal move A1 (point occupied)"' "$T/ill")" 2 "it loses both games, with the reason"
grep -q '"wins":2,' "$T/s"
ok $? "counted as A's wins"
if command -v gt-validate >/dev/null; then
	gt-validate --allow-unscored-results --min-moves 0 <"$T/ill" >/dev/null 2>"$T/verr"
	ok $? "gt-validate --allow-unscored-results accepts the forfeits (moves legal)"
else
	ok 0 "# SKIP gt-validate not built"
fi
MOVE=resign gt-elo --games 2 --visits 4 --records "$T/res" none "gtp:$T/eng" >"$T/s" 2>"$T/err"
ok $? "an engine that resigns"
is "$(grep -o '"result":"[BW]+R"' "$T/res" | tr '\n' ' ')" '"result":"B+R" "result":"W+R" ' "A wins by resignation with either colour"
gt-elo --games 2 --visits 4 none "gtp:exit 3" >"$T/out" 2>"$T/err"
is $? 1 "an engine that dies: exit 1"
grep -q 'exited with status 3' "$T/err"
ok $? "and the message says how"

# the engines of the games in flight think at once: each genmove of this
# engine logs its start and end; with games asked one after the other no
# two intervals of different engines would overlap
cat >"$T/slow" <<'SH'
#!/bin/sh
while read -r id cmd rest; do
	case $cmd in
	genmove) echo "$$ start $(date +%s%N)" >>"$LOG"; sleep 0.3
		echo "$$ end $(date +%s%N)" >>"$LOG"; printf '=%s pass\n\n' "$id" ;;
	known_command) printf '=%s false\n\n' "$id" ;;
	quit) printf '=%s \n\n' "$id"; exit 0 ;;
	*) printf '=%s \n\n' "$id" ;;
	esac
done
SH
chmod +x "$T/slow"
: >"$T/slow.log"
LOG=$T/slow.log gt-elo --games 4 --parallel-games 4 --visits 2 --max-moves 6 --records /dev/null \
	none "gtp:$T/slow" >/dev/null 2>"$T/err"
ok $? "four games against a slow engine"
overlap=$(awk '$2 == "start" { s[$1] = $3 } $2 == "end" { n++; a[n] = s[$1]; b[n] = $3; p[n] = $1 }
	END { for (i = 1; i <= n; i++) for (j = 1; j <= n; j++)
		if (p[i] != p[j] && a[i] < b[j] && a[j] < b[i]) c++; print c + 0 }' "$T/slow.log")
ok "$([ "$overlap" -gt 0 ] && echo 0 || echo 1)" "engines of different games think at once ($overlap overlapping pairs of genmoves)"

# GNU Go at level 1 against itself
if [ -x "$GNUGO" ]; then
	G="gtp:$GNUGO --mode gtp --level 1 --chinese-rules"
	gt-elo --games 4 --records "$T/gg" "$G" "$G" >"$T/gs" 2>"$T/err"
	ok $? "gnugo level 1 against itself, 4 games"
	is "$(wc -l <"$T/gg" | tr -d ' ')" 4 "4 records"
	if command -v gt-validate >/dev/null; then
		# GNU Go plays the same game again: one game a run (duplicate-game)
		bad=0
		for i in 1 2 3 4; do
			sed -n "${i}p" "$T/gg" | gt-validate --allow-unscored-results >/dev/null 2>>"$T/verr" ||
				bad=$((bad + 1))
		done
		is "$bad" 0 "legal games (gt-validate)"
	else
		ok 0 "# SKIP gt-validate not built"
	fi
else
	ok 0 "# SKIP no $GNUGO"; ok 0 "# SKIP no $GNUGO"; ok 0 "# SKIP no $GNUGO"
fi
# --visits-b: B searches its own visits (A is black in game 0, white in
# game 1: the SGF comments say each move's visits)
mkdir -p "$T/vb"
gt-elo --games 2 --visits 8 --visits-b 3 --max-moves 12 --sgf "$T/vb" --records /dev/null none none \
	>/dev/null 2>"$T/err"
ok $? "--visits-b runs"
is "$(grep -o ';B\[[a-z]*\]C\[[^]]*visits [0-9]*' "$T/vb/game-000000.sgf" | sed 's/.*visits //' | sort -u)" 8 \
	"game 0: A (black) searched 8 visits a move"
is "$(grep -o ';W\[[a-z]*\]C\[[^]]*visits [0-9]*' "$T/vb/game-000000.sgf" | sed 's/.*visits //' | sort -u)" 3 \
	"and B (white) 3"
is "$(grep -o ';B\[[a-z]*\]C\[[^]]*visits [0-9]*' "$T/vb/game-000001.sgf" | sed 's/.*visits //' | sort -u)" 3 \
	"game 1: B (black) 3"
gt-elo --games 2 --search lcb=2 none none >/dev/null 2>"$T/err"
is $? 2 "--search lcb=2: exit 2"
done_testing
