#!/bin/sh
# The outer process's probe check (issue 31 item 3): a version whose loss
# on a fixed set of held-out positions is worse than the version in force
# by over --probe-tolerance is refused, the previous version stays current
# and the refusal names the deltas that made it; honest versions pass.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
PY=/usr/bin/python3
$PY -c 'import json' 2>/dev/null || skip_all "no /usr/bin/python3"
SD=$T/store
S=file://$SD

gt-selfplay --model none --games 4 --visits 8 --cheap-visits 4 --full-prob 1 \
	--board-size 7 --seed 5 >"$T/g.ndjson" 2>"$T/e"
gt-shard -o "$T/d" "$T/g.ndjson" >"$T/m" 2>"$T/e"
gt-selfplay --model none --games 2 --visits 8 --cheap-visits 4 --full-prob 1 \
	--board-size 7 --seed 6 >"$T/p.ndjson" 2>"$T/e"
gt-shard -o "$T/p" "$T/p.ndjson" >"$T/m" 2>"$T/e"
gt-model init b1c8 --seed 1 -o "$T/m0.bin.gz" 2>"$T/e"
ok $? "fixture: a b1c8 network, its rows and held-out probe rows"

outer() {
	gt-outer --store "$S" --state "$T/outer" --init "$T/m0.bin.gz" --quorum 1 --grace 0 \
		--poll 0.05 --insecure-units "$@" >>"$T/ev" 2>>"$T/outer.err" &
	OP=$!
}
stop_outer() { kill -TERM "$OP"; wait "$OP"; }
wait_for() { wait_lines "$T/ev" "$@"; }
ver() { jq -r .version "$SD/diloco/current.json"; }
unit() {
	gt-unit --store "$S" --data "$T/d" --unit alice --rounds 1 --inner-steps 2 --batch 8 \
		--window 1000 --codec fp32 --cache "$T/c-alice" --lr 0.01 >>"$T/units.out" 2>>"$T/units.err"
}

gt-outer --store "$S" --state "$T/o-bad" --init "$T/m0.bin.gz" --insecure-units \
	--probe "$T/nothere" 2>"$T/e"
is $? 1 "a probe folder without rows: gt-outer does not start"
grep -q "probe $T/nothere" "$T/e"; ok $? "and says which"

: >"$T/ev"
outer --probe "$T/p" --probe-rows 64
wait_for '"event":"probe","version":0'; ok $? "version 0's probe loss"
p0=$(jq -r 'select(.event == "probe") | .probe' "$T/ev")
# the same loss from gt-train's held-out evaluation of version 0
gt-train --model "$T/m0.bin.gz" --data "$T/d" --validate "$T/p" --validate-rows 64 \
	--steps 1 --batch 8 --log-every 1 -o "$T/x.bin.gz" >"$T/train.out" 2>"$T/e"
v0=$(jq -r 'select(.step == 0) | .val_total' "$T/train.out" | head -1)
is "$($PY -c "print(abs($p0 - $v0) < 1e-4, $p0 > 0)")" "True True" \
	"version 0's probe loss is gt-train's held-out loss ($p0, $v0)"
mkdir -p "$T/c-alice"
unit; ok $? "an honest unit's round"
wait_for '"event":"version","version":1,'; ok $? "version 1 made"
p1=$(jq -r 'select(.event == "version" and .version == 1) | .probe' "$T/ev")
is "$($PY -c "print($p1 <= $p0 + 0.05)")" True "its probe loss within the tolerance ($p1 vs $p0)"

# mallory: alice's honest delta, scaled by -40, under mallory's name
$PY - "$SD" <<'PY'
import glob, hashlib, os, struct, sys
sd = sys.argv[1]
f = sorted(glob.glob(os.path.join(sd, "diloco", "deltas", "alice", "*.delta")))[0]
b = bytearray(open(f, "rb").read())
n = struct.unpack_from("<Q", b, 88)[0]
v = struct.unpack_from("<Q", b, 16)[0]
x = struct.unpack_from("<%df" % n, b, 168)
struct.pack_into("<%df" % n, b, 168, *[-40 * y for y in x])
gen = 0x6d616c6c6f7279
struct.pack_into("<QQ", b, 56, gen, 7)
b[104:168] = b"mallory".ljust(64, b"\0")
end = 168 + struct.unpack_from("<Q", b, 96)[0]
b = b[:end] + hashlib.sha256(bytes(b[:end])).digest()
d = os.path.join(sd, "diloco", "deltas", "mallory")
os.makedirs(d, exist_ok=True)
name = os.path.join(d, "%d-%016x-7.delta" % (v, gen))
open(name + ".tmp", "wb").write(b)
os.replace(name + ".tmp", name)
hb = os.path.join(sd, "diloco", "heartbeats")
open(os.path.join(hb, "mallory.json"), "w").write('{"unit":"mallory"}')
PY
wait_for '"event":"refused","version":2'; ok $? "the version of the scaled delta is refused"
jq -c 'select(.event == "refused")' "$T/ev" >"$T/r"
grep -q '"names":\["mallory/0-006d616c6c6f7279-7.delta"\]' "$T/r"; ok $? "the refusal names the delta"
grep -q '"why":"version 2 refused: probe loss [0-9.]*, version 1.s [0-9.]*' "$T/r"
ok $? "and the probe loss as the reason"
is "$(ver)" 1 "version 1 stays in force"
unit; ok $? "the honest unit goes on"
wait_for '"event":"version","version":2,'; ok $? "version 2 made from the honest delta"
stop_outer
grep -q 'version 2 refused: probe loss' "$T/outer.err"; ok $? "the refusal is in the log"

# share/gt/outer passes the trainer.cfg keys probe, probe_rows and
# probe_tolerance (a stand-in gt-outer writes its arguments)
printf '#!/bin/sh\necho "$@" >"%s/args"\n' "$T" >"$T/fake" && chmod +x "$T/fake"
printf 'mode = units\nstore = %s\nwork_dir = %s/w\ninsecure_units = yes\nprobe = %s/p\nprobe_rows = 300\nprobe_tolerance = 0.1\n' \
	"$S" "$T" "$T" >"$T/t.cfg"
GT_OUTER=$T/fake sh "$GT_SRC/share/gt/outer" -c "$T/t.cfg" 2>"$T/e"
grep -q -- "--probe $T/p --probe-rows 300 --probe-tolerance 0.1 " "$T/args"
ok $? "share/gt/outer: probe keys passed as --probe, --probe-rows, --probe-tolerance"
echo 'probe_tolerance = a' >>"$T/t.cfg"
GT_OUTER=$T/fake sh "$GT_SRC/share/gt/outer" -c "$T/t.cfg" 2>"$T/e"
is $? 2 "a probe_tolerance that is not a number: exit 2"

done_testing
