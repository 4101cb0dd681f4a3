"""The package's PPO trainer (compiler_gym.train) and its command line: an update's numbers on a
fixed batch, asynchronous collection's transitions per env, resume against an uninterrupted run,
reused embeddings and batched GNN passes against fresh ones, and a tiny run of the CLI."""

import csv
import json
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import compiler_gym  # noqa: E402
from compiler_gym.agents.gnn import GnnPolicy, Graphs, vocabulary_size  # noqa: E402
from compiler_gym.agents.mlp import Features, MlpPolicy, autophase_features  # noqa: E402
from compiler_gym.train.config import PpoConfig, TrainConfig  # noqa: E402
from compiler_gym.train.ppo import Rollout, gae, ppo_update  # noqa: E402
from compiler_gym.train.trainer import Trainer  # noqa: E402
from conftest import record_recv, two_small_graphs  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta"),
    pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly disabled"),
]

# Two builtin programs of different sizes (tests only: builtin-v0 is the leaderboard's suite,
# which the trainer's defaults never use); crc32's passes are faster than qsort's.
PROGRAMS = ["benchmark://builtin-v0/crc32", "benchmark://builtin-v0/qsort"]


def _config(agent="mlp", **changes):
    """A tiny run: 2 envs, rollouts of 8 steps, episodes of 10."""
    ppo = PpoConfig(n_steps=8, minibatch_size=8, n_epochs=2, learning_rate=0.003)
    values = dict(
        agent=agent,
        programs=PROGRAMS,
        num_envs=2,
        episode_length=10,
        num_threads=2,
        checkpoint_every=2,
        ppo=ppo,
    )
    values.update(changes)
    return TrainConfig(**values)


def _graphs():
    """Two small graphs, the second with a text id past the vocabulary (unknown)."""
    return Graphs.collate([Graphs.from_engine_graph(g) for g in two_small_graphs()])


def _fixed_update(agent):
    """A fixed-seed network, a fixed rollout of repeated states, and three PPO epochs."""
    torch.manual_seed(0)
    if agent == "mlp":
        policy = MlpPolicy(5, head=(8,))
        states = torch.rand(3, 57)
        index = torch.tensor([0, 1, 1, 2, 0, 0, 1, 2, 2, 1, 0, 1])
    else:
        policy = GnnPolicy(5, 10, hidden=4, layers=2, head=(8,))
        states = policy.plan(_graphs())
        index = torch.tensor([0, 1, 1, 0, 0, 0, 1, 0])
    g = torch.Generator().manual_seed(1)
    n = index.numel()
    histories = torch.randint(0, 3, (n, 5), generator=g).float() / 45
    actions = torch.randint(0, 5, (n,), generator=g)
    with torch.no_grad():
        logits, values = policy(policy.select(states, index), histories)
        log_probs = torch.log_softmax(logits, 1).gather(1, actions[:, None])[:, 0]
        embeddings = policy.embed(states)
    advantages = torch.randn(n, generator=g)
    rollout = Rollout(
        states, index, embeddings, histories, actions, log_probs, advantages, advantages + values
    )
    optimizer = torch.optim.Adam(policy.parameters(), lr=0.01, eps=1e-5)
    ppo = PpoConfig(minibatch_size=4, n_epochs=3, embed_epochs=1 if agent == "gnn" else None)
    stats = ppo_update(policy, optimizer, rollout, ppo, torch.Generator().manual_seed(2))
    return policy, stats


# Recorded from a run: a change to the loss, the shuffling, the clipping, the normalization, the
# optimizer or the networks' initialization changes them.
RECORDED = {
    "mlp": (
        {
            "policy_loss": -0.004886872653,
            "value_loss": 0.3149000257,
            "entropy": 1.600228853,
            "approx_kl": 0.01452433235,
            "clip_fraction": 0.25,
            "states_embedded": 26,
        },
        [0.01124658, -0.07815608, 0.04947824, -0.085, -0.03498152, 0.06922448, 0.02261137,
         -0.08120106],
        0.95765543,
    ),
    "gnn": (
        {
            "policy_loss": 0.005627648168,
            "value_loss": 1.30686449,
            "entropy": 1.607289334,
            "approx_kl": 0.00252665331,
            "clip_fraction": 0.0,
            "states_embedded": 4,
        },
        [0.03841376, -0.00317095, 0.01274176, -0.00824026, 0.00081925, -0.01042613, 0.00243605,
         0.00861952],
        0.53031212,
    ),
}  # fmt: skip


