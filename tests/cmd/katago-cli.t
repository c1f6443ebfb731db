#!/bin/sh
# KataGo's command line: `gt-analyze analysis -config C -model M` and
# `gt-gtp gtp -config C -model M` with KataGo's own example configs
# (tests/data/katago) start and answer a query and a genmove; the config's
# values take effect (maxVisits in the visits reported, maxPlayouts as a
# cap, reportAnalysisWinratesAs, rules, maxTime), -override-config over the
# file, gt's own options over both; keys without a meaning in gt give one
# warning line naming them; a malformed config or a bad value one error
# line with file:line; gt-katago dispatches as `katago` would, also through
# a link named katago, with KaTrain's arguments.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-analyze >/dev/null && command -v gt-gtp >/dev/null ||
	skip_all "gt-analyze or gt-gtp not built"
PY=/usr/bin/python3
D=$GT_SRC/tests/data/katago
gt-model init b1c8 --seed 5 -o "$T/net.bin.gz" 2>/dev/null
ok $? "gt-model init b1c8"
N=$T/net.bin.gz
Q='{"id":"q","moves":[["B","E5"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9}'
# visits of the rootInfo of each answer on stdin, with the id
visits() { $PY -c 'import json, sys
print(" ".join("%s:%s" % (r["id"], r["rootInfo"]["visits"]) for r in map(json.loads, sys.stdin)))'; }

# --- analysis ---
echo "$Q" | gt-analyze analysis -config "$D/analysis_example.cfg" -model "$N" \
	-override-config "maxVisits=37" >"$T/out" 2>"$T/err"
ok $? "analysis with KataGo's analysis_example.cfg starts and answers"
is "$(visits <"$T/out")" "q:37" "-override-config maxVisits=37 over the file's 500"
is "$(cat "$T/err")" "" \
	"no warning: every key of the example has a meaning in gt (numSearchThreadsPerAnalysisThread is --threads) or passes quietly (logDir, nn*)"

printf 'maxVisits = 29  # the default of a query\nreportAnalysisWinratesAs = WHITE\nforDeterministicTesting = true\n' >"$T/a.cfg"
printf '%s\n{"id":"v","moves":[],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":11}\n' "$Q" |
	gt-analyze analysis -config "$T/a.cfg" -model "$N" >"$T/w" 2>"$T/err"
ok $? "analysis with a config of maxVisits 29 and White's view"
is "$(visits <"$T/w")" "q:29 v:11" "the config's maxVisits for a query without one; a query's own wins"
test ! -s "$T/err"
ok $? "every key used: no warning"
printf '%s\n' "$Q" | gt-analyze analysis -config "$T/a.cfg" -model "$N" \
	-override-config "reportAnalysisWinratesAs=BLACK" >"$T/b" 2>/dev/null
is "$($PY -c 'import json, sys
w = json.loads(open(sys.argv[1]).readline()); b = json.loads(open(sys.argv[2]).readline())
print(abs(w["rootInfo"]["winrate"] + b["rootInfo"]["winrate"] - 1) < 1e-6,
      abs(w["rootInfo"]["scoreLead"] + b["rootInfo"]["scoreLead"]) < 1e-6,
      w["rootInfo"]["winrate"] != 0.5)' "$T/w" "$T/b")" "True True True" \
	"reportAnalysisWinratesAs WHITE against BLACK: the same search, win rate and score from the other side"

printf '%s\n' "$Q" | gt-analyze analysis -config "$T/a.cfg" -model "$N" --visits 5 \
	-override-config maxVisits= >"$T/out" 2>&1
is "$(visits <"$T/out")" "q:5" "gt's own --visits among KataGo's arguments, maxVisits= removed"
printf '{"id":"p","moves":[],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":200}\n' |
	gt-analyze analysis -config "$T/a.cfg" -model "$N" -override-config "maxPlayouts = 13" >"$T/out" 2>&1
is "$(visits <"$T/out")" "p:13" "maxPlayouts caps a query's maxVisits"

# KaTrain's launch: `katago analysis -model M -config C -analysis-threads N`,
# its config quoted and with keys for play; a query as KaTrain sends it
cat >"$T/katrain.cfg" <<'END'
logFile = "~/.katrain/katago_log.txt"
reportAnalysisWinratesAs = BLACK
conservativePass = true
maxVisits = 500
numSearchThreads = 6
nnMaxBatchSize = 64
nnCacheSizePowerOfTwo = 19
nnMutexPoolSizePowerOfTwo = 16
nnRandomize = true
END
ln -s "$GT_BIN/gt-katago" "$T/katago"
echo '{"id":"QUERY:1","rules":"chinese","priority":0,"analyzeTurns":[1],"maxVisits":25,"komi":6.5,"boardXSize":9,"boardYSize":9,"includeOwnership":true,"includePolicy":true,"initialStones":[],"initialPlayer":"B","moves":[["B","E5"]],"avoidMoves":[{"moves":["C3","G7"],"player":"W","untilDepth":1}]}' |
	"$T/katago" analysis -model "$N" -config "$T/katrain.cfg" -analysis-threads 4 >"$T/out" 2>"$T/err"
ok $? "a link named katago to gt-katago, run as KaTrain runs KataGo"
$PY - "$T/out" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
assert r["id"] == "QUERY:1" and r["rootInfo"]["visits"] == 25, r.get("rootInfo")
assert len(r["ownership"]) == 81 and len(r["policy"]) == 82
assert not {"C3", "G7"} & {m["move"] for m in r["moveInfos"]}
PY
ok $? "KaTrain's query answered: visits, ownership, policy, avoidMoves kept"
is "$(cat "$T/err")" \
	"gt-analyze: config keys not used (no meaning in gt, or a value gt does not play by): conservativePass" \
	"one warning line naming KaTrain's keys gt has no meaning for"

# unknown keys: one line naming them all, in the file's order
printf 'fooBar = 1\nmaxVisits = 3\nwideRootNoise = 0.04\nbazQux = x\n' >"$T/u.cfg"
echo "$Q" | gt-analyze analysis -config "$T/u.cfg" -model "$N" -override-config "zap=1" >"$T/out" 2>"$T/err"
ok $? "a config with unknown keys still answers"
is "$(wc -l <"$T/err" | tr -d ' '):$(cat "$T/err")" \
	"1:gt-analyze: config keys not used (no meaning in gt, or a value gt does not play by): fooBar, wideRootNoise, bazQux, zap" \
	"exactly one warning line naming the unknown keys, the override's last"

# malformed configs and bad values: one error line with file:line, exit 1
printf 'maxVisits = 3\n# fine\nmaxVisits 4\n' >"$T/bad.cfg"
echo "$Q" | gt-analyze analysis -config "$T/bad.cfg" -model "$N" >"$T/out" 2>"$T/err"
is "$?:$(wc -l <"$T/err" | tr -d ' ')" "1:1" "a malformed line: exit 1, one line on stderr"
is "$(cat "$T/err")" "gt-analyze: $T/bad.cfg:3: not KEY = VALUE (a key of letters, digits, '_' and '-')" \
	"the error names file:line"
test ! -s "$T/out"
ok $? "and nothing is answered"
printf 'logDir = x\nmaxVisits = lots\n' >"$T/bad.cfg"
echo "$Q" | gt-analyze analysis -config "$T/bad.cfg" -model "$N" >"$T/out" 2>"$T/err"
is "$?:$(cat "$T/err")" "1:gt-analyze: $T/bad.cfg:2: maxVisits: want an integer in 1..1000000000, got 'lots'" \
	"a bad value: file:line, key, range and value"
echo "$Q" | gt-analyze analysis -config "$T/a.cfg" -model "$N" -override-config "reportAnalysisWinratesAs=black" >"$T/out" 2>"$T/err"
is "$?:$(cat "$T/err")" \
	"1:gt-analyze: -override-config: reportAnalysisWinratesAs: want one of BLACK, WHITE, SIDETOMOVE, got 'black'" \
	"a bad override: named as the override"
printf 'a = 1\n@include missing.cfg\n' >"$T/bad.cfg"
gt-analyze analysis -config "$T/bad.cfg" -model "$N" </dev/null >/dev/null 2>"$T/err"
is "$?:$(sed 's/: [^:]*$//' "$T/err")" "1:gt-analyze: $T/bad.cfg:2: @include: $T/missing.cfg" \
	"a missing include: where it was named"
gt-analyze analysis -model "$N" </dev/null >/dev/null 2>"$T/err"
is "$?:$(cat "$T/err")" "2:gt-analyze: analysis: -config FILE is required" "no -config: a usage error"
gt-analyze analysis -config "$T/a.cfg" </dev/null >/dev/null 2>"$T/err"
is "$?" "2" "no -model: a usage error"
head -c 1100000 /dev/zero | tr '\0' '#' >"$T/big.cfg"
gt-analyze analysis -config "$T/big.cfg" -model "$N" </dev/null >/dev/null 2>"$T/err"
is "$?" 1 "a config over 1 MiB refused ($(cat "$T/err"))"

# --- gtp ---
printf 'name\nboardsize 9\ngenmove b\nkata-get-param maxVisits\nkata-get-rules\nquit\n' |
	gt-gtp gtp -config "$D/gtp_example.cfg" -model "$N" -override-config "maxVisits=23" >"$T/out" 2>"$T/err"
ok $? "gtp with KataGo's gtp_example.cfg starts and plays"
is "$(sed -n 5p "$T/out" | cut -c1-2)" "= " "genmove answers a move"
is "$(sed -n 7p "$T/out")" "= 23" "kata-get-param maxVisits: the override's 23"
grep -q '^gt-gtp: genmove B: .*  visits 23  ' "$T/err"
ok $? "the genmove's search has 23 visits"
is "$(sed -n 9p "$T/out")" \
	'= {"friendlyPassOk":false,"hasButton":false,"ko":"POSITIONAL","scoring":"AREA","suicide":true,"tax":"NONE","whiteHandicapBonus":"0"}' \
	"the example's rules = tromp-taylor in force"
is "$(grep -c 'not used' "$T/err"):$(grep 'not used' "$T/err")" \
	"1:gt-gtp: config keys not used (no meaning in gt, or a value gt does not play by): resignConsecTurns, lagBuffer, searchFactorAfterOnePass, searchFactorAfterTwoPass, searchFactorWhenWinning, searchFactorWhenWinningThreshold" \
	"one warning line: the example's keys gt does not play by (pondering is off: its limits pass)"

printf 'maxVisits = 17\ndefaultBoardSize = 7\nrules = new-zealand\nanalysisPVLen = 4\n' >"$T/g.cfg"
# (one search thread: with more, 17 visits of the tiny network on an empty
# board may end in a pass, whose answer says nothing of the board's size)
printf 'genmove w\nkata-get-param analysisPVLen\nkata-get-rules\nquit\n' |
	gt-gtp gtp -config "$T/g.cfg" -model "$N" --threads 1 >"$T/out" 2>"$T/err"
ok $? "gtp with a config of its own"
grep -q '^gt-gtp: genmove W: .*  visits 17  ' "$T/err"
ok $? "maxVisits 17 in the genmove's search"
is "$(sed -n 3p "$T/out")" "= 4" "analysisPVLen 4"
grep -q '"ko":"SITUATIONAL".*"suicide":true' "$T/out"
ok $? "rules new-zealand: situational ko, suicide"
grep -q '^= [A-G][1-7]$' "$T/out"
ok $? "defaultBoardSize 7: a move on a 7x7 board"
printf 'rules = japanese\n' >"$T/j.cfg"
printf 'kata-get-rules\nquit\n' | gt-gtp gtp -config "$T/j.cfg" -model "$N" >"$T/out" 2>"$T/err"
is "$?:$(cat "$T/err")" "0:" "rules japanese: no warning"
grep -q '"scoring":"TERRITORY"' "$T/out"
ok $? "and played by territory (kata-get-rules)"
printf 'koRule = SIMPLE\nscoringRule = TERRITORY\ntaxRule = SEKI\nmultiStoneSuicideLegal = false\n' >"$T/jk.cfg"
printf 'kata-get-rules\nquit\n' | gt-gtp gtp -config "$T/jk.cfg" -model "$N" >"$T/out" 2>"$T/err"
is "$?:$(cat "$T/err")" "0:" "japanese's keys one by one: no warning"
grep -q '"scoring":"TERRITORY"' "$T/out"
ok $? "and played by territory"
printf 'koRule = POSITIONAL\nscoringRule = TERRITORY\ntaxRule = SEKI\nmultiStoneSuicideLegal = false\n' >"$T/jp.cfg"
echo quit | gt-gtp gtp -config "$T/jp.cfg" -model "$N" >/dev/null 2>"$T/err"
is "$?:$(grep -c 'scoringRule TERRITORY with koRule POSITIONAL.*(area scoring) used' "$T/err")" "0:1" \
	"territory with a ko rule gt does not score by territory: area, one line naming why"
echo quit | gt-gtp gtp -config "$T/j.cfg" -model "$N" -override-config "koRule=SITUATIONAL, multiStoneSuicideLegal=true" \
	>/dev/null 2>"$T/err"
is "$?:$(cat "$T/err")" "0:" "an override's rule keys remove the file's rules (KataGo's mutual exclusion)"

# maxTime bounds a genmove that maxVisits would not
start=$(date +%s)
printf 'genmove b\nquit\n' | gt-gtp gtp -config "$T/g.cfg" -model "$N" \
	-override-config "maxVisits=100000000, maxTime=0.5, defaultBoardSize=19" >"$T/out" 2>"$T/err"
el=$(($(date +%s) - start))
v=$(sed -n 's/.*  visits \([0-9]*\)  .*/\1/p' "$T/err" | head -1)
ok $([ "$el" -le 20 ] && [ -n "$v" ] && [ "$v" -lt 100000000 ] && echo 0 || echo 1) \
	"maxTime 0.5: the genmove stopped at $v visits in about ${el}s"

# --- gt-katago ---
echo "$Q" | gt-katago analysis -config "$T/a.cfg" -model "$N" >"$T/out" 2>&1
is "$(visits <"$T/out")" "q:29" "gt-katago analysis runs gt-analyze"
printf 'kata-get-param maxVisits\nquit\n' | "$T/katago" gtp -config "$T/g.cfg" -model "$N" >"$T/out" 2>&1
is "$(head -1 "$T/out")" "= 17" "katago gtp (the link) runs gt-gtp with the config"
is "$(gt-katago version)" "gt $(gt-gtp --version | cut -d' ' -f2) (KataGo's command line: analysis by gt-analyze, gtp by gt-gtp)" \
	"version names gt's version"
gt-katago benchmark >/dev/null 2>"$T/err"
is "$?:$(head -1 "$T/err")" "2:gt-katago: want analysis, gtp or version, got 'benchmark'" \
	"another subcommand: a usage error"

done_testing
