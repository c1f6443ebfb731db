#!/bin/sh
# gt-train --lr-warmup, --lr-decay, --ema and --export: the metrics' learning
# rate at chosen steps is the hand-worked one; the averaged network equals
# numpy's weighted mean of the last networks of shorter runs; the average
# does not change the steps (--export last gives the bytes of a run without
# it); a run stopped and resumed (by --steps, and by SIGKILL) ends with the
# same network and state file bytes as a run in one piece; a resumed run
# with another --ema is refused; bad values are usage errors.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-selfplay >/dev/null || skip_all "gt-selfplay not built"
PY=/usr/bin/python3
$PY -c 'import numpy' 2>/dev/null || skip_all "no /usr/bin/python3 with numpy"

gt-train --init b1c8 --data "$T/d" --lr-decay 100 2>"$T/e"; is $? 2 "--lr-decay 100: exit 2"
grep -q '^gt-train: --lr-decay: stage 1' "$T/e"; ok $? "says which stage: $(cat "$T/e")"
gt-train --init b1c8 --data "$T/d" --lr-decay 200:0.5,100:0.1 2>"$T/e"; is $? 2 "decreasing rows: exit 2"
gt-train --init b1c8 --data "$T/d" --ema 1 2>"$T/e"; is $? 2 "--ema 1: exit 2"
gt-train --init b1c8 --data "$T/d" --export ema 2>"$T/e"; is $? 2 "--export ema without --ema: exit 2"
gt-train --init b1c8 --data "$T/d" --export best 2>"$T/e"; is $? 2 "--export best: exit 2"
gt-train --init b1c8 --data "$T/d" --lr-warmup -1 2>"$T/e"; is $? 2 "--lr-warmup -1: exit 2"

random_shards 4 "$T/d"; ok $? "data: 4 games in shards"

# batch 32: a step brings the rows seen to 32 x step. Warm-up over 320 rows
# (10 steps), x0.5 from 960 rows (step 30), x0.25 from 1600 (step 50).
sched="--lr 0.001 --lr-warmup 320 --lr-decay 960:0.5,1600:0.25"
args="--init b2c16 --data $T/d --batch 32 --seed 4 --log-every 1 --checkpoint-every 10 $sched"
gt-train $args --steps 60 --ema 0.9 --export ema --state "$T/s1" -o "$T/a.bin.gz" >"$T/a.out" 2>"$T/e"
ok $? "uninterrupted run of 60 steps with --ema 0.9 --export ema"
lr_at() { $PY -c 'import json, sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j.get("step") == int(sys.argv[2]) and "lr" in j: print("%.6g" % j["lr"])' "$1" "$2"; }
for sl in 1:0.0001 5:0.0005 9:0.0009 10:0.001 29:0.001 30:0.0005 49:0.0005 50:0.00025 60:0.00025; do
	is "$(lr_at "$T/a.out" "${sl%:*}")" "${sl#*:}" "step ${sl%:*}: lr ${sl#*:}"
done

# resumed by --steps: 25, then on to 60 with the same state file
gt-train $args --steps 25 --ema 0.9 --export ema --state "$T/s2" -o "$T/b1.bin.gz" >"$T/b1.out" 2>"$T/e"
ok $? "25 steps"
gt-train $args --steps 60 --ema 0.9 --export ema --state "$T/s2" -o "$T/b.bin.gz" >"$T/b2.out" 2>"$T/e"
ok $? "then resumed to 60"
grep -q 'resuming at step 25' "$T/e"; ok $? "resumes at step 25"
cmp -s "$T/a.bin.gz" "$T/b.bin.gz"; ok $? "the same averaged network bytes as uninterrupted"
cmp -s "$T/s1" "$T/s2"; ok $? "and the same state file bytes"
is "$(lr_at "$T/b2.out" 30)" 0.0005 "the resumed run's rate at step 30"

