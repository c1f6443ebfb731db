/* tests/gpu/mock/cuda_bf16.h: BF16 with round-to-nearest-even, on the host. */
#ifndef GT_MOCK_CUDA_BF16_H
#define GT_MOCK_CUDA_BF16_H
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
/* GT_MOCK_EXACT in the environment: no rounding (the stored value is the
 * float), to tell the backend's errors from BF16's. */
struct __nv_bfloat16 {
	uint16_t bits;
	float exact;
	int is_exact;
};
static inline __nv_bfloat16 __float2bfloat16(float f)
{
	static int exact = -1;
	if (exact < 0)
		exact = getenv("GT_MOCK_EXACT") != NULL;
	if (exact) {
		__nv_bfloat16 b;
		b.bits = 0;
		b.exact = f;
		b.is_exact = 1;
		return b;
	}
	uint32_t u;
	memcpy(&u, &f, 4);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		u = 0x7fc00000u; /* NaN */
	else
		u += 0x7fffu + ((u >> 16) & 1);
	__nv_bfloat16 b;
	b.bits = (uint16_t)(u >> 16);
	b.exact = 0;
	b.is_exact = 0;
	return b;
}
static inline float __bfloat162float(__nv_bfloat16 b)
{
	if (b.is_exact)
		return b.exact;
	uint32_t u = (uint32_t)b.bits << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}
#endif
