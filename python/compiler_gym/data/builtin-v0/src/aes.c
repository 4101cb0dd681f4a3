/*
 * aes -- AES-128 block cipher, encryption and decryption.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * The S-boxes are computed at start-up from the GF(2^8) inverse and the
 * affine map. A generated buffer is encrypted in CBC mode under a series of
 * PRNG-generated keys. Usage: aes [dataset]   where dataset is 1, 2 or 3.
 *
 * Self-check: the FIPS-197 example vectors (Appendix B and C.1) must be
 * reproduced, a byte-oriented cipher and a table-driven (T-table) cipher must
 * produce identical ciphertext, and decryption must restore the plaintext.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct aes_key {
  uint8_t rk[176]; /* 11 round keys of 16 bytes */
};

struct aes_tables {
  uint8_t sbox[256];
  uint8_t inv_sbox[256];
  uint32_t te[4][256]; /* encryption T-tables */
};

static uint64_t rng = 0x9E3779B97F4A7C15u;

static uint32_t next_u32(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 24);
}

static uint8_t xtime(uint8_t b) {
  return (uint8_t)((b << 1) ^ ((b & 0x80u) ? 0x1Bu : 0x00u));
}

/* Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1. */
static uint8_t gmul(uint8_t a, uint8_t b) {
  uint8_t p = 0;
  while (b) {
    if (b & 1u) p ^= a;
    a = xtime(a);
    b >>= 1;
  }
  return p;
}

static uint8_t rotl8(uint8_t x, int s) {
  return (uint8_t)((x << s) | (x >> (8 - s)));
}

static void build_tables(struct aes_tables *t) {
  uint8_t exp[256], log[256];
  uint8_t x = 1;
  /* 3 generates the multiplicative group of GF(2^8). */
  for (int i = 0; i < 255; i++) {
    exp[i] = x;
    log[x] = (uint8_t)i;
    x = gmul(x, 3);
  }
  exp[255] = exp[0];
  for (int i = 0; i < 256; i++) {
    uint8_t inv = i == 0 ? 0 : exp[(255 - log[i]) % 255];
    uint8_t s = (uint8_t)(inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^
                          rotl8(inv, 4) ^ 0x63u);
    t->sbox[i] = s;
    t->inv_sbox[s] = (uint8_t)i;
  }
  for (int i = 0; i < 256; i++) {
    uint8_t s = t->sbox[i];
    uint32_t w = ((uint32_t)gmul(s, 2) << 24) | ((uint32_t)s << 16) |
                 ((uint32_t)s << 8) | gmul(s, 3);
    for (int k = 0; k < 4; k++) {
      t->te[k][i] = w;
      w = (w >> 8) | (w << 24);
    }
  }
}

static void expand_key(const struct aes_tables *t, const uint8_t key[16],
                       struct aes_key *k) {
  uint8_t rcon = 1;
  memcpy(k->rk, key, 16);
  for (int i = 16; i < 176; i += 4) {
    uint8_t tmp[4];
    memcpy(tmp, k->rk + i - 4, 4);
    if (i % 16 == 0) {
      uint8_t first = tmp[0];
      tmp[0] = (uint8_t)(t->sbox[tmp[1]] ^ rcon);
      tmp[1] = t->sbox[tmp[2]];
      tmp[2] = t->sbox[tmp[3]];
      tmp[3] = t->sbox[first];
      rcon = xtime(rcon);
    }
    for (int j = 0; j < 4; j++) k->rk[i + j] = k->rk[i + j - 16] ^ tmp[j];
  }
}

static void add_round_key(uint8_t s[16], const uint8_t *rk) {
  for (int i = 0; i < 16; i++) s[i] ^= rk[i];
}

/* Byte-oriented reference cipher; s[r + 4c] holds row r, column c. */
static void encrypt_block(const struct aes_tables *t, const struct aes_key *k,
                          uint8_t s[16]) {
  add_round_key(s, k->rk);
  for (int round = 1; round <= 10; round++) {
    uint8_t u[16];
    for (int c = 0; c < 4; c++)
      for (int r = 0; r < 4; r++) u[r + 4 * c] = t->sbox[s[r + 4 * ((c + r) & 3)]];
    if (round < 10) {
      for (int c = 0; c < 4; c++) {
        uint8_t *col = u + 4 * c;
        uint8_t all = col[0] ^ col[1] ^ col[2] ^ col[3];
        uint8_t c0 = col[0];
        col[0] ^= all ^ xtime(col[0] ^ col[1]);
        col[1] ^= all ^ xtime(col[1] ^ col[2]);
        col[2] ^= all ^ xtime(col[2] ^ col[3]);
        col[3] ^= all ^ xtime(col[3] ^ c0);
      }
    }
    memcpy(s, u, 16);
    add_round_key(s, k->rk + 16 * round);
  }
}

