"""nn_torch.py DIR: the PyTorch (float64) reference of gt's network, loss
and optimizers. Reads DIR/model.bin.gz (through gtmodel.py, not gt) and
DIR/*.f32 inputs written by tests/unit/nn_torch.c, writes DIR/py_*.f32."""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gtmodel  # noqa: E402

torch.set_num_threads(1)
d = sys.argv[1]


def load(name, shape):
    return torch.tensor(np.fromfile(os.path.join(d, name + ".f32"), dtype="<f4")
                        .reshape(shape), dtype=torch.float64)


def save(name, t):
    t.detach().numpy().astype("<f4").tofile(os.path.join(d, "py_" + name + ".f32"))


h, tensors = gtmodel.read_model(os.path.join(d, "model.bin.gz"))
meta = np.fromfile(os.path.join(d, "meta.f32"), dtype="<f4")
B, n = int(meta[0]), int(meta[1])
wp, wv, ws, wo, wa = (float(x) for x in meta[2:7])
N = n * n
P = {name: torch.tensor(np.array(v, dtype=np.float64).reshape(shape), requires_grad=True)
     for name, shape, v in tensors}
x = load("planes", (B, h["in_planes"], n, n))
g = load("globals", (B, h["globals"]))
t_pol = load("t_policy", (B, N + 1))
t_val = load("t_value", (B,))
t_score = load("t_score", (B,))
t_own = load("t_own", (B, N))
t_w = load("t_weight", (B,))
t_aux = load("t_aux", (B, N + 1))
t_auxw = load("t_auxw", (B,))


def pool(a):
    m = a.mean((2, 3))
    return torch.cat([m, m * (n - 14) / 10.0], 1)


def conv1x1(a, w, b):
    return F.conv2d(a, w[:, :, None, None], b)


hh = F.conv2d(x, P["in.w"], P["in.b"], padding=1) + (g @ P["in.g"].T)[:, :, None, None]
for l in range(h["blocks"]):
    v = F.conv2d(F.relu(hh), P["blk%d.w1" % l], P["blk%d.b1" % l], padding=1)
    if "blk%d.wg" % l in P:  # global pooling block (KataGo's): biases from the pooled channels
        u = F.relu(F.conv2d(F.relu(hh), P["blk%d.w1g" % l], P["blk%d.b1g" % l], padding=1))
        m = u.mean((2, 3))
        gp = torch.cat([m, m * (n - 14) / 10.0, u.amax((2, 3))], 1)
        v = v + (gp @ P["blk%d.wg" % l].T)[:, :, None, None]
    z = F.conv2d(F.relu(v), P["blk%d.w2" % l], P["blk%d.b2" % l], padding=1)
    hh = hh + P["blk%d.s" % l] * z
t = F.relu(hh)
Pp = F.relu(conv1x1(t, P["pol.w"], P["pol.b"]))
pts = (Pp * P["pol.out.w"][None, :, None, None]).sum(1).flatten(1) + P["pol.out.b"]
pas = pool(Pp) @ P["pol.pass.w"] + P["pol.pass.b"]
logits = torch.cat([pts, pas[:, None]], 1)
aux = "pol.aux.w" in P  # the auxiliary policy head: a second channel from the same Pp
if aux:
    apts = (Pp * P["pol.aux.w"][None, :, None, None]).sum(1).flatten(1) + P["pol.aux.b"]
    apas = pool(Pp) @ P["pol.aux.pass.w"] + P["pol.aux.pass.b"]
    alogits = torch.cat([apts, apas[:, None]], 1)
Vh = F.relu(conv1x1(t, P["val.w"], P["val.b"]))
hid = F.relu(pool(Vh) @ P["val.fc1.w"].T + P["val.fc1.b"])
vpre = hid @ P["val.fc2.w"] + P["val.fc2.b"]
sraw = hid @ P["score.w"] + P["score.b"]
opre = (Vh * P["own.w"][None, :, None, None]).sum(1).flatten(1) + P["own.b"]

lp = -(t_pol * F.log_softmax(logits, 1)).sum(1)
lv = F.binary_cross_entropy_with_logits(2 * vpre, (1 + t_val) / 2, reduction="none")
ls = F.huber_loss(sraw, t_score / 20.0, delta=1.0, reduction="none")
lo = F.binary_cross_entropy_with_logits(2 * opre, (1 + t_own) / 2, reduction="none").mean(1)
terms = [(t_w * x).sum() / B for x in (lp, lv, ls, lo)]
total = wp * terms[0] + wv * terms[1] + ws * terms[2] + wo * terms[3]
la = torch.zeros((), dtype=torch.float64)
if aux:
    la = (t_w * t_auxw * -(t_aux * F.log_softmax(alogits, 1)).sum(1)).sum() / B
    total = total + wa * la
    save("aux", alogits)
total.backward()

save("policy", logits)
save("value", torch.tanh(vpre))
save("score", 20 * sraw)
save("own", torch.tanh(opre))
save("loss", torch.stack([total] + terms + [la]))
save("grads", torch.cat([P[name].grad.flatten() for name, _, _ in tensors]))

# optimizers: 3 steps from the same start with the gradient held fixed
p0 = torch.cat([P[name].detach().flatten() for name, _, _ in tensors])
grad = load("grad_in", (p0.numel(),))
conf = np.fromfile(os.path.join(d, "optconf.f32"), dtype="<f4")
lr, mom, wd, b1, b2, eps = (float(c) for c in conf)
for kind in ("sgd", "adam", "adamw"):
    p = p0.clone().requires_grad_(True)
    if kind == "sgd":
        opt = torch.optim.SGD([p], lr=lr, momentum=mom, nesterov=True, weight_decay=wd)
    elif kind == "adam":
        opt = torch.optim.Adam([p], lr=lr, betas=(b1, b2), eps=eps, weight_decay=wd)
    else:
        opt = torch.optim.AdamW([p], lr=lr, betas=(b1, b2), eps=eps, weight_decay=wd)
    for _ in range(3):
        p.grad = grad.clone()
        opt.step()
    save(kind, p - p0)
