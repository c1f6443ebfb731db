#!/usr/bin/python3
# npz_check.py: the numpy side of tests/unit/npz.c.
#   npz_check.py read FILE    print "name dtype shape sum" per array of FILE
#                             (sorted by name), as numpy.load sees it
#   npz_check.py write DIR    write DIR/np_stored.npz (numpy.savez) and
#                             DIR/np_deflated.npz (numpy.savez_compressed)
#                             holding the arrays the C test expects, and
#                             np_fortran.npz, np_bigendian.npz, np_complex.npz
#                             that gt refuses
import sys
import numpy as np


def arrays():
    return {
        "a": np.arange(12, dtype=np.float32).reshape(3, 4) * 0.5,
        "b": np.array([-3, 1, 7, -128, 127], dtype=np.int8),
        "c": np.arange(2 * 3 * 5, dtype=np.uint8).reshape(2, 3, 5),
        "d": np.array([1 << 40, -5], dtype=np.int64),
        "e": np.int32(42),
    }


def main():
    if sys.argv[1] == "read":
        with np.load(sys.argv[2]) as z:
            for k in sorted(z.files):
                a = z[k]
                s = float(a.astype(np.float64).sum())
                print(k, a.dtype.str, "x".join(str(d) for d in a.shape) or "scalar",
                      repr(s), "C" if a.flags.c_contiguous else "F")
    else:
        np.savez(sys.argv[2] + "/np_stored.npz", **arrays())
        np.savez_compressed(sys.argv[2] + "/np_deflated.npz", **arrays())
        np.savez(sys.argv[2] + "/np_fortran.npz", a=np.asfortranarray(arrays()["a"]))
        np.savez(sys.argv[2] + "/np_bigendian.npz", a=arrays()["a"].astype(">f4"))
        np.savez(sys.argv[2] + "/np_complex.npz", a=np.zeros(3, dtype=np.complex64))


main()