static void decrypt_block(const struct aes_tables *t, const struct aes_key *k,
                          uint8_t s[16]) {
  add_round_key(s, k->rk + 160);
  for (int round = 9; round >= 0; round--) {
    uint8_t u[16];
    for (int c = 0; c < 4; c++)
      for (int r = 0; r < 4; r++) u[r + 4 * ((c + r) & 3)] = t->inv_sbox[s[r + 4 * c]];
    add_round_key(u, k->rk + 16 * round);
    if (round > 0) {
      for (int c = 0; c < 4; c++) {
        uint8_t a0 = u[4 * c], a1 = u[4 * c + 1], a2 = u[4 * c + 2], a3 = u[4 * c + 3];
        u[4 * c] = gmul(a0, 14) ^ gmul(a1, 11) ^ gmul(a2, 13) ^ gmul(a3, 9);
        u[4 * c + 1] = gmul(a0, 9) ^ gmul(a1, 14) ^ gmul(a2, 11) ^ gmul(a3, 13);
        u[4 * c + 2] = gmul(a0, 13) ^ gmul(a1, 9) ^ gmul(a2, 14) ^ gmul(a3, 11);
        u[4 * c + 3] = gmul(a0, 11) ^ gmul(a1, 13) ^ gmul(a2, 9) ^ gmul(a3, 14);
      }
    }
    memcpy(s, u, 16);
  }
}

