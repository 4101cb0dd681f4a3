/*
 * adpcm -- IMA/DVI ADPCM speech codec (4 bits per sample).
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * A synthetic 16-bit audio signal (integer oscillators, a chirp and noise) is
 * generated in-program, encoded into WAV-style blocks (4-byte header followed
 * by packed 4-bit codes) and decoded again.
 * Usage: adpcm [dataset]   where dataset is 1, 2 or 3 (default 1).
 *
 * Self-check: the decoder must reproduce the encoder's predictor exactly,
 * and the signal-to-noise ratio of the decoded audio must exceed a bound.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK_BYTES 256
#define BLOCK_SAMPLES (1 + (BLOCK_BYTES - 4) * 2)

struct codec_state {
  int32_t predicted;
  int index;
};

static const int index_table[16] = {-1, -1, -1, -1, 2, 4, 6, 8,
                                    -1, -1, -1, -1, 2, 4, 6, 8};

static const int step_table[89] = {
    7,     8,     9,     10,    11,    12,    13,    14,    16,    17,
    19,    21,    23,    25,    28,    31,    34,    37,    41,    45,
    50,    55,    60,    66,    73,    80,    88,    97,    107,   118,
    130,   143,   157,   173,   190,   209,   230,   253,   279,   307,
    337,   371,   408,   449,   494,   544,   598,   658,   724,   796,
    876,   963,   1060,  1166,  1282,  1411,  1552,  1707,  1878,  2066,
    2272,  2499,  2749,  3024,  3327,  3660,  4026,  4428,  4871,  5358,
    5894,  6484,  7132,  7845,  8630,  9493,  10442, 11487, 12635, 13899,
    15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794, 32767};

static int32_t clamp16(int32_t v) {
  if (v > 32767) return 32767;
  if (v < -32768) return -32768;
  return v;
}

static int clamp_index(int i) { return i < 0 ? 0 : (i > 88 ? 88 : i); }

/* Reconstruct a sample from a 4-bit code; shared by encoder and decoder. */
static int32_t apply_code(struct codec_state *s, unsigned code) {
  int step = step_table[s->index];
  int32_t diff = step >> 3;
  if (code & 4) diff += step;
  if (code & 2) diff += step >> 1;
  if (code & 1) diff += step >> 2;
  if (code & 8)
    s->predicted = clamp16(s->predicted - diff);
  else
    s->predicted = clamp16(s->predicted + diff);
  s->index = clamp_index(s->index + index_table[code & 15]);
  return s->predicted;
}

static unsigned encode_sample(struct codec_state *s, int32_t sample) {
  int step = step_table[s->index];
  int32_t diff = sample - s->predicted;
  unsigned code = 0;
  if (diff < 0) {
    code = 8;
    diff = -diff;
  }
  if (diff >= step) {
    code |= 4;
    diff -= step;
  }
  step >>= 1;
  if (diff >= step) {
    code |= 2;
    diff -= step;
  }
  step >>= 1;
  if (diff >= step) code |= 1;
  apply_code(s, code);
  return code;
}

/* Encode one block; `recon` receives what the decoder should produce. */
static void encode_block(const int16_t *in, uint8_t *out, int16_t *recon,
                         struct codec_state *s) {
  s->predicted = in[0];
  out[0] = (uint8_t)((uint16_t)in[0] & 0xFFu);
  out[1] = (uint8_t)((uint16_t)in[0] >> 8);
  out[2] = (uint8_t)s->index;
  out[3] = 0;
  recon[0] = in[0];
  for (int i = 1; i < BLOCK_SAMPLES; i += 2) {
    unsigned lo = encode_sample(s, in[i]);
    recon[i] = (int16_t)s->predicted;
    unsigned hi = encode_sample(s, in[i + 1]);
    recon[i + 1] = (int16_t)s->predicted;
    out[4 + (i - 1) / 2] = (uint8_t)(lo | (hi << 4));
  }
}

