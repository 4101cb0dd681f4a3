/*
 * bwt -- Burrows-Wheeler transform, move-to-front and zero-run coding.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * Pseudo-English text (words built from random syllables, picked with a
 * skewed distribution) is generated in-program by a fixed-seed PRNG and cut
 * into blocks, as bzip2 does. Each block is transformed: the rotations are
 * sorted by prefix doubling with radix sorts, then move-to-front coding and
 * bijective base-2 coding of zero runs (RUNA/RUNB) follow. Everything is
 * decoded again. Usage: bwt [dataset]   where dataset is 1, 2 or 3.
 *
 * Self-check: every stage must round-trip exactly, and on one block per run
 * the transform must match a naive comparison sort of all rotations.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct block {
  const uint8_t *data;
  int32_t n;
  int32_t primary;   /* row of the sorted rotations that starts at 0 */
  uint8_t *last;     /* last column of the sorted rotations */
  int32_t *sa;       /* sorted rotation start positions */
};

struct workspace {
  int32_t *rank, *tmp, *sa2, *count;
  uint16_t *runs;
  uint8_t *mtf, *back;
};

static uint64_t rng = 0x2545F4914F6CDD1Du;

static uint32_t next_u32(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}

static void generate_text(uint8_t *out, size_t n) {
  static const char cons[] = "bcdfghklmnprstvwz", vow[] = "aeiou";
  char words[200][12];
  for (int w = 0; w < 200; w++) {
    int syl = 1 + (int)(next_u32() % 3u), len = 0;
    for (int s = 0; s < syl; s++) {
      words[w][len++] = cons[next_u32() % 17u];
      words[w][len++] = vow[next_u32() % 5u];
      if (next_u32() % 3u == 0) words[w][len++] = cons[next_u32() % 17u];
    }
    words[w][len] = '\0';
  }
  size_t pos = 0;
  while (pos < n) {
    uint32_t r = next_u32();
    const char *w = words[r % (next_u32() % 200u + 1u)]; /* skewed to small ids */
    for (size_t k = 0; w[k] && pos < n; k++) out[pos++] = (uint8_t)w[k];
    if (pos < n) out[pos++] = (uint8_t)(r % 11u == 0 ? '.' : r % 17u == 0 ? '\n' : ' ');
    if (r % 97u == 0)
      for (int k = 0; k < 40 && pos < n; k++) out[pos++] = '-';
  }
}

/* Sort the cyclic rotations by prefix doubling; keys are (rank[i], rank[i+k]). */
static void sort_rotations(struct block *b, struct workspace *ws) {
  int32_t n = b->n, *sa = b->sa, *rank = ws->rank, *tmp = ws->tmp, *sa2 = ws->sa2;
  int32_t *cnt = ws->count, classes = 256;
  for (int32_t i = 0; i < n; i++) rank[i] = b->data[i];
  for (int32_t k = 0;; k = k ? 2 * k : 1) {
    /* Order by the second key: for k > 0 it is the previous order shifted. */
    for (int32_t i = 0; i < n; i++) sa2[i] = k ? (sa[i] - k + n) % n : i;
    /* Stable counting sort by the first key. */
    memset(cnt, 0, (size_t)(classes + 1) * sizeof *cnt);
    for (int32_t i = 0; i < n; i++) cnt[rank[i] + 1]++;
    for (int32_t c = 0; c < classes; c++) cnt[c + 1] += cnt[c];
    for (int32_t i = 0; i < n; i++) sa[cnt[rank[sa2[i]]]++] = sa2[i];
    /* Re-rank: a new class starts where either key changes. */
    int32_t c = 0;
    tmp[sa[0]] = 0;
    for (int32_t i = 1; i < n; i++) {
      int32_t a = sa[i - 1], d = sa[i];
      if (rank[a] != rank[d] || (k && rank[(a + k) % n] != rank[(d + k) % n])) c++;
      tmp[d] = c;
    }
    memcpy(rank, tmp, (size_t)n * sizeof *rank);
    classes = c + 1;
    if (classes == n || (k && 2 * k >= n)) break;
  }
  for (int32_t i = 0; i < n; i++) {
    int32_t s = sa[i];
    b->last[i] = b->data[(s + n - 1) % n];
    if (s == 0) b->primary = i;
  }
}

static void inverse_bwt(const uint8_t *last, int32_t n, int32_t primary,
                        int32_t *lf, uint8_t *out) {
  int32_t count[256] = {0}, start[256], seen[256] = {0};
  for (int32_t i = 0; i < n; i++) count[last[i]]++;
  for (int c = 0, sum = 0; c < 256; c++) {
    start[c] = sum;
    sum += count[c];
  }
  for (int32_t i = 0; i < n; i++) lf[i] = start[last[i]] + seen[last[i]]++;
  for (int32_t i = primary, k = n - 1; k >= 0; k--) {
    out[k] = last[i];
    i = lf[i];
  }
}

static void mtf_encode(const uint8_t *in, int32_t n, uint8_t *out) {
  uint8_t order[256];
  for (int c = 0; c < 256; c++) order[c] = (uint8_t)c;
  for (int32_t i = 0; i < n; i++) {
    uint8_t c = in[i], j = 0;
    while (order[j] != c) j++;
    out[i] = j;
    memmove(order + 1, order, j);
    order[0] = c;
  }
}

