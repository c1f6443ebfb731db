#!/bin/sh
# share/gt/worker and share/gt/trainer: settings, the upload queue, SIGTERM
# and SIGKILL mid-batch, the curriculum reaching the worker, flock, and a
# trainer generation resumed at the step that failed. gt-train and gt-elo
# are stand-ins here (tests/cmd/e2e.t runs the real ones).
. "${GT_SRC:-.}/tests/cmd/tap.sh"
WORKER=$GT_SRC/share/gt/worker
TRAINER=$GT_SRC/share/gt/trainer
S=$T/store
mkdir -p "$T/fake" "$S"

# records to replay: real games with the uniform evaluator
gt-selfplay --model none --games 6 --visits 8 --cheap-visits 4 --board-size 5 --seed 1 \
	--worker alice > "$T/records" 2>/dev/null
is "$(wc -l < "$T/records")" 6 "fixture: six games"
# a slow gt-selfplay: one record per FAKE_SLEEP seconds; after FAKE_CUT
# records, half a record and a long pause (a batch cut mid-write)
cat > "$T/fake/gt-selfplay" <<'EOF'
#!/bin/sh
echo "$*" >> "$FAKE_ARGS"
n=1
while [ $# -gt 0 ]; do [ "$1" = --games ] && n=$2; shift; done
i=0
while [ $i -lt "$n" ]; do
	sed -n "$((i % 6 + 1))p" "$FAKE_RECORDS"
	i=$((i + 1))
	if [ -n "${FAKE_CUT:-}" ] && [ $i = "$FAKE_CUT" ]; then
		printf '{"version":1,"cut'
		sleep 20 &
		trap 'kill $!; exit 143' TERM
		wait $!
	fi
	sleep "${FAKE_SLEEP:-0}"
done
EOF
chmod +x "$T/fake/gt-selfplay"
export FAKE_RECORDS="$T/records" FAKE_ARGS="$T/args"

cfg() { # name [key=value...]
	_w=$1; shift
	worker_cfg "$_w" "games_per_batch = 6" "board_size = 5" "$@"
}
batches() { ls "$S/games" 2>/dev/null | grep -c "^$1-" ; }
whole() { # every uploaded batch gunzips and every line is a whole record
	for f in "$S"/games/*; do
		gzip -t "$f" && [ "$(zcat "$f" | grep -vc '}$')" = 0 ] || return 1
	done
}
wait_lines() { # file-glob count: wait until the batch in tmp/ has count lines
	_i=0
	while [ $_i -lt 100 ]; do
		for f in $1; do [ -f "$f" ] && [ "$(wc -l < "$f")" -ge "$2" ] && return 0; done
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

# settings errors
cfg bad "threads = two"
sh "$WORKER" -c "$T/bad.cfg" --once 2>"$T/err"; is $? 2 "a bad number in the settings: exit 2"
grep -q "threads must be a number" "$T/err"; ok $? "saying which key"
printf 'store = %s\nworker = x\nthreds = 2\n' "$S" > "$T/bad2.cfg"
sh "$WORKER" -c "$T/bad2.cfg" --once 2>"$T/err"; is $? 2 "an unknown key: exit 2"
printf 'store = %s\nworker = ../x\n' "$S" > "$T/bad3.cfg"
sh "$WORKER" -c "$T/bad3.cfg" --once 2>"$T/err"; is $? 2 "a worker name with a slash: exit 2"
sh "$WORKER" --frob 2>/dev/null; is $? 2 "an unknown option: exit 2"

# one batch with the uniform evaluator (nothing published yet)
cfg alice
GT_BIN="$T/fake:$GT_BIN" sh "$WORKER" -c "$T/alice.cfg" --once 2>"$T/err"; ok $? "worker --once"
is "$(batches alice)" 1 "one batch uploaded"
is "$(zcat "$S"/games/alice-* | wc -l)" 6 "with games_per_batch games"
ls "$S/games" | grep -Eq '^alice-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}\.ndjson\.gz$'; ok $? "named <worker>-<time>-<rand>.ndjson.gz"
grep -q -- "--model none --board-size 5 --games 6 --threads 1 --parallel-games 16 --worker alice" "$T/args"
ok $? "gt-selfplay ran with --model none and the settings file's fallbacks"
grep -q "uploaded alice-" "$T/alice/worker.log"; ok $? "the log says so"
is "$(ls -A "$T/alice/pending" "$T/alice/tmp" | grep -c ndjson)" 0 "nothing left in pending/ or tmp/"

# an unreachable store: the batch waits in pending/ and goes out first next time
cfg alice2 "store = http://127.0.0.1:9/nowhere"
printf 'retry_wait = 1\nretries = 0\n' >> "$T/alice2.cfg"
GT_BIN="$T/fake:$GT_BIN" sh "$WORKER" -c "$T/alice2.cfg" --once 2>"$T/err"
is $? 1 "no store: --once fails"
mkdir -p "$T/alice2/models" && echo none > "$T/alice2/model.current"
GT_BIN="$T/fake:$GT_BIN" sh "$WORKER" -c "$T/alice2.cfg" --once 2>"$T/err"
is $? 1 "a batch played with the last network but not uploaded: exit 1"
is "$(ls "$T/alice2/pending" | wc -l)" 1 "the batch waits in pending/"
sed -i "s|^store = .*|store = file://$S|" "$T/alice2.cfg"
GT_BIN="$T/fake:$GT_BIN" sh "$WORKER" -c "$T/alice2.cfg" --once 2>"$T/err"; ok $? "the store is back"
is "$(batches alice2)" 2 "the waiting batch and a new one are uploaded"
is "$(ls "$T/alice2/pending" | wc -l)" 0 "pending/ is empty"
first=$(grep -n "uploaded" "$T/alice2/worker.log" | head -1 | cut -d: -f1)
play=$(grep -n "playing" "$T/alice2/worker.log" | tail -1 | cut -d: -f1)
[ "$first" -lt "$play" ]; ok $? "the waiting batch went out before the next was played"

# SIGTERM mid-batch: the batch is finished and uploaded whole
cfg bob
FAKE_SLEEP=0.2 GT_BIN="$T/fake:$GT_BIN" sh "$WORKER" -c "$T/bob.cfg" 2>"$T/err" &
wpid=$!
wait_lines "$T/bob/tmp/*.ndjson" 2; ok $? "bob is mid-batch"
kill -TERM $wpid
wait $wpid; is $? 0 "SIGTERM: the worker exits 0"
is "$(batches bob)" 1 "after uploading the batch it was playing"
is "$(zcat "$S"/games/bob-* | wc -l)" 6 "whole: all its games"
grep -q "stop requested" "$T/bob/worker.log"; ok $? "the log says why it stopped"

# twice: stop now; the whole games wait in pending/, nothing half is uploaded
cfg carol
FAKE_CUT=2 GT_BIN="$T/fake:$GT_BIN" sh "$WORKER" -c "$T/carol.cfg" 2>"$T/err" &
wpid=$!
wait_lines "$T/carol/tmp/*.ndjson" 2; ok $? "carol is mid-batch, half a record written"
kill -TERM $wpid; sleep 0.3; kill -TERM $wpid
wait $wpid; is $? 0 "SIGTERM twice: the worker exits 0"
is "$(batches carol)" 0 "nothing uploaded"
is "$(zcat "$T"/carol/pending/*.ndjson.gz | wc -l)" 2 "the two whole games wait in pending/"
is "$(zcat "$T"/carol/pending/*.ndjson.gz | grep -c cut)" 0 "the cut record is dropped"
GT_BIN="$T/fake:$GT_BIN" sh "$WORKER" -c "$T/carol.cfg" --once 2>"$T/err"; ok $? "the next start"
is "$(batches carol)" 2 "uploads them and a new batch"

# SIGKILL mid-batch (the worker and gt-selfplay): nothing uploaded, the
# cut batch is thrown away at the next start
cfg dave
FAKE_CUT=3 GT_BIN="$T/fake:$GT_BIN" sh "$WORKER" -c "$T/dave.cfg" 2>"$T/err" &
wpid=$!
wait_lines "$T/dave/tmp/*.ndjson" 3; ok $? "dave is mid-batch"
# (its children: gt-selfplay, the progress filter; gt-selfplay's: sleep)
children=$(pgrep -P $wpid | tr '\n' ' ')
grandchildren=$(for c in $children; do pgrep -P "$c"; done | tr '\n' ' ')
kill -KILL $wpid $children $grandchildren
wait $wpid 2>/dev/null
is "$(batches dave)" 0 "SIGKILL: nothing uploaded"
GT_BIN="$T/fake:$GT_BIN" sh "$WORKER" -c "$T/dave.cfg" --once 2>"$T/err"; ok $? "the next start"
is "$(batches dave)" 1 "uploads one new whole batch"
is "$(zcat "$S"/games/dave-* | wc -l)" 6 "of six games"
is "$(ls -A "$T/dave/tmp" | wc -l)" 0 "and the cut batch is gone"
whole; ok $? "every object in the store is a whole gzip file of whole records"

# two workers on one work dir: the second refuses
GT_BIN="$T/fake:$GT_BIN" FAKE_SLEEP=0.2 sh "$WORKER" -c "$T/bob.cfg" --once 2>/dev/null &
wpid=$!
wait_lines "$T/bob/tmp/*.ndjson" 1
sh "$WORKER" -c "$T/bob.cfg" --once 2>"$T/err"; is $? 2 "a second worker on the same work dir: exit 2"
grep -q "another worker" "$T/err"; ok $? "saying why"
wait $wpid

# the trainer with stand-ins for gt-train and gt-elo
# gt-train's stand-in: a new b1c8 network of series FAKE_SERIES (default
# loop) whose header says the steps of the input plus --steps
cat > "$T/fake/gt-train" <<'EOF'
#!/bin/sh
[ -n "${FAKE_TRAIN_SLEEP:-}" ] && sleep "$FAKE_TRAIN_SLEEP"
from=0 steps=1000
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift ;;
	--model) from=$(gt-model describe "$2" | sed 's/.*"steps":\([0-9]*\).*/\1/'); shift ;;
	--steps) steps=$2; shift ;;
	esac
	shift
done
gt-model init b1c8 --series "${FAKE_SERIES:-loop}" --seed 7 -o "$out.tmp" || exit 1
python3 - "$out.tmp" "$out" $((from + steps - ${FAKE_SHORT:-0})) <<'PY'
import gzip, struct, sys
b = bytearray(gzip.open(sys.argv[1]).read())
struct.pack_into('<Q', b, 52, int(sys.argv[3]))  # steps
with gzip.open(sys.argv[2], 'wb') as f:
    f.write(b)
PY
rm -f "$out.tmp"
EOF
cat > "$T/fake/gt-elo" <<'EOF'
#!/bin/sh
echo "$*" >> "$FAKE_ARGS.elo"
echo '{"a":"x","b":"y","games":10,"wins":7,"draws":0,"losses":3,"score":0.7,"elo":147.2,"elo_ci95":[-80.5,374.9],"los":0.9}'
EOF
printf '#!/bin/sh\nexit 1\n' > "$T/fail-shard"
mkdir -p "$T/fail" && cp "$T/fail-shard" "$T/fail/gt-shard"
chmod +x "$T/fake/gt-train" "$T/fake/gt-elo" "$T/fail/gt-shard"
printf '%s\n' '{"from_step":0,"board_size":7,"visits":12,"cheap_visits":3}' > "$T/cur"
cat > "$T/trainer.cfg" <<EOF
store = file://$S
work_dir = $T/tr
arch = b1c8
min_games = 1
steps = 5
match_games = 10
match_visits = 8
threshold = 20
curriculum = $T/cur
board_size = 5,7
EOF
n_up=$(zcat "$S"/games/* | wc -l)
TR=$T/tr/gen/0001
GT_BIN="$T/fail:$T/fake:$GT_BIN" sh "$TRAINER" -c "$T/trainer.cfg" 2>"$T/err"
is $? 1 "a step fails: the trainer exits 1"
[ -f "$TR/validate.done" ] && [ -f "$TR/contrib.done" ] && [ ! -f "$TR/shard.done" ]; ok $? "with the steps before it done and it not"
grep -q "shard failed" "$T/tr/trainer.log"; ok $? "the log names the step"
flock "$T/tr/lock" sleep 2 &
lpid=$!
sleep 0.3
GT_BIN="$T/fake:$GT_BIN" sh "$TRAINER" -c "$T/trainer.cfg" 2>"$T/err"
is $? 0 "a run while another holds the lock exits 0"
grep -q "another run" "$T/err" && [ ! -f "$TR/shard.done" ]; ok $? "and does nothing"
wait $lpid
GT_BIN="$T/fake:$GT_BIN" sh "$TRAINER" -c "$T/trainer.cfg" 2>"$T/err"; ok $? "the next run finishes the generation"
is "$(grep -c "generation 1: pull$" "$T/tr/trainer.log")" 1 "without pulling again"
is "$(grep -c "generation 1: validate$" "$T/tr/trainer.log")" 1 "or validating again"
is "$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["workers"]; print(sum(v["games"] + v["rejected"] for v in w.values()))' "$S/stats/contributions.json")" \
	"$n_up" "contributions: every uploaded game counted once, as accepted or rejected"
is "$(cat "$T/tr/generation")" 2 "the next run is generation 2"
grep -q '"reference":"none"' "$T/tr/generations.ndjson"; ok $? "generation 1 was matched against the uniform evaluator"
grep -q -- "--games 10 --visits 8 --board-size 9 --seed 1 --records" "$T/args.elo"; ok $? "with the match settings"
grep -q '"elo":147.2,"elo_ci95":\[-80.5,374.9\],"released":true' "$T/tr/generations.ndjson"; ok $? "generations.ndjson: elo, interval, released"
is "$(sed -n 's/.*"name":"\([^"]*\)".*/\1/p' "$S/models/latest.json")" loop-b1c8-s5-d0.bin.gz "latest.json names the candidate"
[ ! -e "$TR/pulled.ndjson" ] && [ -e "$TR/rejects.ndjson" ]; ok $? "the records are removed, the rejects kept"
GT_BIN="$T/fake:$GT_BIN" sh "$TRAINER" -c "$T/trainer.cfg" 2>"$T/err"; ok $? "with no new games"
grep -q "0 new games of the 1 needed; waiting" "$T/tr/trainer.log"; ok $? "the trainer waits"

# SIGTERM to the trainer mid-step: the step is finished, the run stops,
# the next run goes on from the step after it
gt-selfplay --model none --games 2 --visits 8 --board-size 5 --seed 9 --worker gina 2>/dev/null | gzip > "$T/gina-1-aa.ndjson.gz"
gt-sync put "$T/gina-1-aa.ndjson.gz" "$S/games/"
FAKE_TRAIN_SLEEP=1 GT_BIN="$T/fake:$GT_BIN" sh "$TRAINER" -c "$T/trainer.cfg" 2>"$T/err" &
tpid=$!
_i=0
while [ $_i -lt 100 ] && ! grep -q "generation 2: train$" "$T/tr/trainer.log"; do sleep 0.1; _i=$((_i + 1)); done
kill -TERM $tpid
wait $tpid; is $? 0 "SIGTERM to the trainer mid-step: exit 0"
[ -f "$T/tr/gen/0002/train.done" ] && [ ! -f "$T/tr/gen/0002/match.done" ]; ok $? "after finishing the step, before the next"
GT_BIN="$T/fake:$GT_BIN" sh "$TRAINER" -c "$T/trainer.cfg" 2>"$T/err"; ok $? "the next run"
is "$(grep -c "generation 2: train$" "$T/tr/trainer.log")" 1 "does not train again"
is "$(cat "$T/tr/generation")" 3 "and finishes generation 2"

# the curriculum reaches the worker: gt-selfplay gets the published settings
cfg erin
: > "$T/args"
GT_BIN="$T/fake:$GT_BIN" sh "$WORKER" -c "$T/erin.cfg" --once 2>"$T/err"; ok $? "a worker after the release"
grep -q -- "--model $T/erin/models/$(sed -n 's/.*"name":"\([^"]*\)".*/\1/p' "$S/models/latest.json") --board-size 5 --board-size 7 --visits 12 --cheap-visits 3 " "$T/args"
ok $? "plays the published network with the published settings (after its own fallbacks)"
cfg frank
sh "$WORKER" -c "$T/frank.cfg" --once 2>"$T/err"; ok $? "the same with the real gt-selfplay"
is "$(zcat "$S"/games/frank-* | grep -c '"board_size":7')" 6 "its games are 7x7"

# gt-train stopped by a signal exits 0 with fewer steps: not a finished step
FAKE_SHORT=1 GT_BIN="$T/fake:$GT_BIN" sh "$TRAINER" -c "$T/trainer.cfg" 2>"$T/err"
is $? 1 "a candidate short of its steps: the trainer exits 1"
[ ! -f "$T/tr/gen/0003/train.done" ]; ok $? "train is not done"
grep -q "training goes on next run" "$T/tr/trainer.log"; ok $? "the log says so"
GT_BIN="$T/fake:$GT_BIN" sh "$TRAINER" -c "$T/trainer.cfg" 2>"$T/err"; ok $? "the next run trains again"
is "$(cat "$T/tr/generation")" 4 "and finishes generation 3"

# Ctrl-C (SIGINT to the process group) mid-step: the step's command is
# cut, the trainer exits 0, and the next run does the step again
gt-selfplay --model none --games 2 --visits 8 --board-size 5 --seed 10 --worker hank 2>/dev/null | gzip > "$T/hank-1-aa.ndjson.gz"
gt-sync put "$T/hank-1-aa.ndjson.gz" "$S/games/"
FAKE_TRAIN_SLEEP=20 GT_BIN="$T/fake:$GT_BIN" setsid perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' \
	sh "$TRAINER" -c "$T/trainer.cfg" 2>"$T/err" &
tpid=$!
_i=0
while [ $_i -lt 100 ] && ! grep -q "generation 4: train$" "$T/tr/trainer.log"; do sleep 0.1; _i=$((_i + 1)); done
sleep 0.3
kill -INT -$tpid
wait $tpid; is $? 0 "Ctrl-C to the trainer mid-step: exit 0"
[ ! -f "$T/tr/gen/0004/train.done" ]; ok $? "the cut step is not done"
grep -q "generation 4: stopped in train; the next run starts there" "$T/tr/trainer.log"; ok $? "the log says so"
GT_BIN="$T/fake:$GT_BIN" sh "$TRAINER" -c "$T/trainer.cfg" 2>"$T/err"; ok $? "the next run"
is "$(grep -c "generation 4: train$" "$T/tr/trainer.log")" 2 "trains again"
is "$(cat "$T/tr/generation")" 5 "and finishes generation 4"
done_testing
