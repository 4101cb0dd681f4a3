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
import random
import shlex
import sys
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, Optional

import numpy as np

import compiler_gym
from compiler_gym.util.cli import argument_parser, check_spaces, parse_args, user_errors
from compiler_gym.util.names import did_you_mean
from compiler_gym.util.tabulate import tabulate
from compiler_gym.util.timer import Timer

TUTORIAL = """\
The prompt names the benchmark of the episode: compiler_gym:builtin-v0/qsort>

  list_datasets, list_benchmarks [dataset]   what there is to work on
  set_benchmark <uri>                        a new episode on another benchmark (Tab completes)
  list_actions, action <flag> [<flag> ...]   the actions, and taking some (- is a random one)
  stack, back (or undo), reset               the episode so far, one step back, a fresh start
  list_rewards, set_default_reward <space>   the reward each action reports
  list_observations, observation [space]     what can be observed, and one observation now
  try_all_actions, greedy [n]                every action's reward from here; the best, n times
  hill_climb [n], simplify_stack             random improving steps; drop the steps that gained
                                             nothing
  commandline                                the opt command line that replays the episode
  exit (or Ctrl-D)                           leave

A session: set_default_reward IrInstructionCountOz, then try_all_actions to see what each pass
would gain, action -mem2reg to take one, stack to see the episode, back to go back."""


def _complete(prefix: str, names) -> list[str]:
    return [n for n in names if n.startswith(prefix)]


def _number(value: Optional[float]) -> str:
    """A reward as CompilerGym's shell prints it (six decimals), or ``None``."""
    return "None" if value is None else f"{value:.6f}"


@dataclass
class _Step:
    """One action of the episode as ``stack`` shows it; ``before`` is a fork of the env as it
    was before the action, which ``back`` returns to without replaying the episode."""

    flag: str
    index: int
    reward: Optional[float]
    done: bool
    info: dict
    before: Any = None

    @property
    def effect(self) -> bool:
        """Whether the action changed the program (as the env reported it)."""
        return not self.info.get("action_had_no_effect")

    @property
    def error(self) -> str:
        """Why the action ended the episode, when it did."""
        return self.info.get("error_details", "")


