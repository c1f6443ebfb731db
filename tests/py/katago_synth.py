"""katago_synth.py: small random KataGo model files and a NumPy float64
forward of them, for tests/unit/katago_synth.c (the layer kinds that
KataGo's b6c96 does not have: nested-bottleneck blocks, Mish and SiLU
activations, the version-13 multipliers, the version-15 pass layers).

  katago_synth.py gen VERSION OUT.txt [flat] write a model (text floats);
      flat: without the nested-bottleneck block (every block convolution
      3x3, fed by Mish and SiLU: negative inputs)
  katago_synth.py fwd MODEL.txt IN.f32 N B   read B positions (22 planes
      then 19 globals each, float32) and print policy logits (N*N+1),
      value logits (3), score outputs and ownership (N*N) per position

The file layout and the arithmetic follow KataGo's desc.cpp and its Eigen
backend as gt-model(5) describes them; this reader is written apart from
lib/nn/katago.c."""
import sys

import numpy as np

rng = np.random.default_rng(5)


class W:
    def __init__(self):
        self.t = []

    def put(self, *xs):
        self.t += [str(x) for x in xs]

    def floats(self, a):
        self.t += ["%.8g" % v for v in np.asarray(a, dtype=np.float32).ravel()]


def gen(version, out, flat=False):
    w = W()
    act = lambda name, kind="ACTIVATION_RELU": w.put(name, *([kind] if version >= 11 else []))

    def conv(name, k, cin, cout, scale=0.3):
        w.put(name, k, k, cin, cout, 1, 1)
        w.floats(rng.normal(0, scale / np.sqrt(cin * k * k), (k, k, cin, cout)))

    def bn(name, c):
        w.put(name, c, 1e-5, 1, 1)
        w.floats(rng.normal(0, 0.2, c))
        w.floats(rng.uniform(0.5, 1.5, c))
        w.floats(rng.uniform(0.5, 1.5, c))
        w.floats(rng.normal(0, 0.2, c))

    def mat(name, cin, cout):
        w.put(name, cin, cout)
        w.floats(rng.normal(0, 1 / np.sqrt(cin), (cin, cout)))

    def bias(name, c):
        w.put(name, c)
        w.floats(rng.normal(0, 0.2, c))

    def block(kind, name, C):
        w.put(kind, name)
        if kind == "nested_bottleneck_block":
            w.put(2)
            bn(name + "/pre", C)
            act(name + "/preact", "ACTIVATION_MISH")
            conv(name + "/preconv", 1, C, 6)
            block("ordinary_block", name + "/a", 6)
            block("gpool_block", name + "/b", 6)
            bn(name + "/post", 6)
            act(name + "/postact", "ACTIVATION_SILU")
            conv(name + "/postconv", 1, 6, C)
            return
        bn(name + "/pre", C)
        act(name + "/preact", "ACTIVATION_MISH")
        conv(name + "/c1", 3, C, 5)
        if kind == "gpool_block":
            conv(name + "/gc", 3, C, 3)
            bn(name + "/gbn", 3)
            act(name + "/gact")
            mat(name + "/gmul", 9, 5)
        bn(name + "/mid", 5)
        act(name + "/midact", "ACTIVATION_SILU")
        conv(name + "/c2", 3, 5, C)

    C = 8
    w.put("synth-v%d" % version, version, 22, 19)
    if version >= 13:
        w.put(20, 20, 20, 17, 40, 0.25, 30)
    if version >= 15:
        w.put(0, 0, 0, 0, 0, 0, 0, 0)
    w.put("trunk", 2 if flat else 3, C, 5, 5, 0, 3)
    if version >= 15:
        w.put(0, 0, 0, 0, 0, 0)
    conv("conv1", 5, 22, C)
    mat("ginput", 19, C)
    block("ordinary_block", "b1", C)
    block("gpool_block", "b2", C)
    if not flat:
        block("nested_bottleneck_block", "b3", C)
    bn("trunk/tip", C)
    act("trunk/tipact")
    P, G, PO = 4, 3, (2 if version >= 12 else 1)
    w.put("policy")
    conv("p1", 1, C, P)
    conv("g1", 1, C, G)
    bn("g1bn", G)
    act("g1act")
    mat("gpoolbias", 3 * G, P)
    bn("p1bn", P)
    act("p1act", "ACTIVATION_MISH")
    conv("p2", 1, P, PO)
    if version >= 15:
        mat("pass", 3 * G, P)
        bias("passb", P)
        act("passact", "ACTIVATION_SILU")
        mat("pass2", P, PO)
    else:
        mat("pass", 3 * G, PO)
    V, H, S = 4, 6, (6 if version >= 9 else 4)
    w.put("value")
    conv("v1", 1, C, V)
    bn("v1bn", V)
    act("v1act")
    mat("v2", 3 * V, H)
    bias("v2b", H)
    act("v2act")
    mat("v3", H, 3)
    bias("v3b", 3)
    mat("sv3", H, S)
    bias("sv3b", S)
    conv("own", 1, V, 1)
    open(out, "w").write("\n".join(w.t) + "\n")


class R:
    def __init__(self, path):
        self.t = open(path).read().split()
        self.i = 0

    def tok(self):
        self.i += 1
        return self.t[self.i - 1]

    def n(self, k):
        v = np.array([float(x) for x in self.t[self.i:self.i + k]])
        self.i += k
        return v


