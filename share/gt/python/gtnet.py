"""gtnet.py: gt's networks in PyTorch (gt-model(5)).

  read(path)            -> (header dict, OrderedDict name -> float32 numpy array)
  write(path, header, tensors)   the exact bytes gt writes (gzip level 1 of
                        the 172-byte header and the float32 parameters)
  GtNet(header)         a torch.nn.Module of that architecture whose
                        parameters are named as gt's tensors ("in.w",
                        "blk0.w1", ...); GtNet.from_file(path),
                        net.to_file(path, steps=..., rows=...)

A file read and written again without change is byte-identical, so a
network can go gt -> PyTorch -> gt unchanged. The forward pass is nn.h's:
    x = conv3x3(planes) + in.b + in.g . globals
    x += s_l * conv3x3(relu(conv3x3(relu(x)) + b1)) + b2   per block
    (a global pooling block adds to conv3x3(relu(x)) + b1 the biases
    wg . [mean, mean * (n-14)/10, max] of relu(conv3x3(relu(x); w1g) + b1g))
    t = relu(x); P = relu(pol.w t + pol.b); V = relu(val.w t + val.b)
    policy = [pol.out.w . P + pol.out.b, pass from pool(P)]
    value = tanh(fc2 . relu(fc1 pool(V))), score = 20 * (score.w . h + b),
    ownership = tanh(own.w . V + own.b); pool = [mean, mean * (n-14)/10]
    with the auxiliary policy head (heads 1, arch suffix "a"): the
    opponent's reply [pol.aux.w . P + pol.aux.b, pol.aux.pass.w . pool(P)
    + pol.aux.pass.b], returned by forward(..., aux=True)
Inputs are gt's features (feat.h): planes B x 15 x n x n, globals B x 11.
Needs Debian's python3-torch and python3-numpy."""
import collections
import gzip
import struct
import zlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

MAGIC = b"GTNN"
HEADER = 172    # format version 1; version 2 (global pooling, heads) has 184
HEADER2 = 184
AUX_POLICY = 1  # heads bit 0: the auxiliary policy head (the opponent's reply)
FIELDS = ("blocks", "channels", "in_planes", "globals", "feat_version",
          "head_policy", "head_value", "value_hidden", "max_n",
          "policy_size", "own_size")


def gpool_block(h, l):
    """Is block l a global pooling block (gt-model(5))?"""
    k = h.get("gpool_every", 0)
    return k > 0 and l > 0 and l % k == 0


def layout(h):
    """The tensors in file order (gt-model(5)): list of (name, shape)."""
    C, Hp, Hv, H = h["channels"], h["head_policy"], h["head_value"], h["value_hidden"]
    t = [("in.w", (C, h["in_planes"], 3, 3)), ("in.b", (C,))]
    if h["globals"] > 0:
        t.append(("in.g", (C, h["globals"])))
    for l in range(h["blocks"]):
        G = h["gpool_channels"] if gpool_block(h, l) else 0
        R = C - G
        if G:
            t += [("blk%d.w1" % l, (R, C, 3, 3)), ("blk%d.w1g" % l, (G, C, 3, 3)),
                  ("blk%d.b1" % l, (R,)), ("blk%d.b1g" % l, (G,)),
                  ("blk%d.wg" % l, (R, 3 * G))]
        else:
            t += [("blk%d.w1" % l, (C, C, 3, 3)), ("blk%d.b1" % l, (C,))]
        t += [("blk%d.w2" % l, (C, R, 3, 3)), ("blk%d.b2" % l, (C,)),
              ("blk%d.s" % l, (1,))]
    t += [("pol.w", (Hp, C)), ("pol.b", (Hp,)), ("pol.out.w", (Hp,)),
          ("pol.out.b", (1,)), ("pol.pass.w", (2 * Hp,)), ("pol.pass.b", (1,))]
    if h.get("heads", 0) & AUX_POLICY:
        t += [("pol.aux.w", (Hp,)), ("pol.aux.b", (1,)), ("pol.aux.pass.w", (2 * Hp,)),
              ("pol.aux.pass.b", (1,))]
    t += [("val.w", (Hv, C)), ("val.b", (Hv,)), ("val.fc1.w", (H, 2 * Hv)),
          ("val.fc1.b", (H,)), ("val.fc2.w", (H,)), ("val.fc2.b", (1,)),
          ("score.w", (H,)), ("score.b", (1,)), ("own.w", (Hv,)), ("own.b", (1,))]
    return t


