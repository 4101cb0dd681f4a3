/*
 * dct -- JPEG-like 8x8 fixed-point DCT, quantization and inverse DCT.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * A greyscale image (gradients, soft blobs, stripes and noise) is generated
 * in-program by a fixed-seed PRNG, cut into 8x8 blocks, level-shifted,
 * transformed with a separable Q15 fixed-point DCT-II, quantized with tables
 * at several quality settings, zig-zag scanned, dequantized and transformed
 * back. Usage: dct [dataset]   where dataset is 1, 2 or 3 (default 1).
 *
 * Self-check: with unit quantizers the round trip must be within 1 grey
 * level; the separable transform must agree (to 1) with a direct 2-D
 * transform; the DC term must equal the block mean; and, since the DCT is
 * orthonormal, the pixel-domain squared error must match the coefficient-
 * domain quantization error up to a small rounding allowance.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct codec {
  int32_t basis[8][8]; /* basis[u][x] = C(u)/2 * cos((2x+1)u pi/16), Q15 */
  int32_t quant[8][8];
  int zigzag[64];      /* zig-zag position -> row-major index */
};

struct stats {
  uint64_t sse_pix, sse_coef;
  uint32_t nonzero, max_err;
};

static uint32_t rng_state = 0xC2B2AE35u;

static uint32_t xorshift32(void) {
  uint32_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  rng_state = x;
  return x;
}

/* Round v / 2^s to nearest, halves away from zero (no signed shifts). */
static int32_t round_shift(int64_t v, int s) {
  int64_t half = (int64_t)1 << (s - 1);
  return (int32_t)(v >= 0 ? (v + half) / ((int64_t)1 << s) : -((-v + half) / ((int64_t)1 << s)));
}

static int32_t round_div(int32_t v, int32_t d) {
  return v >= 0 ? (v + d / 2) / d : -((-v + d / 2) / d);
}

static void codec_init(struct codec *c) {
  /* cos(k pi / 16) in Q15 for k = 0..8 */
  static const int32_t cosq[9] = {32768, 32138, 30274, 27246, 23170, 18205, 12540, 6393, 0};
  for (int u = 0; u < 8; u++)
    for (int x = 0; x < 8; x++) {
      int m = ((2 * x + 1) * u) % 32, sign = 1;
      if (m > 16) m = 32 - m;
      if (m > 8) {
        m = 16 - m;
        sign = -1;
      }
      int32_t mag = u == 0 ? cosq[4] : cosq[m];
      c->basis[u][x] = sign * ((mag + 1) / 2);
    }
  int k = 0;
  for (int s = 0; s < 15; s++) /* walk the anti-diagonals, alternating */
    for (int i = 0; i <= s; i++) {
      int r = s % 2 ? i : s - i, col = s - r;
      if (r < 8 && col < 8) c->zigzag[k++] = r * 8 + col;
    }
}

static void set_quality(struct codec *c, int scale) {
  for (int u = 0; u < 8; u++)
    for (int v = 0; v < 8; v++) {
      int32_t base = 6 + 3 * (u + v) + u * v / 2 + (u > 4 || v > 4 ? 8 : 0);
      int32_t q = base * scale / 16;
      c->quant[u][v] = q < 1 ? 1 : q;
    }
}

/* Separable forward DCT: rows keep 3 extra fraction bits. */
static void fdct(const struct codec *c, const int32_t in[64], int32_t out[64]) {
  int32_t tmp[64];
  for (int y = 0; y < 8; y++)
    for (int u = 0; u < 8; u++) {
      int64_t s = 0;
      for (int x = 0; x < 8; x++) s += (int64_t)c->basis[u][x] * in[y * 8 + x];
      tmp[y * 8 + u] = round_shift(s, 12);
    }
  for (int u = 0; u < 8; u++)
    for (int v = 0; v < 8; v++) {
      int64_t s = 0;
      for (int y = 0; y < 8; y++) s += (int64_t)c->basis[v][y] * tmp[y * 8 + u];
      out[v * 8 + u] = round_shift(s, 18);
    }
}

static void idct(const struct codec *c, const int32_t in[64], int32_t out[64]) {
  int32_t tmp[64];
  for (int v = 0; v < 8; v++)
    for (int x = 0; x < 8; x++) {
      int64_t s = 0;
      for (int u = 0; u < 8; u++) s += (int64_t)c->basis[u][x] * in[v * 8 + u];
      tmp[v * 8 + x] = round_shift(s, 12);
    }
  for (int y = 0; y < 8; y++)
    for (int x = 0; x < 8; x++) {
      int64_t s = 0;
      for (int v = 0; v < 8; v++) s += (int64_t)c->basis[v][y] * tmp[v * 8 + x];
      out[y * 8 + x] = round_shift(s, 18);
    }
}

