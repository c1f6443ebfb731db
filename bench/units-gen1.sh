#!/bin/sh
# units-gen1.sh: the outer optimiser's settings for the self-play regime,
# measured where 9x9-from-zero's units mode starts: generation 1, from a
# random b2c16 network, on 500 games of the uniform evaluator in batches
# of 25 split between 4 units by gt-sync pull --share (as share/gt/unit
# does, so the shares are as uneven as in a run). Each setting trains
# the 4 units and gt-outer to 64,000 applied samples (the recipe's 500
# steps of 128 rows); the units' rounds drift apart as in a run (step
# sleeps 0, 0.02, 0.05 and 0.1 s: the fourth is the slow unit), and
# with UNITS_GEN1_KILL=S a random unit or the outer is SIGKILLed every S
# seconds and started again. Printed per setting: versions made, the
# newest version's held-out loss (500 more games of the uniform
# evaluator, 8,192 rows, gt-train --validate), and the largest held-out
# loss of versions 3 onwards (a jump above the random network's 6.0
# is the instability the recipe's quorum avoids). The first line is the
# single trainer (gt-train, 500 steps) on all the rows.
#
#   GT_BIN=$PWD/bin sh bench/units-gen1.sh [LR:MOMENTUM:QUORUM:INNER_STEPS[:INNER_LR[:BATCH]]] ...]
#
# (BATCH: each unit's rows a step, 128 unless given)
#
# Ten minutes, wall-clock driven: make bench skips it unless UNITS_GEN1=1.
# The settings default to the sweep in results/9x9-from-zero-units/README.
: "${GT_SRC:=.}" "${GT_BIN:=$GT_SRC/bin}"
if [ "${GT_BENCH_RUN:-}" = 1 ] && [ "${UNITS_GEN1:-}" != 1 ]; then
	echo "units-gen1.sh: about ten minutes; UNITS_GEN1=1 make bench runs it; skipped"; exit 0
