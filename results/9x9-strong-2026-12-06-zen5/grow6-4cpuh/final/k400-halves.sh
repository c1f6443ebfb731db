#!/bin/sh
# k400-halves.sh NET OUTDIR: 200 games against KataGo's g170 b6c96 at 400
# visits as results/9x9-strong-2026-12-05/final-gen56/final-400.sh's k400
# (both networks in int8, komi 7, Chinese rules, 9x9), played as two
# matches of 100 games at once, one a core (gt-elo plays on one): seed
# 1003 (the same games as the first 100 of k400's) and seed 1004. Each
# writes OUTDIR/k400-SEED.ndjson (records), .out (gt-elo's summary line
# last) and .err. Run from the source tree with gt's commands on PATH:
#   sh results/9x9-strong-2026-12-06-zen5/grow6-4cpuh/final/k400-halves.sh \
#     results/9x9-strong-2026-12-06-zen5/grow6-4cpuh/z9-gen77.bin.gz /tmp/k400
set -u
N=$1 O=$2
K=${K:-../shared/data/katago/g170-b6c96-s175395328-d26788732.bin.gz}
mkdir -p "$O"
h() { gt-elo "$N" "$K" --games 100 --visits 400 --komi 7 --rules chinese --board-size 9 --seed "$1" \
	--precision int8 --records "$O/k400-$1.ndjson" > "$O/k400-$1.out" 2> "$O/k400-$1.err"; }
h 1003 & h 1004 & wait
