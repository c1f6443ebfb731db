#!/bin/sh
# pull.sh: gt-sync pull is linear in the batches it takes, not in the
# length of its state file (issue 17, item 11): 1,000 small batches
# pulled from a local store with an empty state, then the same with a
# state that already lists 300,000 other batches; the ratio of the two
# times (about 1 when the state is appended to, not rewritten per batch).
# Run by bench/run with GT_BIN and GT_SRC set; N and BIG override the
# counts.
: "${GT_SRC:=.}" "${GT_BIN:=$GT_SRC/bin}"
[ -x "$GT_BIN/gt-sync" ] || { echo "pull.sh: no $GT_BIN/gt-sync"; exit 0; }
N=${N:-1000} BIG=${BIG:-300000}
d=$(mktemp -d "${TMPDIR:-/tmp}/gt-bench-pull.XXXXXX")
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/games"
/usr/bin/python3 - "$d" "$N" "$BIG" <<'PY'
import gzip, os, sys
d, n, big = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    with open(os.path.join(d, "games", "w%04d-b.ndjson.gz" % i), "wb") as f:
        f.write(gzip.compress(b'{"g":%d}\n' % i, 1))
with open(os.path.join(d, "big.state"), "w") as f:
    for i in range(big):
        f.write("old-%07d-x.ndjson.gz\tok\n" % i)
PY
cp "$d/big.state" "$d/big.state0"
run() { # run STATE: seconds for one pull of the N batches
	t0=$(date +%s.%N)
	"$GT_BIN/gt-sync" -q pull "$d/games/" --state "$d/$1" > "$d/out" || exit 1
	t1=$(date +%s.%N)
	[ "$(wc -l < "$d/out")" -eq "$N" ] || { echo "pull.sh: wrong count"; exit 1; }
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
te=$(run empty.state)
tb=$(run big.state)
lines=$(wc -l < "$d/big.state")
[ "$lines" -eq $((BIG + N)) ] || { echo "pull.sh: the state has $lines lines"; exit 1; }
awk -v n="$N" -v big="$BIG" -v a="$te" -v b="$tb" 'BEGIN {
	printf "gt-sync pull %d batches: %.2f s with an empty state, %.2f s with %d lines (ratio %.2f)\n",
	    n, a, b, big, b / a }'
