/*
 * huffman -- canonical Huffman compression and decompression of bytes.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * Text-like input with a skewed symbol distribution is generated in-program
 * by a fixed-seed PRNG. A Huffman tree is built with a binary min-heap,
 * converted to canonical codes, the input is packed into a bit stream and
 * then decoded with the canonical (first-code per length) decoder.
 * Usage: huffman [dataset]   where dataset is 1, 2 or 3 (default 1).
 *
 * Self-check: the decoded data must equal the input, the code lengths must
 * satisfy the Kraft equality, and the stream length must equal
 * sum(freq * length).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSYM 256
#define MAXLEN 32

struct node {
  uint64_t freq;
  int left, right; /* -1 for leaves */
  int symbol;
};

struct codebook {
  uint8_t len[NSYM];
  uint32_t code[NSYM];
  /* canonical decoding tables */
  uint32_t count[MAXLEN + 1];
  uint32_t first[MAXLEN + 1];
  uint32_t offset[MAXLEN + 1];
  uint8_t sorted[NSYM];
};

struct bitwriter {
  uint8_t *buf;
  size_t pos; /* in bits */
};

static uint32_t rs = 0x0BADCAFEu;

static uint32_t rnd(void) {
  rs ^= rs << 13;
  rs ^= rs >> 17;
  rs ^= rs << 5;
  return rs;
}

static void make_text(uint8_t *buf, size_t n) {
  static const char *const words[] = {"the ", "of ", "compiler ", "and ", "a ",
                                      "loop ", "to ", "in ", "pass ", "is ",
                                      "vector ", "register ", "\n", ", ", "inline "};
  const size_t nw = sizeof words / sizeof words[0];
  size_t i = 0;
  while (i < n) {
    uint32_t r = rnd();
    if ((r & 31u) == 0) {
      buf[i++] = (uint8_t)(rnd() & 0xFFu); /* rare arbitrary byte */
      continue;
    }
    /* Skewed word choice: the minimum of two draws favours low indices. */
    size_t w1 = (r >> 5) % nw, w2 = (r >> 13) % nw;
    const char *w = words[w1 < w2 ? w1 : w2];
    for (size_t k = 0; w[k] && i < n; k++) buf[i++] = (uint8_t)w[k];
  }
}

/* Heap ordered by (freq, index) so that ties are broken deterministically. */
static int node_less(const struct node *nodes, int a, int b) {
  if (nodes[a].freq != nodes[b].freq) return nodes[a].freq < nodes[b].freq;
  return a < b;
}

static void heap_push(int *heap, int *size, const struct node *nodes, int v) {
  int i = (*size)++;
  heap[i] = v;
  while (i > 0 && node_less(nodes, heap[i], heap[(i - 1) / 2])) {
    int t = heap[i];
    heap[i] = heap[(i - 1) / 2];
    heap[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
}

static int heap_pop(int *heap, int *size, const struct node *nodes) {
  int top = heap[0];
  heap[0] = heap[--(*size)];
  int i = 0;
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < *size && node_less(nodes, heap[l], heap[m])) m = l;
    if (r < *size && node_less(nodes, heap[r], heap[m])) m = r;
    if (m == i) break;
    int t = heap[i];
    heap[i] = heap[m];
    heap[m] = t;
    i = m;
  }
  return top;
}

static void assign_lengths(const struct node *nodes, int v, int depth, uint8_t *len) {
  if (nodes[v].left < 0) {
    len[nodes[v].symbol] = (uint8_t)(depth == 0 ? 1 : depth);
    return;
  }
  assign_lengths(nodes, nodes[v].left, depth + 1, len);
  assign_lengths(nodes, nodes[v].right, depth + 1, len);
}

static int build_code_lengths(const uint64_t *freq, uint8_t *len) {
  struct node nodes[2 * NSYM];
  int heap[2 * NSYM], hsize = 0, nn = 0;
  memset(len, 0, NSYM);
  for (int s = 0; s < NSYM; s++) {
    if (freq[s] == 0) continue;
    nodes[nn] = (struct node){freq[s], -1, -1, s};
    heap_push(heap, &hsize, nodes, nn++);
  }
  if (nn == 0) return 0;
  while (hsize > 1) {
    int a = heap_pop(heap, &hsize, nodes);
    int b = heap_pop(heap, &hsize, nodes);
    nodes[nn] = (struct node){nodes[a].freq + nodes[b].freq, a, b, -1};
    heap_push(heap, &hsize, nodes, nn++);
  }
  assign_lengths(nodes, heap[0], 0, len);
  for (int s = 0; s < NSYM; s++)
    if (len[s] > MAXLEN) return 0;
  return 1;
}

