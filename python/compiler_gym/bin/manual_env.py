"""An interactive shell over an environment: take actions, look at observations and rewards,
go back, all with tab completion and history.

    python -m compiler_gym.bin.manual_env --env llvm-ic-v0 --benchmark builtin-v0/qsort

Type ``help`` for the commands, ``tutorial`` for a walk through them. Actions, benchmarks,
datasets and spaces complete with Tab; the history is kept in ``~/.compiler_gym_history``
(``$COMPILER_GYM_HISTORY``). As CompilerGym's tool, ``main(["argv0", "--env=llvm-v0"])`` runs
the shell on standard input from Python.
"""

from __future__ import annotations

import cmd
import os
import shlex
import sys
from pathlib import Path
from typing import Optional

import numpy as np

import compiler_gym
from compiler_gym.search.greedy import greedy_action
from compiler_gym.util.cli import argument_parser, check_spaces, parse_args, user_errors
from compiler_gym.util.timer import Timer
from compiler_gym.util.truncate import truncate

TUTORIAL = """\
The prompt names the benchmark of the episode: compiler_gym:builtin-v0/qsort>

  list_datasets, list_benchmarks [dataset]   what there is to work on
  set_benchmark <uri>                        a new episode on another benchmark (Tab completes)
  list_actions, action <flag> [<flag> ...]   the actions, and taking some (- is a random one)
  stack, undo (or back), reset               the episode so far, one step back, a fresh start
  list_rewards, set_default_reward <space>   the reward each action reports
  list_observations, observation [space]     what can be observed, and one observation now
  try_all_actions [n], greedy [n]            every action's reward from here; the best, n times
  hill_climb [n], simplify_stack             random improving steps; drop the steps of no effect
  commandline                                the opt command line that replays the episode
  exit (or Ctrl-D)                           leave

A session: set_default_reward IrInstructionCountOz, then try_all_actions to see what each pass
would gain, action -mem2reg to take one, stack to see the episode, undo to go back."""


def _complete(prefix: str, names) -> list[str]:
    return [n for n in names if n.startswith(prefix)]


