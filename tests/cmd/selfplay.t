#!/bin/sh
# gt-selfplay: usage errors; --games 010 is ten (numbers are base 10); 200
# small 9x9 games (8 visits full, 4 cheap) from --model none that parse,
# replay legally (gt-validate when built) and are byte-identical for one
# seed whatever the threads, with the search's root value and score where
# there was a search (comments in gt-sgf's SGF); other board sizes;
# a stop by SIGTERM writes complete records only; a write error is exit 1.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-selfplay >/dev/null || skip_all "gt-selfplay not built"

check_help gt-selfplay --parallel-games
gt-selfplay --version >"$T/out" 2>&1
ok $? "--version exits 0"
gt-selfplay --bogus >/dev/null 2>"$T/err"
is $? 2 "unknown option: exit 2"
gt-selfplay --games 3 >/dev/null 2>"$T/err"
is $? 2 "no --model: exit 2"
grep -q "^gt-selfplay: .*--model" "$T/err"
ok $? "and says so"
gt-selfplay --model none --visits 0 >/dev/null 2>"$T/err"
is $? 2 "--visits 0: exit 2"
gt-selfplay --model none --board-size 20 >/dev/null 2>"$T/err"
is $? 2 "--board-size 20: exit 2"
gt-selfplay --model none --rules japanese >/dev/null 2>"$T/err"
is $? 2 "unknown rules: exit 2"
gt-selfplay --model none --full-prob 1.5 >/dev/null 2>"$T/err"
is $? 2 "--full-prob 1.5: exit 2"
gt-selfplay --model none --games 2x >/dev/null 2>"$T/err"
is $? 2 "--games 2x: exit 2"
gt-selfplay --model none --games 0x2 >/dev/null 2>"$T/err"
is $? 2 "--games 0x2: exit 2 (numbers are decimal)"
grep -q "^gt-selfplay: --games: want 1\.\..*, got '0x2'" "$T/err"
ok $? "and says what it wants"
# base 10 always: a leading zero is not octal (010 was 8 before)
gt-selfplay --model none --games 010 --visits 2 --cheap-visits 1 --board-size 5 --seed 3 \
	>"$T/ten" 2>"$T/err"
ok $? "--games 010 runs"
is "$(wc -l <"$T/ten" | tr -d ' ')" 10 "--games 010 writes 10 records"
gt-selfplay --model "$T/missing.bin.gz" >"$T/out" 2>"$T/err"
is $? 1 "a model file that cannot be used: exit 1"
test ! -s "$T/out"
ok $? "and nothing on stdout"

small="--model none --visits 8 --cheap-visits 4 --seed 7 --worker test"
gt-selfplay $small --games 200 --threads 2 --parallel-games 8 >"$T/a" 2>"$T/err"
ok $? "200 games on 9x9 with 2 threads"
is "$(wc -l <"$T/a" | tr -d ' ')" 200 "200 records"
test ! -s "$T/err"
ok $? "nothing on stderr without --progress"
# --progress-every 0: a line for each finished game, in order, the last
# the summary; --progress: at most a line a second
gt-selfplay --model none --visits 4 --cheap-visits 2 --board-size 5 --seed 7 --games 12 \
	--progress-every 0 >"$T/p" 2>"$T/err"
ok $? "--progress-every 0"
is "$(sed -n 's|^gt-selfplay: \([0-9]*\)/12 games, [0-9.]* moves/s, [0-9]* evals/s, batch [0-9.]*, [0-9]* s$|\1|p' "$T/err" | tr '\n' ' ')" \
	"1 2 3 4 5 6 7 8 9 10 11 12 " "a line a game (the last the summary)"
is "$(wc -l < "$T/p" | tr -d ' ')" 12 "the 12 records on stdout"
gt-selfplay --model none --visits 4 --cheap-visits 2 --board-size 5 --seed 7 --games 12 \
	--progress >/dev/null 2>"$T/err"
[ "$(grep -c '/12 games' "$T/err")" -lt 12 ]; ok $? "--progress: at most a line a second"
gt-selfplay --model none --progress-every -1 >/dev/null 2>"$T/err"; is $? 2 "--progress-every -1: exit 2"

# every line is a JSON record with the fields of gt-record(5)
cat >"$T/check.py" <<'EOF'
import json, sys
ids = set()
for i, line in enumerate(open(sys.argv[1])):
    r = json.loads(line)
    n = r["board_size"]
    assert r["version"] == 1 and r["model"] == "none" and r["worker"] == "test", i
    assert r["rules"] == sys.argv[2] and n == int(sys.argv[3]), i
    assert len(r["moves"]) == len(r["positions"]) and r["moves"][-2:] == ["pass", "pass"], i
    assert len(r["ownership"]) == n * n and r["winner"] in ("B", "W", "draw"), i
    assert r["game_id"] not in ids, i
    ids.add(r["game_id"])
    for k, p in enumerate(r["positions"]):
        assert p["move_number"] == k and p["to_move"] == "BW"[k % 2], (i, k)
        if p["full_search"]:
            assert len(p["policy"]) == n * n + 1 and abs(sum(p["policy"]) - 1) < 1e-4, (i, k)
        s = r["score"] if p["to_move"] == "B" else -r["score"]
        assert abs(p["score"] - s) < 1e-6 and p["value"] == (s > 0) - (s < 0), (i, k)
        # the search's own evaluation, where there was a search
        assert ("root_value" in p) == (p["visits"] > 0) and ("root_score" in p) == (p["visits"] > 0), (i, k)
        assert p["visits"] == 0 or -1 <= p["root_value"] <= 1, (i, k)
