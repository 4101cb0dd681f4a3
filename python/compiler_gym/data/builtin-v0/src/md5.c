/*
 * md5 -- MD5 message digest (RFC 1321).
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * A set of messages of varying length is generated in-program by a
 * fixed-seed PRNG and each one is hashed.
 * Usage: md5 [dataset]   where dataset is 1, 2 or 3 (default 1).
 *
 * Self-check: RFC 1321 test-suite digests are verified, and streaming
 * (chunked) hashing must match one-shot hashing for every message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct md5_ctx {
  uint32_t s[4];
  uint64_t len;
  uint8_t buf[64];
  size_t used;
};

/* T[i] = floor(2^32 * |sin(i + 1)|), precomputed. */
static const uint32_t T[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
    0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
    0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
    0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
    0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
    0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
    0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
    0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
    0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

static const unsigned char SHIFT[4][4] = {
    {7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

static uint32_t rotl(uint32_t x, unsigned n) { return (x << n) | (x >> (32 - n)); }

static void md5_block(uint32_t s[4], const uint8_t *p) {
  uint32_t m[16];
  for (int i = 0; i < 16; i++)
    m[i] = (uint32_t)p[4 * i] | ((uint32_t)p[4 * i + 1] << 8) |
           ((uint32_t)p[4 * i + 2] << 16) | ((uint32_t)p[4 * i + 3] << 24);
  uint32_t a = s[0], b = s[1], c = s[2], d = s[3];
  for (int i = 0; i < 64; i++) {
    uint32_t f;
    int g;
    int round = i / 16;
    switch (round) {
    case 0:
      f = (b & c) | (~b & d);
      g = i;
      break;
    case 1:
      f = (d & b) | (~d & c);
      g = (5 * i + 1) % 16;
      break;
    case 2:
      f = b ^ c ^ d;
      g = (3 * i + 5) % 16;
      break;
    default:
      f = c ^ (b | ~d);
      g = (7 * i) % 16;
      break;
    }
    uint32_t tmp = d;
    d = c;
    c = b;
    b = b + rotl(a + f + T[i] + m[g], SHIFT[round][i % 4]);
    a = tmp;
  }
  s[0] += a;
  s[1] += b;
  s[2] += c;
  s[3] += d;
}

static void md5_init(struct md5_ctx *c) {
  c->s[0] = 0x67452301;
  c->s[1] = 0xefcdab89;
  c->s[2] = 0x98badcfe;
  c->s[3] = 0x10325476;
  c->len = 0;
  c->used = 0;
}

static void md5_update(struct md5_ctx *c, const uint8_t *p, size_t n) {
  c->len += n;
  while (n > 0) {
    if (c->used == 0 && n >= 64) {
      md5_block(c->s, p);
      p += 64;
      n -= 64;
      continue;
    }
    size_t take = 64 - c->used;
    if (take > n) take = n;
    memcpy(c->buf + c->used, p, take);
    c->used += take;
    p += take;
    n -= take;
    if (c->used == 64) {
      md5_block(c->s, c->buf);
      c->used = 0;
    }
  }
}

static void md5_final(struct md5_ctx *c, uint8_t out[16]) {
  uint64_t bits = c->len * 8u;
  c->buf[c->used++] = 0x80;
  if (c->used > 56) {
    memset(c->buf + c->used, 0, 64 - c->used);
    md5_block(c->s, c->buf);
    c->used = 0;
  }
  memset(c->buf + c->used, 0, 56 - c->used);
  for (int i = 0; i < 8; i++) c->buf[56 + i] = (uint8_t)(bits >> (8 * i));
  md5_block(c->s, c->buf);
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 4; k++) out[4 * i + k] = (uint8_t)(c->s[i] >> (8 * k));
}

static void md5(const uint8_t *p, size_t n, uint8_t out[16]) {
  struct md5_ctx c;
  md5_init(&c);
  md5_update(&c, p, n);
  md5_final(&c, out);
}

static int check_vectors(void) {
  static const char *const msg[] = {
      "", "a", "abc", "message digest", "abcdefghijklmnopqrstuvwxyz",
      "12345678901234567890123456789012345678901234567890123456789012345678901234567890"};
  static const char *const hex[] = {
      "d41d8cd98f00b204e9800998ecf8427e", "0cc175b9c0f1b6a831c399e269772661",
      "900150983cd24fb0d6963f7d28e17f72", "f96b697d7cb7938d525a2f31aaf161d0",
      "c3fcd3d76192e4007dfb496cca67e13b", "57edf4a22be3c955ac49da2e2107b67a"};
  for (size_t i = 0; i < sizeof msg / sizeof msg[0]; i++) {
    uint8_t d[16];
    char s[33];
    md5((const uint8_t *)msg[i], strlen(msg[i]), d);
    for (int k = 0; k < 16; k++) snprintf(s + 2 * k, 3, "%02x", d[k]);
    if (strcmp(s, hex[i]) != 0) return 0;
  }
  return 1;
}

static uint32_t lcg_state = 12345u;

static uint32_t lcg(void) {
  lcg_state = lcg_state * 1103515245u + 12345u;
  return lcg_state >> 8;
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "md5: dataset must be 1, 2 or 3\n");
    return 1;
  }
  if (!check_vectors()) {
    fprintf(stderr, "md5: known test vector mismatch\n");
    return 1;
  }
  static const int counts[3] = {64, 512, 4096};
  const size_t maxlen = 2048;
  uint8_t *msg = malloc(maxlen);
  if (!msg) {
    fprintf(stderr, "md5: out of memory\n");
    return 1;
  }
  uint8_t acc[16] = {0};
  for (int m = 0; m < counts[dataset - 1]; m++) {
    size_t len = lcg() % maxlen;
    for (size_t i = 0; i < len; i++) msg[i] = (uint8_t)(lcg() ^ acc[i % 16]);
    uint8_t d1[16], d2[16];
    md5(msg, len, d1);
    struct md5_ctx c;
    md5_init(&c);
    size_t pos = 0;
    while (pos < len) {
      size_t step = 1 + lcg() % 97;
      if (step > len - pos) step = len - pos;
      md5_update(&c, msg + pos, step);
      pos += step;
    }
    md5_final(&c, d2);
    if (memcmp(d1, d2, 16) != 0) {
      fprintf(stderr, "md5: streaming digest mismatch on message %d\n", m);
      free(msg);
      return 1;
    }
    for (int k = 0; k < 16; k++) acc[k] = (uint8_t)(acc[k] * 31u + d1[k]);
  }
  printf("checksum: ");
  for (int k = 0; k < 16; k++) printf("%02x", acc[k]);
  printf("\n");
  free(msg);
  return 0;
}
