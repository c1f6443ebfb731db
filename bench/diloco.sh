#!/bin/sh
# diloco.sh: Decoupled DiLoCo measured end to end (gt-unit, gt-outer over a
# file:// store), four parts:
#   bandwidth      bytes a unit sends and receives per training sample
#                  against synchronous data-parallel (2 x P x 4 bytes per
#                  step per unit), at the defaults (H 500, int8) and int4
#   quality        4 units against one gt-train with the same total
#                  samples on the same rows (19x19 human games from
#                  /usr/share/goban through gt-sgf, held out by game):
#                  held-out loss and top-1 against samples
#   goodput        useful unit time (rounds whose delta went into a
#                  version) over allocated unit time, units killed at random
#   heterogeneity  one unit at half speed: it still contributes and the
#                  held-out loss still falls
# DILOCO_BENCH_AVG=1 adds a quality run of plain model averaging.
# DILOCO_BENCH_SCALE (1) multiplies the steps of the quality run;
# DILOCO_BENCH_PARTS (all four) names the parts to run.
# Run by bench/run with GT_BIN and GT_SRC set.
: "${GT_SRC:=.}" "${GT_BIN:=$GT_SRC/bin}"
: "${DILOCO_BENCH_SCALE:=1}" "${DILOCO_BENCH_PARTS:=bandwidth quality goodput heterogeneity}"
part() { case " $DILOCO_BENCH_PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
PATH=$GT_BIN:$PATH
PY=/usr/bin/python3
[ -x "$GT_BIN/gt-unit" ] || { echo "diloco.sh: no $GT_BIN/gt-unit"; exit 0; }
$PY -c 'import json' 2>/dev/null || { echo "diloco.sh: no python3"; exit 0; }
d=$(mktemp -d "${TMPDIR:-/tmp}/gt-bench-diloco.XXXXXX")
pids=""
trap 'for p in $pids; do kill -TERM $p 2>/dev/null; done; wait; rm -rf "$d"' EXIT

# 7x7 self-play rows for the bandwidth and goodput runs
gt-selfplay --model none --games 40 --visits 8 --cheap-visits 4 --full-prob 1 --board-size 7 \
	--seed 5 >"$d/g7.ndjson" 2>/dev/null || exit 1
gt-shard -o "$d/d7" "$d/g7.ndjson" >/dev/null 2>&1 || exit 1
gt-model init b1c8 --seed 1 -o "$d/m0.bin.gz" 2>/dev/null || exit 1
P=$(gt-model describe "$d/m0.bin.gz" | sed 's/.*"params":\([0-9]*\).*/\1/')

# ---- bandwidth: one unit, two rounds of the defaults, then int4 ----
bw() { # codec
	rm -rf "$d/bw"
	gt-outer --store "$d/bw/store" --state "$d/bw/outer" --init "$d/m0.bin.gz" --versions 2 \
		--grace 0 --poll 0.05 >/dev/null 2>&1 &
	o=$!
	gt-unit --store "$d/bw/store" --data "$d/d7" --cache "$d/bw/u" --batch 16 --window 5000 \
		--codec "$1" --rounds 2 >"$d/bw.out" 2>/dev/null
	wait $o
	$PY - "$d/bw.out" "$P" 16 "$1" <<'PYEOF'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
P, B = int(sys.argv[2]), int(sys.argv[3])
s = sum(x["samples"] for x in r)
sent, recv = r[-1]["bytes_sent"], r[-1]["bytes_received"]
dp = 2 * P * 4 / B
# the worst case: every round pulls a new version (first round's bytes received)
worst = (r[0]["bytes_sent"] + r[0]["bytes_received"]) / r[0]["samples"]
print("%-5s H %d: %.2f bytes sent + %.2f received per sample over %d rounds; data-parallel %.0f: %.0fx (%.0fx if every round pulls a version; sent only %.0fx)"
      % (sys.argv[4], r[0]["inner_steps"], sent / s, recv / s, len(r), dp, dp / ((sent + recv) / s), dp / worst, dp / (sent / s)))
PYEOF
}
if part bandwidth; then
echo "bandwidth, P = $P parameters (b1c8), batch 16, a unit's measured bytes (delta, model pulls, pointer, heartbeat):"
bw int8
bw int4
fi

# ---- quality: 4 units against one trainer, same samples, same rows ----
quality() {
	ls /usr/share/goban/*.sgf >/dev/null 2>&1 || { echo "quality: no /usr/share/goban"; return; }
	gt-sgf /usr/share/goban/*.sgf /usr/share/goban/*.mgt >"$d/all.ndjson" 2>/dev/null
	$PY - "$d/all.ndjson" "$d/train.ndjson" "$d/held.ndjson" <<'PYEOF'
import json, sys
seen, k = set(), 0
tr, he = open(sys.argv[2], "w"), open(sys.argv[3], "w")
for line in open(sys.argv[1]):
    key = tuple(json.loads(line)["moves"][:60])
    if key in seen:
        continue
    seen.add(key)
    (he if k % 10 == 9 else tr).write(line)
    k += 1
PYEOF
	gt-augment --seed 1 "$d/train.ndjson" >"$d/train-aug.ndjson" 2>/dev/null
	gt-shard -o "$d/train" --rows 20000 "$d/train-aug.ndjson" >/dev/null 2>&1
	gt-shard -o "$d/held" --rows 20000 "$d/held.ndjson" >/dev/null 2>&1
	gt-model init b2c16 --seed 1 -o "$d/q0.bin.gz" 2>/dev/null
	steps=$((1600 * DILOCO_BENCH_SCALE)) H=50 B=32 lr=0.003
	per=$((steps / 4))
	t0=$(date +%s)
	gt-train --model "$d/q0.bin.gz" --data "$d/train" --window 100000 --steps $steps --batch $B \
		--lr $lr --log-every $((steps / 8)) --validate "$d/held" --validate-rows 2000 \
		-o "$d/plain.bin.gz" >"$d/plain.metrics" 2>/dev/null
	t1p=$(date +%s)
	for cfg in default ${DILOCO_BENCH_AVG:+avg}; do
	oo="--units 4 --quorum 4"
	[ $cfg = avg ] && oo="--lr 1 --momentum 0"
	rm -rf "$d/q"
	t1=$(date +%s)
	gt-outer --store "$d/q/store" --state "$d/q/outer" --init "$d/q0.bin.gz" $oo \
		>"$d/q.outer" 2>/dev/null &
	o=$!
	pids="$pids $o"
	us=""
	for k in 0 1 2 3; do
		gt-unit --store "$d/q/store" --data "$d/train" --cache "$d/q/u$k" --units 4 --slice $k \
			--inner-steps $H --batch $B --lr $lr --window 100000 --rounds $((per / H)) \
			--seed $((k + 1)) >"$d/q.u$k" 2>/dev/null &
		us="$us $!"
	done
	for u in $us; do wait $u; done
	sleep 2
	kill -TERM $o; wait $o
	t2=$(date +%s)
	V=$(sed 's/.*"version":\([0-9]*\).*/\1/' "$d/q/store/diloco/current.json")
	: >"$d/q.eval"
	for v in $(seq 0 "$V"); do
		[ $((v % 4)) -eq 0 ] || [ "$v" -eq "$V" ] || continue
		gt-train --model "$d/q/store/diloco/versions/v$v.bin.gz" --data "$d/train" --steps 1 \
			--lr 0 --weight-decay 0 --log-every 1 --validate "$d/held" --validate-rows 2000 \
			-o "$d/x.bin.gz" 2>/dev/null | head -1 | sed "s/^{/{\"v\":$v,/" >>"$d/q.eval"
	done
	[ $cfg = default ] && what="outer lr 0.7, Nesterov 0.9, --quorum 4 --units 4" || what="model averaging (outer lr 1, momentum 0)"
	echo "quality, $what: b2c16 19x19, $steps steps x $B (plain: $((t1p - t0)) s) against 4 units x $per steps, H $H (4 processes on 2 shared cores: $((t2 - t1)) s), $V versions"
	$PY - "$d/plain.metrics" "$d/q.eval" "$d/q/store/diloco/versions" <<'PYEOF'
import json, sys, os
plain = [json.loads(l) for l in open(sys.argv[1]) if '"val_total"' in l]
ev = [json.loads(l) for l in open(sys.argv[2])]
cum, s = {}, 0
v = 0
while os.path.exists(os.path.join(sys.argv[3], "v%d.json" % v)):
    s += json.load(open(os.path.join(sys.argv[3], "v%d.json" % v)))["samples"]
    cum[v] = s
    v += 1
print("  %-8s %8s %10s %10s %8s" % ("run", "samples", "val_total", "val_policy", "top1"))
for m in plain:
    print("  %-8s %8d %10.4f %10.4f %8.4f" % ("plain", m["samples"], m["val_total"], m["val_policy"], m["val_top1"]))
for m in ev:
    print("  %-8s %8d %10.4f %10.4f %8.4f" % ("v%d" % m["v"], cum[m["v"]], m["val_total"], m["val_policy"], m["val_top1"]))
a, b = plain[-1], ev[-1]
print("  final: DiLoCo/plain held-out loss %.4f/%.4f = %+.1f%% (target within 3%%); top-1 %.4f vs %.4f = %+.2f points (target within 1)"
      % (b["val_total"], a["val_total"], 100 * (b["val_total"] / a["val_total"] - 1), b["val_top1"], a["val_top1"],
         100 * (b["val_top1"] - a["val_top1"])))
PYEOF
	done
}
part quality && quality

# ---- goodput: 4 units, one killed at random every ~4 s, restarted after 0.5 s ----
chaos() { # name seconds sleep3: unit 3's --step-sleep
	rm -rf "$d/c"
	gt-outer --store "$d/c/store" --state "$d/c/outer" --init "$d/m0.bin.gz" --units 4 \
		--grace 0.2 --poll 0.05 >"$d/c.outer" 2>/dev/null &
	o=$!
	pids="$pids $o"
	ul=""
	for k in 0 1 2 3; do
		sl=0.004
		[ $k -eq 3 ] && sl=$3
		GT_UNIT_RESTART_S=0.5 sh "$GT_SRC/share/gt/unit" "$d/c/store" "$d/d7" "$d/c/u$k" \
			--units 4 --slice $k --inner-steps 100 --batch 16 --window 5000 \
			--step-sleep $sl >"$d/c.u$k" 2>/dev/null &
		ul="$ul $!"
	done
	pids="$pids $ul"
	start=$($PY -c 'import time; print(time.time())')
	end=$(( $(date +%s) + $2 ))
	kills=0
	while [ "$(date +%s)" -lt "$end" ]; do
		sleep 4
		[ "$1" = goodput ] || continue
		set -- "$1" "$2" "$3" $ul
		k=$(( $(od -An -N1 -tu1 /dev/urandom) % 4 ))
		shift $((3 + k))
		c=$(pgrep -P "$1" gt-unit | head -1)
		[ -n "$c" ] && kill -KILL "$c" && kills=$((kills + 1))
		set -- goodput
	done
	stop=$($PY -c 'import time; print(time.time())')
	kill -TERM $ul 2>/dev/null
	for p in $ul; do wait $p; done
	sleep 0.5
	kill -TERM $o; wait $o
	echo "$kills" >"$d/c.kills"
	$PY - "$d/c" "$start" "$stop" "$(cat "$d/c.kills")" "$1" <<'PYEOF'
import json, os, sys
d, t0, t1, kills, what = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
applied = {}
v = 0
while os.path.exists(os.path.join(d, "store/diloco/versions/v%d.json" % v)):
    for x in json.load(open(os.path.join(d, "store/diloco/versions/v%d.json" % v)))["deltas"]:
        x["_v"] = v
        applied[(x["unit"], x["name"])] = x
    v += 1
useful, utrain, per = 0.0, 0.0, {}
for k in range(4):
    for l in open(d + ".u%d" % k):
        r = json.loads(l)
        name = "%d-%s-%d.delta" % (r["base_version"], r["generation"], r["seq"])
        ok = ("u%d" % k, name) in applied
        per.setdefault(k, [0, 0, 0.0])
        per[k][0] += 1
        per[k][1] += ok
        if ok:
            useful += min(r["end"], t1) - max(r["start"], t0)
            utrain += r["train_s"]
            per[k][2] += r["samples"]
alloc = 4 * (t1 - t0)
if what == "goodput":
    print("goodput: %d SIGKILLs in %.0f s of 4 units, %d versions: useful (rounds applied) %.1f / allocated %.1f unit-s = %.1f%% (target >= 88%%); inner steps of applied rounds alone %.1f%%"
          % (kills, t1 - t0, v - 1, useful, alloc, 100 * useful / alloc, 100 * utrain / alloc))
else:
    st = [x["_v"] - 1 - x["base_version"] for x in applied.values() if x["unit"] == "u3"]
    print("heterogeneity: %d versions in %.0f s; rounds sent/applied per unit: %s; unit 3 (half speed): %d of %d applied samples, mean staleness of its applied deltas %.2f"
          % (v - 1, t1 - t0, ", ".join("u%d %d/%d" % (k, per[k][0], per[k][1]) for k in sorted(per)),
             per[3][2], sum(p[2] for p in per.values()), sum(st) / len(st) if st else float("nan")))
PYEOF
}
part goodput && chaos goodput 40 0.004
part heterogeneity || exit 0
# heterogeneity: unit 3 sleeps as long as a step takes (about half speed)
chaos hetero 30 0.02
V=$(sed 's/.*"version":\([0-9]*\).*/\1/' "$d/c/store/diloco/current.json")
for v in 0 "$V"; do
	gt-train --model "$d/c/store/diloco/versions/v$v.bin.gz" --data "$d/d7" --steps 1 --lr 0 \
		--weight-decay 0 --log-every 1 --validate "$d/d7" --validate-rows 2000 -o "$d/x.bin.gz" \
		2>/dev/null | head -1 | sed 's/.*"val_total":\([0-9.]*\).*"val_top1":\([0-9.]*\).*/\1 \2/' >"$d/h$v"
done
echo "heterogeneity: loss on the 7x7 training rows v0 $(cut -d' ' -f1 "$d/h0") -> v$V $(cut -d' ' -f1 "$d/h$V"), top-1 $(cut -d' ' -f2 "$d/h0") -> $(cut -d' ' -f2 "$d/h$V")"
