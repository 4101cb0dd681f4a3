"""The state-transition database: tables after a known episode, many writers, a killed writer."""

import json
import os
import sqlite3
import subprocess
import sys
import threading

import numpy as np
import pytest

import compiler_gym
from compiler_gym.wrappers import SqliteWriter, SynchronousSqliteLogger, make_logged_vec


def rows(db, query):
    with sqlite3.connect(db) as connection:
        return connection.execute(query).fetchall()


def test_tables_after_a_known_episode(tmp_path):
    db = tmp_path / "explored.db"
    flags = ["-mem2reg", "-gvn", "-mem2reg"]
    # The episode on a plain env: the states, counts and rewards the log must hold.
    with compiler_gym.make("llvm-ic-v0", benchmark="benchmark://builtin-v0/crc32") as plain:
        plain.reset()
        ids = [plain.observation["IrSha1"]]
        counts = [plain.observation["IrInstructionCount"]]
        autophase = [plain.observation["Autophase"].tolist()]
        rewards = []
        for flag in flags:
            _, reward, _, _ = plain.step(plain.action_space[flag])
            ids.append(plain.observation["IrSha1"])
            counts.append(plain.observation["IrInstructionCount"])
            autophase.append(plain.observation["Autophase"].tolist())
            rewards.append(reward)
    env = SynchronousSqliteLogger(
        compiler_gym.make("llvm-ic-v0", benchmark="benchmark://builtin-v0/crc32"), db_path=db
    )
    env.reset()
    _, reward, done, _ = env.step(flags[0])
    assert reward == pytest.approx(rewards[0]) and not done
    env.multistep(flags[1:])
    actions = [env.action_space[f] for f in flags]
    env.close()
    states = rows(db, "SELECT actions, state_id, ir_instruction_count, done FROM States")
    expected_states = [
        (" ".join(map(str, actions[:i])), ids[i], counts[i], 0) for i in range(len(ids))
    ]
    assert sorted(states) == sorted(expected_states)
    observations = dict(
        (state, (count, json.loads(features)))
        for state, count, features in rows(
            db, "SELECT state_id, ir_instruction_count, autophase FROM Observations"
        )
    )
    assert observations == {ids[i]: (counts[i], autophase[i]) for i in range(len(ids))}
    transitions = rows(db, "SELECT * FROM StateTransitions")
    expected = {(ids[i], actions[i], ids[i + 1]): rewards[i] for i in range(len(flags))}
    assert {(a, b, c): r for a, b, c, r in transitions} == pytest.approx(expected)


def test_a_step_computes_the_logged_observations_itself(tmp_path, monkeypatch):
    """The logged spaces are asked for in the step, beside the caller's (the engine computes
    them with it), not read one by one after it; the caller gets what it asked for."""
    crc32 = "benchmark://builtin-v0/crc32"
    flags = ["-mem2reg", "-gvn", "-sroa"]
    with compiler_gym.make("llvm-v0", benchmark=crc32, observation_space="Autophase") as plain:
        plain.reset()
        expected = [
            plain.step(plain.action_space[f], reward_spaces=["IrInstructionCount"]) for f in flags
        ]
    inner = compiler_gym.make(
        "llvm-v0", benchmark=crc32, observation_space="Autophase", reward_space="IrInstructionCount"
    )
    env = SynchronousSqliteLogger(inner, db_path=tmp_path / "one.db", log_ir=True)
    env.reset()
    reads = []
    observe = inner._observe
    monkeypatch.setattr(inner, "_observe", lambda spec: reads.append(spec.id) or observe(spec))
    # The env's default observation, alone.
    observation, reward, done, _ = env.step(flags[0])
    assert isinstance(observation, np.ndarray)
    np.testing.assert_array_equal(observation, expected[0][0])
    assert reward == pytest.approx(expected[0][1][0]) and not done
    # The caller's spaces, as a list of its own.
    observation, reward, _, _ = env.step(
        flags[1], observation_spaces=["IrInstructionCount"], reward_spaces=["IrInstructionCount"]
    )
    assert observation == [plain_count(crc32, flags[:2])]
    assert reward == [pytest.approx(expected[1][1][0])]
    # No default observation: None.
    inner.observation_space = None
    assert env.step(flags[2])[0] is None
    assert reads == []
    env.close()
    db = tmp_path / "one.db"
    assert len(rows(db, "SELECT * FROM States")) == 4
    # Each state's observations, its IR included (-sroa changed nothing: 3 states).
    assert rows(db, "SELECT COUNT(DISTINCT state_id) FROM States") == [(3,)]
    assert rows(db, "SELECT COUNT(compressed_llvm_ir) FROM Observations") == [(3,)]