def read(path):
    """The header (dict; "raw" holds its 172 bytes) and the tensors."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    if len(data) < HEADER or data[:4] != MAGIC:
        raise ValueError("%s: not a gt network" % path)
    version, = struct.unpack_from("<I", data, 4)
    if version not in (1, 2):
        raise ValueError("%s: format version %d" % (path, version))
    h = dict(zip(FIELDS, struct.unpack_from("<11I", data, 8)))
    h["gpool_every"], h["gpool_channels"], h["heads"] = 0, 0, 0
    hsize = HEADER
    if version == 2:
        h["gpool_every"], h["gpool_channels"], h["heads"] = struct.unpack_from("<3I", data, HEADER)
        hsize = HEADER2
        if h["heads"] & ~AUX_POLICY or not (h["gpool_every"] or h["heads"]):
            raise ValueError("%s: unknown heads, or neither global pooling nor heads" % path)
    h["steps"], h["rows"] = struct.unpack_from("<QQ", data, 52)
    h["parent"] = data[68:100]
    h["series"] = data[100:164].split(b"\0")[0].decode()
    h["raw"] = data[:hsize]
    nparams, = struct.unpack_from("<Q", data, 164)
    tensors, off = collections.OrderedDict(), hsize
    for name, shape in layout(h):
        size = int(np.prod(shape))
        tensors[name] = np.frombuffer(data, dtype="<f4", count=size, offset=off).reshape(shape).copy()
        off += 4 * size
    if off != hsize + 4 * nparams or off != len(data):
        raise ValueError("%s: size mismatch" % path)
    return h, tensors


def header_bytes(h):
    """The header bytes of h (the fields of gt-model(5)): 172 of version
    1 without global pooling blocks and extra heads, else 184 of version 2."""
    nparams = sum(int(np.prod(s)) for _, s in layout(h))
    v2 = h.get("gpool_every", 0) > 0 or h.get("heads", 0) != 0
    b = bytearray(HEADER2 if v2 else HEADER)
    b[0:4] = MAGIC
    struct.pack_into("<I", b, 4, 2 if v2 else 1)
    if v2:
        struct.pack_into("<3I", b, HEADER, h.get("gpool_every", 0), h.get("gpool_channels", 0),
                         h.get("heads", 0))
    struct.pack_into("<11I", b, 8, *(h[f] for f in FIELDS))
    struct.pack_into("<QQ", b, 52, h["steps"], h["rows"])
    b[68:100] = bytes(h.get("parent", b"\0" * 32))
    s = h["series"].encode()
    b[100:100 + len(s)] = s
    struct.pack_into("<Q", b, 164, nparams)
    return bytes(b)


def write(path, h, tensors):
    """Write h and tensors as gt does (gzip level 1, no name, mtime 0)."""
    body = [header_bytes(h)]
    for name, shape in layout(h):
        a = np.asarray(tensors[name], dtype="<f4")
        if a.shape != tuple(shape) or not np.isfinite(a).all():
            raise ValueError("%s: shape %s or non-finite values" % (name, a.shape))
        body.append(a.tobytes())
    c = zlib.compressobj(1, zlib.DEFLATED, 31)
    with open(path, "wb") as f:
        f.write(c.compress(b"".join(body)) + c.flush())


class GtNet(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.header = {k: v for k, v in h.items() if k != "raw"}
        self.names = [name for name, _ in layout(h)]
        self.p = nn.ParameterDict({name.replace(".", "_"): nn.Parameter(torch.zeros(shape))
                                   for name, shape in layout(h)})

    def param(self, name):
        return self.p[name.replace(".", "_")]

    @classmethod
    def from_file(cls, path):
        h, t = read(path)
        net = cls(h)
        with torch.no_grad():
            for name, a in t.items():
                net.param(name).copy_(torch.from_numpy(a))
        return net

    def tensors(self):
        return collections.OrderedDict((n, self.param(n).detach().cpu().float().numpy())
                                       for n in self.names)

    def to_file(self, path, steps=None, rows=None, parent=None):
        h = dict(self.header)
        if steps is not None:
            h["steps"] = steps
        if rows is not None:
            h["rows"] = rows
        if parent is not None:
            h["parent"] = parent
        write(path, h, self.tensors())

    def has_aux(self):
        """Has the network the auxiliary policy head (the opponent's reply)?"""
        return bool(self.header.get("heads", 0) & AUX_POLICY)

    def forward(self, planes, globals_, raw=False, aux=False):
        """planes B x in_planes x n x n, globals B x globals -> policy logits
        B x (n*n+1), value B (tanh), score B (points), ownership B x n*n;
        raw: value and ownership before their tanh; aux (a network with the
        auxiliary policy head only): and fifth the opponent's reply's
        logits B x (n*n+1)."""
        P, h = self.param, self.header
        n = planes.shape[-1]
        x = F.conv2d(planes, P("in.w"), P("in.b"), padding=1)
        if h["globals"] > 0:
            x = x + (globals_ @ P("in.g").T)[:, :, None, None]
        for l in range(h["blocks"]):
            v = F.conv2d(F.relu(x), P("blk%d.w1" % l), P("blk%d.b1" % l), padding=1)
            if gpool_block(h, l):
                u = F.relu(F.conv2d(F.relu(x), P("blk%d.w1g" % l), P("blk%d.b1g" % l), padding=1))
                m = u.mean((2, 3))
                gp = torch.cat([m, m * (n - 14) / 10.0, u.amax((2, 3))], 1)
                v = v + (gp @ P("blk%d.wg" % l).T)[:, :, None, None]
            z = F.conv2d(F.relu(v), P("blk%d.w2" % l), P("blk%d.b2" % l), padding=1)
            x = x + P("blk%d.s" % l) * z
        t = F.relu(x)

        def pool(a):
            m = a.mean((2, 3))
            return torch.cat([m, m * (n - 14) / 10.0], 1)

        pp = F.relu(F.conv2d(t, P("pol.w")[:, :, None, None], P("pol.b")))
        pts = (pp * P("pol.out.w")[None, :, None, None]).sum(1).flatten(1) + P("pol.out.b")
        pas = pool(pp) @ P("pol.pass.w") + P("pol.pass.b")
        vv = F.relu(F.conv2d(t, P("val.w")[:, :, None, None], P("val.b")))
        hid = F.relu(pool(vv) @ P("val.fc1.w").T + P("val.fc1.b"))
        value = hid @ P("val.fc2.w") + P("val.fc2.b")
        score = 20.0 * (hid @ P("score.w") + P("score.b"))
        own = (vv * P("own.w")[None, :, None, None]).sum(1).flatten(1) + P("own.b")
        if not raw:
            value, own = torch.tanh(value), torch.tanh(own)
        out = (torch.cat([pts, pas[:, None]], 1), value, score, own)
        if aux:
            apts = (pp * P("pol.aux.w")[None, :, None, None]).sum(1).flatten(1) + P("pol.aux.b")
            apas = pool(pp) @ P("pol.aux.pass.w") + P("pol.aux.pass.b")
            out += (torch.cat([apts, apas[:, None]], 1),)
        return out


def symmetry(a, k):
    """Dihedral symmetry k (0..7) of the last two axes of a (n x n)."""
    if k & 4:
        a = np.swapaxes(a, -1, -2)
    if k & 1:
        a = a[..., ::-1, :]
    if k & 2:
        a = a[..., :, ::-1]
    return a


class ShardWindow(torch.utils.data.Dataset):
    """The newest rows (at most window) of the shards of gt-shard(5) under
    folder (from its manifest, newest last), of the board size of the
    newest shard, each row under a random symmetry as gt-train takes them;
    shards of KataGo's keys (gt-shard --katago-keys) are skipped, as
    gt-train skips them. Items: (planes C x n x n, globals G, policy n*n+1, value, score (NaN:
    unknown), ownership n*n, ownership weight, row weight, the opponent's reply n*n+1
    (policy_next, zeros if none), its weight (1 with a reply, 0 without: the game's
    last move, shards of builds before policy_next)), float32."""

    def __init__(self, folder, window=250000, seed=None):
        import json
        import os
        lines = []
        for ln in open(os.path.join(folder, "manifest")):
            try:
                m = json.loads(ln)
            except ValueError:
                continue  # a line cut short by a crash
            if "keys" not in m:
                lines.append(m)
        if not lines:
            raise ValueError("%s: no shards" % folder)
        self.n = lines[-1]["board_size"]
        arrays, have = [], 0
        for m in reversed(lines):
            if m["board_size"] != self.n or have >= window:
                continue
            z = np.load(os.path.join(folder, m["file"]))
            d = {k: z[k] for k in z.files}
            if "policy_next" not in d:  # an older shard: no reply
                d["policy_next"] = np.zeros_like(d["policy"])
                d["policy_next_mask"] = np.zeros(len(d["policy"]), dtype=np.uint8)
            arrays.append(d)
            have += m["rows"]
        self.a = {k: np.concatenate([d[k] for d in reversed(arrays)])[-window:] for k in arrays[0]
                  if all(k in d for d in arrays)}
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.a["value"])

    def __getitem__(self, i):
        n, N, a = self.n, self.n * self.n, self.a
        k = int(self.rng.integers(8))
        pk = a["binaryInputNCHWPacked"][i]
        planes = np.unpackbits(pk, axis=1)[:, :N].reshape(-1, n, n).astype(np.float32)
        pol = a["policy"][i]
        own = a["ownership"][i].reshape(n, n)
        mask = a["ownership_mask"][i] if "ownership_mask" in a else 1
        pts = symmetry(pol[:N].reshape(n, n), k).reshape(N)
        nxt = a["policy_next"][i]
        npts = symmetry(nxt[:N].reshape(n, n), k).reshape(N)
        return (torch.from_numpy(symmetry(planes, k).copy()),
                torch.from_numpy(a["globalInputNC"][i].astype(np.float32)),
                torch.from_numpy(np.append(pts, pol[N]).astype(np.float32)),
                torch.tensor(float(a["value"][i])), torch.tensor(float(a["score"][i])),
                torch.from_numpy(symmetry(own, k).reshape(N).copy().astype(np.float32)),
                torch.tensor(float(np.asarray(mask).reshape(-1)[0])),
                torch.tensor(float(a["weight"][i]) if "weight" in a else 1.0),
                torch.from_numpy(np.append(npts, nxt[N]).astype(np.float32)),
                torch.tensor(1.0 if a["policy_next_mask"][i] else 0.0))