@pytest.mark.parametrize("agent", ["mlp", "gnn"])
def test_a_fixed_seed_update_on_a_fixed_batch_gives_the_recorded_losses_and_weights(agent):
    policy, stats = _fixed_update(agent)
    losses, pi_row, vf_sum = RECORDED[agent]
    assert stats.keys() == losses.keys()
    for key, value in losses.items():
        assert stats[key] == pytest.approx(value, rel=1e-6, abs=1e-9), key
    torch.testing.assert_close(
        policy.pi[-1].weight[0].detach(), torch.tensor(pi_row), rtol=0, atol=1e-7
    )
    assert float(policy.vf[0].weight.detach().sum()) == pytest.approx(vf_sum, abs=1e-6)
    if agent == "gnn":  # the encoder trained too (its last epoch)
        torch.testing.assert_close(
            policy.convs[0].linear.weight[0, :6].detach(),
            torch.tensor([0.02071038, -0.14748773, 0.03419908, -0.13518305, -0.15920506,
                          0.18489197]),
            rtol=0, atol=1e-7,
        )  # fmt: skip
    again, _ = _fixed_update(agent)
    for a, b in zip(policy.parameters(), again.parameters(), strict=True):
        assert torch.equal(a, b)


def test_gae_by_hand():
    """Two envs, three steps; env 1's episode ends after step 0 (no bootstrap across it)."""
    rewards = torch.tensor([[1.0, 2.0], [0.0, 1.0], [1.0, 0.0]])
    values = torch.tensor([[0.5, 1.0], [0.5, 0.5], [0.5, 0.5]])
    dones = torch.tensor([[False, True], [False, False], [False, False]])
    last = torch.tensor([1.0, 2.0])
    out = gae(rewards, values, dones, last, gamma=0.5, lam=0.5)
    # env 0: deltas 0.75, -0.25, 1.0; env 1: 1.0 (ended), 0.75, 0.5
    expected_0 = [0.75 + 0.25 * (-0.25 + 0.25 * 1.0), -0.25 + 0.25 * 1.0, 1.0]
    expected_1 = [1.0, 0.75 + 0.25 * 0.5, 0.5]
    torch.testing.assert_close(out, torch.tensor([expected_0, expected_1]).T)


def test_asynchronous_collection_delivers_every_envs_transitions_once_and_in_order():
    """Four envs, recv of two at a time, two rollouts: each env has exactly n_steps
    transitions per rollout, numbered by the engine one after the other across episodes and
    rollouts; the envs' actions are those of a synchronous run of the same seed."""
    config = _config(num_envs=4, batch_size=2, ppo=PpoConfig(n_steps=12, minibatch_size=16))
    with Trainer(config) as trainer:
        batches, episode, elapsed = record_recv(trainer, 4)
        rollouts = [trainer.collect() for _ in range(2)]
    # Batches of two while two or more envs are in flight (fewer at a rollout's tail, where
    # the envs that are done wait for the others).
    assert all(1 <= len(b) <= 2 for b in batches) and sum(len(b) == 2 for b in batches) > 12
    assert sorted(sum(batches, [])) == sorted(list(range(4)) * 24)  # 2 x 12 steps per env
    for env in range(4):
        # Episodes of 10 steps: 1..10, then 1..10, then 1..4, in episodes 0, 1, 2.
        assert elapsed[env] == list(range(1, 11)) * 2 + [1, 2, 3, 4]
        assert episode[env] == [0] * 10 + [1] * 10 + [2] * 4
    with Trainer(config.replace(batch_size=4)) as trainer:
        assert not trainer.config.asynchronous
        synchronous = [trainer.collect() for _ in range(2)]
    for rollout, same in zip(rollouts, synchronous, strict=True):
        assert torch.equal(rollout.actions, same.actions)
        torch.testing.assert_close(rollout.returns, same.returns, rtol=0, atol=1e-5)


@pytest.mark.parametrize("agent", ["mlp", "gnn"])
def test_resuming_after_n_updates_equals_an_uninterrupted_run_of_2n(agent, tmp_path):
    config = _config(agent)
    with Trainer(config) as whole:
        whole.train(max_updates=4)
        expected = {k: v.clone() for k, v in whole.policy.state_dict().items()}
        curve = whole.curve
    with Trainer(config) as first:
        first.train(max_updates=2, checkpoint_dir=tmp_path)
        halfway = {k: v.clone() for k, v in first.policy.state_dict().items()}
    with Trainer(config) as second:
        second.load_checkpoint(tmp_path)
        assert second.updates == 2 and second.timesteps == 2 * 8 * 2
        second.train(max_updates=4)
        resumed = second.policy.state_dict()
        assert [r["steps"] for r in second.curve] == [r["steps"] for r in curve]
        assert [r["policy_loss"] for r in second.curve] == [r["policy_loss"] for r in curve]
    assert expected.keys() == resumed.keys()
    assert any(not torch.equal(halfway[k], expected[k]) for k in expected)  # it trained on
    for key, value in expected.items():
        assert torch.equal(resumed[key], value), key


