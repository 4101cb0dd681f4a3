"""Program representations: ProGraML, inst2vec and LexedIr from Python, single
and batched by the vector engine."""

import re
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import torch

import compiler_gym
from compiler_gym.batches import GraphBatch, PaddedBatch, RaggedBatch
from conftest import fixture_uri

DATA = Path(compiler_gym._C.data_directory())  # where the engine reads its vocabularies
URIS = [
    "benchmark://builtin-v0/qsort",
    "benchmark://builtin-v0/crc32",
    "benchmark://builtin-v0/sha256",
]


@pytest.fixture(scope="module")
def inst2vec_table():
    vocabulary = (DATA / "inst2vec" / "vocabulary.txt").read_text().splitlines()
    table = np.fromfile(DATA / "inst2vec" / "embeddings.f16", dtype="<f2").reshape(-1, 200)
    table = table.astype(np.float32)  # the engine widens exactly as numpy does
    assert table.shape[0] == len(vocabulary) + 1  # the last row is !UNK
    return vocabulary, table


def observe(uri, *spaces, actions=()):
    with compiler_gym.make("llvm-v0", benchmark=uri) as env:
        env.reset()
        for a in actions:
            env.step(a)
        return [env.observation[s] for s in spaces]


def test_programl_graph_matches_its_json_and_the_module():
    graph, text, count = observe(URIS[0], "Programl", "ProgramlJson", "IrInstructionCount")
    assert isinstance(graph, nx.MultiDiGraph)
    data = text
    assert data["directed"] and data["multigraph"]
    assert graph.number_of_nodes() == len(data["nodes"])
    assert graph.number_of_edges() == len(data["links"])
    assert graph.nodes[0]["text"] == "[external]"
    instructions = [n for n, d in graph.nodes(data=True) if d["type"] == 0]
    assert len(instructions) == count + 1  # every instruction, and the root
    for link in data["links"][:50]:
        attrs = graph.get_edge_data(link["source"], link["target"])[link["key"]]
        assert (attrs["flow"], attrs["position"]) == (link["flow"], link["position"])
    flows = {d["flow"] for _, _, d in graph.edges(data=True)}
    assert flows == {0, 1, 2}
    # Data edges join a value's producer to its variable: every variable has one producer or
    # is an argument/global (no producer).
    for n, d in graph.nodes(data=True):
        if d["type"] == 1:
            producers = [u for u, _, e in graph.in_edges(n, data=True) if e["flow"] == 1]
            assert len(producers) <= 1


def test_programl_is_deterministic_and_tracks_the_module():
    first = observe(URIS[1], "ProgramlJson")[0]
    assert observe(URIS[1], "ProgramlJson")[0] == first
    with compiler_gym.make("llvm-v0") as env:
        mem2reg = env.action_space.flags.index("-mem2reg")
    after = observe(URIS[1], "ProgramlJson", actions=[mem2reg])[0]
    assert after != first


def test_engine_graph_arrays_are_read_only_views_of_the_cached_graph():
    # The graph cached in this process: where the env runs.
    with compiler_gym.make("llvm-v0", benchmark=URIS[1], isolation="none") as env:
        env.reset()
        index = env.observation.spaces["Programl"].index
        first, again = env._env.observe(index), env._env.observe(index)
        # Both views share the env's cached graph; writing through one would corrupt it.
        assert np.shares_memory(first["edge_source"], again["edge_source"])
        assert not first["edge_source"].flags.writeable
        with pytest.raises(ValueError):
            first["edge_source"][0] = 7
        # The views outlive the env and its cache.
        edges = first["edge_source"].copy()
    assert np.array_equal(first["edge_source"], edges)


def test_inst2vec_observations_agree(inst2vec_table):
    vocabulary, table = inst2vec_table
    text, indices, embeddings = observe(
        URIS[0], "Inst2vecPreprocessedText", "Inst2vecEmbeddingIndices", "Inst2vec"
    )
    assert isinstance(text, list) and all(isinstance(s, str) for s in text)
    # Normalized: no raw local or global names, no metadata.
    for statement in text:
        bare = statement.replace("<%ID>", "").replace("<@ID>", "")
        assert not re.search(r"[%@][A-Za-z0-9_.\"]", bare), statement
        assert "!dbg" not in statement and not re.search(r"#\d", statement)
    ids = {s: i for i, s in enumerate(vocabulary)}
    assert indices.tolist() == [ids.get(s, len(vocabulary)) for s in text]
    assert embeddings.shape == (len(text), 200) and embeddings.dtype == np.float32
    np.testing.assert_array_equal(embeddings, table[indices])
    # The built-in programs are in the training set: nearly every statement is known.
    assert (indices == len(vocabulary)).mean() < 0.05


def test_lexed_ir_tokens():
    lexed, ir = observe(URIS[1], "LexedIr", "Ir")
    assert set(lexed) == {"token_id", "token_kind", "token_category", "token_value"}
    n = len(lexed["token_id"])
    assert n > 100 and all(len(v) == n for v in lexed.values())
    assert lexed["token_kind"].count("kw_define") == len(re.findall(r"^define ", ir, re.M))
    assert set(lexed["token_category"]) <= {
        "punctuation",
        "keyword",
        "identifier",
        "literal",
        "type",
        "debug",
    }