def plain_count(benchmark, flags):
    """The instruction count after ``flags`` on a plain env."""
    with compiler_gym.make("llvm-v0", benchmark=benchmark) as env:
        env.reset()
        env.multistep(flags)
        return env.observation["IrInstructionCount"]


def test_under_a_wrapper_that_converts_observations_the_log_reads_them_after(tmp_path):
    """A wrapper that converts observations would be given the logged spaces too: under one,
    the logger reads them after the step, and the caller's observation is converted as
    without the logger."""
    from compiler_gym.wrappers import ObservationWrapper

    class Length(ObservationWrapper):
        def convert_observation(self, observation):
            return len(observation)

    crc32 = "benchmark://builtin-v0/crc32"
    db = tmp_path / "wrapped.db"
    inner = compiler_gym.make("llvm-ic-v0", benchmark=crc32, observation_space="Autophase")
    env = SynchronousSqliteLogger(Length(inner), db_path=db)
    env.reset()
    observation, _, _, _ = env.step("-mem2reg")
    assert observation == 56
    env.close()
    with compiler_gym.make("llvm-v0", benchmark=crc32) as plain:
        plain.reset()
        plain.step(plain.action_space["-mem2reg"])
        state_id = plain.observation["IrSha1"]
    assert state_id in {s for (s,) in rows(db, "SELECT state_id FROM States")}


def test_a_logger_over_an_env_already_in_an_episode_starts_from_its_state(tmp_path):
    db = tmp_path / "mid.db"
    inner = compiler_gym.make("llvm-ic-v0", benchmark="benchmark://builtin-v0/crc32")
    inner.reset()
    mem2reg, gvn = inner.action_space["-mem2reg"], inner.action_space["-gvn"]
    inner.step(mem2reg)
    env = SynchronousSqliteLogger(inner, db_path=db)
    assert env.step([]) is not None  # no actions: the env's answer, nothing logged
    env.step(gvn)
    env.close()
    assert sorted(r[0] for r in rows(db, "SELECT actions FROM States")) == [
        f"{mem2reg}",
        f"{mem2reg} {gvn}",
    ]
    assert [r[1] for r in rows(db, "SELECT * FROM StateTransitions")] == [gvn]


def test_a_fork_logs_its_own_actions_and_leaves_the_writer_open(tmp_path):
    db = tmp_path / "fork.db"
    env = SynchronousSqliteLogger(compiler_gym.make("llvm-ic-v0"), db_path=db)
    env.reset(benchmark="benchmark://builtin-v0/crc32")
    space = env.action_space
    env.step(space["-mem2reg"])
    fork = env.fork()
    fork.step(space["-gvn"])
    fork.close()  # the original's writer stays open
    env.step(space["-sroa"])
    env.close()
    with sqlite3.connect(db) as connection:
        actions = {row[0] for row in connection.execute("SELECT actions FROM States")}
    mem2reg, gvn, sroa = space["-mem2reg"], space["-gvn"], space["-sroa"]
    assert actions == {"", f"{mem2reg}", f"{mem2reg} {gvn}", f"{mem2reg} {sroa}"}


