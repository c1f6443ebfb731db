#!/bin/sh
# The outer process against hostile learning units (issue 17 item 1),
# each written as the attack on a file:// store, the run going on with
# an honest unit: a well-formed delta of -3e38 everywhere, one claiming
# 2^62 samples, and, with --unit-keys, deltas from an unknown unit, an
# unsigned one and one signed by another key under the honest unit's id.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
PY=/usr/bin/python3
$PY -c 'import json' 2>/dev/null || skip_all "no /usr/bin/python3"
command -v openssl >/dev/null || skip_all "no openssl"
SD=$T/store
S=file://$SD

gt-selfplay --model none --games 4 --visits 8 --cheap-visits 4 --full-prob 1 \
	--board-size 7 --seed 5 >"$T/g.ndjson" 2>"$T/e"
gt-shard -o "$T/d" "$T/g.ndjson" >"$T/m" 2>"$T/e"
gt-model init b1c8 --seed 1 -o "$T/m0.bin.gz" 2>"$T/e"; ok $? "fixture: a b1c8 network and its rows"
for k in alice mallory; do
	ed25519_key "$T/$k.pem" "$T/$k.pub"
done
mkdir -p "$T/keys" && cp "$T/alice.pub" "$T/keys/alice.pub"

# outer [options...]: gt-outer in the background, its events in $T/ev
outer() {
	gt-outer --store "$S" --state "$T/outer" --init "$T/m0.bin.gz" --quorum 1 --grace 0 \
		--poll 0.05 "$@" >>"$T/ev" 2>>"$T/outer.err" &
	OP=$!
}
stop_outer() { kill -TERM "$OP"; wait "$OP"; }
# wait_for PATTERN [N]: until N (1) lines of the events match (60 s)
wait_for() { wait_lines "$T/ev" "$@"; }
ver() { jq -r .version "$SD/diloco/current.json"; }
# unit ID [options...]: one honest round of gt-unit as ID
unit() {
	_id=$1
	shift
	gt-unit --store "$S" --data "$T/d" --unit "$_id" --rounds 1 --inner-steps 2 --batch 8 \
		--window 1000 --codec fp32 --cache "$T/c-$_id" "$@" >>"$T/units.out" 2>>"$T/units.err"
}
# forge SEQ VALUE SAMPLES: a delta of unit mallory on the current version
# with every value VALUE (fp32) and SAMPLES samples, the layout of an
# honest delta (gt-delta(5)) with a good sha256, put in the store with a
# heartbeat
forge() {
	$PY - "$SD" "$1" "$2" "$3" <<'PY'
import hashlib, json, os, struct, sys
sd, seq, value, samples = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
cur = json.load(open(os.path.join(sd, "diloco", "current.json")))
# the parameter count, from an honest delta's header
P = int(open(os.path.join(sd, "P")).read())
h = bytearray(168)
h[0:8] = b"gtdelta\n"
struct.pack_into("<IBBH", h, 8, 1, 0, 0, 0)          # format 1, fp32, sha256, no flags
struct.pack_into("<Q", h, 16, cur["version"])
h[24:56] = bytes.fromhex(cur["params_sha256"])
struct.pack_into("<QQQQQQ", h, 56, 0x6d616c6c6f7279, int(seq), 2, samples, P, 4 * P)
h[104:104 + 7] = b"mallory"
pay = struct.pack("<%df" % P, *([value] * P))
body = bytes(h) + pay
d = os.path.join(sd, "diloco", "deltas", "mallory")
os.makedirs(d, exist_ok=True)
v = cur["version"]
# written as a store's put is, whole or not at all: the outer polls the
# folder and must not see a half-written file
name = os.path.join(d, "%d-%016x-%s.delta" % (v, 0x6d616c6c6f7279, seq))
with open(name + ".tmp", "wb") as f:
    f.write(body + hashlib.sha256(body).digest())
os.replace(name + ".tmp", name)
hb = os.path.join(sd, "diloco", "heartbeats")
os.makedirs(hb, exist_ok=True)
open(os.path.join(hb, "mallory.json"), "w").write('{"unit":"mallory"}')
PY
}

: >"$T/ev"
outer --max-samples 64 --insecure-units
wait_for '"event":"init"'; ok $? "gt-outer publishes version 0"
# P from an honest delta: a first round of alice
mkdir -p "$T/c-alice"
unit alice; ok $? "an honest unit's round"
wait_for '"event":"version","version":1,'; ok $? "makes version 1"
# the parameter count: from the honest delta the outer got
$PY - "$SD" <<'PY'
import glob, os, struct, sys
sd = sys.argv[1]
f = sorted(glob.glob(os.path.join(sd, "diloco", "deltas", "alice", "*.delta")))[0]
h = open(f, "rb").read(168)
open(os.path.join(sd, "P"), "w").write(str(struct.unpack_from("<Q", h, 88)[0]))
PY

