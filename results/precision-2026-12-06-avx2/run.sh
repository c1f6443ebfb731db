#!/bin/sh
# Strength at equal visits of --precision int8 on the avx2 kernel
# (vpmaddubsw, activations quantized to 0..127) against float32 (issue
# 34): one network playing itself, A in int8, B in float32, 400 games
# each (200 colour-swapped pairs, 4 random opening moves a pair), 9x9,
# komi 7, Chinese rules, through gt-elo, as results/precision-2026-12-05
# (the same seed, networks and visits). On a CPU with VNNI, GT_NO_VNNI=1
# (and GT_NO_AMX=1 where it has tiles) gives the same kernel. Run from the
# repository root with the binaries of the commit named in README:
#   sh results/precision-2026-12-06-avx2/run.sh NAME NETWORK VISITS
# writes results/precision-2026-12-06-avx2/NAME.ndjson (records and
# summary) and NAME.log (gt-elo's progress; its first lines name the kernel).
set -eu
name=$1 net=$2 visits=$3
out=results/precision-2026-12-06-avx2
GT_BIN=${GT_BIN:-bin}
# the avx2 kernel on any x86-64 CPU, VNNI or not
export GT_NO_VNNI=1 GT_NO_AMX=1
"$GT_BIN/gt-elo" --games 400 --parallel-games 8 --visits "$visits" --board-size 9 \
	--komi 7 --rules chinese --seed 34 --precision "int8,fp32" --progress \
	"$net" "$net" > "$out/$name.ndjson" 2> "$out/$name.log"
tail -1 "$out/$name.ndjson"
