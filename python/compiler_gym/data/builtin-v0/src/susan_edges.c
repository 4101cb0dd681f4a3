/*
 * susan_edges -- SUSAN-style edge and corner detection.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * A greyscale image of separated rectangles (plus a few discs) on a shaded
 * background with mild noise is generated in-program by a fixed-seed PRNG.
 * For every pixel the USAN ("univalue segment assimilating nucleus") area is
 * computed over a 37-pixel circular mask with a steep fixed-point brightness
 * similarity function, together with the USAN centroid. Edge responses are
 * thinned by non-maximum suppression across the edge; corner responses must
 * have an off-centre centroid and be 5x5 local maxima.
 * Usage: susan_edges [dataset]   where dataset is 1, 2 or 3 (default 1).
 *
 * Self-check: USAN values must match a direct implementation (sampled rows),
 * must be exactly mirrored for a mirrored image and transposed for a
 * transposed image, and every rectangle corner must be found within 2 pixels.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define THRESH 25
#define MASK_N 37
#define NMAX (MASK_N * 100)
#define CELL 24

struct image {
  int w, h;
  uint8_t *px;
};

struct rect {
  int x0, y0, x1, y1; /* inclusive corners */
};

struct usan {
  int32_t n, sx, sy; /* area and first moments, similarity weights 0..100 */
};

struct mask {
  int n;
  int dx[MASK_N], dy[MASK_N];
  uint32_t sim[256]; /* similarity by |brightness difference| */
};

static uint32_t rng_state = 0x85EBCA6Bu;

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
  int64_t whole = x >> 16, frac = x & 0xFFFF, r = 65536, term = 65536, sum = 65536;
  if (whole >= 16) return 0;
  for (int64_t i = 0; i < whole; i++) r = (r * 24109 + 32768) >> 16; /* e^-1 */
  for (int k = 1; k <= 8; k++) {
    term = -term * frac / ((int64_t)k * 65536);
    sum += term;
  }
  return (r * sum + 32768) >> 16;
}

/* 100 * exp(-(d / t)^6), rounded. */
static uint32_t similarity(int d) {
  if (d >= 2 * THRESH) return 0;
  int64_t d3 = (int64_t)d * d * d, t3 = (int64_t)THRESH * THRESH * THRESH;
  return (uint32_t)((exp_neg_q16(d3 * d3 * 65536 / (t3 * t3)) * 100 + 32768) >> 16);
}

static void build_mask(struct mask *m) {
  m->n = 0;
  for (int dy = -3; dy <= 3; dy++)
    for (int dx = -3; dx <= 3; dx++)
      if (dx * dx + dy * dy <= 10) {
        m->dx[m->n] = dx;
        m->dy[m->n] = dy;
        m->n++;
      }
  for (int d = 0; d < 256; d++) m->sim[d] = similarity(d);
}

/* Returns the number of rectangles (discs are not recorded). */
static int generate(struct image *im, struct rect *rects) {
  int w = im->w, h = im->h, nrects = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) im->px[y * w + x] = (uint8_t)(50 + 30 * x / w);
  /* Cells start 4 pixels in so that no corner is near the image border. */
  for (int cy = 4; cy + CELL <= h - 4; cy += CELL) {
    for (int cx = 4; cx + CELL <= w - 4; cx += CELL) {
      uint8_t level = (uint8_t)(130 + xorshift32() % 120u);
      int x0 = cx + 4 + (int)(xorshift32() % 5u), y0 = cy + 4 + (int)(xorshift32() % 5u);
      int x1 = cx + CELL - 5 - (int)(xorshift32() % 5u);
      int y1 = cy + CELL - 5 - (int)(xorshift32() % 5u);
      int disc = xorshift32() % 7u == 0;
      if (!disc) rects[nrects++] = (struct rect){x0, y0, x1, y1};
      for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
          int rx = 2 * x - x0 - x1, ry = 2 * y - y0 - y1, r = x1 - x0;
          if (!disc || rx * rx + ry * ry <= r * r) im->px[y * w + x] = level;
        }
    }
  }
  for (int i = 0; i < w * h; i++) im->px[i] = (uint8_t)(im->px[i] + xorshift32() % 7u);
  return nrects;
}

