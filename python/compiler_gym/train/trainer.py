"""The PPO trainer: rollouts from ``make_vec`` into :func:`~compiler_gym.train.ppo.ppo_update`.

    from compiler_gym.train.config import TrainConfig
    from compiler_gym.train.trainer import Trainer

    with Trainer(TrainConfig(agent="mlp", num_envs=16, max_seconds=600)) as trainer:
        trainer.train(checkpoint_dir="run")          # run/checkpoint.pt every N updates
        trainer.save_policy("run")                   # run/policy.pt and run/actions.txt

One vector engine of ``num_envs`` envs (:class:`~compiler_gym.vector.CompilerVecEnv`, each env
in a worker process whose steps are cut off after ``step_timeout_seconds``) steps the
config's programs, drawn at random at each reset, with the policy's observation
(``Autophase`` rows or ``Programl`` graph batches) on ``device``; observations, states,
embeddings, actions and advantages stay tensors on that device, without a loop over the envs
in Python. Collection is synchronous (``step``: every env each step) or, with ``batch_size`` <
``num_envs``, asynchronous (``send``/``recv``: the first ``batch_size`` envs to finish are
acted on and sent again at once, so a slow compiler pass holds up only its own env). Either
way each env contributes ``n_steps`` consecutive transitions to a rollout, and an env's
actions depend only on its own transitions: each env draws its action at its t-th step of a
rollout with its own Gumbel noise (drawn from the run's generator at the rollout's start), so
the order in which envs finish changes nothing.

A state is embedded once per rollout: an env whose step had no effect
(``info["action_had_no_effect"]``) and did not end is in the state it was in, so its state and
embedding are reused (most steps are such); an update's minibatch embeds each distinct state
once. Episodes end after ``episode_length`` steps (the history input tells the policy how far
it is, so the end is part of the state and is not bootstrapped) or at an error.

Every ``checkpoint_every`` updates the envs restart their episodes (reseeded from the seed and
the update count) and a checkpoint can be written (weights, optimizer, the generator's state,
counters, the learning curve): the envs' own state cannot be saved, so restarting them there
is what makes a run resumed from a checkpoint the same run as one never interrupted.

With ``overlap`` the next rollout is collected in a second thread while the learner updates
on the last one (the engine's steps and PyTorch's ops release the GIL): rollout k + 1 is acted
with a copy of the weights taken just before update k, so it is one update stale, as in
asynchronous PPO (Sample Factory); PPO's ratio divides by the log-probabilities recorded at
collection, so it stays the right importance ratio. A run stays the same run whatever the
threads' timing: the copy is taken, and the rollout's Gumbel noise drawn from the run's
generator, in the main thread before the collector starts; the collector shares nothing
mutable with the learner, and its counters (steps, episodes, errors, times) join the run's
when the learner takes its rollout. The rollout's embeddings, which the heads-only passes
read, are recomputed then with the current weights. The pipeline drains before each
checkpoint boundary (the update that ends a segment collects nothing ahead), so checkpoints
and resumes are exact as without overlap. The rollout collected during a ``train`` call's last
update is the next call's first; a restart of the envs (or ``close``) abandons it.
"""

from __future__ import annotations

import copy
import ctypes
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
import torch

import compiler_gym
from compiler_gym.agents.table import ACTIONS
from compiler_gym.train.config import TrainConfig, default_programs
from compiler_gym.train.ppo import Rollout, gae, ppo_update

CHECKPOINT = "checkpoint.pt"
POLICY = "policy.pt"