static void mtf_decode(const uint8_t *in, int32_t n, uint8_t *out) {
  uint8_t order[256];
  for (int c = 0; c < 256; c++) order[c] = (uint8_t)c;
  for (int32_t i = 0; i < n; i++) {
    uint8_t j = in[i], c = order[j];
    out[i] = c;
    memmove(order + 1, order, j);
    order[0] = c;
  }
}

/* Zero runs become digits RUNA=0/RUNB=1 (bijective base 2); v>0 -> v+1. */
static int32_t zrle_encode(const uint8_t *in, int32_t n, uint16_t *out) {
  int32_t m = 0;
  for (int32_t i = 0; i < n;) {
    if (in[i] != 0) {
      out[m++] = (uint16_t)(in[i++] + 1);
      continue;
    }
    uint32_t run = 0;
    while (i < n && in[i] == 0) run++, i++;
    for (; run > 0; run = (run - 1) / 2) out[m++] = (uint16_t)((run - 1) & 1u);
  }
  return m;
}

static int32_t zrle_decode(const uint16_t *in, int32_t m, uint8_t *out, int32_t cap) {
  int32_t n = 0;
  for (int32_t i = 0; i < m;) {
    if (in[i] > 1) {
      if (n >= cap) return -1;
      out[n++] = (uint8_t)(in[i++] - 1);
      continue;
    }
    uint32_t run = 0, weight = 1;
    for (; i < m && in[i] <= 1; i++, weight *= 2) run += weight * (in[i] + 1u);
    if (run > (uint32_t)(cap - n)) return -1;
    memset(out + n, 0, run);
    n += (int32_t)run;
  }
  return n;
}

/* Naive reference for one block: qsort with a cyclic comparison. */
static const struct block *cmp_block;

static int cmp_rotation(const void *x, const void *y) {
  int32_t a = *(const int32_t *)x, b = *(const int32_t *)y, n = cmp_block->n;
  for (int32_t k = 0; k < n; k++) {
    uint8_t ca = cmp_block->data[(a + k) % n], cb = cmp_block->data[(b + k) % n];
    if (ca != cb) return ca < cb ? -1 : 1;
  }
  return 0;
}

static int naive_matches(const struct block *b, int32_t *idx) {
  for (int32_t i = 0; i < b->n; i++) idx[i] = i;
  cmp_block = b;
  qsort(idx, (size_t)b->n, sizeof *idx, cmp_rotation);
  for (int32_t i = 0; i < b->n; i++)
    if (b->data[(idx[i] + b->n - 1) % b->n] != b->last[i]) return 0;
  return 1;
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "bwt: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const int32_t total[3] = {12000, 80000, 640000};
  static const int32_t block_size[3] = {4000, 20000, 80000};
  int32_t len = total[dataset - 1], bs = block_size[dataset - 1];
  uint8_t *text = malloc((size_t)len), *last = malloc((size_t)bs);
  int32_t *sa = malloc((size_t)bs * sizeof *sa);
  struct workspace ws;
  ws.rank = malloc((size_t)bs * sizeof(int32_t));
  ws.tmp = malloc((size_t)bs * sizeof(int32_t));
  ws.sa2 = malloc((size_t)bs * sizeof(int32_t));
  ws.count = malloc((size_t)(bs + 257) * sizeof(int32_t));
  ws.runs = malloc((size_t)bs * sizeof(uint16_t));
  ws.mtf = malloc((size_t)bs);
  ws.back = malloc((size_t)bs);
  if (!text || !last || !sa || !ws.rank || !ws.tmp || !ws.sa2 || !ws.count ||
      !ws.runs || !ws.mtf || !ws.back) {
    fprintf(stderr, "bwt: out of memory\n");
    return 1;
  }
  generate_text(text, (size_t)len);
  uint64_t acc = 0xCBF29CE484222325u;
  for (int32_t off = 0; off < len; off += bs) {
    struct block b = {text + off, len - off < bs ? len - off : bs, -1, last, sa};
    sort_rotations(&b, &ws);
    if (off == 0 && !naive_matches(&b, ws.tmp)) {
      fprintf(stderr, "bwt: transform differs from the naive rotation sort\n");
      return 1;
    }
    mtf_encode(b.last, b.n, ws.mtf);
    int32_t m = zrle_encode(ws.mtf, b.n, ws.runs);
    for (int32_t i = 0; i < m; i++) acc = (acc ^ ws.runs[i]) * 0x100000001B3u;
    acc = (acc ^ (uint32_t)b.primary) * 0x100000001B3u;
    /* Decode: runs -> MTF symbols -> last column -> original text. */
    if (zrle_decode(ws.runs, m, ws.back, bs) != b.n) {
      fprintf(stderr, "bwt: zero-run decoding failed\n");
      return 1;
    }
    mtf_decode(ws.back, b.n, ws.mtf);
    inverse_bwt(ws.mtf, b.n, b.primary, ws.rank, ws.back);
    if (memcmp(ws.back, b.data, (size_t)b.n) != 0) {
      fprintf(stderr, "bwt: round trip failed at offset %" PRId32 "\n", off);
      return 1;
    }
  }
  printf("checksum: %016" PRIx64 "\n", acc);
  free(ws.back), free(ws.mtf), free(ws.runs), free(ws.count), free(ws.sa2);
  free(ws.tmp), free(ws.rank), free(sa), free(last), free(text);
  return 0;
}
