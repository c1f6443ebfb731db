#!/bin/sh
# gt-train: usage errors; overfitting a tiny fixed data set (one 7x7
# self-play game, policy one-hot on the move played) drives every held-out
# loss term down; the output's name, metadata and metrics; a non-finite
# step (an absurd --lr) is skipped and counted, and --max-bad-steps stops
# the run with the last good model; a state file of another run is refused;
# the auxiliary policy head learns the opponent's replies; --precision
# bf16 (mixed precision) falls back to float32's very bytes under
# GT_NO_BF16 and says why, and where the CPU has bfloat16 gives other
# bytes, the same on a rerun, and a loss near float32's.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
PY=/usr/bin/python3
$PY -c 'import json' 2>/dev/null || skip_all "no /usr/bin/python3"

check_help gt-train --max-bad-steps
is "$(gt-train --version)" "gt-train 0.1.0" "--version"
gt-train --bogus 2>"$T/e"; is $? 2 "unknown option: exit 2"
gt-train --data "$T/d" 2>"$T/e"; is $? 2 "no --model or --init: exit 2"
gt-train --init b1c8 --model x --data "$T/d" 2>"$T/e"; is $? 2 "both --model and --init: exit 2"
gt-train --init b1c8 2>"$T/e"; is $? 2 "no --data: exit 2"
gt-train --init b1c8 --data "$T/d" --batch 0 2>"$T/e"; is $? 2 "--batch 0: exit 2"
grep -q '^gt-train: --batch' "$T/e"; ok $? "--batch 0: says which option"
gt-train --init b1c8 --data "$T/d" --optimizer lion 2>"$T/e"; is $? 2 "unknown optimizer: exit 2"
gt-train --init b1c8 --data "$T/d" --lr x 2>"$T/e"; is $? 2 "--lr x: exit 2"
gt-train --init b1x8 --data "$T/d" 2>"$T/e"; is $? 2 "bad architecture: exit 2"
gt-train --init b1c8 --data "$T/d" --series 'a b' 2>"$T/e"; is $? 2 "bad series: exit 2"
gt-train --init b1c8 --data "$T/none" >"$T/o" 2>"$T/e"; is $? 1 "missing data directory: exit 1"
grep -q '^gt-train: ' "$T/e"; ok $? "and says so"

# one 7x7 game of --model none self-play, each position's policy one-hot on
# the move played (as in human games): a fixed set of 50 rows
gt-selfplay --model none --games 1 --visits 8 --cheap-visits 4 --full-prob 1 \
	--board-size 7 --seed 5 >"$T/g.ndjson" 2>"$T/e"
ok $? "gt-selfplay: one game"
$PY - "$T/g.ndjson" >"$T/h.ndjson" <<'PYEOF'
import json, sys
COLS = "ABCDEFGHJKLMNOPQRST"
for line in open(sys.argv[1]):
    r = json.loads(line)
    n = r["board_size"]
    for p in r["positions"]:
        j = p["move_number"]
        m = r["moves"][j] if j < len(r["moves"]) else "pass"
        pol = [0.0] * (n * n + 1)
        pol[n * n if m == "pass" else (n - int(m[1:])) * n + COLS.index(m[0])] = 1.0
        p["policy"] = pol
        p["full_search"] = True
    print(json.dumps(r))
PYEOF
gt-shard -o "$T/d" "$T/h.ndjson" >"$T/m" 2>"$T/e"; ok $? "gt-shard: the rows"
rows=$(sed 's/.*"rows":\([0-9]*\).*/\1/' "$T/m")
diag "$rows rows"

# overfitting: held-out = the training rows, evaluated at step 0 and at the end
( cd "$T" && gt-train --init b2c16 --data d --window 64 --steps 400 --batch 64 --lr 0.01 \
	--log-every 100 --validate d --validate-rows 64 --seed 3 >"$T/fit" 2>"$T/e" )
ok $? "400 steps of b2c16: exit 0"
test -f "$T/gt-b2c16-s400-d25600.bin.gz"; ok $? "default output name in the current directory"
# results as "STATUS name" lines, turned into TAP by tap_lines
tap_lines() { while read -r st name; do ok "$st" "$name"; done <"$1"; }
$PY - "$T/fit" >"$T/r" <<'PYEOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
first, last, final = lines[0], lines[-2], lines[-1]
need = {"policy": 10, "value": 10, "score": 10, "ownership": 1.5, "total": 5}
for k, f in need.items():
    a, b = first["val_" + k], last["val_" + k]
    print("%d held-out %s loss %.4g -> %.4g (%.1fx, want >= %gx)" % (a < f * b, k, a, b, a / b, f))
print("%d held-out top-1 %.3f -> %.3f (want >= 0.9)"
      % (last["val_top1"] < 0.9, first["val_top1"], last["val_top1"]))
keys = ["step", "samples", "policy", "value", "score", "ownership", "total", "lr", "grad_norm",
        "samples_per_s", "data_share", "bad_steps", "val_rows", "val_policy", "val_value",
        "val_score", "val_ownership", "val_total", "val_top1"]
