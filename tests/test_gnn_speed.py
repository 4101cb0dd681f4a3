"""The GNN agent's fast paths (benchmarks/leaderboard/ppo_gnn): each cuts repeated work and must
give the numbers of the plain computation. A plan's distinct rows against one row per node and
against dense matrices, a hash collision caught, a batch against its graphs one by one, a
minibatch's distinct states against a pass per row (loss and gradients). (A rollout's reused
embeddings against fresh forward passes: tests/test_train.py.)"""

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import compiler_gym  # noqa: E402
from compiler_gym.agents import gnn, gnn_graphs  # noqa: E402
from compiler_gym.train import ppo  # noqa: E402
from conftest import dense_gnn_embedding  # noqa: E402

HERE = Path(__file__).resolve().parent
LEADERBOARD = HERE.parent / "benchmarks" / "leaderboard" / "ppo_gnn"
BENCHMARKS = ["benchmark://builtin-v0/crc32", "benchmark://builtin-v0/qsort"]

# The network's sparse products are torch sparse CSR tensors, which warn that they are in beta.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta"),
    pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly disabled"),
]


def _graph(n, edges, text=None, types=None):
    """An engine-style graph of ``n`` nodes; ``edges``: (source, target, flow)."""
    return gnn.Graphs.from_engine_graph(
        {
            "node_text_id": text if text is not None else [i % 3 for i in range(n)],
            "node_type": types if types is not None else [0] * n,
            "edge_source": [s for s, _, _ in edges],
            "edge_target": [t for _, t, _ in edges],
            "edge_flow": [f for _, _, f in edges],
        }
    )


def _fixed_graphs():
    """Three small graphs with repeated neighbourhoods (a chain, a star, a repeated edge) and
    one empty graph."""
    chain = _graph(6, [(i, i + 1, 0) for i in range(5)] + [(0, 2, 1), (3, 5, 1)], [1] * 6)
    star = _graph(
        7, [(0, i, 1) for i in range(1, 7)] + [(i, 0, 2) for i in range(1, 4)], [2] * 7, [1] * 7
    )
    multi = _graph(4, [(0, 1, 1), (0, 1, 1), (2, 1, 1), (3, 2, 0)], [5, 7, 5, 200], [0, 2, 0, 1])
    empty = _graph(0, [])
    return gnn.Graphs.collate([chain, star, empty, multi])


def _policy(seed=0, hidden=8, layers=2, vocabulary=10):
    torch.manual_seed(seed)
    return gnn.GnnPolicy(5, vocabulary, hidden=hidden, layers=layers, head=(8,))


@pytest.mark.parametrize("layers", [1, 2, 3])
def test_a_plan_computes_each_distinct_row_once_with_the_same_numbers(layers):
    graphs = _fixed_graphs()
    policy = _policy(layers=layers)
    plan = policy.plan(graphs)
    per_node = policy.plan(graphs, distinct=False)
    # The chain's, star's and repeated-edge graph's nodes, one row each without sharing.
    assert [layer.rows for layer in per_node.layers] == [17] * layers
    assert per_node.layers[0].graph_rows.tolist() == [6, 7, 0, 4]
    # In the first layer the chain's nodes 1 and 4 have the same row (a control predecessor
    # and successor of the same text), the star's leaves two rows (a data predecessor, and a
    # call successor or not), and the last graph's nodes all differ (their texts do).
    assert plan.layers[0].graph_rows.tolist() == [5, 3, 0, 4]
    assert plan.layers[0].count.tolist() == [1, 2, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1]
    with torch.no_grad():
        fast, slow = policy.embed(plan), policy.embed(per_node)
        dense = dense_gnn_embedding(policy, graphs)
    torch.testing.assert_close(fast, slow, rtol=0, atol=1e-6)
    torch.testing.assert_close(fast, dense, rtol=0, atol=1e-6)
    assert not fast[2].any()  # the empty graph
    # The gradients too, those of the maximum shared among the nodes that reach it (the
    # star's tied leaves) as torch.amax shares them.
    weights = torch.randn(fast.shape)
    grads = []
    for embed in (lambda: policy.embed(plan), lambda: dense_gnn_embedding(policy, graphs)):
        policy.zero_grad()
        (embed() * weights).sum().backward()
        grads.append([p.grad.clone() for p in policy.parameters() if p.grad is not None])
    for ours, theirs in zip(*grads, strict=True):
        torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6)


def test_the_maximum_shares_its_gradient_as_among_the_nodes():
    """Rows standing for 3, 1 and 2 nodes, the first two tied at the maximum: the gradient is
    shared as torch.amax shares it among the six nodes (a quarter to each of the four), so
    the first row gets three quarters."""
    rows = torch.tensor([[1.0, 0.0], [1.0, 2.0], [0.5, 1.0]], requires_grad=True)
    count = torch.tensor([3, 1, 2])
    layer = gnn.LayerPlan(
        cols=torch.zeros(0, dtype=torch.int64),
        values=torch.zeros(0),
        lengths=torch.zeros(3, dtype=torch.int64),
        base=torch.zeros(3, dtype=torch.int64),
        count=count,
        graph_rows=torch.tensor([3]),
        graph_entries=torch.tensor([0]),
        inputs=1,
        shift=False,
    )
    top = gnn._MaxPool.apply(rows, layer)
    assert top.tolist() == [[1.0, 2.0]]
    top.sum().backward()
    nodes = rows.detach().repeat_interleave(count, dim=0).requires_grad_()
    nodes.amax(0).sum().backward()
    per_row = torch.zeros(3, 2).index_add_(0, torch.arange(3).repeat_interleave(count), nodes.grad)
    assert rows.grad.tolist() == per_row.tolist() == [[0.75, 0.0], [0.25, 1.0], [0.0, 0.0]]


