/*
 * matmul -- dense matrix multiplication over 32-bit modular integers.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * Matrices are generated in-program by a fixed-seed PRNG. The product is
 * computed with four loop orders/tilings (ijk, ikj, blocked, transposed).
 * All arithmetic is on uint32_t, i.e. modulo 2^32, so it is exact.
 * Usage: matmul [dataset]   where dataset is 1, 2 or 3 (default 1).
 *
 * Self-check: all four variants must agree element-wise, a Freivalds test
 * A(Bx) == (AB)x must hold for random vectors, and trace(AB) must equal
 * sum_ij A[i][j] * B[j][i].
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILE 16

struct matrix {
  size_t n;
  uint32_t *v;
};

static uint32_t prng = 0x6B43A9B5u;

static uint32_t next_rand(void) {
  prng = prng * 747796405u + 2891336453u;
  uint32_t w = ((prng >> ((prng >> 28) + 4u)) ^ prng) * 277803737u;
  return (w >> 22) ^ w;
}

static int mat_alloc(struct matrix *m, size_t n) {
  m->n = n;
  m->v = calloc(n * n, sizeof *m->v);
  return m->v != NULL;
}

static uint32_t *at(const struct matrix *m, size_t i, size_t j) { return &m->v[i * m->n + j]; }

static void mat_random(struct matrix *m) {
  for (size_t i = 0; i < m->n * m->n; i++) m->v[i] = next_rand();
}

static void mul_ijk(const struct matrix *a, const struct matrix *b, struct matrix *c) {
  size_t n = a->n;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      uint32_t s = 0;
      for (size_t k = 0; k < n; k++) s += *at(a, i, k) * *at(b, k, j);
      *at(c, i, j) = s;
    }
}

static void mul_ikj(const struct matrix *a, const struct matrix *b, struct matrix *c) {
  size_t n = a->n;
  memset(c->v, 0, n * n * sizeof *c->v);
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < n; k++) {
      uint32_t aik = a->v[i * n + k];
      const uint32_t *brow = &b->v[k * n];
      uint32_t *crow = &c->v[i * n];
      for (size_t j = 0; j < n; j++) crow[j] += aik * brow[j];
    }
}

static size_t min_sz(size_t x, size_t y) { return x < y ? x : y; }

static void mul_blocked(const struct matrix *a, const struct matrix *b, struct matrix *c) {
  size_t n = a->n;
  memset(c->v, 0, n * n * sizeof *c->v);
  for (size_t ii = 0; ii < n; ii += TILE)
    for (size_t kk = 0; kk < n; kk += TILE)
      for (size_t jj = 0; jj < n; jj += TILE) {
        size_t ie = min_sz(ii + TILE, n), ke = min_sz(kk + TILE, n), je = min_sz(jj + TILE, n);
        for (size_t i = ii; i < ie; i++)
          for (size_t k = kk; k < ke; k++) {
            uint32_t aik = a->v[i * n + k];
            for (size_t j = jj; j < je; j++) c->v[i * n + j] += aik * b->v[k * n + j];
          }
      }
}

static void transpose(const struct matrix *src, struct matrix *dst) {
  size_t n = src->n;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) dst->v[j * n + i] = src->v[i * n + j];
}

static void mul_transposed(const struct matrix *a, const struct matrix *bt, struct matrix *c) {
  size_t n = a->n;
  for (size_t i = 0; i < n; i++) {
    const uint32_t *arow = &a->v[i * n];
    for (size_t j = 0; j < n; j++) {
      const uint32_t *brow = &bt->v[j * n];
      uint32_t s0 = 0, s1 = 0;
      size_t k = 0;
      for (; k + 1 < n; k += 2) {
        s0 += arow[k] * brow[k];
        s1 += arow[k + 1] * brow[k + 1];
      }
      if (k < n) s0 += arow[k] * brow[k];
      c->v[i * n + j] = s0 + s1;
    }
  }
}

static void mat_vec(const struct matrix *m, const uint32_t *x, uint32_t *y) {
  for (size_t i = 0; i < m->n; i++) {
    uint32_t s = 0;
    for (size_t j = 0; j < m->n; j++) s += m->v[i * m->n + j] * x[j];
    y[i] = s;
  }
}

static int freivalds(const struct matrix *a, const struct matrix *b, const struct matrix *c,
                     int trials) {
  size_t n = a->n;
  uint32_t *x = malloc(n * sizeof *x), *bx = malloc(n * sizeof *bx);
  uint32_t *abx = malloc(n * sizeof *abx), *cx = malloc(n * sizeof *cx);
  int ok = x && bx && abx && cx;
  for (int t = 0; t < trials && ok; t++) {
    for (size_t i = 0; i < n; i++) x[i] = next_rand();
    mat_vec(b, x, bx);
    mat_vec(a, bx, abx);
    mat_vec(c, x, cx);
    if (memcmp(abx, cx, n * sizeof *cx) != 0) ok = 0;
  }
  free(x);
  free(bx);
  free(abx);
  free(cx);
  return ok;
}

static int trace_identity(const struct matrix *a, const struct matrix *b, const struct matrix *c) {
  uint32_t tr = 0, s = 0;
  for (size_t i = 0; i < a->n; i++) {
    tr += *at(c, i, i);
    for (size_t j = 0; j < a->n; j++) s += *at(a, i, j) * *at(b, j, i);
  }
  return tr == s;
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "matmul: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const size_t sizes[3] = {60, 120, 224};
  size_t n = sizes[dataset - 1];
  struct matrix a, b, bt, c1, c2, c3, c4;
  if (!mat_alloc(&a, n) || !mat_alloc(&b, n) || !mat_alloc(&bt, n) || !mat_alloc(&c1, n) ||
      !mat_alloc(&c2, n) || !mat_alloc(&c3, n) || !mat_alloc(&c4, n)) {
    fprintf(stderr, "matmul: out of memory\n");
    return 1;
  }
  mat_random(&a);
  mat_random(&b);
  mul_ijk(&a, &b, &c1);
  mul_ikj(&a, &b, &c2);
  mul_blocked(&a, &b, &c3);
  transpose(&b, &bt);
  mul_transposed(&a, &bt, &c4);

  size_t bytes = n * n * sizeof *c1.v;
  if (memcmp(c1.v, c2.v, bytes) != 0 || memcmp(c1.v, c3.v, bytes) != 0 ||
      memcmp(c1.v, c4.v, bytes) != 0) {
    fprintf(stderr, "matmul: multiplication variants disagree\n");
    return 1;
  }
  if (!freivalds(&a, &b, &c1, 3) || !trace_identity(&a, &b, &c1)) {
    fprintf(stderr, "matmul: Freivalds/trace check failed\n");
    return 1;
  }
  uint64_t check = 0;
  for (size_t i = 0; i < n * n; i++) check = (check << 7 | check >> 57) ^ c1.v[i];
  printf("checksum: %016" PRIx64 "\n", check);
  free(a.v);
  free(b.v);
  free(bt.v);
  free(c1.v);
  free(c2.v);
  free(c3.v);
  free(c4.v);
  return 0;
}
