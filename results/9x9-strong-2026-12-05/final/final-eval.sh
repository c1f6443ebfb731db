#!/bin/sh
# final-eval.sh NET OUTDIR [which...]: the closing matches of issue 30,
# network players at 64 visits, komi 7, Chinese rules, 9x9; which: k64
# l10 (default both), kp64 (KataGo's own program, KATAGO=path/to/katago,
# with katago-gtp.cfg beside this script: 64 visits, one search thread,
# gt's chinese rules key by key (not KataGo's "chinese"), no resignation; the first KP_GAMES (20) games of k64's
# seed, so the same openings pair by pair); each writes OUTDIR/NAME.ndjson (records), NAME.out
# (gt-elo's summary) and NAME.err. Cut short, summ.sh recomputes the
# score and interval from the complete pairs of the records.
set -u
NET=$1 O=$2; shift 2
K=${K:-../shared/data/katago/g170-b6c96-s175395328-d26788732.bin.gz}
G10="gtp:/usr/games/gnugo --mode gtp --level 10 --chinese-rules --capture-all-dead"
GAMES=${GAMES:-200}
mkdir -p "$O"
[ $# -gt 0 ] || set -- k64 l10
for w; do
  case $w in
  l10) gt-elo "$NET" "$G10" --games $GAMES --visits 64 --komi 7 --rules chinese --board-size 9 --seed 1001 --records "$O/l10.ndjson" > "$O/l10.out" 2> "$O/l10.err" ;;
  kp64) gt-elo "$NET" "gtp:${KATAGO:-katago} gtp -model $K -config $(cd "$(dirname "$0")" && pwd)/katago-gtp.cfg" \
    --games ${KP_GAMES:-20} --visits 64 --komi 7 --rules chinese --board-size 9 --seed 1003 --records "$O/kp64.ndjson" > "$O/kp64.out" 2> "$O/kp64.err" ;;
  k64) gt-elo "$NET" "$K" --games $GAMES --visits 64 --komi 7 --rules chinese --board-size 9 --seed 1003 --records "$O/k64.ndjson" > "$O/k64.out" 2> "$O/k64.err" ;;
  esac
done
