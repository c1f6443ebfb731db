#!/bin/sh
# KataGo's score utility (gt-selfplay(1) --search score-static, score-dynamic)
# at equal visits: the 9x9-strong run's generation 56 against itself, A with
# KataGo's factors (0.1 static, 0.3 dynamic), B without, 64 visits, 400 games
# (200 colour-swapped pairs), komi 7, Chinese rules. From the source tree
# after make:
N=results/9x9-strong-2026-12-05/networks/z9-gen56.bin.gz
D=results/score-utility-2026-12-06
bin/gt-elo "$N" "$N" --games 400 --visits 64 --seed 11 \
	--search-a score-static=0.1,score-dynamic=0.3 --records "$D/games.ndjson" | tail -n 1 > "$D/summary.json"
gzip -f "$D/games.ndjson"
# the losing margins by player
zcat "$D/games.ndjson.gz" | /usr/bin/python3 "$D/margins.py" /dev/stdin
