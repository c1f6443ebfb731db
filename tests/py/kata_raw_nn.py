"""kata_raw_nn.py REFERENCE NET IDS DIR: gt-gtp's kata-raw-nn on positions
of KataGo's reference file (shared/data/katago, README.md there) against
KataGo's own outputs. Each position is played out in gt-gtp, its stones
read back with showboard and loaded as setup stones (loadsgf of an SGF
written in DIR), so the network sees no history, as KataGo's analysis
engine showed it (a query's initialStones are played first). Prints per position: id, the largest errors of win rate
(side to move), lead, policy and ownership, then "nan-ok" when every one of
the 8 symmetries of kata-raw-nn all has NAN exactly on the stones."""
import json, math, os, subprocess, sys
from gtp_board import board_stones

ref = {}
for l in open(sys.argv[1]):
    d = json.loads(l)
    ref[d["id"]] = d
net, ids, tmp = sys.argv[2], sys.argv[3].split(","), sys.argv[4]


def gtp(cmds):
    """the responses (without '= ') of a gt-gtp session"""
    p = subprocess.run(["gt-gtp", "-q", "--model", net], input="\n".join(cmds + ["quit"]) + "\n",
                       capture_output=True, text=True, timeout=600)
    return [r[2:] for r in p.stdout.split("\n\n") if r[:1] in "=?" and r]


def parse(block, n):
    t, k, j = block.split(), {}, 0
    while j < len(t):
        if t[j] in ("policy", "whiteOwnership"):
            k[t[j]] = [float(x) for x in t[j + 1:j + 1 + n * n]]
            j += 1 + n * n
        else:
            k[t[j]] = float(t[j + 1])
            j += 2
    return k


for i in ids:
    d = ref[i]
    q = d["query"]
    n = q["boardXSize"]
    out = gtp(["boardsize %d" % n, "komi %g" % q["komi"]] +
              ["play %s %s" % tuple(m) for m in q.get("initialStones", []) + q["moves"]] +
              ["showboard"])
    stones = {"X": [], "O": []}
    occupied = set()
    for c, x, y in board_stones(out[-2], n):
        stones[c].append(chr(97 + x) + chr(97 + n - y))
        occupied.add((n - y) * n + x)
    prop = lambda k, v: (k + "".join("[%s]" % s for s in v)) if v else ""
    path = os.path.join(tmp, i + ".sgf")
    open(path, "w").write("(;GM[1]SZ[%d]KM[%g]RU[chinese]%s%sPL[%s])" % (
        n, q["komi"], prop("AB", stones["X"]), prop("AW", stones["O"]), d["currentPlayer"]))
    out = gtp(["loadsgf " + path, "kata-raw-nn 0", "kata-raw-nn all"])
    k = parse(out[-3], n)
    s = 1 if d["currentPlayer"] == "W" else -1
    win = (1 + s * (k["whiteWin"] - k["whiteLoss"])) / 2
    e = [abs(win - d["rawWinrate"]), abs(s * k["whiteLead"] - d["rawLead"]),
         max(abs((-1 if math.isnan(k["policy"][p]) else k["policy"][p]) - d["policy"][p])
             for p in range(n * n)),
         max(abs(s * k["whiteOwnership"][p] - d["ownership"][p]) for p in range(n * n))]
    blocks = out[-2].split("symmetry ")[1:]
    nan_ok = len(blocks) == 8 and all(
        {p for p, x in enumerate(parse("symmetry " + b, n)["policy"]) if math.isnan(x)} == occupied
        for b in blocks)
    print(i, " ".join("%.2g" % x for x in e), "nan-ok" if nan_ok else "nan-bad",
          "noResult %g" % k["noResult"], "varTimeLeft %g" % k["varTimeLeft"])