/* Every rectangle corner needs a detected corner within 2 pixels. */
static int corners_found(const struct rect *r, int nrects, const int *cx,
                         const int *cy, int ncorners) {
  for (int i = 0; i < nrects; i++)
    for (int k = 0; k < 4; k++) {
      int x = k & 1 ? r[i].x1 : r[i].x0, y = k & 2 ? r[i].y1 : r[i].y0, hit = 0;
      for (int j = 0; j < ncorners && !hit; j++)
        hit = abs(cx[j] - x) <= 2 && abs(cy[j] - y) <= 2;
      if (!hit) return 0;
    }
  return 1;
}

/* Fast USAN computation; the 3-pixel border is left at zero area. */
static void compute_usan(const struct mask *m, const struct image *im, struct usan *u) {
  int w = im->w, h = im->h, off[MASK_N];
  for (int k = 0; k < m->n; k++) off[k] = m->dy[k] * w + m->dx[k];
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      struct usan *o = &u[y * w + x];
      o->n = o->sx = o->sy = 0;
      if (x < 3 || y < 3 || x >= w - 3 || y >= h - 3) continue;
      const uint8_t *p = im->px + y * w + x;
      int c = *p;
      for (int k = 0; k < m->n; k++) {
        int v = p[off[k]];
        int32_t s = (int32_t)m->sim[v > c ? v - c : c - v];
        o->n += s;
        o->sx += s * m->dx[k];
        o->sy += s * m->dy[k];
      }
    }
  }
}

static struct usan usan_ref(const struct image *im, int x, int y) {
  struct usan r = {0, 0, 0};
  if (x < 3 || y < 3 || x >= im->w - 3 || y >= im->h - 3) return r;
  int c = im->px[y * im->w + x];
  for (int dy = -3; dy <= 3; dy++)
    for (int dx = -3; dx <= 3; dx++) {
      if (dx * dx + dy * dy > 10) continue;
      int32_t s = (int32_t)similarity(abs(im->px[(y + dy) * im->w + x + dx] - c));
      r.n += s;
      r.sx += s * dx;
      r.sy += s * dy;
    }
  return r;
}

static int32_t edge_response(const struct usan *u) {
  return u->n > 0 && u->n < 3 * NMAX / 4 ? 3 * NMAX / 4 - u->n : 0;
}

static int32_t corner_response(const struct usan *u) {
  if (u->n == 0 || u->n >= NMAX / 2) return 0;
  /* The centroid must lie more than one pixel from the nucleus. */
  if ((int64_t)u->sx * u->sx + (int64_t)u->sy * u->sy <= (int64_t)u->n * u->n) return 0;
  return NMAX / 2 - u->n;
}

/* Non-maximum suppression across the edge (along the centroid direction). */
static int32_t thin_edges(const struct image *im, const struct usan *u, uint8_t *edge) {
  int w = im->w, h = im->h;
  int32_t count = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int i = y * w + x;
      int32_t r = edge_response(&u[i]);
      edge[i] = 0;
      if (r == 0 || x < 4 || y < 4 || x >= w - 4 || y >= h - 4) continue;
      int ax = abs(u[i].sx), ay = abs(u[i].sy), sx = 0, sy = 0;
      if (ax > 2 * ay) sx = 1;
      else if (ay > 2 * ax) sy = 1;
      else {
        sx = 1;
        sy = (u[i].sx > 0) == (u[i].sy > 0) ? 1 : -1;
      }
      int j1 = i + sy * w + sx, j2 = i - sy * w - sx;
      if (r > edge_response(&u[j1]) && r >= edge_response(&u[j2])) {
        edge[i] = 1;
        count++;
      }
    }
  return count;
}