def test_a_checkpoint_of_another_agent_is_refused(tmp_path):
    with Trainer(_config("mlp")) as trainer:
        trainer.save_checkpoint(tmp_path)
    with Trainer(_config("gnn")) as trainer:
        with pytest.raises(ValueError, match="mlp agent's checkpoint"):
            trainer.load_checkpoint(tmp_path / "checkpoint.pt")


def test_a_reused_embedding_equals_a_fresh_forward_pass():
    """Two envs, eight steps of the GNN: each transition's embedding (computed once per
    distinct state) equals the forward pass of the graph that env observed at that step."""
    observed = []
    with Trainer(_config("gnn")) as trainer:
        step = trainer.vec.step

        def recording_step(actions):
            out = step(actions)
            observed.append(Graphs.from_batch(out[0], copy=True))
            return out

        with torch.no_grad():
            first = trainer.policy.embed(trainer.states)  # the graphs of the reset
        trainer.vec.step = recording_step
        rollout = trainer.collect()
        policy = trainer.policy
        after = trainer.current
    states = rollout.state_index.view(8, 2)
    distinct = rollout.embeddings.shape[0]
    assert distinct == policy.count(rollout.states) < 16  # states repeat
    torch.testing.assert_close(rollout.embeddings[states[0]], first, rtol=0, atol=1e-6)
    with torch.no_grad():
        for t in range(1, 8):
            fresh = policy.embed(observed[t - 1])
            torch.testing.assert_close(rollout.embeddings[states[t]], fresh, rtol=0, atol=1e-6)
        torch.testing.assert_close(
            rollout.embeddings[after], policy.embed(observed[7]), rtol=0, atol=1e-6
        )


def test_the_gnn_batched_forward_equals_per_graph_forwards():
    """A fresh network on the engine's batch of three envs: each graph's logits and value are
    its forward pass alone."""
    with compiler_gym.make_vec(
        "llvm-v0",
        num_envs=3,
        num_threads=2,
        observation_space="Programl",
        reward_space=None,
        benchmarks=PROGRAMS,
    ) as vec:
        batch, _ = vec.reset()
        graphs = Graphs.from_batch(batch, copy=True)
    torch.manual_seed(4)
    policy = GnnPolicy(7, vocabulary_size(), hidden=8, layers=2, head=(16,))
    history = torch.rand(3, 7)
    with torch.no_grad():
        logits, values = policy(policy.observe(batch), history)
        for i, graph in enumerate(graphs.split()):
            one_logits, one_value = policy(graph, history[i : i + 1])
            torch.testing.assert_close(one_logits[0], logits[i], rtol=0, atol=1e-5)
            torch.testing.assert_close(one_value[0], values[i], rtol=0, atol=1e-5)
    assert not torch.allclose(logits[0], logits[1])  # the graphs differ, and so do their rows


def test_the_mlp_features_are_the_leaderboard_agents():
    """The trainer's tensor features equal the NumPy ones the SB3 agent was trained on."""
    with compiler_gym.make_vec(
        "llvm-v0", num_envs=2, observation_space="Autophase", reward_space=None,
        benchmarks=PROGRAMS,
    ) as vec:  # fmt: skip
        autophase, _ = vec.reset()
        autophase = autophase.clone()
    rows = Features(5, 45)(autophase.numpy(), [[1, 1, 4], []])
    assert torch.equal(autophase_features(autophase), torch.from_numpy(rows[:, :57]))
    assert rows[0, 57:].tolist() == pytest.approx([0, 2 / 45, 0, 0, 1 / 45])


def test_the_config_reads_json_toml_and_the_gnn_entrys_config(tmp_path):
    path = tmp_path / "train.toml"
    path.write_text('agent = "gnn"\nnum_envs = 8\n[ppo]\nn_steps = 16\n[gnn]\nhidden = 8\n')
    config = TrainConfig.load(path)
    assert (config.agent, config.num_envs, config.ppo.n_steps, config.gnn.hidden) == (
        "gnn", 8, 16, 8,
    )  # fmt: skip
    assert TrainConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    from pathlib import Path

    entry = Path(__file__).resolve().parent.parent / "benchmarks/leaderboard/ppo_gnn/config.json"
    legacy = TrainConfig.load(entry)
    assert legacy.ppo.minibatch_size == 128 and legacy.ppo.embed_epochs == 1
    listed = (entry.parent.parent / "ppo" / "training_programs.txt").read_text().split()
    assert legacy.agent == "gnn" and legacy.total_steps == 5_000_000 and legacy.programs == listed
    assert not any("builtin-v0" in p for p in legacy.programs)
    with pytest.raises(ValueError, match="unknown config key.*ppo.n_step\\b"):
        TrainConfig.from_dict({"ppo": {"n_step": 3}})
    with pytest.raises(ValueError, match="batch_size"):
        TrainConfig(num_envs=4, batch_size=5)
    with pytest.raises(ValueError, match="agent"):
        TrainConfig(agent="transformer")


