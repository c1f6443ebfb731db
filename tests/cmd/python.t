#!/bin/sh
# share/gt/python: gtnet.py reads and writes gt networks byte-exactly, and
# train.py continues a network on gt's shards with PyTorch and writes a
# file that gt-model, gt-elo and gt-selfplay take (the README's example).
. "${GT_SRC:-.}/tests/cmd/tap.sh"
PY=/usr/bin/python3
$PY -c 'import torch, numpy' 2>/dev/null || skip_all "no /usr/bin/python3 with torch and numpy"
P=$GT_SRC/share/gt/python

gt-model init b2c16 --seed 3 -o "$T/in.bin.gz"
$PY -c 'import sys; sys.path.insert(0, sys.argv[1]); import gtnet
h, t = gtnet.read(sys.argv[2]); gtnet.write(sys.argv[3], h, t)
gtnet.GtNet.from_file(sys.argv[2]).to_file(sys.argv[4])' "$P" "$T/in.bin.gz" "$T/a.bin.gz" "$T/b.bin.gz"
ok $? "gtnet.py: read, write, and through a torch.nn.Module"
cmp -s "$T/in.bin.gz" "$T/a.bin.gz" && cmp -s "$T/in.bin.gz" "$T/b.bin.gz"
ok $? "both byte-identical to the original"

gt-selfplay --model none --games 2 --visits 8 --cheap-visits 4 --full-prob 1 --board-size 7 \
	--seed 1 >"$T/g.ndjson" 2>/dev/null
gt-shard -o "$T/d" "$T/g.ndjson" >/dev/null 2>"$T/e"
ok $? "shards of two 7x7 games"
$PY "$P/train.py" --model "$T/in.bin.gz" --data "$T/d" -o "$T/out.bin.gz" --steps 4 --batch 16 \
	2>"$T/terr"
ok $? "train.py: 4 steps"
gt-model describe "$T/out.bin.gz" >"$T/o.json"
ok $? "gt-model describes its output"
set -- $($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["steps"], d["rows"], d["parent"])' "$T/o.json")
is "$1 $2" "4 64" "steps and rows continue the input's"
is "$3" "$(sha256sum "$T/in.bin.gz" | cut -d' ' -f1)" "its parent is the input"
gt-elo --games 2 --visits 4 --board-size 7 "$T/out.bin.gz" none >"$T/elo" 2>"$T/eerr"
ok $? "gt-elo plays it"

# the auxiliary policy head: train.py learns it too (its tensors move,
# the opponent's replies from the shards), gt-elo plays the result
gt-model init b2c16a --seed 3 -o "$T/ina.bin.gz"
$PY "$P/train.py" --model "$T/ina.bin.gz" --data "$T/d" -o "$T/outa.bin.gz" --steps 4 --batch 16 \
	2>"$T/terr"
ok $? "train.py: 4 steps of b2c16a"
is "$($PY -c 'import sys; sys.path.insert(0, sys.argv[1]); import gtnet, numpy as np
(h, a), (_, b) = gtnet.read(sys.argv[2]), gtnet.read(sys.argv[3])
print(h["heads"], all(not np.array_equal(a[k], b[k]) for k in ("pol.aux.w", "pol.aux.pass.w")))' \
	"$P" "$T/ina.bin.gz" "$T/outa.bin.gz")" "1 True" "its output keeps the head, trained"
gt-elo --games 2 --visits 4 --board-size 7 "$T/outa.bin.gz" none >"$T/elo" 2>"$T/eerr"
ok $? "gt-elo plays it"

# shards of KataGo's keys in the same folder are not gt's: the Dataset skips them
gt-shard -o "$T/d" --katago-keys --run 1 "$T/g.ndjson" >/dev/null 2>"$T/e"
ok $? "KataGo's keys in the same folder"
is "$($PY -c 'import sys; sys.path.insert(0, sys.argv[1]); import gtnet
w = gtnet.ShardWindow(sys.argv[2], seed=1); print(len(w), w[0][0].shape[0])' "$P" "$T/d")" \
	"$(grep -v '"keys"' "$T/d/manifest" | $PY -c 'import json,sys; print(sum(json.loads(l)["rows"] for l in sys.stdin), 15)')" \
	"ShardWindow takes gt's rows only"
done_testing
