#!/bin/sh
# final.sh GEN OUTDIR [WHICH...]: the closing matches of this run at
# generation GEN, 64 visits, komi 7, Chinese rules, 9x9, run from the
# source tree with gt's commands on PATH. gt-elo plays on one core, so
# every match of 200 games is two of 100, run at the same time:
#   l10   l10-1001, l10-1002: against GNU Go level 10 (seed 1001 plays
#         the same games as results/9x9-strong-2026-12-05/final/
#         final-eval.sh's l10)
#   k64   k64-1003, k64-1004: against KataGo's g170 b6c96 (seed 1003 the
#         same games as final-eval.sh's k64)
#   gNN   gNN-1, gNN-2: against grow6's generation NN (results/9x9-strong-
#         2026-12-06-zen5/grow6-4cpuh/networks), the recipe with global
#         pooling and b6c64 grown from generation 40
#   sNN   sNN-1, sNN-2: against this run's own generation NN (networks/)
#   k400  k400-1003, k400-1004: against KataGo's g170 b6c96 at 400 visits,
#         both networks in int8, by results/9x9-strong-2026-12-06-zen5/
#         grow6-4cpuh/final/k400-halves.sh
# Run as: final.sh 62 OUT g70 l10 k64 g60 g65; final.sh 69 OUT l10 k64
# g77 (final-gen69); final.sh 83 OUT k64 s69 l10 (final-gen83); final.sh
# 97 OUT k64 k400 l10 s83 (final-gen97)
# The 64-visit matches play at gt-elo's default precision.
# Each match writes OUTDIR/NAME.ndjson (the records), NAME.out (gt-elo's
# summary line) and NAME.err. For the interval of two halves together,
# sum their pentanomials and give them to tests/elo_ci.py.
set -u
GEN=$1 O=$2; shift 2
R=results/9x9-strong-2026-12-07-zen5/networks
F=results/9x9-strong-2026-12-06-zen5/grow6-4cpuh/networks
K=${K:-../shared/data/katago/g170-b6c96-s175395328-d26788732.bin.gz}
G10="gtp:/usr/games/gnugo --mode gtp --level 10 --chinese-rules --capture-all-dead"
N=$R/z9-gen$GEN.bin.gz
mkdir -p "$O"
m() { name=$1 opp=$2 seed=$3
	gt-elo "$N" "$opp" --games 100 --visits 64 --komi 7 --rules chinese --board-size 9 --seed "$seed" \
		--records "$O/$name.ndjson" > "$O/$name.out" 2> "$O/$name.err"; }
# halves NAME1 NAME2 OPP SEED1 SEED2: the two matches of 100, one a core
halves() { m "$1" "$3" "$4" & m "$2" "$3" "$5" & wait; }
for w; do
	case $w in
	l10) halves l10-1001 l10-1002 "$G10" 1001 1002 ;;
	k64) halves k64-1003 k64-1004 "$K" 1003 1004 ;;
	k400) K=$K sh results/9x9-strong-2026-12-06-zen5/grow6-4cpuh/final/k400-halves.sh "$N" "$O" ;;
	g[0-9]*) halves "$w-1" "$w-2" "$F/z9-gen${w#g}.bin.gz" 1 2 ;;
	s[0-9]*) halves "$w-1" "$w-2" "$R/z9-gen${w#s}.bin.gz" 1 2 ;;
	*) echo "final.sh: unknown match $w" >&2; exit 2 ;;
	esac
done
