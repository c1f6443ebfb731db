"""nn_torch.py BLOCKS CHANNELS N BATCH THREADS [ROUNDS [SECONDS]]: PyTorch
float32 throughput
of gt's architecture (man5 gt-model) for bench/nn.c: prints
"fwd <positions/s> train <samples/s>" (train: forward, the full loss,
backward and an AdamW step)."""
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

L, C, n, B, threads = (int(a) for a in sys.argv[1:6])
ROUNDS = int(sys.argv[6]) if len(sys.argv) > 6 else 3
SECONDS = float(sys.argv[7]) if len(sys.argv) > 7 else 0.5
torch.set_num_threads(threads)
torch.manual_seed(1)
CIN, G, HP, HV, H = 15, 11, 32, 32, 64
N = n * n


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(C, C, 3, padding=1)
        self.c2 = nn.Conv2d(C, C, 3, padding=1)
        self.s = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return x + self.s * self.c2(F.relu(self.c1(F.relu(x))))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Conv2d(CIN, C, 3, padding=1)
        self.g = nn.Linear(G, C, bias=False)
        self.blocks = nn.Sequential(*[Block() for _ in range(L)])
        self.pol = nn.Conv2d(C, HP, 1)
        self.pol_out = nn.Conv2d(HP, 1, 1)
        self.pas = nn.Linear(2 * HP, 1)
        self.val = nn.Conv2d(C, HV, 1)
        self.fc1 = nn.Linear(2 * HV, H)
        self.fc2 = nn.Linear(H, 2)
        self.own = nn.Conv2d(HV, 1, 1)

    def forward(self, x, g):
        h = self.inp(x) + self.g(g)[:, :, None, None]
        t = F.relu(self.blocks(h))
        p = F.relu(self.pol(t))
        m = p.mean((2, 3))
        pas = self.pas(torch.cat([m, m * (n - 14) / 10], 1))
        logits = torch.cat([self.pol_out(p).flatten(1), pas], 1)
        v = F.relu(self.val(t))
        m = v.mean((2, 3))
        vs = self.fc2(F.relu(self.fc1(torch.cat([m, m * (n - 14) / 10], 1))))
        return logits, vs[:, 0], vs[:, 1], self.own(v).flatten(1)


net = Net()
x = (torch.rand(B, CIN, n, n) < 0.3).float()
g = torch.rand(B, G)
tp = torch.softmax(torch.randn(B, N + 1), 1)
tv, ts, to = torch.rand(B) * 2 - 1, torch.randn(B) * 10, torch.rand(B, N) * 2 - 1


def timed(f):
    """calls per second, the best of rounds windows (the CPU is shared)"""
    f()
    best = 0
    for _ in range(ROUNDS):
        k, t0 = 0, time.perf_counter()
        while True:
            f()
            k += 1
            dt = time.perf_counter() - t0
            if dt >= SECONDS and k >= 2:
                break
        best = max(best, k / dt)
    return best


def fwd():
    with torch.no_grad():
        net(x, g)


opt = torch.optim.AdamW(net.parameters(), lr=1e-4)


def train():
    logits, v, s, o = net(x, g)
    loss = (-(tp * F.log_softmax(logits, 1)).sum(1).mean()
            + F.binary_cross_entropy_with_logits(2 * v, (1 + tv) / 2)
            + 0.5 * F.huber_loss(s, ts / 20)
            + 0.5 * F.binary_cross_entropy_with_logits(2 * o, (1 + to) / 2))
    opt.zero_grad()
    loss.backward()
    opt.step()


print("fwd %.1f train %.1f" % (timed(fwd) * B, timed(train) * B))
