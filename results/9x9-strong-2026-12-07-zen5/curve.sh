#!/bin/sh
# curve.sh [FILE]: the least-squares line Elo = a + b*log2(CPU-hours)
# through the points of FILE (default curve.txt beside this script:
# "cpu_hours elo ..." lines, # comments), unweighted; prints b (Elo a
# doubling), the line at 24 CPU-hours, and the CPU-hours where it
# reaches 0 (level with the opponent), or "never" when it does not rise.
f=${1:-$(dirname "$0")/curve.txt}
awk '!/^#/ && NF >= 2 && $1 <= 0 { printf "curve.sh: line %d: CPU-hours %s is not above 0\n", NR, $1 > "/dev/stderr"; bad = 1; exit 1 }
!/^#/ && NF >= 2 { x = log($1) / log(2); n++; sx += x; sy += $2; sxx += x * x; sxy += x * $2 }
END {
	if (bad) exit 1
	if (n < 2 || n * sxx - sx * sx <= 0) { print "curve.sh: fewer than two different CPU-hours" > "/dev/stderr"; exit 1 }
	b = (n * sxy - sx * sy) / (n * sxx - sx * sx); a = (sy - b * sx) / n
	printf "points %d, %+.0f Elo a doubling, %+.0f at 24 CPU-hours, ", n, b, a + b * log(24) / log(2)
	if (b > 0) printf "level at %.0f CPU-hours\n", 2 ^ (-a / b)
	else print "never level (the line does not rise)"
}' "$f"
