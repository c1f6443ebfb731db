#!/bin/sh
# gt-worker(1), the volunteer's command: on PATH from the bin folder, its
# progress lines (one a finished game, parsed), the log's rotation at a
# small log_max, and Ctrl-C (SIGINT to the whole process group, as a
# terminal sends it) in mid-batch keeping and uploading every finished
# game. The real gt-selfplay plays, against a file:// store.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
S=$T/store
mkdir -p "$S"

cfg() { # name [key=value...]
	_w=$1; shift
	worker_cfg "$_w" "board_size = 5" "visits = 8" "cheap_visits = 4" "parallel_games = 2" "$@"
}
games() { # games WORKER: records uploaded by WORKER
	for f in "$S"/games/"$1"-*; do [ -f "$f" ] && zcat "$f"; done | wc -l
}
# a command started as from a terminal: its own process group (setsid),
# SIGINT not ignored (sh ignores it in what it starts with &):
#   $interactive CMD... &
interactive="setsid perl -e \$SIG{INT}=q(DEFAULT);exec(@ARGV)"
# mid_batch WORKER N: wait until WORKER's batch in tmp/ has N games (30 s
# at most); seen: the games there
mid_batch() {
	_i=0
	while [ $_i -lt 300 ] && [ "$(cat "$T/$1"/tmp/*.ndjson 2>/dev/null | wc -l)" -lt "$2" ]; do
		sleep 0.1; _i=$((_i + 1))
	done
	seen=$(cat "$T/$1"/tmp/*.ndjson | wc -l)
}
# watch PID: PID's process group killed after 120 s (a worker that does
# not stop); the watchdog's PID in dog
watch() { ( sleep 120; kill -KILL -"$1" ) 2>/dev/null & dog=$!; }

command -v gt-worker > /dev/null; ok $? "gt-worker is on PATH (GT_BIN)"
check_help gt-worker --progress
gt-worker --frob 2>"$T/err"; is $? 2 "an unknown option: exit 2"
grep -q "^usage: gt-worker" "$T/err"; ok $? "the usage names gt-worker"

# the network the store publishes: its name in every progress line
gt-model init b1c8 --series vol --seed 1 -o "$T/net.bin.gz" 2>"$T/err"
echo '{"a":"x","b":"y","games":10,"wins":7,"draws":0,"losses":3,"score":0.7,"elo":147.2,"elo_ci95":[-80.5,374.9],"los":0.9}' |
	gt-publish --candidate "$T/net.bin.gz" --store "$S" --threshold 0 > /dev/null 2>"$T/err"
ok $? "a network published"
net=$(jq -r .name "$S/models/latest.json")

# --progress: a line per finished game, parsed field by field
cfg alice "games_per_batch = 5" "batches = 2"
gt-worker -c "$T/alice.cfg" --progress > "$T/out" 2>"$T/err"; ok $? "two batches with --progress"
is "$(games alice)" 10 "ten games uploaded"
re='^alice: \([0-9]*\) games (\([0-9]*\)/5 of batch \([0-9]*\)), \([0-9.]*\) moves/s, network \(.*\), \([0-9]*\) batch\(es\)\{0,1\} uploaded$'
grep "^alice: [0-9]* games" "$T/err" | sed "s|$re|\1 \2 \3 \4 \5 \6|" > "$T/lines"
is "$(wc -l < "$T/lines")" 10 "ten progress lines"
is "$(cut -d' ' -f1 "$T/lines" | tr '\n' ' ')" "1 2 3 4 5 6 7 8 9 10 " "the games since the start, one a line"
is "$(cut -d' ' -f2,3 "$T/lines" | tr '\n' ,)" "1 1,2 1,3 1,4 1,5 1,1 2,2 2,3 2,4 2,5 2," "the game of its batch and the batch"
is "$(cut -d' ' -f5 "$T/lines" | sort -u)" "$net" "the network in use: $net"
is "$(cut -d' ' -f6 "$T/lines" | tr '\n' ' ')" "0 0 0 0 0 1 1 1 1 1 " "the uploads done: none in batch 1, one in batch 2"
awk '$4 + 0 <= 0 { bad = 1 } END { exit bad }' "$T/lines"; ok $? "moves per second above 0"
grep -q "uploaded alice-" "$T/err"; ok $? "the log's lines too"
test ! -s "$T/out"; ok $? "nothing on stdout"
is "$(grep -c '^gt-selfplay: [0-9]*/5 games' "$T/alice/worker.log")" 2 \
	"the log: one gt-selfplay summary a batch, no line per game"

# not a terminal, no --progress: nothing on stderr; a terminal: progress
cfg bob "games_per_batch = 3"
gt-worker -c "$T/bob.cfg" --once > "$T/out" 2>"$T/err"; ok $? "--once, stderr a file"
test ! -s "$T/err"; ok $? "nothing on stderr"
script -qec "gt-worker -c '$T/bob.cfg' --once" /dev/null > "$T/tty" 2>&1
is "$(tr -d '\r' < "$T/tty" | grep -c '^bob: [0-9]* games ([123]/3 of batch 1)')" 3 "on a terminal: a line per game by default"
script -qec "gt-worker -c '$T/bob.cfg' --once --no-progress" /dev/null > "$T/tty" 2>&1
tr -d '\r' < "$T/tty" | grep -q '^bob: [0-9]* games'; is $? 1 "--no-progress: none"
is "$(games bob)" 9 "every game uploaded"

# precision: gt-selfplay's --precision, named in the log; a CPU without the
# kernels (forced here by GT_NO_INT8) plays in fp32 and gt-selfplay says so
cfg dora "games_per_batch = 2" "precision = int8"
GT_NO_INT8=1 gt-worker -c "$T/dora.cfg" --once 2>"$T/err"; ok $? "precision = int8, GT_NO_INT8 set"
grep -q "dora: playing 2 games with $net.*, precision int8$" "$T/dora/worker.log"; ok $? "the log names the batch's precision"
grep -q '^gt-selfplay: .*fp32, not int8: GT_NO_INT8 is set$' "$T/dora/worker.log"
ok $? "gt-selfplay was asked for int8 and said why it played fp32"
is "$(games dora)" 2 "the batch uploaded"
cfg dora "games_per_batch = 2"
gt-worker -c "$T/dora.cfg" --once 2>"$T/err"; ok $? "precision left out"
is "$(grep -c 'precision fp32$' "$T/dora/worker.log")" 1 "fp32 by default"
cfg dora "precision = fp16"
gt-worker -c "$T/dora.cfg" --once 2>"$T/err"; is $? 2 "precision = fp16: refused, exit 2"
grep -q "dora.cfg: precision must be fp32, bf16 or int8 (got 'fp16')" "$T/err"; ok $? "named, with the value"
is "$(games dora)" 4 "nothing played"

# the log renamed to worker.log.1 when it holds log_max bytes
cfg carol "games_per_batch = 2" "batches = 8" "log_max = 1500"
gt-worker -c "$T/carol.cfg" 2>"$T/err"; ok $? "eight batches with log_max = 1500"
L=$T/carol/worker.log
[ -f "$L.1" ] && [ ! -e "$L.2" ]; ok $? "the log and one old log"
s1=$(wc -c < "$L.1") s0=$(wc -c < "$L")
[ "$s1" -ge 1500 ] && [ "$s1" -lt 2012 ]; ok $? "the old log reached the bound, by less than 512 bytes ($s1)"
[ "$s0" -lt 2012 ]; ok $? "the log is within the bound and 512 ($s0)"
grep -q "stopped after 8 batches" "$L"; ok $? "the newest lines in the log"
grep -q "started" "$L" "$L.1"; is $? 1 "the oldest dropped"
is "$(ls "$T/carol" | grep -c '^worker\.log')" 2 "no other log file"
cfg carol2 "games_per_batch = 2" "batches = 3" "log_max = 0"
gt-worker -c "$T/carol2.cfg" 2>"$T/err"; ok $? "log_max = 0"
[ ! -e "$T/carol2/worker.log.1" ] && grep -q "started" "$T/carol2/worker.log"; ok $? "never rotated"
cfg carol3 "log_max = 1k"
gt-worker -c "$T/carol3.cfg" --once 2>"$T/err"; is $? 2 "log_max not a number: exit 2"
grep -q "log_max must be a number" "$T/err"; ok $? "saying so"

# Ctrl-C in mid-batch: gt-selfplay stops, the games it finished are
# uploaded, every one of them, and the worker exits 0
cfg dave "games_per_batch = 1000000" "board_size = 9"
$interactive gt-worker -c "$T/dave.cfg" 2>"$T/err" &
wpid=$!
watch $wpid
mid_batch dave 20
[ "$seen" -ge 20 ]; ok $? "dave is mid-batch ($seen games finished)"
kill -INT -$wpid
wait $wpid; is $? 0 "Ctrl-C: exit 0"
kill $dog
n=$(games dave)
[ "$n" -ge "$seen" ]; ok $? "the games finished before it are uploaded ($n)"
is "$(sed -n 's/^gt-selfplay: stopped by a signal: \([0-9]*\) games written.*/\1/p' "$T/dave/worker.log")" "$n" \
	"every game gt-selfplay finished"
for f in "$S"/games/dave-*; do zcat "$f"; done | gt-validate --board-size 9 > "$T/valid" 2>"$T/err"
is "$(wc -l < "$T/valid")" "$n" "each a whole record gt-validate accepts"
is "$(ls "$S/games" | grep -c '^dave-')" 1 "in one batch"
is "$(find "$T/dave/pending" "$T/dave/tmp" -mindepth 1 | wc -l)" 0 "nothing left in pending/ or tmp/"
grep -q "stop requested: keeping and uploading" "$T/dave/worker.log"; ok $? "the log says so"

# SIGINT to the worker alone (kill -INT, gt-selfplay not signalled): the
# worker stops gt-selfplay and uploads what it finished
cfg erin "games_per_batch = 1000000"
$interactive gt-worker -c "$T/erin.cfg" 2>"$T/err" &
wpid=$!
watch $wpid
mid_batch erin 5
kill -INT $wpid
wait $wpid; is $? 0 "SIGINT to the worker alone: exit 0"
kill $dog
n=$(games erin)
[ "$n" -ge 5 ]; ok $? "its finished games uploaded ($n)"
is "$(sed -n 's/^gt-selfplay: stopped by a signal: \([0-9]*\) games written.*/\1/p' "$T/erin/worker.log")" "$n" \
	"every game gt-selfplay finished"

done_testing
