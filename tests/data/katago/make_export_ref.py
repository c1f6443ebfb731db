"""make_export_ref.py GTNET KATANET OUT RECORDS: KataGo's own outputs (katago analysis,
maxVisits 1, identity symmetry, SIDETOMOVE) for KATANET, the export of
GTNET, on 16 positions: 10 from gt's own 9x9 match games at random plies,
3 random 9x9, 2 random 13x13, 1 random 19x19; written as
shared/data/katago's reference file is (README there). RECORDS: gt-elo
records of 9x9 games (gzip). KATAGO (environment): the katago binary;
KATAGO_CFG: an analysis config with maxVisits 1, nnRandomize false,
reportAnalysisWinratesAs SIDETOMOVE (README beside this file)."""
import gzip, json, os, random, subprocess, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "py"))
from gtp_board import board_stones  # noqa: E402
gtnet, katanet, out = sys.argv[1:4]
rng = random.Random(20261203)
COLS = "ABCDEFGHJKLMNOPQRST"

def stones_after(n, moves):
    """the stones on the board after the moves (gt-gtp's showboard)"""
    cmds = ["boardsize %d" % n, "komi 7"] + ["play %s %s" % m for m in moves] + ["showboard", "quit"]
    p = subprocess.run(["gt-gtp", "-q", "--model", "none"], input="\n".join(cmds) + "\n",
                       capture_output=True, text=True, timeout=60)
    resp = [r for r in p.stdout.split("\n\n") if r]
    assert all(r.startswith("=") for r in resp), resp
    return [["B" if c == "X" else "W", "%s%d" % (COLS[x], y)] for c, x, y in board_stones(resp[-2], n)]

def legal_random(n, k):
    """k random legal moves (gt-gtp refuses illegal ones; they are skipped)"""
    moves, col = [], "B"
    while len(moves) < k:
        m = (col, "%s%d" % (COLS[rng.randrange(n)], rng.randrange(n) + 1))
        cmds = ["boardsize %d" % n] + ["play %s %s" % x for x in moves + [m]] + ["quit"]
        p = subprocess.run(["gt-gtp", "-q", "--model", "none"], input="\n".join(cmds) + "\n",
                           capture_output=True, text=True, timeout=60)
        if "?" not in p.stdout:
            moves.append(m)
            col = "W" if col == "B" else "B"
    return moves, col

pos = []
games = [json.loads(l) for l in gzip.open(sys.argv[4], "rt")]
for i in range(10):
    g = games[rng.randrange(len(games))]
    mv = [m for m in g["moves"]]
    ply = rng.randrange(4, min(len(mv), 70))
    moves = [("B" if j % 2 == 0 else "W", mv[j]) for j in range(ply)]
    pos.append(("game9-%02d" % i, 9, moves, "B" if ply % 2 == 0 else "W"))
for i, (n, k) in enumerate([(9, 20), (9, 35), (9, 50), (13, 60), (13, 90), (19, 120)]):
    moves, col = legal_random(n, k)
    pos.append(("rand%d-%02d" % (n, i), n, moves, col))

queries = []
for pid, n, moves, col in pos:
    queries.append({"id": pid, "initialStones": stones_after(n, moves), "initialPlayer": col,
                    "moves": [], "rules": "chinese", "komi": 7, "boardXSize": n, "boardYSize": n,
                    "maxVisits": 1, "includePolicy": True, "includeOwnership": True})
p = subprocess.run([os.environ["KATAGO"], "analysis", "-config", os.environ["KATAGO_CFG"],
                    "-model", katanet], input="".join(json.dumps(q) + "\n" for q in queries),
                   capture_output=True, text=True, timeout=600)
ans = {}
for l in p.stdout.splitlines():
    d = json.loads(l)
    assert "error" not in d, d
    ans[d["id"]] = d
with open(out, "w") as f:
    for q in queries:
        a = ans[q["id"]]
        r = a["rootInfo"]
        f.write(json.dumps({"id": q["id"], "query": q, "policy": a["policy"], "ownership": a["ownership"],
                            "rawWinrate": r["rawWinrate"], "rawLead": r["rawLead"],
                            "rawScoreSelfplay": r["rawScoreSelfplay"],
                            "rawNoResultProb": r["rawNoResultProb"],
                            "currentPlayer": r["currentPlayer"]}) + "\n")
print(len(ans), "positions", file=sys.stderr)
