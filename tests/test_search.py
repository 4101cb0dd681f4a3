"""Search baselines on fixed programs: exact results, and the same as the naive forms."""

import pytest

import compiler_gym
from compiler_gym.search import greedy_search


def naive_greedy(env) -> list[int]:
    """The greedy search written on the public API: a fork per action per step."""
    while True:
        rewards = []
        for a in range(env.action_space.n):
            with env.fork() as fork:
                _, reward, done, _ = fork.step(a)
                rewards.append(float("-inf") if done else reward)
        best = max(range(len(rewards)), key=lambda a: (rewards[a], -a))
        if not rewards[best] > 0:
            return env.actions
        env.step(best)


def test_greedy_finds_the_known_sequence_and_equals_the_naive_search():
    with compiler_gym.make("llvm-v0", reward_space="IrInstructionCount") as env:
        env.reset(benchmark="builtin-v0/crc32")
        state = greedy_search(env)
        assert state.commandline == (
            "opt -mem2reg -simplifycfg -instcombine -load-store-vectorizer -early-cse-memssa "
            "-elim-avail-extern -aggressive-instcombine -ipsccp -instcombine -jump-threading "
            "input.bc -o output.bc"
        )
        assert state.reward == 537.0
        assert env.observation["IrInstructionCount"] == 325
        found = env.actions
        env.reset()
        assert naive_greedy(env) == found
        assert env.validate(state).okay()


def test_greedy_stops_at_max_steps_and_needs_a_reward():
    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        env.reset()
        try:
            greedy_search(env)
        except ValueError as e:
            assert "reward space" in str(e)
        else:
            raise AssertionError("greedy_search without a reward space")
        state = greedy_search(env, reward_space="IrInstructionCount", max_steps=2)
        assert state.commandline == "opt -mem2reg -simplifycfg input.bc -o output.bc"


def test_random_search_is_reproducible_and_its_state_validates():
    from compiler_gym.search import random_search

    kwargs = dict(reward_space="IrInstructionCount", episodes=24, num_envs=4, seed=3)
    state, progress = random_search("llvm-v0", "builtin-v0/crc32", **kwargs)
    again, _ = random_search("llvm-v0", "builtin-v0/crc32", **kwargs)
    assert (state.commandline, state.reward) == (again.commandline, again.reward)
    assert state.benchmark == "benchmark://builtin-v0/crc32"
    assert progress.episodes == 24 and progress.best_reward == state.reward > 0
    rewards = [reward for _, _, reward in progress.history]
    assert rewards == sorted(rewards) and rewards[-1] == state.reward
    with compiler_gym.make("llvm-v0", reward_space="IrInstructionCount") as env:
        assert env.validate(state).okay()


def test_the_search_tool_writes_states_that_validate_and_a_tampered_one_fails(tmp_path):
    from compiler_gym.bin import search, validate
    from compiler_gym.compiler_env_state import CompilerEnvStateReader

    csv, png = tmp_path / "results.csv", tmp_path / "progress.png"
    for algorithm in ("greedy", "random", "nevergrad"):
        argv = ["--search", algorithm, "--env", "llvm-ic-v0", "--benchmark", "builtin-v0/crc32"]
        argv += ["--episodes", "16", "--budget", "16", "--output", str(csv), "--plot", str(png)]
        assert search.main(argv) == 0
        (state,) = CompilerEnvStateReader.read_paths([str(csv)])
        assert state.reward > 0 and state.commandline.startswith("opt ")
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert validate.main(["--env", "llvm-ic-v0", str(csv)]) == 0
    tampered = tmp_path / "tampered.csv"
    tampered.write_text(csv.read_text().replace(f",{state.reward},", f",{state.reward + 1},"))
    assert validate.main(["--env", "llvm-ic-v0", str(tampered)]) == 1
    assert search.main(["--benchmark", "builtin-v0/no-such-program"]) == 2


