"""split_games.py ALL TRAIN HELD: the game records of ALL (NDJSON, e.g. gt-sgf's
output) without repeats (two games whose first 60 moves are the same are one),
split by game: every tenth unique game into HELD, the others into TRAIN.
For tests/cmd/train-games.t and bench/diloco.sh. Standard library only."""
import json
import sys

seen, k = set(), 0
tr, he = open(sys.argv[2], "w"), open(sys.argv[3], "w")
for line in open(sys.argv[1]):
    key = tuple(json.loads(line)["moves"][:60])
    if key in seen:
        continue
    seen.add(key)
    (he if k % 10 == 9 else tr).write(line)
    k += 1
