"""The state-transition database: tables after a known episode, many writers, a killed writer."""

import json
import os
import sqlite3
import subprocess
import sys
import threading

import pytest

import compiler_gym
from compiler_gym.wrappers import SqliteWriter, SynchronousSqliteLogger


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