def test_the_cli_trains_writes_its_files_and_resumes(tmp_path, capsys):
    from compiler_gym.bin import train

    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({**_config().to_dict(), "checkpoint_every": 2}))
    out = tmp_path / "run"
    argv = ["--config", str(config), "--out", str(out), "--total-steps", "64", "--quiet"]
    assert train.main(argv) == 0
    assert "trained 64 steps (4 updates)" in capsys.readouterr().out
    with open(out / "curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["steps"]) for r in rows] == [16, 32, 48, 64]
    assert set(rows[0]) >= {"seconds", "mean_episode_reward", "policy_loss", "value_loss"}
    assert (out / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "actions.txt").read_text().split()[0] == "-add-discriminators"
    checkpoint = torch.load(out / "checkpoint.pt", weights_only=False)
    assert checkpoint["counters"]["updates"] == 4
    assert set(checkpoint) >= {"policy", "optimizer", "generator", "torch_rng"}

    assert train.main(["--out", str(out), "--resume", "--total-steps", "96", "--quiet"]) == 0
    with open(out / "curve.csv") as f:
        resumed = list(csv.DictReader(f))
    assert resumed[:4] == rows and [int(r["steps"]) for r in resumed[4:]] == [80, 96]
    # The policy the CLI wrote loads as an agent's.
    from compiler_gym.agents.mlp import MlpAgent

    agent = MlpAgent(out / "policy.pt", out / "config.json")
    with compiler_gym.make("llvm-ic-v0", benchmark=PROGRAMS[0]) as env:
        env.reset()
        p = agent.probabilities(agent.observe(env), [[]])
        assert p.shape == (1, env.action_space.n) and np.isclose(p.sum(), 1)

    capsys.readouterr()
    assert train.main(["--out", str(tmp_path / "none"), "--resume", "--quiet"]) == 2
    assert "no checkpoint" in capsys.readouterr().err
    assert "torch" in sys.modules  # (the CLI imported it; `import compiler_gym` does not)


def test_a_run_in_another_action_space_trains_and_replays_there(tmp_path):
    config = TrainConfig(
        agent="mlp",
        programs=["generator://csmith-v0/1"],
        num_envs=2,
        episode_length=4,
        action_space="PassesParameterized",
        ppo=PpoConfig(n_steps=4, minibatch_size=8, n_epochs=1),
    )
    with Trainer(config) as trainer:
        trainer.train(max_updates=1)
        with compiler_gym.make("llvm-v0", action_space="PassesParameterized") as env:
            assert trainer.flags == env.action_space.flags and "default<Oz>" in trainer.flags
        trainer.save_policy(tmp_path)
    from compiler_gym.agents.mlp import MlpAgent
    from compiler_gym.agents.table import run_agent

    agent = MlpAgent(tmp_path / "policy.pt", config.to_dict())
    assert agent.action_space == "PassesParameterized" and agent.num_trained == 194
    with compiler_gym.make("llvm-ic-v0", benchmark="generator://csmith-v0/1") as env:
        state = run_agent(env, agent=agent)
    # The episode ran in the pipeline space: its state is an `opt -passes=` command line.
    assert state.commandline.startswith("opt '-passes=")


@pytest.mark.parametrize("entry", ["gnn_trainer", "mlp_trainer"])
@pytest.mark.parametrize("program", ["crc32", "qsort", "sha256"])
def test_the_trainers_entries_replay_their_recorded_states(entry, program):
    """The gnn_trainer and mlp_trainer leaderboard entries (compiler_gym.bin.train runs, scored
    zero-shot by benchmarks/leaderboard/trained_agent.py) give their recorded states again."""
    import importlib.util

    from compiler_gym.agents.table import run_agent
    from compiler_gym.compiler_env_state import CompilerEnvStateReader

    leaderboard = Path(__file__).resolve().parent.parent / "benchmarks" / "leaderboard"
    spec = importlib.util.spec_from_file_location("trained_agent", leaderboard / "trained_agent.py")
    trained_agent = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trained_agent)
    agent = trained_agent.load_agent(leaderboard / entry)
    (expected,) = [
        s
        for s in CompilerEnvStateReader.read_paths(
            [str(leaderboard / f"{entry}-llvm_instcount.csv")]
        )
        if s.benchmark == f"benchmark://builtin-v0/{program}"
    ]
    with compiler_gym.make("llvm-ic-v0") as env:
        state = run_agent(env, f"builtin-v0/{program}", agent=agent)
        assert state.commandline == expected.commandline
        assert state.reward == pytest.approx(expected.reward)
