/*
 * dijkstra -- single-source shortest paths on a weighted directed graph.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * A random sparse graph (compressed adjacency lists) is generated in-program
 * by a fixed-seed PRNG; shortest paths are computed from several sources
 * with Dijkstra's algorithm using an indexed binary heap.
 * Usage: dijkstra [dataset]   where dataset is 1, 2 or 3 (default 1).
 *
 * Self-check: distances must equal those computed by Bellman-Ford on the
 * same graph, and every predecessor chain must reproduce its distance.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define INF UINT64_MAX

struct edge {
  uint32_t to;
  uint32_t weight;
};

struct graph {
  uint32_t n;
  uint32_t m;
  uint32_t *first; /* n + 1 offsets into edges */
  struct edge *edges;
};

struct heap {
  uint32_t *node; /* heap array of vertex ids */
  uint32_t *pos;  /* position of each vertex in the heap, or UINT32_MAX */
  const uint64_t *key;
  uint32_t size;
};

static uint32_t seed = 0xC0FFEE11u;

static uint32_t rnd(void) {
  seed ^= seed << 13;
  seed ^= seed >> 17;
  seed ^= seed << 5;
  return seed;
}

static int graph_build(struct graph *g, uint32_t n, uint32_t avg_deg) {
  g->n = n;
  uint32_t *deg = calloc(n, sizeof *deg);
  g->first = calloc((size_t)n + 1, sizeof *g->first);
  if (!deg || !g->first) return 0;
  for (uint32_t v = 0; v < n; v++) deg[v] = 1 + rnd() % (2 * avg_deg - 1);
  uint32_t m = 0;
  for (uint32_t v = 0; v < n; v++) {
    g->first[v] = m;
    m += deg[v];
  }
  g->first[n] = m;
  g->m = m;
  g->edges = malloc((size_t)m * sizeof *g->edges);
  if (!g->edges) return 0;
  for (uint32_t v = 0; v < n; v++) {
    for (uint32_t k = g->first[v]; k < g->first[v + 1]; k++) {
      uint32_t r = rnd();
      /* Mostly local edges (like a road network) plus some long jumps. */
      uint32_t to = (r & 7u) == 0 ? rnd() % n : (v + 1 + (r >> 4) % 32u) % n;
      g->edges[k].to = to;
      g->edges[k].weight = 1 + rnd() % 1000u;
    }
  }
  free(deg);
  return 1;
}

static void heap_swap(struct heap *h, uint32_t i, uint32_t j) {
  uint32_t a = h->node[i], b = h->node[j];
  h->node[i] = b;
  h->node[j] = a;
  h->pos[b] = i;
  h->pos[a] = j;
}

static void heap_up(struct heap *h, uint32_t i) {
  while (i > 0) {
    uint32_t parent = (i - 1) / 2;
    if (h->key[h->node[parent]] <= h->key[h->node[i]]) break;
    heap_swap(h, i, parent);
    i = parent;
  }
}

static void heap_down(struct heap *h, uint32_t i) {
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, best = i;
    if (l < h->size && h->key[h->node[l]] < h->key[h->node[best]]) best = l;
    if (r < h->size && h->key[h->node[r]] < h->key[h->node[best]]) best = r;
    if (best == i) return;
    heap_swap(h, i, best);
    i = best;
  }
}

static void heap_push_or_decrease(struct heap *h, uint32_t v) {
  if (h->pos[v] == UINT32_MAX) {
    h->node[h->size] = v;
    h->pos[v] = h->size;
    h->size++;
  }
  heap_up(h, h->pos[v]);
}

static uint32_t heap_pop(struct heap *h) {
  uint32_t top = h->node[0];
  h->size--;
  if (h->size > 0) {
    h->node[0] = h->node[h->size];
    h->pos[h->node[0]] = 0;
    heap_down(h, 0);
  }
  h->pos[top] = UINT32_MAX;
  return top;
}

