"""shard_katago_check.py GTDIR KATADIR POS_LEN: the shards gt-shard
--katago-keys wrote into KATADIR, checked with numpy as KataGo's trainer
loads them (KataGo's python/katago/train/data_processing_pytorch.py and
python/shuffle.py: the keys, dtypes and shapes, the bit unpacking) and, row
by row, against the gt shards that gt-shard wrote into GTDIR from the same
records and seed (the same shuffle, so row i is the same position).
Prints "shards=S rows=R scored=K" or fails with an assertion."""
import json
import sys

import numpy as np

gtdir, kdir, L = sys.argv[1], sys.argv[2], int(sys.argv[3])
A = L * L

# KataGo's model versions 8..15 take 22 binary and 19 global inputs
# (modelconfigs.get_num_bin_input_features / get_num_global_input_features)
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
total = scored = 0
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
    assert (pol[:, 1] == 1).all(), "next-move policy absent: uniform"

    t = q["globalTargetsNC"]
    v, sc, om = z["value"], z["score"], z["ownership_mask"]
    known = (om == 1) & np.isfinite(sc)
    assert np.allclose(t[:, 0], (1 + v) / 2) and np.allclose(t[:, 1], (1 - v) / 2)
    assert (t[:, 2] == 0).all(), "no result"
    assert np.allclose(t[:, 0:20].reshape(R, 5, 4), t[:, None, 0:4]), "td-like targets repeat the result"
    assert (t[:, 24] == 1).all() and (t[:, 26] == 1).all() and (t[:, 28] == 0).all()
    assert (t[:, 25] == z["weight"]).all(), "row weight"
    assert (t[:, 27] == known).all(), "ownership and score weight"
    assert (t[known, 20] == sc[known]).all() and (t[~known, 20] == 0).all(), "final score"
    assert (t[known, 3] == sc[known]).all()
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
    assert not vt[:, 1:].any() and not q["qValueTargetsNCMove"].any()
    total += R
    scored += int(known.sum())
print("shards=%d rows=%d scored=%d" % (len(km), total, scored))
