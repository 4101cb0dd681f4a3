"""Ray is optional: nothing imports it until asked to, and without it the Ray options say how
to install it while everything else works. Runs with or without Ray installed (Python
processes in which ``import ray`` fails stand for a machine without it)."""

from __future__ import annotations

import subprocess
import sys

# Makes `import ray` fail in the child, as on a machine without Ray.
WITHOUT_RAY = "import sys; sys.modules['ray'] = None\n"


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )


def test_no_module_imports_ray_until_it_is_used():
    result = _python(
        "import sys\n"
        "import compiler_gym, compiler_gym.search, compiler_gym.search.distributed\n"
        "import compiler_gym.wrappers.rllib, compiler_gym.bin.search\n"
        "assert 'ray' not in sys.modules, 'ray was imported'\n"
    )
    assert result.returncode == 0, result.stderr


def test_without_ray_the_ray_options_say_how_to_install_it_and_local_search_runs():
    result = _python(
        WITHOUT_RAY
        + "from compiler_gym.bin import search\n"
        + "argv = ['--benchmark', 'builtin-v0/crc32', '--search', 'random', '--episodes', '4']\n"
        + "assert search.main([*argv, '--ray-address', 'auto']) == 2\n"
        + "assert search.main(argv) == 0\n"
        + "from compiler_gym.search import distributed\n"
        + "try:\n"
        + "    distributed.init('auto')\n"
        + "except ImportError as e:\n"
        + "    assert 'compiler_gym[ray]' in str(e), e\n"
        + "else:\n"
        + "    raise AssertionError('init() without Ray did not fail')\n"
        + "from compiler_gym.wrappers.rllib import CompilerRLlibVecEnv\n"
        + "env = CompilerRLlibVecEnv('llvm-autophase-ic-v0', 2, max_episode_steps=2)\n"
        + "env.reset(); env.step([0, 1]); env.close()\n"
    )
    assert result.returncode == 0, result.stderr
    assert "pip install 'compiler_gym[ray]'" in result.stderr
    assert "benchmark://builtin-v0/crc32" in result.stdout  # the local search's CSV
