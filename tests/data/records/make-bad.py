#!/usr/bin/python3
# make-bad.py: writes bad/<reason>.ndjson, one broken record per reason code
# of gt-validate(1), each derived from the first record of good.ndjson (a
# generated 7x7 game, board strings in every position) by one change.
# Run from this folder; the output is committed. The adversarial inputs
# that are large (a 100 MB line, a gzip bomb, truncated gzip) are made by
# tests/cmd/validate.t at test time instead.
import copy
import json
import os

COLS = "ABCDEFGHJKLMNOPQRST"
base = json.loads(open("good.ndjson").readline())
n = base["board_size"]


def vertex(p):
    return "%s%d" % (COLS[p % n], n - p // n)


def dump(r):
    return json.dumps(r, separators=(",", ":"))


def first_occupied(r):
    """(position index, occupied point) of the first position with a stone"""
    for i, p in enumerate(r["positions"]):
        for q, c in enumerate(p["board"]):
            if c != ".":
                return i, q
    raise SystemExit("no stone")


bad = {}


def mut(reason, f):
    r = copy.deepcopy(base)
    r["game_id"] = "bad-" + reason
    out = f(r)
    bad[reason] = out if isinstance(out, (str, bytes)) else dump(r)


mut("json", lambda r: dump(r)[:-20])
mut("utf8", lambda r: dump(r).replace('"bad-utf8"', '"bad-\xff\xfe"').encode("latin-1"))
mut("nonfinite", lambda r: dump(r).replace('"komi":', '"komi":1e400,"x":'))
mut("nesting", lambda r: dump(r).replace('"model":', '"deep":' + "[" * 100000 + "]" * 100000 + ',"model":'))
mut("version", lambda r: r.update(version=2))
mut("field", lambda r: r.pop("moves"))
mut("rules", lambda r: r.update(rules="japanese"))
mut("board-size", lambda r: r.update(board_size=25))
mut("komi", lambda r: r.update(komi=1e308))
mut("length", lambda r: r.update(moves=r["moves"][:5], positions=r["positions"][:5]))
mut("move", lambda r: r["moves"].__setitem__(3, "Z99"))
mut("setup", lambda r: r.update(setup={"B": ["pass"]}))
mut("colors", lambda r: r.update(colors="BW"))
mut("result", lambda r: r.update(result="B+3.5", winner="B", score=3.5))
mut("unscored", lambda r: r.update(score_checkable=False))


def illegal(r):
    i, q = first_occupied(r)
    r["moves"][r["positions"][i]["move_number"]] = vertex(q)


mut("illegal-move", illegal)


def board(r):
    b = r["positions"][5]["board"]
    r["positions"][5]["board"] = ("X" if b[0] == "." else ".") + b[1:]


mut("board", board)
mut("to-move", lambda r: r["positions"][3].update(to_move="B" if r["positions"][3]["to_move"] == "W" else "W"))


def policy_occupied(r):
    i, q = first_occupied(r)
    pol = r["positions"][i]["policy"]
    k = max(range(len(pol)), key=lambda j: pol[j])
    pol[q], pol[k] = pol[k], 0


mut("policy", policy_occupied)
mut("value", lambda r: r["positions"][7].update(value=-r["positions"][7]["value"]))
mut("score", lambda r: r["positions"][8].update(score=r["positions"][8]["score"] + 2))
mut("ownership", lambda r: r["ownership"].__setitem__(0, -r["ownership"][0] if r["ownership"][0] else 1))


def positions(r):
    p = r["positions"]
    p[10], p[11] = p[11], p[10]


mut("positions", positions)

os.makedirs("bad", exist_ok=True)
for reason, line in bad.items():
    data = line if isinstance(line, bytes) else line.encode()
    with open("bad/%s.ndjson" % reason, "wb") as f:
        f.write(data + b"\n")
