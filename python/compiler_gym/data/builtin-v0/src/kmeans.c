/*
 * kmeans -- integer k-means clustering (Lloyd's algorithm).
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * Points in 3-D integer space are drawn around random cluster centres with
 * a fixed-seed PRNG (sums of uniforms approximate Gaussian blobs), plus some
 * uniform background noise. For several k, centroids are seeded by the
 * farthest-point rule and refined by alternating assignment and update
 * steps; an updated centroid is the member mean rounded to the nearest
 * integer point. Usage: kmeans [dataset]   where dataset is 1, 2 or 3.
 *
 * Self-check: every assignment step is repeated with a second nearest-
 * centroid search (centroids sorted by x, pruned by the x distance) that
 * must pick the same centroids; the sum of squared errors must never
 * increase; and the iteration must converge (no assignment changes) within
 * the iteration limit.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DIM 3
#define MAX_K 16
#define MAX_ITER 100

struct point {
  int32_t x[DIM];
};

struct clustering {
  int k;
  struct point c[MAX_K];
  int32_t *assign;
  uint32_t size[MAX_K];
};

static uint32_t rng_state = 0xB5297A4Du;

static uint32_t xorshift32(void) {
  uint32_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  rng_state = x;
  return x;
}

static int64_t dist2(const struct point *a, const struct point *b) {
  int64_t s = 0;
  for (int d = 0; d < DIM; d++) {
    int64_t t = (int64_t)a->x[d] - b->x[d];
    s += t * t;
  }
  return s;
}

static void generate(struct point *p, size_t n, int blobs) {
  struct point centre[32];
  for (int b = 0; b < blobs; b++)
    for (int d = 0; d < DIM; d++) centre[b].x[d] = (int32_t)(xorshift32() % 20001u) - 10000;
  for (size_t i = 0; i < n; i++) {
    int b = (int)(xorshift32() % (uint32_t)blobs), noise = i % 17 == 0;
    for (int d = 0; d < DIM; d++) {
      int32_t s = 0;
      for (int t = 0; t < 4; t++) s += (int32_t)(xorshift32() % 1201u) - 600;
      p[i].x[d] = noise ? (int32_t)(xorshift32() % 24001u) - 12000 : centre[b].x[d] + s;
    }
  }
}

/* Farthest-point seeding, starting from a PRNG-chosen point. */
static void seed_centroids(const struct point *p, size_t n, struct clustering *cl, int64_t *mind) {
  cl->c[0] = p[xorshift32() % (uint32_t)n];
  for (size_t i = 0; i < n; i++) mind[i] = dist2(&p[i], &cl->c[0]);
  for (int j = 1; j < cl->k; j++) {
    size_t far = 0;
    for (size_t i = 1; i < n; i++)
      if (mind[i] > mind[far]) far = i;
    cl->c[j] = p[far];
    for (size_t i = 0; i < n; i++) {
      int64_t d = dist2(&p[i], &cl->c[j]);
      if (d < mind[i]) mind[i] = d;
    }
  }
}

/* Nearest centroid: smallest distance, then smallest index. */
static int nearest_linear(const struct clustering *cl, const struct point *q, int64_t *best) {
  int arg = 0;
  *best = dist2(q, &cl->c[0]);
  for (int j = 1; j < cl->k; j++) {
    int64_t d = dist2(q, &cl->c[j]);
    if (d < *best) {
      *best = d;
      arg = j;
    }
  }
  return arg;
}

/* Same answer using centroids sorted by x[0]: scan outwards and stop once
 * the x distance alone exceeds the best distance found. */
static int nearest_sorted(const struct clustering *cl, const int *order, const struct point *q) {
  int lo = 0, hi = cl->k;
  while (lo < hi) { /* first centroid with x >= q.x */
    int mid = (lo + hi) / 2;
    if (cl->c[order[mid]].x[0] < q->x[0]) lo = mid + 1;
    else hi = mid;
  }
  int arg = -1, left = lo - 1, right = lo;
  int64_t best = INT64_MAX;
  while (left >= 0 || right < cl->k) {
    int use_right = left < 0 || (right < cl->k && cl->c[order[right]].x[0] - q->x[0] <=
                                                      q->x[0] - cl->c[order[left]].x[0]);
    int j = order[use_right ? right++ : left--];
    int64_t dx = (int64_t)cl->c[j].x[0] - q->x[0];
    if (dx * dx > best) break; /* every remaining centroid is farther in x */
    int64_t d = dist2(q, &cl->c[j]);
    if (d < best || (d == best && j < arg)) {
      best = d;
      arg = j;
    }
  }
  return arg;
}

