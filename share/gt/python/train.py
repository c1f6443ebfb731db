#!/usr/bin/python3
"""train.py: continue a gt network with PyTorch on gt's shards and write a
gt-model file that gt-elo and the workers take (share/gt/python/README).

  train.py --model IN.bin.gz --data SHARDS -o OUT.bin.gz
           [--steps 100] [--batch 256] [--lr 1e-3] [--window 250000]
           [--device cpu|cuda] [--seed 1] [--aux-policy-weight 0.15]

AdamW (weight decay 1e-4) on gt's loss (with the auxiliary policy head's
term, of the given weight, for a network that has it); OUT's steps and rows continue
IN's, its parent is IN's sha256."""
import argparse
import hashlib
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gtnet  # noqa: E402


def main():
    ap = argparse.ArgumentParser(prog="train.py")
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--window", type=int, default=250000)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--aux-policy-weight", type=float, default=0.15)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    net = gtnet.GtNet.from_file(a.model).to(a.device)
    ds = gtnet.ShardWindow(a.data, a.window, seed=a.seed)
    dl = torch.utils.data.DataLoader(ds, batch_size=a.batch, shuffle=True, drop_last=False)
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)
    step, rows = 0, 0
    while step < a.steps:
        for batch in dl:
            batch = [t.to(a.device) for t in batch]
            ls = gtnet.loss(net, batch, weights=(1.0, 1.0, 0.5, 0.5, a.aux_policy_weight))
            opt.zero_grad()
            ls.backward()
            opt.step()
            step += 1
            rows += len(batch[0])
            if step % 10 == 0 or step == a.steps:
                print("train.py: step %d loss %.4f" % (step, ls.item()), file=sys.stderr)
            if step >= a.steps:
                break
    parent = hashlib.sha256(open(a.model, "rb").read()).digest()
    net.to("cpu").to_file(a.output, steps=net.header["steps"] + step,
                          rows=net.header["rows"] + rows, parent=parent)


if __name__ == "__main__":
    main()