def test_vec_programl_batch_is_the_concatenation_of_single_graphs():
    vec = compiler_gym.make_vec(
        "llvm-v0",
        num_envs=3,
        num_threads=2,
        benchmarks=URIS,
        observation_space="Programl",
        reward_space=None,
    )
    batch, _ = vec.reset()
    assert isinstance(batch, GraphBatch) and batch.num_graphs == 3
    singles = [observe(uri, "Programl")[0] for uri in URIS]
    assert batch.ptr.tolist() == np.cumsum([0] + [g.number_of_nodes() for g in singles]).tolist()
    for i, g in enumerate(singles):
        lo, hi = batch.ptr[i].item(), batch.ptr[i + 1].item()
        assert batch.x[lo:hi].tolist() == [d["text_id"] for _, d in g.nodes(data=True)]
        assert batch.node_type[lo:hi].tolist() == [d["type"] for _, d in g.nodes(data=True)]
        assert (batch.batch[lo:hi] == i).all()
        mine = (batch.edge_index[0] >= lo) & (batch.edge_index[0] < hi)
        edges = sorted(
            zip(
                (batch.edge_index[0][mine] - lo).tolist(),
                (batch.edge_index[1][mine] - lo).tolist(),
                batch.edge_flow[mine].tolist(),
                batch.edge_position[mine].tolist(),
                strict=True,
            )
        )
        assert edges == sorted((u, v, d["flow"], d["position"]) for u, v, d in g.edges(data=True))
    assert batch.edge_attr.shape == (batch.edge_index.shape[1], 2)
    # CSR per flow: row r lists the targets of r's edges of that flow.
    for flow, (row_ptr, col, edge_ids) in enumerate(batch.csr):
        assert row_ptr[-1].item() == (batch.edge_flow == flow).sum().item()
        assert (batch.edge_flow[edge_ids] == flow).all()
        assert torch.equal(batch.edge_index[1][edge_ids], col)
        sources = torch.repeat_interleave(torch.arange(len(row_ptr) - 1), row_ptr.diff())
        assert torch.equal(batch.edge_index[0][edge_ids], sources)
    vec.close()


def test_vec_inst2vec_indices_and_padded_embeddings(inst2vec_table):
    _, table = inst2vec_table
    ragged_vec = compiler_gym.make_vec(
        "llvm-v0",
        num_envs=3,
        benchmarks=URIS,
        observation_space="Inst2vecEmbeddingIndices",
        reward_space=None,
    )
    indices, _ = ragged_vec.reset()
    assert isinstance(indices, RaggedBatch) and len(indices) == 3
    padded_vec = compiler_gym.make_vec(
        "llvm-v0", num_envs=3, benchmarks=URIS, observation_space="Inst2vec", reward_space=None
    )
    padded, _ = padded_vec.reset()
    assert isinstance(padded, PaddedBatch)
    lengths = []
    for i, uri in enumerate(URIS):
        single = observe(uri, "Inst2vecEmbeddingIndices")[0]
        assert indices[i].tolist() == single.tolist()
        lengths.append(len(single))
        np.testing.assert_array_equal(padded[i].numpy(), table[single])
    assert padded.lengths.tolist() == lengths
    assert padded.values.shape == (3, max(lengths), 200)
    assert padded.values[lengths.index(min(lengths)), min(lengths) :].abs().sum() == 0
    assert padded.mask().sum().item() == sum(lengths)


def test_vec_failed_env_gives_an_empty_graph(tmp_path):
    broken = tmp_path / "broken.ll"
    broken.write_text("not IR\n")
    vec = compiler_gym.make_vec(
        "llvm-v0",
        num_envs=3,
        benchmarks=[URIS[0], f"file://{broken}", URIS[1]],
        observation_space="Programl",
        reward_space=None,
    )
    batch, info = vec.reset()
    assert info["error_type"].tolist() == ["", "BENCHMARK_INIT", ""]
    sizes = batch.ptr.diff().tolist()
    assert sizes[1] == 0 and sizes[0] > 0 and sizes[2] > 0


# IR fixtures rather than builtin-v0's C sources: the lent GPU machines have no clang-19.
CUDA_URIS = [fixture_uri(name) for name in ("programl_calls.ll", "programl_loop.ll", "inst2vec.ll")]


def batches_by_device(observation_space, devices):
    """``make_vec`` batches of ``observation_space`` after reset, one per device, on
    ``CUDA_URIS``."""
    out = {}
    for device in devices:
        vec = compiler_gym.make_vec(
            "llvm-v0",
            num_envs=len(CUDA_URIS),
            benchmarks=CUDA_URIS,
            observation_space=observation_space,
            reward_space=None,
            device=device,
        )
        out[device], info = vec.reset()
        assert info["error_type"].tolist() == [""] * len(CUDA_URIS)
        vec.close()
    return out


def test_cuda_test_programs_give_graphs_and_statements():
    # What the CUDA test below compares is not empty (checked where there is no GPU too).
    cpu = batches_by_device("Programl", ["cpu"])["cpu"]
    assert min(cpu.ptr.diff().tolist()) > 1
    padded = batches_by_device("Inst2vec", ["cpu"])["cpu"]
    assert min(padded.lengths.tolist()) > 1


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
def test_cuda_batches_equal_cpu_batches():
    out = batches_by_device("Programl", ["cpu", "cuda"])
    cpu, cuda = out["cpu"], out["cuda"]
    assert cuda.x.is_cuda and cuda.edge_index.is_cuda
    for name in ("x", "node_type", "edge_index", "edge_flow", "edge_position", "batch", "ptr"):
        assert torch.equal(getattr(cpu, name), getattr(cuda, name).cpu()), name
    # Inst2vec: the embedding gather runs on the GPU.
    out = batches_by_device("Inst2vec", ["cpu", "cuda"])
    assert out["cuda"].values.is_cuda
    assert torch.equal(out["cpu"].values, out["cuda"].values.cpu())
    assert torch.equal(out["cpu"].lengths, out["cuda"].lengths.cpu())
