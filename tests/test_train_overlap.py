"""The trainer's overlapped collection (``TrainConfig.overlap``): the next rollout collected in
a second thread while the learner updates, acted with the weights from before that update. A
fixed seed gives the same run whatever the threads' timing, every env's transitions arrive
once and in order, the rollout collected during update k was acted with the weights from before
update k, and a resumed run equals an uninterrupted one."""

import csv
import json
import threading
import time

import pytest

torch = pytest.importorskip("torch")

from test_train import _config  # noqa: E402

from compiler_gym.train.config import PpoConfig  # noqa: E402
from compiler_gym.train.trainer import Trainer  # noqa: E402
from conftest import record_recv  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta"),
    pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly disabled"),
]


def _overlap_config(agent="mlp", **changes):
    """A tiny overlapped run; the GNN's first epoch trains the heads alone (on the rollout's
    embeddings, which a stale rollout must have recomputed)."""
    ppo = PpoConfig(n_steps=8, minibatch_size=8, n_epochs=2, learning_rate=0.003)
    if agent == "gnn":
        ppo.embed_epochs = 1
    values = dict(overlap=True, checkpoint_every=10, ppo=ppo)
    values.update(changes)
    return _config(agent, **values)


def _weights(policy):
    return {k: v.detach().clone() for k, v in policy.state_dict().items()}


def _record_updates(trainer, delay=0.0):
    """Wraps ``trainer.update``: the list it fills with each update's rollout and the weights
    before it; ``delay`` seconds of sleep first (a slow learner)."""
    seen = []
    update = trainer.update

    def recording_update(rollout):
        seen.append((rollout, _weights(trainer.policy)))
        trainer.updating = True
        time.sleep(delay)
        try:
            return update(rollout)
        finally:
            trainer.updating = False

    trainer.updating = False
    trainer.update = recording_update
    return seen


@pytest.mark.parametrize("agent", ["mlp", "gnn"])
def test_a_fixed_seed_gives_the_same_run_whatever_the_threads_timing(agent):
    """Two overlapped runs of one seed, one with a slow learner (the collector finishes
    first) and one with a slow collector (the learner waits): the same curve and the same
    parameters bit for bit; a run without overlap is another run."""
    runs = []
    for slow in ("learner", "collector"):
        with Trainer(_overlap_config(agent)) as trainer:
            seen = _record_updates(trainer, delay=0.2 if slow == "learner" else 0.0)
            step = trainer.vec.step
            during = []

            def slow_step(actions, step=step, trainer=trainer, during=during, slow=slow):
                during.append(trainer.updating)
                if slow == "collector":
                    time.sleep(0.02)
                return step(actions)

            trainer.vec.step = slow_step
            trainer.train(max_updates=4)
            runs.append((_weights(trainer.policy), trainer.curve, trainer.timesteps))
            assert len(seen) == 4
            # Steps were taken while the learner updated (the slow learner gives them time).
            assert slow == "collector" or any(during)
    (weights, curve, steps), (weights_2, curve_2, steps_2) = runs
    assert steps == steps_2 == 4 * 8 * 2
    for a, b in zip(curve, curve_2, strict=True):  # (repr: NaN, before an episode ends)
        assert [repr(v) for k, v in a.items() if k != "seconds"] == [
            repr(v) for k, v in b.items() if k != "seconds"
        ]
    for key, value in weights.items():
        assert torch.equal(value, weights_2[key]), key
    with Trainer(_overlap_config(agent, overlap=False)) as trainer:
        trainer.train(max_updates=4)
        assert any(not torch.equal(v, weights[k]) for k, v in trainer.policy.state_dict().items())


def test_overlapped_asynchronous_collection_delivers_every_envs_transitions_once_in_order():
    """Four envs, recv of two at a time, three rollouts (two collected during an update):
    each env's transitions arrive once each and in order across episodes and rollouts, and
    the actions are those of a synchronous overlapped run of the same seed."""
    ppo = PpoConfig(n_steps=12, minibatch_size=16, n_epochs=2)
    config = _overlap_config(num_envs=4, batch_size=2, ppo=ppo)
    with Trainer(config) as trainer:
        threads = set()
        batches, episode, elapsed = record_recv(
            trainer, 4, lambda: threads.add(threading.current_thread().name.split("_")[0])
        )
        seen = _record_updates(trainer)
        trainer.train(max_updates=2)
        trainer.collect()  # the third: collected during the second update
        assert trainer.timesteps == 3 * 12 * 4
        rollouts = [rollout for rollout, _ in seen]
    assert threads == {"MainThread", "collector"}
    assert sorted(sum(batches, [])) == sorted(list(range(4)) * 36)  # 3 x 12 steps per env
    assert sum(len(b) == 2 for b in batches) > 18
    for env in range(4):
        # Episodes of 10 steps: 1..10 three times, then 1..6, in episodes 0 to 3.
        assert elapsed[env] == list(range(1, 11)) * 3 + list(range(1, 7))
        assert episode[env] == [0] * 10 + [1] * 10 + [2] * 10 + [3] * 6
    with Trainer(config.replace(batch_size=4)) as trainer:
        assert not trainer.config.asynchronous
        seen = _record_updates(trainer)
        trainer.train(max_updates=2)
        synchronous = [rollout for rollout, _ in seen]
    assert len(rollouts) == len(synchronous) == 2
    for rollout, same in zip(rollouts, synchronous, strict=True):
        assert torch.equal(rollout.actions, same.actions)
        torch.testing.assert_close(rollout.returns, same.returns, rtol=0, atol=1e-5)


