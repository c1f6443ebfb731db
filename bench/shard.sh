#!/bin/sh
# shard.sh: gt-shard end to end (JSON parsing, replay, features, shards),
# rows per second on 400 generated 9x9 games, plain and gzip input.
# Run by bench/run with GT_BIN and GT_SRC set.
: "${GT_SRC:=.}" "${GT_BIN:=$GT_SRC/bin}"
[ -x "$GT_BIN/gt-shard" ] || { echo "shard.sh: no $GT_BIN/gt-shard"; exit 0; }
/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "shard.sh: no numpy"; exit 0; }
d=$(mktemp -d "${TMPDIR:-/tmp}/gt-bench-shard.XXXXXX")
trap 'rm -rf "$d"' EXIT
/usr/bin/python3 "$GT_SRC/tests/shard_check.py" games 400 3 >"$d/g.ndjson"
gzip -1 -c "$d/g.ndjson" >"$d/g.ndjson.gz"
for f in g.ndjson g.ndjson.gz; do
	t0=$(date +%s.%N)
	"$GT_BIN/gt-shard" -o "$d/out-$f" --rows 10000 <"$d/$f" >"$d/m" || exit 1
	t1=$(date +%s.%N)
	rows=$(sed 's/.*"rows":\([0-9]*\).*/\1/' "$d/m" | awk '{s += $1} END {print s}')
	bytes=$(wc -c <"$d/$f")
	awk -v r="$rows" -v a="$t0" -v b="$t1" -v f="$f" -v n="$bytes" 'BEGIN {
		printf "gt-shard 9x9 %s: %d rows in %.2f s, %.0f rows/s (%.1f MB of input)\n",
		    f, r, b - a, r / (b - a), n / 1e6 }'
done
