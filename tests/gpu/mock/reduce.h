/* tests/gpu/mock/reduce.h: sequential k_rowdot and k_pool with the
 * contracts of lib/nn/cuda/nn_cuda.cu (whose versions use warp shuffles and
 * shared memory). One launch covers the whole grid, so only the first
 * (block 0, thread 0) call of a launch does the work... except k_rowdot,
 * which is one block per row: its thread 0 of each block does its row. */
__global__ void k_pool(const float *in, int H, int B, int n, float *out, int mode)
{
	if (blockIdx.x || threadIdx.x)
		return;
	size_t N = (size_t)n * n, BN = B * N;
	for (int h = 0; h < H; h++)
		for (int b = 0; b < B; b++) {
			float s = 0;
			for (size_t p = 0; p < N; p++)
				s += in[h * BN + b * N + p];
			if (mode == 0) {
				float m = s / (float)N;
				out[(size_t)b * 2 * H + h] = m;
				out[(size_t)b * 2 * H + H + h] = m * (float)(n - 14) / 10.0f;
			} else
				out[(size_t)h * B + b] = s;
		}
}

__global__ void k_rowdot(const float *A, const float *v, int vrow, size_t cols, size_t ld,
                         const float *scale, int acc, float *out)
{
	if (threadIdx.x)
		return;
	size_t r = blockIdx.x;
	const float *a = A + r * ld, *b = v ? v + (vrow ? r * ld : 0) : NULL;
	float t = 0;
	for (size_t i = 0; i < cols; i++)
		t += b ? a[i] * b[i] : a[i];
	if (scale)
		t *= scale[0];
	out[r] = acc ? out[r] + t : t;
}