miss = [k for k in keys if k not in last]
print("%d metrics fields present %s" % (len(miss) > 0, " ".join(miss)))
print("%d first line step 0, last metrics line step 400, samples 25600"
      % (not (first["step"] == 0 and last["step"] == 400 and last["samples"] == 25600)))
want = {"model": "gt-b2c16-s400-d25600.bin.gz", "name": "gt-b2c16-s400-d25600", "steps": 400,
        "rows": 25600}
print("%d the last line names the model written" % (not all(final.get(k) == v for k, v in want.items())))
PYEOF
tap_lines "$T/r"
gt-model describe "$T/gt-b2c16-s400-d25600.bin.gz" >"$T/desc" 2>"$T/e"; ok $? "gt-model reads the output"
grep -q '"steps":400,"rows":25600,"series":"gt","parent":null' "$T/desc"; ok $? "steps, rows, no parent"

# the auxiliary policy head (b2c16a): its held-out loss on the opponent's
# replies falls as the others do; with --aux-policy-weight 0 it is left
# behind (the shared layer moves for the policy alone);
# the metrics without the head have no aux keys
for wa in 0.15 0; do
	( cd "$T" && gt-train --init b2c16a --data d --window 64 --steps 200 --batch 64 --lr 0.01 \
		--log-every 100 --validate d --validate-rows 64 --seed 3 --aux-policy-weight $wa \
		-o aux$wa.bin.gz >"$T/aux$wa" 2>"$T/e" )
	ok $? "200 steps of b2c16a, --aux-policy-weight $wa: exit 0"
done
$PY - "$T/aux0.15" "$T/aux0" "$T/fit" >"$T/r" <<'PYEOF'
import json, sys
w, z, plain = ([json.loads(l) for l in open(f)] for f in sys.argv[1:])
a, b = w[0]["val_aux_policy"], w[-2]["val_aux_policy"]
print("%d held-out auxiliary policy loss %.4g -> %.4g (want >= 1.3x)" % (a < 1.3 * b, a, b))
c = z[-2]["val_aux_policy"]
print("%d --aux-policy-weight 0: %.4g at the end, 1 more than with 0.15" % (c < b + 1, c))
print("%d aux_policy in the metrics of b2c16a" % ("aux_policy" not in w[-2]))
print("%d none without the head" % any("aux_policy" in l or "val_aux_policy" in l for l in plain))
print("%d the output's name %s" % (w[-1]["name"] != "gt-b2c16a-s200-d12800", w[-1]["name"]))
PYEOF
tap_lines "$T/r"
gt-model describe "$T/aux0.15.bin.gz" >"$T/desc" 2>"$T/e"
grep -q '"format_version":2,"arch":"b2c16a"' "$T/desc"; ok $? "gt-model reads it: format version 2, b2c16a"

# from a model: steps and rows cumulative, parent = the input's sha256, series kept or set
sha=$(sha256sum "$T/gt-b2c16-s400-d25600.bin.gz" | cut -d' ' -f1)
gt-train --model "$T/gt-b2c16-s400-d25600.bin.gz" --data "$T/d" --steps 5 --batch 8 \
	--series run.2 -o "$T/next.bin.gz" >"$T/o" 2>"$T/e"; ok $? "--model: exit 0"
gt-model describe "$T/next.bin.gz" >"$T/desc" 2>>"$T/e"
grep -q "\"name\":\"run.2-b2c16-s405-d25640\".*\"series\":\"run.2\",\"parent\":\"$sha\"" "$T/desc"
ok $? "--model: name run.2-b2c16-s405-d25640, parent the input's sha256"
grep -q '^gt-train: wrote .*next.bin.gz' "$T/e"; ok $? "the path written on stderr"

# a non-finite step: --lr 1e30 makes the parameters huge after step 1,
# every later forward overflows
gt-train --init b1c8 --data "$T/d" --steps 50 --batch 8 --lr 1e30 --max-bad-steps 3 \
	--log-every 1 -o "$T/nan.bin.gz" >"$T/o" 2>"$T/e"
is $? 1 "--lr 1e30: exit 1"
grep -q '3 non-finite steps in a row' "$T/e"; ok $? "says why it stopped"
is "$(grep -c 'skipped' "$T/e")" 3 "three steps skipped"
is "$(tail -2 "$T/o" | head -1 | sed 's/.*"step":\([0-9]*\),.*"bad_steps":\([0-9]*\).*/\1 \2/')" "4 3" \
	"last metrics line: step 4, bad_steps 3"
gt-model describe "$T/nan.bin.gz" >"$T/desc" 2>>"$T/e"; ok $? "the last good model is written and valid"
grep -q '"steps":1,"rows":8,' "$T/desc"; ok $? "with the one good step"

# a state file is tied to its run
gt-train --init b1c8 --data "$T/d" --steps 3 --batch 8 --state "$T/s" -o "$T/x.bin.gz" \
	>"$T/o" 2>"$T/e"; ok $? "--state: exit 0"
test -s "$T/s"; ok $? "the state file is written"
gt-train --init b1c8 --data "$T/d" --steps 3 --batch 8 --state "$T/s" --seed 2 \
	-o "$T/x.bin.gz" >"$T/o" 2>"$T/e"; is $? 1 "another --seed (another start): exit 1"
