/* sym.c: the 8 symmetries of the square (see sym.h for the table). */
#include "sym.h"
#include "board.h"

int gt_sym_point(int n, int k, int pt)
{
	int m = n - 1, x, y, u, v;
	if (pt < 0 || pt >= n * n)
		return pt;
	x = pt % n;
	y = pt / n;
	switch (k & 7) {
	case 0: u = x; v = y; break;
	case 1: u = m - y; v = x; break;
	case 2: u = m - x; v = m - y; break;
	case 3: u = y; v = m - x; break;
	case 4: u = y; v = x; break;
	case 5: u = m - x; v = y; break;
	case 6: u = m - y; v = m - x; break;
	default: u = x; v = m - y; break;
	}
	return v * n + u;
}

int gt_sym_inverse(int k)
{
	static const int inv[8] = {0, 3, 2, 1, 4, 5, 6, 7};
	return inv[k & 7];
}

void gt_sym_apply_f(int n, int k, float *dst, const float *src)
{
	for (int p = 0; p < n * n; p++)
		dst[gt_sym_point(n, k, p)] = src[p];
}
