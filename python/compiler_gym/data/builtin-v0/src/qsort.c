/*
 * qsort -- sorting of integer arrays and records.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * Arrays are generated in-program by a fixed-seed xorshift PRNG with several
 * distributions (random, few unique values, nearly sorted, reversed).
 * Usage: qsort [dataset]   where dataset is 1, 2 or 3 (default 1).
 *
 * Self-check: every result must be sorted, an order-independent checksum of
 * the multiset must be preserved, the introsort-style quicksort and the
 * merge sort must produce identical record orders for unique keys, and
 * libc qsort is used as a third reference.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct record {
  uint32_t key;
  uint32_t id;
  char tag[8];
};

static uint64_t rng = 0x853C49E6748FEA9Bu;

static uint32_t next_u32(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}

/* Order-independent fingerprint of a multiset of 32-bit values. */
static uint64_t mix(uint32_t v) {
  uint64_t z = (uint64_t)v + 0x9E3779B97F4A7C15u;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

static uint64_t multiset_sum(const uint32_t *a, size_t n) {
  uint64_t s = 0;
  for (size_t i = 0; i < n; i++) s += mix(a[i]);
  return s;
}

static void insertion_sort(uint32_t *a, size_t lo, size_t hi) {
  for (size_t i = lo + 1; i <= hi; i++) {
    uint32_t v = a[i];
    size_t j = i;
    while (j > lo && a[j - 1] > v) {
      a[j] = a[j - 1];
      j--;
    }
    a[j] = v;
  }
}

static void swap_u32(uint32_t *a, uint32_t *b) {
  uint32_t t = *a;
  *a = *b;
  *b = t;
}

static uint32_t median3(uint32_t *a, size_t lo, size_t hi) {
  size_t mid = lo + (hi - lo) / 2;
  if (a[mid] < a[lo]) swap_u32(&a[mid], &a[lo]);
  if (a[hi] < a[lo]) swap_u32(&a[hi], &a[lo]);
  if (a[hi] < a[mid]) swap_u32(&a[hi], &a[mid]);
  return a[mid];
}

static void sift_down(uint32_t *a, size_t root, size_t n) {
  for (;;) {
    size_t child = 2 * root + 1;
    if (child >= n) return;
    if (child + 1 < n && a[child + 1] > a[child]) child++;
    if (a[root] >= a[child]) return;
    swap_u32(&a[root], &a[child]);
    root = child;
  }
}

static void heap_sort(uint32_t *a, size_t n) {
  for (size_t i = n / 2; i-- > 0;) sift_down(a, i, n);
  for (size_t end = n; end-- > 1;) {
    swap_u32(&a[0], &a[end]);
    sift_down(a, 0, end);
  }
}

/* Introsort: quicksort with median-of-three pivot and Hoare partitioning,
 * falling back to heap sort when recursion gets too deep. Recurses on the
 * smaller side and loops on the larger one. */
static void quicksort(uint32_t *a, size_t lo, size_t hi, int depth) {
  while (hi - lo >= 16) {
    if (depth-- == 0) {
      heap_sort(a + lo, hi - lo + 1);
      return;
    }
    /* After median3: a[lo] <= p <= a[hi], which act as sentinels. */
    uint32_t p = median3(a, lo, hi);
    size_t i = lo, j = hi;
    for (;;) {
      do i++; while (a[i] < p);
      do j--; while (a[j] > p);
      if (i >= j) break;
      swap_u32(&a[i], &a[j]);
    }
    /* a[lo..j] <= p and a[j+1..hi] >= p */
    if (j - lo < hi - j) {
      quicksort(a, lo, j, depth);
      lo = j + 1;
    } else {
      quicksort(a, j + 1, hi, depth);
      hi = j;
    }
  }
  if (hi > lo) insertion_sort(a, lo, hi);
}

static int depth_limit(size_t n) {
  int d = 0;
  while (n > 1) {
    n >>= 1;
    d += 2;
  }
  return d;
}

/* Stable top-down merge sort on records, ordered by key. */
static void merge_sort_rec(struct record *a, struct record *tmp, size_t n) {
  if (n < 2) return;
  size_t h = n / 2;
  merge_sort_rec(a, tmp, h);
  merge_sort_rec(a + h, tmp, n - h);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) {
    if (a[j].key < a[i].key)
      tmp[k++] = a[j++];
    else
      tmp[k++] = a[i++];
  }
  while (i < h) tmp[k++] = a[i++];
  while (j < n) tmp[k++] = a[j++];
  memcpy(a, tmp, n * sizeof *a);
}

