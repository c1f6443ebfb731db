#!/bin/sh
# share/gt/trainer against one stranger's uploads (issue 17, items 2 to 5,
# end to end): in a 5x5 run, one valid 7x7 game uploaded last, a game
# whose positions weigh 1e30, two games under worker names of ten
# megabytes, and an honest game sent again mirrored under another seed.
# The generation is made from the honest games only, on 5x5; the
# contributions file stays small; and a 7x7 shard that is the newest in
# the data does not decide the size gt-train trains on. gt-elo is a
# stand-in; gt-train is real (b1c8, two steps).
. "${GT_SRC:-.}/tests/cmd/tap.sh"
TRAINER=$GT_SRC/share/gt/trainer
PY=/usr/bin/python3
$PY -c 'import json' 2>/dev/null || skip_all "no /usr/bin/python3"
command -v gt-train >/dev/null || skip_all "gt-train not built"
S=$T/store
mkdir -p "$S/games" "$T/fake"
cat > "$T/fake/gt-elo" <<'EOF'
#!/bin/sh
echo '{"a":"x","b":"y","games":2,"wins":1,"draws":0,"losses":1,"score":0.5,"elo":0,"elo_ci95":[-400,400],"los":0.5}'
EOF
# gt-train itself, its arguments noted
printf '#!/bin/sh\necho "$*" >> "%s/train.args"\nexec "%s/gt-train" "$@"\n' "$T" "$GT_BIN" > "$T/fake/gt-train"
chmod +x "$T/fake/gt-elo" "$T/fake/gt-train"

# honest: six 5x5 games of alice
gt-selfplay --model none --games 6 --visits 8 --cheap-visits 4 --full-prob 1 --board-size 5 \
	--seed 1 --worker alice > "$T/alice" 2>/dev/null
gzip -c "$T/alice" > "$S/games/alice-20261201T000000Z-00000001.ndjson.gz"
# mallory: a huge weight, ten-megabyte names, a mirrored copy under another seed
$PY - "$T/alice" > "$T/mallory" <<'PY'
import json, sys
g = [json.loads(l) for l in open(sys.argv[1])]
def out(r, gid):
    r = dict(r)
    r["game_id"] = gid
    print(json.dumps(r, separators=(",", ":")))
w = dict(g[0]); w["positions"] = [dict(p, weight=1e30) for p in g[0]["positions"]]
w["worker"] = "mallory"
out(w, "m1")
for i in (1, 2):
    n = dict(g[i]); n["worker"] = ("m%d" % i) * 5000000
    out(n, "m%d" % (i + 1))
PY
gt-augment --symmetry 5 "$T/alice" | sed -n 4p | jq -c '.game_id = "m4" | .seed = "1234" | del(.symmetry) | .worker = "mallory"' >> "$T/mallory"
gzip -c "$T/mallory" > "$S/games/mallory-20261201T000001Z-00000002.ndjson.gz"
# one valid 7x7 game, uploaded last
gt-selfplay --model none --games 1 --visits 8 --cheap-visits 4 --full-prob 1 --board-size 7 \
	--seed 2 --worker mallory > "$T/seven" 2>/dev/null
gt-validate "$T/seven" > /dev/null; ok $? "fixture: the 7x7 game is valid"
gzip -c "$T/seven" > "$S/games/mallory-20261201T000002Z-00000003.ndjson.gz"

cat > "$T/trainer.cfg" <<EOF
store = file://$S
work_dir = $T/tr
arch = b1c8
min_games = 1
steps = 2
batch = 8
rows_per_shard = 1000
window = 10000
match_games = 2
match_visits = 4
match_board_size = 5
threshold = -10000
every_steps = 0
board_size = 5
EOF
GT_BIN="$T/fake:$GT_BIN" sh "$TRAINER" -c "$T/trainer.cfg" 2> "$T/err"
ok $? "the trainer makes generation 1"
G=$T/tr/gen/0001
is "$(cat "$T/tr/generation")" 2 "and is at generation 2"
is "$(jq -r .reason "$G/rejects.ndjson" | sort | paste -sd ' ' -)" \
	"board-size duplicate-game name name weight" \
	"rejected: the 7x7 game, the mirrored copy, the two huge names, the huge weight"
is "$(jq -r .games "$T/tr/generations.ndjson")" 6 "the six honest games passed"
is "$(jq -r .board_size "$T/tr/data/manifest" | sort -u | paste -sd, -)" 5 "the shards are 5x5 only"
is "$(jq -r .rows "$T/tr/data/manifest" | paste -sd+ - | bc)" \
	"$(jq '[.positions[] | select(.full_search)] | length' "$T/alice" | paste -sd+ - | bc)" \
	"every row is an honest game's"
size=$(wc -c < "$S/stats/contributions.json")
[ "$size" -lt 10000 ]; ok $? "contributions.json stays small ($size bytes)"
is "$(jq -r '.workers | keys | join(" ")' "$S/stats/contributions.json")" \
	"(bad name) alice mallory" "the huge names are counted as (bad name)"
is "$(jq -r '.workers["(bad name)"].rejected' "$S/stats/contributions.json")" 2 "two of them"
grep -q -- '--board-size 5 ' "$T/train.args"; ok $? "gt-train trains on 5x5 (--board-size 5)"

# the size is pinned: a run that takes 5x5 and 7x7 with a 7x7 shard the
# newest in the data still trains on the first size, 5x5
sed -i 's/^board_size = 5$/board_size = 5,7/' "$T/trainer.cfg"
gt-selfplay --model none --games 2 --visits 8 --cheap-visits 4 --full-prob 1 --board-size 5 \
	--seed 3 --worker alice | gzip > "$S/games/alice-20261201T000003Z-00000004.ndjson.gz" 2>/dev/null
gt-selfplay --model none --games 1 --visits 8 --cheap-visits 4 --full-prob 1 --board-size 7 \
	--seed 4 --worker mallory | gzip > "$S/games/mallory-20261201T000004Z-00000005.ndjson.gz" 2>/dev/null
GT_BIN="$T/fake:$GT_BIN" sh "$TRAINER" -c "$T/trainer.cfg" 2> "$T/err"
ok $? "generation 2, with 7x7 games taken"
tail -n 1 "$T/tr/data/manifest" | grep -q '"board_size":7'; ok $? "the newest shard is 7x7"
grep -q 'gt-shard: games of 2 board sizes (5x5 2, 7x7 1)' "$T/tr/trainer.log"
ok $? "gt-shard says the generation's games have two sizes"
tail -n 1 "$T/train.args" | grep -q -- '--board-size 5 '; ok $? "gt-train trains on 5x5 again"
grep -q 'rows of 5x5 from 2 shards, 1 shards skipped; the last: run_002/games_0000[0-9].npz: board size 7' "$T/tr/trainer.log"
ok $? "the 7x7 shard skipped (its log says so)"

# a flood of worker names: the contributions file stops growing at 10000
$PY -c '
for i in range(12000):
    print("{\"worker\":\"w%05d\",\"positions\":[]}" % i)' > "$T/flood"
gt-sync contrib "file://$T/s2" flood "$T/flood" > /dev/null 2> "$T/err"; ok $? "gt-sync contrib of 12000 names"
is "$(jq '.workers | length' "$T/s2/stats/contributions.json")" 10001 "10000 names and (others)"
is "$(jq '.workers["(others)"].games' "$T/s2/stats/contributions.json")" 2000 "the other 2000 counted there"
size=$(wc -c < "$T/s2/stats/contributions.json")
[ "$size" -lt 3000000 ]; ok $? "the file stays under 3 MB ($size bytes)"

done_testing