def fwd(path, inp, n, B):
    r = R(path)
    r.tok()
    version = int(r.tok())
    r.tok(), r.tok()
    if version >= 13:
        mult = [float(r.tok()) for _ in range(7)]
    if version >= 15:
        [r.tok() for _ in range(8)]

    def act():
        r.tok()
        kind = r.tok() if version >= 11 else "ACTIVATION_RELU"
        return {"ACTIVATION_RELU": lambda x: np.maximum(x, 0),
                "ACTIVATION_MISH": lambda x: x * np.tanh(np.log1p(np.exp(x))),
                "ACTIVATION_SILU": lambda x: x / (1 + np.exp(-x)),
                "ACTIVATION_IDENTITY": lambda x: x}[kind]

    def conv():
        r.tok()
        ky, kx, cin, cout = (int(r.tok()) for _ in range(4))
        r.tok(), r.tok()
        wt = r.n(ky * kx * cin * cout).reshape(ky, kx, cin, cout)

        def f(x):  # x: cin x n x n
            p = ky // 2
            xp = np.pad(x, ((0, 0), (p, p), (p, p)))
            y = np.zeros((cout, n, n))
            for a in range(ky):
                for b in range(kx):
                    y += np.einsum("io,ihw->ohw", wt[a, b], xp[:, a:a + n, b:b + n])
            return y
        return f

    def bn():
        r.tok()
        c = int(r.tok())
        eps = float(r.tok())
        hs, hb = int(r.tok()), int(r.tok())
        mean, var = r.n(c), r.n(c)
        sc = r.n(c) if hs else np.ones(c)
        bi = r.n(c) if hb else np.zeros(c)
        return lambda x: ((x - mean[:, None, None]) / np.sqrt(var + eps)[:, None, None]
                          * sc[:, None, None] + bi[:, None, None])

    def mat():
        r.tok()
        cin, cout = int(r.tok()), int(r.tok())
        m = r.n(cin * cout).reshape(cin, cout)
        return lambda v: v @ m

    def bias():
        r.tok()
        c = int(r.tok())
        b = r.n(c)
        return lambda v: v + b

    sq = (np.sqrt(n * n) - 14) / 10

    def pool3(x):
        m = x.mean(axis=(1, 2))
        return np.concatenate([m, m * sq, np.maximum(x.max(axis=(1, 2)), -1.0)])

    def block():
        kind = r.tok()
        r.tok()
        if kind == "nested_bottleneck_block":
            k = int(r.tok())
            pre, pa, pc = bn(), act(), conv()
            inner = [block() for _ in range(k)]
            post, qa, qc = bn(), act(), conv()

            def f(x):
                h = pc(pa(pre(x)))
                for g in inner:
                    h = g(h)
                return x + qc(qa(post(h)))
            return f
        pre, pa, c1 = bn(), act(), conv()
        gp = None
        if kind == "gpool_block":
            gp = (conv(), bn(), act(), mat())
        mid, ma, c2 = bn(), act(), conv()

        def f(x):
            a = pa(pre(x))
            h = c1(a)
            if gp:
                gc, gb, ga, gm = gp
                h = h + gm(pool3(ga(gb(gc(a)))))[:, None, None]
            return x + c2(ma(mid(h)))
        return f

    r.tok()
    nb = int(r.tok())
    [r.tok() for _ in range(5)]
    if version >= 15:
        [r.tok() for _ in range(6)]
    c0, g0 = conv(), mat()
    blocks = [block() for _ in range(nb)]
    tip, ta = bn(), act()
    r.tok()
    p1, g1, g1b, g1a, gbias, p1b, p1a, p2, pas = conv(), conv(), bn(), act(), mat(), bn(), act(), conv(), mat()
    if version >= 15:
        pb, pact, pas2 = bias(), act(), mat()
    r.tok()
    v1, v1b, v1a, v2, v2b, v2a, v3, v3b, sv3, sv3b, own = (conv(), bn(), act(), mat(), bias(), act(),
                                                            mat(), bias(), mat(), bias(), conv())
    N = n * n
    data = np.fromfile(inp, dtype=np.float32).astype(np.float64)
    for i in range(B):
        row = data[i * (22 * N + 19):(i + 1) * (22 * N + 19)]
        x = c0(row[:22 * N].reshape(22, n, n)) + g0(row[22 * N:])[:, None, None]
        for f in blocks:
            x = f(x)
        t = ta(tip(x))
        g = pool3(g1a(g1b(g1(t))))
        p = p2(p1a(p1b(p1(t) + gbias(g)[:, None, None])))
        ps = pas(g)
        if version >= 15:
            ps = pas2(pact(pb(ps)))
        v = v1a(v1b(v1(t)))
        m = v.mean(axis=(1, 2))
        h = v2a(v2b(v2(np.concatenate([m, m * sq, m * (sq * sq - 0.1)]))))
        out = list(p[0].ravel()) + [ps[0]] + list(v3b(v3(h))) + list(sv3b(sv3(h))) + list(own(v)[0].ravel())
        print(" ".join("%.9g" % o for o in out))


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(int(sys.argv[2]), sys.argv[3], len(sys.argv) > 4 and sys.argv[4] == "flat")
    else:
        fwd(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