fi
PATH=$GT_BIN:$PATH
[ $# -gt 0 ] || set -- 1.0:0.5:2:10 1.0:0:2:10 1.0:0.3:2:10 1.5:0:2:10 2.0:0:2:10 \
	1.0:0.5:4:10 1.0:0:4:10 1.5:0:4:10 1.5:0.3:4:10 2.0:0:4:10 1.5:0:2:20 1.5:0:4:20
d=$(mktemp -d "${TMPDIR:-/tmp}/gt-bench-units-gen1.XXXXXX")
trap 'touch "$d/stop"; pkill -TERM -f "$d/" 2>/dev/null; wait; rm -rf "$d"' EXIT

play() { # seed out
	gt-selfplay --model none --games 500 --visits 100 --cheap-visits 25 --full-prob 0.25 \
		--board-size 9 --threads 2 --seed "$1" 2>/dev/null > "$2" || exit 1
}
play 11 "$d/g.ndjson"; play 12 "$d/h.ndjson"
gt-validate < "$d/h.ndjson" 2>/dev/null | gt-augment --random | gt-shard -o "$d/held" --run 1 > /dev/null || exit 1
gt-validate < "$d/g.ndjson" 2>/dev/null | gt-augment --random | gt-shard -o "$d/all" --run 1 > /dev/null || exit 1
# 20 batches of 25 games in a file:// store, pulled by share
mkdir -p "$d/b"; split -l 25 -d -a 2 "$d/g.ndjson" "$d/b/x"
for f in "$d"/b/x*; do
	n=w-$(printf %s "$f" | sha256sum | cut -c1-8)
	gzip -c "$f" > "$d/b/$n.ndjson.gz" && gt-sync put "$d/b/$n.ndjson.gz" "file://$d/store/games/$n.ndjson.gz" || exit 1
done
for k in 0 1 2 3; do
	gt-sync pull "file://$d/store/games/" --share "$k/4" --state "$d/pull.$k" 2>/dev/null \
		| gt-validate 2>/dev/null | gt-augment --random | gt-shard -o "$d/share/$k" --run 1 > /dev/null || exit 1
done
gt-model init b2c16 --seed 1 -o "$d/m0.bin.gz" 2>/dev/null || exit 1

held() { # model: "val_total policy value"
	gt-train --model "$1" --data "$d/held" -o "$d/ev.bin.gz" --steps 1 --lr 0 --weight-decay 0 \
		--validate "$d/held" --validate-every 1 --log-every 1 --validate-rows 8192 2>/dev/null \
		| jq -r 'select(.val_total) | "\(.val_total) \(.val_policy) \(.val_value)"' | head -1
}
rows() { jq -s '[.[].rows] | add' "$1"/manifest 2>/dev/null || echo '?'; }
printf 'shares (rows): %s %s %s %s\n' "$(rows "$d/share/0")" "$(rows "$d/share/1")" "$(rows "$d/share/2")" "$(rows "$d/share/3")"
printf '%-30s %8s %9s %8s %8s %9s\n' setting versions held-out policy value max-v3+
gt-train --model "$d/m0.bin.gz" --data "$d/all" -o "$d/s.bin.gz" --steps 500 --batch 128 --lr 0.001 \
	--window 50000 > /dev/null 2>&1 || exit 1
set -- single $(held "$d/s.bin.gz") "$@"
printf '%-30s %8s %9.4f %8.4f %8.4f %9s\n' "single (500 steps)" - "$2" "$3" "$4" -
shift 4

for s in "$@"; do
	IFS=: read -r lr mom q h ilr ub <<EOF
$s
EOF
	: "${ilr:=0.001}" "${ub:=128}"
	r=$d/run; rm -rf "$r" "$d/stop"; mkdir -p "$r"
	( while [ ! -f "$d/stop" ]; do gt-outer --store "file://$r/store" --state "$r/outer" --init "$d/m0.bin.gz" \
		--units 4 --quorum "$q" --lr "$lr" --momentum "$mom" --max-staleness 6 --grace 0.2 --poll 0.2 \
		> /dev/null 2>&1; sleep 0.5; done ) &
	for k in 0 1 2 3; do
		sl=$(echo "0 0.02 0.05 0.1" | cut -d' ' -f$((k + 1)))
		( while [ ! -f "$d/stop" ]; do gt-unit --store "file://$r/store" --data "$d/share/$k" --unit "u$k" \
			--cache "$r/u$k" --state "$r/u$k/state" --inner-steps "$h" --batch "$ub" --window 50000 \
			--lr "$ilr" --codec int8 --poll 0.2 --seed $((k + 1)) --step-sleep "$sl" > /dev/null 2>&1; sleep 0.5; done ) &
	done
	t=0
	while :; do
		n=$(cat "$r"/store/diloco/versions/v*.json 2>/dev/null | jq -s '[.[].samples] | add // 0')
		[ "$n" -ge 64000 ] && break
		sleep 0.5; t=$((t + 1))
		if [ -n "${UNITS_GEN1_KILL:-}" ] && [ $((t % (UNITS_GEN1_KILL * 2))) = 0 ]; then
			w=$(shuf -i 0-4 -n 1)
			if [ "$w" = 4 ]; then pkill -KILL -f "gt-outer --store file://$r/store"
			else pkill -KILL -f "gt-unit --store file://$r/store .*--unit u$w "; fi
		fi
	done
	touch "$d/stop"; pkill -TERM -f "file://$r/store" 2>/dev/null; wait
	v=$(ls "$r/store/diloco/versions" | sed -n 's/^v\([0-9]*\)\.bin\.gz$/\1/p' | sort -n | tail -1)
	mx=0 i=3
	while [ "$i" -le "$v" ]; do
		x=$(held "$r/store/diloco/versions/v$i.bin.gz" | cut -d' ' -f1)
		mx=$(echo "$x $mx" | awk '{ print ($1 > $2) ? $1 : $2 }'); i=$((i + 1))
	done
	set -- $(held "$r/store/diloco/versions/v$v.bin.gz")
	printf '%-30s %8s %9.4f %8.4f %8.4f %9.4f\n' "lr $lr m $mom q $q H $h i$ilr b$ub" "$v" "$1" "$2" "$3" "$mx"
done