static void dijkstra(const struct graph *g, uint32_t src, uint64_t *dist,
                     uint32_t *pred, struct heap *h) {
  for (uint32_t v = 0; v < g->n; v++) {
    dist[v] = INF;
    pred[v] = UINT32_MAX;
    h->pos[v] = UINT32_MAX;
  }
  h->key = dist;
  h->size = 0;
  dist[src] = 0;
  heap_push_or_decrease(h, src);
  while (h->size > 0) {
    uint32_t u = heap_pop(h);
    for (uint32_t k = g->first[u]; k < g->first[u + 1]; k++) {
      const struct edge *e = &g->edges[k];
      uint64_t nd = dist[u] + e->weight;
      if (nd < dist[e->to]) {
        dist[e->to] = nd;
        pred[e->to] = u;
        heap_push_or_decrease(h, e->to);
      }
    }
  }
}

/* Bellman-Ford with early termination; used only as a reference. */
static int bellman_ford(const struct graph *g, uint32_t src, uint64_t *dist) {
  for (uint32_t v = 0; v < g->n; v++) dist[v] = INF;
  dist[src] = 0;
  for (uint32_t round = 0; round + 1 < g->n; round++) {
    int changed = 0;
    for (uint32_t u = 0; u < g->n; u++) {
      if (dist[u] == INF) continue;
      for (uint32_t k = g->first[u]; k < g->first[u + 1]; k++) {
        uint64_t nd = dist[u] + g->edges[k].weight;
        if (nd < dist[g->edges[k].to]) {
          dist[g->edges[k].to] = nd;
          changed = 1;
        }
      }
    }
    if (!changed) return 1;
  }
  return 1;
}

static uint32_t edge_weight(const struct graph *g, uint32_t u, uint32_t v) {
  uint32_t best = UINT32_MAX;
  for (uint32_t k = g->first[u]; k < g->first[u + 1]; k++)
    if (g->edges[k].to == v && g->edges[k].weight < best)
      best = g->edges[k].weight;
  return best;
}

/* Walk every predecessor chain back to the source and re-add the weights. */
static int check_paths(const struct graph *g, uint32_t src, const uint64_t *dist,
                       const uint32_t *pred, uint64_t *hops_total) {
  for (uint32_t v = 0; v < g->n; v++) {
    if (dist[v] == INF) continue;
    uint64_t len = 0;
    uint32_t cur = v, hops = 0;
    while (cur != src) {
      uint32_t p = pred[cur];
      if (p == UINT32_MAX || hops > g->n) return 0;
      len += edge_weight(g, p, cur);
      cur = p;
      hops++;
    }
    if (len != dist[v]) return 0;
    *hops_total += hops;
  }
  return 1;
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "dijkstra: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const uint32_t nodes[3] = {1500, 8000, 32000};
  static const uint32_t sources[3] = {4, 6, 8};
  uint32_t n = nodes[dataset - 1];
  struct graph g;
  struct heap h;
  uint64_t *dist = malloc((size_t)n * sizeof *dist);
  uint64_t *ref = malloc((size_t)n * sizeof *ref);
  uint32_t *pred = malloc((size_t)n * sizeof *pred);
  h.node = malloc((size_t)n * sizeof *h.node);
  h.pos = malloc((size_t)n * sizeof *h.pos);
  if (!dist || !ref || !pred || !h.node || !h.pos || !graph_build(&g, n, 4)) {
    fprintf(stderr, "dijkstra: out of memory\n");
    return 1;
  }
  uint64_t check = 0, hops = 0;
  uint32_t reached = 0;
  for (uint32_t s = 0; s < sources[dataset - 1]; s++) {
    uint32_t src = (uint32_t)(((uint64_t)s * 2654435761u) % n);
    dijkstra(&g, src, dist, pred, &h);
    bellman_ford(&g, src, ref);
    for (uint32_t v = 0; v < n; v++) {
      if (dist[v] != ref[v]) {
        fprintf(stderr, "dijkstra: mismatch with Bellman-Ford at %u\n", v);
        return 1;
      }
      if (dist[v] != INF) {
        check = check * 31u + dist[v];
        reached++;
      }
    }
    if (!check_paths(&g, src, dist, pred, &hops)) {
      fprintf(stderr, "dijkstra: predecessor chain check failed\n");
      return 1;
    }
  }
  check ^= hops << 32 ^ reached;
  printf("checksum: %016" PRIx64 "\n", check);
  free(g.first);
  free(g.edges);
  free(dist);
  free(ref);
  free(pred);
  free(h.node);
  free(h.pos);
  return 0;
}
