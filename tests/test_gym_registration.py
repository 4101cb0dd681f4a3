"""gym as well as Gymnasium (issue 52): with the old ``gym`` package installed, ``import
compiler_gym`` registers CompilerGym's ids with it, and ``gym.make`` returns an env that gym's
wrappers take, with the reset and step API of that gym release; Gymnasium also takes the bare
ids. Without gym nothing is imported.

gym is installed for these tests into a temporary folder (``pip install --target``), and each
check runs in a Python process of its own with that folder first on its path: gym 0.23.1 for
the API of gym 0.21 (``reset() -> observation``, 4-tuple ``step``; 0.21.0 itself no longer
builds with current setuptools) and gym 0.26.2 for the new one. Where pip cannot install gym
the tests skip and say why.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import gymnasium
import pytest

import compiler_gym
from compiler_gym.registration import env_class
from conftest import pip_install_into, run_python

PACKAGE_PARENT = Path(compiler_gym.__file__).resolve().parent.parent
OLD_API, NEW_API = "0.23.1", "0.26.2"


@pytest.fixture(scope="module")
def gym_folders(tmp_path_factory) -> dict[str, Path]:
    """version -> a folder holding that gym release (installed on first use)."""
    return {}


def install_gym(version: str, folders: dict[str, Path], tmp_path_factory) -> Path:
    """A folder with gym ``version`` in it, installed with pip; skips when pip cannot."""
    if version not in folders:
        target = tmp_path_factory.mktemp(f"gym-{version}")
        packages = [f"gym=={version}"]
        if importlib.util.find_spec("cloudpickle") is None:  # gym's one needed dependency
            packages.append("cloudpickle")
        pip_install_into(target, packages, f"gym=={version}")
        folders[version] = target
    return folders[version]


# Every id through gym.make, then one env through gym's wrappers and the step API, with the
# same steps on compiler_gym.make's env for the values to compare.
GYM_CHECKS = """
    import json
    import gym
    import compiler_gym
    from compiler_gym.service import ConnectionOpts

    new_api = tuple(map(int, gym.__version__.split(".")[:2])) >= (0, 26)
    result = {"version": gym.__version__, "ids": {}}
    for env_id in compiler_gym.COMPILER_GYM_ENVS:
        env = gym.make(env_id, connection_settings=ConnectionOpts())
        result["ids"][env_id] = [
            isinstance(env, gym.Env),
            isinstance(env, compiler_gym.CompilerEnv),
            type(env).__name__,
            env.spec.id,
        ]
        env.close()

    kwargs = dict(benchmark="builtin-v0/crc32", observation_space="Autophase",
                  reward_space="IrInstructionCount")
    with compiler_gym.make("llvm-v0", **kwargs) as direct:
        first = direct.reset()
        second, reward, _, _ = direct.step(direct.action_space["-mem2reg"])
        result["direct"] = [int(first.sum()), int(second.sum()), reward]

    class InstructionTotal(gym.ObservationWrapper):
        def observation(self, observation):
            return int(observation.sum())

    env = InstructionTotal(gym.make("llvm-v0", **kwargs))
    reset = env.reset(seed=7)
    stepped = env.step(env.action_space["-mem2reg"])
    result["reset"] = [type(reset).__name__, reset[0] if new_api else reset]
    result["step"] = [len(stepped), stepped[0], stepped[1]]
    result["info"] = reset[1] if new_api else env.reset(return_info=True)[1]
    result["fork"] = type(env.unwrapped.fork()).__name__
    env.close()

    env = gym.wrappers.TimeLimit(gym.make("llvm-ic-v0", benchmark="builtin-v0/crc32"), 2)
    env.reset()
    result["time_limit"] = [list(env.step(0)[2:-1]), list(env.step(0)[2:-1])]
    env.close()

    env = gym.make("llvm-ic-v0")
    samples = []
    for _ in range(2):
        env.reset(seed=3)
        samples.append([int(env.action_space.sample()) for _ in range(5)])
    result["samples"] = samples
    env.close()
    print(json.dumps(result))
