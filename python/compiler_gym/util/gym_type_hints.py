"""CompilerGym's ``compiler_gym.util.gym_type_hints``: type aliases for annotating code that
uses the environments."""

from typing import Any, Optional, TypeVar, Union

# Observations, actions and rewards are whatever the spaces hold.
ObservationType = TypeVar("ObservationType")
ActionType = TypeVar("ActionType")
RewardType = float
DoneType = bool
InfoType = dict[str, Any]
# What CompilerEnv.step and multistep return.
StepType = tuple[
    Optional[Union[ObservationType, list[ObservationType]]],
    Optional[Union[RewardType, list[RewardType]]],
    DoneType,
    InfoType,
]
# The value of an argument that distinguishes "not given" from None.
OptionalArgumentValue = Union[str, Any]

__all__ = [
    "ActionType",
    "DoneType",
    "InfoType",
    "ObservationType",
    "OptionalArgumentValue",
    "RewardType",
    "StepType",
]