class CompilerGymShell(cmd.Cmd):
    """The shell's commands (``do_*``) and their completions (``complete_*``)."""

    # CompilerGym's banner, word for word: scripts that drive the shell look for it.
    intro = (
        "Welcome to the CompilerGym Shell!\n"
        "---------------------------------\n"
        "Type help or ? for more information.\n"
        "The 'tutorial' command will give a step by step guide."
    )

    def __init__(self, env, stdout=None):
        super().__init__(stdout=stdout)
        self.env = env
        self.stack: list = []  # forks before each action, for undo
        self.rng = np.random.default_rng()
        self._set_prompt()

    # The shell's own plumbing.
    def _set_prompt(self) -> None:
        # CompilerGym's prompt: the benchmark without its benchmark:// scheme, after a blank
        # line.
        benchmark = str(self.env.benchmark.uri) if self.env.in_episode else "-"
        self.prompt = f"\ncompiler_gym:{benchmark.removeprefix('benchmark://')}> "

    def _say(self, text: str) -> None:
        print(text, file=self.stdout)

    def emptyline(self) -> bool:
        return False  # an empty line does nothing (not: repeat the last command)

    def default(self, line: str) -> bool:
        self._say(f"Unknown command {line.split()[0]!r}; type help for the commands")
        return False

    def onecmd(self, line: str) -> bool:
        # An error in one command is reported; the shell goes on.
        try:
            return super().onecmd(line)
        except (LookupError, ValueError, TypeError, OSError, compiler_gym.ServiceError) as e:
            message = e.args[0] if isinstance(e, KeyError) and e.args else e  # not its repr
            self._say(f"Error: {message}")
            return False

    def postcmd(self, stop: bool, line: str) -> bool:
        self._set_prompt()
        return stop

    # Benchmarks and datasets.
    def do_list_datasets(self, arg: str) -> None:
        """list_datasets: the datasets of the environment."""
        for dataset in self.env.datasets:
            self._say(f"{dataset.name}  {truncate(dataset.description, 70)}")

    def do_list_benchmarks(self, arg: str) -> None:
        """list_benchmarks [dataset] [n]: the first n (default 50) benchmarks of a dataset."""
        args = shlex.split(arg)
        dataset = self.env.datasets[args[0]] if args else next(iter(self.env.datasets))
        n = int(args[1]) if len(args) > 1 else 50
        for i, uri in enumerate(dataset.benchmark_uris()):
            if i == n:
                break
            self._say(uri)

    def complete_list_benchmarks(self, text, line, begidx, endidx) -> list[str]:
        """Completes a dataset name."""
        return _complete(text, [d.name for d in self.env.datasets])

    def do_set_benchmark(self, arg: str) -> None:
        """set_benchmark <uri>: start an episode on a benchmark."""
        if not arg.strip():
            raise ValueError("set_benchmark needs a benchmark URI")
        with Timer() as timer:
            self.env.reset(benchmark=arg.strip())
        self._close_stack()
        self._say(f"Reset {self.env.benchmark.uri} in {timer}")

    def complete_set_benchmark(self, text, line, begidx, endidx) -> list[str]:
        """Completes a benchmark URI of the finite datasets."""
        uris = []
        for dataset in self.env.datasets:
            if dataset.size:  # finite datasets only
                uris += list(dataset.benchmark_uris())
        return _complete(text, uris)

    def do_reset(self, arg: str) -> None:
        """reset: start the episode again on the same benchmark."""
        self.env.reset()
        self._close_stack()
        self._say(f"Reset {self.env.benchmark.uri}")

    # Actions.
    def do_list_actions(self, arg: str) -> None:
        """list_actions: every action of the action space."""
        self._say(" ".join(self.env.action_space.flags))

    def do_action(self, arg: str) -> None:
        """action <flag> [<flag> ...]: take actions (flags, or indices), in order; ``action -``
        takes a random one."""
        actions = [self._action_of(a) for a in arg.split()]
        if not actions:
            raise ValueError("action needs at least one action")
        self._ensure_episode()
        for action in actions:
            if not self._take(action):
                break

    def _action_of(self, token: str) -> int:
        if token == "-":
            return int(self.rng.integers(self.env.action_space.n))
        return int(token) if token.isdigit() else self.env.action_space[token]

    def _take(self, action: int) -> bool:
        """Takes one action (kept for undo) and says what it did; False when the episode
        ended."""
        self.stack.append(self.env.fork())
        with Timer() as timer:
            observation, reward, done, info = self.env.step(action)
        flag = self.env.action_space.flags[action]
        reward_text = "" if reward is None else f" reward {reward:.6g}"
        effect = " (no effect)" if info.get("action_had_no_effect") else ""
        self._say(f"Action {flag}{reward_text}{effect} in {timer}")
        if observation is not None:
            self._say(truncate(str(observation), max_line_len=120, max_lines=10))
        if done:
            self._say(f"The episode ended: {info.get('error_details', '')}")
        return not done

    def do_greedy(self, arg: str) -> None:
        """greedy [n]: take the action of the highest reward, n times (default 1), while one
        gains anything."""
        self._ensure_episode()
        if self.env.reward_space is None:
            raise ValueError("greedy needs a reward space (set_default_reward)")
        for _ in range(self._count(arg, "greedy")):
            best = greedy_action(self.env)  # the search's step, one at a time, each printed
            if best is None:
                self._say("No action gains anything: stopped")
                return
            if not self._take(best):
                return

    def do_hill_climb(self, arg: str) -> None:
        """hill_climb [n]: n random actions (default 10), each kept only if its reward is
        positive."""
        self._ensure_episode()
        if self.env.reward_space is None:
            raise ValueError("hill_climb needs a reward space (set_default_reward)")
        kept = 0
        for _ in range(self._count(arg, "hill_climb", 10)):
            action = int(self.rng.integers(self.env.action_space.n))
            reward, _, _, taken = self._step_if(action, lambda r, done, _: not done and r > 0)
            if taken:
                kept += 1
                self._say(f"Action {self.env.action_space.flags[action]} reward {reward:.6g}")
        self._say(f"Kept {kept} actions")

    def do_simplify_stack(self, arg: str) -> None:
        """simplify_stack: replay the episode without the actions that had no effect."""
        self._ensure_episode()
        actions = list(self.env.actions)
        self.env.reset()
        self._close_stack()
        for action in actions:
            _, done, _, _ = self._step_if(
                action, lambda _, done, info: done or not info.get("action_had_no_effect")
            )
            if done:
                break
        self._say(f"Kept {len(self.env.actions)} of {len(actions)} actions")

    def complete_action(self, text, line, begidx, endidx) -> list[str]:
        """Completes an action's flag."""
        return _complete(text, self.env.action_space.flags)

    def do_try_all_actions(self, arg: str) -> None:
        """try_all_actions [n]: the reward of every action from here (the best n, default
        10), without taking any."""
        self._ensure_episode()
        if self.env.reward_space is None:
            raise ValueError("try_all_actions needs a reward space (set_default_reward)")
        n = self._count(arg, "try_all_actions", 10)
        rewards = self.env.try_actions(range(self.env.action_space.n))
        order = np.argsort(-np.nan_to_num(rewards, nan=-np.inf), kind="stable")
        for i in order[:n]:
            self._say(f"{self.env.action_space.flags[i]}  {rewards[i]:.6g}")

    def do_stack(self, arg: str) -> None:
        """stack: the actions of the episode, with the episode reward."""
        flags = [self.env.action_space.flags[a] for a in self.env.actions]
        for depth, flag in enumerate(flags, start=1):
            self._say(f"{depth:3d}  {flag}")
        if self.env.reward_space is not None:
            self._say(f"episode reward {self.env.episode_reward:.6g}")

    def do_back(self, arg: str) -> None:
        """back: go back one action (the same as undo)."""
        self.do_undo(arg)

    def do_undo(self, arg: str) -> None:
        """undo: go back one action."""
        if not self.stack:
            self._say("Nothing to undo")
            return
        self.env.close()
        self.env = self.stack.pop()
        self._say(f"Undid; {len(self.env.actions)} actions now")

    def do_commandline(self, arg: str) -> None:
        """commandline: the command line that replays the episode."""
        self._say(self.env.commandline())

    # Observations and rewards.
    def do_list_observations(self, arg: str) -> None:
        """list_observations: the observation spaces."""
        self._say(" ".join(self.env.observation.spaces))

    def do_list_rewards(self, arg: str) -> None:
        """list_rewards: the reward spaces."""
        self._say(" ".join(self.env.reward.spaces))

    def do_observation(self, arg: str) -> None:
        """observation [space]: compute an observation of the current state (default: the
        default observation space's)."""
        self._ensure_episode()
        name = arg.strip() or self._default(self.env.observation_space_spec, "observation")
        with Timer() as timer:
            value = self.env.observation[name]
        self._say(f"{truncate(str(value), max_line_len=120, max_lines=20)}\n(in {timer})")

    def complete_observation(self, text, line, begidx, endidx) -> list[str]:
        """Completes an observation space's name."""
        return _complete(text, self.env.observation.spaces)

    def do_reward(self, arg: str) -> None:
        """reward [space]: compute a reward since it was last computed (default: the default
        reward space's)."""
        self._ensure_episode()
        name = arg.strip() or self._default(self.env.reward_space, "reward")
        self._say(f"{self.env.reward[name]:.6g}")

    def complete_reward(self, text, line, begidx, endidx) -> list[str]:
        """Completes a reward space's name."""
        return _complete(text, self.env.reward.spaces)

    def do_set_default_observation(self, arg: str) -> None:
        """set_default_observation <space>: the observation each action returns."""
        self.env.observation_space = arg.strip() or None

    complete_set_default_observation = complete_observation

    def do_set_default_reward(self, arg: str) -> None:
        """set_default_reward <space>: the reward each action returns."""
        self.env.reward_space = arg.strip() or None

    complete_set_default_reward = complete_reward

    def do_require_dataset(self, arg: str) -> None:
        """require_dataset <name>: install a dataset (if it needs installing)."""
        dataset = self.env.datasets[arg.strip()]
        dataset.install()
        self._say(f"{dataset.name} installed")

    complete_require_dataset = complete_list_benchmarks

    def do_tutorial(self, arg: str) -> None:
        """tutorial: a walk through the commands."""
        self._say(TUTORIAL)

    def do_exit(self, arg: str) -> bool:
        """exit: leave the shell (also Ctrl-D)."""
        self._say("Exiting")
        return True

    def do_EOF(self, arg: str) -> bool:  # noqa: N802 (cmd's name for Ctrl-D)
        """Ctrl-D: leave the shell."""
        return self.do_exit(arg)

    def _step_if(self, action: int, keep) -> tuple:
        """Takes an action and keeps it (its fork joins the undo stack) when ``keep(reward,
        done, info)``, else goes back; returns (reward, done, info, kept)."""
        fork = self.env.fork()
        _, reward, done, info = self.env.step(action)
        if not keep(reward, done, info):
            self.env.close()
            self.env = fork
            return reward, done, info, False
        self.stack.append(fork)
        return reward, done, info, True

    @staticmethod
    def _count(arg: str, command: str, default: int = 1) -> int:
        if not arg.strip():
            return default
        if not arg.strip().isdigit():
            raise ValueError(f"{command} takes a number of times, not {arg.strip()!r}")
        return int(arg)

    @staticmethod
    def _default(space, kind: str) -> str:
        if space is None:
            raise ValueError(f"no default {kind} space: name one (list_{kind}s)")
        return space.name

    def _ensure_episode(self) -> None:
        if not self.env.in_episode:
            self.env.reset()

    def _close_stack(self) -> None:
        for fork in self.stack:
            fork.close()
        self.stack = []

    def close(self) -> None:
        """Closes the forks kept for undo, then the env."""
        self._close_stack()
        self.env.close()


