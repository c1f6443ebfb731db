#!/bin/sh
# Search threads (gt-gtp and gt-analyze --threads, lib/mcts.c gt_mcts_start,
# lib/evsplit.c): the options' bounds; on a hand-made 9x9 position where
# one move (G3) captures a 10-stone group (any other loses 4 stones), a
# trained network's search finds it with 2 and 4 threads; the visits of a
# genmove are exactly --visits; every analysis line (read under the tree's
# lock while the threads run) has child visits adding up to the root's
# minus one; numSearchThreads is bounded by the evaluators opened;
# gt-analyze's answers with 3 threads are well formed and add up the same
# way, during the search too.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-gtp >/dev/null || skip_all "gt-gtp not built"
PY=/usr/bin/python3
NET="${GT_SRC:-.}/results/levers-2026-12-03/base/z9-gen4.bin.gz"
[ -r "$NET" ] || skip_all "no trained 9x9 network ($NET)"

for p in gt-gtp gt-analyze; do
	$p --model none --threads 0 </dev/null >/dev/null 2>&1
	is $? 2 "$p --threads 0: exit 2"
	$p --model none --threads x </dev/null >/dev/null 2>&1
	is $? 2 "$p --threads x: exit 2"
done
check_help gt-gtp --threads
gt-analyze -h 2>&1 | grep -q -- --threads
ok $? "gt-analyze -h lists --threads"

# White's 10 stones C5-G5, C4-G4 have one liberty, G3, and so have Black's
# C3-F3 (White's B3, C2-F2): whoever plays G3 captures. Black to play: G3
# is the one move that does not lose the 4 stones and free the 10. (Before
# the row-2 stones, G2 and H3 kept the group captured too, and 4 threads
# on 2 busy cores chose G2 in about 1 run of 20.)
pos() {
	printf '%s\n' "boardsize 9" "komi 7"
	for v in C5 D5 E5 F5 G5 C4 D4 E4 F4 G4 B3 C2 D2 E2 F2; do echo "play w $v"; done
	for v in B5 B4 H5 H4 C6 D6 E6 F6 G6 C3 D3 E3 F3; do echo "play b $v"; done
}
for th in 2 4; do
	{ pos; echo "genmove b"; } >"$T/in"
	gt-gtp --model "$NET" --threads $th --visits 300 <"$T/in" >"$T/out" 2>"$T/err"
	ok $? "gt-gtp --threads $th: genmove"
	is "$(grep '^= ' "$T/out" | tail -1)" "= G3" "$th threads: Black captures the 10 stones at G3"
	grep -q '^gt-gtp: genmove B: G3  visits 300  ' "$T/err"
	ok $? "$th threads: the search has exactly --visits 300 visits"
done

# analysis lines while 3 threads search: each a consistent snapshot
{ pos; echo "kata-analyze b 10 rootInfo true"; sleep 2; echo "kata-get-param numSearchThreads";
  echo "kata-set-param numSearchThreads 4"; echo "kata-set-param numSearchThreads 2";
  echo "kata-get-param numSearchThreads"; echo "kata-genmove_analyze b 10"; } |
	gt-gtp -q --model "$NET" --threads 3 --visits 200 >"$T/out" 2>"$T/err"
ok $? "gt-gtp --threads 3: analysis, parameters, genmove with analysis"
$PY - "$T/out" >"$T/res" <<'END'
import re, sys
lines = [l.rstrip("\n") for l in open(sys.argv[1])]
n = bad = 0
for l in lines:
    if not l.startswith("info "):
        continue
    n += 1
    moves = re.split(r"(?:^| )info ", l.split(" rootInfo ")[0])[1:]
    vis = [int(re.search(r"\bvisits (\d+)", m).group(1)) for m in moves]
    names = [m.split()[1] for m in moves]
    ri = re.search(r"rootInfo visits (\d+)", l)
    root = int(ri.group(1)) if ri else None
    ok = len(set(names)) == len(names) and all(v >= 0 for v in vis)
    ok = ok and vis == sorted(vis, reverse=True)
    if root is not None:
        ok = ok and sum(vis) == root - 1
    bad += not ok
print(n > 0, bad)
END
is "$(cat "$T/res")" "True 0" "every info line: moves once each, ranked by visits, adding up to rootInfo's visits - 1"
grep -A1 '^=$' "$T/out" >/dev/null
is "$(grep -c '^= 3$' "$T/out")" 1 "numSearchThreads reads 3"
grep -q '^? numSearchThreads: 4 is more than the 3 evaluators opened' "$T/out"
ok $? "numSearchThreads 4 refused with 3 evaluators"
is "$(grep -c '^= 2$' "$T/out")" 1 "numSearchThreads 2 set and read back"
is "$(grep -c '^play G3$' "$T/out")" 1 "kata-genmove_analyze with 2 threads plays G3"

# gt-analyze: 3 threads (3 leaves in flight a search, the batch on 3
# evaluators), answers during the search and at its end
$PY - >"$T/q" <<'END'
import json
mv = [["B", v] for v in "B5 B4 H5 H4 C6 D6 E6 F6 G6 C3 D3 E3 F3".split()]
mv += [["W", v] for v in "C5 D5 E5 F5 G5 C4 D4 E4 F4 G4".split()]
q = {"id": "a", "moves": mv, "rules": "chinese", "komi": 7, "boardXSize": 9, "boardYSize": 9,
     "maxVisits": 400, "reportDuringSearchEvery": 0.002}
print(json.dumps(q))
q["id"] = "b"
del q["reportDuringSearchEvery"]
print(json.dumps(q))
END
gt-analyze --model "$NET" --threads 3 <"$T/q" >"$T/aout" 2>"$T/aerr"
ok $? "gt-analyze --threads 3"
$PY - "$T/aout" <<'END'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
assert all("error" not in r for r in rs), rs
final = {r["id"]: r for r in rs if not r["isDuringSearch"]}
assert set(final) == {"a", "b"}, list(final)
for r in rs:
    ms = r["moveInfos"]
    assert sum(m["visits"] for m in ms) == r["rootInfo"]["visits"] - 1, (r["id"], r["rootInfo"])
    assert len({m["move"] for m in ms}) == len(ms)
    assert [m["order"] for m in ms] == list(range(len(ms)))
a, b = final["a"], final["b"]
assert a["rootInfo"]["visits"] == 400 and b["rootInfo"]["visits"] == 400, (a["rootInfo"], b["rootInfo"])
assert a["rootInfo"]["currentPlayer"] == "B" and a["moveInfos"][0]["move"] == "G3", a["moveInfos"][0]
END
ok $? "answers well formed, visits adding up (during the search too), 400 at the end, G3 first for Black"
grep -c '"isDuringSearch":true' "$T/aout" >"$T/n"
ok $? "reports during the search ($(cat "$T/n"))"
done_testing
