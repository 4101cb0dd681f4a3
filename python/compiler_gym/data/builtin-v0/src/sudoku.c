/*
 * sudoku -- puzzle generation and backtracking solving.
 *
 * Written for the compiler_gym builtin-v0 benchmark suite.
 * Complete grids are made from a fixed pattern by random digit relabelling
 * and by shuffling rows within bands, bands, columns within stacks and
 * stacks (fixed-seed PRNG). Clues are then removed in random order as long
 * as the puzzle keeps a unique solution. The main solver keeps candidate
 * bitmasks per row, column and box and always branches on the cell with the
 * fewest candidates; a second solver finds candidates by scanning each
 * cell's peers and branches in a different cell and digit order.
 * Usage: sudoku [dataset]   where dataset is 1, 2 or 3 (default 1).
 *
 * Self-check: every grid must be a valid solution; both solvers must find
 * that each puzzle has exactly one solution, equal to the grid it was made
 * from; and the puzzle's clues must be kept in the solution.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct solver {
  uint8_t cell[81];
  uint16_t row[9], col[9], box[9]; /* bit d-1 set: digit d used */
  uint8_t first[81];               /* first solution found */
  int solutions, limit;
  uint64_t nodes;
};

static uint64_t rng = 0x8CB92BA72F3D8DD7u;

static uint32_t next_u32(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}

static int box_of(int i) { return (i / 27) * 3 + (i % 9) / 3; }

static int popcount9(unsigned v) {
  int n = 0;
  for (; v; v &= v - 1) n++;
  return n;
}

static int solver_load(struct solver *s, const uint8_t *grid) {
  memset(s, 0, sizeof *s);
  for (int i = 0; i < 81; i++) {
    s->cell[i] = grid[i];
    if (!grid[i]) continue;
    uint16_t bit = (uint16_t)(1u << (grid[i] - 1));
    if ((s->row[i / 9] | s->col[i % 9] | s->box[box_of(i)]) & bit) return 0;
    s->row[i / 9] |= bit;
    s->col[i % 9] |= bit;
    s->box[box_of(i)] |= bit;
  }
  return 1;
}

static void toggle(struct solver *s, int i, unsigned bit) {
  s->row[i / 9] ^= (uint16_t)bit;
  s->col[i % 9] ^= (uint16_t)bit;
  s->box[box_of(i)] ^= (uint16_t)bit;
}

/* Returns 1 once `limit` solutions have been found. */
static int solve_mrv(struct solver *s) {
  int best = -1, best_count = 10;
  unsigned best_cand = 0;
  s->nodes++;
  for (int i = 0; i < 81 && best_count > 1; i++) {
    if (s->cell[i]) continue;
    unsigned cand = ~(unsigned)(s->row[i / 9] | s->col[i % 9] | s->box[box_of(i)]) & 0x1FFu;
    int c = popcount9(cand);
    if (c < best_count) {
      best = i;
      best_count = c;
      best_cand = cand;
    }
  }
  if (best < 0) { /* no empty cell left */
    if (s->solutions++ == 0) memcpy(s->first, s->cell, 81);
    return s->solutions >= s->limit;
  }
  for (unsigned cand = best_cand; cand; cand &= cand - 1) {
    unsigned bit = cand & (0u - cand);
    s->cell[best] = (uint8_t)(popcount9(bit - 1) + 1);
    toggle(s, best, bit);
    int stop = solve_mrv(s);
    toggle(s, best, bit);
    s->cell[best] = 0;
    if (stop) return 1;
  }
  return 0;
}

static int peers[81][20];

static void build_peers(void) {
  for (int i = 0; i < 81; i++) {
    int n = 0;
    for (int j = 0; j < 81; j++)
      if (j != i && (j / 9 == i / 9 || j % 9 == i % 9 || box_of(j) == box_of(i))) peers[i][n++] = j;
  }
}

/* Second solver: no bitmask state; candidates come from scanning the 20
 * peers of each cell. It branches on the last cell in reading order with
 * the fewest candidates and tries digits from 9 down to 1. */
static int solve_peers(uint8_t *g, int *count, uint8_t *first, uint64_t *nodes) {
  int best = -1, best_count = 10;
  unsigned best_cand = 0;
  (*nodes)++;
  for (int i = 80; i >= 0; i--) {
    if (g[i]) continue;
    unsigned used = 0;
    for (int k = 0; k < 20; k++) used |= 1u << g[peers[i][k]];
    unsigned cand = ~used & 0x3FEu; /* bit d: digit d possible */
    int c = popcount9(cand);
    if (c == 0) return 0;
    if (c < best_count) {
      best = i;
      best_count = c;
      best_cand = cand;
    }
  }
  if (best < 0) {
    if ((*count)++ == 0) memcpy(first, g, 81);
    return *count >= 2;
  }
  for (int d = 9; d >= 1; d--) {
    if (!(best_cand >> d & 1u)) continue;
    g[best] = (uint8_t)d;
    int stop = solve_peers(g, count, first, nodes);
    g[best] = 0;
    if (stop) return 1;
  }
  return 0;
}

