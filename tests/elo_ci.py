"""An independent computation of gt-elo's 95% score interval (lib/elo.h,
gt_elo_score_ci), for tests/cmd/elo.t and to check the values in
tests/unit/elo.c.

For a hypothesized mean s, the most likely distribution on the values a
(all of them allowed, observed or not) with mean s is found through the
Lagrange dual of max sum q_i log p_i: minimize the convex
D(t) = -sum q_i log(1 + t (a_i - s)) over the t that keep every
1 + t (a_j - s) >= 0 (j over all values, so t in [-1/(1-s), 1/s]), by
golden-section search; p_i = q_i / (1 + t (a_i - s)) and the mass left
over sits on the value whose factor vanishes (0 at t = 1/s, 1 at
t = -1/(1-s)). lib/elo.c instead decides that boundary case in closed form
and bisects the dual's derivative. The interval is
{s : (m - s)^2 <= z^2 V(s) / n}, its ends found by a scan and bisection.

Usage: python3 elo_ci.py n0 n1 ... (counts of the values 0, 1/(k-1), ..., 1)
prints "lo hi" in Elo, "null" for an unbounded end.
"""
import math
import sys

Z = 1.959963984540054


def elo(s):
    return -400 * math.log10(1 / s - 1)


def variance_at(a, q, s):
    lo, hi = -1 / (1 - s), 1 / s
    g = (math.sqrt(5) - 1) / 2

    def dual(t):
        x = 0.0
        for ai, qi in zip(a, q):
            if qi > 0:
                f = 1 + t * (ai - s)
                if f <= 0:
                    return math.inf
                x -= qi * math.log(f)
        return x

    x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = dual(x1), dual(x2)
    for _ in range(300):
        if f1 <= f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - g * (hi - lo)
            f1 = dual(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + g * (hi - lo)
            f2 = dual(x2)
    t = (lo + hi) / 2
    p = [qi / (1 + t * (ai - s)) if qi > 0 else 0.0 for ai, qi in zip(a, q)]
    v = sum(pi * (ai - s) ** 2 for ai, pi in zip(a, p))
    left = 1 - sum(p)
    if left > 0:  # on 0 when t is at 1/s, on 1 when at -1/(1-s)
        v += left * (s if t > 0 else 1 - s) ** 2
    return v


def interval(counts, z=Z):
    k = len(counts)
    a = [i / (k - 1) for i in range(k)]
    n = float(sum(counts))
    q = [c / n for c in counts]
    m = sum(ai * qi for ai, qi in zip(a, q))
    c = z * z / n

    def outside(s):
        return (m - s) ** 2 > c * variance_at(a, q, s)

    def end(toward):
        if m == toward:
            return toward
        # scan from m toward the end for the first s outside, then bisect
        inside, steps = m, 4000
        for i in range(1, steps + 1):
            s = m + (toward - m) * i / steps
            if s == toward or outside(s):
                break
            inside = s
        out = s
        if out == toward:
            return toward
        for _ in range(100):
            mid = (inside + out) / 2
            if outside(mid):
                out = mid
            else:
                inside = mid
        return (inside + out) / 2

    return m, end(0.0), end(1.0)


def elo_interval(counts):
    _, lo, hi = interval(counts)
    return (None if lo <= 0 else elo(lo), None if hi >= 1 else elo(hi))


if __name__ == "__main__":
    lo, hi = elo_interval([int(x) for x in sys.argv[1:]])
    print(" ".join("null" if x is None else "%.4f" % x for x in (lo, hi)))
