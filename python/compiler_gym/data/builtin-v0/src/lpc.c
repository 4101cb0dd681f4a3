/*
 * lpc -- GSM-style linear predictive coding analysis in fixed point.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * A speech-like 16-bit signal (pulse trains and noise through cascaded
 * two-pole resonators whose settings change every segment) is generated
 * in-program by a fixed-seed PRNG. It is pre-emphasised and cut into
 * 160-sample frames; for each frame the autocorrelation, an 8th-order
 * Levinson-Durbin recursion in Q24, quantized reflection coefficients, the
 * step-up to direct-form predictor coefficients and the prediction residual
 * are computed. Synthesis and de-emphasis then rebuild the signal.
 * Usage: lpc [dataset]   where dataset is 1, 2 or 3 (default 1).
 *
 * Self-check: the fixed-point reflection coefficients must agree with a
 * double-precision Levinson-Durbin recursion (to 0.004: nearly singular
 * frames amplify rounding) and lie inside (-1, 1), the synthesis must rebuild
 * the input exactly, and the residual must have far less energy than the
 * signal (prediction gain).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ORDER 8
#define FRAME 160
#define Q 24
#define PREEMPH 28180 /* 0.86 in Q15 */

struct lpc_frame {
  int64_t r[ORDER + 1];  /* autocorrelation */
  int64_t k[ORDER + 1];  /* reflection coefficients, Q24 */
  int32_t kq[ORDER + 1]; /* quantized reflection coefficients, Q6 */
  int32_t a[ORDER + 1];  /* direct-form predictor from kq, Q12 */
};

static uint32_t rng_state = 0x27D4EB2Fu;

static uint32_t xorshift32(void) {
  uint32_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  rng_state = x;
  return x;
}

/* v / 2^s rounded to nearest, halves away from zero (no signed shifts). */
static int64_t rshift_round(int64_t v, int s) {
  int64_t d = (int64_t)1 << s;
  return v >= 0 ? (v + d / 2) / d : -((-v + d / 2) / d);
}

