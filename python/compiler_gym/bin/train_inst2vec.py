"""Builds the package's program-representation data from LLVM 19 IR of our own datasets.

    python -m compiler_gym.bin.train_inst2vec [--out python/compiler_gym/data] [--seed 0]

Writes, reproducibly (fixed corpus order, seeds and single-threaded arithmetic):

* ``inst2vec/vocabulary.txt``: normalized inst2vec statements seen at least ``--min-count``
  times in the training programs, most frequent first (ties by text); unknown = the next id.
* ``inst2vec/embeddings.f16``: ``(vocabulary + 1) x 200`` float16 (the last row is ``!UNK``),
  trained by skip-gram with negative sampling over the contextual flow graph of each program
  (statements within ``--window`` data/control hops are contexts of each other).
* ``programl/vocabulary.txt``: ProGraML node texts (opcodes and types) of the training programs.
* ``inst2vec/metadata.json``: the corpus, the parameters, the training loss, and the rate of
  unknown statements on programs held out of training.

The corpus is every program of builtin-v0, gcc-torture-v0 and pypi-c-v0, and the first
``--csmith`` csmith-v0 seeds, each at its initial state and after ``--episodes`` random episodes
of ``--steps`` passes (what an agent observes). One program in ten (by the SHA-1 of its URI) and
the next ``--csmith // 10`` csmith seeds are held out.
"""

from __future__ import annotations

import collections
import hashlib
import json
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch

import compiler_gym
from compiler_gym._engine import _C
from compiler_gym.envs.llvm_env import inst2vec_statement_graph
from compiler_gym.errors import BenchmarkInitError, DatasetInitError, ServiceError
from compiler_gym.util.cli import argument_parser, check_dataset, parse_args, progress

DIM = 200


def _held_out(uri: str) -> bool:
    return hashlib.sha1(uri.encode()).digest()[0] % 10 == 0


