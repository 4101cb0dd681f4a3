/*
 * sort_merge -- merge sort, heap sort and k-way merging of records.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * Records (a group, a key, a name and a sequence number) are generated
 * in-program by a fixed-seed PRNG, with many duplicate keys. They are
 * sorted by (group ascending, key descending, name) with a bottom-up merge
 * sort that first extends natural runs, with an indirect heap sort on an
 * index array, and by sorting fixed-size chunks with insertion sort and
 * merging them through a min-heap of chunk heads.
 * Usage: sort_merge [dataset]   where dataset is 1, 2 or 3 (default 1).
 *
 * Self-check: the three orders must be identical once ties are broken by
 * sequence number; the merge sort, being stable, must keep equal records in
 * input order without that tie-break; and the sorted data must be a
 * permutation of the input.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 64

struct record {
  uint16_t group;
  uint32_t key;
  uint32_t seq;
  char name[6];
};

struct head { /* a chunk's current record during the k-way merge */
  const struct record *rec;
  size_t pos, end;
};

static uint64_t rng = 0x5851F42D4C957F2Du;

static uint32_t next_u32(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}

/* Order without the tie-break: group up, key down, then name. */
static int cmp_loose(const struct record *a, const struct record *b) {
  if (a->group != b->group) return a->group < b->group ? -1 : 1;
  if (a->key != b->key) return a->key > b->key ? -1 : 1;
  return strcmp(a->name, b->name);
}

static int cmp_total(const struct record *a, const struct record *b) {
  int c = cmp_loose(a, b);
  if (c) return c;
  return (a->seq > b->seq) - (a->seq < b->seq);
}

typedef int (*cmp_fn)(const struct record *, const struct record *);

