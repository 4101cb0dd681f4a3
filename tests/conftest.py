"""Shared fixtures for the integration tests."""

import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

import compiler_gym

DATA = Path(__file__).parent / "data"


@pytest.fixture
def env():
    """llvm-v0 on the default benchmark, reset."""
    with compiler_gym.make("llvm-v0") as e:
        e.reset()
        yield e


@pytest.fixture(scope="session")
def opt19():
    path = shutil.which("opt-19")
    if path is None:
        pytest.skip("opt-19 is not installed")
    return path


# Test builds' hook (CG_BUILD_TESTS): the next action of an LLVM env runs this pipeline instead.
NEXT_STEP_PIPELINE = "testing.next_step_pipeline"


def step_pipeline_for_testing(env, pipeline: str) -> tuple[bool, str]:
    """Runs ``pipeline`` (an LLVM pipeline, or a test pass such as
    ``compiler-gym-test-segfault``) as the next step of ``env``, through the test builds' hook,
    so that it reaches a worker process too. Returns (done, error details)."""
    engine = env.unwrapped._env
    engine.set_parameter(NEXT_STEP_PIPELINE, pipeline)
    _, _, done, _, _, details, *_ = engine.step([0], [], [])
    return done, details


def planted_llvm_env(action: int, pipeline: str) -> type:
    """An LlvmEnv class whose step of ``action`` runs ``pipeline`` through the test builds'
    hook (a test pass: a miscompile, a fatal error), one action at a time, so that searches
    and the miscompile hunt meet a planted bug where they would meet a real one."""
    from compiler_gym.envs.llvm_env import LlvmEnv

    class Planted(LlvmEnv):
        def multistep(self, actions, *rest, **kwargs):
            actions = list(actions)
            if action not in actions:
                return super().multistep(actions, *rest, **kwargs)
            for a in actions:
                if a == action:
                    self._env.set_parameter(NEXT_STEP_PIPELINE, pipeline)
                result = super().multistep([a], *rest, **kwargs)
                if result[2]:  # the episode ended
                    break
            return result

    return Planted


def fixture_uri(name: str) -> str:
    return f"file://{DATA / name}"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def http_dir(tmp_path):
    """A directory served over HTTP on loopback: yields (directory, base URL)."""
    served = tmp_path / "www"
    served.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(served))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield served, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def two_small_graphs() -> tuple[dict, dict]:
    """Two small ProGraML graphs in the engine's layout (the GNN tests' fixed input), the
    second with a text id past the vocabulary (unknown)."""
    a = {
        "node_text_id": [0, 3, 5, 10],
        "node_type": [0, 0, 1, 2],
        "edge_source": [0, 1, 3, 2, 0, 1],
        "edge_target": [1, 2, 1, 0, 1, 3],
        "edge_flow": [0, 0, 1, 1, 2, 1],
    }
    b = {
        "node_text_id": [1, 2, 200],
        "node_type": [0, 1, 0],
        "edge_source": [0, 1, 1],
        "edge_target": [2, 2, 0],
        "edge_flow": [0, 1, 1],
    }
    return a, b


def run_python(code: str, cwd, first_on_path=None) -> dict:
    """Runs ``code`` in a fresh Python process (this test's compiler_gym, and
    ``first_on_path`` before it) and returns the JSON object of its last output line."""
    package_parent = Path(compiler_gym.__file__).resolve().parent.parent
    path = [str(p) for p in (first_on_path, package_parent) if p is not None]
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(path + [environment.get("PYTHONPATH", "")])
    process = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert process.returncode == 0, process.stderr[-4000:]
    return json.loads(process.stdout.strip().splitlines()[-1])


def dense_gnn_embedding(policy, graphs):
    """A GNN policy's graph embeddings by the definition, with dense adjacency matrices: each
    layer adds relu(W [h, mean over successors, mean over predecessors, per flow]) and
    normalizes; a graph is the mean and max of its nodes and log(1 + nodes) / 10 (an empty
    one zeros)."""
    import torch

    n = graphs.num_nodes
    h = policy.text(graphs.x.clamp(max=policy.vocabulary)) + policy.node_type(graphs.node_type)
    adjacency = []
    for row_ptr, col in graphs.csr:
        a = torch.zeros(n, n)
        rows = torch.repeat_interleave(torch.arange(n), row_ptr[1:] - row_ptr[:-1])
        a.index_put_((rows, col), torch.ones(col.numel()), accumulate=True)
        adjacency += [a, a.t()]
    for conv in policy.convs:
        means = [a @ h / a.sum(1, keepdim=True).clamp(min=1) for a in adjacency]
        h = conv.norm(h + torch.relu(conv.linear(torch.cat([h, *means], dim=1))))
    pooled = []
    for g in range(graphs.num_graphs):
        nodes = h[graphs.ptr[g] : graphs.ptr[g + 1]]
        if len(nodes) == 0:
            pooled.append(torch.zeros(2 * h.shape[1] + 1))
            continue
        size = torch.log1p(torch.tensor([float(len(nodes))])) / 10
        pooled.append(torch.cat([nodes.mean(0), nodes.amax(0), size]))
    return torch.stack(pooled)


def pip_install_into(target, packages, what: str):
    """Installs ``packages`` (no dependencies) into the folder ``target`` with pip, for a test's
    subprocess only; skips the test, saying why, when pip cannot (no index reachable)."""
    process = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps"]
        + ["--disable-pip-version-check", "--target", str(target), *packages],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if process.returncode != 0:
        reason = (process.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"pip could not install {what}: {reason}")
    return target


def record_recv(trainer, num_envs: int, on_call=None):
    """Wraps ``trainer.vec.recv`` to record what the engine says of each env's transitions as
    they arrive: returns ``(batches, episode, elapsed)``, the env ids of each recv, and per env
    the episode index and the step's number in it (the ended episode's, when it ended).
    ``on_call()`` runs at each call (a thread check, say)."""
    import numpy as np

    batches, episode, elapsed = (
        [],
        {e: [] for e in range(num_envs)},
        {e: [] for e in range(num_envs)},
    )
    recv = trainer.vec.recv

    def recording_recv(*args, **kwargs):
        if on_call is not None:
            on_call()
        out = recv(*args, **kwargs)
        info = out[4]
        batches.append(info["env_id"].tolist())
        ended = np.asarray(out[2] | out[3], bool)
        final = info.get("final_info", info)
        for i, env in enumerate(info["env_id"].tolist()):
            source = final if ended[i] else info
            episode[env].append(int(source["episode_index"][i]))
            elapsed[env].append(int(source["elapsed_steps"][i]))
        return out

    trainer.vec.recv = recording_recv
    return batches, episode, elapsed
