"""compiler_gym.spaces and compiler_gym.views as CompilerGym's own tests use them (its
tests/spaces, tests/views and tests/llvm/action_space_test.py): each test here is one
incompatibility that suite found."""

import copy

import numpy as np
import pytest

import compiler_gym
from compiler_gym.spaces import (
    ActionSpace,
    Box,
    Commandline,
    CommandlineFlag,
    Discrete,
    NamedDiscrete,
    Permutation,
    Scalar,
    Sequence,
    Tuple,
    UnknownName,
)
from compiler_gym.views import RewardView


class Recording:
    """A space that is no gymnasium space: it counts the calls an ActionSpace forwards."""

    name = "recording"
    colour = "blue"

    def __init__(self):
        self.calls = []

    def sample(self):
        self.calls.append("sample")
        return 7

    def seed(self, seed):
        self.calls.append(("seed", seed))
        return [seed]

    def contains(self, x):
        self.calls.append(("contains", x))
        return x == 7

    def __getitem__(self, name):
        return f"item {name}"

    def __repr__(self):
        return self.name


def test_action_space_forwards_to_the_space_it_wraps():
    inner = Recording()
    space = ActionSpace(inner)
    assert space.wrapped is inner and space.name == "recording" and space.colour == "blue"
    assert space.sample() == 7 and space.seed(3) == [3]
    assert 7 in space and space.contains(8) is False
    assert inner.calls == ["sample", ("seed", 3), ("contains", 7), ("contains", 8)]
    assert space["x"] == "item x"
    with pytest.raises(AttributeError):
        _ = space.no_such_attribute
    assert space == inner and space == ActionSpace(inner)
    assert space != Recording() and not (space != inner)
    assert repr(space) == "ActionSpace(recording)"


def test_action_space_strings_are_the_wrapped_spaces_or_comma_separated():
    plain = ActionSpace(Discrete(3, name="a"))
    assert plain.to_string([0, 1, 0]) == "0,1,0"
    assert plain.from_string("0,1,0") == [0, 1, 0]
    assert all(isinstance(v, np.int64) for v in plain.from_string("2,1"))
    named = ActionSpace(NamedDiscrete(["a", "b", "c"], name="n"))
    assert named.to_string([0, 1, 2, 0]) == "a b c a"
    assert named.from_string("a b c a") == [0, 1, 2, 0]
    # Copies copy the wrapper, not only the space it wraps (dunders are never forwarded).
    copied = copy.deepcopy(plain)
    assert (
        isinstance(copied, ActionSpace) and copied == plain and copied.wrapped is not plain.wrapped
    )
    assert plain.n == 3 and plain.shape == () and plain.is_np_flattenable
    assert plain.np_random is plain.wrapped.np_random


def test_commandline_is_made_from_flag_rows_as_compilergyms():
    rows = [CommandlineFlag(name=n, flag=f"-{n}", description=f"{n} pass") for n in "abc"]
    space = Commandline(rows, name="test")
    assert (space.name, space.n) == ("test", 3)
    assert space.flags == space.names == ["-a", "-b", "-c"]
    assert space.descriptions == ["a pass", "b pass", "c pass"]
    assert space.to_string([0, 1, 2]) == "-a -b -c" and space.to_string(1) == "-b"
    assert space.from_string("-a -b -c") == [0, 1, 2]
    assert space.contains(2) and not space.contains(3) and not space.contains(1.5)
    # This package's order (name, flags, prefix, suffix) still makes the same space.
    ours = Commandline("test", ["-a", "-b", "-c"])
    assert ours.flags == space.flags and ours.name == "test" and ours.descriptions == [""] * 3
    # A derived space keeps the descriptions of the flags it shares.
    subset = space.derived("sub", ["-c", "-z"])
    assert (subset.flags, subset.descriptions) == (["-c", "-z"], ["c pass", ""])


def test_commandline_keeps_two_spaces_around_no_actions():
    space = Commandline("test", ["-a", "-b"], prefix="opt", suffix="input.bc -o output.bc")
    assert space.to_string([]) == "opt  input.bc -o output.bc"
    assert space.to_string([1, 0]) == "opt -b -a input.bc -o output.bc"
    for text in ("opt  input.bc -o output.bc", "opt input.bc -o output.bc"):
        assert space.from_string(text) == []
    with compiler_gym.make("llvm-v0", benchmark="benchmark://builtin-v0/crc32") as env:
        env.reset()
        assert env.action_space.to_string(env.actions) == "opt  input.bc -o output.bc"
        assert env.action_space.from_string("opt input.bc -o output.bc") == []
        # The env's own reward view (made as RewardView(env, spaces)) still computes rewards.
        assert isinstance(env.reward, RewardView) and env.reward["IrInstructionCount"] == 0
        env.step(env.action_space["-mem2reg"])
        assert env.reward["IrInstructionCount"] > 0
        assert env.commandline() == "opt -mem2reg input.bc -o output.bc"


def test_unknown_names_are_lookup_and_value_errors():
    space = NamedDiscrete(["foo"], name="test")
    for error in (ValueError, LookupError, UnknownName):
        with pytest.raises(error, match="Unknown name 'bar' in test"):
            space["bar"]
    flags = Commandline("flags", ["-mem2reg"])
    with pytest.raises(ValueError, match="did you mean '-mem2reg'"):
        flags["-mem2re"]
    with pytest.raises(LookupError, match="Unknown flag in command line: '-gvn'"):
        flags.from_string("-mem2reg -gvn")


