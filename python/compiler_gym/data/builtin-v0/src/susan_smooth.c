/*
 * susan_smooth -- SUSAN-style structure-preserving image smoothing.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * A greyscale test image (gradient background, rectangles and discs) is
 * generated in-program and corrupted with uniform noise from a fixed-seed
 * PRNG. Each pixel is replaced by a weighted mean of its 7x7 neighbourhood,
 * where a neighbour's weight is the product of a Gaussian in distance and a
 * Gaussian in brightness difference, so that edges are not blurred. If no
 * neighbour has a similar brightness, the 3x3 median is used instead.
 * All weights are fixed-point integers (no libm); results are exact.
 * Usage: susan_smooth [dataset]   where dataset is 1, 2 or 3 (default 1).
 *
 * Self-check: every output pixel must match a slow direct implementation
 * (sampled rows), and the smoothed image must be closer to the noise-free
 * image than the noisy input was.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define RADIUS 3
#define THRESH 20
#define ONE_Q16 65536

struct image {
  int w, h;
  uint8_t *px;
};

struct smooth_luts {
  uint32_t bright[256];                        /* weight by |difference| */
  uint32_t spatial[2 * RADIUS + 1][2 * RADIUS + 1];
};

static uint32_t rng_state = 0x1B873593u;

static uint32_t xorshift32(void) {
  uint32_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  rng_state = x;
  return x;
}

/* exp(-x) for x >= 0, both in Q16 fixed point. */
static int64_t exp_neg_q16(int64_t x) {
  int64_t whole = x >> 16, frac = x & 0xFFFF;
  if (whole >= 16) return 0;
  int64_t r = ONE_Q16;
  for (int64_t i = 0; i < whole; i++) r = (r * 24109 + 32768) >> 16; /* e^-1 */
  int64_t term = ONE_Q16, sum = ONE_Q16;
  for (int k = 1; k <= 8; k++) {
    term = -term * frac / ((int64_t)k * ONE_Q16);
    sum += term;
  }
  return (r * sum + 32768) >> 16;
}

static uint32_t weight100(int64_t x_q16) {
  return (uint32_t)((exp_neg_q16(x_q16) * 100 + 32768) >> 16);
}

static uint32_t bright_weight(int d) {
  return weight100((int64_t)d * d * ONE_Q16 / (THRESH * THRESH));
}

static uint32_t spatial_weight(int dx, int dy) {
  /* sigma = 2 pixels: exp(-(dx^2 + dy^2) / 8) */
  return weight100((int64_t)(dx * dx + dy * dy) * ONE_Q16 / 8);
}

static void build_luts(struct smooth_luts *l) {
  for (int d = 0; d < 256; d++) l->bright[d] = bright_weight(d);
  for (int dy = -RADIUS; dy <= RADIUS; dy++)
    for (int dx = -RADIUS; dx <= RADIUS; dx++)
      l->spatial[dy + RADIUS][dx + RADIUS] = spatial_weight(dx, dy);
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static uint8_t pixel_clamped(const struct image *im, int x, int y) {
  return im->px[clampi(y, 0, im->h - 1) * im->w + clampi(x, 0, im->w - 1)];
}

static void generate(struct image *clean, struct image *noisy, int nshapes) {
  int w = clean->w, h = clean->h;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) clean->px[y * w + x] = (uint8_t)(40 + (x + 2 * y) * 60 / (w + 2 * h));
  for (int s = 0; s < nshapes; s++) {
    int cx = (int)(xorshift32() % (uint32_t)w), cy = (int)(xorshift32() % (uint32_t)h);
    int r = 3 + (int)(xorshift32() % (uint32_t)(w / 6 + 1));
    uint8_t level = (uint8_t)(20 + xorshift32() % 216u);
    int disc = s % 2;
    for (int y = cy - r; y <= cy + r; y++) {
      for (int x = cx - r; x <= cx + r; x++) {
        if (x < 0 || y < 0 || x >= w || y >= h) continue;
        if (disc && (x - cx) * (x - cx) + (y - cy) * (y - cy) > r * r) continue;
        clean->px[y * w + x] = level;
      }
    }
  }
  for (int i = 0; i < w * h; i++) {
    int v = clean->px[i] + (int)(xorshift32() % 25u) - 12;
    noisy->px[i] = (uint8_t)clampi(v, 0, 255);
  }
}

static uint8_t median9(uint8_t v[9]) {
  for (int i = 1; i < 9; i++) {
    uint8_t t = v[i];
    int j = i;
    while (j > 0 && v[j - 1] > t) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = t;
  }
  return v[4];
}

