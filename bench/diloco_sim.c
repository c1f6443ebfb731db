/*
 * diloco_sim: goodput of synchronous data-parallel training against M
 * Decoupled DiLoCo learning units under chip failures (a Monte-Carlo
 * simulation), the bytes a unit sends per training sample for each codec
 * of lib/delta against data-parallel gradient all-reduce, and the speed
 * of the codecs against memcpy.
 *
 * Failure model. Every chip is interrupted as a Poisson process with mean
 * time between interruptions MTBI; the failed chip is replaced by a spare
 * and the job it belongs to restarts. A job (the one data-parallel job, or
 * one learning unit) is gang-scheduled: a failure of any of its c chips
 * stops all c, and it runs again after a recovery time R in which none of
 * its chips fails (a failure during recovery starts recovery over). The
 * chips of a stopped job are allocated and idle. Data-parallel training
 * is one job of all N chips; M units are M independent jobs of N/M chips
 * each (a unit's failure stops nobody else, as in Decoupled DiLoCo, arXiv
 * 2604.21428). Goodput = useful chip-time / allocated chip-time. For one
 * job with failure rate L = c/MTBI the expected goodput is exp(-L R)
 * (mean up time 1/L, mean recovery (exp(L R) - 1)/L), printed as a check.
 *
 * Parameters: MTBI 2111 days per chip, from Llama 3's 419 unexpected
 * interruptions in 54 days on 16,384 GPUs (Dubey et al. 2024, sec. 3.3.4);
 * R = 200 s (detect, reschedule, reload state from a peer or in-memory
 * checkpoint). No work is lost beyond the stop (state is checkpointed in
 * memory every step); a lost step adds the same small loss to both.
 *
 * With one R for every job size the model gives data-parallel 27% at
 * 1.2M chips and 8 units 85%: exp(-x) against exp(-x/8). A second table
 * lets the restart grow with the job, R(c) = 150 s + 42 us x c (bringing
 * up c chips and their collectives: 200 s at 1.2M chips, 156 s for a
 * 150k-chip unit); that gives 27% against 88%.
 */
#include "bench.h"
#include "delta.h"
#include "util.h"
#include "rng.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MTBI_DAYS 2111.0
#define RECOVERY_S 200.0
#define CYCLES 20000.0   /* expected failures simulated per job */

static uint64_t rng_s = 0x243f6a8885a308d3ull;

static double unif(void) /* (0, 1] */
{
	return ((double)(gt_splitmix64(&rng_s) >> 11) + 1) / 9007199254740992.0;
}

static double expo(double rate)
{
	return -log(unif()) / rate;
}

/* Up time of one job with failure rate lam over [0, T]. */
static double job_up(double lam, double r, double T)
{
	double t = 0, up = 0;
	for (;;) {
		double f = expo(lam);
		if (t + f >= T)
			return up + (T - t);
		up += f;
		t += f;
		for (;;) { /* recovery: R without a failure */
			double g = expo(lam);
			if (g >= r) {
				t += r;
				break;
			}
			t += g;
			if (t >= T)
				return up;
		}
		if (t >= T)
			return up;
	}
}

/* Recovery time of a job of c chips: fixed, or growing with c. */
static double recovery(double c, int scaled)
{
	return scaled ? 150 + 42e-6 * c : RECOVERY_S;
}

/* Goodput of m jobs of n/m chips each. */
static double goodput(double n, int m, int scaled)
{
	double c = n / m, lam = c / (MTBI_DAYS * 86400), T = CYCLES / lam, up = 0;
	for (int i = 0; i < m; i++)
		up += job_up(lam, recovery(c, scaled), T);
	return up / (m * T);
}

static void failures(int scaled)
{
	static const double chips[] = { 1e3, 4e3, 16e3, 64e3, 150e3, 300e3, 600e3, 1.2e6, 2.4e6 };
	static const int ms[] = { 1, 2, 4, 8, 16 };
	if (scaled)
		printf("the same with recovery R(c) = 150 s + 42 us x chips of the job\n");
	else
		printf("goodput (useful / allocated chip-time), chip MTBI %.0f days, recovery %.0f s,\n"
			"%.0f failures per job simulated; 'exp' = exp(-c R(c) / MTBI), c chips per job\n",
			MTBI_DAYS, RECOVERY_S, CYCLES);
	printf("%9s %10s %7s %7s %7s %7s %7s %7s %7s %7s\n", "chips", "job MTBI", "DP", "M=1",
		"M=2", "M=4", "M=8", "M=16", "DP exp", "M=8 exp");
	for (size_t i = 0; i < sizeof chips / sizeof *chips; i++) {
		double n = chips[i], day = MTBI_DAYS * 86400;
		printf("%9.0f %9.0fs %6.1f%%", n, day / n, 100 * goodput(n, 1, scaled));
		for (size_t j = 0; j < sizeof ms / sizeof *ms; j++)
			printf(" %6.1f%%", 100 * goodput(n, ms[j], scaled));
		printf(" %6.1f%% %6.1f%%\n", 100 * exp(-n * recovery(n, scaled) / day),
			100 * exp(-n / 8 * recovery(n / 8, scaled) / day));
	}
	printf("(DP and M=1 are the same job; they differ only by simulation noise)\n\n");
}

