#!/usr/bin/python3
# shard_check.py: the numpy side of tests/cmd/shard*.t (reads gt-shard's
# output as gt-shard(5) documents it, independently of lib/shard).
#
#   shard_check.py hand              the hand-made 9x9 record (NDJSON line)
#   shard_check.py games N SEED      N legal 9x9 games, one NDJSON line each:
#                                    10 to 25 stones on the points with even x
#                                    and y (never adjacent: no capture, no
#                                    suicide), then two passes; result by area
#   shard_check.py check DIR         every manifest entry: file exists, sha256,
#                                    bytes and rows match; every array has the
#                                    documented dtype and shape; values in range;
#                                    prints "shards=K rows=R games=G"
#   shard_check.py files DIR         every run_*/games_*.npz loads in numpy and
#                                    every manifest line names an existing file;
#                                    then "check", except that current may be
#                                    the entry before the last (a writer killed
#                                    between the two); prints "files=F entries=E"
#   shard_check.py hand-rows DIR     prints the rows of the hand record, by move
#   shard_check.py replies NDJSON DIR  counts the rows of DIR by policy_next_mask
#                                    (0 none, 1 the next position's policy, 2
#                                    the move played next) and the same counts
#                                    worked out from the records: "shard a b c
#                                    records a b c"
#   shard_check.py symcheck A B K    A and B hold shards of the same games, B's
#                                    through gt-augment --symmetry K, written
#                                    with the same seed (so row i is the same
#                                    position in both): B's planes, policy and
#                                    ownership are A's mapped by symmetry K
#                                    (sym.h's table, written again here)
#   shard_check.py mkshard DIR       writes, with numpy alone, DIR/manifest and
#                                    two 7x7 shards as gt-shard(5) documents
#                                    them (2 planes, 1 global); row i of shard s
#                                    (20 rows each): plane 0 all 1, plane 1 one
#                                    stone at point (i + 20 s) % 49, policy
#                                    one-hot there, value (-1)^i, score 100 s + i,
#                                    ownership +1 on x < 3 else -1, weight 0.5,
#                                    global 0 = s
import hashlib
import glob
import json
import os
import random
import sys

import numpy as np

N = 9
NP = N * N
COLS = "ABCDEFGHJ"