print(len(ids))
EOF
is "$(python3 "$T/check.py" "$T/a" chinese 9 2>&1)" 200 "records parse, with the right fields"

# gt-sgf writes the search's evaluation of each searched move as a comment
if command -v gt-sgf >/dev/null; then
	head -1 "$T/a" | gt-sgf --to-sgf >"$T/g.sgf" 2>&1
	is "$(grep -o 'C\[win rate B [0-9.]*%, score lead [BW]+[0-9.]*, visits [0-9]*\]' "$T/g.sgf" | wc -l | tr -d ' ')" \
		"$(head -1 "$T/a" | python3 -c 'import json, sys
print(sum(p["visits"] > 0 for p in json.loads(sys.stdin.read())["positions"]))')" \
		"gt-sgf --to-sgf: a comment on each searched move"
else
	ok 0 "# SKIP gt-sgf not built"
fi

if command -v gt-validate >/dev/null; then
	gt-validate --rejects "$T/rej" <"$T/a" >"$T/valid" 2>"$T/verr"
	ok $? "gt-validate accepts every game"
	cmp -s "$T/a" "$T/valid"
	ok $? "and passes them through unchanged"
else
	ok 0 "# SKIP gt-validate not built"
	ok 0 "# SKIP gt-validate not built"
fi

gt-selfplay $small --games 200 --threads 1 --parallel-games 1 >"$T/b" 2>/dev/null
cmp -s "$T/a" "$T/b"
ok $? "same seed: byte-identical with 1 thread and 1 game in flight"
gt-selfplay $small --games 60 --threads 2 --parallel-games 3 >"$T/c" 2>/dev/null
head -60 "$T/a" | cmp -s - "$T/c"
ok $? "and with 2 threads x 3 games (the first 60)"
gt-selfplay $small --games 20 --seed 8 >"$T/d" 2>/dev/null
head -20 "$T/a" | cmp -s - "$T/d"
test $? -ne 0
ok $? "another seed, other games"

for size in 2 3 5 13 19; do
	gt-selfplay --model none --visits 4 --cheap-visits 2 --seed 1 --worker test \
		--board-size $size --rules tromp-taylor --komi 0.5 --games 3 >"$T/s$size" 2>/dev/null
	ok $? "${size}x$size games"
	is "$(python3 "$T/check.py" "$T/s$size" tromp-taylor $size 2>&1)" 3 "${size}x$size records"
done

# a stop by SIGTERM: complete records only, exit 0
gt-selfplay --model none --visits 50 --cheap-visits 20 --games 1000000 --seed 3 \
	--worker test >"$T/stop" 2>"$T/stoperr" &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
is $? 0 "stopped by SIGTERM: exit 0"
grep -q "stopped by a signal" "$T/stoperr"
ok $? "and says so on stderr"
lines=$(wc -l <"$T/stop" | tr -d ' ')
is "$(python3 "$T/check.py" "$T/stop" chinese 9 2>&1)" "$lines" "all $lines records complete"
test "$(tail -c 1 "$T/stop" | od -An -c | tr -d ' ')" = '\n' || test ! -s "$T/stop"
ok $? "ending with a newline"

# forced playouts and policy target pruning (gt-selfplay(1)): with the
# uniform evaluator a full search of 100 visits spreads one visit over
# many of the 82 moves; pruning drops children left with one visit or
# less, so the targets have fewer non-zero entries than without, each
# still a distribution
gt-selfplay --model none --search bogus=1 >/dev/null 2>"$T/err"
is $? 2 "--search bogus=1: exit 2"
grep -q "^gt-selfplay: --search: want KEY=VALUE" "$T/err"
ok $? "and says what it wants"
gt-selfplay --model none --forced-playouts -1 >/dev/null 2>"$T/err"
is $? 2 "--forced-playouts -1: exit 2"
for k in 0 2; do
	gt-selfplay --model none --games 4 --full-prob 1 --forced-playouts $k --seed 5 \
		>"$T/forced$k" 2>"$T/err" || echo "gt-selfplay --forced-playouts $k failed" >&2
done
nonzero() {
	jq -r '.positions[] | select(.full_search != false and .visits >= 50) | [.policy[] | select(. > 0)] | length' "$1" |
		awk '{ s += $1; n++ } END { printf "%.1f\n", n ? s / n : 0 }'
}
n0=$(nonzero "$T/forced0") n2=$(nonzero "$T/forced2")
awk -v a="$n2" -v b="$n0" 'BEGIN { exit !(a > 0 && a < b) }'
ok $? "pruned targets are sparser: $n2 moves with visits a target, $n0 without"
jq -e '[.positions[] | select(.visits >= 50) | (.policy | add) - 1 | fabs < 1e-4] | all' "$T/forced2" >/dev/null
ok $? "pruned targets sum to 1"

if [ -w /dev/full ]; then
	gt-selfplay $small --games 2 >/dev/full 2>"$T/err"
	is $? 1 "write error: exit 1"
	grep -q "^gt-selfplay: write error" "$T/err"
	ok $? "and says so"
fi
done_testing
