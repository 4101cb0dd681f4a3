/*
 * patricia -- PATRICIA trie over 32-bit keys (IPv4-address-like).
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * Keys are generated in-program by a fixed-seed xorshift PRNG, clustered
 * under a few hundred "network prefixes" so that they share long common
 * prefixes, with many duplicates. Usage: patricia [dataset] (1, 2 or 3).
 *
 * The trie uses a header node and upward ("back") links, so each key is
 * stored in exactly one node together with the bit index it branches on.
 *
 * Self-check: an in-order walk must give the keys in strictly increasing
 * order with the right multiplicities, and every lookup (present and absent
 * keys) must agree with binary search in a sorted, deduplicated array.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define HEAD_BIT 32

struct pnode {
  uint32_t key;
  uint32_t count; /* times the key was inserted; 0 only for an unused head */
  int bit;        /* bit index tested here, 31 (MSB) .. 0; head is 32 */
  int32_t left, right;
};

struct trie {
  struct pnode *nodes; /* nodes[0] is the header */
  int32_t used, cap;
};

struct sorted_entry {
  uint32_t key;
  uint32_t count;
};

static uint32_t rng_state = 0x6D2B79F5u;

static uint32_t xorshift32(void) {
  uint32_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  rng_state = x;
  return x;
}

static int bit_at(uint32_t key, int b) {
  return b >= HEAD_BIT ? 0 : (int)((key >> b) & 1u);
}

static int trie_init(struct trie *t, int32_t cap) {
  t->nodes = malloc((size_t)cap * sizeof *t->nodes);
  if (!t->nodes) return 0;
  t->cap = cap;
  t->used = 1;
  t->nodes[0].key = 0;
  t->nodes[0].count = 0;
  t->nodes[0].bit = HEAD_BIT;
  t->nodes[0].left = 0;
  t->nodes[0].right = 0;
  return 1;
}

/* Follow the branch bits of `key` until an upward link is taken. */
static int32_t trie_descend(const struct trie *t, uint32_t key) {
  const struct pnode *n = t->nodes;
  int32_t p = 0, x = n[0].left;
  while (n[x].bit < n[p].bit) {
    p = x;
    x = bit_at(key, n[x].bit) ? n[x].right : n[x].left;
  }
  return x;
}

static uint32_t trie_lookup(const struct trie *t, uint32_t key) {
  int32_t x = trie_descend(t, key);
  return t->nodes[x].key == key ? t->nodes[x].count : 0;
}

static int highest_bit(uint32_t v) {
  int b = 31;
  while (!(v >> b)) b--;
  return b;
}

static int trie_insert(struct trie *t, uint32_t key) {
  int32_t found = trie_descend(t, key);
  struct pnode *n = t->nodes;
  if (n[found].key == key) {
    n[found].count++;
    return 1;
  }
  if (t->used == t->cap) return 0;
  int b = highest_bit(n[found].key ^ key);
  int32_t p = 0, x = n[0].left;
  while (n[x].bit > b && n[x].bit < n[p].bit) {
    p = x;
    x = bit_at(key, n[x].bit) ? n[x].right : n[x].left;
  }
  int32_t z = t->used++;
  n[z].key = key;
  n[z].count = 1;
  n[z].bit = b;
  n[z].left = bit_at(key, b) ? x : z;
  n[z].right = bit_at(key, b) ? z : x;
  if (p == 0 || !bit_at(key, n[p].bit))
    n[p].left = z;
  else
    n[p].right = z;
  return 1;
}

/* In-order walk; a link that does not go down to a smaller bit index is an
 * upward link and names the node that stores a key. Returns 0 on error. */
static int trie_walk(const struct trie *t, int32_t x, int parent_bit,
                     struct sorted_entry *out, size_t *pos, size_t cap) {
  const struct pnode *n = &t->nodes[x];
  if (n->bit >= parent_bit) {
    if (n->count == 0) return 1; /* unused header */
    if (*pos >= cap) return 0;
    out[*pos].key = n->key;
    out[*pos].count = n->count;
    (*pos)++;
    return 1;
  }
  return trie_walk(t, n->left, n->bit, out, pos, cap) &&
         trie_walk(t, n->right, n->bit, out, pos, cap);
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static size_t dedupe(const uint32_t *sorted, size_t n, struct sorted_entry *out) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (m > 0 && out[m - 1].key == sorted[i]) {
      out[m - 1].count++;
    } else {
      out[m].key = sorted[i];
      out[m].count = 1;
      m++;
    }
  }
  return m;
}

