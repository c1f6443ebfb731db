#!/bin/sh
# share/gt/demo ci (make demo DEMO=ci): the whole loop with real training
# ends with a table of two generations; its folder goes under $T.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-train >/dev/null && command -v gt-elo >/dev/null ||
	skip_all "gt-train or gt-elo is not built"
TMPDIR=$T sh "$GT_SRC/share/gt/demo" ci > "$T/out" 2> "$T/err"
ok $? "demo ci exits 0"
is "$(grep -c '^[12] ' "$T/out")" 2 "the table has two generations"
grep -q '^1 .* vs none ' "$T/out"; ok $? "generation 1 was matched against the uniform evaluator"
grep -q '^2 .*demo-b1c8-s300-' "$T/out"; ok $? "generation 2 was published after 300 steps"
D=$(ls -d "$T"/gt-demo.*)
is "$(wc -l < "$D/trainer/generations.ndjson")" 2 "generations.ndjson has two lines"
is "$(ls "$D/store/games" | wc -l)" 4 "two rounds of two workers' batches in the store (generation 0, and with generation 1)"
grep -q "generation 0: alice and bob play" "$T/err"; ok $? "progress on stderr"
[ -s "$D/store/stats/contributions.json" ]; ok $? "contributions counted"
done_testing
