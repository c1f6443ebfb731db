#!/bin/sh
# gt-shard: options, a hand-made record read back by numpy, random games
# (every array's dtype and shape, sha256 and rows against the manifest),
# same seed same bytes, gzip input, NaN rows and bad records.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
PY=/usr/bin/python3
H="$GT_SRC/tests/shard_check.py"
$PY -c 'import numpy' 2>/dev/null || skip_all "no numpy for /usr/bin/python3"

gt-shard -h >"$T/h" 2>&1; ok $? "-h exits 0"
grep -q '^usage: gt-shard' "$T/h"; ok $? "-h prints usage"
is "$(gt-shard --version)" "gt-shard 0.1.0" "--version"
gt-shard --bogus -o "$T/x" </dev/null 2>"$T/e"; is $? 2 "unknown option: exit 2"
gt-shard --rows 0 -o "$T/x" </dev/null 2>"$T/e"; is $? 2 "--rows 0: exit 2"
grep -q '^gt-shard: --rows' "$T/e"; ok $? "--rows 0: says which option"
gt-shard --rows 12x -o "$T/x" </dev/null 2>"$T/e"; is $? 2 "--rows 12x: exit 2"
gt-shard </dev/null 2>"$T/e"; is $? 2 "no -o: exit 2"

# the hand-made record: B E5, W C3, B D2, W pass, B pass; B+3.5
$PY "$H" hand >"$T/hand.ndjson"
gt-shard -o "$T/hand" "$T/hand.ndjson" >"$T/out" 2>"$T/err"; is $? 0 "hand record: exit 0"
is "$(wc -l <"$T/out" | tr -d ' ')" 1 "one manifest line on stdout"
cmp -s "$T/out" "$T/hand/manifest"; ok $? "stdout is the manifest line"
is "$($PY "$H" check "$T/hand" 2>&1)" "shards=1 rows=5 games=1" "numpy: dtypes, shapes, sha256, current"
$PY "$H" hand-rows "$T/hand" >"$T/rows"
cat >"$T/want" <<'W'
move=0 value=1 score=3.5 argmax=40 p40=1 ppass=0 own0=1 own8=-1 ownE5=0 oppE5=0 oppC3=0 w=1 next=56 nextpass=0 nextmask=1
move=1 value=-1 score=96.5 argmax=56 p40=0 ppass=0 own0=-1 own8=1 ownE5=0 oppE5=1 oppC3=0 w=1 next=66 nextpass=0 nextmask=1
move=2 value=1 score=203.5 argmax=66 p40=0 ppass=0 own0=1 own8=-1 ownE5=1 oppE5=0 oppC3=1 w=1 next=81 nextpass=1 nextmask=1
move=3 value=-1 score=296.5 argmax=81 p40=0 ppass=1 own0=-1 own8=1 ownE5=0 oppE5=1 oppC3=0 w=1 next=0 nextpass=0.5 nextmask=1
move=4 value=1 score=403.5 argmax=0 p40=0 ppass=0.5 own0=1 own8=-1 ownE5=1 oppE5=0 oppC3=1 w=1 next=0 nextpass=0 nextmask=0
W
cmp -s "$T/rows" "$T/want"; st=$?
ok $st "hand record: policy[0,40]=1, pass last, values and ownership from the side to move, stones on own/opponent planes, the opponent's reply the next position's policy (none after the last move)"
[ $st -eq 0 ] || diff "$T/want" "$T/rows" | sed 's/^/# /'

