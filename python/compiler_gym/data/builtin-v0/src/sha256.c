/*
 * sha256 -- SHA-256 message digest (FIPS 180-4).
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * The message is generated in-program by a fixed-seed PRNG.
 * Usage: sha256 [dataset]   where dataset is 1, 2 or 3 (default 1).
 *
 * Self-check: published digests of "", "abc" and the 448-bit NIST message
 * are verified, and hashing the data in one call must match hashing it in
 * irregular chunks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sha256_ctx {
  uint32_t h[8];
  uint64_t total_len;
  uint8_t block[64];
  size_t fill;
};

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void sha256_init(struct sha256_ctx *c) {
  static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                 0xa54ff53a, 0x510e527f, 0x9b05688c,
                                 0x1f83d9ab, 0x5be0cd19};
  memcpy(c->h, iv, sizeof iv);
  c->total_len = 0;
  c->fill = 0;
}

static void sha256_compress(uint32_t h[8], const uint8_t *p) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++) {
    w[i] = ((uint32_t)p[4 * i] << 24) | ((uint32_t)p[4 * i + 1] << 16) |
           ((uint32_t)p[4 * i + 2] << 8) | (uint32_t)p[4 * i + 3];
  }
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
  uint32_t e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 64; i++) {
    uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    uint32_t ch = (e & f) ^ (~e & g);
    uint32_t t1 = hh + S1 + ch + K[i] + w[i];
    uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = S0 + maj;
    hh = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += hh;
}

static void sha256_update(struct sha256_ctx *c, const uint8_t *p, size_t len) {
  c->total_len += len;
  if (c->fill > 0) {
    size_t need = 64 - c->fill;
    size_t n = len < need ? len : need;
    memcpy(c->block + c->fill, p, n);
    c->fill += n;
    p += n;
    len -= n;
    if (c->fill < 64) return;
    sha256_compress(c->h, c->block);
    c->fill = 0;
  }
  while (len >= 64) {
    sha256_compress(c->h, p);
    p += 64;
    len -= 64;
  }
  if (len > 0) {
    memcpy(c->block, p, len);
    c->fill = len;
  }
}

static void sha256_final(struct sha256_ctx *c, uint8_t out[32]) {
  uint64_t bits = c->total_len * 8u;
  uint8_t pad = 0x80;
  sha256_update(c, &pad, 1);
  uint8_t zero = 0;
  while (c->fill != 56) sha256_update(c, &zero, 1);
  uint8_t lenbuf[8];
  for (int i = 0; i < 8; i++) lenbuf[i] = (uint8_t)(bits >> (56 - 8 * i));
  sha256_update(c, lenbuf, 8);
  for (int i = 0; i < 8; i++) {
    out[4 * i] = (uint8_t)(c->h[i] >> 24);
    out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
    out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
    out[4 * i + 3] = (uint8_t)c->h[i];
  }
}

static void sha256_oneshot(const uint8_t *p, size_t len, uint8_t out[32]) {
  struct sha256_ctx c;
  sha256_init(&c);
  sha256_update(&c, p, len);
  sha256_final(&c, out);
}

static void to_hex(const uint8_t *d, size_t n, char *out) {
  static const char hx[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = hx[d[i] >> 4];
    out[2 * i + 1] = hx[d[i] & 15];
  }
  out[2 * n] = '\0';
}

static int check_vector(const char *msg, const char *expect) {
  uint8_t d[32];
  char hex[65];
  sha256_oneshot((const uint8_t *)msg, strlen(msg), d);
  to_hex(d, 32, hex);
  return strcmp(hex, expect) == 0;
}

static void make_message(uint8_t *buf, size_t len) {
  uint64_t s = 0x9E3779B97F4A7C15u;
  for (size_t i = 0; i < len; i++) {
    s = s * 6364136223846793005u + 1442695040888963407u;
    /* Mostly printable text with occasional binary bytes. */
    uint8_t b = (uint8_t)(s >> 56);
    buf[i] = (b < 200) ? (uint8_t)(' ' + b % 95) : b;
  }
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "sha256: dataset must be 1, 2 or 3\n");
    return 1;
  }
  if (!check_vector("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") ||
      !check_vector("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") ||
      !check_vector("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")) {
    fprintf(stderr, "sha256: known test vector mismatch\n");
    return 1;
  }

  static const size_t sizes[3] = {48 * 1024, 384 * 1024, 3 * 1024 * 1024};
  size_t len = sizes[dataset - 1];
  uint8_t *buf = malloc(len);
  if (!buf) {
    fprintf(stderr, "sha256: out of memory\n");
    return 1;
  }
  make_message(buf, len);

  uint8_t d1[32], d2[32];
  sha256_oneshot(buf, len, d1);

  struct sha256_ctx c;
  sha256_init(&c);
  size_t pos = 0, step = 1;
  while (pos < len) {
    size_t n = step < len - pos ? step : len - pos;
    sha256_update(&c, buf + pos, n);
    pos += n;
    step = (step * 5 + 3) % 1000;
  }
  sha256_final(&c, d2);
  if (memcmp(d1, d2, 32) != 0) {
    fprintf(stderr, "sha256: chunked digest differs from one-shot digest\n");
    return 1;
  }

  /* Hash chain over the digest to exercise short messages too. */
  uint8_t chain[32];
  memcpy(chain, d1, 32);
  for (int i = 0; i < 64; i++) sha256_oneshot(chain, 32, chain);

  char hex[65];
  to_hex(chain, 32, hex);
  printf("checksum: %s\n", hex);
  free(buf);
  return 0;
}
