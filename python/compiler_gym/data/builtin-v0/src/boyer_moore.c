/*
 * boyer_moore -- Boyer-Moore-Horspool and full Boyer-Moore string search.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * Two texts are generated in-program by a fixed-seed PRNG: a DNA-like text
 * over {A,C,G,T} with repeats, and pseudo-English text. Patterns of length 1
 * to 48 are cut from the text (so they occur) or generated at random (so
 * they usually do not). All occurrences, overlapping ones included, are
 * reported. Usage: boyer_moore [dataset]   where dataset is 1, 2 or 3.
 *
 * Self-check: Horspool (bad-character shift only) and Boyer-Moore (bad
 * character plus good suffix) must report exactly the same occurrences as a
 * naive quadratic search, and a pattern cut from the text must be found at
 * the position it was cut from.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PAT 48

struct result {
  uint32_t count;
  uint64_t hash; /* of all match positions in order */
  int found_at;  /* required position, -1 if none */
  int has_required;
};

struct bm_tables {
  int m;
  int bad[256];
  int good[MAX_PAT];
};

static uint64_t rng = 0x94D049BB133111EBu;

static uint32_t next_u32(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 20);
}

static void report(struct result *r, size_t pos) {
  r->count++;
  r->hash = (r->hash ^ (uint64_t)pos) * 0x100000001B3u;
  if ((int)pos == r->found_at) r->has_required = 1;
}

static void result_init(struct result *r, int required) {
  r->count = 0;
  r->hash = 0xCBF29CE484222325u;
  r->found_at = required;
  r->has_required = required < 0;
}

static void naive_search(const uint8_t *t, size_t n, const uint8_t *p, int m,
                         struct result *r) {
  for (size_t j = 0; j + (size_t)m <= n; j++) {
    int i = 0;
    while (i < m && t[j + (size_t)i] == p[i]) i++;
    if (i == m) report(r, j);
  }
}

static void horspool_search(const uint8_t *t, size_t n, const uint8_t *p, int m,
                            struct result *r) {
  size_t shift[256];
  for (int c = 0; c < 256; c++) shift[c] = (size_t)m;
  for (int i = 0; i < m - 1; i++) shift[p[i]] = (size_t)(m - 1 - i);
  size_t j = 0;
  while (j + (size_t)m <= n) {
    uint8_t last = t[j + (size_t)m - 1];
    if (last == p[m - 1] && memcmp(t + j, p, (size_t)m - 1) == 0) report(r, j);
    j += shift[last];
  }
}

/* suffix[i]: longest common suffix of p[0..i] and p. */
static void bm_prepare(const uint8_t *p, int m, struct bm_tables *bt) {
  int suffix[MAX_PAT];
  bt->m = m;
  for (int c = 0; c < 256; c++) bt->bad[c] = m;
  for (int i = 0; i < m - 1; i++) bt->bad[p[i]] = m - 1 - i;
  for (int i = 0; i < m; i++) {
    int k = 0;
    while (k <= i && p[i - k] == p[m - 1 - k]) k++;
    suffix[i] = k;
  }
  for (int i = 0; i < m; i++) bt->good[i] = m;
  /* A prefix of p that is also a suffix of the matched part. */
  for (int i = m - 1, j = 0; i >= 0; i--)
    if (suffix[i] == i + 1)
      for (; j < m - 1 - i; j++)
        if (bt->good[j] == m) bt->good[j] = m - 1 - i;
  /* Another occurrence of the matched suffix inside p. */
  for (int i = 0; i < m - 1; i++) bt->good[m - 1 - suffix[i]] = m - 1 - i;
}