# random legal games; value and score taken from the game result
$PY "$H" games 60 7 >"$T/g.ndjson"
full=$($PY -c 'import json,sys; print(sum(p["full_search"] for l in open(sys.argv[1]) for p in json.loads(l)["positions"]))' "$T/g.ndjson")
gt-shard -o "$T/a" --rows 150 --seed 5 "$T/g.ndjson" >"$T/out" 2>"$T/err"; is $? 0 "60 games: exit 0"
shards=$(( (full + 149) / 150 ))
r=$($PY "$H" check "$T/a" 2>&1)
case $r in "shards=$shards rows=$full games="*) ok 0 "numpy: $r";; *) ok 1 "numpy check"; diag "got '$r', want shards=$shards rows=$full"; diag "$(cat "$T/err")";; esac
is "$(readlink "$T/a/current")" "run_000/games_$(printf %05d $((shards - 1))).npz" "current points at the newest shard"
r=$($PY "$H" replies "$T/g.ndjson" "$T/a" 2>&1)
case $r in "shard "*" records "*) set -- $r; ok $([ "$2 $3 $4" = "$6 $7 $8" ]; echo $?) "policy_next_mask by the records (none, next policy, next move): $r";; *) ok 1 "replies"; diag "$r";; esac
gt-shard -o "$T/b" --rows 150 --seed 5 "$T/g.ndjson" >/dev/null 2>&1
same=0
for f in "$T"/a/run_000/games_*.npz; do cmp -s "$f" "$T/b/run_000/$(basename "$f")" || same=1; done
ok $same "same seed: the same shard bytes"
gt-shard -o "$T/c" --rows 150 --seed 6 "$T/g.ndjson" >/dev/null 2>&1
cmp -s "$T/a/run_000/games_00000.npz" "$T/c/run_000/games_00000.npz"; is $? 1 "another seed: another shuffle"
gzip -c "$T/g.ndjson" >"$T/g.ndjson.gz"
gt-shard -o "$T/z" --rows 150 --seed 5 --run 3 <"$T/g.ndjson.gz" >/dev/null 2>&1; ok $? "gzip on stdin"
cmp -s "$T/a/run_000/games_00000.npz" "$T/z/run_003/games_00000.npz"; ok $? "gzip input: the same shard, in run_003"

# the pipeline: gt-validate accepts the generated games; gt-augment's
# symmetry of the records equals the symmetry of the shard's arrays
gt-validate "$T/g.ndjson" >"$T/v.ndjson" 2>"$T/err"; is $? 0 "gt-validate accepts the generated games"
for k in 1 6; do
	gt-augment --symmetry $k "$T/v.ndjson" >"$T/s$k.ndjson" 2>>"$T/err"
	gt-shard -o "$T/s$k" --rows 150 --seed 5 "$T/s$k.ndjson" >/dev/null 2>>"$T/err"
	r=$($PY "$H" symcheck "$T/a" "$T/s$k" $k 2>&1)
	is "$r" "rows=$full" "gt-augment --symmetry $k | gt-shard: planes, policy, ownership, policy_next mapped by symmetry $k"
done

# a second run appends to the same directory
gt-shard -o "$T/a" --rows 150 --seed 5 "$T/hand.ndjson" >/dev/null 2>&1
r=$($PY "$H" check "$T/a" 2>&1)
case $r in "shards=$((shards + 1)) rows=$((full + 5)) "*) ok 0 "second run appends: $r";; *) ok 1 "second run appends"; diag "$r";; esac

# bad input: a garbage line and a record whose move is illegal are refused
# with their line numbers; a position with no value in a game without a
# winner is a NaN row, dropped and counted; the rest goes on
{
	$PY "$H" hand
	echo '{"version":1, garbage'
	$PY "$H" hand | sed 's/"moves": \["E5", "C3"/"moves": ["E5", "E5"/'
	$PY "$H" hand | $PY -c 'import json,sys; r=json.loads(sys.stdin.read()); r["winner"]="?"; r["result"]="?"; del r["score"]; del r["positions"][2]["value"]; print(json.dumps(r))'
} >"$T/bad.ndjson"
gt-shard -o "$T/bad" "$T/bad.ndjson" >"$T/out" 2>"$T/err"; is $? 1 "bad input: exit 1"
grep -q "^gt-shard: .*bad.ndjson:2: " "$T/err"; ok $? "garbage line reported with its line number"
grep -q "^gt-shard: .*bad.ndjson:3: move 2: point occupied" "$T/err"; ok $? "illegal move reported"
grep -q "^gt-shard: 1 rows with NaN or infinity dropped" "$T/err"; ok $? "NaN row counted"
grep -q "^gt-shard: 2 records refused" "$T/err"; ok $? "refused records counted"
r=$($PY "$H" check "$T/bad" 2>&1)
is "$r" "shards=1 rows=9 games=2" "the 5 + 4 good rows are written"
[ "$r" = "shards=1 rows=9 games=2" ] || diag "$(cat "$T/err")"
done_testing