# resumed after SIGKILL once the first checkpoint is written
gt-train $args --steps 60 --ema 0.9 --export ema --state "$T/s3" -o "$T/c.bin.gz" >"$T/c1.out" 2>"$T/e" &
pid=$!
i=0
while [ ! -f "$T/s3" ] && kill -0 $pid 2>/dev/null && [ $i -lt 3000 ]; do
	sleep 0.01; i=$((i + 1))
done
kill -KILL $pid 2>/dev/null
{ wait $pid; } 2>/dev/null
test ! -f "$T/c.bin.gz"; ok $? "killed before the end"
gt-train $args --steps 60 --ema 0.9 --export ema --state "$T/s3" -o "$T/c.bin.gz" >"$T/c2.out" 2>"$T/e"
ok $? "restart"
cmp -s "$T/a.bin.gz" "$T/c.bin.gz"; ok $? "SIGKILL and restart: the same network bytes"
cmp -s "$T/s1" "$T/s3"; ok $? "and the same state file bytes"

gt-train $args --steps 60 --ema 0.5 --export ema --state "$T/s3" -o "$T/x.bin.gz" >"$T/x.out" 2>"$T/e"
is $? 1 "the state file resumed with another --ema: exit 1"
grep -q 'another run (the --ema decay differs)' "$T/e"; ok $? "says why: $(cat "$T/e")"

# the average does not change the steps: --export last is a run without --ema
gt-train $args --steps 60 -o "$T/plain.bin.gz" >"$T/p.out" 2>"$T/e"; ok $? "60 steps without --ema"
gt-train $args --steps 60 --ema 0.9 --export last -o "$T/last.bin.gz" >"$T/l.out" 2>"$T/e"
ok $? "60 steps with --ema 0.9 --export last"
cmp -s "$T/plain.bin.gz" "$T/last.bin.gz"; ok $? "the same bytes"
cmp -s "$T/plain.bin.gz" "$T/a.bin.gz"; is $? 1 "and not those of the average"

# the average of 3 steps against numpy: the last networks of runs of 1, 2
# and 3 steps, weighted 0.5^2, 0.5, 1
for k in 1 2 3; do
	gt-train $args --steps $k -o "$T/p$k.bin.gz" >/dev/null 2>"$T/e" || echo "# $(cat "$T/e")"
done
gt-train $args --steps 3 --ema 0.5 --export ema -o "$T/e3.bin.gz" >/dev/null 2>"$T/e"
ok $? "3 steps with --ema 0.5 --export ema"
$PY - "$GT_SRC/share/gt/python" "$T" >"$T/np" 2>&1 <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np, gtnet
d = sys.argv[2]
p = [np.concatenate([t.ravel().astype(np.float64) for t in gtnet.read("%s/p%d.bin.gz" % (d, k))[1].values()])
     for k in (1, 2, 3)]
h, e3 = gtnet.read(d + "/e3.bin.gz")
e3 = np.concatenate([t.ravel().astype(np.float64) for t in e3.values()])
want = (0.25 * p[0] + 0.5 * p[1] + p[2]) / 1.75
err = np.max(np.abs(e3 - want)) / np.max(np.abs(want))
moved = np.max(np.abs(p[2] - p[0])) / np.max(np.abs(want))
print("%.3g %.3g %d" % (err, moved, h["steps"]))
sys.exit(0 if err < 1e-6 and moved > 1e-4 and h["steps"] == 3 else 1)
EOF
ok $? "the averaged network is numpy's weighted mean (relative error, steps moved, steps: $(cat "$T/np"))"

# held-out figures of the average beside the last weights'
random_shards 1 "$T/v"
gt-train $args --steps 20 --ema 0.9 --validate "$T/v" --validate-every 10 -o "$T/v.bin.gz" \
	>"$T/v.out" 2>"$T/e"
ok $? "--validate with --ema"
is "$(grep -c '"ema_val_total"' "$T/v.out")" 3 "ema_val_* on the 3 evaluated lines (steps 0, 10, 20)"
is "$(grep -c '"val_total"' "$T/v.out")" 3 "beside val_*"
done_testing
