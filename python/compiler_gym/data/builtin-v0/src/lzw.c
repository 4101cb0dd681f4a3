/*
 * lzw -- Lempel-Ziv-Welch compression and decompression.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * The input mixes pseudo-English text, repeated phrases, byte runs and
 * random bytes, generated in-program by a fixed-seed PRNG. Codes are 9 to
 * 12 bits wide, packed LSB-first; code 256 clears the dictionary when it is
 * full and 257 ends the stream. Usage: lzw [dataset]   (1, 2 or 3).
 *
 * Self-check: an encoder with a hashed dictionary and one with a
 * child/sibling trie must produce identical bit streams, and the decoder
 * (which handles the code-not-yet-defined case) must restore the input.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BITS 12
#define MAX_CODES (1 << MAX_BITS)
#define CLEAR 256
#define STOP 257
#define FIRST_FREE 258
#define HASH_SIZE 5021 /* prime, above MAX_CODES */

struct bitio {
  uint8_t *buf;
  size_t pos, cap;
  uint32_t acc;
  int nbits;
};

struct hash_dict {
  int32_t key[HASH_SIZE]; /* prefix << 8 | byte, or -1 */
  int16_t code[HASH_SIZE];
  int next;
};

struct trie_dict {
  int16_t child[MAX_CODES], sibling[MAX_CODES];
  uint8_t byte[MAX_CODES];
  int next;
};

static uint32_t rng_state = 0x9E3779B9u;

static uint32_t xorshift32(void) {
  uint32_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  rng_state = x;
  return x;
}

/* Code width needed while `next` dictionary entries exist. */
static int code_width(int next) {
  int w = 9;
  while (w < MAX_BITS && (1 << w) < next) w++;
  return w;
}

static void put_bits(struct bitio *b, uint32_t code, int width) {
  b->acc |= code << b->nbits;
  b->nbits += width;
  while (b->nbits >= 8) {
    if (b->pos < b->cap) b->buf[b->pos] = (uint8_t)b->acc;
    b->pos++;
    b->acc >>= 8;
    b->nbits -= 8;
  }
}

static void flush_bits(struct bitio *b) {
  if (b->nbits > 0) put_bits(b, 0, 8 - b->nbits);
}

static int get_bits(struct bitio *b, int width) {
  while (b->nbits < width) {
    if (b->pos >= b->cap) return -1;
    b->acc |= (uint32_t)b->buf[b->pos++] << b->nbits;
    b->nbits += 8;
  }
  int code = (int)(b->acc & ((1u << width) - 1u));
  b->acc >>= width;
  b->nbits -= width;
  return code;
}

static void hash_reset(struct hash_dict *d) {
  for (int i = 0; i < HASH_SIZE; i++) d->key[i] = -1;
  d->next = FIRST_FREE;
}

/* Returns the slot holding key, or the empty slot where it belongs. */
static int hash_slot(const struct hash_dict *d, int32_t key) {
  int h = (int)(((uint32_t)key * 2654435761u) >> 8) % HASH_SIZE;
  while (d->key[h] != -1 && d->key[h] != key) h = h + 1 == HASH_SIZE ? 0 : h + 1;
  return h;
}

static size_t encode_hash(const uint8_t *in, size_t n, struct bitio *out, struct hash_dict *d) {
  hash_reset(d);
  int w = in[0];
  for (size_t i = 1; i < n; i++) {
    int32_t key = (int32_t)w << 8 | in[i];
    int h = hash_slot(d, key);
    if (d->key[h] == key) {
      w = d->code[h];
      continue;
    }
    put_bits(out, (uint32_t)w, code_width(d->next));
    if (d->next < MAX_CODES) {
      d->key[h] = key;
      d->code[h] = (int16_t)d->next++;
    } else {
      put_bits(out, CLEAR, MAX_BITS);
      hash_reset(d);
    }
    w = in[i];
  }
  put_bits(out, (uint32_t)w, code_width(d->next));
  put_bits(out, STOP, code_width(d->next));
  flush_bits(out);
  return out->pos;
}

static void trie_reset(struct trie_dict *d) {
  for (int i = 0; i < MAX_CODES; i++) d->child[i] = -1;
  d->next = FIRST_FREE;
}

