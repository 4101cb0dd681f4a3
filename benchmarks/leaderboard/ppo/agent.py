"""The PPO agent of the llvm_instcount leaderboard: its observation features and the trained
policy as the leaderboard uses it (the SB3 wrapper that computes the features during training
is ``feature_vec_env.py``).

Features (one float32 row per env): the Autophase counts divided by the module's instruction
count (so programs of any size look alike), log(1 + instructions) / 10, and the histogram of
the actions taken so far in the episode divided by the episode length (so the policy knows
what it has done: many passes leave Autophase unchanged, and a memoryless policy would repeat
them forever).

The features (:class:`compiler_gym.agents.mlp.Features`) and the action table
(:class:`compiler_gym.agents.table.TableAgent`) are the package's. The policy's outputs index
the action table it was trained on, saved as ``actions.txt`` beside the weights.
:class:`TableAgent` (the base of :class:`PpoAgent`, and of the GNN agent in the package)
maps them to the current table by flag name, so weights stay usable when the table changes:
an action the table no longer has (``-attributor`` and ``-newgvn``, excluded after training as
nondeterministic, see envs/llvm/PASSES.md) gets probability 0, and an action the policy never
saw is never chosen.

:func:`run_agent` runs the agent (zero-shot, or PPO + guided search) on one program, on an
env or an env id and a benchmark, and returns the final state; the leaderboard entries
(``evaluate.py``) are that function in the leaderboard's harness.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

import numpy as np

from compiler_gym.agents import table
from compiler_gym.agents.mlp import Features, autophase_index  # noqa: F401 (this agent's API)
from compiler_gym.agents.table import TableAgent
from compiler_gym.compiler_env_state import CompilerEnvState

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "config.json"
WEIGHTS = HERE / "ppo-llvm_instcount.zip"
ACTIONS = table.ACTIONS  # beside the weights: the flags the policy's outputs index


def load_config(path: Path = CONFIG) -> dict[str, Any]:
    """The training and evaluation settings (``config.json``)."""
    return table.load_config(path)


def __getattr__(name: str) -> Any:
    # train.py's SB3 wrapper (``from agent import FeatureVecEnv``), in a module of its own:
    # imported when asked for, so that the agents load without Stable-Baselines3's VecEnv.
    if name == "FeatureVecEnv":
        from feature_vec_env import FeatureVecEnv

        return FeatureVecEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class PpoAgent(TableAgent):
    """The trained policy: action probabilities for feature rows, and its zero-shot episode.
    Probabilities and episodes index the current action table (see the module's note)."""

    def __init__(self, weights: Path = WEIGHTS, config: Optional[Path] = None):
        import torch
        from stable_baselines3.common.policies import ActorCriticPolicy

        # The settings it was trained with lie beside the weights (``config.json``), else
        # this agent's.
        beside = Path(weights).parent / CONFIG.name
        self.config = load_config(config or (beside if beside.exists() else CONFIG))
        self.policy = ActorCriticPolicy.load(str(weights), device="cpu")
        self.policy.set_training_mode(False)
        self.map_actions(
            weights,
            self.policy.action_space.n,
            self.config["env"],
            self.config.get("action_space"),
        )
        self.features = Features(self.num_trained, self.config["episode_length"])
        self._torch = torch

    def policy_probabilities(self, autophase: np.ndarray, episodes: list[list[int]]):
        with self._torch.no_grad():
            obs = self._torch.as_tensor(self.features(autophase, episodes))
            return self.policy.get_distribution(obs).distribution.probs.numpy()


def run_agent(
    env: Any,
    benchmark: Any = None,
    search_time: float = 0.0,
    uniform_mix: float = 0.0,
    patience: int = 25,
    seed: int = 0,
    agent: Optional[PpoAgent] = None,
    validate: Optional[bool] = None,
    sanitizers: Sequence[str] = (),
    progress: Optional[Any] = None,
) -> CompilerEnvState:
    """Runs the agent on one program, as the leaderboard entries do, and returns the final
    state, outside the leaderboard's harness:

        from agent import run_agent                        # benchmarks/leaderboard/ppo
        state = run_agent("llvm-ic-v0", "builtin-v0/qsort")                   # zero-shot
        state = run_agent(env, search_time=10)             # + guided search, env in place

    ``env`` is an env (stepped in place from the start of its benchmark, or of
    ``benchmark`` when given, and left in the final state) or an env id, made here on
    ``benchmark`` with its default reward space and closed at the end. The env's reward
    space picks the best prefix (``llvm-ic-v0``'s, as the leaderboard, or another). First
    the zero-shot episode (:meth:`PpoAgent.episode`); then, for ``search_time`` > 0 seconds,
    PPO + guided search: random search (``patience``, ``seed``) whose actions are drawn
    from the policy's probabilities mixed with the uniform distribution by ``uniform_mix``,
    its first episode the zero-shot one. ``agent`` reuses a loaded :class:`PpoAgent`
    (default: the committed weights, loaded here).

    The guided search validates in the loop as ``random_search`` does (``validate``; None:
    on for a runnable benchmark, in forks of ``env``; ``sanitizers``): its best state is one
    whose program runs like the unoptimized one (the benchmark as it is when none does).
    ``progress`` (a ``compiler_gym.search.SearchProgress``) receives the search's, with the
    candidates refused and the time spent checking."""
    if isinstance(env, str):
        if benchmark is None:
            raise ValueError("run_agent() needs a benchmark with an env id")
        import compiler_gym

        with compiler_gym.make(env, benchmark=benchmark) as made:
            return run_agent(
                made,
                None,
                search_time,
                uniform_mix,
                patience,
                seed,
                agent,
                validate,
                sanitizers,
                progress,
            )
    if not 0 <= uniform_mix <= 1:
        raise ValueError(f"uniform_mix must be in [0, 1], not {uniform_mix}")
    if env.reward_space is None:
        raise ValueError("run_agent() needs an env with a reward space")
    agent = agent or PpoAgent()
    # The action space the agent was trained in (None: the env's own).
    env.reset(benchmark=benchmark, action_space=agent.action_space)
    episode = agent.episode(env)
    if search_time <= 0:
        return env.state
    from compiler_gym.search import random_search

    def guide(observations, episodes):
        # The policy alone keeps to the passes it learned: its states validated (26 of 26 at
        # 10 s), while plain random search's best states mostly miscompile (8 of 26 at 60 s);
        # mixing in the uniform distribution trades one for the other.
        policy = agent.probabilities(observations, episodes)
        return (1 - uniform_mix) * policy + uniform_mix / policy.shape[1]

    _, found = random_search(
        env,
        patience=patience,
        runtime=search_time,
        seed=seed,
        guide=guide,
        observation_space="Autophase",
        first_episode=episode,
        record=False,  # the env replays the best actions: once is enough
        validate=validate,
        sanitizers=sanitizers,
    )
    if progress is not None:
        progress.__dict__.update(found.__dict__)
    env.reset()
    if found.best_actions:
        env.multistep(found.best_actions)
    return env.state