static void build_canonical(struct codebook *cb) {
  memset(cb->count, 0, sizeof cb->count);
  for (int s = 0; s < NSYM; s++) cb->count[cb->len[s]]++;
  cb->count[0] = 0;
  uint32_t code = 0, idx = 0;
  for (int l = 1; l <= MAXLEN; l++) {
    code = (code + cb->count[l - 1]) << 1;
    cb->first[l] = code;
    cb->offset[l] = idx;
    idx += cb->count[l];
  }
  uint32_t next[MAXLEN + 1];
  memcpy(next, cb->first, sizeof next);
  uint32_t fill[MAXLEN + 1];
  memcpy(fill, cb->offset, sizeof fill);
  for (int s = 0; s < NSYM; s++) {
    int l = cb->len[s];
    if (l == 0) continue;
    cb->code[s] = next[l]++;
    cb->sorted[fill[l]++] = (uint8_t)s;
  }
}

static void put_bits(struct bitwriter *w, uint32_t code, int len) {
  for (int b = len - 1; b >= 0; b--) {
    if ((code >> b) & 1u) w->buf[w->pos >> 3] |= (uint8_t)(0x80u >> (w->pos & 7));
    w->pos++;
  }
}

static int decode(const struct codebook *cb, const uint8_t *bits, size_t nbits,
                  uint8_t *out, size_t n) {
  size_t pos = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t code = 0;
    int l = 0;
    for (;;) {
      if (pos >= nbits || l >= MAXLEN) return 0;
      code = (code << 1) | ((bits[pos >> 3] >> (7 - (pos & 7))) & 1u);
      pos++;
      l++;
      if (code - cb->first[l] < cb->count[l]) break;
    }
    out[i] = cb->sorted[cb->offset[l] + (code - cb->first[l])];
  }
  return pos == nbits;
}

static int kraft_ok(const uint8_t *len) {
  /* sum 2^(MAXLEN - len) must be exactly 2^MAXLEN (more than one symbol). */
  uint64_t sum = 0;
  int used = 0;
  for (int s = 0; s < NSYM; s++)
    if (len[s]) {
      sum += (uint64_t)1 << (MAXLEN - len[s]);
      used++;
    }
  return used < 2 || sum == ((uint64_t)1 << MAXLEN);
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "huffman: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const size_t sizes[3] = {40000, 300000, 2400000};
  size_t n = sizes[dataset - 1];
  uint8_t *text = malloc(n), *out = malloc(n);
  uint8_t *bits = calloc(n * MAXLEN / 8 + 8, 1);
  struct codebook *cb = calloc(1, sizeof *cb);
  if (!text || !out || !bits || !cb) {
    fprintf(stderr, "huffman: out of memory\n");
    return 1;
  }
  make_text(text, n);
  uint64_t freq[NSYM] = {0};
  for (size_t i = 0; i < n; i++) freq[text[i]]++;
  if (!build_code_lengths(freq, cb->len) || !kraft_ok(cb->len)) {
    fprintf(stderr, "huffman: invalid code lengths\n");
    return 1;
  }
  build_canonical(cb);

  struct bitwriter w = {bits, 0};
  for (size_t i = 0; i < n; i++) put_bits(&w, cb->code[text[i]], cb->len[text[i]]);
  uint64_t expect_bits = 0;
  for (int s = 0; s < NSYM; s++) expect_bits += freq[s] * cb->len[s];
  if (expect_bits != w.pos) {
    fprintf(stderr, "huffman: stream length mismatch\n");
    return 1;
  }
  if (!decode(cb, bits, w.pos, out, n) || memcmp(text, out, n) != 0) {
    fprintf(stderr, "huffman: decoded data differs from input\n");
    return 1;
  }
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < (w.pos + 7) / 8; i++) h = (h ^ bits[i]) * 16777619u;
  printf("checksum: %016" PRIx64 "\n", ((uint64_t)w.pos << 32) | h);
  free(text);
  free(out);
  free(bits);
  free(cb);
  return 0;
}