def _log_probs(policy, weights, rollout):
    """The log-probabilities of the rollout's actions under ``weights``, recomputed."""
    policy.load_state_dict(weights)
    with torch.no_grad():
        embedding = policy.embed(policy.select(rollout.states, rollout.state_index))
        logits, _ = policy.heads(embedding, rollout.histories)
        return torch.log_softmax(logits, 1).gather(1, rollout.actions[:, None])[:, 0]


@pytest.mark.parametrize("agent", ["mlp", "gnn"])
def test_the_rollout_collected_during_update_k_was_acted_with_the_weights_before_it(agent):
    """Update k + 1 trains on the rollout collected during update k: its recorded
    log-probabilities are those of the weights before update k, not of the weights after it
    (which update k + 1 starts from), and its embeddings (read by the heads-only epoch) were
    recomputed with the latter."""
    with Trainer(_overlap_config(agent)) as trainer:
        seen = _record_updates(trainer)
        trainer.train(max_updates=4)
        policy = trainer.policy
        for k, (rollout, before) in enumerate(seen):
            acted = seen[max(k - 1, 0)][1]  # rollout 0 is collected before update 0
            torch.testing.assert_close(
                rollout.log_probs, _log_probs(policy, acted, rollout), rtol=0, atol=1e-5
            )
            if k:
                fresh = _log_probs(policy, before, rollout)
                assert (rollout.log_probs - fresh).abs().max() > 1e-3  # it is one update stale
                with torch.no_grad():
                    embeddings = policy.embed(rollout.states)
                torch.testing.assert_close(rollout.embeddings, embeddings, rtol=0, atol=1e-6)


@pytest.mark.parametrize("agent", ["mlp", "gnn"])
def test_resuming_an_overlapped_run_after_n_updates_equals_an_uninterrupted_run(agent, tmp_path):
    """Segments of three updates (two collected ahead each): three updates, a checkpoint and
    a resume to six equal six updates in one run; so do two train() calls in one trainer."""
    config = _overlap_config(agent, checkpoint_every=3)
    with Trainer(config) as whole:
        whole.train(max_updates=6)
        expected, curve = _weights(whole.policy), whole.curve
    with Trainer(config) as first:
        first.train(max_updates=3, checkpoint_dir=tmp_path)
        halfway = _weights(first.policy)
    with Trainer(config) as second:
        second.load_checkpoint(tmp_path)
        assert second.updates == 3 and second.timesteps == 3 * 8 * 2
        second.train(max_updates=6)
        resumed = _weights(second.policy)
        assert [r["policy_loss"] for r in second.curve] == [r["policy_loss"] for r in curve]
    assert any(not torch.equal(halfway[k], expected[k]) for k in expected)  # it trained on
    for key, value in expected.items():
        assert torch.equal(resumed[key], value), key
    with Trainer(config) as split:  # a call ending mid-segment leaves its rollout to the next
        split.train(max_updates=2)
        split.train(max_updates=6)
        assert split.timesteps == 6 * 8 * 2
        for key, value in expected.items():
            assert torch.equal(split.policy.state_dict()[key], value), key


def test_closing_abandons_a_collection_under_way_and_the_cli_takes_overlap(tmp_path):
    trainer = Trainer(_overlap_config(num_envs=4, batch_size=2))
    trainer.train(max_updates=1)
    assert trainer._ahead is not None  # the second rollout, under way
    trainer.close()
    assert trainer._ahead is None and trainer.timesteps == 8 * 4

    from compiler_gym.bin import train

    config = tmp_path / "tiny.json"
    config.write_text(json.dumps(_config(checkpoint_every=2).to_dict()))
    out = tmp_path / "run"
    argv = ["--config", str(config), "--out", str(out), "--total-steps", "48", "--quiet"]
    assert train.main([*argv, "--overlap"]) == 0
    assert json.loads((out / "config.json").read_text())["overlap"] is True
    with open(out / "curve.csv") as f:
        assert [int(r["steps"]) for r in csv.DictReader(f)] == [16, 32, 48]
    assert train.main(argv) == 0  # without the flag: the config's setting (off)
    assert json.loads((out / "config.json").read_text())["overlap"] is False
