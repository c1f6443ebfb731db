#!/bin/sh
# curve.sh [FILE]: the least-squares line Elo = a + b*log2(CPU-hours)
# through the points of FILE (default curve.txt beside this script:
# "cpu_hours elo ..." lines, # comments), unweighted; prints b (Elo a
# doubling), the line at 24 CPU-hours, and the CPU-hours where it
# reaches 0 (level with the opponent).
f=${1:-$(dirname "$0")/curve.txt}
awk '!/^#/ && NF >= 2 { x = log($1) / log(2); n++; sx += x; sy += $2; sxx += x * x; sxy += x * $2 }
END {
	if (n < 2) { print "curve.sh: fewer than two points" > "/dev/stderr"; exit 1 }
	b = (n * sxy - sx * sy) / (n * sxx - sx * sx); a = (sy - b * sx) / n
	printf "points %d, %+.0f Elo a doubling, %+.0f at 24 CPU-hours, level at %.0f CPU-hours\n",
		n, b, a + b * log(24) / log(2), (b > 0 ? 2 ^ (-a / b) : -1)
}' "$f"