static int decode_block(const uint8_t *in, int16_t *out) {
  struct codec_state s;
  uint16_t raw = (uint16_t)(in[0] | (in[1] << 8));
  s.predicted = raw >= 32768u ? (int32_t)raw - 65536 : (int32_t)raw;
  s.index = in[2];
  if (s.index > 88 || in[3] != 0) return 0;
  out[0] = (int16_t)s.predicted;
  for (int i = 0; i < BLOCK_BYTES - 4; i++) {
    out[1 + 2 * i] = (int16_t)apply_code(&s, in[4 + i] & 15u);
    out[2 + 2 * i] = (int16_t)apply_code(&s, in[4 + i] >> 4);
  }
  return 1;
}

struct oscillator {
  int32_t x, y, eps;
};

/* "Magic circle" integer oscillator: a stable approximate sine generator. */
static int32_t osc_step(struct oscillator *o) {
  o->x += o->eps * o->y / 4096;
  o->y -= o->eps * o->x / 4096;
  return o->x;
}

static void synthesize(int16_t *buf, size_t n) {
  struct oscillator tone1 = {6000, 0, 110}, tone2 = {2500, 0, 397};
  struct oscillator chirp = {4000, 0, 20};
  uint32_t noise = 22222u;
  for (size_t i = 0; i < n; i++) {
    if (i % 512 == 0) chirp.eps = 20 + (int32_t)((i / 512) % 64) * 12;
    noise = noise * 1103515245u + 12345u;
    int32_t nz = (int32_t)((noise >> 16) % 401u) - 200;
    int32_t v = osc_step(&tone1) + osc_step(&tone2) + osc_step(&chirp) + nz;
    /* Occasional silence so the step size has to adapt down and up again. */
    if ((i / 4096) % 7 == 3) v /= 16;
    buf[i] = (int16_t)clamp16(v);
  }
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "adpcm: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const size_t nblocks_for[3] = {60, 480, 3600};
  size_t nblocks = nblocks_for[dataset - 1];
  size_t n = nblocks * BLOCK_SAMPLES;
  int16_t *pcm = malloc(n * sizeof *pcm);
  int16_t *recon = malloc(n * sizeof *recon);
  int16_t *dec = malloc(n * sizeof *dec);
  uint8_t *enc = malloc(nblocks * BLOCK_BYTES);
  if (!pcm || !recon || !dec || !enc) {
    fprintf(stderr, "adpcm: out of memory\n");
    return 1;
  }
  synthesize(pcm, n);

  struct codec_state st = {0, 0};
  for (size_t b = 0; b < nblocks; b++)
    encode_block(pcm + b * BLOCK_SAMPLES, enc + b * BLOCK_BYTES,
                 recon + b * BLOCK_SAMPLES, &st);
  for (size_t b = 0; b < nblocks; b++) {
    if (!decode_block(enc + b * BLOCK_BYTES, dec + b * BLOCK_SAMPLES)) {
      fprintf(stderr, "adpcm: bad block header %zu\n", b);
      return 1;
    }
  }

  uint64_t sig = 0, err = 0;
  uint32_t check = 0;
  for (size_t i = 0; i < n; i++) {
    if (dec[i] != recon[i]) {
      fprintf(stderr, "adpcm: decoder diverges from encoder at %zu\n", i);
      return 1;
    }
    int64_t d = (int64_t)pcm[i] - dec[i];
    sig += (uint64_t)((int64_t)pcm[i] * pcm[i]);
    err += (uint64_t)(d * d);
    check = check * 33u + (uint16_t)dec[i];
  }
  /* Require SNR above 30 dB, i.e. signal power > 1000 x error power. */
  if (err * 1000u >= sig) {
    fprintf(stderr, "adpcm: SNR too low (signal %llu, error %llu)\n",
            (unsigned long long)sig, (unsigned long long)err);
    return 1;
  }
  for (size_t i = 0; i < nblocks * BLOCK_BYTES; i += 3) check ^= (uint32_t)enc[i] << (i % 24);
  printf("checksum: %08x\n", (unsigned)check);
  free(pcm);
  free(recon);
  free(dec);
  free(enc);
  return 0;
}