static uint8_t median_at(const struct image *in, int x, int y) {
  uint8_t v[9];
  int k = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) v[k++] = pixel_clamped(in, x + dx, y + dy);
  return median9(v);
}

/* Fast version: lookup tables, direct addressing away from the border. */
static void susan_smooth(const struct smooth_luts *l, const struct image *in,
                         struct image *out) {
  int w = in->w, h = in->h;
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      int inside = x >= RADIUS && y >= RADIUS && x < w - RADIUS && y < h - RADIUS;
      int c = in->px[y * w + x];
      uint32_t total = 0, acc = 0;
      for (int dy = -RADIUS; dy <= RADIUS; dy++) {
        const uint32_t *sp = l->spatial[dy + RADIUS] + RADIUS;
        const uint8_t *row = inside ? in->px + (y + dy) * w + x : NULL;
        for (int dx = -RADIUS; dx <= RADIUS; dx++) {
          if (dx == 0 && dy == 0) continue;
          int v = row ? row[dx] : pixel_clamped(in, x + dx, y + dy);
          int d = v > c ? v - c : c - v;
          uint32_t wgt = sp[dx] * l->bright[d];
          total += wgt;
          acc += wgt * (uint32_t)v;
        }
      }
      out->px[y * w + x] =
          total ? (uint8_t)((acc + total / 2) / total) : median_at(in, x, y);
    }
  }
}

/* Slow reference for one pixel: weights recomputed, 64-bit sums. */
static uint8_t smooth_pixel_ref(const struct image *in, int x, int y) {
  int c = pixel_clamped(in, x, y);
  uint64_t total = 0, acc = 0;
  for (int dy = -RADIUS; dy <= RADIUS; dy++) {
    for (int dx = -RADIUS; dx <= RADIUS; dx++) {
      if (dx == 0 && dy == 0) continue;
      int v = pixel_clamped(in, x + dx, y + dy);
      uint64_t wgt = (uint64_t)spatial_weight(dx, dy) * bright_weight(abs(v - c));
      total += wgt;
      acc += wgt * (uint64_t)v;
    }
  }
  if (total == 0) return median_at(in, x, y);
  return (uint8_t)((acc + total / 2) / total);
}

static uint64_t abs_error(const struct image *a, const struct image *b) {
  uint64_t e = 0;
  for (int i = 0; i < a->w * a->h; i++) e += (uint64_t)abs(a->px[i] - b->px[i]);
  return e;
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "susan_smooth: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const int dims[3][2] = {{64, 48}, {160, 120}, {400, 320}};
  int w = dims[dataset - 1][0], h = dims[dataset - 1][1];
  struct image clean = {w, h, malloc((size_t)w * h)};
  struct image noisy = {w, h, malloc((size_t)w * h)};
  struct image out = {w, h, malloc((size_t)w * h)};
  struct image out2 = {w, h, malloc((size_t)w * h)};
  struct smooth_luts *luts = malloc(sizeof *luts);
  if (!clean.px || !noisy.px || !out.px || !out2.px || !luts) {
    fprintf(stderr, "susan_smooth: out of memory\n");
    return 1;
  }
  build_luts(luts);
  if (luts->bright[0] != 100 || luts->spatial[RADIUS][RADIUS] != 100 ||
      luts->bright[THRESH] != 37 || luts->bright[255] != 0) {
    fprintf(stderr, "susan_smooth: weight table is wrong\n");
    return 1;
  }
  generate(&clean, &noisy, 6 + w / 16);
  susan_smooth(luts, &noisy, &out);
  /* A second pass on the result is smoother still. */
  susan_smooth(luts, &out, &out2);

  for (int y = 0; y < h; y += 3) {
    for (int x = 0; x < w; x++) {
      if (out.px[y * w + x] != smooth_pixel_ref(&noisy, x, y)) {
        fprintf(stderr, "susan_smooth: mismatch at (%d, %d)\n", x, y);
        return 1;
      }
    }
  }
  uint64_t e_noisy = abs_error(&noisy, &clean), e_out = abs_error(&out, &clean);
  uint64_t e_out2 = abs_error(&out2, &clean);
  if (e_out * 10 >= e_noisy * 7 || e_out2 > e_out) {
    fprintf(stderr, "susan_smooth: smoothing did not reduce noise\n");
    return 1;
  }
  uint64_t acc = 0xCBF29CE484222325u;
  for (int i = 0; i < w * h; i++) acc = (acc ^ (uint32_t)(out.px[i] << 8 | out2.px[i])) * 0x100000001B3u;
  printf("checksum: %016" PRIx64 "\n", acc ^ e_out);
  free(luts);
  free(out2.px);
  free(out.px);
  free(noisy.px);
  free(clean.px);
  return 0;
}