def test_named_discrete_needs_a_name_prints_its_names_and_writes_one_value():
    with pytest.raises(ValueError, match="No values for discrete space"):
        NamedDiscrete([], name="test")
    space = NamedDiscrete(["foo", "bar"], name="test")
    assert str(space) == repr(space) == "NamedDiscrete([foo, bar])"
    assert space.to_string(0) == "foo" and space.to_string(np.int64(1)) == "bar"
    assert space.to_string(np.array(1)) == "bar"
    assert space.to_string([0]) == "foo" and space.to_string([0, 0, 1]) == "foo foo bar"


def test_discrete_and_tuple_equality_compares_names():
    assert Discrete(2, name="d") == Discrete(2, name="d")
    assert Discrete(2, name="d") != Discrete(2, name="d2")
    assert Discrete(2, name="d") != Discrete(3, name="d") and Discrete(2, name="d") != "d"
    parts = [Discrete(2, name="x"), Discrete(3, name="y")]
    assert Tuple(parts, name="t") == Tuple(list(parts), name="t")
    assert Tuple(parts, name="t") != Tuple(parts, name="t2")
    assert Tuple(parts, name="t") != Tuple(parts[:1], name="t")


def test_box_equality_ignores_the_dtype_only():
    box = Box(low=0, high=1, name="b", shape=[1, 2], dtype=int)
    assert box == Box(low=0, high=1, name="b", shape=[1, 2], dtype=float)
    assert box != Box(low=0, high=1, name="b2", shape=[1, 2], dtype=int)
    assert box != Box(low=-1, high=1, name="b", shape=[1, 2], dtype=int)
    assert box != Box(low=0, high=2, name="b", shape=[1, 2], dtype=int)
    assert box != Box(low=0, high=1, name="b", shape=[1, 3], dtype=int)
    assert box != "b"


def test_permutation_needs_an_integer_range():
    with pytest.raises(TypeError, match="Permutation space can have integral scalar range only"):
        Permutation(name="", scalar_range=Scalar(name="", min=0, max=2, dtype=float))
    with pytest.raises(ValueError, match="bounded"):
        Permutation(name="", scalar_range=Scalar(name="", min=0, max=None, dtype=int))
    assert Permutation(name="p", scalar_range=Scalar(name="r", min=0, max=2, dtype=int)).contains(
        np.array([2, 0, 1])
    )


def test_scalar_samples_are_of_the_dtype_given():
    for dtype, kind in ((int, int), (float, float), (np.int64, np.int64), (np.float32, np.float32)):
        space = Scalar(name="s", min=-10, max=10, dtype=dtype)
        space.seed(0)
        values = [space.sample() for _ in range(20)]
        assert all(type(v) is kind and -10 <= v <= 10 for v in values), dtype


def test_sequence_elements_of_a_list_must_be_of_its_dtype():
    floats = Sequence(
        name="f", size_range=(3, 3), dtype=float, scalar_range=Scalar(name="r", min=0, max=1)
    )
    assert floats.contains([0.0, 0.0, 0.0]) and floats.contains([0.1, 1.0, 0.5])
    assert not floats.contains([0.0, 0, 0.1])  # an int among floats
    assert not floats.contains([0.0, 0.0, -1.0]) and not floats.contains([0.0, 0.0])
    assert floats.contains(np.array([0.0, 0.5, 1.0]))
    ints = Sequence(name="i", size_range=(0, None), dtype=int)
    assert ints.contains(list(range(5))) and ints.contains([np.int32(3)])
    assert not ints.contains([1, 2.5]) and not ints.contains([True])


class MockReward:
    """A reward that is no compiler_gym Reward: it records its calls."""

    def __init__(self, name, values, observation_spaces=()):
        self.name = name
        self.values = list(values)
        self.observation_spaces = list(observation_spaces)
        self.calls = []

    def update(self, actions, observations, observation_view):
        self.calls.append((actions, observations, observation_view))
        return self.values.pop(0)

    def reset(self, benchmark, observation_view):
        self.calls.append(("reset", benchmark))


class MockObservations:
    """An observation view that is not iterable: ``[name]`` is all a reward view may use."""

    def __getitem__(self, name):
        return f"{name} value"


def test_reward_view_made_as_compilergyms_computes_its_rewards():
    with pytest.raises(ValueError, match="^No reward spaces$"):
        RewardView([], MockObservations())["foo"]
    with pytest.raises(KeyError, match="invalid"):
        RewardView([MockReward("foo", [1])], MockObservations())["invalid"]
    view = MockObservations()
    size = MockReward("codesize", [-5, 3], observation_spaces=["IrInstructionCount"])
    runtime = MockReward("runtime", [10])
    rewards = RewardView([size, runtime], view)
    assert rewards["codesize"] == -5 and rewards.runtime() == 10 and rewards.codesize() == 3
    assert size.calls[0] == (None, ["IrInstructionCount value"], view)
    assert runtime.calls == [(None, [], view)]
    rewards.reset("benchmark://b", view)
    assert size.calls[-1] == runtime.calls[-1] == ("reset", "benchmark://b")
    by_keyword = RewardView(spaces=[MockReward("r", [4])], observation_view=view)
    assert list(by_keyword.spaces) == ["r"] and by_keyword["r"] == 4
