#!/bin/sh
# issue 32: gt-gtp with 2 search threads against 1 thread at equal time
# (0.1 s a move wall clock), one game in flight so that the side to move
# has both cores; the final network of results/9x9-strong-2026-12-03.
NET=/work/main/tests/data/katago/gt-z9-b4c32g2.bin.gz
G=${GAMES:-100}
T=${MOVE_TIME:-0.1}
/work/main/bin/gt-elo "gtp:/work/main/bin/gt-gtp -q --model $NET --threads 2 --visits 1000000 --max-time $T" \
  "gtp:/work/main/bin/gt-gtp -q --model $NET --threads 1 --visits 1000000 --max-time $T" \
  --games $G --parallel-games 1 --komi 7 --rules chinese --board-size 9 --seed 2001 \
  --records /work/runs/thr/thr.ndjson --progress > thr.out 2> thr.err