def vertex(p):
    if p == NP:
        return "pass"
    return "%s%d" % (COLS[p % N], N - p // N)


def board_str(stones):
    return "".join({1: "X", 2: "O"}.get(stones.get(p), ".") for p in range(NP))


def record(moves, policies, values, scores, winner, score, ownership, full=None, to_move=None):
    stones, pos = {}, []
    for j in range(len(policies)):
        c = 1 if j % 2 == 0 else 2
        p = {"move_number": j, "to_move": "B" if c == 1 else "W", "board": board_str(stones),
             "policy": policies[j], "visits": 100,
             "full_search": True if full is None else full[j]}
        if values[j] is not None:
            p["value"] = values[j]
        if scores[j] is not None:
            p["score"] = scores[j]
        pos.append(p)
        if j < len(moves) and moves[j] != NP:
            stones[moves[j]] = c
    r = {"version": 1, "rules": "chinese", "komi": 7.5, "board_size": N,
         "model": "test", "worker": "test", "game_id": "%016x" % random.getrandbits(64),
         "moves": [vertex(m) for m in moves],
         "result": {"B": "B+%g" % score, "W": "W+%g" % -score, "?": "?"}[winner],
         "winner": winner, "ownership": ownership, "positions": pos}
    if winner != "?":
        r["score"] = score
    return json.dumps(r)


def onehot(p):
    v = [0.0] * (NP + 1)
    v[p] = 1.0
    return v


def hand():
    # B E5 (40), W C3 (56), B D2 (66), W pass, B pass; Black wins by 3.5.
    # Position scores are 3.5 + 100 j (side to move's sign) so rows can be found.
    moves = [40, 56, 66, NP, NP]
    pol = [onehot(40), onehot(56), onehot(66), onehot(NP), onehot(NP)]
    pol[4] = [0.0] * (NP + 1)
    pol[4][NP] = 0.5
    pol[4][0] = 0.5
    values = [1.0, -1.0, 1.0, -1.0, 1.0]
    scores = [(3.5 if j % 2 == 0 else -3.5) + 100 * j for j in range(5)]
    own = [1.0 if p % N < 4 else (-1.0 if p % N > 4 else 0.0) for p in range(NP)]
    print(record(moves, pol, values, scores, "B", 3.5, own))


def area(moves, komi):
    """Area score, Black's view, minus komi, and the ownership (no captures
    happen in games())."""
    color, own = {}, [0.0] * NP
    for j, m in enumerate(moves):
        if m != NP:
            color[m] = 1 if j % 2 == 0 else 2
    s, seen = 0, set()
    for p in range(NP):
        if p in color:
            s += 1 if color[p] == 1 else -1
            own[p] = 1.0 if color[p] == 1 else -1.0
        elif p not in seen:
            region, border, stack = [], set(), [p]
            seen.add(p)
            while stack:
                q = stack.pop()
                region.append(q)
                x, y = q % N, q // N
                for nx, ny in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
                    if 0 <= nx < N and 0 <= ny < N:
                        r = ny * N + nx
                        if r in color:
                            border.add(color[r])
                        elif r not in seen:
                            seen.add(r)
                            stack.append(r)
            v = 1 if border == {1} else -1 if border == {2} else 0
            s += v * len(region)
            for q in region:
                own[q] = float(v)
    return s - komi, own


def games(n, seed):
    rnd = random.Random(seed)
    random.seed(seed)
    pts = [p for p in range(NP) if (p % N) % 2 == 0 and (p // N) % 2 == 0]
    for g in range(n):
        k = rnd.randint(10, len(pts))
        moves = rnd.sample(pts, k) + [NP, NP]
        pol = []
        for j in range(len(moves)):
            taken = set(moves[:j])
            v = [0.0 if p in taken and p != NP else rnd.random() for p in range(NP + 1)]
            s = sum(v)
            pol.append([round(x / s, 6) for x in v])
        score, own = area(moves, 7.5)
        winner = "B" if score > 0 else "W"
        values = [None] * len(moves)
        scores = [None] * len(moves)
        full = [rnd.random() < 0.8 for _ in moves]
        print(record(moves, pol, values, scores, winner, score, own, full))


def manifest(d, missing_ok=False):
    out = []
    if missing_ok and not os.path.exists(os.path.join(d, "manifest")):
        return out  # killed before its first shard
    with open(os.path.join(d, "manifest")) as f:
        for line in f:
            try:
                out.append(json.loads(line))
            except ValueError:
                pass  # a torn line
    return out


def check_shard(path, m):
    n = m["board_size"]
    np_ = n * n
    C, G = m["planes"], m["globals"]
    with np.load(path) as z:
        want = {
            "binaryInputNCHWPacked": ("|u1", (m["rows"], C, (np_ + 7) // 8)),
            "globalInputNC": ("<f4", (m["rows"], G)),
            "policy": ("<f4", (m["rows"], np_ + 1)),
            "value": ("<f4", (m["rows"],)),
            "score": ("<f4", (m["rows"],)),
            "ownership": ("<f4", (m["rows"], np_)),
            "ownership_mask": ("|u1", (m["rows"],)),
            "weight": ("<f4", (m["rows"],)),
            "policy_next": ("<f4", (m["rows"], np_ + 1)),
            "policy_next_mask": ("|u1", (m["rows"],)),
            "meta": ("<i4", (5,)),
        }
        assert sorted(z.files) == sorted(want), (path, z.files)
        a = {k: z[k] for k in z.files}
    for k, (dt, shape) in want.items():
        assert a[k].dtype.str == dt, (path, k, a[k].dtype.str)
        assert a[k].shape == shape, (path, k, a[k].shape, shape)
    assert list(a["meta"]) == [1, n, m["feature_version"], C, G], a["meta"]
    for k in ("globalInputNC", "policy", "value", "score", "ownership", "weight"):
        assert np.isfinite(a[k]).all(), (path, k)
    assert (abs(a["policy"].sum(axis=1) - 1) < 1e-3).all(), path
    assert (abs(a["value"]) <= 1).all() and (abs(a["ownership"]) <= 1).all(), path
    assert (a["weight"] > 0).all(), path
    pn, pm = a["policy_next"], a["policy_next_mask"]
    assert np.isfinite(pn).all() and (pm <= 2).all(), path
    assert (pn[pm == 0] == 0).all(), "a row without a reply has a policy_next"
    assert (abs(pn[pm != 0].sum(axis=1) - 1) < 1e-3).all(), "policy_next does not sum to 1"
    assert ((pn[pm == 2] == 1).sum(axis=1) == 1).all(), "the move played next is not one-hot"
    bits = np.unpackbits(a["binaryInputNCHWPacked"], axis=2)
    assert not bits[:, :, np_:].any(), "padding bits set"
    assert bits[:, 0, :np_].all(), "plane 0 (on board) not all 1"
    assert not (bits[:, 1, :np_] & bits[:, 2, :np_]).any(), "own and opponent stone on one point"
    return a


def check(d, crashed=False):
    ms = manifest(d, missing_ok=crashed)
    rows = games = 0
    for m in ms:
        path = os.path.join(d, m["file"])
        data = open(path, "rb").read()
        assert hashlib.sha256(data).hexdigest() == m["sha256"], path
        assert len(data) == m["bytes"], path
        check_shard(path, m)
        rows += m["rows"]
        games += m["games"]
    cur = os.readlink(os.path.join(d, "current")) if ms else None
    ok = [m["file"] for m in ms[-2:]] if crashed else [m["file"] for m in ms[-1:]]
    assert not ms or cur in ok, (cur, ok)
    return len(ms), rows, games


def files(d):
    ms = manifest(d, missing_ok=True)
    for m in ms:
        assert os.path.exists(os.path.join(d, m["file"])), m["file"]
    fs = sorted(glob.glob(os.path.join(d, "run_*", "games_*.npz")))
    for f in fs:
        with np.load(f) as z:
            for k in z.files:
                z[k]
    check(d, crashed=True)
    print("files=%d entries=%d" % (len(fs), len(ms)))


def hand_rows(d):
    out = {}
    for m in manifest(d):
        with np.load(os.path.join(d, m["file"])) as z:
            a = {k: z[k] for k in z.files}
        bits = np.unpackbits(a["binaryInputNCHWPacked"], axis=2)[:, :, :NP]
        for i in range(m["rows"]):
            s = float(a["score"][i])
            j = int(round((abs(s) - 3.5) / 100)) if abs(s) < 1000 else -1
            own_e5 = int(bits[i, 1, 40])
            opp_e5 = int(bits[i, 2, 40])
            opp_c3 = int(bits[i, 2, 56])
            out[j] = ("move=%d value=%g score=%g argmax=%d p40=%g ppass=%g own0=%g own8=%g "
                      "ownE5=%d oppE5=%d oppC3=%d w=%g next=%d nextpass=%g nextmask=%d" % (
                          j, a["value"][i], s, int(np.argmax(a["policy"][i])),
                          a["policy"][i][40], a["policy"][i][NP], a["ownership"][i][0],
                          a["ownership"][i][8], own_e5, opp_e5, opp_c3, a["weight"][i],
                          int(np.argmax(a["policy_next"][i])), a["policy_next"][i][NP],
                          a["policy_next_mask"][i]))
    for j in sorted(out):
        print(out[j])


def replies(path, d):
    """Rows by policy_next_mask in d's shards, and as gt-shard(5) says they
    should be from the records: a full-search position whose move is the
    game's last has none (0); else the next position's policy when it had
    a full search (1), else the move played next (2)."""
    got = [0, 0, 0]
    for m in manifest(d):
        with np.load(os.path.join(d, m["file"])) as z:
            for k in z["policy_next_mask"]:
                got[int(k)] += 1
    want = [0, 0, 0]
    for line in open(path):
        r = json.loads(line)
        full = {p["move_number"]: p.get("full_search", True) for p in r["positions"]}
        nm = len(r["moves"])
        for t, f in full.items():
            if f:
                want[0 if t + 1 >= nm else 1 if full.get(t + 1, False) else 2] += 1
    print("shard %d %d %d records %d %d %d" % tuple(got + want))


def mkshard(d):
    n, np_ = 7, 49
    os.makedirs(os.path.join(d, "run_000"), exist_ok=True)
    lines = []
    for s in range(2):
        R = 20
        planes = np.zeros((R, 2, np_), dtype=np.uint8)
        planes[:, 0, :] = 1
        pol = np.zeros((R, np_ + 1), dtype=np.float32)
        for i in range(R):
            p = (i + 20 * s) % np_
            planes[i, 1, p] = 1
            pol[i, p] = 1
        own = np.array([[1.0 if p % n < 3 else -1.0 for p in range(np_)]] * R, dtype=np.float32)
        arrays = {
            "binaryInputNCHWPacked": np.packbits(planes, axis=2),
            "globalInputNC": np.full((R, 1), s, dtype=np.float32),
            "policy": pol,
            "value": np.array([(-1.0) ** i for i in range(R)], dtype=np.float32),
            "score": np.array([100 * s + i for i in range(R)], dtype=np.float32),
            "ownership": own,
            "ownership_mask": np.ones(R, dtype=np.uint8),
            "weight": np.full(R, 0.5, dtype=np.float32),
            "meta": np.array([1, n, 42, 2, 1], dtype=np.int32),
        }
        name = "run_000/games_%05d.npz" % s
        np.savez_compressed(os.path.join(d, name), **arrays)
        data = open(os.path.join(d, name), "rb").read()
        lines.append(json.dumps({"file": name, "rows": R, "games": 1, "board_size": n,
                                 "feature_version": 42, "planes": 2, "globals": 1,
                                 "time": "2026-11-29T00:00:00Z", "bytes": len(data),
                                 "sha256": hashlib.sha256(data).hexdigest()}))
    with open(os.path.join(d, "manifest"), "w") as f:
        f.write("\n".join(lines) + "\n")


def sym_point(n, k, p):
    m, x, y = n - 1, p % n, p // n
    u, v = [(x, y), (m - y, x), (m - x, m - y), (y, m - x),
            (y, x), (m - x, y), (m - y, m - x), (x, m - y)][k]
    return v * n + u


def symcheck(da, db, k):
    ma, mb = manifest(da), manifest(db)
    assert len(ma) == len(mb) and ma, (len(ma), len(mb))
    rows = 0
    for a_, b_ in zip(ma, mb):
        n = a_["board_size"]
        np_ = n * n
        perm = np.array([sym_point(n, k, p) for p in range(np_)])
        with np.load(os.path.join(da, a_["file"])) as za, np.load(os.path.join(db, b_["file"])) as zb:
            A = {x: za[x] for x in za.files}
            B = {x: zb[x] for x in zb.files}
        pa = np.unpackbits(A["binaryInputNCHWPacked"], axis=2)[:, :, :np_]
        pb = np.unpackbits(B["binaryInputNCHWPacked"], axis=2)[:, :, :np_]
        want = np.zeros_like(pa)
        want[:, :, perm] = pa
        assert (want == pb).all(), "planes"
        want = A["policy"].copy()
        want[:, perm] = A["policy"][:, :np_]
        assert (abs(want - B["policy"]) < 1e-6).all(), "policy"
        want = A["ownership"].copy()
        want[:, perm] = A["ownership"]
        assert (want == B["ownership"]).all(), "ownership"
        want = A["policy_next"].copy()
        want[:, perm] = A["policy_next"][:, :np_]
        assert (abs(want - B["policy_next"]) < 1e-6).all(), "policy_next"
        for x in ("value", "score", "weight", "globalInputNC", "policy_next_mask"):
            assert (A[x] == B[x]).all(), x
        rows += a_["rows"]
    print("rows=%d" % rows)


def main():
    cmd = sys.argv[1]
    if cmd == "hand":
        hand()
    elif cmd == "games":
        games(int(sys.argv[2]), int(sys.argv[3]))
    elif cmd == "check":
        print("shards=%d rows=%d games=%d" % check(sys.argv[2]))
    elif cmd == "files":
        files(sys.argv[2])
    elif cmd == "replies":
        replies(sys.argv[2], sys.argv[3])
    elif cmd == "symcheck":
        symcheck(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif cmd == "mkshard":
        mkshard(sys.argv[2])
    elif cmd == "hand-rows":
        hand_rows(sys.argv[2])


main()
