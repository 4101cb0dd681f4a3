/*
 * hashtable -- open-addressing hash map (linear probing, backward-shift
 * deletion, automatic growth) used to count key occurrences.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * A stream of 64-bit keys with many duplicates is generated in-program by a
 * fixed-seed PRNG; the keys are counted, some are deleted, and hits and
 * misses are looked up.
 * Usage: hashtable [dataset]   where dataset is 1, 2 or 3 (default 1).
 *
 * Self-check: every count is compared against run lengths in a sorted copy
 * of the key stream (binary search), deleted keys must be absent, absent
 * keys must miss, and the number of live entries must match.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
  uint64_t key;
  uint32_t count;
  uint8_t used;
};

struct table {
  struct entry *slots;
  size_t cap; /* power of two */
  size_t size;
  uint64_t probes;
};

static uint64_t rstate = 0x1F2E3D4C5B6A7988u;

static uint64_t rnd64(void) {
  rstate ^= rstate >> 12;
  rstate ^= rstate << 25;
  rstate ^= rstate >> 27;
  return rstate * 0x2545F4914F6CDD1Du;
}

static uint64_t hash64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDu;
  k ^= k >> 33;
  k *= 0xC4CEB9FE1A85EC53u;
  k ^= k >> 33;
  return k;
}

static int table_init(struct table *t, size_t cap) {
  t->slots = calloc(cap, sizeof *t->slots);
  t->cap = cap;
  t->size = 0;
  t->probes = 0;
  return t->slots != NULL;
}

/* Returns the slot holding key, or the empty slot where it would go. */
static size_t find_slot(struct table *t, uint64_t key) {
  size_t mask = t->cap - 1;
  size_t i = (size_t)hash64(key) & mask;
  while (t->slots[i].used && t->slots[i].key != key) {
    i = (i + 1) & mask;
    t->probes++;
  }
  return i;
}

static int table_grow(struct table *t) {
  struct table bigger;
  if (!table_init(&bigger, t->cap * 2)) return 0;
  bigger.probes = t->probes;
  for (size_t i = 0; i < t->cap; i++) {
    if (!t->slots[i].used) continue;
    size_t j = find_slot(&bigger, t->slots[i].key);
    bigger.slots[j] = t->slots[i];
    bigger.size++;
  }
  free(t->slots);
  *t = bigger;
  return 1;
}

static int table_add(struct table *t, uint64_t key) {
  if ((t->size + 1) * 10 > t->cap * 7 && !table_grow(t)) return 0;
  size_t i = find_slot(t, key);
  if (!t->slots[i].used) {
    t->slots[i].used = 1;
    t->slots[i].key = key;
    t->slots[i].count = 0;
    t->size++;
  }
  t->slots[i].count++;
  return 1;
}

static uint32_t table_get(struct table *t, uint64_t key) {
  size_t i = find_slot(t, key);
  return t->slots[i].used ? t->slots[i].count : 0;
}

/* Delete with backward shift so no tombstones are needed. */
static int table_remove(struct table *t, uint64_t key) {
  size_t mask = t->cap - 1;
  size_t i = find_slot(t, key);
  if (!t->slots[i].used) return 0;
  size_t j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (!t->slots[j].used) break;
    size_t home = (size_t)hash64(t->slots[j].key) & mask;
    /* Move slot j into the hole at i if its home is not in (i, j]. */
    int between = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
    if (!between) {
      t->slots[i] = t->slots[j];
      i = j;
    }
  }
  t->slots[i].used = 0;
  t->slots[i].key = 0;
  t->slots[i].count = 0;
  t->size--;
  return 1;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Number of occurrences of key in sorted array s, by binary search. */
static uint32_t sorted_count(const uint64_t *s, size_t n, uint64_t key) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s[mid] < key) lo = mid + 1; else hi = mid;
  }
  size_t first = lo;
  hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s[mid] <= key) lo = mid + 1; else hi = mid;
  }
  return (uint32_t)(lo - first);
}

static uint64_t make_key(uint64_t universe) {
  /* Clustered keys (small universe) create many duplicates. */
  uint64_t r = rnd64();
  return (r % universe) * 0x9E3779B97F4A7C15u + (r % 3u == 0 ? 1u : 0u);
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "hashtable: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const size_t sizes[3] = {12000, 80000, 300000};
  size_t n = sizes[dataset - 1];
  uint64_t *keys = malloc(n * sizeof *keys), *sorted = malloc(n * sizeof *sorted);
  struct table t;
  if (!keys || !sorted || !table_init(&t, 16)) {
    fprintf(stderr, "hashtable: out of memory\n");
    return 1;
  }
  for (size_t i = 0; i < n; i++) {
    keys[i] = make_key(n / 3 + 1);
    if (!table_add(&t, keys[i])) {
      fprintf(stderr, "hashtable: out of memory\n");
      return 1;
    }
  }
  memcpy(sorted, keys, n * sizeof *keys);
  qsort(sorted, n, sizeof *sorted, cmp_u64);
  size_t distinct = 0;
  for (size_t i = 0; i < n; i++)
    if (i == 0 || sorted[i] != sorted[i - 1]) distinct++;

  int ok = t.size == distinct;
  uint64_t check = 0;
  for (size_t i = 0; i < n && ok; i += 3) {
    uint32_t c = table_get(&t, keys[i]);
    if (c != sorted_count(sorted, n, keys[i])) ok = 0;
    check = check * 31u + c;
  }
  /* Delete the keys found at indices divisible by 4; keep a sorted list of
   * them to know which keys must be gone afterwards. */
  size_t ndel = (n + 3) / 4, removed = 0;
  uint64_t *deleted = malloc(ndel * sizeof *deleted);
  if (!deleted) {
    fprintf(stderr, "hashtable: out of memory\n");
    return 1;
  }
  for (size_t i = 0; i < ndel; i++) {
    deleted[i] = keys[4 * i];
    removed += (size_t)table_remove(&t, keys[4 * i]);
  }
  qsort(deleted, ndel, sizeof *deleted, cmp_u64);
  if (t.size != distinct - removed) ok = 0;
  for (size_t i = 0; i < n && ok; i++) {
    uint32_t expect = sorted_count(deleted, ndel, keys[i]) ? 0 : sorted_count(sorted, n, keys[i]);
    if (table_get(&t, keys[i]) != expect) ok = 0;
  }
  /* Keys that were never inserted must miss. */
  for (size_t i = 0; i < n / 4 && ok; i++) {
    uint64_t k = rnd64() | 0x8000000000000000u;
    if (table_get(&t, k) != sorted_count(sorted, n, k)) ok = 0;
  }
  if (!ok) {
    fprintf(stderr, "hashtable: self-check failed\n");
    return 1;
  }
  check ^= (uint64_t)t.size << 40 ^ (uint64_t)removed << 20 ^ t.probes;
  printf("checksum: %016" PRIx64 "\n", check);
  free(t.slots);
  free(deleted);
  free(keys);
  free(sorted);
  return 0;
}