def keep_freed_memory() -> bool:
    """Asks glibc's malloc to keep freed memory for reuse: no trimming of the heap, and the
    heap (not mmap) for blocks up to 32 MiB, its most. Otherwise the GNN's tensors of a few
    to tens of MiB come back from the kernel as fresh pages at each pass: passes on a
    110-graph minibatch took 1.3x to 1.7x as long on the 2-core machine. Process-wide;
    False where there is no glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    trim_threshold, mmap_threshold = -1, -3  # glibc's M_TRIM_THRESHOLD, M_MMAP_THRESHOLD
    return bool(libc.mallopt(trim_threshold, 1 << 30)) & bool(
        libc.mallopt(mmap_threshold, 32 << 20)
    )


class Clock:
    """Seconds spent per part of the run (``seconds[name]``), each measured with ``with
    clock(name):``; on a GPU it waits for the device's work so that each part gets its own
    (unless ``synchronize`` is False: the collector's thread must not wait for the learner's
    work)."""

    def __init__(self, device: str, parts: Sequence[str], synchronize: bool = True):
        self.cuda = device.startswith("cuda") and synchronize
        self.seconds = dict.fromkeys(parts, 0.0)

    @contextmanager
    def __call__(self, name: str):
        """Adds the time of the ``with`` block to ``seconds[name]``."""
        if self.cuda:
            torch.cuda.synchronize()
        start = time.perf_counter()
        try:
            yield
        finally:
            if self.cuda:
                torch.cuda.synchronize()
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start


def make_policy(config: TrainConfig, num_actions: int) -> torch.nn.Module:
    """The config's network (``agent``: ``mlp`` or ``gnn``) for ``num_actions`` actions."""
    if config.agent == "gnn":
        from compiler_gym.agents.gnn import GnnPolicy, vocabulary_size

        gnn = config.gnn
        return GnnPolicy(num_actions, vocabulary_size(), gnn.hidden, gnn.layers, gnn.head)
    from compiler_gym.agents.mlp import MlpPolicy

    return MlpPolicy(num_actions, config.mlp.head)


class Cancelled(Exception):
    """An overlapped collection abandoned (its rollout is not needed)."""


@dataclass
class Tally:
    """What a collection adds to the run's counters, joined to them by the main thread."""

    timesteps: int = 0
    episodes: int = 0
    episode_rewards: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    embedded: int = 0


