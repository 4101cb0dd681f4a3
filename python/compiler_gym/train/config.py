"""The trainer's settings: a dataclass read from a JSON or TOML file.

    from compiler_gym.train.config import TrainConfig
    config = TrainConfig.load("train.json")        # or .toml; unknown keys are an error
    config = TrainConfig(agent="gnn", num_envs=8)  # or in code

Nested sections: ``ppo`` (:class:`PpoConfig`), ``mlp`` (:class:`MlpConfig`) and ``gnn``
(:class:`GnnConfig`). The GNN leaderboard entry's ``config.json`` loads as it is: its
``training_programs`` (a file of URIs, relative to the config) becomes ``programs``, and its
older names (``total_timesteps``, ``ppo.batch_size``, ``ppo.gnn_epochs``, ``net_arch``) are
read as the new ones.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

AGENTS = ("mlp", "gnn")


@dataclass
class PpoConfig:
    """PPO's settings: rollouts of ``n_steps`` steps of every env, then ``n_epochs`` passes
    over them in minibatches of ``minibatch_size`` transitions. ``embed_epochs``: the last
    passes that train the state encoder (the GNN) too; the passes before them train the heads
    on the rollout's embeddings (None: every pass). Advantages by GAE (``gamma``,
    ``gae_lambda``), normalized per minibatch with ``normalize_advantage``; the loss is the
    clipped surrogate (``clip_range``) + ``vf_coef`` x the value loss - ``ent_coef`` x the
    entropy; gradients clipped to norm ``max_grad_norm``; Adam at ``learning_rate``."""

    n_steps: int = 64
    minibatch_size: int = 256
    n_epochs: int = 4
    embed_epochs: Optional[int] = None
    learning_rate: float = 3e-4
    gamma: float = 0.9
    gae_lambda: float = 0.9
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    normalize_advantage: bool = True


@dataclass
class MlpConfig:
    """The MLP policy's shape: its policy and value heads' tanh layers."""

    head: list[int] = field(default_factory=lambda: [128, 128])


@dataclass
class GnnConfig:
    """The GNN policy's shape: node state width, message-passing layers, heads' layers."""

    hidden: int = 32
    layers: int = 2
    head: list[int] = field(default_factory=lambda: [128, 128])


@dataclass
class TrainConfig:
    """A training run: the agent (``mlp`` or ``gnn``), the envs (``env`` in ``action_space``
    (None: its default; LLVM's ``PassesParameterized`` has ``default<Oz>`` as one action) with
    ``reward``,
    episodes of ``episode_length`` steps on ``programs`` drawn at random at each reset; none:
    :func:`default_programs`), the vector engine (``num_envs`` envs on ``num_threads``
    threads, each in a worker process with ``isolation="process"`` whose steps are cut off
    after ``step_timeout_seconds``; ``batch_size`` < ``num_envs``: asynchronous collection,
    ``send``/``recv`` of that many envs at a time), where the network runs (``device``, with
    ``torch_threads`` CPU threads), when to stop (``total_steps`` env steps or
    ``max_seconds``, whichever first; None: no limit), checkpoints every
    ``checkpoint_every`` updates, ``seed`` (the network's initialization, actions,
    minibatches and the envs' program choice: a fixed seed gives the same run), and
    ``overlap``: collect the next rollout while the learner updates on the last one, with the
    weights from before that update (one update stale; see
    :class:`~compiler_gym.train.trainer.Trainer`)."""

    agent: str = "mlp"
    env: str = "llvm-v0"
    action_space: Optional[str] = None
    reward: str = "IrInstructionCountNorm"
    programs: list[str] = field(default_factory=list)
    episode_length: int = 45
    num_envs: int = 16
    batch_size: Optional[int] = None
    num_threads: int = 2
    isolation: str = "process"
    step_timeout_seconds: float = 5.0
    device: str = "cpu"
    torch_threads: Optional[int] = 1
    seed: int = 0
    total_steps: Optional[int] = None
    max_seconds: Optional[float] = None
    checkpoint_every: int = 10
    overlap: bool = False
    ppo: PpoConfig = field(default_factory=PpoConfig)
    mlp: MlpConfig = field(default_factory=MlpConfig)
    gnn: GnnConfig = field(default_factory=GnnConfig)

    def __post_init__(self) -> None:
        if self.agent not in AGENTS:
            raise ValueError(f"agent must be one of {', '.join(AGENTS)}, not {self.agent!r}")
        if self.num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {self.num_envs}")
        if self.batch_size is not None and not 1 <= self.batch_size <= self.num_envs:
            raise ValueError(f"batch_size must be in [1, num_envs], not {self.batch_size}")
        if self.checkpoint_every < 1:
            raise ValueError(f"checkpoint_every must be at least 1, not {self.checkpoint_every}")

    @property
    def asynchronous(self) -> bool:
        """Whether collection is asynchronous (``batch_size`` < ``num_envs``)."""
        return self.batch_size is not None and self.batch_size < self.num_envs

    @classmethod
    def from_dict(cls, values: dict[str, Any], folder: Optional[Path] = None) -> TrainConfig:
        """The config of a dict (a file's contents; ``folder``: where relative paths start).
        Unknown keys are a ``ValueError`` naming them."""
        values = dict(values)
        if "training_programs" in values:  # a file of URIs, one per line or space-separated
            path = Path(folder or ".") / values.pop("training_programs")
            values.setdefault("programs", path.read_text().split())
        _rename(values, {"total_timesteps": "total_steps"})
        if "net_arch" in values:
            values.setdefault("mlp", {"head": values.pop("net_arch")})
        sections = {"ppo": PpoConfig, "mlp": MlpConfig, "gnn": GnnConfig}
        for name, section in sections.items():
            if name in values:
                part = dict(values[name])
                if name == "ppo":
                    _rename(part, {"batch_size": "minibatch_size", "gnn_epochs": "embed_epochs"})
                _check_keys(section, part, f"{name}.")
                values[name] = section(**part)
        _check_keys(cls, values, "")
        return cls(**values)

    @classmethod
    def load(cls, path: Union[str, Path]) -> TrainConfig:
        """The config of a JSON file, or a TOML file (``.toml``)."""
        path = Path(path)
        text = path.read_text()
        if path.suffix == ".toml":
            import tomllib

            values = tomllib.loads(text)
        else:
            values = json.loads(text)
        return cls.from_dict(values, path.resolve().parent)

    def to_dict(self) -> dict[str, Any]:
        """The config as plain values (what :meth:`from_dict` reads back)."""
        return dataclasses.asdict(self)

    def replace(self, **changes: Any) -> TrainConfig:
        """A copy with ``changes`` (None values ignored: a command line's unset options)."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})


def _rename(values: dict, names: dict[str, str]) -> None:
    for old, new in names.items():
        if old in values:
            values.setdefault(new, values.pop(old))


def _check_keys(cls: type, values: dict, prefix: str) -> None:
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(
            f"unknown config key(s) {', '.join(prefix + k for k in unknown)}; "
            f"known: {', '.join(prefix + k for k in sorted(known))}"
        )


def default_programs(env_id: str = "llvm-v0", count: int = 400) -> list[str]:
    """The programs a run trains on when its config names none, found on this machine without
    network: the first ``count`` programs of ``benchmark://gcc-torture-v0`` when it is
    installed, else the csmith-v0 programs of seeds 1 to ``count`` / 4 (generated here, a
    fraction of a second each). Never ``builtin-v0``: the leaderboard's held-out suite."""
    import itertools

    import compiler_gym

    with compiler_gym.make(env_id) as env:
        names = {d.name for d in env.datasets}
        torture = "benchmark://gcc-torture-v0"
        if torture in names and env.datasets[torture].installed:
            return [str(u) for u in itertools.islice(env.datasets[torture].benchmark_uris(), count)]
        csmith = "generator://csmith-v0"
        if csmith in names and env.datasets[csmith].installed:
            return [f"{csmith}/{seed}" for seed in range(1, count // 4 + 1)]
    raise LookupError(
        f"no training programs: {env_id} has neither gcc-torture-v0 installed nor csmith-v0; "
        "name some with --programs (URIs, file:///path/prog.bc too)"
    )
