# avg.py OUT IN...: the mean, tensor by tensor, of gt networks of one
# architecture (OUT's header is the last IN's). Run with /usr/bin/python3
# from the source tree (it reads share/gt/python/gtnet.py).
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../share/gt/python"))
import gtnet  # noqa: E402
import numpy as np  # noqa: E402

out, paths = sys.argv[1], sys.argv[2:]
nets = [gtnet.read(p) for p in paths]
h, t = nets[-1]
if any(n[0]["raw"][8:52] != h["raw"][8:52] for n in nets):
    sys.exit("avg.py: the networks' architectures differ")
gtnet.write(out, h, {k: np.mean([n[1][k] for n in nets], axis=0) for k in t})
