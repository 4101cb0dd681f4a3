/*
 * bitcount -- population count with several different algorithms.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * Input words are generated in-program by a fixed-seed PRNG with varying bit
 * densities.
 * Usage: bitcount [dataset]   where dataset is 1, 2 or 3 (default 1).
 *
 * Self-check: all methods must agree on every word, and the total must
 * match a per-bit-position column count.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned (*count_fn)(uint32_t);

struct method {
  const char *name;
  count_fn fn;
  uint64_t total;
};

static uint8_t byte_table[256];
static const uint8_t nibble_table[16] = {0, 1, 1, 2, 1, 2, 2, 3,
                                         1, 2, 2, 3, 2, 3, 3, 4};

static uint64_t state = 0x1234ABCD5678EF01u;

static uint32_t rand32(void) {
  state = state * 6364136223846793005u + 1u;
  return (uint32_t)(state >> 32);
}

/* Shift and test every bit. */
static unsigned count_shift(uint32_t x) {
  unsigned n = 0;
  for (int i = 0; i < 32; i++) {
    n += x & 1u;
    x >>= 1;
  }
  return n;
}

/* Kernighan: clear the lowest set bit until none is left. */
static unsigned count_sparse(uint32_t x) {
  unsigned n = 0;
  while (x) {
    x &= x - 1;
    n++;
  }
  return n;
}

/* Count the zero bits instead, good for dense words. */
static unsigned count_dense(uint32_t x) {
  unsigned n = 32;
  x = ~x;
  while (x) {
    x &= x - 1;
    n--;
  }
  return n;
}

static unsigned count_nibbles(uint32_t x) {
  unsigned n = 0;
  while (x) {
    n += nibble_table[x & 15u];
    x >>= 4;
  }
  return n;
}

static unsigned count_bytes(uint32_t x) {
  return byte_table[x & 0xFFu] + byte_table[(x >> 8) & 0xFFu] +
         byte_table[(x >> 16) & 0xFFu] + byte_table[x >> 24];
}

/* Parallel (SWAR) reduction. */
static unsigned count_swar(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0F0F0F0Fu;
  return (x * 0x01010101u) >> 24;
}

/* Octal-digit method: sum of bits in groups of three, then modulo 63. */
static unsigned count_octal(uint32_t x) {
  uint32_t t = x - ((x >> 1) & 033333333333u) - ((x >> 2) & 011111111111u);
  return ((t + (t >> 3)) & 030707070707u) % 63u;
}

/* Divide and conquer by recursion on halves. */
static unsigned count_recursive_bits(uint32_t x, unsigned width) {
  if (width <= 4) return nibble_table[x & 15u];
  unsigned half = width / 2;
  uint32_t mask = (1u << half) - 1u;
  return count_recursive_bits(x & mask, half) + count_recursive_bits(x >> half, half);
}

static unsigned count_recursive(uint32_t x) { return count_recursive_bits(x, 32); }

static void init_tables(void) {
  byte_table[0] = 0;
  for (int i = 1; i < 256; i++) byte_table[i] = (uint8_t)((i & 1) + byte_table[i / 2]);
}

/* Generate a word whose expected density depends on `mode`. */
static uint32_t make_word(unsigned mode) {
  switch (mode % 5u) {
  case 0: return rand32();
  case 1: return rand32() & rand32() & rand32();  /* sparse */
  case 2: return rand32() | rand32() | rand32();  /* dense */
  case 3: return 1u << (rand32() % 32u);          /* single bit */
  default: return (uint32_t)0 - (rand32() & 1u);  /* all or nothing */
  }
}

static void column_counts(const uint32_t *w, size_t n, uint64_t cols[32]) {
  for (int b = 0; b < 32; b++) cols[b] = 0;
  for (size_t i = 0; i < n; i++)
    for (int b = 0; b < 32; b++) cols[b] += (w[i] >> b) & 1u;
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "bitcount: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const size_t sizes[3] = {8000, 60000, 450000};
  size_t n = sizes[dataset - 1];
  init_tables();

  struct method methods[] = {
      {"shift", count_shift, 0},     {"sparse", count_sparse, 0},
      {"dense", count_dense, 0},     {"nibble", count_nibbles, 0},
      {"byte", count_bytes, 0},      {"swar", count_swar, 0},
      {"octal", count_octal, 0},     {"recursive", count_recursive, 0},
  };
  const size_t nm = sizeof methods / sizeof methods[0];

  uint32_t *words = malloc(n * sizeof *words);
  if (!words) {
    fprintf(stderr, "bitcount: out of memory\n");
    return 1;
  }
  for (size_t i = 0; i < n; i++) words[i] = make_word((unsigned)(i / 64));

  uint64_t hist[33] = {0};
  for (size_t i = 0; i < n; i++) {
    unsigned ref = methods[0].fn(words[i]);
    for (size_t m = 0; m < nm; m++) {
      unsigned c = methods[m].fn(words[i]);
      if (c != ref) {
        fprintf(stderr, "bitcount: method %s gives %u, expected %u for %08" PRIx32 "\n",
                methods[m].name, c, ref, words[i]);
        free(words);
        return 1;
      }
      methods[m].total += c;
    }
    hist[ref]++;
  }

  uint64_t cols[32], col_total = 0;
  column_counts(words, n, cols);
  for (int b = 0; b < 32; b++) col_total += cols[b];
  if (col_total != methods[0].total) {
    fprintf(stderr, "bitcount: column count disagrees with total\n");
    free(words);
    return 1;
  }

  uint64_t check = methods[0].total;
  for (int k = 0; k <= 32; k++) check = check * 1099511628211u + hist[k];
  printf("checksum: %016" PRIx64 "\n", check);
  free(words);
  return 0;
}
