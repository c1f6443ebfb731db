#!/bin/sh
# gt-model export --katago: a gt network (every parameter random, global
# pooling blocks) written as a KataGo model, described as one, and gt-gtp's
# kata-raw-nn on it equal to the gt network's on positions of three rulesets
# (both read by gt); KataGo's own outputs for an exported trained network
# (tests/data/katago/README: KataGo v1.17.2 evaluated the export) against
# the gt network's and against gt's KataGo reader on the network exported
# now; bad names and inputs refused.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-gtp >/dev/null || skip_all "gt-gtp not built"
PY=/usr/bin/python3

gt-model init b3c16g2 --seed 4 -o "$T/init.bin.gz"
ok $? "a b3c16g2 network"
# random parameters (a fresh network's second convolutions are 0)
$PY - "$T/init.bin.gz" "$T/net.bin.gz" <<'PY'
import gzip, struct, sys, random
d = gzip.open(sys.argv[1]).read()
h = 184 if struct.unpack("<I", d[4:8])[0] == 2 else 172
n = struct.unpack("<Q", d[164:172])[0]
random.seed(5)
p = struct.pack("<%df" % n, *[random.uniform(-0.4, 0.4) for _ in range(n)])
open(sys.argv[2], "wb").write(gzip.compress(d[:h] + p, mtime=0))
PY
ok $? "... with random parameters"

gt-model export "$T/net.bin.gz" --katago "$T/k.bin.gz"
ok $? "exported"
gt-model describe "$T/k.bin.gz" >"$T/d.json"
$PY - "$T/d.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = dict(format="katago", format_version=8, arch="b4c27", gpool_blocks=1, input_planes=22,
            global_inputs=19, score_outputs=4, name="gt-b3c16g2-s0-d0")
bad = {k: (d[k], v) for k, v in want.items() if d[k] != v}
assert not bad, bad
PY
ok $? "described as KataGo's version 8, b4c27 (one block and 11 channels more), 1 gpool block, gt's name"
gt-model export "$T/net.bin.gz" --katago "$T/plain.bin" --name my_net-1
ok $? "plain .bin with --name"
is "$(head -c 10 "$T/plain.bin")" "my_net-1
8" "the .bin starts with the name and version 8"

# kata-raw-nn on both: four positions, three rulesets, komi of both signs
for r in tromp-taylor chinese new-zealand; do
	printf 'boardsize 9\nkomi -3.5\nkata-set-rules %s\nplay b E5\nplay w D4\nplay b D5\nplay w C5\nplay b pass\nkata-raw-nn 0\nplay w E4\nkomi 7.5\nkata-raw-nn 0\nquit\n' "$r" >"$T/in.$r"
	gt-gtp -q --model "$T/net.bin.gz" <"$T/in.$r" >"$T/gt.$r"
	gt-gtp -q --model "$T/k.bin.gz" <"$T/in.$r" >"$T/kx.$r"
done
$PY - "$T" <<'PY'
import sys
worst = 0
for r in ("tromp-taylor", "chinese", "new-zealand"):
    a = [x for x in open("%s/gt.%s" % (sys.argv[1], r)).read().split("\n\n") if x.startswith("= symm")]
    b = [x for x in open("%s/kx.%s" % (sys.argv[1], r)).read().split("\n\n") if x.startswith("= symm")]
    assert len(a) == 2 and len(b) == 2, (r, len(a), len(b))
    for x, y in zip(a, b):
        tx, ty = x.split(), y.split()
        assert len(tx) == len(ty) > 170, (len(tx), len(ty))
        for i, (u, v) in enumerate(zip(tx, ty)):
            # KataGo's score deviation and time left: gt has no such heads
            if tx[i - 1] in ("whiteScoreSelfplaySq", "varTimeLeft"):
                continue
            try:
                worst = max(worst, abs(float(u) - float(v)) / (1 if abs(float(u)) < 10 else abs(float(u))))
            except ValueError:
                assert u == v, (u, v)
print("# largest difference %.2g" % worst)
assert worst < 1.5e-3, worst
PY
ok $? "kata-raw-nn of the export equals the gt network's on 6 positions (win, loss, lead, policy, ownership; not the score deviation and time left gt has not)"

# KataGo's own outputs: KataGo v1.17.2 evaluated the export of a trained
# b4c32g2 on 16 positions of 9x9, 13x13 and 19x19 (tests/data/katago/README);
# gt's network itself and gt's KataGo reader on today's export of it must
# give the same win rate, lead, policy and ownership. Bounds: win rate and
# policy 1e-5, lead 5e-3 points, ownership 2e-5 (measured: 7.2e-7, 4.9e-4,
# 7.6e-7, 2.5e-6 for the gt network)
KD=$GT_SRC/tests/data/katago
gt-model export "$KD/gt-z9-b4c32g2.bin.gz" --katago "$T/z9k.bin.gz"
ok $? "the trained b4c32g2 exported"
ids=$($PY -c 'import json, sys; print(",".join(json.loads(l)["id"] for l in open(sys.argv[1])))' "$KD/gt-z9-b4c32g2-katago.ndjson")
for net in "$KD/gt-z9-b4c32g2.bin.gz" "$T/z9k.bin.gz"; do
	timeout 600 $PY "$GT_SRC/tests/py/kata_raw_nn.py" "$KD/gt-z9-b4c32g2-katago.ndjson" "$net" "$ids" "$T" >"$T/kraw" 2>"$T/err"
	ok $? "kata-raw-nn on KataGo's 16 positions ($(basename "$net"))"
	sed 's/^/# /' "$T/kraw"
	$PY - "$T/kraw" <<'PY'
import sys
n = 0
for l in open(sys.argv[1]):
    t = l.split()
    e = [float(x) for x in t[1:5]]
    assert e[0] < 1e-5 and e[1] < 5e-3 and e[2] < 1e-5 and e[3] < 2e-5, l
    n += 1
assert n == 16, n
PY
	ok $? "... win rate, lead, policy and ownership as KataGo computed them for the export"
done

# refusals
gt-model export "$T/net.bin.gz" --katago "$T/x.bin.gz" --name "two words" 2>"$T/err"
is $? 2 "a bad --name: usage error"
grep -q "model name" "$T/err"
ok $? "... named"
gt-model export "$T/k.bin.gz" --katago "$T/x.bin.gz" 2>"$T/err"
is $? 1 "a KataGo network as input: refused"
grep -q "already a KataGo network" "$T/err"
ok $? "... said"
[ ! -e "$T/x.bin.gz" ]
ok $? "nothing written"
done_testing