class CompilerGymShell(cmd.Cmd):
    """The shell's commands (``do_*``) and their completions (``complete_*``). Each command
    prints what CompilerGym's shell printed for it, line for line, so that scripts and notes
    written against CompilerGym's shell read the same here."""

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
        self.stack: list[_Step] = []  # the episode's actions, each with a fork for back
        self._set_prompt()

    # The shell's own plumbing.
    def _set_prompt(self) -> None:
        # CompilerGym's prompt: the benchmark without its benchmark:// scheme, after a blank
        # line.
        benchmark = str(self.env.benchmark.uri) if self.env.in_episode else "-"
        self.prompt = f"\ncompiler_gym:{benchmark.removeprefix('benchmark://')}> "

    def _say(self, *parts) -> None:
        print(*parts, file=self.stdout)

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

    def _unknown(self, kind: str, name: str, known, command: str) -> None:
        """CompilerGym's two lines for an unknown name, with the closest names added."""
        self._say(f"Unknown {kind}, '{name}'{did_you_mean(name, known)}")
        self._say(f"{kind.capitalize()}s are listed with command, {command}")

    def _action_names(self) -> list[str]:
        return list(self.env.action_space.names)

    def _show_step(self, observation, reward) -> None:
        """The observation and reward lines of a step, for the default spaces that are set."""
        if self.env.observation_space is not None and observation is not None:
            self._say(f"Observation: {observation}")
        if self.env.reward_space is not None and reward is not None:
            self._say(f"Reward: {reward:.6f}")

    def _step(self, index: int) -> tuple[_Step, Any]:
        """Takes an action and puts it on the stack; returns it and its observation."""
        before = self.env.fork()
        observation, reward, done, info = self.env.step(index)
        step = _Step(self._action_names()[index], index, reward, done, info, before)
        self.stack.append(step)
        return step, observation

    def _replay(self, keep=lambda step: True, warn: bool = True) -> None:
        """Starts the episode again and takes the stack's actions that ``keep`` accepts, so
        that their rewards are those of the current reward space; with ``warn``, says where
        a reward changed (CompilerGym's warning)."""
        old = self.stack
        self._close_stack()
        self.env.reset()
        for i, previous in enumerate(old):
            if not keep(previous):
                continue
            step, _ = self._step(previous.index)
            if warn and step.reward != previous.reward:
                self._say(
                    f"Warning previous reward at {i}: {step.flag} was "
                    f"{_number(previous.reward)} now {_number(step.reward)}"
                )
            if step.done:
                break

    def _try_all(self) -> list[_Step]:
        """Every action's outcome from here, each on a fork (this env is unchanged), best
        reward first; prints each as it is tried, as CompilerGym's shell does."""
        outcomes = []
        for index, flag in enumerate(self._action_names()):
            with self.env.fork() as fork:
                _, reward, done, info = fork.step(index)
            outcomes.append(_Step(flag, index, reward, done, info))
            self._say(f"Action: {flag} Reward: {_number(reward)}")

        def order(step: _Step) -> float:
            bad = step.reward is None or np.isnan(step.reward)
            return np.inf if bad else -step.reward

        return sorted(outcomes, key=order)  # stable: ties keep the action order

    def _needs_reward(self) -> bool:
        if self.env.reward_space is None:
            self._say("No default reward set. Call set_default_reward")
            return False
        return True

    # Benchmarks and datasets.
    def do_list_datasets(self, arg: str) -> None:
        """list_datasets: the datasets of the environment, by name."""
        self._say(", ".join(sorted(d.name for d in self.env.datasets)))

    def do_list_benchmarks(self, arg: str) -> None:
        """list_benchmarks [dataset] [n]: the first n (default 50) benchmarks of a dataset, or
        of every dataset that is installed (none is downloaded to list it)."""
        args = shlex.split(arg)
        n = int(args[1]) if len(args) > 1 else 50
        if args:
            datasets = [self.env.datasets[args[0]]]
        else:
            datasets = [d for d in self.env.datasets if d.installed]
        uris = sorted(u for d in datasets for u in islice(d.benchmark_uris(), n))
        self._say(", ".join(u.removeprefix("benchmark://") for u in uris))

    def complete_list_benchmarks(self, text, line, begidx, endidx) -> list[str]:
        """Completes a dataset name."""
        return _complete(text, [d.name for d in self.env.datasets])

    def do_set_benchmark(self, arg: str) -> None:
        """set_benchmark <uri>: start an episode on a benchmark (- for a random one); the
        action history is cleared."""
        arg = arg.strip()
        if arg == "-":
            arg = str(self.env.datasets.random_benchmark().uri)
            self._say(f"set_benchmark {arg}")
        try:
            benchmark = self.env.datasets.benchmark(arg)
        except LookupError as e:
            self._say(f"Unknown benchmark, '{arg}'")
            if "did you mean" in str(e):
                self._say(str(e))
            self._say("Benchmarks are listed with command, list_benchmarks")
            return
        self._close_stack()
        with Timer() as timer:
            observation = self.env.reset(benchmark=benchmark)
        self._say(f"Reset {self.env.benchmark.uri} environment in {timer}")
        self._show_step(observation, None)

    def complete_set_benchmark(self, text, line, begidx, endidx) -> list[str]:
        """Completes a benchmark URI of the finite datasets."""
        uris = []
        for dataset in self.env.datasets:
            if dataset.size:  # finite datasets only
                uris += list(dataset.benchmark_uris())
        return _complete(text, uris)

    def do_reset(self, arg: str) -> None:
        """reset: start the episode again on the same benchmark, with no actions."""
        self._close_stack()
        with Timer("Reset", print_fn=self._say):
            self.env.reset()

    # Actions.
    def do_list_actions(self, arg: str) -> None:
        """list_actions: every action of the action space."""
        self._say(", ".join(self._action_names()))

    def do_action(self, arg: str) -> None:
        """action <flag> [<flag> ...]: take actions (flags, or indices), in order; ``-`` is a
        random action."""
        self._ensure_episode()
        if self.stack and self.stack[-1].done:
            self._say(
                "No action possible, last action ended by the environment with error:",
                self.stack[-1].error,
            )
            self._say("Consider commands, back or reset")
            return
        names = self._action_names()
        tokens = arg.split()
        unknown = [t for t in tokens if t != "-" and t not in names and not t.isdigit()]
        unknown += [t for t in tokens if t.isdigit() and int(t) >= len(names)]
        if not tokens or unknown:
            if unknown:
                self._unknown("action", unknown[0], names, "list_actions")
            else:
                self._say("No action given")
                self._say("Actions are listed with command, list_actions")
            self._say("Use '-' for a random action")
            return
        indices = [
            random.randrange(len(names)) if t == "-" else int(t) if t.isdigit() else names.index(t)
            for t in tokens
        ]
        total = 0  # an int, as CompilerGym's: "with reward 0." when there is no reward
        taken = []
        with Timer() as timer:
            for index in indices:
                self._say(f"Action {names[index]}")
                step, observation = self._step(index)
                self._show_step(observation, step.reward)
                if self.env.reward_space is not None and step.reward is not None:
                    total += step.reward
                if not step.effect:
                    self._say("No effect")
                taken.append(step.flag)
                if step.done:
                    self._say("Episode ended by environment: ", step.error)
                    self._say("No further actions will be possible")
                    break
        self._say(f"Actions {' '.join(taken)} in {timer} with reward {total}.")

    def complete_action(self, text, line, begidx, endidx) -> list[str]:
        """Completes an action's flag."""
        return _complete(text, self._action_names())

    def do_greedy(self, arg: str) -> None:
        """greedy [n]: n times (default 1), try every action and take the one of the highest
        positive reward; stops early when none gains anything."""
        if not self._needs_reward():
            return
        self._ensure_episode()
        steps = self._count(arg, "greedy")
        with Timer() as timer:
            for i in range(steps):
                outcomes = self._try_all()
                best = next(
                    (o for o in outcomes if not o.done and o.reward is not None and o.reward > 0),
                    None,
                )
                if best is None:
                    self._say(f"Step: {i + 1} Selected no action.")
                    if i + 1 < steps:
                        self._say("Greedy search stopping early.")
                    break
                self._step(best.index)
                self._say(f"Step: {i + 1} Selected action: {best.flag} Reward: {best.reward:.6f}")
        self._say(f"Greedy {i + 1} steps in {timer}")

    def do_hill_climb(self, arg: str) -> None:
        """hill_climb [n]: n random actions (default 1), each kept only if its reward is
        positive."""
        if not self._needs_reward():
            return
        self._ensure_episode()
        steps = self._count(arg, "hill_climb")
        names = self._action_names()
        accepted, total = 0, 0
        with Timer() as timer:
            for i in range(steps):
                index = random.randrange(len(names))
                step, _ = self._step(index)
                accept = not step.done and step.reward is not None and step.reward > 0
                if accept:
                    accepted += 1
                    total += step.reward
                else:
                    self._pop()  # back to the fork taken before it
                self._say(
                    f"Step: {i + 1} Action: {step.flag} Reward: {_number(step.reward)} "
                    f"Accept: {accept}"
                )
                if step.done:
                    self._say("Episode ended by environment: ", step.error)
        self._say(
            f"Hill climb complete in {timer}. Accepted {accepted} of {steps} steps for total "
            f"reward of {total}."
        )

    def do_simplify_stack(self, arg: str) -> None:
        """simplify_stack: replay the episode with only the actions that had an effect and,
        with a reward space, a positive reward."""
        self._ensure_episode()
        self._replay(lambda s: s.effect and (s.reward is None or s.reward > 0))

    def do_try_all_actions(self, arg: str) -> None:
        """try_all_actions: the outcome of every action from here, best reward first, without
        taking any."""
        if not self._needs_reward():
            return
        self._ensure_episode()
        with Timer("Got actions", print_fn=self._say):
            outcomes = self._try_all()
        rows = [(o.flag, o.effect, o.done, _number(o.reward)) for o in outcomes]
        headers = ["Action", "Effect", "Done", "Reward"]
        self._say(tabulate(rows, headers=headers, tablefmt="presto"))

    def do_stack(self, arg: str) -> None:
        """stack: the episode's actions, the last first, with their rewards."""
        rows, total = [], 0
        for depth, step in enumerate(self.stack, start=1):
            total += step.reward or 0
            reward = "-" if step.reward is None else f"{step.reward:.6f}"
            rows.append((depth, step.flag, step.effect, step.done, reward, f"{total:.6f}"))
        rows.reverse()
        rows.append((0, "<init>", False, False, 0, 0))
        headers = ["Depth", "Action", "Effect", "Done", "Reward", "Cumulative Reward"]
        self._say(tabulate(rows, headers=headers, tablefmt="presto"))

    def do_back(self, arg: str) -> None:
        """back: undo the last action (the same as undo)."""
        if not self.stack:
            self._say("No actions to undo")
            return
        with Timer(f"Undid {self.stack[-1].flag}", print_fn=self._say):
            self._pop()

    def do_undo(self, arg: str) -> None:
        """undo: undo the last action."""
        self.do_back(arg)

    def do_commandline(self, arg: str) -> None:
        """commandline: the command line that replays the episode."""
        self._say("$", self.env.commandline())

    # Observations and rewards.
    def do_list_observations(self, arg: str) -> None:
        """list_observations: the observation spaces."""
        self._say(", ".join(sorted(self.env.observation.spaces)))

    def do_list_rewards(self, arg: str) -> None:
        """list_rewards: the reward spaces."""
        self._say(", ".join(sorted(self.env.reward.spaces)))

    def do_observation(self, arg: str) -> None:
        """observation [space]: compute an observation of the current state (default: the
        default observation space's)."""
        self._ensure_episode()
        name = arg.strip()
        if not name and self.env.observation_space is not None:
            name = self.env.observation_space_spec.id
        if name not in self.env.observation.spaces:
            self._unknown("observation", name, self.env.observation.spaces, "list_observations")
            return
        with Timer() as timer:
            value = self.env.observation[name]
        self._say(value)
        self._say(f"Observation {name} in {timer}")

    def complete_observation(self, text, line, begidx, endidx) -> list[str]:
        """Completes an observation space's name."""
        return _complete(text, self.env.observation.spaces)

    def do_reward(self, arg: str) -> None:
        """reward [space]: compute a reward since it was last computed (default: the default
        reward space's)."""
        self._ensure_episode()
        name = arg.strip()
        if not name and self.env.reward_space is not None:
            name = self.env.reward_space.name
        if name not in self.env.reward.spaces:
            self._unknown("reward", name, self.env.reward.spaces, "list_rewards")
            return
        with Timer(f"Reward {name}", print_fn=self._say):
            self._say(f"{self.env.reward[name]:.6f}")

    def complete_reward(self, text, line, begidx, endidx) -> list[str]:
        """Completes a reward space's name."""
        return _complete(text, self.env.reward.spaces)

    def do_set_default_observation(self, arg: str) -> None:
        """set_default_observation [space]: the observation each action shows (none without
        a name)."""
        name = arg.strip()
        if name and name not in self.env.observation.spaces:
            self._unknown("observation", name, self.env.observation.spaces, "list_observations")
            return
        with Timer(f"Observation {name}", print_fn=self._say):
            self.env.observation_space = name or None

    complete_set_default_observation = complete_observation

    def do_set_default_reward(self, arg: str) -> None:
        """set_default_reward [space]: the reward each action reports (none without a name);
        the episode is replayed, so that the stack shows this space's rewards."""
        name = arg.strip()
        if name and name not in self.env.reward.spaces:
            self._unknown("reward", name, self.env.reward.spaces, "list_rewards")
            return
        with Timer(f"Reward {name}", print_fn=self._say):
            self.env.reward_space = name or None
            self._replay(warn=False)

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

    def _pop(self) -> _Step:
        """Takes the last action off the stack and returns the env to before it."""
        step = self.stack.pop()
        self.env.close()
        self.env = step.before
        return step

    @staticmethod
    def _count(arg: str, command: str, default: int = 1) -> int:
        if not arg.strip():
            return default
        if not arg.strip().isdigit():
            raise ValueError(f"{command} takes a number of times, not {arg.strip()!r}")
        return max(1, int(arg))

    def _ensure_episode(self) -> None:
        if not self.env.in_episode:
            self.env.reset()

    def _close_stack(self) -> None:
        for step in self.stack:
            step.before.close()
        self.stack = []

    def close(self) -> None:
        """Closes the forks kept for back, then the env."""
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