static int run_kmeans(const struct point *p, size_t n, struct clustering *cl, int64_t *scratch,
                      uint64_t *sse_out, int *iters_out) {
  int order[MAX_K];
  int64_t sum[MAX_K][DIM];
  uint64_t prev_sse = UINT64_MAX;
  seed_centroids(p, n, cl, scratch);
  for (size_t i = 0; i < n; i++) cl->assign[i] = -1;
  for (int it = 1; it <= MAX_ITER; it++) {
    for (int j = 0; j < cl->k; j++) { /* insertion sort of centroid ids by x */
      int v = j, m = j;
      while (m > 0 && cl->c[order[m - 1]].x[0] > cl->c[v].x[0]) {
        order[m] = order[m - 1];
        m--;
      }
      order[m] = v;
    }
    size_t changed = 0;
    uint64_t sse = 0;
    for (size_t i = 0; i < n; i++) {
      int64_t best;
      int a = nearest_linear(cl, &p[i], &best);
      if (nearest_sorted(cl, order, &p[i]) != a) return 0;
      changed += a != cl->assign[i];
      cl->assign[i] = a;
      sse += (uint64_t)best;
    }
    if (sse > prev_sse) return 0; /* Lloyd's iteration never increases it */
    prev_sse = sse;
    if (changed == 0) {
      *sse_out = sse;
      *iters_out = it;
      return 1;
    }
    for (int j = 0; j < cl->k; j++) {
      cl->size[j] = 0;
      for (int d = 0; d < DIM; d++) sum[j][d] = 0;
    }
    for (size_t i = 0; i < n; i++) {
      int j = cl->assign[i];
      cl->size[j]++;
      for (int d = 0; d < DIM; d++) sum[j][d] += p[i].x[d];
    }
    for (int j = 0; j < cl->k; j++) {
      if (cl->size[j] == 0) continue; /* an empty cluster keeps its centroid */
      int64_t m = cl->size[j];
      for (int d = 0; d < DIM; d++) /* nearest integer to the mean */
        cl->c[j].x[d] = (int32_t)(sum[j][d] >= 0 ? (sum[j][d] + m / 2) / m
                                                  : -((-sum[j][d] + m / 2) / m));
    }
  }
  return 0; /* did not converge */
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "kmeans: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const size_t sizes[3] = {700, 3500, 22000};
  static const int ks[3] = {4, 9, 16};
  size_t n = sizes[dataset - 1];
  struct point *p = malloc(n * sizeof *p);
  int64_t *scratch = malloc(n * sizeof *scratch);
  struct clustering cl;
  cl.assign = malloc(n * sizeof *cl.assign);
  if (!p || !scratch || !cl.assign) {
    fprintf(stderr, "kmeans: out of memory\n");
    return 1;
  }
  generate(p, n, 12);
  uint64_t acc = 0xCBF29CE484222325u;
  for (int t = 0; t < 3; t++) {
    uint64_t sse;
    int iters;
    cl.k = ks[t];
    if (!run_kmeans(p, n, &cl, scratch, &sse, &iters)) {
      fprintf(stderr, "kmeans: self-check failed for k = %d\n", cl.k);
      return 1;
    }
    acc = (acc ^ sse) * 0x100000001B3u;
    acc = (acc ^ (uint64_t)iters) * 0x100000001B3u;
    for (int j = 0; j < cl.k; j++) {
      acc = (acc ^ cl.size[j]) * 0x100000001B3u;
      for (int d = 0; d < DIM; d++) acc = (acc ^ (uint32_t)cl.c[j].x[d]) * 0x100000001B3u;
    }
  }
  printf("checksum: %016" PRIx64 "\n", acc);
  free(cl.assign), free(scratch), free(p);
  return 0;
}