def _history_file() -> Path:
    return Path(os.environ.get("COMPILER_GYM_HISTORY") or Path.home() / ".compiler_gym_history")


@user_errors
def main(argv: Optional[list[str]] = None) -> int:
    """Runs the shell on ``argv`` (default: the command line; CompilerGym's
    ``main(["argv0", "--env=llvm-v0"])`` too), with the history loaded and saved again at the
    end; returns 0, or 2 when the env cannot be made."""
    parser = argument_parser("compiler_gym.bin.manual_env", __doc__)
    parser.add_argument("--env", default="llvm-ic-v0", help="environment id (default llvm-ic-v0)")
    parser.add_argument(
        "--benchmark", help="the benchmark to start on (default: the environment's)"
    )
    parser.add_argument(
        "--observation", help="the default observation space, which each action shows"
    )
    parser.add_argument("--reward", help="the default reward space, which each action reports")
    parser.add_argument("--ls_env", action="store_true", help="print the environment ids and exit")
    args = parse_args(parser, argv, absl_flags=("env", "benchmark", "observation", "reward"))
    if args.ls_env:
        print("\n".join(sorted(compiler_gym.env_ids())))
        return 0
    try:
        with Timer() as timer:
            env = compiler_gym.make(args.env, benchmark=args.benchmark)
            try:
                check_spaces(env, reward=args.reward, observation=args.observation)
                if args.observation:
                    env.observation_space = args.observation
                if args.reward:
                    env.reward_space = args.reward
                env.reset()
            except BaseException:
                env.close()
                raise
    except (LookupError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"Initialized environment in {timer}")  # CompilerGym's first line
    shell = CompilerGymShell(env)
    history = _history_file()
    try:
        import readline

        readline.set_completer_delims(" \t\n")  # flags and URIs hold '-', '/', ':'
        if history.is_file():
            readline.read_history_file(history)
    except (ImportError, OSError):
        readline = None
    try:
        shell.cmdloop()
    except KeyboardInterrupt:
        print()
    finally:
        shell.close()
        if readline is not None:
            try:
                readline.write_history_file(history)
            except OSError:
                pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