static void merge(const struct record *src, struct record *dst, size_t lo, size_t mid,
                  size_t hi, cmp_fn cmp) {
  size_t i = lo, j = mid, k = lo;
  while (i < mid && j < hi) dst[k++] = cmp(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
  while (i < mid) dst[k++] = src[i++];
  while (j < hi) dst[k++] = src[j++];
}

/* Bottom-up merge sort; the first pass merges natural ascending runs. */
static void merge_sort(struct record *a, struct record *tmp, size_t n, cmp_fn cmp) {
  size_t *runs = malloc((n + 1) * sizeof *runs), nruns = 0;
  if (!runs) return;
  runs[nruns++] = 0;
  for (size_t i = 1; i < n; i++)
    if (cmp(&a[i], &a[i - 1]) < 0) runs[nruns++] = i;
  runs[nruns] = n;
  struct record *src = a, *dst = tmp;
  while (nruns > 1) {
    size_t out = 0;
    for (size_t r = 0; r < nruns; r += 2) {
      size_t lo = runs[r], mid = runs[r + 1], hi = r + 2 <= nruns ? runs[r + 2] : mid;
      if (r + 1 < nruns) merge(src, dst, lo, mid, hi, cmp);
      else memcpy(dst + lo, src + lo, (mid - lo) * sizeof *src);
      runs[out++] = lo;
    }
    runs[out] = n;
    nruns = out;
    struct record *t = src;
    src = dst;
    dst = t;
  }
  if (src != a) memcpy(a, src, n * sizeof *a);
  free(runs);
}

static void sift_down(const struct record *recs, uint32_t *idx, size_t root, size_t n) {
  uint32_t v = idx[root];
  for (;;) {
    size_t child = 2 * root + 1;
    if (child >= n) break;
    if (child + 1 < n && cmp_total(&recs[idx[child + 1]], &recs[idx[child]]) > 0) child++;
    if (cmp_total(&recs[v], &recs[idx[child]]) >= 0) break;
    idx[root] = idx[child];
    root = child;
  }
  idx[root] = v;
}

/* Indirect heap sort: sorts an index array, records stay in place. */
static void heap_sort_indices(const struct record *recs, uint32_t *idx, size_t n) {
  for (size_t i = 0; i < n; i++) idx[i] = (uint32_t)i;
  for (size_t i = n / 2; i-- > 0;) sift_down(recs, idx, i, n);
  for (size_t end = n; end-- > 1;) {
    uint32_t t = idx[0];
    idx[0] = idx[end];
    idx[end] = t;
    sift_down(recs, idx, 0, end);
  }
}

static void insertion_sort(struct record *a, size_t n) {
  for (size_t i = 1; i < n; i++) {
    struct record v = a[i];
    size_t j = i;
    while (j > 0 && cmp_total(&v, &a[j - 1]) < 0) {
      a[j] = a[j - 1];
      j--;
    }
    a[j] = v;
  }
}

static void heap_fix(struct head *h, size_t k, size_t n) {
  for (;;) {
    size_t c = 2 * k + 1;
    if (c >= n) return;
    if (c + 1 < n && cmp_total(h[c + 1].rec, h[c].rec) < 0) c++;
    if (cmp_total(h[k].rec, h[c].rec) <= 0) return;
    struct head t = h[k];
    h[k] = h[c];
    h[c] = t;
    k = c;
  }
}

/* Sort CHUNK-sized pieces, then merge them all with a min-heap. */
static void chunk_merge_sort(struct record *a, struct record *out, size_t n) {
  size_t nchunks = (n + CHUNK - 1) / CHUNK, nh = 0;
  struct head *h = malloc(nchunks * sizeof *h);
  if (!h) return;
  for (size_t s = 0; s < n; s += CHUNK) {
    size_t e = s + CHUNK < n ? s + CHUNK : n;
    insertion_sort(a + s, e - s);
    h[nh++] = (struct head){&a[s], s, e};
  }
  for (size_t i = nh / 2; i-- > 0;) heap_fix(h, i, nh);
  for (size_t k = 0; k < n; k++) {
    out[k] = *h[0].rec;
    if (++h[0].pos < h[0].end) h[0].rec = &a[h[0].pos];
    else h[0] = h[--nh];
    heap_fix(h, 0, nh);
  }
  free(h);
}

static void generate(struct record *r, size_t n) {
  uint32_t nkeys = (uint32_t)(n / 8 + 1);
  for (size_t i = 0; i < n; i++) {
    uint32_t x = next_u32();
    r[i].group = (uint16_t)(x % 13u);
    r[i].key = next_u32() % nkeys;
    r[i].seq = (uint32_t)i;
    for (int k = 0; k < 5; k++) r[i].name[k] = (char)('a' + (x >> (4 + 3 * k)) % 3u);
    r[i].name[5] = '\0';
    if (i % 500 < 60 && i > 0) { /* stretches of equal records test stability */
      r[i] = r[i - 1];
      r[i].seq = (uint32_t)i;
    }
  }
}

static uint64_t fingerprint(const struct record *r) {
  uint64_t z = ((uint64_t)r->seq << 32 | r->key) ^ ((uint64_t)r->group << 20) ^ (uint8_t)r->name[0];
  z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9u;
  return z ^ (z >> 29);
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "sort_merge: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const size_t sizes[3] = {4000, 24000, 150000};
  size_t n = sizes[dataset - 1];
  struct record *orig = malloc(n * sizeof *orig), *ms = malloc(n * sizeof *ms);
  struct record *stable = malloc(n * sizeof *stable), *tmp = malloc(n * sizeof *tmp);
  struct record *km = malloc(n * sizeof *km);
  uint32_t *idx = malloc(n * sizeof *idx);
  if (!orig || !ms || !stable || !tmp || !km || !idx) {
    fprintf(stderr, "sort_merge: out of memory\n");
    return 1;
  }
  generate(orig, n);
  memcpy(ms, orig, n * sizeof *orig);
  memcpy(stable, orig, n * sizeof *orig);
  merge_sort(ms, tmp, n, cmp_total);
  merge_sort(stable, tmp, n, cmp_loose);
  heap_sort_indices(orig, idx, n);
  memcpy(tmp, orig, n * sizeof *orig);
  chunk_merge_sort(tmp, km, n);

  uint64_t before = 0, after = 0, acc = 0xCBF29CE484222325u;
  int ok = 1;
  for (size_t i = 0; i < n; i++) {
    const struct record *h = &orig[idx[i]];
    before += fingerprint(&orig[i]);
    after += fingerprint(&ms[i]);
    if (ms[i].seq != h->seq || km[i].seq != h->seq || stable[i].seq != h->seq) ok = 0;
    if (i > 0 && cmp_total(&ms[i - 1], &ms[i]) >= 0) ok = 0;
    acc = (acc ^ ms[i].seq) * 0x100000001B3u;
  }
  if (!ok || before != after) {
    fprintf(stderr, "sort_merge: sorted orders disagree\n");
    return 1;
  }
  printf("checksum: %016" PRIx64 "\n", acc);
  free(idx), free(km), free(tmp), free(stable), free(ms), free(orig);
  return 0;
}
