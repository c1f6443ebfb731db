#!/bin/sh
# issue 30: the final network against KataGo's own program (v1.17.2, Eigen, g170 b6c96, 64 visits, one thread), 20 games
NET=/work/main/results/9x9-strong-2026-12-03/networks/z9-gen12-b4c32g2.bin.gz
K=/work/shared/data/katago/g170-b6c96-s175395328-d26788732.bin.gz
OV="logDir=/work/runs/kprog/logs,rules=chinese,allowResignation=false,ponderingEnabled=false,maxVisits=64,numSearchThreads=1,numEigenThreadsPerModel=1"
/work/main/bin/gt-elo "$NET" "gtp:/work/katago-build/build/katago gtp -config /work/main/tests/data/katago/gtp_example.cfg -override-config $OV -model $K" \
  --games 20 --parallel-games 2 --visits 64 --komi 7 --rules chinese --board-size 9 --seed 1005 \
  --records /work/runs/kprog/kprog.ndjson --sgf /work/runs/kprog/sgf --gtp-timeout 120 > kprog.out 2> kprog.err
