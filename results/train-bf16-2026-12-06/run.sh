#!/bin/sh
# mixed-precision training (gt-train --precision bf16) against float32 on a
# recipe's data: the 9x9-strong run of 2026-12-05 after generation 31
# (b4c32g2), 4 generations of 500 steps each as its trainer takes them
# (fresh from each export, EMA 0.99 exported), on a copy of its window;
# held-out: generation 32's games (not in the window), 4096 rows every 50
# steps. Then the two last networks at 64 visits, 200 games.
B=${B:-bin}
W="--data data --window 146031 --batch 128 --board-size 9 --series z9 --lr 0.001 --ema 0.99 --export ema --threads 1 --validate val --validate-every 50"
for p in fp32 bf16; do
	( m=g31.bin.gz; for i in 1 2 3 4; do
		$B/gt-train --model $m $W --precision $p --steps 500 --seed $((31 + i)) --state $p$i.state -o $p$i.bin.gz > $p$i.ndjson 2> $p$i.err || exit 1
		m=$p$i.bin.gz
	done ) &
done
wait
$B/gt-elo bf164.bin.gz fp324.bin.gz --games 200 --visits 64 --board-size 9 --komi 7 --rules chinese --seed 79 --records match.ndjson > match.json 2> match.err
