"""CompilerGym's ``compiler_gym.util.permutation``: numbering the permutations of
``range(size)``, so that an ordering (of passes, of loops) can be one integer action.

    >>> convert_number_to_permutation(4, 3)
    [1, 2, 0]
    >>> convert_permutation_to_number([1, 2, 0])
    4

The numbering is CompilerGym's (a mixed-radix number whose digit ``i``, in base
``size - i``, picks the next element from those left, the last of which then fills its
place), so numbers mean the same permutations as there.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence


def convert_number_to_permutation(n: int, permutation_size: int) -> list[int]:
    """The permutation of ``range(permutation_size)`` numbered ``n``, for ``0 <= n <
    permutation_size!``; ``ValueError`` for an ``n`` outside that range."""
    n, size = operator.index(n), operator.index(permutation_size)
    if size < 0 or not 0 <= n < math.factorial(size):
        raise ValueError(f"{n} does not number a permutation of {size} elements")
    remaining = list(range(size))
    permutation = []
    for i in range(size):
        n, j = divmod(n, size - i)
        permutation.append(remaining[j])
        remaining[j] = remaining[-1]
        remaining.pop()
    return permutation


def convert_permutation_to_number(permutation: Sequence[int]) -> int:
    """The number of ``permutation`` (of ``range(len(permutation))``): the inverse of
    :func:`convert_number_to_permutation`. ``ValueError`` for a sequence that is not such a
    permutation."""
    permutation = [operator.index(x) for x in permutation]
    size = len(permutation)
    if sorted(permutation) != list(range(size)):
        raise ValueError(f"not a permutation of range({size}): {permutation}")
    remaining = list(range(size))  # the elements not yet picked, as the numbering keeps them
    position = list(range(size))  # the index of each element in remaining
    number, radix = 0, 1
    for i, element in enumerate(permutation):
        j = position[element]
        number += radix * j
        radix *= size - i
        last = remaining[size - i - 1]
        remaining[j], position[last] = last, j
    return number


__all__ = ["convert_number_to_permutation", "convert_permutation_to_number"]