static uint32_t bsearch_count(const struct sorted_entry *a, size_t n, uint32_t key) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a[mid].key < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && a[lo].key == key ? a[lo].count : 0;
}

static void generate_keys(uint32_t *keys, size_t n) {
  uint32_t nets[256];
  for (int i = 0; i < 256; i++) nets[i] = xorshift32();
  for (size_t i = 0; i < n; i++) {
    uint32_t r = xorshift32();
    uint32_t net = nets[r & 255u];
    int plen = 8 + (int)((r >> 8) % 17u); /* prefix length 8..24 */
    uint32_t mask = 0xFFFFFFFFu << (32 - plen);
    uint32_t host = xorshift32() & ~mask;
    if ((r >> 20) % 4u == 0) host &= 0xFFu; /* small hosts: more duplicates */
    keys[i] = (net & mask) | host;
    if (i % 1000 == 999) keys[i] = 0; /* exercise the header's key */
  }
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "patricia: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const size_t sizes[3] = {4000, 24000, 140000};
  size_t n = sizes[dataset - 1];

  struct trie t;
  uint32_t *keys = malloc(n * sizeof *keys);
  uint32_t *sorted = malloc(n * sizeof *sorted);
  struct sorted_entry *ref = malloc(n * sizeof *ref);
  struct sorted_entry *walk = malloc(n * sizeof *walk);
  if (!keys || !sorted || !ref || !walk || !trie_init(&t, (int32_t)n + 1)) {
    fprintf(stderr, "patricia: out of memory\n");
    return 1;
  }
  generate_keys(keys, n);
  uint64_t acc = 0xCBF29CE484222325u;
  int ok = 1;
  for (size_t i = 0; i < n; i++) {
    if (!trie_insert(&t, keys[i])) ok = 0;
    /* Interleave lookups with insertion. */
    if (i % 8 == 0) acc = (acc ^ trie_lookup(&t, keys[i / 2])) * 0x100000001B3u;
  }
  for (size_t i = 0; i < n; i++) sorted[i] = keys[i];
  qsort(sorted, n, sizeof *sorted, cmp_u32);
  size_t m = dedupe(sorted, n, ref);

  size_t pos = 0;
  if (!trie_walk(&t, t.nodes[0].left, HEAD_BIT, walk, &pos, n)) ok = 0;
  if (pos != m || (size_t)(t.used - 1) + (t.nodes[0].count ? 1u : 0u) != m) ok = 0;
  for (size_t i = 0; ok && i < m; i++) {
    if (walk[i].key != ref[i].key || walk[i].count != ref[i].count) ok = 0;
    if (i > 0 && walk[i - 1].key >= walk[i].key) ok = 0;
  }
  if (!ok) {
    fprintf(stderr, "patricia: trie contents differ from the sorted array\n");
    return 1;
  }

  /* Lookups: present keys, near misses and random keys. */
  uint32_t hits = 0;
  for (size_t i = 0; i < 2 * n; i++) {
    uint32_t r = xorshift32();
    uint32_t q;
    if (i % 3 == 0)
      q = keys[r % n];
    else if (i % 3 == 1)
      q = keys[r % n] ^ (1u << (r >> 27));
    else
      q = r;
    uint32_t c1 = trie_lookup(&t, q), c2 = bsearch_count(ref, m, q);
    if (c1 != c2) {
      fprintf(stderr, "patricia: lookup of %08" PRIx32 " disagrees\n", q);
      return 1;
    }
    hits += c1 != 0;
    acc = (acc ^ (q * 31u + c1)) * 0x100000001B3u;
  }
  for (size_t i = 0; i < m; i += 7)
    acc = (acc ^ ((uint64_t)walk[i].key << 8 | walk[i].count)) * 0x100000001B3u;
  acc ^= (uint64_t)hits << 32 | (uint32_t)m;
  printf("checksum: %016" PRIx64 "\n", acc);
  free(t.nodes);
  free(walk);
  free(ref);
  free(sorted);
  free(keys);
  return 0;
}
