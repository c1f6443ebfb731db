#!/bin/sh
# sgf.sh: gt-sgf on one collection of 40,000 and one of 300,000 small 9x9
# games (issue 17, item 12): seconds, games per second, and the ratio of
# the two times against the ratio of the sizes (7.5 when reading is linear
# in the games per file; it was quadratic, 56, when every game_id hashed
# the whole file). Run by bench/run with GT_BIN set.
: "${GT_SRC:=.}" "${GT_BIN:=$GT_SRC/bin}"
[ -x "$GT_BIN/gt-sgf" ] || { echo "sgf.sh: no $GT_BIN/gt-sgf"; exit 0; }
d=$(mktemp -d "${TMPDIR:-/tmp}/gt-bench-sgf.XXXXXX")
trap 'rm -rf "$d"' EXIT
for n in 40000 300000; do
	awk -v n=$n 'BEGIN { for (i = 0; i < n; i++)
		printf "(;GM[1]FF[4]SZ[9]KM[7.5]RE[B+R];B[ee];W[%c%c])\n", 97 + i % 4, 97 + int(i / 4) % 4 }' \
		> "$d/$n.sgf"
	t0=$(date +%s.%N)
	"$GT_BIN/gt-sgf" "$d/$n.sgf" > "$d/$n.nd" || exit 1
	t1=$(date +%s.%N)
	echo "$n $t0 $t1 $(wc -l < "$d/$n.nd")" >> "$d/times"
done
awk '{ t[NR] = $3 - $2; n[NR] = $1;
	printf "gt-sgf %d games in one file: %d records in %.2f s, %.0f games/s\n", $1, $4, t[NR], $1 / t[NR] }
	END { printf "gt-sgf 300000/40000 games: time ratio %.1f (linear: %.1f, quadratic: %.0f)\n",
	      t[2] / t[1], n[2] / n[1], (n[2] / n[1]) ^ 2 }' "$d/times"