static int cmp_u32(const void *x, const void *y) {
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  return (a > b) - (a < b);
}

static int cmp_record(const void *x, const void *y) {
  const struct record *a = x, *b = y;
  if (a->key != b->key) return (a->key > b->key) - (a->key < b->key);
  return (a->id > b->id) - (a->id < b->id);
}

static void generate(uint32_t *a, size_t n, int kind) {
  for (size_t i = 0; i < n; i++) {
    switch (kind) {
    case 0: a[i] = next_u32(); break;
    case 1: a[i] = next_u32() % 17u; break;
    case 2: a[i] = (uint32_t)i * 3u + (next_u32() % 8u == 0 ? next_u32() % 1000u : 0u); break;
    default: a[i] = (uint32_t)(n - i) * 2u; break;
    }
  }
}

static int is_sorted(const uint32_t *a, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (a[i - 1] > a[i]) return 0;
  return 1;
}

static int sort_integers(size_t n, uint64_t *out) {
  uint32_t *a = malloc(n * sizeof *a);
  uint32_t *b = malloc(n * sizeof *b);
  if (!a || !b) return 0;
  int ok = 1;
  for (int kind = 0; kind < 4 && ok; kind++) {
    generate(a, n, kind);
    memcpy(b, a, n * sizeof *a);
    uint64_t before = multiset_sum(a, n);
    quicksort(a, 0, n - 1, depth_limit(n));
    qsort(b, n, sizeof *b, cmp_u32);
    if (!is_sorted(a, n) || multiset_sum(a, n) != before) ok = 0;
    if (memcmp(a, b, n * sizeof *a) != 0) ok = 0;
    for (size_t i = 0; i < n; i += 97) *out = *out * 1000003u + a[i];
  }
  free(a);
  free(b);
  return ok;
}

static int sort_records(size_t n, uint64_t *out) {
  struct record *r = malloc(n * sizeof *r);
  struct record *s = malloc(n * sizeof *s);
  struct record *tmp = malloc(n * sizeof *tmp);
  if (!r || !s || !tmp) return 0;
  for (size_t i = 0; i < n; i++) {
    r[i].key = next_u32() % (uint32_t)(n / 4 + 1);
    r[i].id = (uint32_t)i;
    for (int k = 0; k < 7; k++) r[i].tag[k] = (char)('a' + next_u32() % 26u);
    r[i].tag[7] = '\0';
  }
  memcpy(s, r, n * sizeof *r);
  merge_sort_rec(r, tmp, n);
  /* libc qsort is not stable, but breaking ties by id reproduces stability. */
  qsort(s, n, sizeof *s, cmp_record);
  int ok = 1;
  for (size_t i = 0; i < n; i++) {
    if (r[i].key != s[i].key || r[i].id != s[i].id ||
        strcmp(r[i].tag, s[i].tag) != 0)
      ok = 0;
    if (i > 0 && r[i - 1].key > r[i].key) ok = 0;
    *out = (*out ^ r[i].id) * 0x100000001B3u + (uint8_t)r[i].tag[i % 7];
  }
  free(r);
  free(s);
  free(tmp);
  return ok;
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "qsort: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const size_t sizes[3] = {10000, 70000, 400000};
  size_t n = sizes[dataset - 1];
  uint64_t check = 0xCBF29CE484222325u;
  if (!sort_integers(n, &check)) {
    fprintf(stderr, "qsort: integer sort self-check failed\n");
    return 1;
  }
  if (!sort_records(n / 2, &check)) {
    fprintf(stderr, "qsort: record sort self-check failed\n");
    return 1;
  }
  printf("checksum: %016" PRIx64 "\n", check);
  return 0;
}
