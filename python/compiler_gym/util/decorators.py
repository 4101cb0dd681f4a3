"""CompilerGym's ``compiler_gym.util.decorators``: a property computed once per object, and
classes whose objects take no new attributes after ``__init__``.

    >>> @frozen_class
    ... class Program:
    ...     def __init__(self, source):
    ...         self.source = source
    ...
    ...     @memoized_property
    ...     def ir(self):              # compiled on first use, then kept
    ...         return compile(self.source)
    >>> Program("...").sources = 1     # TypeError: a typo, not a new attribute
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T", bound=type)


def memoized_property(func: Callable[[Any], Any]) -> functools.cached_property:
    """A property whose value ``func(self)`` is computed on first access and then kept in the
    object (:class:`functools.cached_property`, which the package uses itself)."""
    return functools.cached_property(func)


def frozen_class(cls: T) -> T:
    """Makes ``cls`` refuse, with ``TypeError``, to set an attribute that an object does not
    have once its ``__init__`` has returned; existing attributes can still be assigned. A
    subclass that adds attributes in its own ``__init__`` needs the decorator too (it freezes
    when the outermost decorated ``__init__`` returns)."""
    init, setattr_ = cls.__init__, cls.__setattr__

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_frozen_class_depth") == 0 and not hasattr(self, name):
            raise TypeError(f"Cannot set attribute {name} on frozen class {type(self).__name__}")
        setattr_(self, name, value)

    @functools.wraps(init)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # The nesting depth of decorated __init__ calls (a subclass's calls its base's):
        # the object freezes when it falls back to 0.
        depth = self.__dict__.get("_frozen_class_depth", 0)
        self.__dict__["_frozen_class_depth"] = depth + 1
        try:
            init(self, *args, **kwargs)
        finally:
            self.__dict__["_frozen_class_depth"] -= 1

    cls.__setattr__ = __setattr__
    cls.__init__ = __init__
    return cls


__all__ = ["frozen_class", "memoized_property"]
