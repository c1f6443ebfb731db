#!/bin/sh
# gt-gtp as the KataGo clients see it: Lizzie's identification exchange
# (--name, --version-string), avoid and allow in lz-analyze and
# kata-analyze parsed live as the clients parse them (an avoided move never
# appears; with allow only the allowed ones), pvVisits and movesOwnership,
# kata-get-rules and kata-set-rules, kata-get-param, kata-set-param and
# kata-list-params, stop and clear_cache, and kata-raw-nn against KataGo's
# own outputs for its b6c96 network (shared/data/katago).
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-gtp >/dev/null || skip_all "gt-gtp not built"
PY=/usr/bin/python3
gt-model init b1c8 --seed 5 -o "$T/net.bin.gz" 2>/dev/null
ok $? "gt-model init b1c8"
j() { $PY -c 'import json, sys
r = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    r = r[int(k)] if isinstance(r, list) else r.get(k)
print(json.dumps(r) if isinstance(r, (list, dict, bool)) else r)' "$1" "$2"; }

# Lizzie: name starting with KataGo turns its KataGo mode on
timeout 60 $PY "$GT_SRC/tests/py/gtp_live.py" \
	"[\"gt-gtp\", \"-q\", \"--model\", \"$T/net.bin.gz\", \"--name\", \"KataGo\", \"--version-string\", \"1.15.3\"]" \
	>"$T/live" 2>"$T/err"
ok $? "a live session (Lizzie's identification, avoid, allow)"
[ -s "$T/err" ] && sed 's/^/#   /' "$T/err" | head -5
is "$(j "$T/live" name)" "=1 KataGo" "name answers KataGo (--name)"
is "$(j "$T/live" version)" "=2 1.15.3" "version answers 1.15.3 (--version-string)"
is "$(j "$T/live" lizzie_katago)" "true" "Lizzie's check takes it for KataGo"
ok $([ "$(j "$T/live" avoid.lines)" -ge 2 ] && echo 0 || echo 1) \
	"lz-analyze with avoid: info lines while it searched ($(j "$T/live" avoid.lines))"
$PY - "$T/live" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["avoid"]
bad = {"D4", "E4", "F4", "D5", "F5"} & (set(a["moves"]) | set(a["first"]))
assert not bad and len(a["moves"]) >= 30, (bad, len(a["moves"]))
PY
ok $? "avoid w D4,E4,F4,D5 and F5: none of them among the moves (minmoves 40) or first in a pv"
is "$(j "$T/live" avoid.after)" "= KataGo" "the next command stopped it"
is "$(j "$T/live" allow.moves)" '["C3", "D3", "F6"]' "kata-analyze allow w C3,D3,F6: only they appear"
is "$(j "$T/live" allow.pvVisitsOk)" true "pvVisits: one count per pv move, the first the move's visits"
is "$(j "$T/live" allow.movesOwnership)" "[81]" "movesOwnership: 81 values per move"
is "$(j "$T/live" allow.rootInfo)" true "rootInfo after the moves"
is "$(j "$T/live" allow.keys)" \
	'["edgeVisits", "lcb", "move", "movesOwnership", "order", "prior", "pv", "pvVisits", "scoreLead", "scoreMean", "scoreSelfplay", "scoreStdev", "utility", "utilityLcb", "visits", "weight", "winrate"]' \
	"KataGo's keys of a move"
is "$(j "$T/live" bad)" "? syntax error: avoid w D4 0" "avoid with depth 0: syntax error"
j "$T/live" bad2 | grep -q '^? syntax error: allow given twice or with avoid'
ok $? "allow and avoid for one colour: syntax error"

# rules, parameters, stop and clear_cache
cat >"$T/in" <<'END'
kata-get-rules
kata-set-rules {"hasButton":false,"ko":"SITUATIONAL","scoring":"AREA","suicide":true,"tax":"NONE","whiteHandicapBonus":"0","friendlyPassOk":true}
kata-get-rules
gt-rules tromp-taylor
kata-get-rules
kata-set-rules {"ko":"SIMPLE","scoring":"AREA","suicide":false}
kata-set-rules {"ko":"POSITIONAL","scoring":"TERRITORY","suicide":false}
kata-set-rules chinese
kata-list-params
kata-get-param maxVisits
kata-set-param maxVisits 7
kata-get-param maxVisits
kata-set-param cpuctExploration 2.5
kata-get-param cpuctExploration
kata-set-param useLcbForSelection true
kata-get-param useLcbForSelection
kata-set-param maxVisits 0
kata-set-param nonsense 1
stop
clear_cache
genmove b
kata-set-param dynamicScoreUtilityFactor 0.3
kata-get-param dynamicScoreUtilityFactor
kata-set-param staticScoreUtilityFactor 2
final_score
final_status_list dead
END
gt-gtp -q --model "$T/net.bin.gz" --board-size 9 <"$T/in" >"$T/out" 2>"$T/err"
ok $? "a session of KataGo's commands"
$PY - "$T/out" <<'PY'
import json, sys
r = [x for x in open(sys.argv[1]).read().split("\n\n") if x]
def js(i):
    assert r[i].startswith("= "), r[i]
    return json.loads(r[i][2:])
a = js(0)
assert (a["ko"], a["scoring"], a["suicide"], a["friendlyPassOk"]) == ("POSITIONAL", "AREA", False, True), a
assert r[1] == "= ", r[1]
b = js(2)
assert (b["ko"], b["suicide"]) == ("SITUATIONAL", True), b   # new-zealand
c = js(4)
assert (c["ko"], c["suicide"], c["friendlyPassOk"]) == ("POSITIONAL", True, False), c  # tromp-taylor
assert r[5].startswith("? rules not supported: no ruleset"), r[5]
assert r[6].startswith("? rules not supported: no ruleset"), r[6]
assert r[7] == "= ", r[7]
names = r[8][2:].split()
assert {"maxVisits", "numSearchThreads", "cpuctExploration", "useLcbForSelection"} <= set(names), names
assert r[9] == "= 100" and r[10] == "= " and r[11] == "= 7", r[9:12]
assert r[13] == "= 2.5" and r[15] == "= true", (r[13], r[15])
assert r[16].startswith("? maxVisits: 0 is not an integer in 1..") and r[17].startswith("? unknown parameter"), r[16:18]
assert r[18] == "= " and r[19] == "= " and r[20].startswith("= ") and len(r[20]) > 2, r[18:21]
assert "staticScoreUtilityFactor" in names and "dynamicScoreUtilityFactor" in names, names
assert r[21] == "= " and r[22] == "= 0.3" and r[23].startswith("? staticScoreUtilityFactor: 2 is not"), r[21:24]
import re
assert re.fullmatch(r"= ([BW]\+[0-9.]+|0)", r[24]) and r[25].startswith("= "), r[24:26]
PY
ok $? "rules as KataGo's JSON both ways, parameters got and set (the score utility's too), stop, clear_cache, then a genmove, final_score and final_status_list by the status search made anew"

# kata-raw-nn: KataGo's own outputs of its b6c96 for four positions, seen
# without their history (as KataGo's analysis engine shows them to the
# network: loadsgf of the stones). KataGo's "chinese" has simple ko, gt's
# positional superko, a network input (and the no-result outcome dropped),
# so the bounds are looser than tests/unit/katago.c's: win rate 1e-2,
# lead 0.5 points, policy 1e-2, ownership 3e-2 (measured: 3.4e-3, 0.24,
# 7.8e-3, 1.7e-2)
D=${GT_KATAGO_DATA:-$GT_SRC/../shared/data/katago}
K=$D/g170-b6c96-s175395328-d26788732.bin.gz
if [ -r "$K" ]; then
	timeout 600 $PY "$GT_SRC/tests/py/kata_raw_nn.py" "$D/g170-b6c96-reference.ndjson" "$K" \
		rand9-00,rand13-00,pro19-05,pro19-00 "$T" >"$T/raw" 2>"$T/err"
	ok $? "kata-raw-nn 0 and all on four positions"
	cat "$T/raw" | sed 's/^/# /'
	$PY - "$T/raw" <<'PY'
import sys
for l in open(sys.argv[1]):
    t = l.split()
    e = [float(x) for x in t[1:5]]
    assert e[0] < 1e-2 and e[1] < 0.5 and e[2] < 1e-2 and e[3] < 3e-2, l
    assert t[5] == "nan-ok", l
PY
	ok $? "win rate, lead, policy and ownership as KataGo's; every symmetry's NAN exactly on the stones"
else
	ok 0 "# SKIP KataGo's b6c96 not found ($D)"
	ok 0 "# SKIP KataGo's b6c96 not found ($D)"
fi
# the same command on a gt network: the turned boards map back
printf 'boardsize 7\nplay b C3\nplay w E5\nplay b D4\nkata-raw-nn w all\nkata-raw-nn 9\nquit\n' |
	gt-gtp -q --model "$T/net.bin.gz" >"$T/gout"
$PY - "$T/gout" <<'PY'
import sys, math
r = [x for x in open(sys.argv[1]).read().split("\n\n") if x]
blocks = r[4][2:].split("symmetry ")[1:]
assert len(blocks) == 8, len(blocks)
for b in blocks:
    t = b.split()
    i = t.index("policy")
    pol = t[i + 1:i + 50]
    nan = {k for k, x in enumerate(pol) if x == "NAN"}
    # C3, E5, D4: rows from the top (row 7 first)
    want = {(7 - 3) * 7 + 2, (7 - 5) * 7 + 4, (7 - 4) * 7 + 3}
    assert nan == want, (t[0], nan, want)
    s = sum(float(x) for x in pol if x != "NAN") + float(t[t.index("policyPass") + 1])
    assert abs(s - 1) < 1e-4, s
    w, l = float(t[t.index("whiteWin") + 1]), float(t[t.index("whiteLoss") + 1])
    assert abs(w + l - 1) < 1e-5
assert r[5].startswith("? syntax error: kata-raw-nn"), r[5]
PY
ok $? "kata-raw-nn all on a gt network: 8 blocks, NAN on the 3 stones in each, policies summing to 1"
done_testing