/* Bytes per training sample: a unit sends one packed delta (header,
 * payload, sha256) per H inner steps of batch B; synchronous data-parallel
 * all-reduces fp32 gradients every step, 2 x P x 4 bytes per worker per
 * step (ring all-reduce: reduce-scatter then all-gather). */
static void bandwidth(void)
{
	const uint64_t P = 500000; /* about a b6c64 network */
	const int B = 256, H_DEF = 500;
	static const int hs[] = { 1, 10, 30, 100, 500, 1000 };
	double dp = 2.0 * P * 4 / B;
	printf("bytes sent per training sample, P = %llu parameters (about b6c64), batch B = %d\n"
		"data-parallel: 2 x P x 4 bytes per step = %.0f bytes per sample\n",
		(unsigned long long)P, B, dp);
	printf("%6s %6s %12s %12s %10s %16s\n", "H", "codec", "delta bytes", "bytes/sample",
		"DP ratio", "ratio with pull");
	for (size_t i = 0; i < sizeof hs / sizeof *hs; i++)
		for (int c = 0; c < GT_DELTA_NCODECS; c++) {
			gt_delta_hdr h = { .codec = c, .sum = GT_DELTA_SHA256, .nparams = P };
			double bytes = (double)gt_delta_packed_bytes(&h);
			double per = bytes / ((double)hs[i] * B);
			double pull = (bytes + 4.0 * P) / ((double)hs[i] * B);
			printf("%6d %6s %12.0f %12.2f %9.1fx %15.1fx%s\n", hs[i], gt_delta_codec_name(c),
				bytes, per, dp / per, dp / pull,
				hs[i] == H_DEF && c == GT_DELTA_DEFAULT_CODEC ? "  <- defaults" : "");
		}
	printf("('with pull' adds the unit's download of fp32 theta each round)\n\n");
}

/* Codec speed on 4M values (16 MB), best of 3, against memcpy. */
static void speed(void)
{
	enum { N = 1 << 22 };
	float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
	uint8_t *buf = malloc(4 * (size_t)N);
	double tm = 1e9;
	if (!x || !y || !buf)
		return;
	for (size_t i = 0; i < N; i++)
		x[i] = (float)(unif() - 0.5) * 1e-3f;
	for (int r = 0; r < 3; r++) {
		double t = gt_now();
		memcpy(y, x, N * sizeof *x);
		tm = fmin(tm, gt_now() - t);
	}
	printf("codec speed on %d values (%.0f MB fp32), best of 3; memcpy %.0f MB/s\n", N,
		N * 4 / 1e6, N * 4 / 1e6 / tm);
	printf("%6s %12s %12s %10s %10s\n", "codec", "encode MB/s", "decode MB/s", "enc/memcpy",
		"dec/memcpy");
	for (int c = 0; c < GT_DELTA_NCODECS; c++) {
		double te = 1e9, td = 1e9;
		size_t len = gt_delta_payload_bytes(c, N);
		for (int r = 0; r < 3; r++) {
			double t = gt_now();
			gt_delta_encode(c, x, N, buf, 4 * (size_t)N, NULL);
			te = fmin(te, gt_now() - t);
			t = gt_now();
			gt_delta_decode(c, buf, len, N, y, NULL);
			td = fmin(td, gt_now() - t);
		}
		printf("%6s %12.0f %12.0f %9.3fx %9.3fx\n", gt_delta_codec_name(c), N * 4 / 1e6 / te,
			N * 4 / 1e6 / td, tm / te, tm / td);
	}
	free(x);
	free(y);
	free(buf);
}

int main(void)
{
	double t = gt_now();
	failures(0);
	failures(1);
	bandwidth();
	speed();
	printf("(%.1f s)\n", gt_now() - t);
	return 0;
}