grep -q 'belongs to another run' "$T/e"; ok $? "and says so"
gt-train --init b1c16 --data "$T/d" --steps 3 --batch 8 --state "$T/s" -o "$T/x.bin.gz" \
	>"$T/o" 2>"$T/e"; is $? 1 "another architecture: exit 1"
gt-train --init b1c8 --data "$T/d" --steps 3 --batch 8 --state "$T/s" --optimizer sgd \
	-o "$T/x.bin.gz" >"$T/o" 2>"$T/e"; is $? 1 "another optimizer: exit 1"
printf 'garbage' >"$T/bad"
gt-train --init b1c8 --data "$T/d" --steps 3 --batch 8 --state "$T/bad" -o "$T/x.bin.gz" \
	>"$T/o" 2>"$T/e"; is $? 1 "not a state file: exit 1"
head -c 300 "$T/s" >"$T/trunc"
gt-train --init b1c8 --data "$T/d" --steps 3 --batch 8 --state "$T/trunc" -o "$T/x.bin.gz" \
	>"$T/o" 2>"$T/e"; is $? 1 "a truncated state file: exit 1"
# a game won by resignation has no score: gt-shard keeps its rows with the
# score NaN (unknown) and gt-train leaves them out of the score loss only
printf '(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]RE[B+R];B[ee];W[cc];B[gg];W[cg];B[gc];W[dd];B[ef];W[fd];B[de];W[ce];B[cd];W[dc])\n' >"$T/res.sgf"
gt-sgf "$T/res.sgf" >"$T/res.ndjson" 2>"$T/e"; ok $? "gt-sgf reads a game won by resignation"
gt-shard --out "$T/rd" "$T/res.ndjson" >/dev/null 2>"$T/e"; is $? 0 "gt-shard keeps its rows: exit 0"
is "$($PY -c 'import glob,sys,numpy as np; z=np.load(glob.glob(sys.argv[1]+"/run_*/*.npz")[0]); print(int(np.isnan(z["score"]).sum()), len(z["score"]))' "$T/rd")" "12 12" "every row kept, score NaN (unknown)"
gt-train --init b1c8 --data "$T/rd" --steps 4 --batch 4 --log-every 4 -o "$T/res.bin.gz" >"$T/o" 2>"$T/e"
is $? 0 "gt-train trains on them"
is "$($PY -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); print(r["score"] < 1e-9 and r["policy"] > 0 and r["value"] > 0)' "$T/o")" True "no score loss, policy and value losses kept"
# --precision: fp32 or bf16; GT_NO_BF16 gives float32 to the byte, said
gt-train --init b1c8 --data "$T/d" --precision int8 2>"$T/e"; is $? 2 "--precision int8: exit 2"
grep -q 'fp32 or bf16' "$T/e"; ok $? "--precision int8: says what is accepted"
pt() { gt-train --init b2c16 --data "$T/d" --window 64 --steps 60 --batch 32 --lr 0.01 \
	--log-every 60 --seed 3 "$@"; }
pt --precision fp32 -v -o "$T/p32.bin.gz" >"$T/p32" 2>"$T/e"; ok $? "--precision fp32 -v: exit 0"
grep -q '^gt-train: training: precision fp32$' "$T/e"; ok $? "-v says the precision"
GT_NO_BF16=1 pt --precision bf16 -o "$T/pno.bin.gz" >"$T/pno" 2>"$T/e"
ok $? "GT_NO_BF16=1 --precision bf16: exit 0"
grep -q '^gt-train: training: fp32, not bf16: GT_NO_BF16 is set$' "$T/e"; ok $? "and says why"
cmp -s "$T/p32.bin.gz" "$T/pno.bin.gz"; ok $? "and writes float32's very bytes"
pt --precision bf16 -v -o "$T/pbf.bin.gz" >"$T/pbf" 2>"$T/e"; ok $? "--precision bf16 -v: exit 0"
if grep -q '^gt-train: training: precision bf16, kernel ' "$T/e"; then
	diag "$(grep 'training:' "$T/e")"
	! cmp -s "$T/p32.bin.gz" "$T/pbf.bin.gz"; ok $? "bf16: other bytes than float32's"
	pt --precision bf16 -o "$T/pbf2.bin.gz" >/dev/null 2>"$T/e"
	cmp -s "$T/pbf.bin.gz" "$T/pbf2.bin.gz"; ok $? "bf16: the same bytes on a rerun"
	$PY - "$T/p32" "$T/pbf" >"$T/r" <<'PYEOF'
import json, sys
f, h = (json.loads(open(p).readlines()[-2])["total"] for p in sys.argv[1:])
print("%d bf16 loss after 60 steps %.4f, float32's %.4f (want within 3%%)"
      % (abs(h - f) > 0.03 * f, h, f))
PYEOF
	tap_lines "$T/r"
else
	grep -q '^gt-train: training: fp32, not bf16: ' "$T/e"; ok $? "no bfloat16 here: says why"
	diag "SKIP bf16 training: $(cat "$T/e")"
fi
done_testing