static int grid_valid(const uint8_t *g) {
  for (int u = 0; u < 9; u++) {
    unsigned r = 0, c = 0, b = 0;
    for (int k = 0; k < 9; k++) {
      r |= 1u << g[u * 9 + k];
      c |= 1u << g[k * 9 + u];
      b |= 1u << g[(u / 3 * 3 + k / 3) * 9 + u % 3 * 3 + k % 3];
    }
    if (r != 0x3FEu || c != 0x3FEu || b != 0x3FEu) return 0;
  }
  return 1;
}

static void shuffle(int *a, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(next_u32() % (uint32_t)(i + 1)), t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

/* Random permutation of 0..8 that keeps groups of three together. */
static void banded_order(int *out) {
  int bands[3] = {0, 1, 2}, inner[3] = {0, 1, 2};
  shuffle(bands, 3);
  for (int b = 0; b < 3; b++) {
    shuffle(inner, 3);
    for (int k = 0; k < 3; k++) out[b * 3 + k] = bands[b] * 3 + inner[k];
  }
}

static void make_full_grid(uint8_t *g) {
  int digits[9], rows[9], cols[9];
  for (int d = 0; d < 9; d++) digits[d] = d + 1;
  shuffle(digits, 9);
  banded_order(rows);
  banded_order(cols);
  for (int r = 0; r < 9; r++)
    for (int c = 0; c < 9; c++) {
      int pr = rows[r], pc = cols[c];
      g[r * 9 + c] = (uint8_t)digits[(3 * (pr % 3) + pr / 3 + pc) % 9];
    }
}

static int count_solutions(struct solver *s, const uint8_t *puzzle) {
  if (!solver_load(s, puzzle)) return 0;
  s->limit = 2;
  solve_mrv(s);
  return s->solutions;
}

/* Remove clues in random order while the solution stays unique. */
static int make_puzzle(const uint8_t *full, uint8_t *puzzle, struct solver *s, int tries) {
  int order[81], clues = 81;
  for (int i = 0; i < 81; i++) order[i] = i;
  shuffle(order, 81);
  memcpy(puzzle, full, 81);
  for (int t = 0; t < tries && t < 81; t++) {
    int i = order[t];
    puzzle[i] = 0;
    if (count_solutions(s, puzzle) != 1) puzzle[i] = full[i];
    else clues--;
  }
  return clues;
}

int main(int argc, char **argv) {
  int dataset = 1;
  if (argc > 1) dataset = atoi(argv[1]);
  if (dataset < 1 || dataset > 3) {
    fprintf(stderr, "sudoku: dataset must be 1, 2 or 3\n");
    return 1;
  }
  static const int npuzzles[3] = {4, 14, 80};
  static struct solver s;
  uint8_t full[81], puzzle[81], work[81], second_sol[81];
  uint64_t acc = 0xCBF29CE484222325u;
  build_peers();
  for (int p = 0; p < npuzzles[dataset - 1]; p++) {
    make_full_grid(full);
    if (!grid_valid(full)) {
      fprintf(stderr, "sudoku: generated grid is invalid\n");
      return 1;
    }
    int clues = make_puzzle(full, puzzle, &s, 60 + p % 22);
    int mrv = count_solutions(&s, puzzle), second = 0;
    uint64_t second_nodes = 0;
    memcpy(work, puzzle, 81);
    solve_peers(work, &second, second_sol, &second_nodes);
    int ok = mrv == 1 && second == 1 && grid_valid(s.first) &&
             memcmp(s.first, full, 81) == 0 && memcmp(second_sol, full, 81) == 0;
    for (int i = 0; i < 81; i++)
      if (puzzle[i] && puzzle[i] != s.first[i]) ok = 0;
    if (!ok) {
      fprintf(stderr, "sudoku: puzzle %d was not solved correctly\n", p);
      return 1;
    }
    for (int i = 0; i < 81; i++) acc = (acc ^ puzzle[i]) * 0x100000001B3u;
    acc = (acc ^ (s.nodes << 24 ^ second_nodes << 8 ^ (uint64_t)clues)) * 0x100000001B3u;
  }
  printf("checksum: %016" PRIx64 "\n", acc);
  return 0;
}
