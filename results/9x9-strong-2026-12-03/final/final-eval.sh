#!/bin/sh
# final-eval.sh NET OUTDIR [which...]: the closing matches of issue 30.
# which: l10 l1 k64 k400 (default all); each writes OUTDIR/NAME.json (summary) and NAME.ndjson (records)
set -u
NET=$1 O=$2; shift 2
K=/work/shared/data/katago/g170-b6c96-s175395328-d26788732.bin.gz
G1="gtp:/usr/games/gnugo --mode gtp --level 1 --chinese-rules --capture-all-dead"
G10="gtp:/usr/games/gnugo --mode gtp --level 10 --chinese-rules --capture-all-dead"
GAMES=${GAMES:-200}
mkdir -p "$O"
[ $# -gt 0 ] || set -- l10 l1 k64 k400
for w; do
  case $w in
  l10) gt-elo "$NET" "$G10" --games $GAMES --visits 64 --komi 7 --rules chinese --board-size 9 --seed 1001 --records "$O/l10.ndjson" --sgf "$O/l10-sgf" > "$O/l10.out" 2> "$O/l10.err" ;;
  l1) gt-elo "$NET" "$G1" --games $GAMES --visits 64 --komi 7 --rules chinese --board-size 9 --seed 1002 --records "$O/l1.ndjson" > "$O/l1.out" 2> "$O/l1.err" ;;
  k64) gt-elo "$NET" "$K" --games $GAMES --visits 64 --komi 7 --rules chinese --board-size 9 --seed 1003 --records "$O/k64.ndjson" --sgf "$O/k64-sgf" > "$O/k64.out" 2> "$O/k64.err" ;;
  k400) gt-elo "$NET" "$K" --games $GAMES --visits 400 --komi 7 --rules chinese --board-size 9 --seed 1004 --records "$O/k400.ndjson" --sgf "$O/k400-sgf" > "$O/k400.out" 2> "$O/k400.err" ;;
  esac
done
