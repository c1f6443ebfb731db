#!/bin/sh
# Strength at equal visits of --precision bf16 and int8 against float32
# (issue 34): one network playing itself, A in the reduced precision, B in
# float32, 400 games each (200 colour-swapped pairs, 4 random opening
# moves a pair), 9x9, komi 7, Chinese rules, through gt-elo. Run from the
# repository root with the binaries of the commit named in README:
#   sh results/precision-2026-12-05/run.sh NAME NETWORK VISITS PREC
# writes results/precision-2026-12-05/NAME.ndjson (records and summary).
set -eu
name=$1 net=$2 visits=$3 prec=$4
out=results/precision-2026-12-05
GT_BIN=${GT_BIN:-bin}
"$GT_BIN/gt-elo" --games 400 --parallel-games 8 --visits "$visits" --board-size 9 \
	--komi 7 --rules chinese --seed 34 --precision "$prec,fp32" --progress \
	"$net" "$net" > "$out/$name.ndjson" 2> "$out/$name.log"
tail -1 "$out/$name.ndjson"
