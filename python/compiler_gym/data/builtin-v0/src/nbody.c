/*
 * nbody -- gravitational N-body simulation in 64-bit fixed point.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * A cluster of bodies with random masses, positions and velocities is
 * generated in-program by a fixed-seed PRNG and integrated with a softened
 * leapfrog (kick-drift-kick) scheme, G = 1, dt = 2^-8. Positions are Q30,
 * velocities Q50, masses Q20; the square root is an integer square root, so
 * the result is exact on every platform. Usage: nbody [dataset] (1, 2, 3).
 *
 * Self-check: the pairwise (Newton's third law) force loop must equal a
 * direct all-pairs loop; total momentum, kept modulo 2^64, must be conserved
 * exactly between the half kicks; and the total energy must drift by less
 * than a small fraction of its initial value.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define EPS2 ((int64_t)1 << 32) /* softening length 2^-4, squared, Q40 */
#define DT_LOG2 8                 /* time step 2^-8 */

struct body {
  int64_t pos[3]; /* Q30 */
  int64_t vel[3]; /* Q50 */
  int64_t dv[3];  /* velocity change over one step, Q50 */
  int64_t mass;   /* Q20 */
};

static uint64_t rng = 0xD6E8FEB86659FD93u;

static uint32_t next_u32(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}

/* a / b rounded to nearest (halves away from zero), b > 0. */
static int64_t div_round(int64_t a, int64_t b) {
  return a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b);
}

static uint64_t isqrt64(uint64_t v) {
  uint64_t res = 0, bit = (uint64_t)1 << 62;
  while (bit > v) bit >>= 2;
  while (bit) {
    if (v >= res + bit) {
      v -= res + bit;
      res = (res >> 1) + bit;
    } else {
      res >>= 1;
    }
    bit >>= 2;
  }
  return res;
}

/* Pull of body b on body a per unit of b's mass: over one step of 2^-10
 * time units, a's velocity changes by mass_b * g (Q50) in each coordinate. */
static void pair_factor(const struct body *a, const struct body *b, int64_t g[3]) {
  int64_t d[3];
  uint64_t r2 = (uint64_t)EPS2;
  for (int k = 0; k < 3; k++) {
    d[k] = div_round(b->pos[k] - a->pos[k], (int64_t)1 << 10); /* Q20 */
    r2 += (uint64_t)(d[k] * d[k]);                              /* Q40 */
  }
  int64_t r = (int64_t)isqrt64(r2); /* Q20 */
  for (int k = 0; k < 3; k++) {
    int64_t t = div_round(d[k] * ((int64_t)1 << 30), r); /* unit vector, Q30 */
    g[k] = div_round(t * ((int64_t)1 << 30), (int64_t)r2);
  }
}

static void accelerations_pairwise(struct body *b, int n) {
  for (int i = 0; i < n; i++) b[i].dv[0] = b[i].dv[1] = b[i].dv[2] = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      int64_t g[3];
      pair_factor(&b[i], &b[j], g);
      for (int k = 0; k < 3; k++) {
        b[i].dv[k] += b[j].mass * g[k] * (1 << (10 - DT_LOG2));
        b[j].dv[k] -= b[i].mass * g[k] * (1 << (10 - DT_LOG2));
      }
    }
}

static int accelerations_agree(const struct body *b, int n) {
  for (int i = 0; i < n; i++) {
    int64_t dv[3] = {0, 0, 0};
    for (int j = 0; j < n; j++) {
      if (j == i) continue;
      int64_t g[3];
      pair_factor(&b[i], &b[j], g);
      for (int k = 0; k < 3; k++) dv[k] += b[j].mass * g[k] * (1 << (10 - DT_LOG2));
    }
    for (int k = 0; k < 3; k++)
      if (dv[k] != b[i].dv[k]) return 0;
  }
  return 1;
}

static void kick(struct body *b, int n, int half) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) b[i].vel[k] += half ? div_round(b[i].dv[k], 2) : b[i].dv[k];
}

static void drift(struct body *b, int n) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) b[i].pos[k] += div_round(b[i].vel[k], (int64_t)1 << (20 + DT_LOG2));
}