static uint32_t load_be(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void store_be(uint8_t *p, uint32_t w) {
  p[0] = (uint8_t)(w >> 24);
  p[1] = (uint8_t)(w >> 16);
  p[2] = (uint8_t)(w >> 8);
  p[3] = (uint8_t)w;
}

/* Table-driven cipher: each column is one 32-bit word (big-endian rows). */
static void encrypt_block_tt(const struct aes_tables *t, const struct aes_key *k,
                             uint8_t blk[16]) {
  uint32_t w[4], v[4];
  for (int c = 0; c < 4; c++) w[c] = load_be(blk + 4 * c) ^ load_be(k->rk + 4 * c);
  for (int round = 1; round < 10; round++) {
    const uint8_t *rk = k->rk + 16 * round;
    for (int c = 0; c < 4; c++) {
      v[c] = t->te[0][w[c] >> 24] ^ t->te[1][(w[(c + 1) & 3] >> 16) & 0xFFu] ^
             t->te[2][(w[(c + 2) & 3] >> 8) & 0xFFu] ^ t->te[3][w[(c + 3) & 3] & 0xFFu] ^
             load_be(rk + 4 * c);
    }
    memcpy(w, v, sizeof w);
  }
  for (int c = 0; c < 4; c++) {
    uint32_t o = ((uint32_t)t->sbox[w[c] >> 24] << 24) |
                 ((uint32_t)t->sbox[(w[(c + 1) & 3] >> 16) & 0xFFu] << 16) |
                 ((uint32_t)t->sbox[(w[(c + 2) & 3] >> 8) & 0xFFu] << 8) |
                 t->sbox[w[(c + 3) & 3] & 0xFFu];
    store_be(blk + 4 * c, o ^ load_be(k->rk + 160 + 4 * c));
  }
}

static void parse_hex(const char *hex, uint8_t out[16]) {
  for (int i = 0; i < 16; i++) {
    unsigned v = 0;
    for (int j = 0; j < 2; j++) {
      char ch = hex[2 * i + j];
      v = v * 16u + (unsigned)(ch <= '9' ? ch - '0' : ch - 'a' + 10);
    }
    out[i] = (uint8_t)v;
  }
}

static int check_vector(const struct aes_tables *t, const char *key_hex,
                        const char *pt_hex, const char *ct_hex) {
  uint8_t key[16], pt[16], ct[16], a[16], b[16];
  struct aes_key k;
  parse_hex(key_hex, key);
  parse_hex(pt_hex, pt);
  parse_hex(ct_hex, ct);
  expand_key(t, key, &k);
  memcpy(a, pt, 16);
  memcpy(b, pt, 16);
  encrypt_block(t, &k, a);
  encrypt_block_tt(t, &k, b);
  if (memcmp(a, ct, 16) != 0 || memcmp(b, ct, 16) != 0) return 0;
  decrypt_block(t, &k, a);
  return memcmp(a, pt, 16) == 0;
}

/* CBC-encrypt with both ciphers, decrypt, and fold the ciphertext. */
static int cbc_round_trip(const struct aes_tables *t, uint8_t *buf, uint8_t *ct,
                          uint8_t *ct2, size_t nblocks, uint64_t *acc) {
  uint8_t key[16], iv[16], prev[16], prev2[16];
  struct aes_key k;
  for (int i = 0; i < 16; i++) {
    key[i] = (uint8_t)next_u32();
    iv[i] = (uint8_t)next_u32();
  }
  expand_key(t, key, &k);
  memcpy(prev, iv, 16);
  memcpy(prev2, iv, 16);
  for (size_t b = 0; b < nblocks; b++) {
    uint8_t *c1 = ct + 16 * b, *c2 = ct2 + 16 * b;
    for (int i = 0; i < 16; i++) {
      c1[i] = buf[16 * b + i] ^ prev[i];
      c2[i] = buf[16 * b + i] ^ prev2[i];
    }
    encrypt_block(t, &k, c1);
    encrypt_block_tt(t, &k, c2);
    memcpy(prev, c1, 16);
    memcpy(prev2, c2, 16);
  }
  if (memcmp(ct, ct2, 16 * nblocks) != 0) return 0;
  for (size_t i = 0; i < 16 * nblocks; i++) *acc = (*acc ^ ct[i]) * 0x100000001B3u;
  /* Decrypt in place, last block first, so ct2 keeps the previous block. */
  for (size_t b = nblocks; b-- > 0;) {
    uint8_t *blk = ct + 16 * b;
    const uint8_t *chain = b ? ct2 + 16 * (b - 1) : iv;
    decrypt_block(t, &k, blk);
    for (int i = 0; i < 16; i++) blk[i] ^= chain[i];
  }
  return memcmp(ct, buf, 16 * nblocks) == 0;
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "aes: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const size_t blocks[3] = {64, 400, 2800};
  static const int rounds[3] = {4, 4, 4};
  size_t nblocks = blocks[dataset - 1];

  struct aes_tables *t = malloc(sizeof *t);
  uint8_t *buf = malloc(16 * nblocks);
  uint8_t *ct = malloc(16 * nblocks);
  uint8_t *ct2 = malloc(16 * nblocks);
  if (!t || !buf || !ct || !ct2) {
    fprintf(stderr, "aes: out of memory\n");
    return 1;
  }
  build_tables(t);
  if (t->sbox[0x00] != 0x63 || t->sbox[0x53] != 0xED ||
      !check_vector(t, "2b7e151628aed2a6abf7158809cf4f3c",
                    "3243f6a8885a308d313198a2e0370734",
                    "3925841d02dc09fbdc118597196a0b32") ||
      !check_vector(t, "000102030405060708090a0b0c0d0e0f",
                    "00112233445566778899aabbccddeeff",
                    "69c4e0d86a7b0430d8cdb78070b4c55a")) {
    fprintf(stderr, "aes: FIPS-197 test vector mismatch\n");
    return 1;
  }

  uint64_t acc = 0xCBF29CE484222325u;
  for (int r = 0; r < rounds[dataset - 1]; r++) {
    for (size_t i = 0; i < 16 * nblocks; i++)
      buf[i] = (uint8_t)(r & 1 ? next_u32() : (i / 64) * 7u + (uint8_t)r);
    if (!cbc_round_trip(t, buf, ct, ct2, nblocks, &acc)) {
      fprintf(stderr, "aes: CBC round trip failed\n");
      return 1;
    }
  }
  printf("checksum: %016" PRIx64 "\n", acc);
  free(ct2);
  free(ct);
  free(buf);
  free(t);
  return 0;
}
