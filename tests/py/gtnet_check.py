"""gtnet_check.py DIR B N: share/gt/python/gtnet.py on DIR/model.bin.gz:
writes DIR/again.bin.gz (read and written back) and DIR/py_out.f32, the
float64 forward (policy, value, score, ownership of each position, and
the auxiliary policy's logits of a network with that head) of
DIR/planes.f32 and DIR/globals.f32, for tests/unit/gtnet.c."""
import os
import sys

import numpy as np
import torch

src = os.environ.get("GT_SRC", ".")
sys.path.insert(0, os.path.join(src, "share", "gt", "python"))
import gtnet  # noqa: E402

d, B, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
h, t = gtnet.read(os.path.join(d, "model.bin.gz"))
gtnet.write(os.path.join(d, "again.bin.gz"), h, t)
net = gtnet.GtNet.from_file(os.path.join(d, "model.bin.gz")).double()
x = torch.tensor(np.fromfile(os.path.join(d, "planes.f32"), dtype="<f4").reshape(B, h["in_planes"], n, n),
                 dtype=torch.float64)
g = torch.tensor(np.fromfile(os.path.join(d, "globals.f32"), dtype="<f4").reshape(B, h["globals"]),
                 dtype=torch.float64)
with torch.no_grad():
    out = net(x, g, aux=net.has_aux())
np.concatenate([o.numpy().reshape(B, -1) for o in out], 1).astype("<f4").tofile(os.path.join(d, "py_out.f32"))
