#!/bin/sh
# final.sh OUTDIR: the closing matches of this run, 64 visits, komi 7,
# Chinese rules, 9x9, run from the source tree with gt's commands on PATH.
# gt-elo plays on one core, so every match of 200 games is two of 100,
# run at the same time:
#   l10-1001, l10-1002   generation 40 against GNU Go level 10. This is
#                        results/9x9-strong-2026-12-05/final/final-eval.sh's
#                        l10; seed 1001 plays the same games as the first
#                        100 of the fourth run's final-gen50.
#   base-1, base-2       generation 40 (1.59 CPU-hours) against the fourth
#                        run's generation 55 (1.66 CPU-hours,
#                        results/9x9-strong-2026-12-06-zen5/networks).
#   g39-1, g39-2         generation 39 (1.21 CPU-hours, before b6c64's
#                        first training) against the fourth run's
#                        generation 41 (1.20 CPU-hours).
# Each match writes OUTDIR/NAME.ndjson (the records), NAME.out (gt-elo's
# summary line) and NAME.err. For the interval of two halves together,
# sum their pentanomials and give them to tests/elo_ci.py.
set -u
O=$1
R=results/9x9-strong-2026-12-07-zen5/networks
F=results/9x9-strong-2026-12-06-zen5/networks
G10="gtp:/usr/games/gnugo --mode gtp --level 10 --chinese-rules --capture-all-dead"
mkdir -p "$O"
m() { name=$1 net=$2 opp=$3 seed=$4
	gt-elo "$net" "$opp" --games 100 --visits 64 --komi 7 --rules chinese --board-size 9 --seed "$seed" \
		--records "$O/$name.ndjson" > "$O/$name.out" 2> "$O/$name.err"; }
m base-1 $R/z9-gen40.bin.gz $F/z9-gen55.bin.gz 1 & m base-2 $R/z9-gen40.bin.gz $F/z9-gen55.bin.gz 2 & wait
m g39-1 $R/z9-gen39.bin.gz $F/z9-gen41.bin.gz 1 & m g39-2 $R/z9-gen39.bin.gz $F/z9-gen41.bin.gz 2 & wait
m l10-1001 $R/z9-gen40.bin.gz "$G10" 1001 & m l10-1002 $R/z9-gen40.bin.gz "$G10" 1002 & wait