def corpus_uris(env, csmith: int, datasets: list[str]) -> tuple[list[str], list[str]]:
    """(training, held-out) benchmark URIs, in a fixed order."""
    train, held = [], []
    for name in datasets:
        try:
            dataset = check_dataset(env, name)
            if not dataset.installed:
                dataset.install()
            uris = sorted({u.split("?")[0] for u in dataset.benchmark_uris()})
        except (DatasetInitError, LookupError) as e:
            print(f"skipping {name}: {e.args[0] if e.args else e}")
            continue
        for uri in uris:
            (held if _held_out(uri) else train).append(uri)
    train += [f"generator://csmith-v0/{seed}" for seed in range(csmith)]
    held += [f"generator://csmith-v0/{seed}" for seed in range(csmith, csmith + csmith // 10)]
    return train, held


def program_states(env, uri: str, episodes: int, steps: int, rng: random.Random):
    """Bitcode of a program: its initial state, then the end of each random episode."""
    try:
        env.reset(benchmark=uri)
    except (BenchmarkInitError, ServiceError, ValueError) as e:
        print(f"skipping {uri}: {e}")
        return
    yield env.observation["Bitcode"].tobytes()
    for _ in range(episodes):
        env.reset(benchmark=uri)
        for _ in range(steps):
            _, _, done, _ = env.step(rng.randrange(env.action_space.n))
            if done:
                break
        if not done:
            yield env.observation["Bitcode"].tobytes()


def context_pairs(num_statements: int, edges: list, window: int, starts) -> list[tuple[int, int]]:
    """(center, context) statement pairs within ``window`` hops of the undirected flow graph,
    for the given center statements."""
    neighbours = [[] for _ in range(num_statements)]
    for a, b in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    pairs = []
    for start in starts:
        seen = {start}
        frontier = [start]
        for _ in range(window):
            frontier = [n for f in frontier for n in neighbours[f] if n not in seen]
            frontier = list(dict.fromkeys(frontier))
            seen.update(frontier)
            pairs.extend((start, n) for n in frontier)
    return pairs


def train_skipgram(
    pairs: np.ndarray, counts: np.ndarray, dim: int, epochs: int, negatives: int, seed: int
) -> tuple[np.ndarray, list[float]]:
    """Skip-gram with negative sampling; returns the input embeddings and the loss per epoch."""
    torch.manual_seed(seed)
    rows = len(counts)
    center = torch.nn.Embedding(rows, dim, sparse=True)
    context = torch.nn.Embedding(rows, dim, sparse=True)
    torch.nn.init.uniform_(center.weight, -0.5 / dim, 0.5 / dim)
    torch.nn.init.zeros_(context.weight)
    optimizer = torch.optim.SparseAdam(list(center.parameters()) + list(context.parameters()), 1e-2)
    noise = torch.tensor(counts, dtype=torch.float64) ** 0.75
    noise /= noise.sum()
    data = torch.from_numpy(pairs)
    generator = torch.Generator().manual_seed(seed)
    losses = []
    batch = 4096
    for _ in range(epochs):
        order = torch.randperm(len(data), generator=generator)
        total, n = 0.0, 0
        for start in range(0, len(data), batch):
            chunk = data[order[start : start + batch]]
            c, o = chunk[:, 0], chunk[:, 1]
            neg = torch.multinomial(noise, len(chunk) * negatives, True, generator=generator)
            vc = center(c)
            pos = torch.nn.functional.logsigmoid((vc * context(o)).sum(-1))
            vn = context(neg.view(len(chunk), negatives))
            negl = torch.nn.functional.logsigmoid(-(vn @ vc.unsqueeze(-1)).squeeze(-1)).sum(-1)
            loss = -(pos + negl).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(chunk)
            n += len(chunk)
        losses.append(total / max(n, 1))
    return center.weight.detach().numpy().astype(np.float32), losses


def main(argv=None) -> int:
    """Runs the tool on ``argv`` (default: the command line): collects the corpus, trains the
    embeddings, writes the data files under ``--out`` and prints their metadata; returns 0."""
    parser = argument_parser("compiler_gym.bin.train_inst2vec", __doc__)
    parser.add_argument(
        "--out",
        default=str(Path(compiler_gym.__file__).parent / "data"),
        help="the folder the data files go to (default: the package's data folder)",
    )
    parser.add_argument(
        "--datasets",
        default="builtin-v0,gcc-torture-v0,pypi-c-v0",
        help="the finite datasets of the corpus, comma-separated "
        "(default builtin-v0,gcc-torture-v0,pypi-c-v0)",
    )
    parser.add_argument(
        "--csmith", type=int, default=100, help="csmith-v0 seeds to train on (default 100)"
    )
    parser.add_argument(
        "--episodes",
        type=int,
        default=1,
        help="random episodes per program, each adding its last state (default 1)",
    )
    parser.add_argument(
        "--steps", type=int, default=10, help="random passes per episode (default 10)"
    )
    parser.add_argument(
        "--window",
        type=int,
        default=2,
        help="data/control flow hops within which statements are contexts (default 2)",
    )
    parser.add_argument(
        "--min-count",
        type=int,
        default=3,
        help="times a statement must be seen to enter the vocabulary (default 3)",
    )
    parser.add_argument(
        "--max-vocabulary", type=int, default=4000, help="the most statements kept (default 4000)"
    )
    parser.add_argument(
        "--centers-per-state",
        type=int,
        default=1000,
        help="skip-gram center statements sampled per program state (default 1000)",
    )
    parser.add_argument(
        "--epochs", type=int, default=2, help="training passes over the pairs (default 2)"
    )
    parser.add_argument(
        "--negatives", type=int, default=5, help="negative samples per pair (default 5)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the episodes and the training (default 0)"
    )
    args = parse_args(parser, argv)
    torch.set_num_threads(1)  # reproducible arithmetic
    out = Path(args.out)
    started = time.time()

    rng = random.Random(args.seed)
    programs = []  # (statements, edges) of each training state
    held_statements = []
    programl_texts = collections.Counter()
    with compiler_gym.make("llvm-v0") as env:
        train, held = corpus_uris(env, args.csmith, args.datasets.split(","))
        for uri in progress(train, desc="training programs"):
            for ir in program_states(env, uri, args.episodes, args.steps, rng):
                statements, edges = inst2vec_statement_graph(ir)
                programs.append((statements, edges))
                graph = env.observation["ProgramlJson"]  # the state just yielded
                programl_texts.update(node["text"] for node in graph["nodes"])
        for uri in progress(held, desc="held-out programs"):
            for ir in program_states(env, uri, args.episodes, args.steps, rng):
                held_statements.extend(inst2vec_statement_graph(ir)[0])

    counts = collections.Counter(s for statements, _ in programs for s in statements)
    ranked = sorted(
        (s for s, c in counts.items() if c >= args.min_count), key=lambda s: (-counts[s], s)
    )
    vocabulary = ranked[: args.max_vocabulary]
    ids = {s: i for i, s in enumerate(vocabulary)}
    unknown = len(vocabulary)

    # Large programs (sqlite has ~300k statements) would swamp the corpus: at most
    # --centers-per-state center statements per state, drawn with a seeded generator.
    sampler = np.random.default_rng(args.seed)
    chunks = []
    for statements, edges in programs:
        mapped = np.array([ids.get(s, unknown) for s in statements], dtype=np.int64)
        starts = range(len(statements))
        if len(statements) > args.centers_per_state:
            starts = sorted(sampler.choice(len(statements), args.centers_per_state, replace=False))
        window = np.array(context_pairs(len(statements), edges, args.window, starts), np.int64)
        if len(window):
            chunks.append(mapped[window.reshape(-1, 2)])
    pairs = np.concatenate(chunks) if chunks else np.zeros((0, 2), np.int64)
    token_counts = np.bincount(pairs[:, 1], minlength=unknown + 1).astype(np.float64) + 1
    embeddings, losses = train_skipgram(
        pairs, token_counts, DIM, args.epochs, args.negatives, args.seed
    )

    held_unknown = sum(1 for s in held_statements if s not in ids)
    train_statements = sum(counts.values())
    train_unknown = sum(c for s, c in counts.items() if s not in ids)
    programl_vocabulary = sorted(programl_texts, key=lambda t: (-programl_texts[t], t))

    (out / "inst2vec").mkdir(parents=True, exist_ok=True)
    (out / "programl").mkdir(parents=True, exist_ok=True)
    (out / "inst2vec" / "vocabulary.txt").write_text("".join(s + "\n" for s in vocabulary))
    embeddings.astype("<f2").tofile(out / "inst2vec" / "embeddings.f16")
    (out / "programl" / "vocabulary.txt").write_text("".join(t + "\n" for t in programl_vocabulary))
    metadata = {
        "command": "python -m compiler_gym.bin.train_inst2vec "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "parameters": vars(args) | {"out": None},
        "training_programs": len(train),
        "training_states": len(programs),
        "held_out_programs": len(held),
        "training_statements": train_statements,
        "training_unknown_rate": train_unknown / max(train_statements, 1),
        "held_out_statements": len(held_statements),
        "held_out_unknown_rate": held_unknown / max(len(held_statements), 1),
        "distinct_statements": len(counts),
        "vocabulary_size": len(vocabulary),
        "context_pairs": int(len(pairs)),
        "loss_per_epoch": losses,
        "programl_vocabulary_size": len(programl_vocabulary),
        "seconds": round(time.time() - started, 1),
    }
    (out / "inst2vec" / "metadata.json").write_text(json.dumps(metadata, indent=2) + "\n")
    _C.clear_vocabulary_cache()
    print(json.dumps({k: v for k, v in metadata.items() if k != "parameters"}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
