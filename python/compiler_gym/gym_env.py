"""The old ``gym`` package's face (gym 0.21 to 0.26): CompilerGym's ids registered with gym
when it is installed, so that a CompilerGym script's ``gym.make("llvm-v0", ...)`` runs.

``gym.make(id, **kwargs)`` returns the family's env (an ``LlvmEnv`` for ``llvm-v0``, made as
``compiler_gym.make(id, **kwargs)`` makes it) in a subclass that is also a ``gym.Env``, so gym's
wrappers take it and the whole CompilerGym API (``env.observation["Ir"]``, ``env.benchmark =
...``, ``fork()``, ``compiler_gym.wrappers``) works on it. Its ``reset`` and ``step`` follow
the installed gym's API:

- before gym 0.26, CompilerGym's: ``reset()`` returns the observation (``(observation, info)``
  with gym 0.22's ``return_info=True``), ``step`` a 4-tuple ``(observation, reward, done,
  info)``;
- from gym 0.26, gym's new API: ``reset()`` returns ``(observation, info)``, ``step`` a 5-tuple
  ``(observation, reward, terminated, truncated, info)``.

Both take gym's ``seed`` and ``options`` (``options={"benchmark": uri}``, as the Gymnasium face)
as well as CompilerGym's ``reset`` arguments; ``multistep`` and every other method keep
CompilerGym's API. Observations and rewards are CompilerGym's, so an id without a default
space (``llvm-v0``) observes and rewards None until it is given one, as in CompilerGym.

gym is optional (the ``gym`` extra): nothing imports it unless :func:`register_all` finds it
installed, and an installed gym that fails to import is a warning, not an error of
``import compiler_gym``.
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import re
import warnings
from types import ModuleType
from typing import Any, Optional

from compiler_gym.envs.compiler_env import CompilerEnv
from compiler_gym.registration import env_class, env_ids, without_service_arguments

NEW_API_VERSION = (0, 26)
"""The first gym release whose ``reset`` returns ``(observation, info)`` and whose ``step``
returns 5 values."""


def gym_version(gym: ModuleType) -> tuple[int, int]:
    """(major, minor) of a gym module's ``__version__``."""
    match = re.match(r"(\d+)\.(\d+)", getattr(gym, "__version__", ""))
    if match is None:
        raise ValueError(f"gym's version {getattr(gym, '__version__', None)!r} is not X.Y...")
    return int(match[1]), int(match[2])


class _GymFace:
    """What both APIs add to a family's env to make it a gym env: gym's ``spec`` (which
    ``gym.make`` sets), ``render_mode`` and ``np_random`` seeding."""

    _gym: ModuleType  # the gym module the class was made for
    render_mode: Optional[str] = None

    @property
    def spec(self) -> Any:
        """The gym ``EnvSpec`` that ``gym.make`` made this env from (its id's, otherwise)."""
        return self.__dict__.get("_gym_spec") or self._gym.spec(self.env_id)

    @spec.setter
    def spec(self, spec: Any) -> None:
        self._gym_spec = spec

    def _seed_gym(self, seed: Optional[int]) -> None:
        """gym's ``reset(seed=...)``: seeds ``np_random`` with the installed gym's seeding,
        and the action and observation spaces (``CompilerEnv.seed``)."""
        if seed is not None:
            self.np_random, _ = self._gym.utils.seeding.np_random(seed)
            self.seed(seed)

    def _reset_info(self) -> dict[str, Any]:
        return {"benchmark": str(self.benchmark.uri)}


class _OldApi(_GymFace):
    """gym before 0.26: ``reset`` returns the observation, ``step`` is CompilerGym's."""

    def reset(
        self,
        *args: Any,
        seed: Optional[int] = None,
        return_info: bool = False,
        options: Optional[dict[str, Any]] = None,
        **kwargs: Any,
    ) -> Any:
        """CompilerGym's ``reset`` (the observation), with gym's ``seed``, ``options`` (which
        hold ``reset``'s keyword arguments) and ``return_info`` (then ``(observation,
        info)``)."""
        self._seed_gym(seed)
        observation = super().reset(*args, **{**(options or {}), **kwargs})
        return (observation, self._reset_info()) if return_info else observation


