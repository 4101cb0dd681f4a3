"""The GNN leaderboard agent (benchmarks/leaderboard/ppo_gnn): the ProGraML batches its policy
reads from make_vec, its network's numbers on a fixed batch, and the committed weights on one
builtin program."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

import compiler_gym  # noqa: E402
from compiler_gym.compiler_env_state import CompilerEnvStateReader  # noqa: E402
from conftest import dense_gnn_embedding, two_small_graphs  # noqa: E402

# PyG's EdgeIndex products go through torch's sparse CSR tensors, which warn that they are in
# beta (the agent's module silences them, but pytest puts the filters back for each test).
pytestmark = [
    pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta"),
    pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly disabled"),
]

LEADERBOARD = Path(__file__).resolve().parent.parent / "benchmarks" / "leaderboard"
BENCHMARKS = ["benchmark://builtin-v0/crc32", "benchmark://builtin-v0/qsort"]


def _load_agent():
    # By path, under a name of its own: tests/test_ppo_agent.py imports the MLP agent's
    # module as ``agent``.
    name = "ppo_gnn_agent"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, LEADERBOARD / "ppo_gnn" / "agent.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


gnn = _load_agent()


@pytest.fixture(scope="module")
def agent():
    return gnn.GnnAgent()


def test_the_programl_batches_the_policy_reads(agent):
    """make_vec's Programl batch: one graph per env, node ids and edges in range, each flow's
    CSR the same edges, and each graph the one a single env observes; the policy gives each
    env the same numbers as on that env's graph alone."""
    vocabulary = gnn.vocabulary_size()
    with compiler_gym.make_vec(
        "llvm-v0",
        num_envs=3,
        num_threads=2,
        device="cpu",
        observation_space="Programl",
        reward_space=None,
        benchmarks=BENCHMARKS,
    ) as vec:
        batch, _ = vec.reset()
        n, e = batch.num_nodes, batch.edge_index.shape[1]
        assert batch.num_graphs == 3 and batch.ptr.tolist()[0] == 0 and batch.ptr[-1] == n
        assert batch.x.shape == batch.node_type.shape == batch.batch.shape == (n,)
        assert batch.x.dtype == torch.int64 and 0 <= batch.x.min() and batch.x.max() <= vocabulary
        assert set(batch.node_type.unique().tolist()) <= {0, 1, 2}
        sizes = batch.ptr[1:] - batch.ptr[:-1]
        assert (sizes > 0).all() and torch.equal(
            batch.batch, torch.repeat_interleave(torch.arange(3), sizes)
        )
        assert batch.edge_index.shape == (2, e) and batch.edge_flow.shape == (e,)
        assert 0 <= batch.edge_index.min() and batch.edge_index.max() < n
        # no edge joins two graphs
        assert torch.equal(batch.batch[batch.edge_index[0]], batch.batch[batch.edge_index[1]])
        for flow, (row_ptr, col, edge_ids) in enumerate(batch.csr):
            assert row_ptr.shape == (n + 1,) and (row_ptr[1:] >= row_ptr[:-1]).all()
            assert row_ptr[-1] == col.numel() == int((batch.edge_flow == flow).sum())
            rows = torch.repeat_interleave(torch.arange(n), row_ptr[1:] - row_ptr[:-1])
            assert torch.equal(batch.edge_index[0, edge_ids], rows)
            assert torch.equal(batch.edge_index[1, edge_ids], col)

        graphs = gnn.Graphs.from_batch(batch)
        history = torch.zeros(3, agent.num_trained)
        history[1, 3] = 2 / 45
        with torch.no_grad():
            embedding = agent.policy.embed(graphs)
            logits, values = agent.policy(graphs, history)
        hidden = agent.config["gnn"]["hidden"]
        assert embedding.shape == (3, 2 * hidden + 1)
        assert logits.shape == (3, agent.num_trained) and values.shape == (3,)
        assert torch.isfinite(logits).all() and torch.isfinite(values).all()

        uris = [vec.benchmark_uris[i % len(BENCHMARKS)] for i in range(3)]
    with compiler_gym.make("llvm-v0") as env:
        for i, (one, uri) in enumerate(zip(graphs.split(), uris, strict=True)):
            env.reset(benchmark=uri)
            alone = gnn.observe_graph(env)
            assert torch.equal(alone.x, one.x) and torch.equal(alone.node_type, one.node_type)
            for (r1, c1), (r2, c2) in zip(alone.csr, one.csr, strict=True):
                assert torch.equal(r1, r2) and torch.equal(c1, c2)
            with torch.no_grad():
                l1, v1 = agent.policy(alone, history[i : i + 1])
            torch.testing.assert_close(l1[0], logits[i], rtol=0, atol=1e-5)
            torch.testing.assert_close(v1[0], values[i], rtol=0, atol=1e-5)


def _fixed_graphs():
    """Two small graphs, the second with a text id past the vocabulary (unknown)."""
    return gnn.Graphs.collate([gnn.Graphs.from_engine_graph(g) for g in two_small_graphs()])


def test_split_and_collate_are_inverse():
    graphs = _fixed_graphs()
    assert graphs.ptr.tolist() == [0, 4, 7]
    assert [c.tolist() for _, c in graphs.csr] == [[1, 2, 6], [3, 0, 1, 4, 6], [1]]
    again = gnn.Graphs.collate(graphs.split())
    for x, y in zip(
        [again.x, again.node_type, again.ptr, *[t for pair in again.csr for t in pair]],
        [graphs.x, graphs.node_type, graphs.ptr, *[t for pair in graphs.csr for t in pair]],
        strict=True,
    ):
        assert torch.equal(x, y)