def test_a_hash_collision_is_caught_by_the_comparison(monkeypatch):
    """With every row hashing alike, only the entry-by-entry comparison keeps distinct rows
    apart: the same rows, and the same numbers, as with the real hash."""
    graphs = _fixed_graphs()
    policy = _policy()
    plan = policy.plan(graphs)
    monkeypatch.setattr(gnn_graphs, "_HASH_BITS", 0)  # torch.randint(1, ...): every weight 0
    colliding = policy.plan(graphs)
    assert [layer.rows for layer in colliding.layers] >= [layer.rows for layer in plan.layers]
    with torch.no_grad():
        torch.testing.assert_close(policy.embed(colliding), policy.embed(plan), rtol=0, atol=1e-6)


def test_plans_select_and_collate_like_their_graphs():
    graphs = _fixed_graphs()
    policy = _policy()
    plan = policy.plan(graphs)
    with torch.no_grad():
        whole = policy.embed(plan)
        index = torch.tensor([3, 1, 1, 2, 0])
        torch.testing.assert_close(policy.embed(plan.select(index)), whole[index], rtol=0, atol=0)
        parts = gnn.Plan.collate([policy.plan(g) for g in graphs.split()])
        torch.testing.assert_close(policy.embed(parts), whole, rtol=0, atol=1e-6)
        subset = graphs.select(torch.tensor([3, 0]))
        torch.testing.assert_close(policy.embed(subset), whole[[3, 0]], rtol=0, atol=1e-6)
    again = gnn.Graphs.collate([graphs.split()[3], graphs.split()[0]])
    for a, b in zip(
        [subset.x, subset.node_type, subset.ptr, *[t for pair in subset.csr for t in pair]],
        [again.x, again.node_type, again.ptr, *[t for pair in again.csr for t in pair]],
        strict=True,
    ):
        assert torch.equal(a, b)


@pytest.fixture(scope="module")
def engine_graphs():
    """make_vec's ProGraML batch of four envs on two builtin programs, in memory of its own."""
    with compiler_gym.make_vec(
        "llvm-v0",
        num_envs=4,
        num_threads=2,
        observation_space="Programl",
        reward_space=None,
        benchmarks=BENCHMARKS,
    ) as vec:
        batch, _ = vec.reset()
        return gnn.Graphs.from_batch(batch, copy=True)


def test_the_batched_forward_equals_per_graph_forwards(engine_graphs):
    """The committed network on the engine's batch: each graph's row is its forward alone,
    and the dense definition's."""
    agent = gnn.GnnAgent(LEADERBOARD / "ppo_gnn-llvm_instcount.pt", LEADERBOARD / "config.json")
    policy = agent.policy
    with torch.no_grad():
        batched = policy.embed(engine_graphs)
        for i, graph in enumerate(engine_graphs.split()):
            alone = policy.embed(graph)
            torch.testing.assert_close(alone[0], batched[i], rtol=0, atol=1e-5)
        one = engine_graphs.split()[0]
        torch.testing.assert_close(
            policy.embed(one), dense_gnn_embedding(policy, one), rtol=0, atol=1e-5
        )
    plan = policy.plan(engine_graphs)
    assert sum(layer.rows for layer in plan.layers) < engine_graphs.num_nodes  # shared rows


def test_a_minibatch_of_distinct_states_gives_the_same_loss_and_gradients(engine_graphs):
    """Each distinct state embedded once, its rows sharing the embedding, against a pass per
    row: the same loss and gradients (in float64, where only rounding can differ)."""
    policy = _policy(seed=3, hidden=16, vocabulary=gnn.vocabulary_size()).double()
    plan = policy.plan(engine_graphs)
    states = torch.tensor([2, 0, 2, 2, 3, 0, 1, 2])
    weights = torch.randn(len(states), 2 * 16 + 1, dtype=torch.float64)

    def loss_and_grads(embed):
        policy.zero_grad()
        loss = (embed() * weights).square().sum()
        loss.backward()
        return loss.detach(), {
            k: p.grad.clone() for k, p in policy.named_parameters() if p.grad is not None
        }

    distinct_loss, distinct = loss_and_grads(lambda: ppo.embed_distinct(policy, plan, states))
    plain_loss, plain = loss_and_grads(lambda: policy.embed(plan.select(states)))
    torch.testing.assert_close(distinct_loss, plain_loss, rtol=1e-12, atol=0)
    assert distinct.keys() == plain.keys() and len(plain) == 10  # the GNN's, not the heads'
    for name, grad in plain.items():
        torch.testing.assert_close(distinct[name], grad, rtol=1e-10, atol=1e-10, msg=name)
        assert grad.abs().sum() > 0, name
