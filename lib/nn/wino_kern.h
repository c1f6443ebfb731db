/* wino_kern.h: the kernels of wino.c (the input and output transforms of a
 * chunk of tiles), included by wino.c once per instruction set with
 * KERN(name) naming its copies (see wino.c). Not a public header. */
/* dst[0..k) = src[0..k) for a short k: inline moves, where memcpy of a
 * variable size would be a call */
static inline void KERN(copy_short)(float *restrict dst, const float *restrict src, int k)
{
	int x = 0;
	for (; x + 8 <= k; x += 8)
		memcpy(dst + x, src + x, sizeof(float) * 8);
	/* no loop for the rest: GCC would make it a call of memmove */
	if (x + 4 <= k) {
		memcpy(dst + x, src + x, sizeof(float) * 4);
		x += 4;
	}
	if (x + 2 <= k) {
		memcpy(dst + x, src + x, sizeof(float) * 2);
		x += 2;
	}
	if (x < k)
		dst[x] = src[x];
}

/* The tiles t0..t0+nt-1 of the batch: V (36 x cin x TILES, xi stride
 * xstride(cin)) */
static void KERN(input_transform)(const gt_wino_conv_args *a, long t0, int nt, float *V, float *pad)
{
	int n = a->n, T1 = (n + 3) / 4, T = T1 * T1, wd = 4 * T1 + 2;
	size_t ps = (size_t)wd * wd;
	int b0 = (int)(t0 / T), b1 = (int)((t0 + nt - 1) / T);
	int off[TILES + W];
	for (int l = 0; l < nt; l++) {
		long t = t0 + l;
		int b = (int)(t / T), r = (int)(t % T), ty = r / T1, tx = r % T1;
		off[l] = (int)((b - b0) * ps) + 4 * ty * wd + 4 * tx;
	}
	/* lanes past the last tile repeat the first (their results are not
	 * used) */
	for (int l = nt; l < TILES + W; l++)
		off[l] = off[0];
	memset(pad, 0, sizeof(float) * ps * (b1 - b0 + 1));
	size_t cs = TILES, xs = xstride(a->cin);
	for (int ci = 0; ci < a->cin; ci++) {
		/* the boards' planes of channel ci inside their zero borders */
		for (int b = b0; b <= b1; b++) {
			const float *src = a->in + (size_t)b * a->in_b + (size_t)ci * a->in_c;
			float *dst = pad + (b - b0) * ps + wd + 1;
			for (int y = 0; y < n; y++)
				KERN(copy_short)(dst + y * wd, src + y * n, n);
		}
		for (int g = 0; g < nt; g += W) {
			/* the vectors are built from scalars in registers: through
			 * memory, their loads would wait for 16 scalar stores each */
			const float *p[W];
			for (int l = 0; l < W; l++)
				p[l] = pad + off[g + l];
			vf x[6], t[6][6], o[6], zero = {0};
			for (int j = 0; j < 6; j++) {
				for (int i = 0; i < 6; i++) {
					int k = i * wd + j;
					x[i] = (vf){p[0][k], p[1][k], p[2][k], p[3][k], p[4][k], p[5][k],
					            p[6][k], p[7][k], p[8][k], p[9][k], p[10][k], p[11][k],
					            p[12][k], p[13][k], p[14][k], p[15][k]};
					if (a->relu) /* relu(0) = 0: the zero border stays */
						x[i] = (vf)((vi)x[i] & (x[i] > zero));
				}
				BT6(x, o);
				for (int i = 0; i < 6; i++)
					t[i][j] = o[i];
			}
			float *v = V + (size_t)ci * cs + g;
			for (int i = 0; i < 6; i++) {
				BT6(t[i], o);
				for (int j = 0; j < 6; j++)
					VSTORE(v + (i * 6 + j) * xs, o[j]);
			}
		}
	}
}

