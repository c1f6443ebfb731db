#!/bin/sh
# gt-train learns from real games: Debian's goban-original-games
# (/usr/share/goban) through gt-sgf, duplicate games dropped, every tenth
# game held out, gt-augment, gt-shard (19x19), a few hundred steps of a
# small network; the held-out policy top-1 accuracy must be far above the
# best position-independent guess (the most frequent move point of the
# training rows). The longer run of the figure in the report is by hand.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
PY=/usr/bin/python3
command -v gt-sgf >/dev/null || skip_all "gt-sgf not built"
ls /usr/share/goban/*.sgf >/dev/null 2>&1 || skip_all "no /usr/share/goban (goban-original-games)"
$PY -c 'import numpy' 2>/dev/null || skip_all "no numpy for /usr/bin/python3"

# every other file (about 300 games), to keep the test short
gt-sgf $(ls /usr/share/goban/*.sgf /usr/share/goban/*.mgt | awk 'NR % 2') >"$T/all.ndjson" 2>"$T/sgf.err"
n=$(wc -l <"$T/all.ndjson" | tr -d ' ')
[ "$n" -ge 250 ]; ok $? "gt-sgf: $n games"
$PY "$GT_SRC/tests/py/split_games.py" "$T/all.ndjson" "$T/train.ndjson" "$T/held.ndjson"
ok $? "unique games split by game: $(wc -l <"$T/train.ndjson" | tr -d ' ') train, $(wc -l <"$T/held.ndjson" | tr -d ' ') held out"
gt-augment --seed 1 "$T/train.ndjson" >"$T/train-aug.ndjson" 2>"$T/e"; ok $? "gt-augment"
gt-shard -o "$T/train" --rows 20000 "$T/train-aug.ndjson" >/dev/null 2>"$T/e"
test -s "$T/train/manifest"; ok $? "gt-shard: training shards"
gt-shard -o "$T/held" --rows 20000 "$T/held.ndjson" >/dev/null 2>"$T/e"
test -s "$T/held/manifest"; ok $? "gt-shard: held-out shards"

gt-train --init b2c16 --data "$T/train" --window 20000 --steps 200 --batch 32 --lr 0.003 \
	--log-every 100 --validate "$T/held" --validate-rows 1000 --validate-every 200 \
	-o "$T/m.bin.gz" >"$T/metrics" 2>"$T/e"
ok $? "200 steps of b2c16 on 19x19"
$PY - "$T/train" "$T/held" "$T/metrics" >"$T/r" <<'PYEOF'
import glob, json, sys
import numpy as np
def targets(d):
    return np.concatenate([np.load(f)["policy"].argmax(1)
                           for f in sorted(glob.glob(d + "/run_*/*.npz"))])
tr, he = targets(sys.argv[1]), targets(sys.argv[2])
best = np.bincount(tr).argmax()
# on the rows gt-train evaluates (the first of its window) and on all
base = max(float((he[:1000] == best).mean()), float((he == best).mean()))
m = [json.loads(l) for l in open(sys.argv[3]) if '"val_top1"' in l]
acc = m[-1]["val_top1"]
print("# baseline (point %d, the most frequent in training): %.4f; held-out top-1 at step %d: %.4f"
      % (best, base, m[-1]["step"], acc))
print("%d held-out top-1 %.3f >= 0.08 and >= 5x the baseline %.4f"
      % (not (acc >= 0.08 and acc >= 5 * base), acc, base))
print("%d held-out policy loss fell: %.3f -> %.3f"
      % (not (m[-1]["val_policy"] < m[0]["val_policy"] - 1), m[0]["val_policy"], m[-1]["val_policy"]))
PYEOF
while read -r st rest; do
	if [ "$st" = "#" ]; then diag "$rest"; else ok "$st" "$rest"; fi
done <"$T/r"
done_testing
