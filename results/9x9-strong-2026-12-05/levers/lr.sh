#!/bin/sh
# the trainer's generations (fresh start from each export) at lr 0.0003 against 0.001 (arm A of exp.sh):
# 2000 steps after generation 31 of strong7 on a copy of its window
B=/work/main/bin
W="--data data --window 146031 --batch 128 --board-size 9 --series z9 --lr 0.0003 --ema 0.99 --export ema --threads 1"
m=g31.bin.gz; for i in 1 2 3 4; do $B/gt-train --model $m $W --steps 500 --seed $((31 + i)) --state l$i.state -o l$i.bin.gz > l$i.ndjson 2> l$i.err; m=l$i.bin.gz; done
$B/gt-elo l4.bin.gz a4.bin.gz --games 100 --visits 64 --board-size 9 --komi 7 --rules chinese --seed 78 --records la.ndjson > la.json 2> la.err
