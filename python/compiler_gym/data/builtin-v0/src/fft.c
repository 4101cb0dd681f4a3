/*
 * fft -- iterative radix-2 complex Fast Fourier Transform.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * Signals are generated in-program by a fixed-seed PRNG. The FFT is used for
 * a forward/inverse round trip, a Parseval energy check, single-bin DFT
 * comparisons and exact multiplication of large integer polynomials.
 * Usage: fft [dataset]   where dataset is 1, 2 or 3 (default 1).
 * Link with -lm.
 *
 * Self-check: round-trip error and Parseval error must be below tolerances,
 * sampled bins must match a direct DFT, and sampled coefficients of the
 * FFT-based polynomial product must match direct convolution exactly. The
 * printed checksum only depends on exact integer results, so it does not
 * vary with floating-point rounding details.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct cpx {
  double re, im;
};

struct fft_plan {
  size_t n;
  unsigned log2n;
  struct cpx *twiddle; /* n/2 roots of unity */
  size_t *rev;         /* bit-reversal permutation */
};

static uint32_t rng = 0xDEADBEEFu;

static uint32_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

static int plan_init(struct fft_plan *p, size_t n) {
  const double pi = 3.14159265358979323846;
  p->n = n;
  p->log2n = 0;
  while (((size_t)1 << p->log2n) < n) p->log2n++;
  p->twiddle = malloc((n / 2) * sizeof *p->twiddle);
  p->rev = malloc(n * sizeof *p->rev);
  if (!p->twiddle || !p->rev) return 0;
  for (size_t k = 0; k < n / 2; k++) {
    double ang = -2.0 * pi * (double)k / (double)n;
    p->twiddle[k].re = cos(ang);
    p->twiddle[k].im = sin(ang);
  }
  for (size_t i = 0; i < n; i++) {
    size_t r = 0;
    for (unsigned b = 0; b < p->log2n; b++)
      if (i & ((size_t)1 << b)) r |= (size_t)1 << (p->log2n - 1 - b);
    p->rev[i] = r;
  }
  return 1;
}

static void plan_free(struct fft_plan *p) {
  free(p->twiddle);
  free(p->rev);
}

