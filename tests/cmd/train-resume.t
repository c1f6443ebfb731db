#!/bin/sh
# gt-train --state: a run killed with SIGKILL after a checkpoint and
# restarted with the same arguments ends with the same model bytes as an
# uninterrupted run; SIGTERM writes a checkpoint and the current model and
# exits 0, and its restart too ends bit-identical; a finished run's state
# makes a rerun write the same model without training.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-selfplay >/dev/null || skip_all "gt-selfplay not built"

random_shards 4 "$T/d"; ok $? "data: 4 games in shards"

args="--init b2c16 --data $T/d --steps 150 --batch 32 --seed 4 --checkpoint-every 10 --log-every 10"
gt-train $args -o "$T/a.bin.gz" >"$T/a.out" 2>"$T/e"; ok $? "uninterrupted run: exit 0"

# stopped SIGNAL STATE OUT STDOUT: gt-train $args --state STATE -o OUT
# (metrics to STDOUT, messages to $T/e) sent SIGNAL once its first
# checkpoint is written (or it is gone); gt-train's exit status
stopped() {
	gt-train $args --state "$2" -o "$3" >"$4" 2>"$T/e" &
	pid=$!
	i=0
	while [ ! -f "$2" ] && kill -0 $pid 2>/dev/null && [ $i -lt 3000 ]; do
		sleep 0.01; i=$((i + 1))
	done
	kill -"$1" $pid 2>/dev/null
	{ wait $pid; } 2>/dev/null
}

# SIGKILL after the first checkpoint; the restart ends identical
stopped KILL "$T/s" "$T/b.bin.gz" "$T/b1.out"
is $? 137 "killed by SIGKILL"
step=$(tail -1 "$T/b1.out" | sed 's/{"step":\([0-9]*\),.*/\1/')
test ! -f "$T/b.bin.gz" && [ "${step:-0}" -lt 150 ]; ok $? "killed mid-way (at step ${step:-?} of 150)"
gt-train $args --state "$T/s" -o "$T/b.bin.gz" >"$T/b2.out" 2>"$T/e"; ok $? "restart: exit 0"
grep -q 'resuming at step [1-9]' "$T/e"; ok $? "restart resumes from the checkpoint: $(grep -o 'step [0-9]*' "$T/e" | head -1)"
cmp -s "$T/a.bin.gz" "$T/b.bin.gz"; ok $? "SIGKILL and restart: the same model bytes as uninterrupted"
is "$(tail -1 "$T/b2.out" | sed 's/.*"sha256"://')" "$(tail -1 "$T/a.out" | sed 's/.*"sha256"://')" \
	"the same final line"

# SIGTERM: checkpoint and current model, exit 0; the restart ends identical
stopped TERM "$T/t" "$T/c.bin.gz" "$T/c1.out"
is $? 0 "SIGTERM: exit 0"
grep -q 'stopped by a signal' "$T/e"; ok $? "says it was stopped"
gt-model describe "$T/c.bin.gz" >"$T/desc" 2>>"$T/e"; ok $? "SIGTERM: the current model is written"
s=$(sed 's/.*"steps":\([0-9]*\),.*/\1/' "$T/desc")
[ "${s:-150}" -lt 150 ]; ok $? "with the steps done so far ($s)"
gt-train $args --state "$T/t" -o "$T/c.bin.gz" >"$T/c2.out" 2>"$T/e"; ok $? "restart: exit 0"
cmp -s "$T/a.bin.gz" "$T/c.bin.gz"; ok $? "SIGTERM and restart: the same model bytes as uninterrupted"

# a finished run's state: no step, the same model
rm -f "$T/c.bin.gz"
gt-train $args --state "$T/t" -o "$T/c.bin.gz" >"$T/c3.out" 2>"$T/e"; ok $? "rerun of a finished run: exit 0"
cmp -s "$T/a.bin.gz" "$T/c.bin.gz"; ok $? "and the same model"
is "$(grep -c '"step"' "$T/c3.out")" 0 "no steps taken"
done_testing