class _NewApi(_GymFace):
    """gym 0.26: ``reset`` returns ``(observation, info)``, ``step`` 5 values."""

    def reset(
        self,
        *args: Any,
        seed: Optional[int] = None,
        options: Optional[dict[str, Any]] = None,
        **kwargs: Any,
    ) -> tuple[Any, dict[str, Any]]:
        """``(observation, info)``: gym 0.26's ``reset``; ``options`` hold CompilerGym's
        ``reset`` arguments (``{"benchmark": uri}``), which are also taken by keyword."""
        self._seed_gym(seed)
        observation = super().reset(*args, **{**(options or {}), **kwargs})
        return observation, self._reset_info()

    def step(self, action: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any, bool, bool, dict]:
        """``(observation, reward, terminated, truncated, info)``: CompilerGym's step, whose
        ``done`` is ``terminated`` unless a time limit cut the episode."""
        observation, reward, done, info = super().step(action, *args, **kwargs)
        truncated = bool(info.get("TimeLimit.truncated", False))
        return observation, reward, bool(done) and not truncated, truncated, info

    def render(self, mode: Optional[str] = None) -> Optional[str]:
        """CompilerGym's ``render``, in ``mode`` or else the ``render_mode`` given to
        ``gym.make`` (default ``"human"``)."""
        return super().render(mode or self.render_mode or "human")


@functools.cache
def gym_env_class(family: type[CompilerEnv], gym: ModuleType) -> type[CompilerEnv]:
    """The subclass of a family's env class that is also a ``gym.Env``, with the reset and
    step API of ``gym``'s version (made once per family and gym module)."""
    face = _NewApi if gym_version(gym) >= NEW_API_VERSION else _OldApi
    name = f"Gym{family.__name__}"
    cls = type(name, (face, family, gym.Env), {"_gym": gym, "__module__": __name__})
    cls.__qualname__ = name
    cls.__doc__ = f"{family.__name__} as a gym {gym.__version__} env ({face.__doc__})"
    return cls


def make_gym_env(env_id: str, render_mode: Optional[str] = None, **kwargs: Any) -> CompilerEnv:
    """``gym.make(env_id, **kwargs)``'s entry point: the env ``compiler_gym.make(env_id,
    **kwargs)`` makes, as an instance of :func:`gym_env_class`."""
    import gym

    cls = gym_env_class(env_class(env_id), gym)
    if render_mode is not None and render_mode not in cls.metadata["render_modes"]:
        raise ValueError(
            f"render_mode must be one of {cls.metadata['render_modes']}, not {render_mode!r}"
        )
    env = cls(env_id, **without_service_arguments(kwargs))
    env.render_mode = render_mode
    return env


def register_with(gym: ModuleType) -> list[str]:
    """Registers every engine id with ``gym`` under its bare name (``llvm-v0``), as
    CompilerGym did, skipping ids already registered (by an earlier call, or another
    package); returns the ids it registered."""
    registration = gym.envs.registration
    # gym before 0.26 keeps its specs in registry.env_specs; 0.26's registry is the dict.
    registered = getattr(registration.registry, "env_specs", registration.registry)
    fields = inspect.signature(registration.EnvSpec).parameters
    # The env checks the order of calls itself (SessionNotFound), and gym's checker wants
    # gym's own spaces, where these are Gymnasium's (a spec field from gym 0.25; gym 0.24
    # takes it only as gym.make's argument).
    options = {"order_enforce": False, "disable_env_checker": True}
    options = {key: value for key, value in options.items() if key in fields}
    added = []
    for env_id in env_ids():
        if env_id in registered:
            continue
        registration.register(
            id=env_id, entry_point=make_gym_env, kwargs={"env_id": env_id}, **options
        )
        added.append(env_id)
    return added


def register_all() -> bool:
    """Registers every id with gym when gym is installed (see :func:`register_with`); returns
    whether it did. Without gym it imports nothing; a gym that is installed but fails to
    import or register gives a ``RuntimeWarning`` that says why, and no ids."""
    spec = importlib.util.find_spec("gym")
    # A folder named gym on sys.path is a namespace package, not the gym package.
    if spec is None or spec.origin is None:
        return False
    try:
        import gym

        register_with(gym)
    except Exception as error:  # noqa: BLE001 - an optional package must not break the import
        warnings.warn(
            f"gym is installed at {spec.origin} but compiler_gym could not register its ids "
            f"with it ({type(error).__name__}: {error}); gym.make('llvm-v0') will not find "
            "them. compiler_gym.make() and Gymnasium (compiler_gym/<id>) are unaffected; "
            "install a gym release from 0.21 to 0.26 (pip install 'compiler_gym[gym]') or "
            "uninstall gym to silence this.",
            RuntimeWarning,
            stacklevel=2,
        )
        return False
    return True