static void bm_search(const uint8_t *t, size_t n, const uint8_t *p,
                      const struct bm_tables *bt, struct result *r) {
  int m = bt->m;
  size_t j = 0;
  while (j + (size_t)m <= n) {
    int i = m - 1;
    while (i >= 0 && p[i] == t[j + (size_t)i]) i--;
    if (i < 0) {
      report(r, j);
      j += (size_t)bt->good[0];
    } else {
      int bc = bt->bad[t[j + (size_t)i]] - (m - 1 - i);
      j += (size_t)(bc > bt->good[i] ? bc : bt->good[i]);
    }
  }
}

static void generate_dna(uint8_t *t, size_t n) {
  static const char base[4] = {'A', 'C', 'G', 'T'};
  size_t i = 0;
  while (i < n) {
    uint32_t r = next_u32();
    if (r % 50u == 0 && i > 100) { /* copy an earlier stretch: repeats */
      size_t src = next_u32() % (i - 50), len = 10 + next_u32() % 40u;
      for (size_t k = 0; k < len && i < n; k++) t[i++] = t[src + k];
    } else if (r % 71u == 0) {
      for (int k = 0; k < 12 && i < n; k++) t[i++] = 'A';
    } else {
      t[i++] = (uint8_t)base[(r >> 8) & 3u];
    }
  }
}

static void generate_prose(uint8_t *t, size_t n) {
  static const char *syl[16] = {"the", "an", "ing", "er", "re", "on", "at", "st",
                                "en", "or", "qu", "ll", "ee", "th", "is", "and"};
  size_t i = 0;
  while (i < n) {
    int ns = 1 + (int)(next_u32() % 3u);
    for (int s = 0; s < ns; s++) {
      const char *w = syl[next_u32() % 16u];
      for (; *w && i < n; w++) t[i++] = (uint8_t)*w;
    }
    if (i < n) t[i++] = next_u32() % 9u == 0 ? ',' : ' ';
  }
}

static int run_patterns(const uint8_t *t, size_t n, int npat, int alpha, uint64_t *acc) {
  static const char letters[] = "ACGTacegilnorst ";
  uint8_t p[MAX_PAT];
  struct bm_tables bt;
  for (int k = 0; k < npat; k++) {
    int m = 1 + (int)(next_u32() % MAX_PAT), required = -1;
    if (k % 4 == 3) {
      for (int i = 0; i < m; i++) p[i] = (uint8_t)letters[next_u32() % (uint32_t)alpha];
    } else {
      if (k % 4 == 0 && m > 8) m = 2 + m % 7; /* short ones have many hits */
      required = (int)(next_u32() % (uint32_t)(n - (size_t)m));
      memcpy(p, t + required, (size_t)m);
    }
    struct result a, b, c;
    result_init(&a, required);
    result_init(&b, required);
    result_init(&c, required);
    naive_search(t, n, p, m, &a);
    horspool_search(t, n, p, m, &b);
    bm_prepare(p, m, &bt);
    bm_search(t, n, p, &bt, &c);
    if (a.count != b.count || a.count != c.count || a.hash != b.hash ||
        a.hash != c.hash || !a.has_required || !b.has_required || !c.has_required)
      return 0;
    *acc = (*acc ^ a.hash) * 0x100000001B3u + a.count;
  }
  return 1;
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "boyer_moore: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const size_t lens[3] = {16000, 64000, 256000};
  static const int npats[3] = {16, 28, 48};
  size_t n = lens[dataset - 1];
  uint8_t *dna = malloc(n), *prose = malloc(n);
  if (!dna || !prose) {
    fprintf(stderr, "boyer_moore: out of memory\n");
    return 1;
  }
  generate_dna(dna, n);
  generate_prose(prose, n);
  uint64_t acc = 0xCBF29CE484222325u;
  if (!run_patterns(dna, n, npats[dataset - 1], 4, &acc) ||
      !run_patterns(prose, n, npats[dataset - 1], 16, &acc)) {
    fprintf(stderr, "boyer_moore: search results disagree\n");
    return 1;
  }
  printf("checksum: %016" PRIx64 "\n", acc);
  free(prose);
  free(dna);
  return 0;
}