def test_nevergrad_search_is_reproducible_and_its_state_validates():
    from compiler_gym.search import nevergrad_search

    kwargs = dict(reward_space="IrInstructionCount", budget=40, num_envs=4, episode_length=8)
    state, progress = nevergrad_search("llvm-v0", "builtin-v0/crc32", seed=1, **kwargs)
    again, _ = nevergrad_search("llvm-v0", "builtin-v0/crc32", seed=1, **kwargs)
    assert (state.commandline, state.reward) == (again.commandline, again.reward)
    assert progress.episodes == 40 and state.reward == progress.best_reward > 0
    assert len(state.commandline.split()) == 8 + 4  # opt ... input.bc -o output.bc
    with compiler_gym.make("llvm-v0", reward_space="IrInstructionCount") as env:
        assert env.validate(state).okay()


def test_a_guide_chooses_the_actions_and_the_first_episode_is_taken_as_given():
    import numpy as np

    from compiler_gym.search import random_search

    with compiler_gym.make("llvm-v0") as env:
        flags = env.action_space.flags
    mem2reg, sroa, instcombine = (flags.index(f) for f in ["-mem2reg", "-sroa", "-instcombine"])
    seen = []

    def only_instcombine(observations, episodes):
        seen.append((observations.shape, [list(e) for e in episodes]))
        probabilities = np.zeros((len(episodes), len(flags)))
        probabilities[:, instcombine] = 1.0
        return probabilities

    kwargs = dict(reward_space="IrInstructionCount", num_envs=2, observation_space="Autophase")
    state, progress = random_search(
        "llvm-v0",
        "builtin-v0/crc32",
        episodes=4,
        guide=only_instcombine,
        first_episode=[mem2reg, sroa],
        **kwargs,
    )
    # Env 0 follows the given actions, then the guide; env 1 only the guide.
    assert seen[0] == ((2, 56), [[], []])
    assert seen[1] == ((2, 56), [[mem2reg], [instcombine]])
    assert seen[2][1] == [[mem2reg, sroa], [instcombine, instcombine]]
    actions = state.commandline.split()[1:-3]
    assert actions[:3] == ["-mem2reg", "-sroa", "-instcombine"]
    assert set(actions[3:]) <= {"-instcombine"}
    with compiler_gym.make("llvm-v0", reward_space="IrInstructionCount") as env:
        env.reset(benchmark="builtin-v0/crc32")
        env.multistep([mem2reg, sroa, instcombine])
        assert state.reward == env.episode_reward > 0
        assert env.validate(state).okay()
    # Without a first episode, the guide alone never finds mem2reg's gains.
    alone, _ = random_search(
        "llvm-v0", "builtin-v0/crc32", episodes=4, guide=only_instcombine, **kwargs
    )
    assert set(alone.commandline.split()[1:-3]) <= {"-instcombine"}
    assert alone.reward < state.reward


def test_nevergrad_search_stops_at_its_runtime():
    from compiler_gym.search import nevergrad_search

    state, progress = nevergrad_search(
        "llvm-v0", "builtin-v0/crc32", reward_space="IrInstructionCount", budget=10**9, runtime=0
    )
    assert progress.episodes == 0 and state.commandline.split()[1:-3] == []
    assert state.reward == 0.0  # the benchmark as it is, not -inf


def test_compiler_gyms_tool_names_run_the_search_tool(tmp_path):
    from compiler_gym.bin import greedy, random_search
    from compiler_gym.compiler_env_state import CompilerEnvStateReader

    greedy_csv, random_csv = tmp_path / "greedy.csv", tmp_path / "random.csv"
    argv = ["--benchmark", "builtin-v0/crc32", "--reward", "IrInstructionCount"]
    assert greedy.main([*argv, "--output", str(greedy_csv)]) == 0
    assert random_search.main([*argv, "--episodes", "8", "--output", str(random_csv)]) == 0
    (by_greedy,) = CompilerEnvStateReader.read_paths([str(greedy_csv)])
    (by_random,) = CompilerEnvStateReader.read_paths([str(random_csv)])
    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        env.reset()
        assert by_greedy == greedy_search(env, reward_space="IrInstructionCount")
    assert by_random.reward > 0 and by_random.commandline != by_greedy.commandline


