# diloco-chaos.sh: the chaos run of tests/cmd/diloco.t and diloco-http.t,
# sourced after tap.sh with S (the store URL) and SD (the store's folder on
# disk) set. Four learning units (share/gt/unit loops) and the outer
# process (share/gt/outer loop) run in the background for about CHAOS_S
# seconds while gt-unit processes are killed with SIGKILL at random and
# restarted by their loops, the outer process kills itself between a
# version's state and its pointer (GT_OUTER_CRASH_AT=3) and is once killed
# with SIGKILL at random. Then: versions contiguous, every version a valid
# network, every delta in at most one version's ledger and each of those
# a stored delta, training went on while units were down.
PY=/usr/bin/python3
$PY -c 'import json' 2>/dev/null || skip_all "no /usr/bin/python3"
: "${CHAOS_S:=24}"

gt-selfplay --model none --games 6 --visits 8 --cheap-visits 4 --full-prob 1 \
	--board-size 7 --seed 5 >"$T/g.ndjson" 2>"$T/e"
ok $? "gt-selfplay: six games"
gt-shard -o "$T/d" "$T/g.ndjson" >"$T/m" 2>"$T/e"; ok $? "gt-shard: the rows"
gt-model init b1c8 --seed 1 -o "$T/m0.bin.gz" 2>"$T/e"; ok $? "a b1c8 network"

# usage
gt-outer -h >"$T/h" 2>&1; ok $? "gt-outer -h"
gt-unit -h >"$T/h" 2>&1; ok $? "gt-unit -h"
gt-outer --bogus 2>"$T/e"; is $? 2 "gt-outer: unknown option: exit 2"
gt-unit --store "$S" --data "$T/d" --slice 4 --units 4 2>"$T/e"; is $? 2 "gt-unit: --slice >= --units: exit 2"
gt-unit --store "$S" --data "$T/d" --codec int3 2>"$T/e"; is $? 2 "gt-unit: bad codec: exit 2"
gt-outer --store "$S" --state "$T/nostate" --insecure-units 2>"$T/e"; is $? 1 "gt-outer without state or --init: exit 1"

GT_OUTER_CRASH_AT=3 GT_OUTER_RESTART_S=0.5 sh "$GT_SRC/share/gt/outer" "$S" "$T/outer" "$T/m0.bin.gz" --insecure-units \
	--quorum 2 --grace 0.1 --poll 0.05 --lease-ttl 5 >"$T/outer.out" 2>"$T/outer.err" &