def test_many_envs_share_one_writer(tmp_path):
    db = tmp_path / "shared.db"
    benchmarks = ["crc32", "qsort", "sha256", "adpcm", "bitcount", "dijkstra"]
    errors = []
    with SqliteWriter(db, max_step_buffer_length=4) as writer:

        def run(name):
            try:
                env = SynchronousSqliteLogger(
                    compiler_gym.make("llvm-ic-v0", benchmark=f"builtin-v0/{name}"), writer=writer
                )
                env.reset()
                for action in range(10):
                    env.step(action)
                env.close()
            except Exception as e:  # collected: a thread's exception would be lost
                errors.append(e)

        threads = [threading.Thread(target=run, args=(b,)) for b in benchmarks]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors
    assert rows(db, "SELECT COUNT(*) FROM States") == [(len(benchmarks) * 11,)]
    uris = rows(db, "SELECT DISTINCT benchmark_uri FROM States")
    assert sorted(u for (u,) in uris) == sorted(f"benchmark://builtin-v0/{b}" for b in benchmarks)


def test_a_killed_writer_leaves_a_readable_database(tmp_path):
    db = tmp_path / "killed.db"
    script = f"""
import os, signal, compiler_gym
from compiler_gym.wrappers import SynchronousSqliteLogger
env = SynchronousSqliteLogger(
    compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/crc32"),
    db_path={str(db)!r}, max_step_buffer_length=10)
env.reset()
for action in range(25):
    env.step(action)
os.kill(os.getpid(), signal.SIGKILL)
"""
    result = subprocess.run([sys.executable, "-c", script], timeout=300)
    assert result.returncode == -9
    assert rows(db, "PRAGMA integrity_check") == [("ok",)]
    # Committed batches survive (each holds 10 rows of the three tables); the last, unflushed
    # rows are lost: fewer than 26 states, more than none.
    (states,) = rows(db, "SELECT COUNT(*) FROM States")[0]
    assert 0 < states < 26
    assert os.path.getsize(db) > 0


# --- make_logged_vec: every row of a vector env through one writer ---------------------------

VEC_URIS = ["benchmark://builtin-v0/crc32", "benchmark://builtin-v0/qsort"]


def table(db, name):
    """A table's rows, sorted, rewards rounded so that two runs compare exactly."""
    out = []
    for row in rows(db, f"SELECT * FROM {name}"):
        out.append(tuple(round(v, 9) if isinstance(v, float) else v for v in row))
    return sorted(out, key=repr)


def test_vec_rows_log_what_single_loggers_log(tmp_path):
    flags = [["-mem2reg", "-gvn", "-simplifycfg"], ["-sroa", "-instcombine", "-mem2reg"]]
    flags += [["-gvn", "-mem2reg", "-dce"], ["-simplifycfg", "-sroa", "-adce"]]
    vec_db = tmp_path / "vec.db"
    vec = make_logged_vec(
        "llvm-ic-v0",
        4,
        db_path=vec_db,
        benchmarks=VEC_URIS,
        observation_space="Autophase",
        num_threads=2,
    )
    obs, _ = vec.reset()
    assert tuple(obs.shape) == (4, 56)  # the caller's space only, not the logging ones
    actions = np.array([[vec.single_action_space[f] for f in row] for row in flags])
    vec_rewards = []
    for k in range(3):
        obs, rewards, terminated, truncated, info = vec.step(actions[:, k])
        assert tuple(obs.shape) == (4, 56) and not terminated.any() and not truncated.any()
        vec_rewards.append(rewards.tolist())
    vec.close()
    single_db = tmp_path / "single.db"
    with SqliteWriter(single_db) as writer:
        for i, row in enumerate(flags):
            env = SynchronousSqliteLogger(
                compiler_gym.make("llvm-ic-v0", benchmark=VEC_URIS[i % 2]), writer=writer
            )
            env.reset()
            for k, flag in enumerate(row):
                _, reward, _, _ = env.step(flag)
                assert reward == pytest.approx(vec_rewards[k][i])
            env.close()
    for name in ("States", "Observations", "StateTransitions"):
        assert table(vec_db, name) == table(single_db, name), name
    # 2 benchmarks' start states + 4 rows x 3 actions, each a transition of its own; two rows
    # share each start state.
    assert len(table(vec_db, "States")) == 2 + 12
    assert len(table(vec_db, "StateTransitions")) == 12
    assert rows(vec_db, "SELECT COUNT(DISTINCT initial_state_id) FROM StateTransitions") == [(10,)]