/* Corners: positive response that is a 5x5 local maximum (ties: first wins). */
static int find_corners(const struct image *im, const struct usan *u, int *cx,
                        int *cy, int cap) {
  int w = im->w, h = im->h, n = 0;
  for (int y = 5; y < h - 5; y++)
    for (int x = 5; x < w - 5; x++) {
      int32_t r = corner_response(&u[y * w + x]);
      int is_max = r > 0;
      for (int dy = -2; dy <= 2 && is_max; dy++)
        for (int dx = -2; dx <= 2 && is_max; dx++) {
          int32_t q = corner_response(&u[(y + dy) * w + x + dx]);
          int before = dy < 0 || (dy == 0 && dx < 0);
          if (q > r || (before && q == r && (dx || dy))) is_max = 0;
        }
      if (is_max && n < cap) {
        cx[n] = x;
        cy[n] = y;
        n++;
      }
    }
  return n;
}

static int check_symmetry(const struct mask *m, const struct image *im, const struct usan *u) {
  int w = im->w, h = im->h, ok = 1;
  struct image t = {h, w, malloc((size_t)w * h)}, f = {w, h, malloc((size_t)w * h)};
  struct usan *ut = malloc((size_t)w * h * sizeof *ut);
  if (!t.px || !f.px || !ut) return 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      t.px[x * h + y] = im->px[y * w + x];
      f.px[y * w + (w - 1 - x)] = im->px[y * w + x];
    }
  compute_usan(m, &t, ut);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const struct usan *a = &u[y * w + x], *b = &ut[x * h + y];
      if (a->n != b->n || a->sx != b->sy || a->sy != b->sx) ok = 0;
    }
  compute_usan(m, &f, ut);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const struct usan *a = &u[y * w + x], *b = &ut[y * w + (w - 1 - x)];
      if (a->n != b->n || a->sx != -b->sx || a->sy != b->sy) ok = 0;
    }
  free(ut), free(f.px), free(t.px);
  return ok;
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "susan_edges: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const int dims[3][2] = {{96, 72}, {240, 192}, {624, 480}};
  int w = dims[dataset - 1][0], h = dims[dataset - 1][1], cap = w * h / 16;
  struct image im = {w, h, malloc((size_t)w * h)};
  struct usan *u = malloc((size_t)w * h * sizeof *u);
  uint8_t *edge = malloc((size_t)w * h);
  int *cx = malloc((size_t)cap * sizeof *cx), *cy = malloc((size_t)cap * sizeof *cy);
  struct rect *rects = malloc((size_t)(w / CELL) * (size_t)(h / CELL) * sizeof *rects);
  struct mask m;
  if (!im.px || !u || !edge || !cx || !cy || !rects) {
    fprintf(stderr, "susan_edges: out of memory\n");
    return 1;
  }
  build_mask(&m);
  int nrects = generate(&im, rects);
  compute_usan(&m, &im, u);
  int ok = m.n == MASK_N && m.sim[0] == 100 && m.sim[THRESH] == 37;
  for (int y = 0; y < h && ok; y += 5)
    for (int x = 0; x < w; x++) {
      struct usan r = usan_ref(&im, x, y);
      const struct usan *a = &u[y * w + x];
      if (r.n != a->n || r.sx != a->sx || r.sy != a->sy) ok = 0;
    }
  if (!ok || !check_symmetry(&m, &im, u)) {
    fprintf(stderr, "susan_edges: USAN self-check failed\n");
    return 1;
  }
  int32_t edges = thin_edges(&im, u, edge);
  int ncorners = find_corners(&im, u, cx, cy, cap);
  if (!corners_found(rects, nrects, cx, cy, ncorners)) {
    fprintf(stderr, "susan_edges: a rectangle corner was not detected\n");
    return 1;
  }

  uint64_t acc = 0xCBF29CE484222325u;
  for (int i = 0; i < w * h; i++)
    acc = (acc ^ (uint32_t)(edge_response(&u[i]) * 2 + edge[i])) * 0x100000001B3u;
  for (int k = 0; k < ncorners; k++) acc = (acc ^ (uint32_t)(cy[k] * w + cx[k])) * 0x100000001B3u;
  acc ^= (uint64_t)(uint32_t)edges << 32 | (uint32_t)ncorners;
  printf("checksum: %016" PRIx64 "\n", acc);
  free(rects), free(cy), free(cx), free(edge), free(u), free(im.px);
  return 0;
}