# the huge finite delta, alone at first
forge 0 -3e38 16
wait_for '"unit":"mallory","name":"1-[0-9a-f]*-0.delta","decision":"value"'
ok $? "a delta of -3e38 everywhere: refused (value)"
sleep 0.3
is "$(ver)" 1 "no version made from it"
unit alice; ok $? "the honest unit goes on"
wait_for '"event":"version","version":2,'; ok $? "version 2 made from the honest delta"
gt-model describe "$SD/diloco/versions/v2.bin.gz" >"$T/desc" 2>"$T/e"
ok $? "version 2's parameters are finite (gt-model reads it)"
# a delta huge but under --max-value, no norms known to compare: the
# version it would make is refused and version 2 stays
forge 2 500 16
wait_for '"event":"refused","version":3'; ok $? "a delta of 500 everywhere: the version it makes is refused"
is "$(ver)" 2 "version 2 stays"
unit alice; ok $? "the honest unit goes on"
wait_for '"event":"version","version":3,'; ok $? "version 3 made from the honest delta"
gt-model describe "$SD/diloco/versions/v3.bin.gz" >"$T/desc" 2>"$T/e"
ok $? "version 3's parameters are finite"
# a huge samples: the weight is clamped to --max-samples
forge 1 0.001 4611686018427387904
wait_for '"unit":"mallory","name":"3-[0-9a-f]*-1.delta","decision":"fresh"'
ok $? "a delta claiming 2^62 samples: admitted"
w=$(jq -r 'select(.event == "delta" and (.name | test("^3-.*-1.delta$"))) | .weight' "$T/ev")
is "$w" 64 "with the weight of --max-samples 64"
wait_for '"event":"version","version":4,'; ok $? "version 4"
# once 3 norms are known: a delta far over the median norm is refused
forge 3 1 16
wait_for '"unit":"mallory","name":"4-[0-9a-f]*-3.delta","decision":"norm"'
ok $? "a delta of 1 everywhere, far over the median norm: refused (norm)"
sleep 0.3
is "$(ver)" 4 "no version made from it"
stop_outer

# unit keys: only deltas signed by their unit's key
gt-outer --store "$S" --state "$T/outer2" --unit-keys "$T/nokeys" 2>"$T/e"
is $? 2 "--unit-keys of a missing folder: exit 2"
gt-unit --store "$S" --data "$T/d" --sign-key "$T/nokey.pem" 2>"$T/e"
is $? 2 "gt-unit --sign-key of a missing key: exit 2"
outer --unit-keys "$T/keys"
sleep 0.3
unit alice --sign-key "$T/alice.pem"; ok $? "alice signs her delta"
wait_for '"event":"version","version":5,'; ok $? "her delta makes version 5"
grep '"unit":"alice"' "$T/ev" | tail -1 | grep -q '"decision":"fresh"'; ok $? "admitted fresh"
# her signed delta replayed with another seq and 2^40 samples, the
# checksum made good again, the signature kept
$PY - "$SD" <<'PY'
import glob, hashlib, os, struct, sys
d = os.path.join(sys.argv[1], "diloco", "deltas", "alice")
f = [p for p in glob.glob(os.path.join(d, "*.delta")) if open(p, "rb").read(16)[14] & 1][0]
b = bytearray(open(f, "rb").read())
v, gen = struct.unpack_from("<Q", b, 16)[0], struct.unpack_from("<Q", b, 56)[0]
struct.pack_into("<Q", b, 64, 99)
struct.pack_into("<Q", b, 80, 1 << 40)
n = 168 + struct.unpack_from("<Q", b, 96)[0]
b[n:n + 32] = hashlib.sha256(bytes(b[:n])).digest()
name = os.path.join(d, "%d-%016x-99.delta" % (v, gen))
open(name + ".tmp", "wb").write(b)
os.replace(name + ".tmp", name)
PY
wait_for '"unit":"alice","name":"[0-9]*-[0-9a-f]*-99.delta","decision":"unsigned".*signature'
ok $? "her signed delta with its header changed (seq, samples): refused as unsigned"
unit mallory --sign-key "$T/mallory.pem"; ok $? "a unit with an unknown key sends a signed delta"
wait_for '"unit":"mallory","name":"5-.*"decision":"unsigned","staleness":0,"samples":16,"weight":0.0,"why":"no key for unit mallory"'
ok $? "refused as unsigned: no key for unit mallory"
unit alice --sign-key "$T/mallory.pem"; ok $? "mallory sends a delta as alice, signed with her own key"
wait_for '"unit":"alice","name":"5-.*"decision":"unsigned".*signature'
ok $? "refused as unsigned: a bad signature"
unit alice; ok $? "an unsigned delta as alice"
wait_for '"unit":"alice","name":"5-.*"decision":"unsigned"' 2; ok $? "refused as unsigned too"
is "$(ver)" 5 "no version from any of them"
unit alice --sign-key "$T/alice.pem"; ok $? "alice goes on"
wait_for '"event":"version","version":6,'; ok $? "and makes version 6"
stop_outer
grep -q 'version [0-9]* refused: parameter norm' "$T/outer.err"; ok $? "the refused version is in the log with its reason"

done_testing