static inline void KERN(transpose16)(vf r[16])
{
	STAGE(8, (0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23),
	      (8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
	STAGE(4, (0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27),
	      (4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31));
	STAGE(2, (0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29),
	      (2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31));
	STAGE(1, (0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30),
	      (1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31));
}

/* Y = A^T M A of the tiles t0..t0+nt-1, M (36 x cout x TILES, xi stride
 * xstride(cout)), plus the bias, into out: computed with a tile per lane,
 * then transposed to a tile per vector (its 4 rows of 4) */
static void KERN(output_transform)(const gt_wino_conv_args *a, long t0, int nt, const float *M)
{
	int n = a->n, T1 = (n + 3) / 4, T = T1 * T1;
	size_t cs = TILES, xs = xstride(a->cout);
	size_t dst0[TILES];
	int rows[TILES], cols[TILES];
	for (int l = 0; l < nt; l++) {
		long t = t0 + l;
		int b = (int)(t / T), r = (int)(t % T), ty = r / T1, tx = r % T1;
		dst0[l] = (size_t)b * a->out_b + (size_t)(4 * ty) * n + 4 * tx;
		rows[l] = n - 4 * ty < 4 ? n - 4 * ty : 4;
		cols[l] = n - 4 * tx < 4 ? n - 4 * tx : 4;
	}
	for (int co = 0; co < a->cout; co++) {
		float bias = a->bias ? a->bias[co] : 0.0f;
		float *out = a->out + (size_t)co * a->out_c;
		for (int g = 0; g < nt; g += W) {
			const float *m = M + (size_t)co * cs + g;
			vf s[4][6], x[6], o[4], y[16];
			for (int j = 0; j < 6; j++) {
				for (int i = 0; i < 6; i++)
					VLOAD(x[i], m + (i * 6 + j) * xs);
				AT4(x, o);
				for (int r = 0; r < 4; r++)
					s[r][j] = o[r];
			}
			for (int r = 0; r < 4; r++) {
				AT4(s[r], o);
				for (int c = 0; c < 4; c++)
					y[r * 4 + c] = o[c] + bias;
			}
			KERN(transpose16)(y);
			int ln = nt - g < W ? nt - g : W;
			for (int l = 0; l < ln; l++) {
				float *dst = out + dst0[g + l];
				int ny = rows[g + l], nx = cols[g + l];
				if (nx == 4) {
					/* the tile's rows as 4-lane vectors (shuffles of
					 * the register, not loads of a copy of it: loads of
					 * part of a wide store stall), added to out's
					 * (the residual) with add */
					v4 q[4] = {QUARTER(y[l], 0), QUARTER(y[l], 1), QUARTER(y[l], 2),
					           QUARTER(y[l], 3)};
					for (int i = 0; i < ny; i++) {
						if (a->add) {
							v4 d;
							memcpy(&d, dst + i * n, sizeof d);
							q[i] += d;
						}
						memcpy(dst + i * n, &q[i], sizeof q[i]);
					}
				} else {
					/* elements of the vector, not of a copy in memory:
					 * loads of part of a wide store stall */
					for (int i = 0; i < ny; i++)
						for (int j = 0; j < nx; j++)
							dst[i * n + j] = (a->add ? dst[i * n + j] : 0.0f) + y[l][4 * i + j];
				}
			}
		}
	}
}

/* the chunk of tiles t0..t0+nt-1: transforms and products */
static void KERN(chunk)(const gt_wino_conv_args *a, long t0, int nt, float *V, float *M, float *pad)
{
	size_t ucs = (size_t)a->cout * a->cin;
	KERN(input_transform)(a, t0, nt, V, pad);
	for (int xi = 0; xi < 36; xi++)
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, a->cout, nt, a->cin,
		            1.0f, a->u + xi * ucs, a->cin,
		            V + xi * xstride(a->cin), TILES, 0.0f, M + xi * xstride(a->cout),
		            TILES);
	KERN(output_transform)(a, t0, nt, M);
}
