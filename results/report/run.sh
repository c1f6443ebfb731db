#!/bin/sh
# run.sh DIR GENERATIONS: the run behind results/report/screenshot.png.
#
# `make demo`'s default setting (share/gt/demo: two workers, alice and bob,
# 64 games each a generation at 100 full / 25 cheap visits; the trainer
# trains b2c16 300 steps of 64 rows a generation, matches each candidate in
# 30 games at 64 visits against the network released before it and
# releases it when its Elo is above 0), for GENERATIONS generations
# instead of 3, with the status page written by the trainer after each
# generation (report = yes). The CPU time of the workers and the trainer
# (user + system, from `times`) goes to DIR/hours.ndjson, one line a
# generation, for gt-report --hours. At the end the workers play one more
# round, with the last network, and the page is made again with the hours:
# DIR/store/site/index.html. Commands from $GT_BIN or PATH; the scripts
# from share/gt beside this file's folder or $GT_SHARE.
set -eu
[ $# = 2 ] || { echo "usage: run.sh DIR GENERATIONS" >&2; exit 2; }
D=$1 G=$2
share=${GT_SHARE:-$(cd "$(dirname "$0")/../../share/gt" && pwd)}
[ -n "${GT_BIN:-}" ] && PATH=$GT_BIN:$PATH
export PATH
mkdir -p "$D"
D=$(cd "$D" && pwd)
S=$D/store
mkdir -p "$S"
echo '{"from_step":0,"board_size":9,"visits":100,"cheap_visits":25,"komi":7}' > "$D/curriculum.ndjson"
for w in alice bob; do
	cat > "$D/$w.cfg" <<EOF
store = file://$S
worker = $w
work_dir = $D/$w
threads = 1
parallel_games = 64
games_per_batch = 64
board_size = 9
visits = 100
cheap_visits = 25
EOF
done
cat > "$D/trainer.cfg" <<EOF
store = file://$S
work_dir = $D/trainer
series = demo
arch = b2c16
min_games = 1
rows_per_shard = 100000
window = 200000
steps = 300
batch = 64
match_games = 30
match_visits = 64
match_board_size = 9
threshold = 0
every_steps = 0
curriculum = $D/curriculum.ndjson
report = yes
EOF
# cpu_now: $cpu_s, the CPU seconds of this shell's finished children so
# far (`times` in this shell: in a $(...) subshell it counts the
# subshell's own children, none)
cpu_now() {
	times > "$D/times.tmp"
	cpu_s=$(sed -n 2p "$D/times.tmp" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, /m|s/); t += a[1] * 60 + a[2] } print t }')
}
play() {
	sh "$share/worker" -c "$D/alice.cfg" --once & a=$!
	sh "$share/worker" -c "$D/bob.cfg" --once & b=$!
	wait $a && wait $b
}
say() { printf '%s run.sh: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
say "generation 0: alice and bob play 64 games each with the uniform evaluator"
play
g=1
while [ $g -le $G ]; do
	say "generation $g: the trainer"
	sh "$share/trainer" -c "$D/trainer.cfg"
	cpu_now
	awk -v g=$g -v s="$cpu_s" 'BEGIN { printf "{\"generation\":%d,\"cpu_hours\":%.4f}\n", g, s / 3600 }' >> "$D/hours.ndjson"
	say "generation $g: $(tail -n 1 "$D/trainer/generations.ndjson")"
	play
	g=$((g + 1))
done
gt-report -q -t "$D/trainer" --window 200000 --hours "$D/hours.ndjson" "file://$S"
say "done: $S/site/index.html"
