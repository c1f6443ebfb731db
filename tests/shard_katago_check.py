"""shard_katago_check.py GTDIR KATADIR POS_LEN RECORDS: the shards
gt-shard --katago-keys wrote into KATADIR, checked with numpy as KataGo's
trainer loads them (KataGo's python/katago/train/data_processing_pytorch.py
and python/shuffle.py: the keys, dtypes and shapes, the bit unpacking) and,
row by row, against the gt shards that gt-shard wrote into GTDIR from the
same records and seed (the same shuffle, so row i is the same position);
the td-like targets and variance time recomputed here from the records'
root values with the formulas of KataGo's cpp/dataio/trainingwrite.cpp
(every record needs a distinct game_id); the next move's policy and the
future boards against the rows of those moves. Prints
"shards=S rows=R scored=K td=T next=X future=F" or fails with an assertion."""
import json
import sys

import numpy as np

gtdir, kdir, L, recfile = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
A = L * L
M64 = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & M64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return x, z ^ (z >> 31)


def game_key(gid):
    """globalTargetsNC 41..46 of a game: FNV-1a of its game_id, splitmix64"""
    h = 0xCBF29CE484222325
    for c in gid.encode():
        h = ((h ^ c) * 0x100000001B3) & M64
    h, h0 = splitmix64(h)
    h, h1 = splitmix64(h)
    return tuple(float(c) for x in (h0, h1) for c in (x & 0x3FFFFF, (x >> 22) & 0x3FFFFF, (x >> 44) & 0xFFFFF))


# the records' root values (White's view) by move number
games = {}
for line in open(recfile):
    r = json.loads(line)
    N, wv, ws = len(r["moves"]), {}, {}
    tomove = {p["move_number"]: p["to_move"] for p in r["positions"]}
    for p in r["positions"]:
        if "root_value" in p and p["move_number"] < N:
            sg = 1 if p["to_move"] == "W" else -1
            wv[p["move_number"]], ws[p["move_number"]] = sg * p["root_value"], sg * p["root_score"]
    key = game_key(r["game_id"])
    assert key not in games, "game_ids must differ"
    games[key] = (N, r["board_size"], wv, ws, tomove)


def td_targets(game, t, white, v, sc):
    """KataGo's fillValueTDTargets for the five factors, and the variance
    time, over the root values of moves t..N-1 (the result where a move has
    none) and the result v, sc (the side to move's view; sc NaN: 0); None,
    None when move t has no root value"""
    N, n, wv, ws, _ = game
    sg = 1 if white else -1
    fv, fs = sg * v, sg * (0 if np.isnan(sc) else sc)
    vals = [wv.get(i, fv) for i in range(N)] + [fv]
    scores = [ws.get(i, fs) for i in range(N)] + [fs]
    if t < N and t not in wv:
        return None, None
    out = []
    for f in (0.0, 1 / (1 + n * n * 0.176), 1 / (1 + n * n * 0.056), 1 / (1 + n * n * 0.016), 1.0):
        acc, left = np.zeros(4), 1.0
        for i in range(t, N + 1):
            now = left if i == N else left * f
            left = 0 if i == N else left * (1 - f)
            acc += now * np.array([(1 + sg * vals[i]) / 2, (1 - sg * vals[i]) / 2, 0, sg * scores[i]])
        acc[3] = min(max(acc[3], -421), 421)
        out.extend(acc)
    var = sum((i - t) * (vals[i] - vals[i - 1]) ** 2 for i in range(t + 1, N + 1))
    return np.array(out), var


