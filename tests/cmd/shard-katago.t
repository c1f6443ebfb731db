#!/bin/sh
# gt-shard --katago-keys: shards that KataGo's trainer loads, checked with
# numpy as KataGo's loader reads them and, row by row, against the gt
# shards of the same records and seed (tests/shard_katago_check.py);
# gt's own readers skip them; the default output is unchanged by them.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
PY=/usr/bin/python3
H="$GT_SRC/tests/shard_check.py"
K="$GT_SRC/tests/shard_katago_check.py"
$PY -c 'import numpy' 2>/dev/null || skip_all "no numpy for /usr/bin/python3"

gt-shard -h 2>&1 | grep -q -- '--katago-keys'; ok $? "-h lists --katago-keys"
gt-shard --pos-len 9 -o "$T/x" </dev/null 2>"$T/e"; is $? 2 "--pos-len without --katago-keys: exit 2"
gt-shard --katago-keys --pos-len 20 -o "$T/x" </dev/null 2>"$T/e"; is $? 2 "--pos-len 20: exit 2"

# records: random legal 9x9 games, self-play games of 9x9 and 7x7
# (searched policies, visits, root values; some with reduced searches), the
# hand-made game, and it resigned without ownership (its score unknown:
# weight 0 for the ownership and score targets)
$PY "$H" games 30 7 >"$T/g.ndjson"
gt-selfplay --model none --games 3 --visits 8 --cheap-visits 4 --full-prob 1 --board-size 9 \
	--seed 1 >>"$T/g.ndjson" 2>/dev/null &&
gt-selfplay --model none --games 3 --visits 8 --cheap-visits 4 --full-prob 0.5 --board-size 9 \
	--seed 3 >>"$T/g.ndjson" 2>/dev/null &&
gt-selfplay --model none --games 2 --visits 8 --cheap-visits 4 --full-prob 1 --board-size 7 \
	--seed 2 >>"$T/g.ndjson" 2>/dev/null
ok $? "self-play games"
$PY "$H" hand >"$T/hand.ndjson"
cat "$T/hand.ndjson" >>"$T/g.ndjson"
$PY -c 'import json,sys
r = json.loads(open(sys.argv[1]).read())
r["result"] = "B+R"; del r["score"]; del r["ownership"]; r["score_checkable"] = False
r["game_id"] = "resigned"
for p in r["positions"]: p.pop("score", None)
print(json.dumps(r))' "$T/hand.ndjson" >>"$T/g.ndjson"

for L in 19 9; do
	gt-shard -o "$T/gt$L" --rows 200 --seed 5 "$T/g.ndjson" >/dev/null 2>"$T/err"
	gt-shard -o "$T/k$L" --rows 200 --seed 5 --katago-keys --pos-len $L "$T/g.ndjson" >"$T/out" 2>"$T/err"
	is $? 0 "--katago-keys --pos-len $L: exit 0"
	r=$($PY "$K" "$T/gt$L" "$T/k$L" $L "$T/g.ndjson" 2>&1)
	case $r in
	*=0*) ok 1 "pos_len $L: every kind of row checked"; diag "$r";;
	shards=*) ok 0 "pos_len $L: KataGo's keys, dtypes, shapes; values equal gt's and the records': $r";;
	*) ok 1 "pos_len $L: numpy check"; diag "$r";;
	esac
done
case $r in *"rows=$($PY -c 'import json,sys; print(sum(json.loads(l)["rows"] for l in open(sys.argv[1])))' "$T/gt9/manifest") "*) ok 0 "every row of the gt shards";; *) ok 1 "every row"; diag "$r";; esac
gt-shard -o "$T/k19b" --rows 200 --seed 5 --katago-keys "$T/g.ndjson" >/dev/null 2>&1
same=0
for f in "$T"/k19/run_000/games_*.npz; do cmp -s "$f" "$T/k19b/run_000/$(basename "$f")" || same=1; done
ok $same "--pos-len 19 is the default; same seed, same bytes"

# a board larger than the position length is refused, the rest goes on
gt-shard -o "$T/k7" --katago-keys --pos-len 7 "$T/g.ndjson" >/dev/null 2>"$T/err"
is $? 1 "9x9 games with --pos-len 7: exit 1"
grep -q "board size 9 larger than KataGo's position length 7" "$T/err"; ok $? "... saying why"
is "$(cut -d, -f3,4 "$T/k7/manifest")" '"games":2,"board_size":7' "... and the 7x7 games are written"

# gt's readers skip KataGo's shards: gt-train finds no shard of its own
gt-model init b1c8 --seed 1 -o "$T/m.bin.gz" 2>/dev/null
gt-train --model "$T/m.bin.gz" --data "$T/k9" --steps 1 --batch 4 -o "$T/o.bin.gz" >/dev/null 2>"$T/err"
[ $? -eq 1 ] && [ ! -e "$T/o.bin.gz" ] && grep -q "no usable shard" "$T/err"
ok $? "gt-train does not train on KataGo's keys"
done_testing
