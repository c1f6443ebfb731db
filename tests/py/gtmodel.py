"""gtmodel.py: gt network files for the PyTorch reference tests, read
through share/gt/python/gtnet.py (a reader written apart from gt's C code).
read_model returns (header dict, list of (name, shape, flat float list))."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "share", "gt", "python"))
import gtnet  # noqa: E402


def read_model(path):
    h, t = gtnet.read(path)
    h["parent"] = h["parent"].hex()
    return h, [(name, tuple(a.shape), a.ravel().tolist()) for name, a in t.items()]