def test_vec_truncation_and_both_autoreset_modes(tmp_path):
    with compiler_gym.make("llvm-ic-v0", benchmark=VEC_URIS[0]) as plain:
        m, g = plain.action_space["-mem2reg"], plain.action_space["-gvn"]

        def state_id(actions):
            plain.reset()
            plain.multistep(actions)
            return plain.observation["IrSha1"]

        def run(autoreset):
            db = tmp_path / f"{autoreset}.db"
            vec = make_logged_vec(
                "llvm-ic-v0",
                1,
                db_path=db,
                benchmarks=VEC_URIS[:1],
                max_episode_steps=2,
                autoreset=autoreset,
                observation_space="IrInstructionCount",
            )
            vec.reset()
            truncated = []
            for action in [m, g, g, m, g, g]:
                _, _, _, t, _ = vec.step([action])
                truncated.append(bool(t[0]))
            vec.close()
            states = dict(rows(db, "SELECT actions, done FROM States"))
            transitions = rows(db, "SELECT * FROM StateTransitions")
            return truncated, states, {(a, b): c for a, b, c, _ in transitions}

        def expected_transitions(episodes):
            out = {}
            for actions in episodes:
                for k in range(1, len(actions) + 1):
                    out[(state_id(actions[: k - 1]), actions[k - 1])] = state_id(actions[:k])
            return out

        # next_step: a truncated row is reset by its next step, whose action is ignored.
        truncated, states, transitions = run("next_step")
        assert truncated == [False, True, False, False, True, False]
        assert states == {"": 0, f"{m}": 0, f"{m} {g}": 1}
        assert transitions == expected_transitions([[m, g], [m, g]])
        # same_step: the truncated state comes from the final observations, and the row starts
        # its next episode in the same step.
        truncated, states, transitions = run("same_step")
        assert truncated == [False, True, False, True, False, True]
        assert states == {"": 0, f"{m}": 0, f"{m} {g}": 1, f"{g}": 0, f"{g} {m}": 1, f"{g} {g}": 1}
        assert transitions == expected_transitions([[m, g], [g, m], [g, g]])


def test_vec_error_rows_log_nothing(tmp_path):
    broken = tmp_path / "broken.ll"
    broken.write_text("this is not IR\n")
    db = tmp_path / "errors.db"
    vec = make_logged_vec("llvm-ic-v0", 2, db_path=db, benchmarks=[VEC_URIS[0], f"file://{broken}"])
    _, info = vec.reset()
    assert info["error_type"].tolist() == ["", "BENCHMARK_INIT"]
    vec.step([vec.single_action_space["-mem2reg"]] * 2)
    vec.close()
    uris = rows(db, "SELECT DISTINCT benchmark_uri FROM States")
    assert uris == [(VEC_URIS[0],)]
    assert rows(db, "SELECT COUNT(*) FROM StateTransitions") == [(1,)]


def test_vec_refuses_what_it_cannot_log(tmp_path):
    db = tmp_path / "refused.db"
    with pytest.raises(ValueError, match="random_benchmarks"):
        make_logged_vec("llvm-ic-v0", 2, db_path=db, benchmarks=VEC_URIS, random_benchmarks=True)
    with pytest.raises(ValueError, match="actions_per_step"):
        make_logged_vec("llvm-ic-v0", 2, db_path=db, actions_per_step=2)
    with pytest.raises(ValueError, match="reward"):
        make_logged_vec("llvm-v0", 2, db_path=db, reward_space=None)
    with pytest.raises(TypeError, match="db_path and writer"):
        make_logged_vec("llvm-ic-v0", 2)


