#!/bin/sh
# gt-analyze: KataGo's analysis-engine protocol checked against hand-worked
# queries: an illegal move in moves answers an error line with the id and
# field and the other queries go on; analyzeTurns over a whole game answers
# every turn once; ownership has board-size-squared entries in KataGo's
# order (row-major from the top left) and view; KataGo's keys; warnings for
# fields gt cannot honour; actions; a gt record is a query for every turn
# of its game (gt-sgf | gt-analyze); the answers for the same positions
# with 1 and with 8 in flight agree under --deterministic.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-analyze >/dev/null || skip_all "gt-analyze not built"
PY=/usr/bin/python3

check_help gt-analyze --parallel
gt-analyze </dev/null >/dev/null 2>"$T/err"
is $? 2 "no --model: exit 2"
gt-analyze --model none --report-as red </dev/null >/dev/null 2>&1
is $? 2 "--report-as red: exit 2"
gt-analyze --model "$T/missing.bin.gz" </dev/null >/dev/null 2>"$T/err"
is $? 1 "a model that cannot be read: exit 1"
gt-analyze --model none </dev/null >"$T/out" 2>&1
is "$?:$(wc -c <"$T/out" | tr -d ' ')" "0:0" "no input: no output, exit 0"

# an illegal move: an error line with the id; the queries around go on
cat >"$T/q" <<'END'
{"id":"a","moves":[["B","E5"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":20}
{"id":"bad","moves":[["B","E5"],["W","D4"],["B","D4"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9}
{"id":"c","moves":[],"rules":"tromp-taylor","komi":0,"boardXSize":5,"boardYSize":5,"maxVisits":7}
END
gt-analyze --model none <"$T/q" >"$T/out" 2>"$T/err"
is $? 1 "an error answered: exit 1"
grep -q '^{"id":"bad","error":"illegal move 3 (B D4): point occupied","field":"moves"}$' "$T/out"
ok $? "illegal move 3: error line with id and field"
is "$($PY -c 'import json, sys
print(" ".join("%s:%s:%s" % (r["id"], r.get("turnNumber"), r.get("rootInfo", {}).get("visits"))
               for r in map(json.loads, open(sys.argv[1]))))' "$T/out")" \
	"bad:None:None a:1:20 c:0:7" "the error at once, the others answered at their maxVisits"
test ! -s "$T/err"
ok $? "nothing on stderr"

# analyzeTurns over a whole game: every turn once (a repeated turn too)
cat >"$T/q" <<'END'
{"id":"g","moves":[["B","C3"],["W","G7"],["B","pass"],["W","pass"],["B","E5"],["W","F6"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":12,"analyzeTurns":[6,0,1,2,3,4,5,2]}
END
gt-analyze --model none <"$T/q" >"$T/out" 2>&1
ok $? "analyzeTurns over a whole game (with passes)"
is "$($PY -c 'import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
print(" ".join("%d%s" % (r["turnNumber"], r["rootInfo"]["currentPlayer"]) for r in rs))' "$T/out")" \
	"6B 0B 1W 2B 3W 4B 5W" "each turn answered once, with the side to move"

# ownership: n*n entries, row-major from the top left (A5 first), Black's
# view by default. Black has the top row, White the bottom: every finished
# game in the search gives +1 on the top row and -1 on the bottom one, and
# the uniform evaluator 0 everywhere else, so the top row is > 0 and the
# bottom row its negation (White has just passed, and rootFpuReductionMax
# 0 makes the search try every root move: Black's pass ends the game).
q='{"id":"o","moves":[["W","pass"]],"initialStones":[["B","A5"],["B","B5"],["B","C5"],["B","D5"],["B","E5"],["W","A1"],["W","B1"],["W","C1"],["W","D1"],["W","E1"]],"rules":"tromp-taylor","komi":0.5,"boardXSize":5,"boardYSize":5,"maxVisits":300,"includeOwnership":true,"includePolicy":true,"rootFpuReductionMax":0}'
echo "$q" | gt-analyze --model none >"$T/out" 2>&1
ok $? "a query with includeOwnership and includePolicy"
own() { $PY -c 'import json, sys
r = json.loads(open(sys.argv[1]).readline()); o = r["ownership"]
print(len(o), all(x > 0 for x in o[0:5]), all(abs(o[i] + o[20 + i]) < 1e-6 for i in range(5)),
      len(r["policy"]), sum(x == -1 for x in r["policy"]), abs(sum(x for x in r["policy"] if x > 0) - 1) < 1e-4)' "$1"; }
is "$(own "$T/out")" "25 True True 26 10 True" \
	"25 values, top row (A5..E5) Black's, bottom row its negation; policy 26 entries, -1 on the 10 stones, the rest sums to 1"
echo "$q" | gt-analyze --model none --report-as white >"$T/out2" 2>&1
is "$($PY -c 'import json, sys
a = json.loads(open(sys.argv[1]).readline()); b = json.loads(open(sys.argv[2]).readline())
print(all(abs(x + y) < 1e-6 for x, y in zip(a["ownership"], b["ownership"])),
      abs(a["rootInfo"]["winrate"] + b["rootInfo"]["winrate"] - 1) < 1e-6)' "$T/out" "$T/out2")" \
	"True True" "--report-as white: ownership and win rate from White's view"

# KataGo's keys in every move
gt-model init b1c8 --seed 5 -o "$T/net.bin.gz" 2>/dev/null
ok $? "gt-model init b1c8"
echo '{"id":"k","moves":[["B","E5"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":40}' |
	gt-analyze --model "$T/net.bin.gz" >"$T/out" 2>&1
$PY - "$T/out" <<'END'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
assert r["id"] == "k" and r["turnNumber"] == 1 and r["isDuringSearch"] is False, r
ms = r["moveInfos"]
assert ms and sum(m["visits"] for m in ms) == r["rootInfo"]["visits"] - 1, r["rootInfo"]
for i, m in enumerate(ms):
    for k in ("move", "visits", "winrate", "scoreLead", "scoreMean", "prior", "lcb", "order", "pv"):
        assert k in m, (k, m)
    assert m["order"] == i and m["pv"][0] == m["move"] and 0 <= m["winrate"] <= 1, m
    assert i == 0 or m["visits"] <= ms[i - 1]["visits"], m
assert r["rootInfo"]["currentPlayer"] == "W"
END
ok $? "moveInfos: move visits winrate scoreLead scoreMean prior lcb order pv, ranked"

# warnings for what gt cannot honour; the query still answered
echo '{"id":"w","moves":[],"rules":"aga","komi":6.5,"boardXSize":9,"boardYSize":9,"maxVisits":5,"includeOwnershipStdev":true,"includeNoResultValue":true,"priority":0,"frobnicate":1}' |
	gt-analyze --model none >"$T/out" 2>&1
ok $? "warnings are not errors: exit 0"
is "$(grep -c '"warning"' "$T/out")" 4 "four warnings: ownership stdev, no-result value, aga played as chinese, an unknown field"
grep -q '"field":"includeNoResultValue"' "$T/out" && grep -q '"field":"rules"' "$T/out"
ok $? "each names its field"
grep -q '"priority"' "$T/out"
is $? 1 "priority 0 asks for nothing: no warning"
is "$(grep -c '"moveInfos"' "$T/out")" 1 "and the query is answered"
cat >"$T/q" <<'END'
{"id":"v","action":"query_version"}
{"id":"m","action":"query_models"}
{"id":"x","action":"frobnicate"}
{"id":"n","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":13}
not json
END
gt-analyze --model none <"$T/q" >"$T/out" 2>&1
grep -q '^{"id":"v","action":"query_version","version":"[0-9.]*","git_hash":"<omitted>"}$' "$T/out"
ok $? "query_version"
grep -q '"id":"m".*"models":\[{"name":"none"' "$T/out"
ok $? "query_models"
grep -q '"id":"x","error"' "$T/out" && grep -q '"id":"n","error":"non-square' "$T/out" &&
	grep -q '^{"error":"line 5: ' "$T/out"
ok $? "an unknown action, a 9x13 board, a line that is not JSON: error lines"

# terminate: a search of a billion visits stops when the action comes (the
# input stays open until then), the queries after it go on
{ echo '{"id":"long","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":1000000000}'
  echo '{"id":"next","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":5}'
  sleep 1
  echo '{"id":"t","action":"terminate","terminateId":"long"}'; } |
	timeout 120 gt-analyze --model none --parallel 1 >"$T/out" 2>&1
ok $? "terminate ends an endless search"
# the echo of the action may come before or after the answer it ends
# (written by another thread); the answers keep their queued order
is "$($PY -c 'import json, sys
ids = [r["id"] + ("/" + str(r["rootInfo"]["visits"] < 10**9) if "rootInfo" in r else "")
       for r in map(json.loads, open(sys.argv[1]))]
print(("t" if ids.count("t") == 1 else "no-t"), " ".join(i for i in ids if i != "t"))' "$T/out")" "t long/True next/True" \
	"the action echoed, the search answered with what it has, the next query answered"

# avoidMoves and allowMoves (KataGo's Analysis_Engine.md), as KaTrain's
# "find alternatives" and "region of interest" send them; the new fields
cat >"$T/q" <<'END'
{"id":"av","moves":[["B","E5"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":200,"avoidMoves":[{"player":"W","moves":["D5","F5","E4","E6","D4"],"untilDepth":1},{"player":"W","moves":["C3","pass"],"untilDepth":3}],"includePVVisits":true}
{"id":"al","moves":[["B","E5"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":150,"allowMoves":[{"player":"W","moves":["C3","G7","(2,2)"],"untilDepth":2}],"includeMovesOwnership":true,"includeOwnership":true}
{"id":"raw","moves":[["B","E5"],["W","C4"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":1}
{"id":"e1","moves":[],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"allowMoves":[{"player":"B","moves":["E5"],"untilDepth":1},{"player":"B","moves":["C3"],"untilDepth":1}]}
{"id":"e2","moves":[],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"avoidMoves":[{"player":"B","moves":["Z9"],"untilDepth":1}]}
{"id":"e3","moves":[],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"avoidMoves":[{"player":"B","moves":["E5"],"untilDepth":0}]}
END
gt-analyze --model "$T/net.bin.gz" <"$T/q" >"$T/out" 2>"$T/err"
is $? 1 "avoidMoves, allowMoves, includePVVisits, includeMovesOwnership (exit 1: three bad queries)"
$PY - "$T/out" <<'END'
import json, sys
rs = {}
for l in open(sys.argv[1]):
    d = json.loads(l)
    rs.setdefault(d["id"], []).append(d)
av = rs["av"][0]["moveInfos"]
moves = {m["move"] for m in av} | {m["pv"][0] for m in av}
assert not moves & {"D5", "F5", "E4", "E6", "D4", "C3", "pass"}, moves
assert len(av) >= 20 and sum(m["visits"] for m in av) == 199, (len(av), sum(m["visits"] for m in av))
assert all(len(m["pvVisits"]) == len(m["pv"]) and m["pvVisits"][0] == m["visits"] and
           m["pvEdgeVisits"] == m["pvVisits"] for m in av)
# white's C3 (forbidden until depth 3) never the reply in a pv below Black's move
assert all(m["pv"][2] != "C3" for m in av if len(m["pv"]) > 2), [m["pv"] for m in av]
al = rs["al"][0]
assert sorted(m["move"] for m in al["moveInfos"]) == ["C3", "C7", "G7"], al["moveInfos"]
assert all(len(m["ownership"]) == 81 for m in al["moveInfos"]) and len(al["ownership"]) == 81
for m in al["moveInfos"] + av:
    for k in ("utility", "utilityLcb", "scoreStdev", "weight", "scoreMean", "scoreSelfplay"):
        assert isinstance(m.get(k), float), (k, m)
    assert m["weight"] == m["visits"] and abs(m["utility"] - (2 * m["winrate"] - 1)) < 1e-6, m
ri = rs["raw"][0]["rootInfo"]
# one visit: the root's own evaluation, so the search's values are the raw ones
assert abs(ri["winrate"] - ri["rawWinrate"]) < 1e-9 and abs(ri["scoreLead"] - ri["rawLead"]) < 1e-9, ri
assert ri["rawNoResultProb"] == 0 and ri["rawScoreSelfplay"] == ri["rawLead"] and ri["weight"] == 1, ri
for e, f in (("e1", "allowMoves"), ("e2", "avoidMoves"), ("e3", "avoidMoves")):
    assert rs[e][0].get("field") == f and "error" in rs[e][0], rs[e]
END
ok $? "avoided moves never in moveInfos or first in a pv, allowed ones only, pvVisits, moves' ownership, rootInfo raw values, errors for a second allow, a bad location and depth 0"

# a gt record is a query for every turn of its game
S=$GT_SRC/../shared/data/sgf
printf '(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese];B[ee];W[cc];B[gg];W[gc];B[cg])\n' >"$T/g.sgf"
gt-sgf "$T/g.sgf" >"$T/rec"
gt-analyze --model none --visits 9 --ownership <"$T/rec" >"$T/out" 2>&1
ok $? "gt-sgf game.sgf | gt-analyze"
id=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["game_id"])' "$T/rec")
is "$($PY -c 'import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
print(len(set(r["id"] for r in rs)), " ".join(str(r["turnNumber"]) for r in rs),
      set(r["rootInfo"]["visits"] for r in rs), set(len(r["ownership"]) for r in rs))' "$T/out")" \
	"1 0 1 2 3 4 5 {9} {81}" "one answer per turn 0..5, each at --visits, with ownership"
grep -q "\"id\":\"$id\"" "$T/out"
ok $? "the record's game_id is the id"

# the same positions with 1 and with 8 in flight agree (--deterministic)
cat >"$T/q" <<'END'
{"id":"d1","moves":[["B","E5"],["W","C3"],["B","G7"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":60,"analyzeTurns":[0,1,2,3],"includeOwnership":true,"includePolicy":true}
{"id":"d2","moves":[["B","D4"]],"rules":"tromp-taylor","komi":0.5,"boardXSize":7,"boardYSize":7,"maxVisits":50}
{"id":"d3","moves":[],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":80,"includeOwnership":true}
END
cat "$T/rec" >>"$T/q"
gt-analyze --model "$T/net.bin.gz" --deterministic --parallel 1 <"$T/q" >"$T/p1" 2>&1
ok $? "--parallel 1"
gt-analyze --model "$T/net.bin.gz" --deterministic --parallel 8 <"$T/q" >"$T/p8" 2>&1
ok $? "--parallel 8"
is "$(wc -l <"$T/p1" | tr -d ' ')" 12 "12 answers"
cmp -s "$T/p1" "$T/p8"
ok $? "the answers with 1 and with 8 positions in flight are the same, in the same order"
done_testing