/* Direct 2-D forward DCT of one coefficient with a single rounding. */
static int32_t fdct_direct(const struct codec *c, const int32_t in[64], int v, int u) {
  int64_t s = 0;
  for (int y = 0; y < 8; y++)
    for (int x = 0; x < 8; x++)
      s += (int64_t)c->basis[v][y] * c->basis[u][x] * in[y * 8 + x];
  return round_shift(s, 30);
}

static void generate(uint8_t *img, int w, int h) {
  int bx[6], by[6], amp[6];
  for (int k = 0; k < 6; k++) {
    bx[k] = (int)(xorshift32() % (uint32_t)w);
    by[k] = (int)(xorshift32() % (uint32_t)h);
    amp[k] = (int)(xorshift32() % 121u) - 60;
  }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int v = 60 + 100 * x / w + 40 * y / h;
      for (int k = 0; k < 6; k++) {
        int d2 = (x - bx[k]) * (x - bx[k]) + (y - by[k]) * (y - by[k]);
        v += amp[k] * 400 / (400 + d2);
      }
      if ((x / 32 + y / 32) % 3 == 0) v += (x + y) % 6 < 3 ? 25 : -25; /* stripes */
      v += (int)(xorshift32() % 9u) - 4;
      img[y * w + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

/* Code every block of the image; returns 0 if a per-block check fails. */
static int code_image(const struct codec *c, const uint8_t *img, int w, int h,
                      int check_direct, struct stats *st, uint64_t *acc) {
  int32_t blk[64], coef[64], deq[64], rec[64];
  st->sse_pix = st->sse_coef = 0;
  st->nonzero = st->max_err = 0;
  for (int by = 0; by < h; by += 8)
    for (int bx = 0; bx < w; bx += 8) {
      int32_t sum = 0;
      for (int i = 0; i < 64; i++) {
        blk[i] = img[(by + i / 8) * w + bx + i % 8] - 128;
        sum += blk[i];
      }
      fdct(c, blk, coef);
      if (abs(coef[0] - round_div(sum, 8)) > 1) return 0;
      if (check_direct && (bx / 8 + by / 8) % 5 == 0)
        for (int i = 0; i < 64; i++)
          if (abs(coef[i] - fdct_direct(c, blk, i / 8, i % 8)) > 1) return 0;
      uint32_t run = 0;
      for (int k = 0; k < 64; k++) {
        int i = c->zigzag[k];
        int32_t q = c->quant[i / 8][i % 8], level = round_div(coef[i], q);
        deq[i] = level * q;
        int64_t e = coef[i] - deq[i];
        st->sse_coef += (uint64_t)(e * e);
        if (level == 0) {
          run++;
        } else {
          st->nonzero++;
          *acc = (*acc ^ ((uint64_t)run << 16 | (uint16_t)level)) * 0x100000001B3u;
          run = 0;
        }
      }
      idct(c, deq, rec);
      for (int i = 0; i < 64; i++) {
        int32_t p = rec[i] + 128;
        p = p < 0 ? 0 : p > 255 ? 255 : p;
        uint32_t e = (uint32_t)abs(p - (blk[i] + 128));
        st->sse_pix += (uint64_t)e * e;
        if (e > st->max_err) st->max_err = e;
        *acc = (*acc ^ (uint32_t)p) * 0x100000001B3u;
      }
    }
  return 1;
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "dct: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const int dims[3][2] = {{80, 64}, {240, 176}, {640, 448}};
  static const int scales[4] = {0, 6, 16, 40};
  int w = dims[dataset - 1][0], h = dims[dataset - 1][1];
  struct codec c;
  uint8_t *img = malloc((size_t)w * h);
  if (!img) {
    fprintf(stderr, "dct: out of memory\n");
    return 1;
  }
  codec_init(&c);
  generate(img, w, h);
  uint64_t acc = 0xCBF29CE484222325u;
  for (int qi = 0; qi < 4; qi++) {
    struct stats st;
    set_quality(&c, scales[qi]);
    if (!code_image(&c, img, w, h, qi == 0, &st, &acc)) {
      fprintf(stderr, "dct: transform self-check failed\n");
      return 1;
    }
    uint64_t npix = (uint64_t)w * h;
    /* Orthonormality: both errors agree up to rounding (and clamping). */
    int ok = st.sse_pix <= st.sse_coef + st.sse_coef / 32 + npix / 2;
    if (qi == 0) ok = ok && st.max_err <= 1;
    else ok = ok && st.sse_pix + st.sse_pix / 32 + npix / 2 >= st.sse_coef;
    if (!ok) {
      fprintf(stderr, "dct: round-trip error out of bounds at quality %d\n", qi);
      return 1;
    }
    acc ^= st.sse_pix << 24 ^ st.nonzero;
  }
  printf("checksum: %016" PRIx64 "\n", acc);
  free(img);
  return 0;
}