def test_many_vec_writers_share_one_writer(tmp_path):
    """Two vector envs (one stepped synchronously, one with send/recv) and a single env, in
    three threads, through one writer that commits every few rows."""
    db = tmp_path / "many.db"
    errors = []
    steps = 6
    with SqliteWriter(db, max_step_buffer_length=3) as writer:

        def sync_vec():
            vec = make_logged_vec(
                "llvm-ic-v0", 4, writer=writer, benchmarks=VEC_URIS, num_threads=1
            )
            vec.reset()
            for k in range(steps):
                vec.step(np.array([k, k + 10, k + 20, k + 30]))
            vec.close()

        def async_vec():
            uris = ["benchmark://builtin-v0/sha256", "benchmark://builtin-v0/adpcm"]
            vec = make_logged_vec(
                "llvm-ic-v0", 4, writer=writer, benchmarks=uris, batch_size=2, num_threads=1
            )
            vec.reset()
            for k in range(steps):
                vec.send(np.array([k + 40, k + 50, k + 60, k + 70]))
                seen = []
                for _ in range(2):
                    seen += vec.recv(timeout=120)[4]["env_id"].tolist()
                assert sorted(seen) == [0, 1, 2, 3]
            vec.close()

        def single():
            env = SynchronousSqliteLogger(
                compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/bitcount"), writer=writer
            )
            env.reset()
            env.multistep(range(80, 80 + steps))
            env.close()

        def guarded(job):
            try:
                job()
            except Exception as e:  # collected: a thread's exception would be lost
                errors.append(e)

        threads = [
            threading.Thread(target=guarded, args=(j,)) for j in (sync_vec, async_vec, single)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors
    assert rows(db, "PRAGMA integrity_check") == [("ok",)]
    # A state per (benchmark, action sequence): per benchmark of a vector env, its start state
    # and each step of its two rows.
    assert rows(db, "SELECT COUNT(*) FROM States") == [(4 * (1 + 2 * steps) + 1 + steps,)]
    per_uri = dict(rows(db, "SELECT benchmark_uri, COUNT(*) FROM States GROUP BY benchmark_uri"))
    assert per_uri == {
        "benchmark://builtin-v0/crc32": 2 * steps + 1,
        "benchmark://builtin-v0/qsort": 2 * steps + 1,
        "benchmark://builtin-v0/sha256": 2 * steps + 1,
        "benchmark://builtin-v0/adpcm": 2 * steps + 1,
        "benchmark://builtin-v0/bitcount": steps + 1,
    }
    dangling = "SELECT COUNT(*) FROM StateTransitions WHERE end_state_id NOT IN "
    assert rows(db, dangling + "(SELECT state_id FROM States)") == [(0,)]


def test_a_killed_vec_writer_leaves_a_readable_database(tmp_path):
    db = tmp_path / "killed_vec.db"
    script = f"""
import os, signal
import numpy as np
from compiler_gym.wrappers import make_logged_vec
vec = make_logged_vec("llvm-ic-v0", 4, db_path={str(db)!r}, max_step_buffer_length=10,
                      benchmarks={VEC_URIS!r}, num_threads=1)
vec.reset()
for k in range(12):
    vec.step(np.array([k, k + 10, k + 20, k + 30]))
os.kill(os.getpid(), signal.SIGKILL)
"""
    result = subprocess.run([sys.executable, "-c", script], timeout=300)
    assert result.returncode == -9
    assert rows(db, "PRAGMA integrity_check") == [("ok",)]
    (states,) = rows(db, "SELECT COUNT(*) FROM States")[0]
    # Committed batches survive, the last unflushed one is lost: 2 start states + 48 steps
    # were logged, fewer are in the file, and some are.
    assert 0 < states < 2 + 48
    # A state is queued before the transitions that reach it: none dangles.
    dangling = "SELECT COUNT(*) FROM StateTransitions WHERE end_state_id NOT IN "
    assert rows(db, dangling + "(SELECT state_id FROM States)") == [(0,)]