# the model versions KataGo's trainer makes (10..17) take 22 binary and 19
# global inputs (modelconfigs.get_num_bin_input_features and
# get_num_global_input_features)
WANT = {
    "binaryInputNCHWPacked": (np.uint8, (22, (A + 7) // 8)),
    "globalInputNC": (np.float32, (19,)),
    "policyTargetsNCMove": (np.int16, (2, A + 1)),
    "globalTargetsNC": (np.float32, (80,)),
    "scoreDistrN": (np.int8, (2 * A + 2 * 60,)),
    "valueTargetsNCHW": (np.int8, (5, L, L)),
    "qValueTargetsNCMove": (np.int16, (3, A + 1)),
}


def manifest(d):
    return [json.loads(line) for line in open(d + "/manifest")]


gm, km = manifest(gtdir), manifest(kdir)
assert len(gm) == len(km), (len(gm), len(km))
total = scored = ntd = 0
rows = {}  # (game key, move number): (policy counts, own - opponent stones, n)
for g, k in zip(gm, km):
    assert k["keys"] == "katago" and k["pos_len"] == L and "keys" not in g
    assert (k["rows"], k["board_size"]) == (g["rows"], g["board_size"])
    assert (k["feature_version"], k["planes"], k["globals"]) == (7, 22, 19)
    z, q = np.load(gtdir + "/" + g["file"]), np.load(kdir + "/" + k["file"])
    # shuffle.py's assert_keys: exactly these (qValueTargetsNCMove optional)
    assert set(q.files) == set(WANT), q.files
    R, n = g["rows"], g["board_size"]
    N = n * n
    for key, (dt, shape) in WANT.items():
        assert q[key].dtype == dt, (key, q[key].dtype)
        assert q[key].shape == (R,) + shape, (key, q[key].shape)

    # the loader's unpacking
    b = np.unpackbits(q["binaryInputNCHWPacked"], axis=2)
    assert b.shape[2] == ((A + 7) // 8) * 8
    assert not b[:, :, A:].any(), "padding bits are 0"
    kp = b[:, :, :A].reshape(R, 22, L, L)
    assert not kp[:, :, n:, :].any() and not kp[:, :, :, n:].any(), "nothing off the board"
    kp = kp[:, :, :n, :n].reshape(R, 22, N)
    gp = np.unpackbits(z["binaryInputNCHWPacked"], axis=2)[:, :, :N]
    # gt's planes (gt-model(5), feature version 1) where KataGo's correspond
    assert (kp[:, 0] == 1).all() and (gp[:, 0] == 1).all(), "on board"
    assert (kp[:, 1] == gp[:, 1]).all() and (kp[:, 2] == gp[:, 2]).all(), "own, opponent stones"
    assert (kp[:, 3] == (gp[:, 3] | gp[:, 6])).all(), "groups with 1 liberty"
    assert (kp[:, 4] == (gp[:, 4] | gp[:, 7])).all(), "groups with 2 liberties"
    assert (kp[:, 5] <= (gp[:, 5] | gp[:, 8])).all(), "exactly 3 within 3 or more"
    assert (kp[:, 6] >= gp[:, 9]).all(), "the ko ban (KataGo adds superko bans)"
    assert (kp[:, 9:14] == gp[:, 10:15]).all(), "the last five moves"
    assert (kp[:, 1] + kp[:, 2] <= 1).all()
    kg, gg = q["globalInputNC"], z["globalInputNC"]
    assert (kg[:, 0:5] == gg[:, 1:6]).all(), "recent passes"
    assert np.allclose(kg[:, 5], gg[:, 0], atol=1e-6), "komi / 20"

    # policy: counts whose shares are gt's, at KataGo's y*L+x, pass at L*L
    pol = q["policyTargetsNCMove"].astype(np.float64)
    p0 = pol[:, 0]
    s = p0.sum(axis=1)
    assert (s > 0).all() and (p0 >= 0).all() and (s <= 32767).all()
    on = (np.arange(n)[:, None] * L + np.arange(n)[None, :]).reshape(-1)
    idx = np.concatenate([on, [A]])
    off = np.setdiff1d(np.arange(A + 1), idx)
    assert not p0[:, off].any(), "no policy off the board"
    share = p0[:, idx] / s[:, None]
    assert np.abs(share - z["policy"]).max() < 1e-4, np.abs(share - z["policy"]).max()

    t = q["globalTargetsNC"]
    v, sc, om = z["value"], z["score"], z["ownership_mask"]
    known = (om == 1) & np.isfinite(sc)
    assert np.allclose(t[:, 0], (1 + v) / 2) and np.allclose(t[:, 1], (1 - v) / 2)
    assert (t[:, 2] == 0).all(), "no result"
    assert np.allclose(t[:, 3], np.clip(np.nan_to_num(sc), -421, 421)), "final score"
    for r_ in range(R):
        key = tuple(t[r_, 41:47])
        assert key in games, "the game hash is FNV-1a of game_id, splitmix64"
        turn = int(t[r_, 51])
        white = games[key][4][turn] == "W"
        want, var = td_targets(games[key], turn, white, v[r_], sc[r_])
        if want is None:  # no root values: the result repeated, weight 0
            assert np.allclose(t[r_, 0:20].reshape(5, 4), t[r_, 0:4]) and t[r_, 24] == 1 and t[r_, 22] == 0
        else:
            assert np.abs(t[r_, 0:20] - want).max() < 1e-4, (t[r_, 0:20], want)
            assert abs(t[r_, 22] - var) < 1e-3 * max(1, var) and t[r_, 24] == 0
            ntd += 1
        own_opp = kp[r_, 1].astype(np.int8) - kp[r_, 2].astype(np.int8)
        rows[key, turn] = (q["policyTargetsNCMove"][r_, 0], own_opp, q["valueTargetsNCHW"][r_, 2:4], t[r_, 28], q["policyTargetsNCMove"][r_, 1], n)
    assert (t[:, 26] == 1).all() and (t[:, 33] == 1).all() and np.isin(t[:, 28], [0, 1]).all()
    assert (t[:, 25] == z["weight"]).all(), "row weight"
    assert (t[:, 27] == known).all() and (t[:, 34] == known).all(), "ownership, score, scoring weight"
    assert (t[known, 20] == sc[known]).all() and (t[~known, 20] == 0).all(), "final score"
    assert (t[:, 21] == 0).all() and (t[:, 29] == 0).all(), "no lead"
    assert np.allclose(t[:, 47], gg[:, 0] * 20, atol=1e-4), "self komi"
    assert (t[:, 48] == 1).all(), "area scoring"
    assert (t[:, 63] == 3).all(), "data format version"
    h = t[:, 36:41]
    assert np.isin(h, [0, 1]).all() and (np.diff(h, axis=1) <= 0).all(), "history masks"
    assert h.mean() > 0.8
    hs = t[:, 41:47]
    assert (hs == np.floor(hs)).all() and (hs[:, [0, 1, 3, 4]] < 2**22).all() and (hs[:, [2, 5]] < 2**20).all()
    assert not t[:, 64:].any()

    # the score distribution: sums to 100; its mean is the score (bucket i
    # is the score i - mid + 0.5; scores past the ends are in the end buckets)
    d = q["scoreDistrN"].astype(np.float64)
    assert (d.sum(axis=1) == 100).all() and (d >= 0).all()
    mid = A + 60
    mean = (d * (np.arange(2 * A + 120) - mid + 0.5)).sum(axis=1) / 100
    want = np.clip(sc[known], -mid + 0.5, mid - 0.5)
    assert np.abs(mean[known] - want).max(initial=0) < 0.006
    assert (d[~known, mid - 1] == 50).all() and (d[~known, mid] == 50).all()

    vt = q["valueTargetsNCHW"]
    own = np.rint(z["ownership"]).astype(np.int8)
    want = np.zeros((R, L, L), np.int8)
    want[:, :n, :n] = np.where(known[:, None], own, 0).reshape(R, n, n)
    assert (vt[:, 0] == want).all(), "final ownership"
    assert (vt[:, 4] == 120 * want).all(), "scoring: ownership times 120"
    assert not vt[:, 1].any() and not q["qValueTargetsNCMove"].any()
    assert not vt[:, 2:4, n:, :].any() and not vt[:, 2:4, :, n:].any()
    total += R
    scored += int(known.sum())
# the next move's policy is the next row's; the boards 8 and 32 moves on
# are the stones of the rows of those moves (the same side to move)
nnext = nfut = 0
for (key, turn), (p0, stones, fut, has_next, p1, n) in rows.items():
    nxt = rows.get((key, turn + 1))
    if has_next:
        assert nxt is not None and (p1 == nxt[0]).all(), "next move's policy"
        nnext += 1
    else:
        assert (p1 == 1).all(), "next move's policy absent: uniform"
    for k, d in enumerate((8, 32)):
        later = rows.get((key, turn + d))
        if later is not None:
            assert (fut[k][:n, :n].reshape(-1) == later[1]).all(), "future board"
            nfut += 1
print("shards=%d rows=%d scored=%d td=%d next=%d future=%d" % (len(km), total, scored, ntd, nnext, nfut))