def loss(net, batch, weights=(1.0, 1.0, 0.5, 0.5, 0.15)):
    """gt-train's loss (gt-model(5), Loss) of a ShardWindow batch: each term
    sum_r w_r term_r / R; scores that are NaN (unknown) left out; with the
    auxiliary policy head the opponent's reply's cross-entropy, weight 0.15."""
    planes, glob, pol, value, score, own, ownw, w, nxt, nxtw = batch
    R = len(value)
    aux = net.has_aux()
    out = net(planes, glob, raw=True, aux=aux)
    logits, vp, s, op = out[:4]
    lp = -(pol * F.log_softmax(logits, 1)).sum(1)
    lv = F.binary_cross_entropy_with_logits(2 * vp, (1 + value) / 2, reduction="none")
    known = ~torch.isnan(score)
    ls = torch.zeros_like(s)
    ls[known] = F.huber_loss(s[known] / 20, score[known] / 20, delta=1.0, reduction="none")
    lo = F.binary_cross_entropy_with_logits(2 * op, (1 + own) / 2, reduction="none").mean(1) * ownw
    terms = [(w * t).sum() / R for t in (lp, lv, ls, lo)]
    if aux:
        la = -(nxt * F.log_softmax(out[4], 1)).sum(1) * nxtw
        terms.append((w * la).sum() / R)
    return sum(k * t for k, t in zip(weights, terms))