class Trainer:
    """PPO of the config's agent on one vector engine (see the module's docstring).
    :meth:`collect` gathers a :class:`~compiler_gym.train.ppo.Rollout`, :meth:`update` trains
    on it, :meth:`train` runs both until a limit. Counters: ``timesteps`` (env steps),
    ``updates``, ``episodes``, ``seconds`` (of training, over resumes too),
    ``episode_rewards`` (the last 100), ``errors`` (per error type, since the last update),
    ``embedded`` (states through the encoder), ``curve`` (a row per update) and the time of
    each part (``clock.seconds``: ``env`` steps, ``observe`` (states from the engine's
    batches), ``rollout_embed`` and ``update_embed`` passes, ``heads`` and the rest of the
    update, ``wait``: the learner waiting for an overlapped collection; with ``overlap`` the
    collector's parts run beside the learner's, so the parts add up to more than the run).
    Use as a context manager, or :meth:`close` it."""

    PARTS = ("env", "observe", "rollout_embed", "update_embed", "heads", "wait")

    def __init__(self, config: TrainConfig, vec_kwargs: Optional[dict[str, Any]] = None):
        self.config = config
        self.ppo = config.ppo
        self.device = config.device
        if config.torch_threads:
            # On a small machine the engine's threads and workers share the cores: PyTorch's
            # own thread pool then waits on descheduled threads (one thread ran the GNN 2.5x
            # faster than two on 2 busy cores).
            torch.set_num_threads(config.torch_threads)
        if self.device == "cpu":
            keep_freed_memory()
        self.num_envs = config.num_envs
        self.length = config.episode_length
        self.programs = list(config.programs) or default_programs(config.env)
        observation_space = "Programl" if config.agent == "gnn" else "Autophase"
        self.vec = compiler_gym.make_vec(
            config.env,
            num_envs=self.num_envs,
            batch_size=config.batch_size if config.asynchronous else None,
            num_threads=config.num_threads,
            device=self.device,
            benchmarks=self.programs,
            random_benchmarks=True,
            observation_space=observation_space,
            reward_space=config.reward,
            action_space=config.action_space,
            max_episode_steps=self.length,
            autoreset="same_step",
            seed=config.seed,
            isolation=config.isolation,
            parameters={"worker.step_timeout_seconds": config.step_timeout_seconds},
            **(vec_kwargs or {}),
        )
        self.flags = list(self.vec.env_action_space.flags)
        self.num_actions = len(self.flags)
        torch.manual_seed(config.seed)
        self.policy = make_policy(config, self.num_actions).to(self.device)
        self.optimizer = torch.optim.Adam(
            self.policy.parameters(), lr=self.ppo.learning_rate, eps=1e-5
        )
        # Actions and minibatches: a CPU generator, so that a seed gives the same run on
        # any device.
        self.generator = torch.Generator().manual_seed(config.seed)
        self.timesteps = self.updates = self.episodes = self.embedded = 0
        self.seconds = 0.0
        self.episode_rewards: deque = deque(maxlen=100)
        self.errors: dict[str, int] = {}
        self.curve: list[dict[str, Any]] = []
        self.clock = Clock(self.device, self.PARTS)
        # Overlap's collector: a thread, and a copy of the policy that it acts with.
        self._executor: Optional[ThreadPoolExecutor] = None
        self._actor: Optional[torch.nn.Module] = None
        # The collection under way for the next update (kept across train() calls), and the
        # signal that abandons it (the envs restart, or close).
        self._ahead: Optional[tuple[Future, Clock]] = None
        self._cancel = threading.Event()
        self.restart_envs()

    # -- collection ---------------------------------------------------------------------

    def restart_envs(self) -> None:
        """Starts a new episode in every env, reseeded from the config's seed and the update
        count (env i of update u: seed + u * num_envs + i); done at each checkpoint
        boundary, and after a resume."""
        self._drop_ahead()
        obs, _ = self.vec.reset(seed=self.config.seed + self.updates * self.num_envs)
        with self.clock("observe"):
            self.states = self.policy.observe(obs)
        self.current = torch.arange(self.num_envs, device=self.device)
        self.counts = torch.zeros(self.num_envs, self.num_actions, device=self.device)
        self.returns = torch.zeros(self.num_envs, device=self.device)

    def _noise(self) -> torch.Tensor:
        """Each env's Gumbel noise for each of its steps of a rollout (sampling by
        argmax(logits + noise)), from the run's generator, on the CPU."""
        shape = (self.ppo.n_steps, self.num_envs, self.num_actions)
        uniform = torch.rand(shape, generator=self.generator)
        return -torch.log(-torch.log(uniform.clamp(min=1e-20)))

    def collect(self) -> Rollout:
        """One rollout of ``n_steps`` transitions of every env, with advantages and returns
        (with ``overlap``: the one collected during the last update, if there is one)."""
        if self._ahead is not None:
            return self._use(self._take())
        rollout, tally = self._collect(self.policy, self._noise(), self.clock)
        self._join(tally)
        return rollout

    def _join(self, tally: Tally) -> None:
        self.timesteps += tally.timesteps
        self.episodes += tally.episodes
        self.episode_rewards.extend(tally.episode_rewards)
        for error, count in tally.errors.items():
            self.errors[error] = self.errors.get(error, 0) + count
        self.embedded += tally.embedded

    def _collect(self, policy: Any, noise: torch.Tensor, clock: Clock) -> tuple[Rollout, Tally]:
        """A rollout acted with ``policy`` and ``noise`` (:meth:`_noise`), timed on ``clock``,
        and what it adds to the counters. It changes the envs and their carried state
        (``states``, ``current``, ``counts``, ``returns``) and nothing the learner uses."""
        steps, n, device = self.ppo.n_steps, self.num_envs, self.device
        tally = Tally()

        def embed(states: Any) -> torch.Tensor:
            tally.embedded += policy.count(states)
            with clock("rollout_embed"), torch.no_grad():
                return policy.embed(states)

        kept, current = torch.unique(self.current, return_inverse=True)
        states = [policy.select(self.states, kept)]
        table = embed(states[0])
        known = policy.count(states[0])
        noise = noise.to(device)
        buf = {
            "state": torch.zeros(steps, n, dtype=torch.int64, device=device),
            "history": torch.zeros(steps, n, self.num_actions, device=device),
            "action": torch.zeros(steps, n, dtype=torch.int64, device=device),
            "log_prob": torch.zeros(steps, n, device=device),
            "value": torch.zeros(steps, n, device=device),
            "reward": torch.zeros(steps, n, device=device),
            "done": torch.zeros(steps, n, dtype=torch.bool, device=device),
        }
        filled = torch.zeros(n, dtype=torch.int64, device=device)

        def act(envs: torch.Tensor) -> torch.Tensor:
            """Draws the actions of ``envs`` and records their step's first half."""
            t = filled.index_select(0, envs)
            history = self.counts.index_select(0, envs) / self.length
            with clock("heads"), torch.no_grad():
                embedding = table.index_select(0, current.index_select(0, envs))
                logits, value = policy.heads(embedding, history)
                action = torch.argmax(logits + noise[t, envs], dim=1)
                log_prob = torch.log_softmax(logits, dim=1).gather(1, action[:, None])[:, 0]
            buf["state"][t, envs] = current.index_select(0, envs)
            buf["history"][t, envs] = history
            buf["action"][t, envs] = action
            buf["log_prob"][t, envs] = log_prob
            buf["value"][t, envs] = value
            return action

        def record(obs, reward, terminated, truncated, info) -> torch.Tensor:
            """Records the second half of the steps of the envs of a batch; their ids."""
            nonlocal table, current, known
            ids_np = np.asarray(info["env_id"], np.int64)
            ids = torch.as_tensor(ids_np, device=device)
            t = filled.index_select(0, ids)
            done = (terminated | truncated).to(device).bool()
            reward = reward.to(device, torch.float32)
            buf["reward"][t, ids] = reward
            buf["done"][t, ids] = done
            ended = np.asarray(terminated.cpu() | truncated.cpu(), bool)
            action = buf["action"][t, ids]
            self.counts[ids, action] += 1
            self.counts[ids[done]] = 0
            self.returns[ids] += reward
            if ended.any():
                finished = ids[done]
                tally.episode_rewards.extend(self.returns[finished].tolist())
                tally.episodes += int(finished.numel())
                self.returns[finished] = 0
            for error in info["error_type"][np.asarray(info["_error_type"], bool)]:
                tally.errors[error] = tally.errors.get(error, 0) + 1
            # The state is the one the env was in unless the step changed the module or the
            # episode ended (a new one starts in the same step).
            unchanged = torch.as_tensor(np.asarray(info["action_had_no_effect"], bool))
            fresh = torch.nonzero(~unchanged.to(device) | done).flatten()
            if fresh.numel():
                with clock("observe"):
                    new = policy.observe(obs, fresh)
                states.append(new)
                table = torch.cat([table, embed(new)])
                current = current.clone()
                current[ids.index_select(0, fresh)] = known + torch.arange(
                    fresh.numel(), device=device
                )
                known += fresh.numel()
            filled[ids] += 1
            tally.timesteps += len(ids_np)
            return ids

        everyone = torch.arange(n, device=device)
        if not self.config.asynchronous:
            for _ in range(steps):
                if self._cancel.is_set():
                    raise Cancelled
                action = act(everyone)
                with clock("env"):
                    result = self.vec.step(action)
                record(*result)
        else:
            with clock("env"):
                self.vec.send(act(everyone), everyone)
            in_flight = n
            while in_flight:
                with clock("env"):
                    result = self.vec.recv()
                ids = record(*result)
                in_flight -= ids.numel()
                again = ids[filled.index_select(0, ids) < steps]
                if again.numel() and not self._cancel.is_set():
                    action = act(again)
                    with clock("env"):
                        self.vec.send(action, again)
                    in_flight += again.numel()
        if self._cancel.is_set():  # (the envs in flight were received: none is left behind)
            raise Cancelled
        with clock("heads"), torch.no_grad():
            _, last = policy.heads(table.index_select(0, current), self.counts / self.length)
        with clock("observe"):
            self.states = policy.collate(states)
        self.current = current
        advantages = gae(
            buf["reward"], buf["value"], buf["done"], last, self.ppo.gamma, self.ppo.gae_lambda
        )
        rollout = Rollout(
            states=self.states,
            state_index=buf["state"].reshape(-1),
            embeddings=table,
            histories=buf["history"].reshape(-1, self.num_actions),
            actions=buf["action"].reshape(-1),
            log_probs=buf["log_prob"].reshape(-1),
            advantages=advantages.reshape(-1),
            returns=(advantages + buf["value"]).reshape(-1),
        )
        return rollout, tally

    # -- overlap ------------------------------------------------------------------------

    def _collect_ahead(self) -> tuple[Future, Clock]:
        """Starts collecting the next rollout in the collector's thread, acted with a copy of
        the weights as they are now; its noise is drawn here, in the main thread."""
        noise = self._noise()
        if self._actor is None:
            self._actor = copy.deepcopy(self.policy)
            self._actor.requires_grad_(False)
            # PyTorch's thread count is per thread: the collector's is set as the learner's.
            threads = (torch.get_num_threads(),)
            self._executor = ThreadPoolExecutor(1, "collector", torch.set_num_threads, threads)
        self._actor.load_state_dict(self.policy.state_dict())
        clock = Clock(self.device, self.PARTS, synchronize=False)
        return self._executor.submit(self._collect, self._actor, noise, clock), clock

    def _take(self) -> tuple[Rollout, Tally, Clock]:
        """Waits for the rollout collected ahead: it, its counters and its times."""
        (future, clock), self._ahead = self._ahead, None
        with self.clock("wait"):
            rollout, tally = future.result()
        return rollout, tally, clock

    def _drop_ahead(self) -> None:
        """Abandons the collection under way, if any, once its envs have no step in flight."""
        if self._ahead is not None:
            (future, _), self._ahead = self._ahead, None
            self._cancel.set()
            future.exception()  # waits; Cancelled, or an error of a rollout now not needed
            self._cancel.clear()

    def _use(self, taken: tuple[Rollout, Tally, Clock]) -> Rollout:
        """A rollout collected ahead, for the coming update: its counters and times join the
        run's, and its embeddings are recomputed with the weights of now (the heads-only
        passes of the update read them, and the encoder changed since)."""
        rollout, tally, clock = taken
        self._join(tally)
        for name, seconds in clock.seconds.items():
            self.clock.seconds[name] += seconds
        embed_epochs = self.ppo.embed_epochs
        if embed_epochs is not None and embed_epochs < self.ppo.n_epochs:
            self.embedded += self.policy.count(rollout.states)
            with self.clock("update_embed"), torch.no_grad():
                rollout.embeddings = self.policy.embed(rollout.states)
        return rollout

    # -- training -----------------------------------------------------------------------

    def update(self, rollout: Rollout) -> dict[str, float]:
        """PPO on ``rollout`` (:func:`~compiler_gym.train.ppo.ppo_update`); its losses."""
        stats = ppo_update(
            self.policy, self.optimizer, rollout, self.ppo, self.generator, self.clock
        )
        self.embedded += stats.pop("states_embedded")
        self.updates += 1
        return stats

    def mean_episode_reward(self) -> float:
        """The mean reward of the last 100 episodes (NaN before the first ends)."""
        rewards = list(self.episode_rewards)
        return sum(rewards) / len(rewards) if rewards else float("nan")

    @property
    def embed_seconds(self) -> float:
        """The state encoder's time: states from batches, and its rollout and update passes."""
        return sum(self.clock.seconds[k] for k in ("observe", "rollout_embed", "update_embed"))

    def train(
        self,
        max_seconds: Optional[float] = None,
        total_steps: Optional[int] = None,
        checkpoint_dir: Optional[Union[str, Path]] = None,
        on_update: Optional[Callable[[Trainer, dict], None]] = None,
        max_updates: Optional[int] = None,
    ) -> float:
        """Rollouts and updates until ``max_seconds`` of this call (checked after each
        update), ``total_steps`` env steps in all, or ``max_updates`` updates in all (None:
        the config's limits; none at all: until interrupted). Every ``checkpoint_every``
        updates the envs restart and, with ``checkpoint_dir``, a checkpoint is written there.
        ``on_update(trainer, row)`` sees each update's row of the curve. With ``overlap`` the
        rollout collected during the last update waits for the next call, which starts with
        it (its steps count then): two calls make the run one call of both would. (Unless
        ``max_seconds`` would pass during that update, judged by the last update's time: a
        rollout then left to close would only have taken the learner's cores.) Returns this
        call's seconds."""
        max_seconds = self.config.max_seconds if max_seconds is None else max_seconds
        total_steps = self.config.total_steps if total_steps is None else total_steps
        start = time.perf_counter()
        seconds_before = self.seconds

        def more() -> bool:
            return not (
                (max_seconds is not None and time.perf_counter() - start >= max_seconds)
                or (total_steps is not None and self.timesteps >= total_steps)
                or (max_updates is not None and self.updates >= max_updates)
            )

        update_seconds = 0.0  # the last update's
        while more():
            rollout = self.collect()
            # Not across a segment's end: the envs restart after its last update, and the
            # checkpoint there has no rollout under way.
            if (
                self.config.overlap
                and (self.updates + 1) % self.config.checkpoint_every
                and (
                    max_seconds is None
                    or time.perf_counter() - start + update_seconds < max_seconds
                )
            ):
                self._ahead = self._collect_ahead()
            update_start = time.perf_counter()
            stats = self.update(rollout)
            update_seconds = time.perf_counter() - update_start
            row = self._row(stats, seconds_before + time.perf_counter() - start)
            if self.updates % self.config.checkpoint_every == 0:
                if checkpoint_dir is not None:
                    self.save_checkpoint(checkpoint_dir)
                self.restart_envs()
            if on_update is not None:
                on_update(self, row)
        return time.perf_counter() - start

    def _row(self, stats: dict[str, float], seconds: float) -> dict[str, Any]:
        """The curve's row of the update just made (``stats``: its losses)."""
        self.seconds = seconds
        row = {
            "steps": self.timesteps,
            "seconds": round(self.seconds, 3),
            "mean_episode_reward": self.mean_episode_reward(),
            **stats,
            "errors": " ".join(f"{k}:{v}" for k, v in sorted(self.errors.items())),
        }
        self.curve.append(row)
        self.errors = {}
        return row

    # -- saving -------------------------------------------------------------------------

    def save_checkpoint(self, folder: Union[str, Path]) -> Path:
        """Writes ``folder/checkpoint.pt`` (replacing it whole, never half-written): the
        weights, the optimizer's state, the generator's, the counters and the curve."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        state = {
            "policy": self.policy.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "generator": self.generator.get_state(),
            "torch_rng": torch.get_rng_state(),
            "counters": {
                "timesteps": self.timesteps,
                "updates": self.updates,
                "episodes": self.episodes,
                "seconds": self.seconds,
            },
            "episode_rewards": list(self.episode_rewards),
            "curve": self.curve,
            "config": self.config.to_dict(),
            "flags": self.flags,
        }
        path = folder / CHECKPOINT
        partial = path.with_suffix(".partial")
        torch.save(state, partial)
        partial.replace(path)
        return path

    def load_checkpoint(self, path: Union[str, Path]) -> None:
        """Continues from a checkpoint (a file, or the folder that holds ``checkpoint.pt``)
        of a run of the same agent and action table; the envs restart as they did there."""
        path = Path(path)
        if path.is_dir():
            path = path / CHECKPOINT
        state = torch.load(path, map_location=self.device, weights_only=False)
        if state["flags"] != self.flags:
            raise ValueError(f"{path} indexes another action table than {self.config.env}'s")
        if state["config"]["agent"] != self.config.agent:
            raise ValueError(f"{path} is a {state['config']['agent']} agent's checkpoint")
        self.policy.load_state_dict(state["policy"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.generator.set_state(state["generator"].cpu())
        torch.set_rng_state(state["torch_rng"].cpu())
        for name, value in state["counters"].items():
            setattr(self, name, value)
        self.episode_rewards = deque(state["episode_rewards"], maxlen=100)
        self.curve = list(state["curve"])
        self.restart_envs()

    def save_policy(self, folder: Union[str, Path]) -> None:
        """Writes the network's weights (``policy.pt``, a ``state_dict``) and the action
        table they index (``actions.txt``) into ``folder``."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        state = {k: v.detach().cpu() for k, v in self.policy.state_dict().items()}
        torch.save(state, folder / POLICY)
        (folder / ACTIONS).write_text("\n".join(self.flags) + "\n")

    def close(self) -> None:
        """Closes the envs (and their worker processes) and the collector's thread."""
        self._drop_ahead()
        if self._executor is not None:
            self._executor.shutdown(wait=True)
        self.vec.close()

    def __enter__(self) -> Trainer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