/* Total momentum, wrapping modulo 2^64: conserved exactly by full kicks. */
static uint64_t momentum(const struct body *b, int n, int k) {
  uint64_t p = 0;
  for (int i = 0; i < n; i++) p += (uint64_t)b[i].mass * (uint64_t)b[i].vel[k];
  return p;
}

static double energy(const struct body *b, int n) {
  double kin = 0, pot = 0;
  for (int i = 0; i < n; i++) {
    double m = (double)b[i].mass / 1048576.0, v2 = 0;
    for (int k = 0; k < 3; k++) {
      double v = (double)b[i].vel[k] / 1125899906842624.0; /* 2^50 */
      v2 += v * v;
    }
    kin += 0.5 * m * v2;
    for (int j = i + 1; j < n; j++) {
      uint64_t r2 = (uint64_t)EPS2;
      for (int k = 0; k < 3; k++) {
        int64_t d = div_round(b[j].pos[k] - b[i].pos[k], (int64_t)1 << 10);
        r2 += (uint64_t)(d * d);
      }
      double r = (double)isqrt64(r2) / 1048576.0;
      pot -= m * ((double)b[j].mass / 1048576.0) / r;
    }
  }
  return kin + pot;
}

static void init_bodies(struct body *b, int n) {
  for (int i = 0; i < n; i++) {
    int64_t p[3], r2;
    do { /* uniform in the unit ball, in Q20 */
      r2 = 0;
      for (int k = 0; k < 3; k++) {
        p[k] = (int64_t)(next_u32() % 2097153u) - 1048576;
        r2 += p[k] * p[k];
      }
    } while (r2 > ((int64_t)1 << 40));
    for (int k = 0; k < 3; k++) {
      b[i].pos[k] = p[k] * 1024;
      b[i].vel[k] = ((int64_t)(next_u32() % 1025u) - 512) * ((int64_t)1 << 40); /* |v| < 0.5 */
      b[i].dv[k] = 0;
    }
    b[i].mass = (int64_t)(1048576 / n) * (int64_t)(1 + next_u32() % 3u) / 2;
  }
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "nbody: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const int nbodies[3] = {24, 40, 80};
  static const int nsteps[3] = {64, 160, 280};
  int n = nbodies[dataset - 1], steps = nsteps[dataset - 1];
  struct body *b = calloc((size_t)n, sizeof *b);
  if (!b) {
    fprintf(stderr, "nbody: out of memory\n");
    return 1;
  }
  init_bodies(b, n);
  double e0 = energy(b, n);
  accelerations_pairwise(b, n);
  kick(b, n, 1);
  uint64_t p0[3] = {momentum(b, n, 0), momentum(b, n, 1), momentum(b, n, 2)};
  for (int s = 1; s <= steps; s++) {
    drift(b, n);
    accelerations_pairwise(b, n);
    if (s % 50 == 1 && !accelerations_agree(b, n)) {
      fprintf(stderr, "nbody: pairwise and direct forces differ at step %d\n", s);
      return 1;
    }
    if (s < steps) kick(b, n, 0);
  }
  for (int k = 0; k < 3; k++)
    if (momentum(b, n, k) != p0[k]) {
      fprintf(stderr, "nbody: momentum not conserved\n");
      return 1;
    }
  kick(b, n, 1); /* final half kick: velocities and positions in step */
  double e1 = energy(b, n), drift_rel = (e1 - e0) / (e0 < 0 ? -e0 : e0);
  if (!(e0 < 0) || drift_rel > 1e-3 || drift_rel < -1e-3) {
    fprintf(stderr, "nbody: energy drift too large\n");
    return 1;
  }
  uint64_t acc = 0xCBF29CE484222325u;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      acc = (acc ^ (uint64_t)div_round(b[i].pos[k], (int64_t)1 << 14)) * 0x100000001B3u;
      acc = (acc ^ (uint64_t)div_round(b[i].vel[k], (int64_t)1 << 34)) * 0x100000001B3u;
    }
  printf("checksum: %016" PRIx64 "\n", acc);
  free(b);
  return 0;
}