def test_an_empty_graph_embeds_as_zeros_beside_the_others():
    """A row without a graph (as after an error) is zeros and changes no other row."""
    empty = gnn.Graphs.from_engine_graph(
        {k: [] for k in ("node_text_id", "node_type", "edge_source", "edge_target", "edge_flow")}
    )
    first, second = _fixed_graphs().split()
    torch.manual_seed(0)
    policy = gnn.GnnPolicy(num_actions=5, vocabulary=10, hidden=4, layers=2, head=(8,))
    with torch.no_grad():
        alone = policy.embed(_fixed_graphs())
        mixed = policy.embed(gnn.Graphs.collate([first, empty, second]))
    assert not mixed[1].any()
    torch.testing.assert_close(mixed[[0, 2]], alone, rtol=0, atol=1e-6)


# The network of a fixed seed on _fixed_graphs() (recorded; a change to the network, its
# initialization or the message passing changes them).
EMBEDDING = [
    [-0.6434071064, 0.1719102412, 0.5471232533, -0.0756264031, 0.0947888196, 1.1477094889,
     0.7501447797, 1.4314688444, 0.1609437913],
    [-0.7050856948, 0.1318029016, 0.4825152457, 0.0907675251, 0.5228813887, 1.2142437696,
     1.0285925865, 0.9693769217, 0.1386294365],
]  # fmt: skip
LOGITS = [
    [0.0087295016, -0.0019475955, -0.0065444959, -0.0060612075, -0.0041508013],
    [0.0066952254, -0.0041684974, -0.0071022059, -0.0080602495, -0.0018949751],
]
VALUES = [-0.1419039965, -0.1541595459]


def test_a_fixed_seed_network_gives_the_recorded_numbers():
    torch.manual_seed(0)
    policy = gnn.GnnPolicy(num_actions=5, vocabulary=10, hidden=4, layers=2, head=(8,))
    history = torch.tensor([[0, 1, 0, 0, 2], [0, 0, 0, 0, 0]]) / 45
    with torch.no_grad():
        embedding = policy.embed(_fixed_graphs())
        logits, values = policy(_fixed_graphs(), history)
    assert embedding.shape == (2, 9) and logits.shape == (2, 5) and values.shape == (2,)
    with torch.no_grad():
        torch.testing.assert_close(
            embedding, dense_gnn_embedding(policy, _fixed_graphs()), rtol=0, atol=1e-5
        )
    torch.testing.assert_close(embedding, torch.tensor(EMBEDDING), rtol=0, atol=1e-5)
    torch.testing.assert_close(logits, torch.tensor(LOGITS), rtol=0, atol=1e-7)
    torch.testing.assert_close(values, torch.tensor(VALUES), rtol=0, atol=1e-5)


def test_the_agent_runs_on_one_builtin_program(agent):
    """run_agent zero-shot: actions in range, the committed leaderboard state, validated."""
    (expected,) = [
        s
        for s in CompilerEnvStateReader.read_paths(
            [str(LEADERBOARD / "ppo_gnn-llvm_instcount.csv")]
        )
        if s.benchmark == "benchmark://builtin-v0/crc32"
    ]
    with compiler_gym.make("llvm-ic-v0") as env:
        env.reset(benchmark="builtin-v0/crc32")
        p = agent.probabilities(agent.observe(env), [[]])
        assert p.shape == (1, env.action_space.n) and np.isclose(p.sum(), 1) and (p >= 0).all()
        state = gnn.run_agent(env, agent=agent)
        assert state == env.state and state.benchmark == expected.benchmark
        assert all(0 <= a < env.action_space.n for a in env.actions)
        assert len(env.actions) <= agent.config["episode_length"]
        assert state.commandline == expected.commandline
        assert state.reward == pytest.approx(expected.reward)
        assert env.validate(state).okay()


def test_the_committed_weights_are_a_small_state_dict():
    weights = LEADERBOARD / "ppo_gnn" / "ppo_gnn-llvm_instcount.pt"
    assert weights.stat().st_size < 1 << 20
    state = torch.load(weights, weights_only=True)
    assert all(isinstance(v, torch.Tensor) for v in state.values())


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device for PyTorch")
def test_the_policy_on_cuda_batches_matches_cpu():
    """device="cuda": the engine's batch arrives on the GPU and the network runs there."""
    cuda_agent = gnn.GnnAgent(device="cuda")
    cpu_agent = gnn.GnnAgent()
    outputs = []
    for device, a in (("cuda", cuda_agent), ("cpu", cpu_agent)):
        with compiler_gym.make_vec(
            "llvm-v0",
            num_envs=2,
            device=device,
            observation_space="Programl",
            reward_space=None,
            benchmarks=BENCHMARKS,
        ) as vec:
            batch, _ = vec.reset()
            assert batch.x.device.type == device
            graphs = gnn.Graphs.from_batch(batch)
            history = torch.zeros(2, a.num_trained, device=device)
            with torch.no_grad():
                outputs.append([t.cpu() for t in a.policy(graphs, history)])
    for on_gpu, on_cpu in zip(*outputs, strict=True):
        torch.testing.assert_close(on_gpu, on_cpu, rtol=1e-4, atol=1e-4)