OL=$!
i=0
while [ ! -f "$SD/diloco/current.json" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
test -f "$SD/diloco/current.json"; ok $? "version 0 published"

# a second outer process: refused while the first holds the lease / the state
gt-outer --store "$S" --state "$T/outer2" --init "$T/m0.bin.gz" --insecure-units >"$T/o2" 2>"$T/e2"
is $? 1 "a second gt-outer (another state) is refused"
grep -q 'lease held by' "$T/e2"; ok $? "because of the lease: $(cat "$T/e2")"
gt-outer --store "$S" --state "$T/outer" --insecure-units >"$T/o3" 2>"$T/e3"
is $? 1 "a second gt-outer on the same state directory is refused"

UL=""
for k in 0 1 2 3; do
	GT_UNIT_RESTART_S=1.5 sh "$GT_SRC/share/gt/unit" "$S" "$T/d" "$T/u$k" --units 4 --slice $k \
		--inner-steps 4 --batch 16 --window 1000 --step-sleep 0.03 \
		>"$T/u$k.out" 2>"$T/u$k.err" &
	UL="$UL $!"
done

ver() { sed 's/.*"version":\([0-9]*\).*/\1/' "$SD/diloco/current.json" 2>/dev/null || echo 0; }
# the chaos: every ~1.2 s a random unit's gt-unit gets SIGKILL; its loop
# restarts it 1.5 s later; the versions made meanwhile are counted
end=$(( $(date +%s) + CHAOS_S ))
kills=0 advanced=0 outer_killed=0
: >"$T/kills"
while [ "$(date +%s)" -lt "$end" ]; do
	sleep 1.2
	set -- $UL
	k=$(( $(od -An -N1 -tu1 /dev/urandom) % 4 ))
	shift $k
	c=$(pgrep -P "$1" gt-unit | head -1)
	[ -n "$c" ] || continue
	v0=$(ver)
	kill -KILL "$c" 2>/dev/null && kills=$((kills + 1))
	sleep 1.2
	v1=$(ver)
	echo "unit $k killed at v$v0, v$v1 1.2 s later" >>"$T/kills"
	[ "$v1" -gt "$v0" ] && advanced=$((advanced + 1))
	if [ $outer_killed -eq 0 ] && [ "$v1" -gt 6 ]; then
		c=$(pgrep -P "$OL" gt-outer | head -1)
		[ -n "$c" ] && kill -KILL "$c" && outer_killed=1
	fi
done
kill -TERM $UL 2>/dev/null
for p in $UL; do wait "$p"; done
# let the outer take the last deltas in, then stop it
sleep 0.5
kill -TERM "$OL"
wait "$OL"
diag "$(cat "$T/kills" | tr '\n' ';')"
ok $((kills < 5)) "units killed with SIGKILL: $kills"
ok $((advanced < kills / 2)) "versions advanced while a unit was down: $advanced of $kills kills"
is "$outer_killed" 1 "gt-outer killed with SIGKILL once"
grep -q 'GT_OUTER_CRASH_AT=3: killed before the pointer' "$T/outer.err"; ok $? "gt-outer died between state and pointer of version 3"
grep -q '"event":"recovered","version":3' "$T/outer.out"; ok $? "the restart finished version 3"
[ "$(grep -c 'restarting' "$T/outer.err")" -ge 2 ]; ok $? "gt-outer restarted by share/gt/outer"
[ "$(cat "$T"/u?.err | grep -c 'restarting')" -ge 1 ]; ok $? "gt-unit restarted by share/gt/unit"

! grep -q 'Sanitizer\|runtime error' "$T"/*.err; ok $? "no sanitizer report from any gt-unit or gt-outer"
V=$(ver)
diag "reached version $V"
[ "$V" -ge 10 ]; ok $? "ten versions or more ($V)"
bad=0
for i in $(seq 0 "$V"); do
	gt-model describe "$SD/diloco/versions/v$i.bin.gz" >/dev/null 2>&1 || { bad=$((bad + 1)); diag "v$i does not load"; }
	[ -f "$SD/diloco/versions/v$i.json" ] || { bad=$((bad + 1)); diag "v$i has no ledger"; }
done
is "$bad" 0 "versions 0..$V contiguous, each loads (gt_model_read) and has a ledger"

$PY - "$SD/diloco" "$V" "$T/outer.out" >"$T/r" <<'PYEOF'
import json, os, sys
d, V = sys.argv[1], int(sys.argv[2])
seen, dup, missing, total, stale = {}, 0, 0, 0, 0
for v in range(V + 1):
    led = json.load(open(os.path.join(d, "versions", "v%d.json" % v)))
    assert led["version"] == v
    for x in led["deltas"]:
        key = (x["unit"], x["name"])
        total += 1
        if key in seen: dup += 1
        seen[key] = v
        if not os.path.exists(os.path.join(d, "deltas", x["unit"], x["name"])): missing += 1
        if x["base_version"] >= v: missing += 1   # must come from an older version
        if x["base_version"] < v - 1: stale += 1
admitted = set()
for l in open(sys.argv[3]):
    e = json.loads(l)
    if e.get("event") == "delta" and e["decision"] in ("fresh", "stale"):
        admitted.add((e["unit"], e["name"]))
units = sorted(os.listdir(os.path.join(d, "deltas")))
ptr = json.load(open(os.path.join(d, "current.json")))
print(0 if dup == 0 else 1, "no delta in two versions' ledgers (%d applied, %d stale)" % (total, stale))
print(0 if missing == 0 else 1, "every ledger entry is a stored delta from an older version")
print(0 if set(seen) <= admitted else 1, "every applied delta was admitted (%d admitted)" % len(admitted))
print(0 if units == ["u0", "u1", "u2", "u3"] else 1, "all four units sent deltas")
print(0 if V == ptr["version"] and ptr["model"] == "v%d.bin.gz" % V else 1, "the pointer names the last version")
PYEOF
while read -r st name; do ok "$st" "$name"; done <"$T/r"