static size_t encode_trie(const uint8_t *in, size_t n, struct bitio *out, struct trie_dict *d) {
  trie_reset(d);
  int w = in[0];
  for (size_t i = 1; i < n; i++) {
    int c = d->child[w];
    while (c >= 0 && d->byte[c] != in[i]) c = d->sibling[c];
    if (c >= 0) {
      w = c;
      continue;
    }
    put_bits(out, (uint32_t)w, code_width(d->next));
    if (d->next < MAX_CODES) {
      int e = d->next++;
      d->byte[e] = in[i];
      d->child[e] = -1;
      d->sibling[e] = d->child[w];
      d->child[w] = (int16_t)e;
    } else {
      put_bits(out, CLEAR, MAX_BITS);
      trie_reset(d);
    }
    w = in[i];
  }
  put_bits(out, (uint32_t)w, code_width(d->next));
  put_bits(out, STOP, code_width(d->next));
  flush_bits(out);
  return out->pos;
}

/* Returns the decoded length, or (size_t)-1 on a malformed stream. */
static size_t decode(struct bitio *in, uint8_t *out, size_t cap) {
  static int16_t prefix[MAX_CODES];
  static uint8_t suffix[MAX_CODES], first[MAX_CODES], stack[MAX_CODES];
  int next = FIRST_FREE, prev = -1;
  size_t n = 0;
  for (int c = 0; c < 256; c++) {
    prefix[c] = -1;
    suffix[c] = first[c] = (uint8_t)c;
  }
  for (;;) {
    int code = get_bits(in, code_width(prev < 0 ? next : next + 1));
    if (code < 0) return (size_t)-1;
    if (code == STOP) return n;
    if (code == CLEAR) {
      next = FIRST_FREE;
      prev = -1;
      continue;
    }
    if (code > next || (code == next && prev < 0) || (prev < 0 && code >= 256)) return (size_t)-1;
    uint8_t head = code == next ? first[prev] : first[code];
    if (prev >= 0 && next < MAX_CODES) { /* the entry the encoder made last */
      prefix[next] = (int16_t)prev;
      suffix[next] = head;
      first[next] = first[prev];
      next++;
    }
    int sp = 0;
    for (int c = code; c >= 0; c = prefix[c]) stack[sp++] = suffix[c];
    if (n + (size_t)sp > cap) return (size_t)-1;
    while (sp > 0) out[n++] = stack[--sp];
    prev = code;
  }
}

static void generate(uint8_t *buf, size_t n) {
  static const char *words[] = {"the ", "data ", "of ", "compress", "ion ", "and ",
                                "table ", "code", "s ", "string ", "to ", "in "};
  size_t i = 0;
  while (i < n) {
    uint32_t kind = xorshift32() % 10u, len = 200 + xorshift32() % 1800u;
    for (uint32_t k = 0; k < len && i < n; k++) {
      if (kind < 6) { /* text */
        const char *w = words[xorshift32() % 12u];
        for (; *w && i < n; w++, k++) buf[i++] = (uint8_t)*w;
      } else if (kind < 7) { /* runs */
        buf[i++] = (uint8_t)(k / 64 * 37);
      } else if (kind < 9 && i > 500) { /* repeat an earlier phrase */
        buf[i] = buf[i - 300 - (k / 100) % 7];
        i++;
      } else {
        buf[i++] = (uint8_t)xorshift32();
      }
    }
  }
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "lzw: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const size_t sizes[3] = {36000, 300000, 2000000};
  size_t n = sizes[dataset - 1], cap = n * 2 + 16;
  uint8_t *in = calloc(n, 1), *c1 = malloc(cap), *c2 = malloc(cap), *back = malloc(n);
  struct hash_dict *hd = malloc(sizeof *hd);
  struct trie_dict *td = malloc(sizeof *td);
  if (!in || !c1 || !c2 || !back || !hd || !td) {
    fprintf(stderr, "lzw: out of memory\n");
    return 1;
  }
  generate(in, n);
  struct bitio b1 = {c1, 0, cap, 0, 0}, b2 = {c2, 0, cap, 0, 0};
  size_t len1 = encode_hash(in, n, &b1, hd), len2 = encode_trie(in, n, &b2, td);
  if (len1 > cap || len1 != len2 || memcmp(c1, c2, len1) != 0) {
    fprintf(stderr, "lzw: the two encoders disagree\n");
    return 1;
  }
  struct bitio rd = {c1, 0, len1, 0, 0};
  if (decode(&rd, back, n) != n || memcmp(back, in, n) != 0) {
    fprintf(stderr, "lzw: round trip failed\n");
    return 1;
  }
  uint64_t acc = 0xCBF29CE484222325u;
  for (size_t i = 0; i < len1; i++) acc = (acc ^ c1[i]) * 0x100000001B3u;
  acc ^= (uint64_t)len1 << 40;
  printf("checksum: %016" PRIx64 "\n", acc);
  free(td), free(hd), free(back), free(c2), free(c1), free(in);
  return 0;
}