"""


@pytest.fixture(scope="module")
def gym_results(gym_folders, tmp_path_factory) -> dict[str, dict]:
    """version -> what GYM_CHECKS found with that gym release (run on first use)."""
    results: dict[str, dict] = {}

    def get(version: str) -> dict:
        if version not in results:
            folder = install_gym(version, gym_folders, tmp_path_factory)
            results[version] = run_python(GYM_CHECKS, tmp_path_factory.mktemp("run"), folder)
        return results[version]

    return get


@pytest.mark.parametrize("version", [OLD_API, NEW_API])
def test_gym_make_of_every_id_is_a_gym_env_and_a_compiler_env(gym_results, version):
    result = gym_results(version)
    assert result["version"] == version
    expected = {
        env_id: [True, True, f"Gym{env_class(env_id).__name__}", env_id]
        for env_id in compiler_gym.COMPILER_GYM_ENVS
    }
    assert result["ids"] == expected
    assert result["ids"]["llvm-v0"][2] == "GymLlvmEnv"


def test_gym_0_21_api_observation_wrapper_and_time_limit(gym_results):
    result = gym_results(OLD_API)
    first, second, reward = result["direct"]
    # reset() -> the observation, step -> (observation, reward, done, info), both through
    # a gym.ObservationWrapper subclass around the env gym.make returned.
    assert result["reset"] == ["int", first]
    assert result["step"] == [4, second, reward]
    assert result["info"] == {"benchmark": "benchmark://builtin-v0/crc32"}
    assert result["fork"] == "GymLlvmEnv"
    # gym's TimeLimit: done at the second step.
    assert result["time_limit"] == [[False], [True]]
    assert result["samples"][0] == result["samples"][1]


def test_gym_0_26_api_observation_wrapper_and_time_limit(gym_results):
    result = gym_results(NEW_API)
    first, second, reward = result["direct"]
    # reset() -> (observation, info), step -> (observation, reward, terminated, truncated,
    # info), through a gym.ObservationWrapper.
    assert result["reset"] == ["tuple", first]
    assert result["step"] == [5, second, reward]
    assert result["info"] == {"benchmark": "benchmark://builtin-v0/crc32"}
    assert result["fork"] == "GymLlvmEnv"
    # gym's TimeLimit: (terminated, truncated) is (False, True) at the second step.
    assert result["time_limit"] == [[False, False], [False, True]]
    assert result["samples"][0] == result["samples"][1]


def test_without_gym_nothing_is_imported_or_registered(tmp_path):
    if importlib.util.find_spec("gym") is not None:
        pytest.skip("gym is installed here: this test needs a Python without it")
    # find_spec("gym") is None where sys.modules["gym"] is None, as where gym is absent; a
    # folder named gym on the path (a namespace package, not gym) is not gym either.
    (tmp_path / "gym").mkdir()
    result = run_python(
        """
        import json, sys, warnings
        sys.modules["gym"] = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import compiler_gym
            registered = compiler_gym.gym_env.register_all()
            del sys.modules["gym"]
            registered_with_folder = compiler_gym.gym_env.register_all()
        print(json.dumps([registered, registered_with_folder, "gym" in sys.modules,
                          "torch" in sys.modules, [str(w.message) for w in caught]]))
        """,
        cwd=tmp_path,
    )
    assert result == [False, False, False, False, []]


def test_an_installed_gym_that_fails_to_import_is_a_warning(tmp_path):
    (tmp_path / "gym").mkdir()
    (tmp_path / "gym" / "__init__.py").write_text("raise ImportError('simulated broken gym')\n")
    result = run_python(
        """
        import json, warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import compiler_gym
        with compiler_gym.make("llvm-ic-v0") as env:
            env.reset()
        print(json.dumps([(w.category.__name__, str(w.message)) for w in caught]))
        """,
        cwd=tmp_path,
        first_on_path=tmp_path,
    )
    assert len(result) == 1
    category, message = result[0]
    assert category == "RuntimeWarning"
    assert f"gym is installed at {tmp_path / 'gym' / '__init__.py'}" in message
    assert "ImportError: simulated broken gym" in message
    assert "pip install 'compiler_gym[gym]'" in message


def test_gymnasium_takes_the_bare_ids_too():
    for env_id in compiler_gym.COMPILER_GYM_ENVS:
        assert gymnasium.spec(env_id).kwargs == {"env_id": env_id}
    env = gymnasium.make("llvm-autophase-ic-v0")
    observation, info = env.reset(options={"benchmark": "benchmark://builtin-v0/crc32"})
    with compiler_gym.make("llvm-autophase-ic-v0", benchmark="builtin-v0/crc32") as direct:
        assert observation.tolist() == direct.reset().tolist()
    assert info == {"benchmark": "benchmark://builtin-v0/crc32"}
    env.close()


def test_a_bare_id_another_package_registered_first_stays_theirs(tmp_path):
    result = run_python(
        """
        import json
        import gymnasium
        gymnasium.register(id="llvm-v0", entry_point="somewhere_else:Env")
        import compiler_gym
        print(json.dumps([gymnasium.spec("llvm-v0").entry_point,
                          gymnasium.spec("compiler_gym/llvm-v0").kwargs,
                          gymnasium.spec("llvm-ic-v0").kwargs]))
        """,
        cwd=tmp_path,
    )
    assert result == ["somewhere_else:Env", {"env_id": "llvm-v0"}, {"env_id": "llvm-ic-v0"}]