static int16_t sat16(int64_t v) {
  return (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
}

static void generate_signal(int16_t *s, int n) {
  int64_t y1[2] = {0, 0}, y2[2] = {0, 0};
  int pos = 0;
  while (pos < n) {
    int seg = 400 + (int)(xorshift32() % 800u), voiced = xorshift32() % 4u != 0;
    int pitch = 40 + (int)(xorshift32() % 80u);
    int64_t c1[2], c2[2];
    for (int f = 0; f < 2; f++) {
      int64_t r = 14746 + (int64_t)(xorshift32() % 1100u); /* 0.90 .. 0.97 in Q14 */
      c2[f] = -rshift_round(r * r, 14);
      c1[f] = (int64_t)(xorshift32() % (uint32_t)(3 * r)) - 3 * r / 2;
    }
    for (int i = 0; i < seg && pos < n; i++, pos++) {
      int64_t x = (int64_t)(xorshift32() % 61u) - 30;
      if (voiced && pos % pitch == 0) x += 1200;
      if (!voiced) x *= 6;
      for (int f = 0; f < 2; f++) { /* cascaded resonators */
        int64_t y = x + rshift_round(c1[f] * y1[f] + c2[f] * y2[f], 14);
        y2[f] = y1[f];
        y1[f] = y;
        x = y;
      }
      s[pos] = sat16(x / 4);
    }
  }
}

static void autocorrelate(const int32_t *x, struct lpc_frame *f) {
  for (int lag = 0; lag <= ORDER; lag++) {
    int64_t sum = 0;
    for (int n = lag; n < FRAME; n++) sum += (int64_t)x[n] * x[n - lag];
    f->r[lag] = sum;
  }
}

/* Levinson-Durbin on the normalised autocorrelation, all in Q24. */
static int levinson_fixed(struct lpc_frame *f) {
  int64_t rn[ORDER + 1], a[ORDER + 1] = {0}, prev[ORDER + 1];
  int64_t one = (int64_t)1 << Q, err = one;
  if (f->r[0] == 0) {
    for (int i = 0; i <= ORDER; i++) f->k[i] = 0;
    return 1;
  }
  int64_t r[ORDER + 1];
  for (int i = 0; i <= ORDER; i++) r[i] = f->r[i];
  while (r[0] >= ((int64_t)1 << 38)) /* keep r * 2^24 inside 64 bits */
    for (int i = 0; i <= ORDER; i++) r[i] = rshift_round(r[i], 1);
  for (int i = 0; i <= ORDER; i++) rn[i] = r[i] * one / r[0]; /* Q24 */
  for (int i = 1; i <= ORDER; i++) {
    int64_t acc = rn[i];
    for (int j = 1; j < i; j++) acc -= rshift_round(a[j] * rn[i - j], Q);
    if (err <= 0) return 0;
    int64_t k = acc * one / err; /* Q24 */
    if (k >= one || k <= -one) return 0;
    f->k[i] = k;
    for (int j = 0; j <= ORDER; j++) prev[j] = a[j];
    a[i] = k;
    for (int j = 1; j < i; j++) a[j] = prev[j] - rshift_round(k * prev[i - j], Q);
    err = rshift_round(err * (one - rshift_round(k * k, Q)), Q);
  }
  return 1;
}

static void levinson_double(const int64_t *r, double *k) {
  double a[ORDER + 1] = {0}, prev[ORDER + 1], err = (double)r[0];
  for (int i = 1; i <= ORDER; i++) {
    double acc = (double)r[i];
    for (int j = 1; j < i; j++) acc -= a[j] * (double)r[i - j];
    k[i] = acc / err;
    for (int j = 0; j <= ORDER; j++) prev[j] = a[j];
    a[i] = k[i];
    for (int j = 1; j < i; j++) a[j] = prev[j] - k[i] * prev[i - j];
    err *= 1.0 - k[i] * k[i];
  }
}

/* Quantize reflection coefficients to Q6 and step up to direct form (Q12). */
static void quantize_and_step_up(struct lpc_frame *f) {
  int32_t prev[ORDER + 1];
  for (int i = 0; i <= ORDER; i++) f->a[i] = 0;
  for (int i = 1; i <= ORDER; i++) {
    int64_t q = rshift_round(f->k[i], Q - 6);
    f->kq[i] = (int32_t)(q > 63 ? 63 : q < -63 ? -63 : q);
    for (int j = 0; j <= ORDER; j++) prev[j] = f->a[j];
    f->a[i] = f->kq[i] * 64;
    for (int j = 1; j < i; j++)
      f->a[j] = prev[j] - (int32_t)rshift_round((int64_t)f->kq[i] * prev[i - j], 6);
  }
}

static int64_t predict(const struct lpc_frame *f, const int32_t *x) {
  int64_t sum = 0;
  for (int j = 1; j <= ORDER; j++) sum += (int64_t)f->a[j] * x[-j];
  return rshift_round(sum, 12);
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "lpc: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const int nframes_tab[3] = {160, 1000, 7000};
  int nframes = nframes_tab[dataset - 1], n = nframes * FRAME;
  int16_t *s = malloc((size_t)n * sizeof *s), *rebuilt = malloc((size_t)n * sizeof *s);
  /* ORDER samples of zero history in front of each buffer. */
  int32_t *x = calloc((size_t)(n + ORDER), sizeof *x), *res = malloc((size_t)n * sizeof *res);
  int32_t *y = calloc((size_t)(n + ORDER), sizeof *y);
  if (!s || !rebuilt || !x || !res || !y) {
    fprintf(stderr, "lpc: out of memory\n");
    return 1;
  }
  generate_signal(s, n);
  for (int i = 0; i < n; i++) /* pre-emphasis */
    x[ORDER + i] = s[i] - (int32_t)rshift_round((int64_t)PREEMPH * (i ? s[i - 1] : 0), 15);

  uint64_t acc = 0xCBF29CE484222325u, e_sig = 0, e_res = 0;
  for (int fr = 0; fr < nframes; fr++) {
    struct lpc_frame f;
    int32_t *xf = x + ORDER + fr * FRAME;
    double kd[ORDER + 1];
    autocorrelate(xf, &f);
    int ok = levinson_fixed(&f);
    levinson_double(f.r, kd);
    for (int i = 1; i <= ORDER && ok && f.r[0]; i++) {
      double diff = (double)f.k[i] / (double)(1 << Q) - kd[i];
      if (diff > 4e-3 || diff < -4e-3) ok = 0;
    }
    if (!ok) {
      fprintf(stderr, "lpc: Levinson-Durbin check failed in frame %d\n", fr);
      return 1;
    }
    quantize_and_step_up(&f);
    for (int i = 0; i < FRAME; i++) {
      int32_t e = xf[i] - (int32_t)predict(&f, xf + i);
      res[fr * FRAME + i] = e;
      e_sig += (uint64_t)((int64_t)xf[i] * xf[i]);
      e_res += (uint64_t)((int64_t)e * e);
      acc = (acc ^ (uint32_t)e) * 0x100000001B3u;
    }
    for (int i = 1; i <= ORDER; i++) acc = (acc ^ (uint32_t)f.kq[i]) * 0x100000001B3u;
    /* Synthesis from the residual, using the rebuilt history. */
    int32_t *yf = y + ORDER + fr * FRAME;
    for (int i = 0; i < FRAME; i++) yf[i] = res[fr * FRAME + i] + (int32_t)predict(&f, yf + i);
  }
  for (int i = 0; i < n; i++) { /* de-emphasis */
    int64_t prev = i ? rebuilt[i - 1] : 0;
    rebuilt[i] = sat16(y[ORDER + i] + rshift_round((int64_t)PREEMPH * prev, 15));
    if (rebuilt[i] != s[i]) {
      fprintf(stderr, "lpc: synthesis does not rebuild the input at %d\n", i);
      return 1;
    }
  }
  if (e_res * 8 > e_sig) {
    fprintf(stderr, "lpc: prediction gain too small\n");
    return 1;
  }
  acc ^= e_res;
  printf("checksum: %016" PRIx64 "\n", acc);
  free(y), free(res), free(x), free(rebuilt), free(s);
  return 0;
}