def test_random_search_cut_short_by_its_runtime_keeps_the_best_step_so_far():
    """However short the budget, every env takes one step, and the best of those unfinished
    episodes is the result (a first episode may end long after a short budget)."""
    import numpy as np

    from compiler_gym.search import random_search

    state, progress = random_search(
        "llvm-v0",
        "builtin-v0/crc32",
        reward_space="IrInstructionCount",
        episodes=None,
        runtime=1e-9,
        patience=0,  # as many steps as there are actions: no episode ends in one
        num_envs=8,
        seed=5,
    )
    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        env.reset()
        first = np.random.default_rng(5).integers(env.action_space.n, size=8)
        rewards = env.try_actions(first, reward_space="IrInstructionCount")
        best = int(np.argmax(rewards))
        assert progress.episodes == 0
        assert state.reward == max(rewards[best], 0.0) > 0
        assert state.commandline.split()[1:-3] == [env.action_space.flags[first[best]]]


def test_the_search_tools_report_user_mistakes_in_one_line(capsys):
    from compiler_gym.bin import datasets, greedy, random_search, validate

    for main, argv in (
        (random_search.main, ["--reward", "Nope"]),
        (greedy.main, ["--benchmark", "builtin-v0/crc32", "--reward", "Nope"]),
        (random_search.main, ["--patience", "-1", "--benchmark", "builtin-v0/crc32"]),
        (datasets.main, ["--env", "nope", "list"]),
        (validate.main, ["--env", "nope-v0", "/nonexistent.csv"]),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("error: ") and "Traceback" not in err, (argv, err)


def test_compiler_gyms_random_search_module_and_its_log_files(tmp_path):
    """compiler_gym.random_search(make_env, outdir, ...) returns the env in the best state and
    leaves CompilerGym's files, which replay to that state; skip_done replays them; the
    random_search tool's --output_dir and --nproc write the same files."""
    import csv
    import json

    from compiler_gym.bin import random_search as tool
    from compiler_gym.compiler_env_state import CompilerEnvStateReader
    from compiler_gym.random_search import random_search

    def make_env():
        return compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/crc32")

    outdir = tmp_path / "search"
    with random_search(make_env, outdir, total_runtime=2, patience=5, nproc=2) as env:
        actions, best = env.actions, env.episode_reward
        bitcode_sha1 = env.observation["IrSha1"]
    assert best > 0 and actions
    metadata = json.loads((outdir / "random_search.json").read_text())
    assert metadata["benchmark"] == "benchmark://builtin-v0/crc32"
    assert metadata["reward"] == "IrInstructionCountOz" and metadata["best_reward"] == best
    names = (outdir / "random_search_best_actions.txt").read_text().split()
    with make_env() as replay:
        replay.reset()
        assert names == [replay.action_space.flags[a] for a in actions]
        commandline = (outdir / "random_search_best_actions_commandline.txt").read_text().strip()
        assert replay.commandline_to_actions(commandline) == actions
    with open(outdir / "random_search_best_actions_progress.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["action"] for r in rows] == names
    assert float(rows[-1]["cumulative reward"]) == best
    with open(outdir / "random_search_progress.csv") as f:
        progress = list(csv.DictReader(f))
    assert float(progress[-1]["reward"]) == best
    with compiler_gym.make(
        "llvm-v0", benchmark=compiler_gym.make_benchmark(outdir / "optimized.bc")
    ) as env:
        env.reset()
        assert env.observation["IrSha1"] == bitcode_sha1
    # A finished search is replayed, not repeated (in one multistep, whose reward is summed in
    # another order than the logs' steps: equal up to rounding).
    with random_search(make_env, outdir, total_runtime=1000, skip_done=True) as env:
        assert env.actions == actions and env.episode_reward == pytest.approx(best, rel=1e-12)

    tooldir, results = tmp_path / "tool", tmp_path / "tool.csv"
    argv = ["--benchmark", "builtin-v0/crc32", "--episodes", "4", "--nproc", "2"]
    assert tool.main([*argv, "--output_dir", str(tooldir), "--output", str(results)]) == 0
    (state,) = CompilerEnvStateReader.read_paths([str(results)])
    commandline = (tooldir / "random_search_best_actions_commandline.txt").read_text().strip()
    assert commandline == state.commandline
    assert json.loads((tooldir / "random_search.json").read_text())["best_reward"] == state.reward


def test_compiler_gyms_random_search_keeps_the_envs_settings(tmp_path):
    """The search's envs get the settings of the env make_env() made: its gcc_bin here, which
    logs every compile (with the default gcc, the search's compiles would not be logged)."""
    import csv
    import json

    from compiler_gym.random_search import random_search

    log = tmp_path / "compiles.log"
    wrapper = tmp_path / "logging-gcc"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec gcc "$@"\n')
    wrapper.chmod(0o755)

    def make_env():
        return compiler_gym.make(
            "gcc-v0", gcc_bin=str(wrapper), benchmark="builtin-v0/crc32", reward_space="obj_size"
        )

    with make_env() as env:
        env.reset()
        before = len(log.read_text().splitlines())
    outdir = tmp_path / "search"
    with random_search(make_env, outdir, total_runtime=3, patience=3, nproc=2) as env:
        assert env.gcc_spec.gcc_bin == str(wrapper)
        # The env and the logs hold the search's best state (a gcc state is its choices: the
        # logs replay the search's actions, not the env's, which apply() does not record).
        with open(outdir / "random_search_progress.csv") as f:
            best = max([0.0] + [float(row["reward"]) for row in csv.DictReader(f)])
        assert json.loads((outdir / "random_search.json").read_text())["best_reward"] == best
        assert env.episode_reward == best
        commandline = (outdir / "random_search_best_actions_commandline.txt").read_text()
        assert commandline.strip() == env.commandline()
    # Compiles are cached by command line in the process, so replaying the best state in the
    # parent env compiles nothing new: every new line is a search env's compile.
    assert len(log.read_text().splitlines()) > before


def test_search_logs_replay_the_searchs_actions_in_any_family(tmp_path):
    """write_search_logs replays the actions it is given: a gcc-v0 env made afresh ends in the
    state they reach, and the logs say so (a gcc state made by apply() has no actions)."""
    import json

    from compiler_gym.random_search import write_search_logs

    with compiler_gym.make("gcc-v0", benchmark="builtin-v0/crc32", reward_space="obj_size") as env:
        env.reset()
        os_action = env.action_space["-Os"]
        _, gain, _, _ = env.step(os_action)
        assert gain > 0
    with compiler_gym.make("gcc-v0", benchmark="builtin-v0/crc32", reward_space="obj_size") as env:
        write_search_logs(tmp_path, env, [os_action], [(0.5, gain)])
        assert env.actions == [os_action] and env.episode_reward == gain
        assert (tmp_path / "random_search_best_actions.txt").read_text() == "-Os\n"
        assert json.loads((tmp_path / "random_search.json").read_text())["best_reward"] == gain
        commandline = (tmp_path / "random_search_best_actions_commandline.txt").read_text()
        assert commandline.strip() == env.commandline() and " -Os " in commandline


def test_compiler_gyms_random_search_replays_the_best_actions_once(monkeypatch):
    """The search's best actions are replayed in the env it returns and nowhere else: the
    search does not also record its state (a replay of its own in a new env)."""
    import importlib

    from compiler_gym.random_search import random_search

    search_module = importlib.import_module("compiler_gym.search.random_search")
    record_state, recorded = search_module.record_state, []

    def counted(*args, **kwargs):
        recorded.append(args)
        return record_state(*args, **kwargs)

    monkeypatch.setattr(search_module, "record_state", counted)

    def make_env():
        return compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/crc32")

    with random_search(make_env, total_runtime=0.5, patience=5, nproc=2) as env:
        assert env.actions and env.episode_reward > 0
    assert recorded == []


def test_a_search_reads_its_outputs_without_torch():
    """The searches' engines hand NumPy arrays: a search tool never imports torch (1.5 s of a
    short search's budget, before)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import numpy as np\n"
        "from compiler_gym.search import random_search\n"
        "def guide(observations, episodes):\n"
        "    assert type(observations) is np.ndarray and observations.shape == (2, 56)\n"
        "    return np.full((2, 121), 1 / 121)\n"
        "random_search('llvm-ic-v0', 'builtin-v0/crc32', episodes=2, num_envs=2,\n"
        "              observation_space='Autophase', guide=guide)\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr


def test_one_budget_model_a_runtime_alone_is_a_time_budget(monkeypatch):
    """A runtime alone bounds the search by time only (it used to stop at the default
    episodes too); neither budget is the default; both: whichever runs out first."""
    import importlib

    from compiler_gym.search import nevergrad_search, random_search

    kwargs = dict(reward_space="IrInstructionCount", record=False, num_envs=4, patience=2)
    # A default of 8 episodes, which a second passes on any machine (about 400 a second on
    # an idle 2-core one, 89 under a load of 6).
    random_module = importlib.import_module("compiler_gym.search.random_search")
    monkeypatch.setattr(random_module, "DEFAULT_EPISODES", 8)
    _, progress = random_search("llvm-v0", "builtin-v0/crc32", runtime=1.0, **kwargs)
    # The time ended it, not the default count (how many episodes fit depends on the load).
    assert progress.timed_out
    _, progress = random_search("llvm-v0", "builtin-v0/crc32", **kwargs)
    assert progress.episodes == 8
    _, progress = random_search("llvm-v0", "builtin-v0/crc32", episodes=2, runtime=60, **kwargs)
    assert progress.episodes == 2 and progress.seconds < 60
    # nevergrad's default of 1000 trials takes seconds: a smaller one shows the same.
    nevergrad_module = importlib.import_module("compiler_gym.search.nevergrad_search")
    monkeypatch.setattr(nevergrad_module, "DEFAULT_TRIALS", 8)
    kwargs = dict(reward_space="IrInstructionCount", num_envs=4, episode_length=2)
    _, progress = nevergrad_search("llvm-v0", "builtin-v0/crc32", runtime=0.5, **kwargs)
    assert progress.timed_out
    _, progress = nevergrad_search("llvm-v0", "builtin-v0/crc32", **kwargs)
    assert progress.episodes == 8


def test_greedy_search_stops_after_the_step_under_way_when_its_runtime_is_spent():
    import time

    def slow_second_step(env):
        if len(env.actions) == 2:
            time.sleep(2.0)

    with compiler_gym.make("llvm-v0", reward_space="IrInstructionCount") as env:
        env.reset(benchmark="builtin-v0/crc32")
        state = greedy_search(env, runtime=2.0, callback=slow_second_step)
        assert state.commandline == "opt -mem2reg -simplifycfg input.bc -o output.bc"
        assert state == env.state and state.reward > 0
        assert greedy_search(env, runtime=0).commandline == state.commandline  # no step


def test_every_search_takes_an_env_or_an_env_id_and_a_benchmark():
    from compiler_gym.search import nevergrad_search, random_search

    by_id = greedy_search(
        "llvm-v0", "builtin-v0/crc32", reward_space="IrInstructionCount", max_steps=2
    )
    assert by_id.commandline == "opt -mem2reg -simplifycfg input.bc -o output.bc"
    random_kwargs = dict(episodes=6, num_envs=2, seed=3, patience=4)
    nevergrad_kwargs = dict(budget=8, num_envs=4, episode_length=3, seed=1)
    expected = [
        random_search("llvm-v0", "builtin-v0/crc32", "IrInstructionCount", **random_kwargs)[0],
        nevergrad_search("llvm-v0", "builtin-v0/crc32", "IrInstructionCount", **nevergrad_kwargs)[
            0
        ],
    ]
    with compiler_gym.make(
        "llvm-v0", benchmark="builtin-v0/qsort", reward_space="IrInstructionCount"
    ) as env:
        # The env's id, reward space and benchmark (or the benchmark given) are the search's.
        found = [
            random_search(env, "builtin-v0/crc32", **random_kwargs)[0],
            nevergrad_search(env, benchmark="builtin-v0/crc32", **nevergrad_kwargs)[0],
        ]
        assert [(s.commandline, s.reward) for s in found] == [
            (s.commandline, s.reward) for s in expected
        ]
        assert random_search(env, **random_kwargs)[0].benchmark == "benchmark://builtin-v0/qsort"
        assert greedy_search(env, "builtin-v0/crc32", max_steps=2) == by_id
    for search in (greedy_search, random_search, nevergrad_search):
        with pytest.raises(ValueError, match="needs a benchmark"):
            search("llvm-v0", reward_space="IrInstructionCount")


def test_the_search_tool_takes_program_files_and_build_command_lines(tmp_path):
    """A program file given to --benchmark is its file:// URI, which validate resolves; a
    --benchmark-command is made with make_benchmark_from_command_line, and its state
    replays on the benchmark made again from that command."""
    from compiler_gym.bin import search, validate
    from compiler_gym.compiler_env_state import CompilerEnvStateReader
    from compiler_gym.datasets.make_benchmark import make_benchmark_from_command_line

    source = tmp_path / "sum.c"
    source.write_text(
        "#include <stdio.h>\n#ifndef N\n#define N 10\n#endif\n"
        "static int square(int x) { return x * x; }\n"
        "int main(void) {\n  int s = 0;\n  for (int i = 0; i < N; ++i) s += square(i);\n"
        '  printf("%d\\n", s);\n  return 0;\n}\n'
    )
    command = f"gcc -O2 -DN=20 {source} -o sum"
    csv = tmp_path / "results.csv"
    argv = ["--benchmark", str(source), "--benchmark-command", command, "--output", str(csv)]
    assert search.main(["--search", "random", "--episodes", "8", *argv]) == 0
    from_file, from_command = CompilerEnvStateReader.read_paths([str(csv)])
    assert from_file.benchmark == f"file://{source}" and from_file.reward > 0
    assert from_command.benchmark.startswith("benchmark://user-v0/") and from_command.reward > 0
    (tmp_path / "file.csv").write_text("".join(csv.read_text().splitlines(True)[:2]))
    assert validate.main(["--env", "llvm-ic-v0", str(tmp_path / "file.csv")]) == 0
    with compiler_gym.make("llvm-ic-v0") as env:
        env.reset(benchmark=make_benchmark_from_command_line(command))
        assert env.validate(from_command).okay()
    assert search.main(["--benchmark-command", f"gcc {tmp_path / 'missing.c'}"]) == 2


def test_random_episodes_end_by_length_on_a_large_program(tmp_path):
    """On ~50k instructions nearly every pass removes something, so episodes with patience
    1.25x the actions did not end within a short budget: a maximum episode length ends
    them, and the search returns a state better than the start."""
    import shutil
    import subprocess
    from types import SimpleNamespace

    from compiler_gym.search import random_search
    from compiler_gym.search.random_search import RandomEpisodes

    # The default: twice the number of actions or of the patience, whichever is more.
    vec = SimpleNamespace(num_envs=1, env_action_space=SimpleNamespace(n=122))
    assert RandomEpisodes(vec, [0], 1, patience=152).max_length == 304
    assert RandomEpisodes(vec, [0], 1, patience=0).max_length == 244
    if shutil.which("llvm-stress-19") is None:
        pytest.skip("no llvm-stress-19")
    program = tmp_path / "large.ll"
    subprocess.run(
        ["llvm-stress-19", "-seed=1", "-size=50000", "-o", str(program)], check=True, timeout=60
    )
    benchmark = compiler_gym.make_benchmark(program)
    with compiler_gym.make("llvm-v0", benchmark=benchmark) as env:
        env.reset()
        assert env.observation["IrInstructionCount"] > 40000
        patience = int(1.25 * env.action_space.n)
    state, progress = random_search(
        "llvm-v0",
        benchmark,
        reward_space="IrInstructionCount",
        patience=patience,
        runtime=5,
        num_envs=2,
        max_episode_length=4,
    )
    assert progress.episodes >= 1 and state.reward > 0
    assert 1 <= len(state.commandline.split()) - 4 <= 4  # opt ... input.bc -o output.bc
