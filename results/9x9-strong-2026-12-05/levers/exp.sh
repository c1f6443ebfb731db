#!/bin/sh
# optimizer state carried across generations (B) against the trainer's fresh start from each export (A):
# 2000 steps after generation 31 of strong7 on a copy of its window
B=/work/main/bin
W="--data data --window 146031 --batch 128 --board-size 9 --series z9 --lr 0.001 --ema 0.99 --export ema --threads 1"
( cp s31.state b.state; $B/gt-train --model g30.bin.gz $W --steps 2500 --seed 31 --state b.state -o b.bin.gz > b.ndjson 2> b.err ) &
( m=g31.bin.gz; for i in 1 2 3 4; do $B/gt-train --model $m $W --steps 500 --seed $((31 + i)) --state a$i.state -o a$i.bin.gz > a$i.ndjson 2> a$i.err; m=a$i.bin.gz; done ) &
wait
$B/gt-elo b.bin.gz a4.bin.gz --games 100 --visits 64 --board-size 9 --komi 7 --rules chinese --seed 77 --records ba.ndjson > ba.json 2> ba.err