static void fft(const struct fft_plan *p, struct cpx *a, int inverse) {
  size_t n = p->n;
  for (size_t i = 0; i < n; i++) {
    size_t j = p->rev[i];
    if (i < j) {
      struct cpx t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    size_t half = len / 2, stride = n / len;
    for (size_t start = 0; start < n; start += len) {
      for (size_t k = 0; k < half; k++) {
        struct cpx w = p->twiddle[k * stride];
        if (inverse) w.im = -w.im;
        struct cpx u = a[start + k], v = a[start + k + half];
        struct cpx t = {v.re * w.re - v.im * w.im, v.re * w.im + v.im * w.re};
        a[start + k].re = u.re + t.re;
        a[start + k].im = u.im + t.im;
        a[start + k + half].re = u.re - t.re;
        a[start + k + half].im = u.im - t.im;
      }
    }
  }
  if (inverse) {
    for (size_t i = 0; i < n; i++) {
      a[i].re /= (double)n;
      a[i].im /= (double)n;
    }
  }
}

/* Direct evaluation of one DFT bin, O(n). */
static struct cpx dft_bin(const struct cpx *x, size_t n, size_t k) {
  const double pi = 3.14159265358979323846;
  struct cpx s = {0.0, 0.0};
  for (size_t t = 0; t < n; t++) {
    double ang = -2.0 * pi * (double)((k * t) % n) / (double)n;
    double c = cos(ang), sn = sin(ang);
    s.re += x[t].re * c - x[t].im * sn;
    s.im += x[t].re * sn + x[t].im * c;
  }
  return s;
}

static int check_transform(const struct fft_plan *p, struct cpx *x, struct cpx *y) {
  size_t n = p->n;
  double energy_t = 0.0;
  for (size_t i = 0; i < n; i++) {
    x[i].re = (double)(rnd() % 2001u) / 1000.0 - 1.0;
    x[i].im = (double)(rnd() % 2001u) / 1000.0 - 1.0;
    y[i] = x[i];
    energy_t += x[i].re * x[i].re + x[i].im * x[i].im;
  }
  fft(p, y, 0);
  double energy_f = 0.0;
  for (size_t i = 0; i < n; i++) energy_f += y[i].re * y[i].re + y[i].im * y[i].im;
  if (fabs(energy_f / (double)n - energy_t) > 1e-9 * energy_t) return 0;
  for (size_t k = 1; k < n; k += n / 4 + 1) {
    struct cpx d = dft_bin(x, n, k);
    if (fabs(d.re - y[k].re) > 1e-7 || fabs(d.im - y[k].im) > 1e-7) return 0;
  }
  fft(p, y, 1);
  for (size_t i = 0; i < n; i++)
    if (fabs(y[i].re - x[i].re) > 1e-9 || fabs(y[i].im - x[i].im) > 1e-9) return 0;
  return 1;
}

/* Multiply two polynomials with integer coefficients < 1000 via the FFT.
 * a and b both have length n/2; the product is stored in prod[0..n-2]. */
static int poly_multiply(const struct fft_plan *p, const uint32_t *a, const uint32_t *b,
                         uint64_t *prod, struct cpx *fa, struct cpx *fb) {
  size_t n = p->n, m = n / 2;
  for (size_t i = 0; i < n; i++) {
    fa[i].re = i < m ? (double)a[i] : 0.0;
    fb[i].re = i < m ? (double)b[i] : 0.0;
    fa[i].im = fb[i].im = 0.0;
  }
  fft(p, fa, 0);
  fft(p, fb, 0);
  for (size_t i = 0; i < n; i++) {
    struct cpx t = {fa[i].re * fb[i].re - fa[i].im * fb[i].im,
                    fa[i].re * fb[i].im + fa[i].im * fb[i].re};
    fa[i] = t;
  }
  fft(p, fa, 1);
  for (size_t i = 0; i + 1 < n; i++) {
    double r = floor(fa[i].re + 0.5);
    if (fabs(fa[i].re - r) > 0.25 || r < 0.0) return 0;
    prod[i] = (uint64_t)r;
  }
  return 1;
}

static uint64_t direct_coeff(const uint32_t *a, const uint32_t *b, size_t m, size_t k) {
  uint64_t s = 0;
  size_t lo = k >= m ? k - m + 1 : 0;
  for (size_t i = lo; i <= k && i < m; i++) s += (uint64_t)a[i] * b[k - i];
  return s;
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "fft: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const size_t sizes[3] = {2048, 16384, 65536};
  size_t n = sizes[dataset - 1], m = n / 2;
  struct fft_plan plan;
  struct cpx *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  uint32_t *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b);
  uint64_t *prod = malloc(n * sizeof *prod);
  if (!x || !y || !a || !b || !prod || !plan_init(&plan, n)) {
    fprintf(stderr, "fft: out of memory\n");
    return 1;
  }
  if (!check_transform(&plan, x, y)) {
    fprintf(stderr, "fft: transform self-check failed\n");
    return 1;
  }
  uint64_t check = 0;
  int ok = 1;
  for (int round = 0; round < 3 && ok; round++) {
    for (size_t i = 0; i < m; i++) {
      a[i] = rnd() % 1000u;
      b[i] = round == 2 ? 999u : rnd() % 1000u;
    }
    ok = poly_multiply(&plan, a, b, prod, x, y);
    for (size_t k = 0; ok && k + 1 < n; k += 1 + rnd() % 257u)
      if (direct_coeff(a, b, m, k) != prod[k]) ok = 0;
    for (size_t k = 0; ok && k + 1 < n; k++) check = check * 0x100000001B3u ^ prod[k];
  }
  if (!ok) {
    fprintf(stderr, "fft: polynomial product self-check failed\n");
    return 1;
  }
  printf("checksum: %016" PRIx64 "\n", check);
  plan_free(&plan);
  free(x);
  free(y);
  free(a);
  free(b);
  free(prod);
  return 0;
}
