"""gtmodel.py: a small, independent reader of gt network files (.bin.gz,
man5 gt-model) for the PyTorch reference tests. Standard library only;
read_model returns (header dict, list of (name, shape, flat float list))."""
import gzip
import struct

MAGIC = b"GTNN"
HEADER = 172
FIELDS = ("blocks", "channels", "in_planes", "globals", "feat_version",
          "head_policy", "head_value", "value_hidden", "max_n",
          "policy_size", "own_size")


def layout(h):
    """The tensors in file order, as in man5 gt-model."""
    C, Hp, Hv, H = h["channels"], h["head_policy"], h["head_value"], h["value_hidden"]
    t = [("in.w", (C, h["in_planes"], 3, 3)), ("in.b", (C,))]
    if h["globals"] > 0:
        t.append(("in.g", (C, h["globals"])))
    for l in range(h["blocks"]):
        t += [("blk%d.w1" % l, (C, C, 3, 3)), ("blk%d.b1" % l, (C,)),
              ("blk%d.w2" % l, (C, C, 3, 3)), ("blk%d.b2" % l, (C,)),
              ("blk%d.s" % l, (1,))]
    t += [("pol.w", (Hp, C)), ("pol.b", (Hp,)), ("pol.out.w", (Hp,)),
          ("pol.out.b", (1,)), ("pol.pass.w", (2 * Hp,)), ("pol.pass.b", (1,)),
          ("val.w", (Hv, C)), ("val.b", (Hv,)), ("val.fc1.w", (H, 2 * Hv)),
          ("val.fc1.b", (H,)), ("val.fc2.w", (H,)), ("val.fc2.b", (1,)),
          ("score.w", (H,)), ("score.b", (1,)), ("own.w", (Hv,)), ("own.b", (1,))]
    return t


def read_model(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    if data[:4] != MAGIC:
        raise ValueError("bad magic")
    version, = struct.unpack_from("<I", data, 4)
    if version != 1:
        raise ValueError("version %d" % version)
    h = dict(zip(FIELDS, struct.unpack_from("<11I", data, 8)))
    h["steps"], h["rows"] = struct.unpack_from("<QQ", data, 52)
    h["parent"] = data[68:100].hex()
    h["series"] = data[100:164].split(b"\0")[0].decode()
    nparams, = struct.unpack_from("<Q", data, 164)
    tensors, off = [], HEADER
    for name, shape in layout(h):
        size = 1
        for d in shape:
            size *= d
        tensors.append((name, shape, list(struct.unpack_from("<%df" % size, data, off))))
        off += 4 * size
    if off != HEADER + 4 * nparams or off != len(data):
        raise ValueError("size mismatch")
    return h, tensors
