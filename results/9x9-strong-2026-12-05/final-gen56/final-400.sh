#!/bin/sh
# final-400.sh NET OUTDIR [which...]: issue 30's matches against KataGo's
# g170 b6c96 played 2026-12-06 (an AMX Xeon), both networks in int8
# (amx-int8; the same strength at equal visits as float32,
# results/precision-2026-12-05), komi 7, Chinese rules, 9x9, seed 1003 as
# ../final/final-eval.sh's k64 (the same openings pair by pair); which:
# k400 (200 games at 400 visits), k64i8 (200 at 64, beside k64's float32),
# kp400 (KataGo's own program, KATAGO=path/to/katago, katago-gtp400.cfg
# beside this script: ../final/katago-gtp.cfg with maxVisits 400; the
# first 20 games of k400's seed). Without a which: k400 k64i8. Each writes
# OUTDIR/NAME.ndjson (records), NAME.out (gt-elo's summary line last) and
# NAME.err. Run from the source tree
# with gt's commands on PATH:
#   sh results/9x9-strong-2026-12-05/final-gen56/final-400.sh \
#     results/9x9-strong-2026-12-05/z9-gen56.bin.gz /tmp/f400
set -u
NET=$1 O=$2; shift 2
K=${K:-../shared/data/katago/g170-b6c96-s175395328-d26788732.bin.gz}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$O"
[ $# -gt 0 ] || set -- k400 k64i8
m() { w=$1; shift; gt-elo "$NET" "$@" --komi 7 --rules chinese --board-size 9 --seed 1003 \
	--precision int8 --records "$O/$w.ndjson" > "$O/$w.out" 2> "$O/$w.err"; }
for w; do
  case $w in
  k400) m k400 "$K" --games 200 --visits 400 ;;
  k64i8) m k64i8 "$K" --games 200 --visits 64 ;;
  kp400) m kp400 "gtp:${KATAGO:-katago} gtp -model $K -config $here/katago-gtp400.cfg" --games 20 --visits 400 ;;
  *) echo "final-400.sh: $w: not k400, k64i8 or kp400" >&2; exit 1 ;;
  esac
done
